"""What the reasoner returns: an answer with its confidence, typed time and place, evidence and trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vidmem_ros.memory.records import Pose


@dataclass(frozen=True)
class EvidenceItem:
    kind: str  # frame, event, summary, transcript, detection, text
    ref: str  # stable id in the store, e.g. "moment/42"
    stamp: float
    end_stamp: float
    text: str
    score: float
    pose: Pose | None = None
    robot: str = ""  # the robot that observed it, in a fleet answer; empty: this robot


@dataclass
class Answer:
    success: bool
    text: str = ""
    confidence: float = 0.0
    stamp: float | None = None
    pose: Pose | None = None
    evidence: list[EvidenceItem] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    value: bool | float | str | None = None  # yes/no, a count, a duration in seconds or a short name

    @classmethod
    def failure(cls, error: str, trace: dict[str, Any] | None = None) -> Answer:
        return cls(success=False, error=error, trace=trace or {})
