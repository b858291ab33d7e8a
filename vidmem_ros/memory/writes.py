"""Statements that run inside a caller's transaction (``SqliteStore.write``): records with their searchable
documents, the robot's path, and meta values.  The engine, retention, forget and the hierarchy join one frame's or
one pass's writes into a single commit through these."""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Sequence

from vidmem_ros.memory import schema
from vidmem_ros.memory.records import Moment, Pose, TextLine, Transcript
from vidmem_ros.memory.rows import POSE_SQL, pose_values, vector_blob

IN_VIEW_KEY = "in_view"  # meta: the frames in the ingesting engine's short-term buffer
FRAME_WALL_KEY = "last_frame_wall"  # meta: the wall time (Unix s) at which the newest frame was stored


def insert_moment(db: sqlite3.Connection, moment: Moment, run_id: int = 1) -> int:
    """Write a moment with its payload, vector, detections and texts read; returns its id.  ``moment.stamp`` is
    memory time (see ``runs``)."""
    cur = db.execute(
        "INSERT INTO moments (stamp, source, width, height, sharpness, quality, event_id, tier, "
        f"{POSE_SQL}, run_id) VALUES ({', '.join('?' * 17)})",
        (
            moment.stamp,
            moment.source,
            moment.width,
            moment.height,
            moment.sharpness,
            moment.quality,
            moment.event_id,
            moment.tier,
            *pose_values(moment.pose),
            run_id,
        ),
    )
    moment_id = int(cur.lastrowid or 0)
    if moment.jpeg is not None:
        db.execute("INSERT INTO payloads VALUES (?, ?)", (moment_id, moment.jpeg))
    if moment.embedding is not None:
        db.execute(
            "INSERT INTO moment_vectors VALUES (?, ?, ?)", (moment_id, moment.stamp, vector_blob(moment.embedding))
        )
    db.executemany(
        "INSERT INTO detections (moment_id, stamp, label, score, x0, y0, x1, y1) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(moment_id, moment.stamp, d.label, d.score, *d.box) for d in moment.detections],
    )
    db.executemany(
        "INSERT INTO tags (moment_id, stamp, label, word, score) VALUES (?, ?, ?, ?, ?)",
        [
            (moment_id, moment.stamp, tag.label, word, tag.score)
            for tag in moment.tags
            for word in dict.fromkeys((tag.label.lower(), *(t.lower() for t in tag.terms)))
        ],
    )
    moment.id = moment_id
    insert_texts(db, moment_id, moment.texts, moment.stamp)
    return moment_id


def insert_texts(db: sqlite3.Connection, moment_id: int, lines: Sequence[TextLine], stamp: float | None = None) -> None:
    """Text read in a moment, each line also a searchable document."""
    if stamp is None:
        stamp = float(db.execute("SELECT stamp FROM moments WHERE id = ?", (moment_id,)).fetchone()[0])
    for line in lines:
        cur = db.execute(
            "INSERT INTO texts (moment_id, stamp, text, score, x0, y0, x1, y1) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (moment_id, stamp, line.text, line.score, *line.box),
        )
        add_document(db, "text", int(cur.lastrowid or 0), stamp, stamp, line.text)


def insert_transcript(db: sqlite3.Connection, transcript: Transcript, run_id: int = 1) -> int:
    cur = db.execute(
        "INSERT INTO transcripts (start, end, text, speaker, run_id) VALUES (?, ?, ?, ?, ?)",
        (transcript.start, transcript.end, transcript.text, transcript.speaker, run_id),
    )
    ref = int(cur.lastrowid or 0)
    add_document(db, "transcript", ref, transcript.start, transcript.end, transcript.text)
    return ref


def insert_pose_track(db: sqlite3.Connection, samples: Sequence[tuple[float, Pose]]) -> None:
    """Samples of the robot's path; a sample at a stamp already stored replaces it, one that is not finite is
    left out."""
    rows = [(stamp, *pose_values(pose)) for stamp, pose in samples if math.isfinite(stamp)]
    marks = ", ".join("?" * (1 + len(schema.POSE_COLUMNS)))
    db.executemany(
        f"INSERT OR REPLACE INTO pose_track (stamp, {POSE_SQL}) VALUES ({marks})",
        [row for row in rows if row[1] is not None],
    )


def get_meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))


def write_in_view(db: sqlite3.Connection, moment_ids: Sequence[int]) -> None:
    """Keep the short-term buffer's frames in the store, inside the frame's own transaction, so the query
    process, which does not share the engine's memory, can say what is in view now."""
    set_meta(db, IN_VIEW_KEY, json.dumps([int(i) for i in moment_ids]))
    set_meta(db, FRAME_WALL_KEY, repr(time.time()))  # how long a restarted process was down


# A document's rowid encodes (kind, ref), so it is replaced or removed by rowid:
# FTS5 has no index on its other columns, and a scan per write would grow with memory.
DOCUMENT_KINDS = {"event": 1, "text": 2, "transcript": 3, "super_event": 4}


def document_rowid(kind: str, ref: int) -> int:
    return ref * 8 + DOCUMENT_KINDS[kind]


def add_document(db: sqlite3.Connection, kind: str, ref: int, stamp: float, end_stamp: float, text: str) -> None:
    remove_document(db, kind, ref)
    if text.strip():
        db.execute(
            "INSERT INTO documents (rowid, text, kind, ref, stamp, end_stamp) VALUES (?, ?, ?, ?, ?, ?)",
            (document_rowid(kind, ref), text, kind, ref, stamp, end_stamp),
        )


def remove_document(db: sqlite3.Connection, kind: str, ref: int) -> None:
    db.execute("DELETE FROM documents WHERE rowid = ?", (document_rowid(kind, ref),))
