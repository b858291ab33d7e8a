"""The event graph (HOMER): typed edges between events, updated by create / extend / connect patches.

Segmentation already creates and extends events as frames arrive and links
each to the one before it.  Patches let a captioner or an LLM regroup what it
understands as one activity, or add causal links.  After every patch, subset
absorption folds an event whose span lies inside another's into the larger
one, re-pointing its edges, so the graph never fragments.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from vidmem_ros.errors import InputError
from vidmem_ros.memory import hierarchy
from vidmem_ros.memory.captions import CAUSAL_KINDS
from vidmem_ros.memory.records import Edge
from vidmem_ros.memory.store import json_list, remove_document

TEMPORAL_KINDS = ("before", "overlap", "contains")
EDGE_KINDS = TEMPORAL_KINDS + CAUSAL_KINDS


@dataclass(frozen=True)
class GraphPatch:
    op: Literal["create", "extend", "connect"]
    start: float = 0.0  # create / extend: the span the event covers
    end: float = 0.0
    event_id: int | None = None  # extend: which event
    caption: str = ""
    edge: Edge | None = None  # connect
    remove: bool = False  # connect: drop the edge instead


def connect(db: sqlite3.Connection, edge: Edge) -> None:
    """Add or strengthen a typed edge; the same (src, dst, kind) is kept once with the higher confidence."""
    if edge.kind not in EDGE_KINDS:
        raise InputError("bad_edge", f"edge kind {edge.kind!r} is not one of {', '.join(EDGE_KINDS)}")
    if edge.src == edge.dst:
        raise InputError("bad_edge", f"event {edge.src} cannot be linked to itself")
    if not 0.0 <= edge.confidence <= 1.0:
        raise InputError("bad_edge", f"edge confidence {edge.confidence} is outside [0, 1]")
    db.execute(
        "INSERT INTO edges (src, dst, kind, confidence, origin, evidence) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (src, dst, kind) DO UPDATE SET confidence = MAX(confidence, excluded.confidence), "
        "evidence = CASE WHEN excluded.confidence > confidence THEN excluded.evidence ELSE evidence END",
        (edge.src, edge.dst, edge.kind, edge.confidence, edge.origin, edge.evidence),
    )


def apply_patch(db: sqlite3.Connection, patch: GraphPatch) -> int | None:
    """Apply one patch inside the caller's transaction; returns the event it created or extended."""
    if patch.op == "connect":
        if patch.edge is None:
            raise InputError("bad_patch", "a connect patch needs an edge")
        if patch.remove:
            db.execute(
                "DELETE FROM edges WHERE src = ? AND dst = ? AND kind = ?",
                (patch.edge.src, patch.edge.dst, patch.edge.kind),
            )
        else:
            _require_events(db, (patch.edge.src, patch.edge.dst))
            connect(db, patch.edge)
        return None
    if patch.end < patch.start:
        raise InputError("bad_patch", f"span ends ({patch.end}) before it starts ({patch.start})")
    if patch.op == "create":
        cur = db.execute(
            "INSERT INTO events (start, end, status, reason, caption) VALUES (?, ?, 'closed', 'patch', ?)",
            (patch.start, patch.end, patch.caption),
        )
        target = int(cur.lastrowid or 0)
    else:
        if patch.event_id is None:
            raise InputError("bad_patch", "an extend patch names the event it extends")
        _require_events(db, (patch.event_id,))
        status = db.execute("SELECT status FROM events WHERE id = ?", (patch.event_id,)).fetchone()[0]
        if status != "closed":
            raise InputError("bad_patch", f"event {patch.event_id} is still being recorded; patch it once closed")
        db.execute(
            "UPDATE events SET start = MIN(start, ?), end = MAX(end, ?), "
            "caption = CASE WHEN ? = '' THEN caption ELSE ? END WHERE id = ?",
            (patch.start, patch.end, patch.caption, patch.caption, patch.event_id),
        )
        target = patch.event_id
    return absorb_subsets(db, target)


def absorb_subsets(db: sqlite3.Connection, event_id: int) -> int:
    """Fold events nested in one another into the larger one; returns where ``event_id`` ended up."""
    start, end = db.execute("SELECT start, end FROM events WHERE id = ?", (event_id,)).fetchone()
    container = db.execute(
        "SELECT id FROM events WHERE id != ? AND start <= ? AND end >= ? AND status = 'closed' "
        "ORDER BY end - start DESC LIMIT 1",
        (event_id, start, end),
    ).fetchone()
    if container is not None:
        _merge(db, into=int(container[0]), absorbed=event_id)
        return int(container[0])
    nested = db.execute(
        "SELECT id FROM events WHERE id != ? AND start >= ? AND end <= ? AND status = 'closed'",
        (event_id, start, end),
    ).fetchall()
    for (inner,) in nested:
        _merge(db, into=event_id, absorbed=int(inner))
    return event_id


def _merge(db: sqlite3.Connection, into: int, absorbed: int) -> None:
    """Move everything of ``absorbed`` into ``into``; the caller re-summarises ``into``."""
    labels, super_id = db.execute("SELECT labels, super_id FROM events WHERE id = ?", (absorbed,)).fetchone()
    hierarchy.count_event_labels(db, json_list(labels), by=-1)
    db.execute("UPDATE moments SET event_id = ?, keyframe = 0 WHERE event_id = ?", (into, absorbed))
    db.execute("UPDATE entity_sightings SET event_id = ? WHERE event_id = ?", (into, absorbed))
    db.execute(
        "UPDATE events SET frame_count = frame_count + (SELECT frame_count FROM events WHERE id = ?) WHERE id = ?",
        (absorbed, into),
    )
    # Keep what the absorbed event knew by re-pointing its edges, except those that would become self-loops.
    for column, other in (("src", "dst"), ("dst", "src")):
        db.execute(
            f"UPDATE OR IGNORE edges SET {column} = ? WHERE {column} = ? AND {other} != ?", (into, absorbed, into)
        )
    db.execute("DELETE FROM edges WHERE src = ? OR dst = ?", (absorbed, absorbed))
    remove_document(db, "event", absorbed)
    db.execute("DELETE FROM events WHERE id = ?", (absorbed,))
    if super_id is not None:
        hierarchy.refresh_super_event(db, super_id)


def _require_events(db: sqlite3.Connection, ids: Sequence[int]) -> None:
    for event_id in ids:
        if db.execute("SELECT 1 FROM events WHERE id = ?", (event_id,)).fetchone() is None:
            raise InputError("bad_patch", f"no event {event_id}")
