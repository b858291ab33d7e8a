"""People met: the voices (``speakers``) and faces (``faces``) memory told apart, one person where a voice and a
face are linked (``links``), as the services, the report and the agent's tools show them.

A person is a linked voice and face, a lone voice or a lone face: the transcripts that carry its speaker id and
the sightings that carry its face id, as of a moment.  A name comes only from evidence: a self-introduction among
the voice's own sentences, else a name read on a badge or plate just below the face on its own frame (a line the
name test takes for a person's name).  Without one a person is "the person I first saw (or heard) at t (x, y)";
a lone voice stays "the speaker I first heard at t (x, y)".  Places are where the robot was when it heard or saw
them, each spot once (to a metre).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from vidmem_ros.memory.records import FaceSighting, Pose, TextRead, Transcript
from vidmem_ros.memory.speakers import introduced_name
from vidmem_ros.memory.view import MemoryView

NameTest = Callable[[str], bool]


class MemoryReader(Protocol):
    """What people are read from: memory, and where the robot was at a moment (``reader.MemoryReader``)."""

    @property
    def store(self) -> MemoryView: ...

    def pose_at(self, stamp: float, as_of: float | None = None) -> Pose | None: ...


PLACES_SHOWN = 5
SAID_SHOWN = 3


@dataclass(frozen=True)
class Person:
    speaker_id: int | None  # ``speaker/N``; None for someone only seen
    lines: tuple[Transcript, ...] = ()  # oldest first
    name: str = ""
    named_by: Transcript | None = None
    poses: tuple[Pose | None, ...] = ()  # where the robot was as each line began
    face_id: int | None = None  # ``face/N``; None for someone only heard
    seen: tuple[FaceSighting, ...] = ()  # oldest first
    link: float = 0.0  # the confidence that voice and face are one person (``links``); 0 without a link
    badge: TextRead | None = None  # the line read below the face that named them

    @property
    def id(self) -> int:
        """The speaker id of someone heard, else the face id."""
        return self.speaker_id if self.speaker_id is not None else self.face_id or 0

    @property
    def ref(self) -> str:
        return f"speaker/{self.speaker_id}" if self.speaker_id is not None else f"face/{self.face_id}"

    @property
    def refs(self) -> list[str]:
        return [r for r in (self._voice_ref, self._face_ref) if r]

    @property
    def _voice_ref(self) -> str:
        return f"speaker/{self.speaker_id}" if self.speaker_id is not None else ""

    @property
    def _face_ref(self) -> str:
        return f"face/{self.face_id}" if self.face_id is not None else ""

    @property
    def first(self) -> float:
        return min([*(line.start for line in self.lines[:1]), *(s.stamp for s in self.seen[:1])])

    @property
    def last(self) -> float:
        return max([*(line.end for line in self.lines[-1:]), *(s.stamp for s in self.seen[-1:])])

    @property
    def first_seen(self) -> bool:
        """Whether the robot saw this person before (or without) hearing them."""
        return bool(self.seen) and (not self.lines or self.seen[0].stamp <= self.lines[0].start)

    @property
    def first_pose(self) -> Pose | None:
        if self.first_seen:
            return self.seen[0].pose
        return self.poses[0] if self.poses else None

    def places(self, limit: int = PLACES_SHOWN) -> list[tuple[float, float]]:
        """Where the robot was when it heard or saw this person, each spot once (to a metre), the first first."""
        heard = [(line.start, pose) for line, pose in zip(self.lines, self.poses, strict=True)]
        timed = sorted([*heard, *((s.stamp, s.pose) for s in self.seen)], key=lambda item: item[0])
        spots: dict[tuple[int, int], tuple[float, float]] = {}
        for _, pose in timed:
            if pose is not None:
                spots.setdefault((round(pose.x), round(pose.y)), (round(pose.x, 1), round(pose.y, 1)))
        return list(spots.values())[:limit]

    def seen_places(self, limit: int = PLACES_SHOWN) -> list[tuple[float, float]]:
        """Where the robot was when it saw this person, each spot once (to a metre)."""
        return Person(None, seen=self.seen).places(limit)

    def label(self, t0: float) -> str:
        """The name heard or read, else "the person I first saw at t=… s (x, y)" (or heard; a lone voice is "the
        speaker I first heard …")."""
        if self.name:
            return self.name
        pose = self.first_pose
        where = f" at ({pose.x:.1f}, {pose.y:.1f})" if pose is not None else ""
        if self.first_seen:
            return f"the person I first saw at t={self.first - t0:.0f} s{where}"
        who = "person" if self.face_id is not None else "speaker"
        return f"the {who} I first heard at t={self.first - t0:.0f} s{where}"

    def row(self, t0: float, said: int = SAID_SHOWN) -> str:
        """One line about the person: who, when heard and seen (t from ``t0``), places, what they said."""
        places = ", ".join(f"({x:.1f}, {y:.1f})" for x, y in self.places())
        linked = f", linked {self.link:.2f}" if self.speaker_id is not None and self.face_id is not None else ""
        parts = [f"{self.label(t0)} ({' + '.join(self.refs)}{linked})"]
        if self.lines:
            times = "once" if len(self.lines) == 1 else f"{len(self.lines)} times"
            parts.append(f"heard {times}, first at t={self.lines[0].start - t0:.1f} s, "
                         f"last at t={self.lines[-1].end - t0:.1f} s")  # fmt: skip
        if self.seen:
            frames = "1 frame" if len(self.seen) == 1 else f"{len(self.seen)} frames"
            parts.append(f"seen in {frames}, first at t={self.seen[0].stamp - t0:.1f} s, "
                         f"last at t={self.seen[-1].stamp - t0:.1f} s")  # fmt: skip
        text = parts[0] + ": " + "; ".join(parts[1:]) + (f"; at {places}" if places else "")
        if self.badge is not None and not self.named_by:
            text += f'; named by the badge "{self.badge.text}"'
        if self.lines:
            quoted = "; ".join(f'"{line.text}"' for line in self.lines[:said])
            more = f" and {len(self.lines) - said} more" if len(self.lines) > said else ""
            text += f"; said {quoted}{more}"
        return text


# A person's name as a badge or door plate writes it, without a dictionary: a title and a capitalised word
# ("Dr Ines Daliwal"), or two or three capitalised words alone on the line ("Dana Reyes").
_TITLED = re.compile(r"^(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.? [A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?$")
_TWO_CAPITALISED = re.compile(r"^[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2}$")


def plain_name(text: str) -> bool:
    """The name test without a dictionary (the agent's tools use the dictionary's, ``grounding.holds_value``)."""
    line = text.strip()
    return bool(_TITLED.match(line) or _TWO_CAPITALISED.match(line))


def people_met(
    reader: MemoryReader,
    start: float = -math.inf,
    end: float = math.inf,
    as_of: float | None = None,
    is_name: NameTest = plain_name,
) -> list[Person]:
    """Everyone heard or seen between ``start`` and ``end`` as of ``as_of``, the first met first (only what they
    said and where they were seen in that window); a linked voice and face are one person."""
    heard = _by_voice(reader.store.transcripts(start, end, as_of))
    seen = _by_face(reader.store.face_sightings(start, end, as_of))
    found = []
    for voice, face, confidence in reader.store.person_links(as_of):
        if voice in heard or face in seen:
            found.append(_person(reader, voice, heard.pop(voice, []), face, seen.pop(face, []), confidence,
                                 as_of, is_name))  # fmt: skip
    found += [_person(reader, voice, lines, None, [], 0.0, as_of, is_name) for voice, lines in heard.items()]
    found += [_person(reader, None, [], face, sights, 0.0, as_of, is_name) for face, sights in seen.items()]
    return sorted(found, key=lambda p: p.first)


def people_heard(
    reader: MemoryReader, start: float = -math.inf, end: float = math.inf, as_of: float | None = None
) -> list[Person]:
    """Those of ``people_met`` heard in the window."""
    return [p for p in people_met(reader, start, end, as_of) if p.lines]


def person_called(
    reader: MemoryReader, ref: str, as_of: float | None = None, is_name: NameTest = plain_name
) -> Person | None:
    """The person ``speaker/N`` or ``face/N`` names, with all they said and everywhere they were seen as of
    ``as_of`` (a window would cut the first sentence, and with it the name and the first time), or None if they
    were neither heard nor seen."""
    kind, _, number = ref.partition("/")
    if kind not in ("speaker", "face") or not number.isdigit():
        return None
    voice = int(number) if kind == "speaker" else None
    face = int(number) if kind == "face" else None
    confidence = 0.0
    for v, f, c in reader.store.person_links(as_of):
        if v == voice or f == face:
            voice, face, confidence = v, f, c
    lines = _by_voice(reader.store.transcripts(-math.inf, math.inf, as_of)).get(voice, []) if voice is not None else []
    sights = _by_face(reader.store.face_sightings(-math.inf, math.inf, as_of)).get(face, []) if face is not None else []
    if not lines and not sights:
        return None
    return _person(reader, voice if lines or kind == "speaker" else None, lines, face if sights else None, sights,
                   confidence if lines and sights else 0.0, as_of, is_name)  # fmt: skip


def person_heard(reader: MemoryReader, speaker_id: int, as_of: float | None = None) -> Person | None:
    """The voice ``speaker_id`` (with its linked face) as of ``as_of``, or None if it was not heard."""
    found = person_called(reader, f"speaker/{speaker_id}", as_of)
    return found if found is not None and found.lines else None


def _by_voice(lines: list[Transcript]) -> dict[int | None, list[Transcript]]:
    found: dict[int | None, list[Transcript]] = {}
    for line in lines:
        if line.speaker_id is not None:
            found.setdefault(line.speaker_id, []).append(line)
    return found


def _by_face(sightings: list[FaceSighting]) -> dict[int | None, list[FaceSighting]]:
    found: dict[int | None, list[FaceSighting]] = {}
    for sighting in sightings:
        found.setdefault(sighting.face_id, []).append(sighting)
    return found


def _person(
    reader: MemoryReader,
    voice: int | None,
    lines: list[Transcript],
    face: int | None,
    seen: list[FaceSighting],
    link: float,
    as_of: float | None,
    is_name: NameTest,
) -> Person:
    named_by = next((line for line in lines if introduced_name(line.text)), None)
    name = introduced_name(named_by.text) if named_by is not None else ""
    badge = _badge(reader, seen, is_name) if seen else None
    poses = tuple(reader.pose_at(line.start, as_of) for line in lines)
    return Person(voice, tuple(lines), name or (badge.text.strip() if badge else ""), named_by, poses, face,
                  tuple(seen), link, badge)  # fmt: skip


def _badge(reader: MemoryReader, seen: list[FaceSighting], is_name: NameTest) -> TextRead | None:
    """The name read most often just below the face, on its own frames (the first such reading of it)."""
    readings = [text for _, text in reader.store.texts_below_faces([s.id for s in seen]) if is_name(text.text)]
    if not readings:
        return None
    most, _ = Counter(text.text.strip() for text in readings).most_common(1)[0]
    return next(text for text in readings if text.text.strip() == most)


def people_text(people: list[Person], t0: float) -> str:
    """The people part of a summary: how many, then a row each."""
    if not people:
        return ""
    noun = "person" if len(people) == 1 else "people"
    if not any(p.seen for p in people):
        lead = f"People heard: {len(people)} different {noun}."
    else:
        heard = sum(1 for p in people if p.lines)
        seen = sum(1 for p in people if p.seen)
        both = sum(1 for p in people if p.lines and p.seen)
        lead = f"People met: {len(people)} different {noun} ({heard} heard, {seen} seen, {both} both heard and seen)."
    return "\n".join([lead, *(f"- {p.row(t0)}" for p in people)])
