"""People heard: the voices memory told apart (``speakers``), as the services, the report and the agent's tools
show them.

A person here is a voice: the transcripts that carry its speaker id, as of a moment.  A name comes only from what
was heard (a self-introduction among the voice's own sentences); without one a person is "the speaker I first
heard at t (x, y)".  Places are where the robot was when it heard them, each spot once (to a metre).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from vidmem_ros.memory.records import Pose, Transcript
from vidmem_ros.memory.speakers import introduced_name
from vidmem_ros.memory.view import MemoryView


class MemoryReader(Protocol):
    """What people are read from: memory, and where the robot was at a moment (``reader.MemoryReader``)."""

    @property
    def store(self) -> MemoryView: ...

    def pose_at(self, stamp: float, as_of: float | None = None) -> Pose | None: ...


PLACES_SHOWN = 5
SAID_SHOWN = 3


@dataclass(frozen=True)
class Person:
    id: int  # the speaker id: ``speaker/N``
    lines: tuple[Transcript, ...]  # oldest first
    name: str
    named_by: Transcript | None
    poses: tuple[Pose | None, ...]  # where the robot was as each line began

    @property
    def first(self) -> float:
        return self.lines[0].start

    @property
    def last(self) -> float:
        return self.lines[-1].end

    @property
    def first_pose(self) -> Pose | None:
        return self.poses[0] if self.poses else None

    @property
    def ref(self) -> str:
        return f"speaker/{self.id}"

    def places(self, limit: int = PLACES_SHOWN) -> list[tuple[float, float]]:
        """Where the robot was when it heard this person, each spot once (to a metre), the first first."""
        spots: dict[tuple[int, int], tuple[float, float]] = {}
        for pose in self.poses:
            if pose is not None:
                spots.setdefault((round(pose.x), round(pose.y)), (round(pose.x, 1), round(pose.y, 1)))
        return list(spots.values())[:limit]

    def label(self, t0: float) -> str:
        """The name heard, else "the speaker I first heard at t=… s (x, y)"."""
        if self.name:
            return self.name
        where = f" at ({self.first_pose.x:.1f}, {self.first_pose.y:.1f})" if self.first_pose is not None else ""
        return f"the speaker I first heard at t={self.first - t0:.0f} s{where}"

    def row(self, t0: float, said: int = SAID_SHOWN) -> str:
        """One line about the person: who, first and last time (t from ``t0``), places, what they said."""
        places = ", ".join(f"({x:.1f}, {y:.1f})" for x, y in self.places())
        quoted = "; ".join(f'"{line.text}"' for line in self.lines[:said])
        more = f" and {len(self.lines) - said} more" if len(self.lines) > said else ""
        times = "once" if len(self.lines) == 1 else f"{len(self.lines)} times"
        return (
            f"{self.label(t0)} ({self.ref}): heard {times}, first at t={self.first - t0:.1f} s, "
            f"last at t={self.last - t0:.1f} s" + (f", at {places}" if places else "") + f"; said {quoted}{more}"
        )


def people_heard(
    reader: MemoryReader, start: float = -math.inf, end: float = math.inf, as_of: float | None = None
) -> list[Person]:
    """Every voice heard between ``start`` and ``end`` as of ``as_of``, the first heard first (only what they said
    in that window)."""
    by_voice: dict[int, list[Transcript]] = {}
    for line in reader.store.transcripts(start, end, as_of):
        if line.speaker_id is not None:
            by_voice.setdefault(line.speaker_id, []).append(line)
    return sorted((_person(reader, ref, lines, as_of) for ref, lines in by_voice.items()), key=lambda p: p.first)


def person_heard(reader: MemoryReader, speaker_id: int, as_of: float | None = None) -> Person | None:
    """The voice ``speaker_id`` with all it said as of ``as_of`` (a window would cut its first sentence and with
    it the name and the first time), or None if it was not heard."""
    lines = [t for t in reader.store.transcripts(-math.inf, math.inf, as_of) if t.speaker_id == speaker_id]
    return _person(reader, speaker_id, lines, as_of) if lines else None


def _person(reader: MemoryReader, ref: int, lines: list[Transcript], as_of: float | None) -> Person:
    named_by = next((line for line in lines if introduced_name(line.text)), None)
    name = introduced_name(named_by.text) if named_by is not None else ""
    poses = tuple(reader.pose_at(line.start, as_of) for line in lines)
    return Person(ref, tuple(lines), name, named_by, poses)


def people_text(people: list[Person], t0: float) -> str:
    """The people part of a summary: how many, then a row each."""
    if not people:
        return ""
    lead = f"People heard: {len(people)} different {'person' if len(people) == 1 else 'people'}."
    return "\n".join([lead, *(f"- {p.row(t0)}" for p in people)])
