"""The read side of memory: what the query node's services and the agent's tools ask of the store.

Search by text, time and place; frames that look like one another; a summary of a span of events; what is in
view now (the short-term buffer the ingesting engine keeps in the store); where the robot was at a stamp; and
how long a view lasted.  Every read honours ``as_of``: nothing stamped after it is visible.  Forgetting goes
through ``memory.forget`` from both processes alike; the engine follows it on its next frame.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from vidmem_ros.memory.hierarchy import summarise_events
from vidmem_ros.memory.people import Person, people_met, people_text
from vidmem_ros.memory.poses import interpolate
from vidmem_ros.memory.records import Event, Moment, Pose, SearchHit
from vidmem_ros.memory.vector_index import VectorHit
from vidmem_ros.memory.vector_search import VectorSearch
from vidmem_ros.memory.view import MemoryView

# Without a buffer that reaches the question's moment (a question about the past), "now" is this much
# sensor time before it.
RECENT_WINDOW_S = 120.0
# Reading the robot's pose at a moment of memory: the stored path is read this far either side (it keeps a
# sample at least every pose_track_still_s while the robot stands still), else a kept frame this close.
TRACK_REACH_S = 10.5
FRAME_REACH_S = 2.0


@dataclass(frozen=True)
class Place:
    x: float
    y: float
    radius: float


@dataclass(frozen=True)
class Summary:
    text: str
    events: list[Event]
    people: list[Person] = field(default_factory=list)  # the people heard or seen in the span, the first met first


Span = tuple[float, float]  # a closed range of memory time


def _window(start: float | None, end: float | None, spans: Sequence[Span] | None) -> Sequence[Span]:
    if spans is not None:
        return spans
    return [(-math.inf if start is None else start, math.inf if end is None else end)]


def _bounds(window: Sequence[Span]) -> Span:
    """From the first span's start to the last one's end (an empty window: nothing)."""
    return (min(lo for lo, _ in window), max(hi for _, hi in window)) if window else (math.inf, -math.inf)


def _overlaps(window: Sequence[Span], start: float, end: float) -> bool:
    return any(end >= lo and start <= hi for lo, hi in window)


class ColdTier(Protocol):
    """This robot's records in the fleet store (``fleet``): the frame vectors retention let go of here."""

    def moment_vector(self, moment_id: int) -> np.ndarray | None: ...

    def similar(self, vector: np.ndarray, k: int, as_of: float | None) -> list[VectorHit]: ...


class MemoryReader:
    """One store's read side; ``images`` is the visual index, or None where memory keeps no visual vectors;
    ``cold``, with a fleet store, this robot's frames there, for those whose vectors retention evicted here."""

    def __init__(self, store: MemoryView, images: VectorSearch | None = None, cold: ColdTier | None = None) -> None:
        self.store = store
        self.images = images
        self.cold = cold

    def search(
        self,
        text: str = "",
        start: float | None = None,
        end: float | None = None,
        place: Place | None = None,
        as_of: float | None = None,
        limit: int = 10,
        kinds: Sequence[str] = (),
        spans: Sequence[Span] | None = None,
        people: bool = False,
    ) -> list[SearchHit]:
        """Best hits first.  Text ranks; time range and place filter; without text, the newest matches come first.

        ``kinds`` limits text search to some document kinds (moment, event, super_event, text, transcript).
        ``spans``, where given, are the time range instead: several memory-time spans (``runs.clock_spans``).  With
        ``people``, a text search also finds people (kind ``speaker``, or ``face`` for someone only seen): the one
        who said each sentence found, and anyone whose name is among the words.
        """
        window = _window(start, end, spans)
        store = self.store
        if text.strip():
            hits = store.search_text(text, limit=limit * 5, as_of=as_of, kinds=kinds)
            hits = [h for h in hits if _overlaps(window, h.stamp, h.end_stamp)]
            if place is not None:
                hits = [h for h in hits if self._near(h, place)]
            if people:
                found = self._people_hits(text, hits, *_bounds(window), place, as_of)
                hits = sorted([*found, *hits], key=lambda h: -h.score)  # a person named outranks their badge
            return hits[:limit]
        if place is not None:
            hits = store.search_place(place.x, place.y, place.radius, as_of=as_of, limit=limit * 5)
            return [h for h in hits if _overlaps(window, h.stamp, h.stamp)][:limit]
        events = self._events(window, as_of)
        return [SearchHit("event", e.id, e.start, e.end, 1.0, e.caption, e.start_pose) for e in reversed(events)][
            :limit
        ]

    def _events(self, window: Sequence[Span], as_of: float | None) -> list[Event]:
        """The events overlapping any span of a window, oldest first, each once."""
        found = {e.id: e for lo, hi in window for e in self.store.events(lo, hi, as_of=as_of)}
        return sorted(found.values(), key=lambda e: e.start)

    def _near(self, hit: SearchHit, place: Place) -> bool:
        """Whether a text hit was seen within the place: its moment's pose, or any moment of its event."""
        store = self.store
        if hit.kind == "event":
            moments = store.event_moments(hit.ref)
        elif hit.kind == "moment":
            moment = store.moment(hit.ref, with_payload=False)
            moments = [moment] if moment else []
        else:
            moments = store.moments(hit.stamp - 1.0, hit.end_stamp + 1.0)
        return any(m.pose and math.hypot(m.pose.x - place.x, m.pose.y - place.y) <= place.radius for m in moments)

    def _people_hits(
        self, text: str, hits: list[SearchHit], lo: float, hi: float, place: Place | None, as_of: float | None
    ) -> list[SearchHit]:
        """A hit per person who said a sentence among ``hits`` (scored just below it) or is named in ``text``."""
        said = {h.ref: h.score for h in hits if h.kind == "transcript"}
        words = {w.lower() for w in re.findall(r"[\w'-]+", text)}
        top = max((h.score for h in hits), default=1.0)
        t0 = self.memory_start(as_of)
        found = []
        for person in people_met(self, lo, hi, as_of):
            if place is not None and not any(math.hypot(x - place.x, y - place.y) <= place.radius
                                              for x, y in person.places(limit=1_000)):  # fmt: skip
                continue
            scores = [said[line.id] * 0.99 for line in person.lines if line.id in said]
            if person.name and set(person.name.lower().split()) & words:  # a first name or a surname
                scores.append(top)
            if scores:
                found.append(
                    SearchHit(person.ref.split("/")[0], person.id, person.first, person.last, max(scores), person.row(t0),
                              person.first_pose)
                )  # fmt: skip
        return found

    def people(self, start: float | None = None, end: float | None = None, as_of: float | None = None) -> list[Person]:
        """The people heard or seen in the span as of ``as_of``, the first met first (``memory.people``)."""
        return people_met(self, -math.inf if start is None else start, math.inf if end is None else end, as_of)

    def memory_start(self, as_of: float | None = None) -> float:
        """The stamp memory begins at: t = 0 in the rows about people, as in answers."""
        span = self.store.time_span(as_of)
        return span[0] if span is not None else (as_of or 0.0)  # as the reasoner counts t

    def similar(self, vector: np.ndarray, k: int, as_of: float | None = None) -> list[VectorHit]:
        """The frames that look most like ``vector``, best first: this store's index, then the cold tier for
        frames whose vectors are only there; [] where memory has no visual index."""
        hits: list[VectorHit] = []
        if self.images is not None:
            self.images.sync()  # the ingesting process adds and forgets frames meanwhile
            hits = self.images.search(vector, k, as_of)
        if self.cold is not None:
            hits += self.cold.similar(vector, k, as_of)
        best: dict[int, VectorHit] = {}
        for hit in hits:
            if hit.id not in best or hit.score > best[hit.id].score:
                best[hit.id] = hit
        return sorted(best.values(), key=lambda h: -h.score)[:k]

    def moment_vector(self, moment_id: int) -> np.ndarray | None:
        """A frame's visual vector: here, else in the cold tier (retention evicted it here)."""
        vector = self.store.moment_vector(moment_id)
        if vector is None and self.cold is not None:
            vector = self.cold.moment_vector(moment_id)
        return vector

    def summary(
        self,
        start: float | None = None,
        end: float | None = None,
        as_of: float | None = None,
        spans: Sequence[Span] | None = None,
    ) -> Summary:
        """The events of a time range (or of ``spans``, as in ``search``) and an account of them, then the people
        heard in it, a row each."""
        window = _window(start, end, spans)
        events = self._events(window, as_of)
        people = self.people(*_bounds(window), as_of)
        told = summarise_events(events, self.store.runs()) if events or not people else ""  # not "nothing" over voices
        text = "\n".join(part for part in (told, people_text(people, self.memory_start(as_of))) if part)
        return Summary(text, events, people)

    def in_view(self, as_of: float | None = None) -> list[Moment]:
        """What the robot is looking at now, oldest first: the short-term buffer's frames (whole latest
        events, a uniform sample of a long one) where the buffer reaches ``as_of``; else the frames of the
        last ``RECENT_WINDOW_S`` before it."""
        found = (self.store.moment(i, with_payload=False) for i in self.store.in_view_ids())
        buffered = [m for m in found if m is not None]  # a frame forgotten since is gone
        span = self.store.time_span(as_of)
        if span is None:
            return []
        if buffered and max(m.stamp for m in buffered) == span[1]:
            return sorted(buffered, key=lambda m: m.stamp)
        return self.store.moments(span[1] - RECENT_WINDOW_S, span[1], as_of, limit=10_000)

    def pose_at(self, stamp: float, as_of: float | None = None) -> Pose | None:
        """Where the robot was at ``stamp``: interpolated along the stored path, else the nearest kept frame's
        pose."""
        track = self.store.pose_track(stamp - TRACK_REACH_S, stamp + TRACK_REACH_S, as_of)
        if track:
            i = bisect.bisect_right([t for t, _ in track], stamp)
            before, after = (track[i - 1] if i else None), (track[i] if i < len(track) else None)
            if before and after and before[1].frame_id == after[1].frame_id and after[0] > before[0]:
                return interpolate(before[1], after[1], (stamp - before[0]) / (after[0] - before[0]))
            return min((s for s in (before, after) if s), key=lambda s: abs(s[0] - stamp))[1]
        frames = [
            m for m in self.store.moments(stamp - FRAME_REACH_S, stamp + FRAME_REACH_S, as_of) if m.pose is not None
        ]
        nearest = min(frames, key=lambda m: abs(m.stamp - stamp), default=None)
        return nearest.pose if nearest else None

    def view_end(self, moment: Moment, as_of: float | None = None) -> Moment:
        """The last moment of a moment's view: the last of the moments after it in its event, each sharing a
        scene tag with the one before (the moment itself where none does).  A thing named in one frame's tags
        stayed in view while the view did: the gate keeps few frames of a still scene, and a weak model names a
        thing in only some."""
        if moment.event_id is None:
            return moment
        last: int | None = None
        labels = frozenset(t.label for t in moment.tags)
        for later, stamp, tagged in self.store.event_views(moment.event_id):
            if stamp <= moment.stamp or (as_of is not None and stamp > as_of):
                continue
            if not labels & tagged:
                break
            last, labels = later, tagged
        return (self.store.moment(last, with_payload=False) if last is not None else None) or moment
