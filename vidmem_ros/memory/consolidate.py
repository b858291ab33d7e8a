"""Consolidation: old moments folded into what answers need at their age, so every disk budget is a cap.

Retention first drops frame payloads, then vectors; those alone leave every frame's row, which grows without
end.  Past them, memory is folded the way VAM, MemDreamer and MM-Mem keep a month at a fixed size:

1. *frames into their event* (``fold_frames``): a closed event keeps its keyframes, the moment where each
   label it saw scored best, and every moment that read a text; its other frame rows go, with their
   detections and tags.  What they said is kept per event (``folded_events``): each label with its frame
   count, first and last time and best score.  The pose track in the event's span is thinned to one sample
   per ``POSE_GAP_S``, enough to find stays and places.
2. *events into their period* (``fold_events``): the oldest folded events are removed, their label counts
   and times merged into their super event's (``folded_periods``), whose summary stays; the moments that
   read a text stay (text is small and kept longest), and so does everything heard, and so does the best
   sighting of a label no other moment saw: the last trace of a thing is kept, one moment per label at most.
3. *periods into days* (``merge_periods``): the oldest periods left with no event are merged with their
   neighbours, up to a day each, label counts and times summed and the summary rewritten from them: a sparse
   camera makes a period of nearly every event, and a month of those would not fit a small budget.

Each step goes oldest first, in batches small enough for the WAL bound.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from vidmem_ros.memory.hierarchy import summarise_labels
from vidmem_ros.memory.runs import runs_in
from vidmem_ros.memory.writes import add_document, remove_document

DAY_S = 86400.0  # the longest span periods are merged into
POSE_GAP_S = 5.0  # thinned pose track: a stay (places.min_stay_s, 5 s) still has two samples
# Moment rows deleted per transaction at most (one event's frames are folded together, however many).
MAX_ROWS_PER_BATCH = 400

LabelSummary = dict[str, list[float]]  # label -> [frames, first, last, best score]


@dataclass
class Folded:
    events: list[int]  # the events folded
    rows: int  # moment rows removed
    end: float  # the newest time folded


def unfolded_events(db: sqlite3.Connection, before: float, limit: int, through: int) -> list[tuple[int, int]]:
    """(event id, moment rows) of the oldest closed events ending before ``before`` whose frames are not folded
    yet and whose moments are all at or below id ``through`` (acknowledged by a fleet store), as many as fit one
    batch (one at least)."""
    rows = db.execute(
        "SELECT e.id, (SELECT COUNT(*) FROM moments m WHERE m.event_id = e.id) FROM events e "
        "WHERE e.status = 'closed' AND e.end < ? AND e.id NOT IN (SELECT event_id FROM folded_events) "
        "AND NOT EXISTS (SELECT 1 FROM moments m WHERE m.event_id = e.id AND m.id > ?) "
        "ORDER BY e.start LIMIT ?",
        (before, through, limit),
    ).fetchall()
    chosen: list[tuple[int, int]] = []
    for event_id, count in rows:
        if chosen and sum(n for _, n in chosen) + count > MAX_ROWS_PER_BATCH:
            break
        chosen.append((int(event_id), int(count)))
    return chosen


def fold_frames(db: sqlite3.Connection, event_ids: list[int]) -> Folded:
    folded = Folded([], 0, float("-inf"))
    for event_id in event_ids:
        row = db.execute("SELECT start, end FROM events WHERE id = ?", (event_id,)).fetchone()
        if row is None:
            continue
        labels, best = _label_summary(db, event_id)
        keep = set(best.values()) | _ids(db, "SELECT id FROM moments WHERE event_id = ? AND keyframe = 1", event_id)
        keep |= _ids(
            db,
            "SELECT DISTINCT t.moment_id FROM texts t JOIN moments m ON m.id = t.moment_id WHERE m.event_id = ?",
            event_id,
        )
        frames = _ids(db, "SELECT id FROM moments WHERE event_id = ?", event_id)
        gone = sorted(frames - keep)
        _delete_moments(db, gone)
        _thin_pose_track(db, float(row[0]), float(row[1]))
        db.execute(
            "INSERT OR REPLACE INTO folded_events VALUES (?, ?, ?, ?)",
            (event_id, len(frames), len(frames) - len(gone), json.dumps(labels)),
        )
        folded.events.append(event_id)
        folded.rows += len(gone)
        folded.end = max(folded.end, float(row[1]))
    return folded


def folded_events(db: sqlite3.Connection, limit: int, through: int) -> list[int]:
    """The oldest events whose frames are folded, to fold into their periods: those at or below id ``through``
    (acknowledged by a fleet store)."""
    rows = db.execute(
        "SELECT e.id FROM folded_events f JOIN events e ON e.id = f.event_id WHERE e.super_id IS NOT NULL "
        "AND e.id <= ? ORDER BY e.start LIMIT ?",
        (through, limit),
    )
    return [int(r[0]) for r in rows]


def fold_events(db: sqlite3.Connection, event_ids: list[int]) -> Folded:
    folded = Folded([], 0, float("-inf"))
    for event_id in event_ids:
        row = db.execute(
            "SELECT e.super_id, e.end, f.labels FROM events e JOIN folded_events f ON f.event_id = e.id WHERE e.id = ?",
            (event_id,),
        ).fetchone()
        if row is None:
            continue
        super_id, end, labels = int(row[0]), float(row[1]), read_labels(row[2])
        _merge_into_period(db, super_id, labels)
        read = _ids(
            db,
            "SELECT DISTINCT t.moment_id FROM texts t JOIN moments m ON m.id = t.moment_id WHERE m.event_id = ?",
            event_id,
        )
        keep = read | _last_witnesses(db, event_id)
        gone = sorted(_ids(db, "SELECT id FROM moments WHERE event_id = ?", event_id) - keep)
        _delete_moments(db, gone)
        # The moments kept outlive their event; they no longer belong to one.
        db.execute("UPDATE moments SET event_id = NULL WHERE event_id = ?", (event_id,))
        remove_document(db, "event", event_id)
        db.execute("DELETE FROM events WHERE id = ?", (event_id,))  # cascades edges, caption vector, fold record
        folded.events.append(event_id)
        folded.rows += len(gone)
        folded.end = max(folded.end, end)
    return folded


def merge_periods(db: sqlite3.Connection, limit: int) -> Folded:
    """Merge the oldest periods whose events are all folded away into as few as span a day each, up to
    ``limit`` periods looked at; the first of each run keeps its id and takes the others' counts.  Periods of
    two runs of the clock (``memory.runs``) are never merged: each keeps its run's id."""
    rows = db.execute(
        "SELECT s.id, s.start, s.end, s.event_count, f.labels, s.run_id FROM super_events s "
        "JOIN folded_periods f ON f.super_id = s.id "
        "WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.super_id = s.id) ORDER BY s.start LIMIT ?",
        (limit,),
    ).fetchall()
    folded = Folded([], 0, float("-inf"))
    run: list[tuple[int, float, float, int, LabelSummary]] = []
    run_of_clock = None
    for super_id, start, end, count, labels, clock_run in rows:
        if run and (float(end) - run[0][1] > DAY_S or clock_run != run_of_clock):
            _merge_run(db, run, folded)
            run = []
        run_of_clock = clock_run
        run.append((int(super_id), float(start), float(end), int(count), read_labels(labels)))
    if len(rows) == limit:  # the last run may go on past what was read: it waits for the next call
        run = []
    _merge_run(db, run, folded)
    return folded


def _merge_run(db: sqlite3.Connection, run: list[tuple[int, float, float, int, LabelSummary]], folded: Folded) -> None:
    if len(run) < 2:
        return
    keep = run[0][0]
    start, end = run[0][1], max(r[2] for r in run)
    count = sum(r[3] for r in run)
    labels: LabelSummary = {}
    for *_, summary in run:
        _add_labels(labels, summary)
    for super_id, *_ in run[1:]:
        remove_document(db, "super_event", super_id)
        db.execute("DELETE FROM super_events WHERE id = ?", (super_id,))  # cascades its folded labels
    text = summarise_labels(start, end, count, {k: int(v[0]) for k, v in labels.items()}, runs_in(db))
    db.execute(
        "UPDATE super_events SET start = ?, end = ?, event_count = ?, summary = ? WHERE id = ?",
        (start, end, count, text, keep),
    )
    db.execute(
        "UPDATE folded_periods SET events = (SELECT event_count FROM super_events WHERE id = ?), labels = ? "
        "WHERE super_id = ?",
        (keep, json.dumps(labels), keep),
    )
    add_document(db, "super_event", keep, start, end, text)
    folded.events += [r[0] for r in run[1:]]
    folded.end = max(folded.end, end)


def period_labels(db: sqlite3.Connection, super_id: int) -> LabelSummary:
    row = db.execute("SELECT labels FROM folded_periods WHERE super_id = ?", (super_id,)).fetchone()
    return read_labels(row[0]) if row is not None else {}


def _label_summary(db: sqlite3.Connection, event_id: int) -> tuple[LabelSummary, dict[str, int]]:
    """Per label of the event's detections: [frames, first, last, best score], and the moment of the best."""
    labels: LabelSummary = {}
    best: dict[str, int] = {}
    rows = db.execute(
        "SELECT d.label, COUNT(DISTINCT d.moment_id), MIN(d.stamp), MAX(d.stamp), MAX(d.score) FROM detections d "
        "JOIN moments m ON m.id = d.moment_id WHERE m.event_id = ? GROUP BY d.label",
        (event_id,),
    )
    for label, frames, first, last, score in rows.fetchall():
        labels[str(label)] = [int(frames), float(first), float(last), float(score)]
        top = db.execute(
            "SELECT d.moment_id FROM detections d JOIN moments m ON m.id = d.moment_id "
            "WHERE m.event_id = ? AND d.label = ? ORDER BY d.score DESC, d.stamp LIMIT 1",
            (event_id, label),
        ).fetchone()
        best[str(label)] = int(top[0])
    return labels, best


def _last_witnesses(db: sqlite3.Connection, event_id: int) -> set[int]:
    """For each label no moment outside the event saw, the event's best sighting of it: the last trace of a
    thing seen is never folded away (at most one moment per label of the vocabulary)."""
    kept = set()
    for (label,) in db.execute(
        "SELECT DISTINCT d.label FROM detections d JOIN moments m ON m.id = d.moment_id WHERE m.event_id = ?",
        (event_id,),
    ).fetchall():
        elsewhere = db.execute(
            "SELECT 1 FROM detections d JOIN moments m ON m.id = d.moment_id "
            "WHERE d.label = ? AND m.event_id IS NOT ? LIMIT 1",
            (label, event_id),
        ).fetchone()
        if elsewhere is None:
            top = db.execute(
                "SELECT d.moment_id FROM detections d JOIN moments m ON m.id = d.moment_id "
                "WHERE m.event_id = ? AND d.label = ? ORDER BY d.score DESC, d.stamp LIMIT 1",
                (event_id, label),
            ).fetchone()
            kept.add(int(top[0]))
    return kept


def _merge_into_period(db: sqlite3.Connection, super_id: int, labels: LabelSummary) -> None:
    merged = period_labels(db, super_id)
    _add_labels(merged, labels)
    db.execute(
        "INSERT INTO folded_periods VALUES (?, 1, ?) ON CONFLICT (super_id) DO UPDATE SET "
        "events = events + 1, labels = excluded.labels",
        (super_id, json.dumps(merged)),
    )


def _add_labels(into: LabelSummary, labels: LabelSummary) -> None:
    """Sum frame counts, widen first and last times, keep the best score."""
    for label, (frames, first, last, score) in labels.items():
        if label in into:
            old = into[label]
            into[label] = [old[0] + frames, min(old[1], first), max(old[2], last), max(old[3], score)]
        else:
            into[label] = [frames, first, last, score]


def read_labels(text: object) -> LabelSummary:
    """A stored label summary; an unreadable one reads as empty."""
    try:
        value = json.loads(str(text))
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(k): [float(x) for x in v] for k, v in value.items() if isinstance(v, list) and len(v) == 4}


def _delete_moments(db: sqlite3.Connection, ids: list[int]) -> None:
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        # Cascades remove payloads, vectors, detections, tags, texts read and entity sightings.
        db.execute(f"DELETE FROM moments WHERE id IN ({', '.join('?' * len(chunk))})", chunk)


def _thin_pose_track(db: sqlite3.Connection, start: float, end: float) -> None:
    stamps = [float(r[0]) for r in db.execute("SELECT stamp FROM pose_track WHERE stamp BETWEEN ? AND ?", (start, end))]
    last = float("-inf")
    drop = []
    for stamp in sorted(stamps):
        if stamp - last >= POSE_GAP_S:
            last = stamp
        else:
            drop.append((stamp,))
    db.executemany("DELETE FROM pose_track WHERE stamp = ?", drop)


def _ids(db: sqlite3.Connection, sql: str, *args: object) -> set[int]:
    return {int(r[0]) for r in db.execute(sql, args)}
