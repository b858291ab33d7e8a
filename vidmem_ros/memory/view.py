"""What the read side needs from a store: reads only, by time, place, label, text and id.

The agent's tools, the read side (``reader``) and the places read memory through this protocol, so another store
(a server-backed one on a robot fleet's side) can answer questions by implementing these reads; ``SqliteStore`` is
the one this package ships.  Writing stays with the engine, which owns the store's transactions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from vidmem_ros.memory.records import (
    Edge,
    Event,
    FaceSighting,
    Moment,
    Pose,
    SearchHit,
    Sighting,
    SuperEvent,
    TextRead,
    Transcript,
)
from vidmem_ros.memory.runs import Run


class MemoryView(Protocol):
    """Reads of one robot's memory; ``as_of`` hides what was stored after that stamp."""

    def time_span(self, as_of: float | None = None) -> tuple[float, float] | None: ...

    def written_through(self) -> float | None: ...

    def runs(self, as_of: float | None = None) -> list[Run]: ...

    def moment(self, moment_id: int, with_payload: bool = True) -> Moment | None: ...

    def moments(
        self,
        start: float,
        end: float,
        as_of: float | None = None,
        limit: int = 1000,
        with_payload: bool = False,
        with_tags: bool = True,
    ) -> list[Moment]: ...

    def moments_near(
        self, x: float, y: float, radius: float, as_of: float | None = None, limit: int = 5000
    ) -> list[Moment]: ...

    def moment_vector(self, moment_id: int) -> np.ndarray | None: ...

    def in_view_ids(self) -> list[int]: ...

    def sightings(self, labels: Sequence[str], as_of: float | None, min_score: float) -> list[Sighting]: ...

    def tag_sightings(self, word: str, as_of: float | None, min_score: float) -> list[Sighting]: ...

    def tag_classes(
        self, start: float, end: float, as_of: float | None, min_score: float
    ) -> dict[str, tuple[str, ...]]: ...

    def tag_counts(self, start: float, end: float, as_of: float | None = None) -> list[tuple[str, int]]: ...

    def tag_frames(
        self, labels: Sequence[str], start: float, end: float, as_of: float | None, min_score: float
    ) -> list[Sighting]: ...

    def event(self, event_id: int) -> Event | None: ...

    def events(self, start: float = -np.inf, end: float = np.inf, as_of: float | None = None) -> list[Event]: ...

    def event_moments(self, event_id: int, with_payload: bool = False) -> list[Moment]: ...

    def event_views(self, event_id: int) -> list[tuple[int, float, frozenset[str]]]: ...

    def super_events(self, as_of: float | None = None) -> list[SuperEvent]: ...

    def edges(self, event_id: int, kinds: Sequence[str] = ()) -> list[Edge]: ...

    def summary(self, key: str) -> tuple[float, float, str] | None: ...

    def transcripts(self, start: float, end: float, as_of: float | None = None) -> list[Transcript]: ...

    def texts_read(self, start: float, end: float, as_of: float | None = None, limit: int = 500) -> list[TextRead]: ...

    def text_lines(self, ids: Sequence[int]) -> list[TextRead]: ...

    def search_text(
        self, query: str, limit: int = 10, as_of: float | None = None, kinds: Sequence[str] = ()
    ) -> list[SearchHit]: ...

    def search_place(
        self,
        x: float,
        y: float,
        radius: float,
        as_of: float | None = None,
        frame_id: str | None = None,
        limit: int = 50,
    ) -> list[SearchHit]: ...

    def face_sightings(self, start: float, end: float, as_of: float | None = None) -> list[FaceSighting]: ...

    def person_links(self, as_of: float | None = None) -> list[tuple[int, int, float]]: ...

    def texts_below_faces(self, sighting_ids: Sequence[int]) -> list[tuple[int, TextRead]]: ...

    def pose_track(self, start: float, end: float, as_of: float | None = None) -> list[tuple[float, Pose]]: ...
