"""People heard and seen together: the espeak-ng conversation (``voices``) played while the camera sees packaged
faces (``faces``), with the truth of who is whom: the identity bench's link precision and the people tests.

Three speakers have a face, in view while they speak (Dana at two places, the coffee corner and the lobby); two
are heard without being seen (nobody in view); two faces are seen without speaking, one of them in view once while
an unseen person speaks (a single co-occurrence, which must not make them one person).  Sam never gives his
name; a badge below his face reads it (``badge_box``: where the caller stores that reading on his frames, as OCR
would).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_dev.faces import background, portraits, seen
from vidmem_dev.voices import Recording, Turn
from vidmem_dev.who_questions import Said, Shown, face_questions, who_questions
from vidmem_ros.config import VidmemConfig
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.records import Pose, Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.types import FaceEmbedder

FACE_OF = {"dana": "astronaut", "sam": "lfw0", "lena": "lfw1"}  # the others are heard only
SILENT = ("lfw5", "lfw6")  # seen, never heard
BYSTANDER_TURN = ("marco", 1)  # lfw6 is in view during Marco's second turn
BADGE = ("lfw0", "Sam Okafor")
PLACES = {"coffee": (2.0, 1.0), "chelsea": (9.0, 4.0), "brick": (5.0, 8.0), "rocket": (12.0, 1.0)}
PERIOD_S = 0.5


@dataclass(frozen=True)
class Frame:
    stamp: float  # seconds into the recording
    face: str  # the portrait in view, "" for nobody
    place: str
    image: np.ndarray

    @property
    def pose(self) -> Pose:
        return Pose("map", *PLACES[self.place])


@dataclass(frozen=True)
class Meeting:
    recording: Recording
    frames: tuple[Frame, ...]
    seconds: float

    def events(self) -> Iterator[Frame | Turn]:
        """Frames and turns in the order the robot gets them: a turn once its speech has ended."""
        turns = list(self.recording.turns)
        for frame in self.frames:
            while turns and turns[0].end <= frame.stamp:
                yield turns.pop(0)
            yield frame
        yield from turns


def _in_view(recording: Recording) -> list[tuple[float, float, str, str]]:
    """(start, end, face, place) spans: each speaker's face while they speak, the bystander, then the silent."""
    spans = []
    counts: dict[str, int] = {}
    for turn in recording.turns:
        number = counts.get(turn.person, 0)
        counts[turn.person] = number + 1
        face = FACE_OF.get(turn.person, "")
        if (turn.person, number) == BYSTANDER_TURN:
            face = SILENT[1]
        place = "chelsea" if turn.person == "dana" and number % 2 else "coffee"
        spans.append((turn.start - 0.2, turn.end + 0.2, face, place))
    end = recording.seconds
    spans += [(end + 1.0, end + 4.0, SILENT[0], "rocket"), (end + 5.0, end + 8.0, SILENT[1], "brick")]
    return spans


def meeting(recording: Recording) -> Meeting:
    photos = portraits()
    places = {name: background(name) for name in PLACES}
    spans = _in_view(recording)
    total = spans[-1][1] + 1.0
    frames = []
    for k in range(int(total / PERIOD_S)):
        t = k * PERIOD_S
        face, place = next(((f, p) for a, b, f, p in spans if a <= t <= b), ("", "brick"))
        image = seen(photos[face], places[place], k) if face else _nobody(places[place], k)
        frames.append(Frame(t, face, place, image))
    return Meeting(recording, tuple(frames), total)


def _nobody(place: np.ndarray, seed: int) -> np.ndarray:
    """An empty view, a little different each frame as a moving camera's is."""
    rng = np.random.default_rng(seed)
    return np.clip(place * rng.uniform(0.85, 1.15), 0, 255).astype(np.uint8)


def badge_box(face_box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """Where a chest badge sits: below the face, as wide."""
    x0, y0, x1, y1 = face_box
    height = y1 - y0
    return x0, y1 + 0.5 * height, x1, y1 + 0.9 * height


def remember(
    meeting: Meeting, config: VidmemConfig, path: Path, faces: FaceEmbedder, voices: np.ndarray, t0: float
) -> SqliteStore:
    """The meeting into a store through the ingest pipeline (frames, poses) and the engine (each turn with its
    speaker vector ``voices[i]``), the badge's reading stored below Sam's face on each frame he was seen in."""
    store = SqliteStore(path)
    pipeline = IngestPipeline(config, store, None, face_embedder=faces)
    turns = list(meeting.recording.turns)
    for item in meeting.events():
        if isinstance(item, Frame):
            pipeline.add_pose(t0 + item.stamp, item.pose)
            pipeline.ingest(FrameInput(t0 + item.stamp, "camera", DecodedImage(item.image)))
        else:
            vector = voices[turns.index(item)]
            pipeline.engine.add_transcript(Transcript(t0 + item.start, t0 + item.end, item.text, voice=vector))
    pipeline.finish()
    _read_badges(store, meeting, t0)
    return store


def _read_badges(store: SqliteStore, meeting: Meeting, t0: float) -> None:
    shown = {round(f.stamp, 3) for f in meeting.frames if f.face == BADGE[0]}
    with store.write() as db:
        rows = db.execute("SELECT moment_id, stamp, x0, y0, x1, y1 FROM face_sightings").fetchall()
        for moment, stamp, *box in rows:
            if round(stamp - t0, 3) in shown:
                db.execute(
                    "INSERT INTO texts (moment_id, stamp, text, score, x0, y0, x1, y1) VALUES (?, ?, ?, 0.9, ?, ?, ?, ?)",
                    (moment, stamp, BADGE[1], *badge_box(tuple(box))),  # type: ignore[arg-type]
                )


def truth(meeting: Meeting, store: SqliteStore, t0: float) -> tuple[dict[int, str], dict[int, str]]:
    """Each voice's and each face's true person: the one most of its speech or sightings came from."""
    spoken = {(round(t0 + t.start, 3)): t.person for t in meeting.recording.turns}
    shown = {round(t0 + f.stamp, 3): f.face for f in meeting.frames}
    with store.read() as db:
        heard = db.execute("SELECT start, speaker_id FROM transcripts WHERE speaker_id IS NOT NULL").fetchall()
        seen_rows = db.execute("SELECT stamp, face_id FROM face_sightings WHERE face_id IS NOT NULL").fetchall()
    return _majority(spoken, heard), _majority(shown, seen_rows)


def _majority(truth_at: dict[float, str], rows: list[tuple[float, int]]) -> dict[int, str]:
    votes: dict[int, Counter[str]] = {}
    for stamp, ref in rows:
        who = truth_at.get(round(stamp, 3), "")
        votes.setdefault(int(ref), Counter())[who] += 1
    return {ref: count.most_common(1)[0][0] for ref, count in votes.items()}


def link_scores(meeting: Meeting, store: SqliteStore, t0: float) -> dict[str, float | int]:
    """Links found against the truth: precision (right links over links) and recall (over true pairs)."""
    voices, faces = truth(meeting, store, t0)
    found = store.person_links()
    right = sum(1 for v, f, _ in found if FACE_OF.get(voices.get(v, "")) == faces.get(f))
    return {
        "links": len(found),
        "right": right,
        "true_pairs": len(FACE_OF),
        "precision": round(right / len(found), 3) if found else 1.0,
        "recall": round(right / len(FACE_OF), 3),
    }


def meeting_questions(meeting: Meeting) -> list[dict[str, Any]]:
    """The who-question set over the meeting: the twenty about who said what, then those about people seen."""
    lines = [Said(t.person, t.text, t.start, t.end) for t in meeting.recording.turns]
    shown = [Shown(f.face, PLACES[f.place], f.stamp) for f in meeting.frames]
    return who_questions(lines) + face_questions(lines, shown, FACE_OF, {BADGE[0]: BADGE[1]})
