"""Event-graph patches: create / extend / connect, with subset absorption."""

from __future__ import annotations

from pathlib import Path

import pytest

from vidmem_ros.errors import InputError
from vidmem_ros.memory.graph import GraphPatch, apply_patch
from vidmem_ros.memory.records import Edge
from vidmem_ros.memory.store import SqliteStore, edges_of


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
        apply_patch(db, GraphPatch("connect", edge=Edge(1, 2, "before")))
        apply_patch(db, GraphPatch("connect", edge=Edge(2, 3, "before")))
    return store


def test_create_inside_an_event_is_absorbed_by_it(store: SqliteStore) -> None:
    with store.write() as db:
        target = apply_patch(db, GraphPatch("create", start=12.0, end=15.0, caption="picked up the cup"))
    assert target == 2
    assert [e.id for e in store.events()] == [1, 2, 3]


def test_create_spanning_events_absorbs_them_and_keeps_their_outside_links(store: SqliteStore) -> None:
    with store.write() as db:
        target = apply_patch(db, GraphPatch("create", start=10.0, end=29.0, caption="cleaned the kitchen"))
        assert target is not None
        edges = edges_of(db, target)
    events = store.events()
    assert [e.id for e in events] == [1, target]
    assert events[1].caption == "cleaned the kitchen" and events[1].frame_count == 20
    assert [(e.src, e.dst, e.kind) for e in edges] == [(1, target, "before")]


def test_extend_grows_an_event_over_its_neighbour(store: SqliteStore) -> None:
    with store.write() as db:
        assert apply_patch(db, GraphPatch("extend", event_id=2, start=10.0, end=29.0)) == 2
    assert [e.id for e in store.events()] == [1, 2]
    assert store.event(2).end == 29.0  # type: ignore[union-attr]


def test_connect_keeps_one_edge_per_kind_with_the_best_confidence(store: SqliteStore) -> None:
    with store.write() as db:
        apply_patch(db, GraphPatch("connect", edge=Edge(1, 3, "causes", 0.4, "llm", "spill")))
        apply_patch(db, GraphPatch("connect", edge=Edge(1, 3, "causes", 0.9, "llm", "spill, then mop")))
        apply_patch(db, GraphPatch("connect", edge=Edge(1, 3, "causes", 0.2, "llm", "weak")))
        causes = [e for e in edges_of(db, 1) if e.kind == "causes"]
        assert [(e.confidence, e.evidence) for e in causes] == [(0.9, "spill, then mop")]
        apply_patch(db, GraphPatch("connect", edge=Edge(1, 3, "causes"), remove=True))
        assert [e.kind for e in edges_of(db, 1)] == ["before"]


@pytest.mark.parametrize(
    "patch",
    [
        GraphPatch("connect", edge=Edge(1, 2, "likes")),
        GraphPatch("connect", edge=Edge(1, 1, "causes")),
        GraphPatch("connect", edge=Edge(1, 99, "causes")),
        GraphPatch("connect", edge=Edge(1, 2, "causes", 1.5)),
        GraphPatch("connect"),
        GraphPatch("extend", start=0.0, end=1.0),
        GraphPatch("create", start=5.0, end=1.0),
    ],
)
def test_bad_patches_are_refused_and_change_nothing(store: SqliteStore, patch: GraphPatch) -> None:
    with pytest.raises(InputError), store.write() as db:
        apply_patch(db, patch)
    assert [e.id for e in store.events()] == [1, 2, 3]
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM edges").fetchone()[0] == 2
