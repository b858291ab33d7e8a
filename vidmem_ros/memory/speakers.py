"""Voices: transcribed segments clustered online into speaker identities, kept in the store.

Each segment's speaker vector (a unit vector, ``perception.speaker``) joins the voice whose centroid is nearest
if it is within ``speaker.match_distance`` (cosine distance) and nearer by ``speaker.margin`` than the second
nearest; otherwise it founds a new voice.  A voice whose centroid comes within ``speaker.merge_distance`` of
another's (each with ``merge_min_segments``) is merged into the older: its segments move over and its row
points at the survivor.  Ids are rows of ``speakers``, written in the transcript's own transaction, so they
are stable across restarts.  A voice is named only by evidence: a sentence in which it introduces itself.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from dataclasses import dataclass

import numpy as np

from vidmem_ros.config import SpeakerConfig
from vidmem_ros.errors import InputError
from vidmem_ros.memory.rows import stored_vector, vector_blob
from vidmem_ros.memory.writes import get_meta, set_meta

log = logging.getLogger(__name__)


@dataclass
class Voice:
    id: int
    total: np.ndarray  # sum of its segments' unit vectors
    segments: int
    first: float
    last: float
    name: str = ""

    @property
    def centroid(self) -> np.ndarray:
        return self.total / max(float(np.linalg.norm(self.total)), 1e-12)


@dataclass(frozen=True)
class Assignment:
    speaker_id: int
    distance: float  # to the voice's centroid before it joined (0 for a new voice)
    new: bool
    merged: tuple[int, ...] = ()  # voices found to be this one and merged into it


class VoiceClusters:
    """The voices in memory, cached from the store; every change is written in the caller's transaction."""

    def __init__(self, config: SpeakerConfig) -> None:
        self.config = config
        self._voices: dict[int, Voice] | None = None

    def invalidate(self) -> None:
        """Forget the cache (a rolled-back transaction, a forget): the next call reads the store again."""
        self._voices = None

    def voices(self, db: sqlite3.Connection) -> dict[int, Voice]:
        if self._voices is None:
            self._voices = load_voices(db)
        return self._voices

    def assign(
        self, db: sqlite3.Connection, transcript_id: int, vector: np.ndarray, stamp: float, text: str
    ) -> Assignment:
        """Give transcript ``transcript_id`` its voice; raises InputError for a vector no voice can hold."""
        voices = self.voices(db)
        vector = checked_vector(vector, next((v.total.shape[0] for v in voices.values()), None))
        ranked = sorted((1.0 - float(v.centroid @ vector), v.id) for v in voices.values())
        distance = ranked[0][0] if ranked else np.inf
        runner_up = ranked[1][0] if len(ranked) > 1 else np.inf
        if distance <= self.config.match_distance and runner_up - distance >= self.config.margin:
            voice = voices[ranked[0][1]]
            voice.total = voice.total + vector
            voice.segments += 1
            voice.first, voice.last = min(voice.first, stamp), max(voice.last, stamp)
            new = False
        else:
            voice = self._found(db, vector, stamp)
            distance, new = 0.0, True
        db.execute("INSERT OR REPLACE INTO transcript_voices VALUES (?, ?)", (transcript_id, vector_blob(vector)))
        db.execute("UPDATE transcripts SET speaker_id = ? WHERE id = ?", (voice.id, transcript_id))
        name = introduced_name(text)
        if name and not voice.name:
            voice.name = name
            db.execute("UPDATE speakers SET name = ?, name_ref = ? WHERE id = ?", (name, transcript_id, voice.id))
        _save(db, voice)
        merged = self._merge_into_older(db, voice)
        return Assignment(merged[0] if merged else voice.id, distance, new, tuple(merged[1:]))

    def _found(self, db: sqlite3.Connection, vector: np.ndarray, stamp: float) -> Voice:
        ref = next_speaker_id(db)
        db.execute(
            "INSERT INTO speakers (id, centroid, segments, first_stamp, last_stamp) VALUES (?, ?, 1, ?, ?)",
            (ref, vector_blob(vector), stamp, stamp),
        )
        voice = Voice(ref, vector.astype(np.float32), 1, stamp, stamp)
        self.voices(db)[voice.id] = voice
        return voice

    def _merge_into_older(self, db: sqlite3.Connection, voice: Voice) -> list[int]:
        """Merge ``voice`` with every voice its centroid came close to; [survivor, merged...] or [] if none."""
        voices = self.voices(db)
        gone: list[int] = []
        while True:
            other = self._twin(voice, voices)
            if other is None:
                break
            keep, drop = (voice, other) if voice.id < other.id else (other, voice)
            merge(db, keep, drop)
            del voices[drop.id]
            gone.append(drop.id)
            voice = keep
        return [voice.id, *gone] if gone else []

    def _twin(self, voice: Voice, voices: dict[int, Voice]) -> Voice | None:
        need = self.config.merge_min_segments
        if voice.segments < need:
            return None
        near = [
            (1.0 - float(voice.centroid @ v.centroid), v.id)
            for v in voices.values()
            if v.id != voice.id and v.segments >= need
        ]
        close = min(near, default=None)
        return voices[close[1]] if close is not None and close[0] <= self.config.merge_distance else None


def merge(db: sqlite3.Connection, keep: Voice, drop: Voice) -> None:
    """``drop`` is ``keep``: its segments, times and name (if ``keep`` has none) move to ``keep``."""
    keep.total = keep.total + drop.total
    keep.segments += drop.segments
    keep.first, keep.last = min(keep.first, drop.first), max(keep.last, drop.last)
    if not keep.name and drop.name:
        keep.name = drop.name
        db.execute("UPDATE speakers SET name = ?, name_ref = (SELECT name_ref FROM speakers WHERE id = ?) WHERE id = ?",
                   (drop.name, drop.id, keep.id))  # fmt: skip
    db.execute("UPDATE transcripts SET speaker_id = ? WHERE speaker_id = ?", (keep.id, drop.id))
    db.execute("UPDATE speakers SET merged_into = ? WHERE id = ? OR merged_into = ?", (keep.id, drop.id, drop.id))
    _save(db, keep)
    log.info("voice %d proved to be voice %d: merged (%d segments)", drop.id, keep.id, keep.segments)


def _save(db: sqlite3.Connection, voice: Voice) -> None:
    db.execute(
        "UPDATE speakers SET centroid = ?, segments = ?, first_stamp = ?, last_stamp = ? WHERE id = ?",
        (vector_blob(voice.total), voice.segments, voice.first, voice.last, voice.id),
    )


# The highest speaker id ever removed (meta): ids are never given again, so ``speaker/N`` in an answer already
# given, a log or the fleet never comes to mean someone else after a person was forgotten.
RETIRED_KEY = "speaker_ids_retired"


def next_speaker_id(db: sqlite3.Connection) -> int:
    highest = db.execute("SELECT MAX(id) FROM speakers").fetchone()[0] or 0
    return max(int(highest), int(get_meta(db, RETIRED_KEY) or 0)) + 1


def retire(db: sqlite3.Connection, ids: list[int]) -> None:
    """Remove these voices' rows (and those merged into them) for good; their ids are never given again."""
    for ref in ids:
        gone = db.execute("SELECT MAX(id) FROM speakers WHERE id = ? OR merged_into = ?", (ref, ref)).fetchone()[0]
        set_meta(db, RETIRED_KEY, str(max(int(get_meta(db, RETIRED_KEY) or 0), int(gone or ref))))
        db.execute("DELETE FROM speakers WHERE id = ? OR merged_into = ?", (ref, ref))
        db.execute("UPDATE transcripts SET speaker_id = NULL WHERE speaker_id = ?", (ref,))


def load_voices(db: sqlite3.Connection) -> dict[int, Voice]:
    """The live voices; a row whose centroid cannot be read is left out (and logged), the rest still load."""
    voices: dict[int, Voice] = {}
    rows = db.execute(
        "SELECT id, centroid, segments, first_stamp, last_stamp, name FROM speakers WHERE merged_into IS NULL"
    )
    for ref, blob, segments, first, last, name in rows:
        try:
            total = checked_vector(stored_vector(blob), None, normalise=False)
        except (InputError, TypeError, ValueError) as exc:
            log.warning("voice %s has an unreadable centroid and is left out: %s", ref, exc)
            continue
        voices[int(ref)] = Voice(int(ref), total, int(segments), float(first), float(last), str(name or ""))
    dims = {v.total.shape[0] for v in voices.values()}
    if len(dims) > 1:  # the speaker model changed: only the newest model's voices can be matched
        newest = voices[max(voices)].total.shape[0]
        voices = {k: v for k, v in voices.items() if v.total.shape[0] == newest}
    return voices


def refresh(db: sqlite3.Connection) -> int:
    """After speech was forgotten: each voice rebuilt from the segments it has left, a voice with none removed
    (with its vector and any name it had).  Returns the voices removed."""
    removed = 0
    for (ref,) in db.execute("SELECT id FROM speakers WHERE merged_into IS NULL").fetchall():
        rows = db.execute(
            "SELECT t.start, v.vector FROM transcripts t JOIN transcript_voices v ON v.transcript_id = t.id "
            "WHERE t.speaker_id = ?",
            (ref,),
        ).fetchall()
        vectors = [stored_vector(blob) for _, blob in rows if blob is not None]
        vectors = [v for v in vectors if v.shape == vectors[0].shape and np.isfinite(v).all()] if vectors else []
        if not vectors:
            retire(db, [ref])
            removed += 1
            continue
        stamps = [float(start) for start, _ in rows]
        db.execute(
            "UPDATE speakers SET centroid = ?, segments = ?, first_stamp = ?, last_stamp = ? WHERE id = ?",
            (vector_blob(np.sum(vectors, axis=0)), len(vectors), min(stamps), max(stamps), ref),
        )
    return removed


def checked_vector(vector: np.ndarray, dim: int | None, normalise: bool = True) -> np.ndarray:
    """A finite, non-zero float32 vector of ``dim`` (any, if None), unit length if ``normalise``."""
    vector = np.asarray(vector, dtype=np.float32).ravel()
    if vector.size == 0 or not np.isfinite(vector).all():
        raise InputError("bad_embedding", "the speaker vector is empty or not finite")
    if dim is not None and vector.size != dim:
        raise InputError("bad_embedding", f"a {vector.size}-d speaker vector; the voices in memory are {dim}-d")
    norm = float(np.linalg.norm(vector))
    if norm < 1e-6:
        raise InputError("bad_embedding", "the speaker vector is zero")
    return vector / norm if normalise else vector


# A self-introduction: "I'm Dana", "my name is Dana Reyes", "this is Omar from security", "Dana here".  "This is"
# names a person only where the name ends the clause or a role follows ("this is Building C" is a place).
_NAME = r"(?P<name>[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?)"
_INTRODUCTIONS = (
    re.compile(rf"\b(?:i'm|i am|my name is|my name's|call me)\s+{_NAME}", re.IGNORECASE),
    re.compile(rf"\bthis is\s+{_NAME}(?=\s+(?:from|speaking|here|with|of)\b|\s*[,.!?;]|\s*$)", re.IGNORECASE),
    re.compile(r"^(?:(?:hi|hello|hey)[,!. ]+)?(?P<name>[A-Z][a-z'-]+) here\b", re.IGNORECASE),
)
# Capitalised words that follow "I'm" / "this is" without being names.
_NOT_NAMES = frozenset(
    [
        "a",
        "an",
        "the",
        "not",
        "so",
        "sorry",
        "here",
        "there",
        "just",
        "back",
        "going",
        "glad",
        "happy",
        "afraid",
        "sure",
        "calling",
        "from",
        "with",
        "in",
        "at",
        "on",
        "it",
        "this",
        "that",
        "mr",
        "mrs",
        "ms",
        "dr",
        "okay",
        "ok",
        "fine",
    ]
)


def introduced_name(text: str) -> str:
    """The name a speaker gives themself in ``text``, or "" (a word must be capitalised as written)."""
    for pattern in _INTRODUCTIONS:
        match = pattern.search(text)
        if match is None:
            continue
        words = match.group("name").split()
        words = [w for w in words if w[:1].isupper()]
        while words and words[-1].lower() in _NOT_NAMES:
            words.pop()
        if words and words[0].lower() not in _NOT_NAMES:
            return " ".join(words)
    return ""
