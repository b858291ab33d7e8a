"""Event captions: what an event showed, and what changed from the one before.

The default captioner composes text from what perception reported (labels,
text read, words heard) and nothing else, so a caption never claims more than
a model saw.  A VLM captioner can take its place behind the same protocol.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from vidmem_ros.memory.records import Event, Moment
from vidmem_ros.memory.runs import Run

CAUSAL_KINDS = ("causes", "enables", "requires", "prevents")


@dataclass(frozen=True)
class EventFacts:
    """What perception reported during one event."""

    start: float
    end: float
    labels: list[str]  # most frequent first
    texts: list[str]
    transcript: list[str]
    moments: list[Moment] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # what a whole-frame classifier saw, most frequent first
    runs: Sequence[Run] = ()  # memory's runs, to tell the times (memory time) as the robot's clock read them


@dataclass(frozen=True)
class Relation:
    """A causal link from the previous event to this one, when a captioner can tell."""

    kind: str  # one of CAUSAL_KINDS
    confidence: float
    evidence: str


@dataclass(frozen=True)
class Caption:
    text: str
    change: str
    relations: list[Relation] = field(default_factory=list)


# The caption of an event in which perception named nothing.
NOTHING_RECOGNISED = "Nothing recognised."


class EventCaptioner(Protocol):
    name: str

    def caption(self, facts: EventFacts, previous: Event | None) -> Caption: ...


HEARD_LEAD = "Heard "  # a composed caption's last part: the speech of its event


def seen_part(caption: str) -> str:
    """A caption without the speech it repeats: what was seen and read, as evidence of a sighting."""
    at = caption.find(f" {HEARD_LEAD}")
    return caption[:at] if at >= 0 else ("" if caption.startswith(HEARD_LEAD) else caption)


class ComposedCaptioner:
    """Captions built only from detector labels, text read and speech heard."""

    name = "composed"

    def caption(self, facts: EventFacts, previous: Event | None) -> Caption:
        parts = []
        if facts.labels:
            parts.append("Saw " + _join(facts.labels[:8]) + ".")
        if facts.tags:
            parts.append("Looked like " + _join(facts.tags[:3]) + ".")
        if facts.texts:
            parts.append("Read " + _join([f'"{t}"' for t in facts.texts[:5]]) + ".")
        if facts.transcript:
            parts.append(HEARD_LEAD + _join([f'"{t}"' for t in facts.transcript[:3]]) + ".")
        text = " ".join(parts) or NOTHING_RECOGNISED
        return Caption(text, describe_change(facts, previous))


def describe_change(facts: EventFacts, previous: Event | None) -> str:
    if previous is None:
        return "first event"
    new = [x for x in facts.labels if x not in previous.labels]
    gone = [x for x in previous.labels if x not in facts.labels]
    read = [t for t in facts.texts if t not in previous.texts]
    parts = []
    if new:
        parts.append("new: " + ", ".join(new))
    if gone:
        parts.append("gone: " + ", ".join(gone))
    if read:
        parts.append("newly read: " + ", ".join(read))
    return "; ".join(parts) or "no change in what was recognised"


def event_labels(moments: list[Moment], min_score: float) -> list[str]:
    """Labels detected in an event, most frequent first."""
    counts: Counter[str] = Counter()
    for moment in moments:
        counts.update({d.label for d in moment.detections if d.score >= min_score})
    return [label for label, _ in counts.most_common()]


def event_tags(moments: list[Moment], min_score: float) -> list[str]:
    """Whole-frame classes seen during an event, most frequent first."""
    counts: Counter[str] = Counter()
    for moment in moments:
        counts.update({t.label for t in moment.tags if t.score >= min_score})
    return [label for label, _ in counts.most_common()]


def event_texts(moments: list[Moment]) -> list[str]:
    seen: dict[str, None] = {}
    for moment in moments:
        for line in moment.texts:
            seen.setdefault(line.text.strip(), None)
    return [t for t in seen if t]


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
