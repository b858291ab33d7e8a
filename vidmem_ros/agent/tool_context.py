"""What every tool over memory takes and returns: the question's context (the store, its ``as_of``, the
models the inspection tools may load) and ``Finding``s, compact records that carry a reference the answer can
cite ("moment/42", "event/7", "transcript/3", "text/9").  Times are seconds since memory began (``t``), which
language models handle far better than epoch stamps; nothing stamped after ``as_of`` is visible."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vidmem_ros.agent.grounding import MeaningCache
from vidmem_ros.agent.labels import LabelLexicon
from vidmem_ros.config import PlacesConfig
from vidmem_ros.errors import VidmemError
from vidmem_ros.memory import places as stays
from vidmem_ros.memory.captions import EventCaptioner
from vidmem_ros.memory.reader import ColdTier, MemoryReader
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.runs import Run
from vidmem_ros.memory.vector_search import VectorSearch
from vidmem_ros.memory.view import MemoryView
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.types import Detector, OcrEngine, Tagger

REF = re.compile(r"^(moment|event|super_event|transcript|text|place|speaker)/(\d+)$|^root$")
SOURCES = ("moments", "events", "summaries", "transcripts", "texts")
SOURCE_KINDS = {
    "moments": ("moment",),
    "events": ("event",),
    "summaries": ("super_event",),
    "transcripts": ("transcript",),
    "texts": ("text",),
}


class ToolError(VidmemError):
    """A call the tool refuses (a time after ``as_of``, an unknown reference); the planner sees the message."""


@dataclass(frozen=True)
class Finding:
    """One thing a tool found, citable by ``ref``."""

    ref: str
    kind: str  # moment | occasion | event | super_event | root | transcript | text | pose
    stamp: float
    end: float
    text: str
    score: float = 1.0
    pose: Pose | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self, t0: float) -> dict[str, Any]:
        out: dict[str, Any] = {"ref": self.ref, "t": round(self.stamp - t0, 1)}
        if self.end > self.stamp:
            out["t_end"] = round(self.end - t0, 1)
        if self.text:
            out["text"] = self.text
        if self.score < 1.0:
            out["score"] = round(self.score, 2)
        if self.pose is not None:
            out["xy"] = [round(self.pose.x, 1), round(self.pose.y, 1)]
        out.update({k: v for k, v in self.data.items() if not k.startswith("_")})
        return out


# What the places tool notes of a description whose head is an activity ("this circuit"), which may be no place,
# and of one whose head is nothing else ("duty").
NAMES_ACTIVITY = "names an activity"
NAMES_ONLY_ACTIVITY = "names an activity and no place"


@dataclass
class ToolResult:
    tool: str
    findings: list[Finding] = field(default_factory=list)
    note: str = ""
    error: str = ""


@dataclass
class Perception:
    """Models the inspection tools may run on stored frames; any may be missing.

    With a ``loader``, a missing model is built on first use (the query node does
    not pay for models no question needs), once.
    """

    detector: Detector | None = None
    ocr: OcrEngine | None = None
    tagger: Tagger | None = None
    captioner: EventCaptioner | None = None
    loader: Callable[[str], Any] | None = None
    _tried: set[str] = field(default_factory=set)

    def model(self, kind: str) -> Any:
        """The detector, ocr, tagger or captioner, loading it if it can."""
        current = getattr(self, kind)
        if current is None and self.loader is not None and kind not in self._tried:
            self._tried.add(kind)
            current = self.loader(kind)
            setattr(self, kind, current)
        return current


@dataclass
class ToolContext:
    store: MemoryView
    as_of: float | None
    t0: float  # stamp of t = 0
    vocabulary: tuple[str, ...] = ()
    min_score: float = 0.5  # detection score from which a sighting counts
    weak_score: float = 0.3
    occasion_gap_s: float = 12.0  # sightings further apart are separate occasions
    perception: Perception = field(default_factory=Perception)
    images: VectorSearch | None = None
    cold: ColdTier | None = None  # this robot's frames in the fleet store, for vectors evicted here
    places: PlacesConfig = field(default_factory=PlacesConfig)
    text_embedder: TextEmbedder | None = None  # matches place descriptions by meaning as well as by words
    lexicon: LabelLexicon | None = None  # words -> detector labels; built from ``vocabulary`` on first use if None
    meaning: MeaningCache | None = None  # records' sentence vectors, shared by the questions of one reasoner
    runs: Sequence[Run] = ()  # the runs of the robot's clock (``memory.runs``) visible as of the question
    _visits: dict[tuple[float, float], list[stays.Visit]] = field(default_factory=dict)  # one question's
    records: dict[tuple[str, float, float], Any] = field(default_factory=dict)  # one question's, read by kind

    def visits(self, lo: float, hi: float) -> list[stays.Visit]:
        """The visits in [lo, hi] as of the question, each described; read once per question (several tools
        and several readings of one question ask for them)."""
        if (lo, hi) not in self._visits:
            self._visits[lo, hi] = stays.described_visits(self.store, self.places, lo, hi, self.as_of, self.min_score)
        return self._visits[lo, hi]

    @property
    def reader(self) -> MemoryReader:
        return MemoryReader(self.store, self.images, self.cold)

    @property
    def upper(self) -> float:
        return math.inf if self.as_of is None else self.as_of

    def stamp(self, t: float | None, default: float) -> float:
        return default if t is None else self.t0 + t

    def window(self, start_t: float | None, end_t: float | None) -> tuple[float, float]:
        """Absolute [lo, hi] for a range in t, clamped to ``as_of``; a range wholly after it is refused."""
        lo = self.stamp(start_t, -math.inf)
        hi = min(self.stamp(end_t, math.inf), self.upper)
        if lo > self.upper:
            raise ToolError(f"start_t={start_t} is after the question's moment; nothing after it can be read")
        return lo, hi

    def require_visible(self, stamp: float, what: str) -> None:
        if stamp > self.upper:
            raise ToolError(f"{what} is after the question's moment; nothing after it can be read")
