"""One person across modalities: a voice and a face linked where the voice was heard, repeatedly, while that face
was the one in view.

A transcript whose span (and ``SLACK_S`` either side, the camera's frames are sparser than speech) holds frames
with exactly one face, the same face every time, is a co-occurrence of its voice and that face; a frame with two
faces, or a face forgotten, makes it no evidence at all.  A pair's confidence is its co-occurrences over the
occurrences of the busier of the two (the voice heard while some sole face was in view, or the face in view alone
while some voice spoke), so a face that was in view while several people spoke, or a voice heard in front of
several faces, links to neither.  Pairs need ``MIN_TOGETHER`` co-occurrences and ``MIN_CONFIDENCE``; each voice
and face links at most once, the most confident pair first.

Links are recomputed from the store (``relink``) whenever the evidence changes: a voice given to speech, an event
closed (its frames' faces), a forget; they are rows of ``person_links`` so a reader needs no recomputation.  A
question asked as of a moment before the latest evidence gets the links of the evidence up to that moment
(``links_as_of``): what was heard and seen later must not make two of its people one.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from dataclasses import dataclass

SLACK_S = 0.5
MIN_TOGETHER = 2
MIN_CONFIDENCE = 0.5


@dataclass(frozen=True)
class Link:
    speaker_id: int
    face_id: int
    together: int  # transcripts heard while that face alone was in view
    confidence: float


def co_occurrences(db: sqlite3.Connection, as_of: float | None = None) -> list[tuple[int, int]]:
    """(voice, face) for each transcript with a voice heard while one face, and only it, was in view; with
    ``as_of``, only speech over and frames seen by then."""
    until = math.inf if as_of is None else as_of
    rows = db.execute(
        "SELECT t.id, t.speaker_id, f.moment_id, f.face_id FROM transcripts t JOIN face_sightings f "
        "ON f.stamp BETWEEN t.start - ? AND t.end + ? WHERE t.speaker_id IS NOT NULL AND t.end <= ? AND f.stamp <= ? "
        "ORDER BY t.id",
        (SLACK_S, SLACK_S, until, until),
    ).fetchall()
    seen: dict[int, tuple[int, Counter[int], set[int | None]]] = {}
    for ref, voice, moment, face in rows:
        _, per_frame, faces = seen.setdefault(ref, (int(voice), Counter(), set()))
        per_frame[moment] += 1
        faces.add(face)
    return [
        (voice, next(iter(faces)))  # type: ignore[misc]
        for voice, per_frame, faces in seen.values()
        if len(faces) == 1 and None not in faces and max(per_frame.values()) == 1
    ]


def links(pairs: list[tuple[int, int]]) -> list[Link]:
    """The links the co-occurrences support, the most confident first."""
    together = Counter(pairs)
    heard = Counter(voice for voice, _ in pairs)
    seen = Counter(face for _, face in pairs)
    ranked = sorted(
        ((n / max(heard[v], seen[f]), n, v, f) for (v, f), n in together.items() if n >= MIN_TOGETHER),
        reverse=True,
    )
    chosen: list[Link] = []
    for confidence, n, voice, face in ranked:
        taken = any(link.speaker_id == voice or link.face_id == face for link in chosen)
        if confidence >= MIN_CONFIDENCE and not taken:
            chosen.append(Link(voice, face, n, round(confidence, 3)))
    return chosen


def relink(db: sqlite3.Connection) -> list[Link]:
    """Recompute every link from what the store holds now, in the caller's transaction."""
    found = links(co_occurrences(db))
    db.execute("DELETE FROM person_links")
    db.executemany(
        "INSERT INTO person_links (speaker_id, face_id, together, confidence) VALUES (?, ?, ?, ?)",
        [(k.speaker_id, k.face_id, k.together, k.confidence) for k in found],
    )
    return found


def load_links(db: sqlite3.Connection) -> list[Link]:
    rows = db.execute("SELECT speaker_id, face_id, together, confidence FROM person_links ORDER BY speaker_id")
    return [Link(int(v), int(f), int(n), float(c)) for v, f, n, c in rows]


def links_as_of(db: sqlite3.Connection, as_of: float | None = None) -> list[Link]:
    """The links as of ``as_of``: the stored ones where no evidence is later, else those of the evidence by then."""
    if as_of is None or as_of >= latest_evidence(db):
        return load_links(db)
    return links(co_occurrences(db, as_of))


def latest_evidence(db: sqlite3.Connection) -> float:
    """When the last speech with a voice ended or the last face was seen; -inf in a store with neither."""
    row = db.execute(
        "SELECT MAX(x) FROM (SELECT MAX(end) AS x FROM transcripts WHERE speaker_id IS NOT NULL "
        "UNION ALL SELECT MAX(stamp) FROM face_sightings)"
    ).fetchone()
    return -math.inf if row is None or row[0] is None else float(row[0])
