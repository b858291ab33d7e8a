"""Forget: remove everything the memory holds about a time range or about chosen moments and events.

Frames, vectors, detections, texts read, transcripts, documents and graph
references go in one transaction; events that only partly overlap are
re-summarised from what remains; the summaries above are rebuilt; then freed
pages are zeroed and handed back, so nothing forgotten stays findable or on disk.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from vidmem_ros.errors import InputError
from vidmem_ros.memory import graph, hierarchy
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.records import Edge


@dataclass
class ForgetReport:
    moments: list[int] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    transcripts: int = 0


def forget(
    archive: EventArchive,
    start: float | None = None,
    end: float | None = None,
    moment_ids: Sequence[int] = (),
    event_ids: Sequence[int] = (),
) -> ForgetReport:
    if (start is None) != (end is None):
        raise InputError("bad_forget", "a time range needs both a start and an end")
    if start is not None and end is not None and end < start:
        raise InputError("bad_forget", f"the range ends ({end}) before it starts ({start})")
    if start is None and not moment_ids and not event_ids:
        raise InputError("bad_forget", "say what to forget: a time range, moment ids or event ids")
    store = archive.store
    report = ForgetReport()
    with store.write() as db:
        db.execute("PRAGMA secure_delete = ON")  # freed pages are zeroed, not merely unlinked
        moments = set(moment_ids)
        events = set(event_ids)
        if start is not None:
            moments |= _ids(db, "SELECT id FROM moments WHERE stamp BETWEEN ? AND ?", (start, end))
            events |= _ids(db, "SELECT id FROM events WHERE start >= ? AND end <= ?", (start, end))
            report.transcripts = _forget_transcripts(db, start, end)  # type: ignore[arg-type]
        for event_id in events:
            moments |= _ids(db, "SELECT id FROM moments WHERE event_id = ?", (event_id,))
        touched = _ids_in(
            db, "SELECT DISTINCT event_id FROM moments WHERE id IN ({}) AND event_id IS NOT NULL", moments
        )
        _forget_moments(db, moments)
        supers = _ids_in(
            db, "SELECT DISTINCT super_id FROM events WHERE id IN ({}) AND super_id IS NOT NULL", touched | events
        )
        followers = _ids_in(db, _FOLLOWER_SQL, touched | events) - events
        for event_id in sorted(touched | events):
            _forget_or_resummarise(db, archive, event_id)
        for event_id in sorted(followers):  # their "what changed" and "before" links named what is now gone
            _relink(db, archive, event_id)
        for super_id in supers:
            hierarchy.refresh_super_event(db, super_id)
        hierarchy.refresh_root(db)
        db.execute("DELETE FROM entities WHERE id NOT IN (SELECT DISTINCT entity_id FROM entity_sightings)")
        db.execute("INSERT INTO documents (documents) VALUES ('optimize')")  # merge away deleted index entries
        db.execute(
            "INSERT INTO meta VALUES ('forget_generation', '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        report.moments = sorted(moments)
        report.events = sorted(events)
    store.checkpoint()
    return report


def _forget_moments(db: sqlite3.Connection, moments: set[int]) -> None:
    for chunk in _chunks(sorted(moments)):
        marks = ", ".join("?" * len(chunk))
        db.execute(
            f"DELETE FROM documents WHERE kind = 'text' AND ref IN (SELECT id FROM texts WHERE moment_id IN ({marks}))",
            chunk,
        )
        # Cascades remove payloads, vectors, detections, texts read and entity sightings.
        db.execute(f"DELETE FROM moments WHERE id IN ({marks})", chunk)


def _forget_transcripts(db: sqlite3.Connection, start: float, end: float) -> int:
    ids = _ids(db, "SELECT id FROM transcripts WHERE start <= ? AND end >= ?", (end, start))
    for ref in ids:
        db.execute("DELETE FROM documents WHERE kind = 'transcript' AND ref = ?", (ref,))
        db.execute("DELETE FROM transcripts WHERE id = ?", (ref,))
    return len(ids)


def _forget_or_resummarise(db: sqlite3.Connection, archive: EventArchive, event_id: int) -> None:
    row = db.execute("SELECT labels, status FROM events WHERE id = ?", (event_id,)).fetchone()
    if row is None:
        return
    hierarchy.count_event_labels(db, json.loads(row[0]), by=-1)
    left = db.execute("SELECT COUNT(*) FROM moments WHERE event_id = ?", (event_id,)).fetchone()[0]
    if left == 0:
        db.execute("DELETE FROM documents WHERE kind = 'event' AND ref = ?", (event_id,))
        db.execute("DELETE FROM events WHERE id = ?", (event_id,))  # cascades edges and caption vectors
        return
    if row[1] == "closed":
        event, _, _ = archive.summarise(db, event_id)
        hierarchy.count_event_labels(db, event.labels)


# The event that starts right after each of a set of events.
_FOLLOWER_SQL = (
    "SELECT (SELECT n.id FROM events n WHERE n.start > e.start ORDER BY n.start LIMIT 1) "
    "FROM events e WHERE e.id IN ({})"
)


def _relink(db: sqlite3.Connection, archive: EventArchive, event_id: int) -> None:
    row = db.execute("SELECT labels, status FROM events WHERE id = ?", (event_id,)).fetchone()
    if row is None or row[1] != "closed":
        return
    hierarchy.count_event_labels(db, json.loads(row[0]), by=-1)
    event, _, previous = archive.summarise(db, event_id)
    hierarchy.count_event_labels(db, event.labels)
    if previous is not None:
        gap = f"gap {event.start - previous.end:.1f} s"
        graph.connect(db, Edge(previous.id, event_id, "before", 1.0, "auto", gap))


def _ids(db: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> set[int]:
    return {int(r[0]) for r in db.execute(sql, args)}


def _ids_in(db: sqlite3.Connection, sql: str, ids: set[int]) -> set[int]:
    found: set[int] = set()
    for chunk in _chunks(sorted(ids)):
        rows = db.execute(sql.format(", ".join("?" * len(chunk))), chunk)
        found |= {int(r[0]) for r in rows if r[0] is not None}
    return found


def _chunks(ids: list[int], size: int = 500) -> list[list[int]]:
    return [ids[i : i + size] for i in range(0, len(ids), size)]
