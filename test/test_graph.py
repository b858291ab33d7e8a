"""Event-graph edges: one per pair and kind, with the best confidence, and refused when malformed."""

from __future__ import annotations

from pathlib import Path

import pytest

from vidmem_ros.errors import InputError
from vidmem_ros.memory.graph import connect
from vidmem_ros.memory.reads import edges_of
from vidmem_ros.memory.records import Edge
from vidmem_ros.memory.store import SqliteStore


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    """Three closed events 0-10, 10-20, 20-30 s with 'before' links."""
    store = SqliteStore(tmp_path / "g.db")
    with store.write() as db:
        for i in range(3):
            db.execute(
                "INSERT INTO events (id, start, end, status, frame_count) VALUES (?, ?, ?, 'closed', 10)",
                (i + 1, 10.0 * i, 10.0 * i + 9.0),
            )
        connect(db, Edge(1, 2, "before"))
        connect(db, Edge(2, 3, "before"))
    return store


def test_connect_keeps_one_edge_per_kind_with_the_best_confidence(store: SqliteStore) -> None:
    with store.write() as db:
        connect(db, Edge(1, 3, "enables", 0.4, "vlm", "door opened"))
        connect(db, Edge(1, 3, "enables", 0.9, "vlm", "door opened, then walked through"))
        connect(db, Edge(1, 3, "enables", 0.2, "vlm", "weak"))
        enables = [e for e in edges_of(db, 1) if e.kind == "enables"]
        assert [(e.confidence, e.evidence) for e in enables] == [(0.9, "door opened, then walked through")]
        assert sorted(e.kind for e in edges_of(db, 1)) == ["before", "enables"]


@pytest.mark.parametrize(
    "edge",
    [Edge(1, 2, "likes"), Edge(1, 1, "causes"), Edge(1, 2, "causes", 1.5), Edge(1, 2, "causes", -0.1)],
)
def test_bad_edges_are_refused_and_change_nothing(store: SqliteStore, edge: Edge) -> None:
    with pytest.raises(InputError), store.write() as db:
        connect(db, edge)
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM edges").fetchone()[0] == 2
