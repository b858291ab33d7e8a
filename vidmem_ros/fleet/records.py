"""What a robot sends to the fleet store, what a search there returns, and the store's protocol.

Every record carries the robot's id and its id in the robot's own store, so the same record is stored once
however often it is sent (an upsert by ``robot/kind/local_id``).  Moments carry the visual vector; text records
(text read, speech heard, event captions) carry their words for full-text search and a sentence vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from vidmem_ros.memory.records import Pose

TEXT_KINDS = ("text", "transcript", "event")


@dataclass(frozen=True)
class FleetMoment:
    robot: str
    local_id: int
    stamp: float
    event_id: int  # -1: none
    pose: Pose | None
    labels: tuple[str, ...]
    vector: np.ndarray


@dataclass(frozen=True)
class FleetText:
    robot: str
    kind: str  # one of TEXT_KINDS
    local_id: int
    stamp: float
    end: float
    pose: Pose | None
    text: str
    vector: np.ndarray
    moment_id: int = -1  # text read: the frame it was read in


@dataclass(frozen=True)
class FleetHit:
    robot: str
    kind: str  # moment, or one of TEXT_KINDS
    local_id: int
    stamp: float
    end: float
    score: float
    text: str = ""
    x: float | None = None
    y: float | None = None
    frame_id: str = ""


@dataclass(frozen=True)
class FleetScope:
    """Which records a search may return: some robots (none named: all), a time window, nothing after ``as_of``."""

    robots: Sequence[str] = ()
    start: float | None = None
    end: float | None = None
    as_of: float | None = None
    kinds: Sequence[str] = field(default_factory=tuple)  # text kinds; none named: all


@dataclass(frozen=True)
class Forgotten:
    """What one forget removed from a robot's store, for the fleet store to remove too."""

    spans: Sequence[tuple[float, float]] = ()
    moment_ids: Sequence[int] = ()
    event_ids: Sequence[int] = ()


class FleetStore(Protocol):
    """A store shared by robots; every call is idempotent, so a sync that was cut off can simply send again."""

    def upsert_moments(self, moments: Sequence[FleetMoment]) -> None: ...

    def upsert_texts(self, texts: Sequence[FleetText]) -> None: ...

    def forget(self, robot: str, forgotten: Forgotten) -> None: ...

    def search_text(self, query: str, vector: np.ndarray | None, limit: int, scope: FleetScope) -> list[FleetHit]: ...

    def search_images(self, vector: np.ndarray, limit: int, scope: FleetScope) -> list[FleetHit]: ...

    def moment_vector(self, robot: str, local_id: int) -> np.ndarray | None: ...

    def counts(self, robot: str | None = None) -> dict[str, int]: ...

    def close(self, release: bool = False) -> None: ...
