"""Super events and the root summary above events (MemDreamer's tiers), refreshed incrementally.

A closed event joins the newest super event unless that one is full (count or
span) or the event starts after a long gap; only that super event and the root
are rewritten, so the cost per event is constant however long the robot runs.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence

from vidmem_ros.config import ArchiveConfig, SegmentConfig
from vidmem_ros.memory.records import Event
from vidmem_ros.memory.rows import EVENT_SQL, event_from
from vidmem_ros.memory.runs import Run, describe_span, runs_in
from vidmem_ros.memory.writes import add_document, remove_document

ROOT_KEY = "root"
LABEL_COUNTER = "events_with_label:"


def count_event_labels(db: sqlite3.Connection, labels: list[str], by: int = 1) -> None:
    db.executemany(
        "INSERT INTO counters VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
        [(LABEL_COUNTER + label, by) for label in labels],
    )
    if by < 0:  # a forgotten label leaves no trace, not even a zero count
        db.execute("DELETE FROM counters WHERE name LIKE ? AND value <= 0", (LABEL_COUNTER + "%",))


def attach_to_super_event(db: sqlite3.Connection, event: Event, archive: ArchiveConfig, segment: SegmentConfig) -> int:
    """Put a closed event under a super event (new or current) and refresh that summary and the root; a period
    never spans two runs (see ``runs``)."""
    row = db.execute("SELECT id, start, end, event_count, run_id FROM super_events ORDER BY id DESC LIMIT 1").fetchone()
    run_id = int(db.execute("SELECT run_id FROM events WHERE id = ?", (event.id,)).fetchone()[0])
    joins = (
        row is not None
        and row[4] == run_id
        and row[3] < archive.super_max_events
        and event.end - row[1] <= archive.super_max_s
        and event.start - row[2] <= segment.max_gap_s
    )
    if joins:
        super_id = int(row[0])
        db.execute(
            "UPDATE super_events SET end = MAX(end, ?), event_count = event_count + 1 WHERE id = ?",
            (event.end, super_id),
        )
    else:
        cur = db.execute(
            "INSERT INTO super_events (start, end, event_count, run_id) VALUES (?, ?, 1, ?)",
            (event.start, event.end, run_id),
        )
        super_id = int(cur.lastrowid or 0)
    db.execute("UPDATE events SET super_id = ? WHERE id = ?", (super_id, event.id))
    refresh_super_event(db, super_id)
    refresh_root(db)
    return super_id


def refresh_super_event(db: sqlite3.Connection, super_id: int) -> None:
    rows = db.execute(f"SELECT {EVENT_SQL} FROM events WHERE super_id = ? ORDER BY start", (super_id,)).fetchall()
    if not rows:
        if db.execute("SELECT 1 FROM folded_periods WHERE super_id = ?", (super_id,)).fetchone():
            return  # its events were folded into it (consolidate.py): its summary is what is left of them
        db.execute("DELETE FROM super_events WHERE id = ?", (super_id,))
        remove_document(db, "super_event", super_id)
        return
    events = [event_from(row) for row in rows]
    start, end = events[0].start, max(e.end for e in events)
    summary = summarise_events(events, runs_in(db))
    db.execute(
        "UPDATE super_events SET start = ?, end = ?, event_count = ?, summary = ? WHERE id = ?",
        (start, end, len(events), summary, super_id),
    )
    add_document(db, "super_event", super_id, start, end, summary)


def refresh_root(db: sqlite3.Connection) -> None:
    start, end, events, periods = db.execute(
        "SELECT MIN(start), MAX(end), SUM(event_count), COUNT(*) FROM super_events"
    ).fetchone()
    if not periods:
        db.execute("DELETE FROM summaries WHERE key = ?", (ROOT_KEY,))
        return
    # Per-label event counts are kept as counters, so the root costs the same on day 1 and day 100.
    labels = Counter(
        {
            str(name)[len(LABEL_COUNTER) :]: int(n)
            for name, n in db.execute(
                "SELECT name, value FROM counters WHERE name LIKE ? AND value > 0", (LABEL_COUNTER + "%",)
            )
        }
    )
    text = f"Memory from {describe_span(runs_in(db), start, end)}: {events} events in {periods} periods. " + (
        f"Most often seen: {', '.join(x for x, _ in labels.most_common(10))}." if labels else ""
    )
    db.execute(
        "INSERT INTO summaries VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
        "start = excluded.start, end = excluded.end, text = excluded.text",
        (ROOT_KEY, start, end, text.strip()),
    )


def summarise_events(events: list[Event], runs: Sequence[Run] = ()) -> str:
    """A short account of a stretch of events, from what they recorded; times on the robot's clock (``runs``:
    memory's runs, to read its times back; with several, the run is named)."""
    if not events:
        return "Nothing was recorded in this period."
    labels: Counter[str] = Counter()
    texts: dict[str, None] = {}
    for event in events:
        labels.update(event.labels)
        texts.update(dict.fromkeys(event.texts))
    heard = sum(len(e.transcript) for e in events)
    span = describe_span(runs, events[0].start, max(e.end for e in events))
    return _summary(span, len(events), labels, list(texts), heard)


def summarise_labels(start: float, end: float, count: int, labels: dict[str, int], runs: Sequence[Run] = ()) -> str:
    """A short account of a consolidated period: its span, how many events, and what was seen how often."""
    return _summary(describe_span(runs, start, end), count, Counter(labels), [], 0)


def _summary(span: str, count: int, labels: Counter[str], texts: list[str], heard: int) -> str:
    parts = [f"{span}, {count} event(s)."]
    if labels:
        parts.append("Seen: " + ", ".join(f"{x} ({n})" for x, n in labels.most_common(8)) + ".")
    if texts:
        parts.append("Read: " + ", ".join(f'"{t}"' for t in texts[:5]) + ".")
    if heard:
        parts.append(f"{heard} line(s) of speech heard.")
    return " ".join(parts)
