"""The who patrol with faces: the same voices and lines (``who_questions.who_patrol``), while the camera sees the
packaged faces of ``faces.portraits`` (scikit-image's astronaut and enlarged lfw_subset faces) pasted into its
frames, and the who set with its questions about people seen (``who_questions.face_questions``) beside the bag,
for ``vidmem eval BAG BAG.questions.jsonl --set face.backend=dlib``.

Who is seen is the meeting's cast (``meeting.FACE_OF``): Dana, Sam and Lena are in view while they speak, Dana in
every room (one person seen at several places); Omar and Marco are heard with nobody in view; two faces are seen
without speaking, one at the end of the first room, one at the end of the last.  No badge is read: Dana is the
one named (her introduction), Omar and Marco are named but never seen.

The rooms' paths are stretched (``SPREAD``) so two people seen one after the other in a room are farther apart
than the reasoner's "one place" (1.5 m): a question about "the person you saw at (x, y)" names one person.  The lab
pans over a rocket instead of the astronaut photo, whose face would be one nobody put there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_dev.faces import portraits, seen
from vidmem_dev.meeting import FACE_OF, SILENT
from vidmem_dev.sample_bag import Camera, Room, pose_at, questions_path, timeline, write_bag
from vidmem_dev.who_questions import Shown, face_questions, patrol_lines, who_patrol, who_questions, write_questions

SPREAD = 3.0  # the who patrol's room paths, scaled: a person seen is this much farther from the next
SILENT_S = 6.0  # seconds added to a room's end, the silent face in view for all of it but the ends
EDGE_S = 0.5  # a silent face comes into view this long into its seconds, goes this long before their end
TAIL_S = 2.0  # the last room goes on this long after its silent face: questions asked after it are in the bag
SPEAKING_S = 0.2  # a speaker's face is in view this long before their line and after it
SHORT = (2, 10)  # rooms and lines of the short variant: each person speaks twice, once in each room
FACELESS_PHOTOS = {"astronaut": "rocket"}  # a room photo with a face in it, and the one panned over instead


@dataclass(frozen=True)
class InView:
    """A face in view from ``start`` to ``end`` (seconds from the bag's first message)."""

    face: str
    start: float
    end: float


def who_faces_patrol(rooms: int = 4, lines: int | None = None) -> tuple[Room, ...]:
    """The who patrol (its first ``lines`` lines) over its first ``rooms`` rooms (two to four), paths stretched,
    a silent face's seconds at the end of the first room and of the last."""
    if not 2 <= rooms <= 4:
        raise ValueError(f"the who patrol with faces has two to four rooms, not {rooms}")
    scenario = []
    for i, room in enumerate(who_patrol(rooms, lines)):
        added = SILENT_S * (i in (0, rooms - 1)) + TAIL_S * (i == rooms - 1)
        scenario.append(
            replace(
                room,
                photo=FACELESS_PHOTOS.get(room.photo, room.photo),
                seconds=round(room.seconds + added, 1),
                start_xy=(room.start_xy[0] * SPREAD, room.start_xy[1] * SPREAD),
                end_xy=(room.end_xy[0] * SPREAD, room.end_xy[1] * SPREAD),
            )
        )
    return tuple(scenario)


def in_view(scenario: tuple[Room, ...]) -> list[InView]:
    """Who is in view when: each speaker with a face while they speak, the silent faces at the rooms' ends."""
    spans = [
        InView(FACE_OF[line.person], line.start - SPEAKING_S, line.end + SPEAKING_S)
        for line in patrol_lines(scenario)
        if line.person in FACE_OF
    ]
    visits = timeline(scenario)
    for face, talked in zip(SILENT, (visits[0].end - SILENT_S, visits[-1].end - SILENT_S - TAIL_S), strict=True):
        spans.append(InView(face, talked + EDGE_S, talked + SILENT_S - EDGE_S))
    return sorted(spans, key=lambda span: span.start)


class FacesCamera(Camera):
    """The patrol's camera, with the face in view (if any) pasted into each frame as a moving camera sees it."""

    def __init__(self, scenario: tuple[Room, ...], spans: Sequence[InView]) -> None:
        super().__init__(scenario)
        self.spans = list(spans)
        self.photos = portraits()

    def face_at(self, t: float) -> str:
        return next((span.face for span in self.spans if span.start <= t <= span.end), "")

    def frame(self, t: float) -> np.ndarray:
        image = super().frame(t)
        face = self.face_at(t)
        return seen(self.photos[face], image, round(t * 1000)) if face else image


def shown(scenario: tuple[Room, ...], spans: Sequence[InView], camera_hz: float) -> list[Shown]:
    """The bag's frames with a face in them, the face and where: the robot's place midway through the face's
    span (a person is seen at one place per span, a few metres' walk)."""
    visits = timeline(scenario)
    frames = []
    for i in range(int(visits[-1].end * camera_hz) + 1):
        t = i / camera_hz
        span = next((s for s in spans if s.start <= t <= s.end), None)
        if span is None:
            continue
        x, y, _ = pose_at(visits, (span.start + span.end) / 2)
        frames.append(Shown(span.face, (round(x, 1), round(y, 1)), t))
    return frames


def who_faces_questions(scenario: tuple[Room, ...], camera_hz: float) -> list[dict[str, Any]]:
    """The twenty about who said what (fewer over a shorter patrol), then those about people seen."""
    lines = patrol_lines(scenario)
    frames = shown(scenario, in_view(scenario), camera_hz)
    return who_questions(lines) + face_questions(lines, frames, FACE_OF, {})


def write_who_faces_bag(path: str | Path, camera_hz: float = 5.0, short: bool = False) -> Path:
    """The who patrol with faces as a rosbag2 (MCAP) and its questions beside it (``BAG.questions.jsonl``);
    ``short``: its first ten lines over two rooms (``SHORT``, 78 s), for tests."""
    scenario = who_faces_patrol(*SHORT) if short else who_faces_patrol()
    camera = FacesCamera(scenario, in_view(scenario))
    bag = write_bag(path, camera_hz=camera_hz, scenario=scenario, camera=camera)
    write_questions(questions_path(bag), who_faces_questions(scenario, camera_hz))
    return bag
