"""The event graph (HOMER): typed edges between events.

Segmentation creates and extends events as frames arrive, and the archive links
each closed event to the one before it ("before") and adds the causal links a
captioner reports (causes, enables, requires, prevents).
"""

from __future__ import annotations

import sqlite3

from vidmem_ros.errors import InputError
from vidmem_ros.memory.captions import CAUSAL_KINDS
from vidmem_ros.memory.records import Edge

TEMPORAL_KINDS = ("before", "overlap", "contains")
EDGE_KINDS = TEMPORAL_KINDS + CAUSAL_KINDS


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
