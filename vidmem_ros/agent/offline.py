"""Answers questions about what was seen, from the store alone, with no language model."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timezone

from vidmem_ros.agent.answer import Answer, EvidenceItem
from vidmem_ros.agent.labels import resolve_labels
from vidmem_ros.agent.question import Intent, parse_question, validate_question
from vidmem_ros.config import QueryConfig
from vidmem_ros.errors import InputError
from vidmem_ros.memory.records import Sighting
from vidmem_ros.memory.store import MemoryStore
from vidmem_ros.perception.vocabulary import LabelMapper

SUPPORTED = "did you see X / when did you first see X / when did you last see X / where did you see X"
# Absence of a detection is weak evidence: a detector misses things.  This is the
# confidence of a "not seen" answer when memory covers the period asked about.
NOT_SEEN_CONFIDENCE = 0.3


class OfflineAnswerer:
    def __init__(
        self,
        store: MemoryStore,
        vocabulary: Sequence[str],
        config: QueryConfig,
        min_detector_score: float,
        mapper: LabelMapper | None = None,
    ) -> None:
        self.store = store
        self.vocabulary = tuple(vocabulary)
        self.mapper = mapper  # open-vocabulary words onto the detector's labels, by text-embedding similarity
        self.config = config
        self.weak_score = min(min_detector_score, config.min_score)

    def answer(self, question: str, as_of: float | None = None) -> Answer:
        started = time.monotonic()
        trace: dict[str, object] = {"question": question, "as_of": as_of, "planner": "offline", "steps": []}
        try:
            text = validate_question(question, self.config.max_question_chars)
        except InputError as exc:
            return Answer.failure(str(exc), {**trace, "rejected": exc.reason})
        parsed = parse_question(text)
        if parsed is None:
            return Answer.failure(f"unsupported question; this version answers: {SUPPORTED}", trace)
        labels = resolve_labels(parsed.target, self.vocabulary)
        if not labels and self.mapper is not None:
            mapping = self.mapper.map([parsed.target])
            labels = mapping.mapped.get(parsed.target, [])
            trace["label_similarity"] = round(mapping.similarity.get(parsed.target, 0.0), 3)
        trace["intent"] = parsed.intent.value
        trace["target"] = parsed.target
        trace["labels"] = labels
        if not labels:
            return Answer(
                success=True,
                confidence=0.0,
                trace=trace,
                text=f"I cannot tell whether I saw {parsed.target}: my detector does not recognise it.",
            )
        sightings = self.store.sightings(labels, as_of, self.weak_score)
        trace["steps"] = [{"tool": "sightings", "labels": labels, "as_of": as_of, "found": len(sightings)}]
        answer = self._compose(parsed.intent, parsed.target, sightings, as_of)
        answer.trace = {**trace, **answer.trace, "elapsed_s": round(time.monotonic() - started, 4)}
        return answer

    def _compose(self, intent: Intent, target: str, sightings: list[Sighting], as_of: float | None) -> Answer:
        strong = [s for s in sightings if s.score >= self.config.min_score]
        span = self.store.time_span(as_of)
        if not strong:
            return self._not_seen(target, sightings, span)
        chosen = strong[0] if intent is Intent.FIRST else strong[-1]
        moments = _best_per_moment(strong)
        confidence = _noisy_or([s.score for s in moments])
        when = _describe_time(chosen.stamp, span)
        if intent is Intent.DID:
            times = "once" if len(moments) == 1 else f"{len(moments)} times"
            text = f"Yes, I saw {target} {times}; most recently {when}."
        elif intent is Intent.FIRST:
            text = f"I first saw {target} {when}."
        elif intent is Intent.LAST:
            text = f"I last saw {target} {when}."
        else:
            text = f"I last saw {target} {when}" + (
                f" {_describe_place(chosen)}." if chosen.pose else "; I had no pose then."
            )
        return Answer(
            success=True,
            text=text,
            confidence=confidence,
            stamp=chosen.stamp,
            pose=chosen.pose,
            evidence=self._evidence(strong, chosen),
            trace={"chosen": f"moment/{chosen.moment_id}"},
        )

    def _not_seen(self, target: str, weak: list[Sighting], span: tuple[float, float] | None) -> Answer:
        if span is None:
            return Answer(
                success=True,
                text=f"I have no memory from that time, so I cannot say whether I saw {target}.",
                confidence=0.0,
            )
        if weak:
            best = max(weak, key=lambda s: s.score)
            return Answer(
                success=True,
                confidence=NOT_SEEN_CONFIDENCE,
                text=f"I am not sure: the only sign of {target} is a weak detection {_describe_time(best.stamp, span)}.",
                evidence=self._evidence(weak, best),
                stamp=None,
            )
        return Answer(success=True, text=f"No, I have not seen {target}.", confidence=NOT_SEEN_CONFIDENCE)

    def _evidence(self, sightings: list[Sighting], chosen: Sighting) -> list[EvidenceItem]:
        ranked = [
            chosen,
            *sorted(
                (s for s in _best_per_moment(sightings) if s.moment_id != chosen.moment_id), key=lambda s: -s.score
            ),
        ]
        return [
            EvidenceItem(
                "detection", f"moment/{s.moment_id}", s.stamp, s.stamp, f"{s.label} ({s.score:.2f})", s.score, s.pose
            )
            for s in ranked[: self.config.max_evidence]
        ]


def _best_per_moment(sightings: list[Sighting]) -> list[Sighting]:
    best: dict[int, Sighting] = {}
    for s in sightings:
        if s.moment_id not in best or s.score > best[s.moment_id].score:
            best[s.moment_id] = s
    return sorted(best.values(), key=lambda s: s.stamp)


def _noisy_or(scores: list[float]) -> float:
    miss = 1.0
    for score in sorted(scores, reverse=True)[:5]:
        miss *= 1.0 - score
    return round(min(0.99, 1.0 - miss), 3)


def _describe_time(stamp: float, span: tuple[float, float] | None) -> str:
    clock = datetime.fromtimestamp(stamp, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    if span is None:
        return f"at {clock}"
    return f"at {clock} ({stamp - span[0]:.1f} s after my memory begins)"


def _describe_place(s: Sighting) -> str:
    assert s.pose is not None
    return f"at x={s.pose.x:.1f} m, y={s.pose.y:.1f} m in frame '{s.pose.frame_id}'"
