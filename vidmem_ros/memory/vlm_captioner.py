"""Event captions from a vision-language model behind an OpenAI-compatible chat-completions server.

Works with vLLM, Ollama, llama.cpp server and NIM: keyframes go as base64
JPEG data URLs, the facts perception reported go as text, and the reply must be
one JSON object that validates against ``CaptionReply``.  An invalid reply gets
one repair round (the validation error is sent back); a second failure, an
unreachable server or a timeout raises ``VlmCaptionError`` from
``caption_strict``.  ``caption`` (the EventCaptioner method the archive calls)
catches that error, logs it as a warning and returns the caption composed from
perception signals, so a VLM outage never stops events from closing.
"""

from __future__ import annotations

import base64
import logging
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vidmem_ros.chat_client import ChatClient, ChatError, read_api_key
from vidmem_ros.config import CaptionerConfig
from vidmem_ros.errors import ModelUnavailableError, VidmemError
from vidmem_ros.memory.captions import CAUSAL_KINDS, Caption, ComposedCaptioner, EventCaptioner, EventFacts, Relation
from vidmem_ros.memory.records import Event, Moment
from vidmem_ros.memory.runs import describe_span

log = logging.getLogger(__name__)

MAX_REPLY_TOKENS = 512

SYSTEM_PROMPT = f"""You write captions of events seen by a robot's camera, for the robot's long-term memory.
Describe only what the images and the listed facts show. Do not guess names, identities, intentions, causes or \
anything outside the frames; when unsure, say less. Never invent objects, text or speech.
Reply with exactly one JSON object and nothing else, with exactly these keys:
{{"caption": "one or two sentences on what this event shows",
 "change": "what differs from the previous event (\\"first event\\" when there is none)",
 "relations": [{{"kind": "one of {", ".join(CAUSAL_KINDS)}", "confidence": 0.0 to 1.0, \
"evidence": "what in the images or facts shows it"}}]}}
"relations" are causal links from the previous event to this one; leave the list empty unless the images or \
facts show the link."""


class VlmCaptionError(VidmemError):
    """The VLM server could not be reached, timed out, or twice replied with something that is not a caption."""


class RelationReply(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    kind: str
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: str = Field(max_length=1000)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in CAUSAL_KINDS:
            raise ValueError(f"kind must be one of {', '.join(CAUSAL_KINDS)}")
        return kind


class CaptionReply(BaseModel):
    """The JSON object the model must answer with; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", strict=True)

    caption: str = Field(min_length=1, max_length=2000)
    change: str = Field(max_length=2000)
    relations: list[RelationReply] = Field(default_factory=list, max_length=8)


def pick_keyframes(moments: list[Moment], count: int) -> list[Moment]:
    """The best-quality stored frame of each of ``count`` equal stretches of the event, in time order."""
    stored = [m for m in moments if m.jpeg]
    if not stored or count <= 0:
        return []
    chunks = np.array_split(np.arange(len(stored)), min(count, len(stored)))
    return [max((stored[i] for i in chunk), key=lambda m: m.quality) for chunk in chunks]


def describe_facts(facts: EventFacts, previous: Event | None, images: int) -> str:
    """The text part of the request: only what perception reported, labelled as such."""

    span = describe_span(facts.runs, facts.start, facts.end)  # the robot's clock, not memory time
    lines = [f"Event from {span} ({facts.end - facts.start:.0f} s)."]
    lines.append("Objects detected, most frequent first: " + (", ".join(facts.labels[:20]) or "none") + ".")
    if facts.texts:
        lines.append("Text read in the frames: " + "; ".join(f'"{t}"' for t in facts.texts[:10]) + ".")
    if facts.transcript:
        lines.append("Speech heard: " + " ".join(f'"{t}"' for t in facts.transcript[:5]) + ".")
    if previous is None:
        lines.append("There is no previous event.")
    else:
        lines.append(f'Previous event: "{previous.caption}" (objects: {", ".join(previous.labels[:20]) or "none"}).')
    lines.append(
        f"The {images} image(s) below are keyframes of this event in time order."
        if images
        else "No images of this event are available; caption it from the facts above only."
    )
    return "\n".join(lines)


def parse_reply(content: str) -> CaptionReply:
    """Validate the model's text; a Markdown code fence around the object is the only leniency."""
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0].strip()
    return CaptionReply.model_validate_json(text)


class OpenAiVlmCaptioner:
    """EventCaptioner backed by a VLM; falls back to the composed caption (with a warning) when the VLM fails."""

    name = "openai_vlm"

    def __init__(self, config: CaptionerConfig, fallback: EventCaptioner | None = None) -> None:
        if not config.model:
            raise ModelUnavailableError(
                "captioner.model is empty; set it to the model name the server serves "
                "(e.g. Qwen/Qwen2.5-VL-7B-Instruct on vLLM, qwen2.5vl:7b on Ollama)"
            )
        self._url = config.url.rstrip("/")
        self._model = config.model
        self._max_images = config.max_images
        api_key = read_api_key(config.api_key_file, "captioner.api_key_file")
        self._client = ChatClient(self._url, config.model, api_key, config.timeout_s, "captioner.timeout_s")
        self._fallback = fallback or ComposedCaptioner()
        self.failures = 0

    def check(self) -> None:
        """Start-up probe: the server answers GET /models; a model it does not list is only warned about."""
        try:
            served = self._client.models()
        except ChatError as exc:
            raise ModelUnavailableError(
                f"captioner.url={self._url} does not answer ({exc}); start the OpenAI-compatible server "
                "(e.g. `vllm serve MODEL`, `ollama serve`, `llama-server -m MODEL --mmproj PROJ`) or set "
                "captioner.backend: composed"
            ) from exc
        if served and self._model not in served:  # llama.cpp serves any name, so this is not fatal
            log.warning("captioner.model=%s is not among the served models %s", self._model, served)

    def caption(self, facts: EventFacts, previous: Event | None) -> Caption:
        try:
            return self.caption_strict(facts, previous)
        except VlmCaptionError as exc:
            self.failures += 1
            log.warning("VLM caption failed, using the caption composed from perception instead: %s", exc)
            return self._fallback.caption(facts, previous)

    def caption_strict(self, facts: EventFacts, previous: Event | None) -> Caption:
        """Ask, validate, repair once; raises VlmCaptionError on a second invalid reply or any transport failure."""
        messages = self.messages(facts, previous)
        content = self._complete(messages)
        try:
            reply = parse_reply(content)
        except ValidationError as exc:
            log.info("VLM reply invalid, asking once for a repair: %s", _brief(exc))
            messages += [
                {"role": "assistant", "content": content},
                {"role": "user", "content": _repair_request(exc)},
            ]
            content = self._complete(messages)
            try:
                reply = parse_reply(content)
            except ValidationError as again:
                raise VlmCaptionError(
                    f"{self._model} at {self._url} replied twice with an invalid caption: {_brief(again)}"
                ) from again
        relations = [Relation(r.kind, r.confidence, r.evidence.strip()) for r in reply.relations]
        return Caption(reply.caption.strip(), reply.change.strip(), relations)

    def messages(self, facts: EventFacts, previous: Event | None) -> list[dict[str, Any]]:
        frames = pick_keyframes(facts.moments, self._max_images)
        parts: list[dict[str, Any]] = [{"type": "text", "text": describe_facts(facts, previous, len(frames))}]
        for frame in frames:
            assert frame.jpeg is not None  # pick_keyframes keeps stored frames only
            data = base64.b64encode(frame.jpeg).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{data}"}})
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": parts}]

    def _complete(self, messages: list[dict[str, Any]]) -> str:
        try:
            reply = self._client.complete(
                messages, max_tokens=MAX_REPLY_TOKENS, response_format={"type": "json_object"}
            )
        except ChatError as exc:
            raise VlmCaptionError(str(exc)) from exc
        return reply.content


def _brief(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in exc.errors()[:5])


def _repair_request(exc: ValidationError) -> str:
    return (
        f"Your reply is not valid: {_brief(exc)}. Reply again with only the JSON object with exactly the keys "
        '"caption", "change" and "relations", describing only what the images and facts show.'
    )
