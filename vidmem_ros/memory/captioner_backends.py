"""The event captioner a configuration asks for: captions composed from an event's facts by rules (the cpu
profile), or written by a vision-language model behind an OpenAI-compatible server (the gpu profile)."""

from __future__ import annotations

from vidmem_ros.config import CaptionerConfig
from vidmem_ros.memory.captions import ComposedCaptioner, EventCaptioner


def build_captioner(config: CaptionerConfig) -> EventCaptioner:
    """The event captioner; a VLM server that does not answer at start-up is a ModelUnavailableError."""
    if config.backend == "composed":
        return ComposedCaptioner()
    if config.backend == "openai_vlm":
        from vidmem_ros.memory.vlm_captioner import OpenAiVlmCaptioner

        captioner = OpenAiVlmCaptioner(config)
        captioner.check()
        return captioner
    raise AssertionError(f"unhandled captioner backend {config.backend}")
