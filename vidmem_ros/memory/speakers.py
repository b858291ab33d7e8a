"""Voices: transcribed segments clustered online into speaker identities, kept in the store.

Each segment's speaker vector (a unit vector, ``perception.speaker``) is clustered by ``memory.identities`` with
the ``speaker`` settings (cosine distance): it joins the nearest voice or founds one, and two voices that prove to
be one are merged into the older.  Ids are rows of ``speakers``, written in the transcript's own transaction, so
they are stable across restarts.  A voice is named only by evidence: a sentence in which it introduces itself.
"""

from __future__ import annotations

import re
import sqlite3

import numpy as np

from vidmem_ros.config import SpeakerConfig
from vidmem_ros.memory import identities
from vidmem_ros.memory.identities import Assignment, Clusters, Identity, Kind
from vidmem_ros.memory.rows import vector_blob

VOICES = Kind(
    noun="speaker",
    table="speakers",
    members="transcripts",
    column="speaker_id",
    vectors_sql="SELECT t.start, v.vector FROM transcripts t JOIN transcript_voices v ON v.transcript_id = t.id "
    "WHERE t.speaker_id = ?",
    retired_key="speaker_ids_retired",
)
Voice = Identity


class VoiceClusters(Clusters):
    """The voices in memory; every change is written in the caller's transaction."""

    def __init__(self, config: SpeakerConfig) -> None:
        super().__init__(VOICES, config)

    def voices(self, db: sqlite3.Connection) -> dict[int, Voice]:
        return self.identities(db)

    def assign(
        self, db: sqlite3.Connection, transcript_id: int, vector: np.ndarray, stamp: float, text: str
    ) -> Assignment:
        """Give transcript ``transcript_id`` its voice; raises InputError for a vector no voice can hold."""
        voice, vector, distance, new = self.place(db, vector, stamp)
        db.execute("INSERT OR REPLACE INTO transcript_voices VALUES (?, ?)", (transcript_id, vector_blob(vector)))
        db.execute("UPDATE transcripts SET speaker_id = ? WHERE id = ?", (voice.id, transcript_id))
        name = introduced_name(text)
        if name and not voice.name:
            voice.name = name
            db.execute("UPDATE speakers SET name = ?, name_ref = ? WHERE id = ?", (name, transcript_id, voice.id))
        merged = self.settle(db, voice)
        return Assignment(merged[0] if merged else voice.id, distance, new, tuple(merged[1:]))


def retire(db: sqlite3.Connection, ids: list[int]) -> None:
    """Remove these voices' rows (and those merged into them) for good; their ids are never given again."""
    identities.retire(db, VOICES, ids)


def load_voices(db: sqlite3.Connection) -> dict[int, Voice]:
    """The live voices; a row whose centroid cannot be read is left out (and logged), the rest still load."""
    return identities.load(db, VOICES)


def refresh(db: sqlite3.Connection) -> int:
    """After speech was forgotten: each voice rebuilt from the segments it has left, a voice with none removed."""
    return identities.refresh(db, VOICES)


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
