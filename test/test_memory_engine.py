"""The memory engine on the sample patrol: events, short-term view, archive, hierarchy, entities, search, forget."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from bag_feed import run_bag

from vidmem_dev.sample_bag import START_STAMP, timeline
from vidmem_ros.config import load_config
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.engine import MemoryEngine
from vidmem_ros.memory.forget import forget
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.records import Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.vector_search import VectorSearch
from vidmem_ros.perception.embedding import ColorLayoutEmbedder

ROOMS = timeline()


@pytest.fixture(scope="module")
def patrol(tmp_path_factory: pytest.TempPathFactory, detector, sample_bag: Path) -> Iterator[IngestPipeline]:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("patrol") / "memory.db"
    config = load_config(overrides={"store.path": str(path)})
    pipeline = IngestPipeline(config, SqliteStore(path), detector, ColorLayoutEmbedder())
    run_bag(pipeline, sample_bag)
    yield pipeline
    pipeline.store.close()


def images(pipeline: IngestPipeline) -> MemoryReader:
    """The read side with a visual index of its own, as the query process has."""
    return MemoryReader(pipeline.store, VectorSearch(pipeline.store, "moment_vectors", pipeline.config.index))


def visit_of(name: str, nth: int = 0) -> tuple[float, float]:
    visits = [v for v in ROOMS if v.room.name == name]
    return START_STAMP + visits[nth].start, START_STAMP + visits[nth].end


def test_events_follow_the_rooms(patrol: IngestPipeline) -> None:
    events = patrol.store.events()
    cuts = [e.start - START_STAMP for e in events[1:]]
    truth = [v.start for v in ROOMS[1:]]
    found = [t for t in truth if any(abs(c - t) <= 2.0 for c in cuts)]
    right = [c for c in cuts if any(abs(c - t) <= 2.0 for t in truth)]
    recall, precision = len(found) / len(truth), len(right) / len(cuts)
    print(f"sample patrol boundaries: precision {precision:.2f}, recall {recall:.2f}, {len(events)} events")
    assert recall == 1.0
    assert precision >= 0.8  # the corridor's long pan may split once
    assert events[-1].status == "open" and all(e.status == "closed" for e in events[:-1])


def test_closed_events_carry_caption_change_keyframes_and_pose(patrol: IngestPipeline) -> None:
    start, end = visit_of("living room")
    (living,) = [e for e in patrol.store.events(start, end) if e.start >= start - 2 and e.end <= end + 2]
    assert "cat" in living.labels and "cat" in living.caption
    assert "new: cat" in living.change
    assert 1 <= len(living.keyframe_ids) <= 3
    keyframes = [patrol.store.moment(k) for k in living.keyframe_ids]
    assert all(k is not None and k.jpeg and start - 2 <= k.stamp <= end + 2 for k in keyframes)
    assert living.start_pose is not None and living.end_pose is not None and living.path_m > 0


def test_graph_hierarchy_and_root(patrol: IngestPipeline) -> None:
    store = patrol.store
    closed = [e for e in store.events() if e.status == "closed"]
    with store.read() as db:
        before = db.execute("SELECT src, dst FROM edges WHERE kind = 'before' ORDER BY src").fetchall()
        supers = db.execute("SELECT id, event_count, summary FROM super_events").fetchall()
        root = db.execute("SELECT text FROM summaries WHERE key = 'root'").fetchone()
    assert before == [(a.id, b.id) for a, b in itertools.pairwise(closed)]
    assert sum(s[1] for s in supers) == len(closed)
    assert all(e.super_id is not None for e in closed)
    assert root is not None and "cat" in root[0] and f"{len(closed)} events" in root[0]


def test_entities_unify_revisits_and_separate_different_people(patrol: IngestPipeline) -> None:
    from vidmem_ros.memory.entities import entities

    with patrol.store.read() as db:
        cups = entities(db, "cup")
        people = entities(db, "person")
    first_kitchen, second_kitchen = visit_of("kitchen", 0), visit_of("kitchen", 1)
    (cup,) = [c for c in cups if c.sightings > 5]
    assert cup.first_stamp <= first_kitchen[1] and cup.last_stamp >= second_kitchen[0], "one cup seen on both visits"
    lab, office = visit_of("lab"), visit_of("office")
    in_lab = [p for p in people if lab[0] - 2 <= p.first_stamp <= lab[1] and p.last_stamp <= lab[1] + 2]
    in_office = [p for p in people if office[0] - 2 <= p.first_stamp <= office[1]]
    assert in_lab and in_office, "the astronaut and the photographer are different people"


def test_what_is_in_view_now_is_the_short_term_buffer_read_from_the_store(patrol: IngestPipeline) -> None:
    view = MemoryReader(patrol.store).in_view()
    assert 0 < len(view) <= patrol.config.short_term.capacity
    assert [m.id for m in view] == patrol.store.in_view_ids() == patrol.engine.short_term.items()
    assert view == sorted(view, key=lambda m: m.stamp)
    assert view[-1].stamp == patrol.store.time_span()[1]  # type: ignore[index]
    latest = patrol.store.events()[-1]
    assert view[-1].event_id == latest.id and latest.status == "open"
    # Asked about an earlier moment, the buffer (which holds only the newest frames) does not answer.
    _, end = visit_of("living room")
    earlier = MemoryReader(patrol.store).in_view(as_of=end)
    assert earlier and all(m.stamp <= end for m in earlier) and earlier[-1].stamp >= end - 2


def test_search_by_text_time_place_and_image_respects_as_of(patrol: IngestPipeline, photos) -> None:  # type: ignore[no-untyped-def]
    store = patrol.store
    start, end = visit_of("living room")
    cat = store.search_text("a cat", limit=5)
    assert cat and all(start - 2 <= h.stamp <= end + 2 for h in cat)
    assert store.search_text("cat", as_of=start - 1) == []
    assert [m.stamp for m in store.moments(start, end)] == sorted(m.stamp for m in store.moments(start, end))
    middle = store.moments(start, end)[5]
    assert middle.pose is not None
    near = store.search_place(middle.pose.x, middle.pose.y, 0.5)
    assert near and near[0].ref == middle.id
    assert all(h.stamp <= start for h in store.search_place(middle.pose.x, middle.pose.y, 0.5, as_of=start))
    query = ColorLayoutEmbedder().embed(photos["chelsea"])
    best = images(patrol).similar(query, k=3)
    assert best and all(start - 2 <= h.stamp <= end + 2 for h in best)
    assert all(h.stamp <= start for h in images(patrol).similar(query, k=3, as_of=start))


def test_late_speech_joins_the_event_it_was_heard_in(patrol: IngestPipeline) -> None:
    start, _ = visit_of("garage")
    patrol.engine.add_transcript(Transcript(start + 3, start + 5, "the motorbike needs new brakes"))
    hits = patrol.store.search_text("brakes")
    assert {h.kind for h in hits} >= {"transcript", "event"}
    (event,) = [patrol.store.event(h.ref) for h in hits if h.kind == "event"]
    assert event is not None and "the motorbike needs new brakes" in event.transcript
    assert patrol.store.search_text("brakes", as_of=start + 4) == []


def test_forgetting_a_visit_leaves_nothing_findable(patrol: IngestPipeline, photos) -> None:  # type: ignore[no-untyped-def]
    store, engine = patrol.store, patrol.engine
    start, end = visit_of("living room")
    before = store.moment_count()
    report = forget(engine.archive, start - 1, end + 1)
    assert report.moments and report.events
    assert store.moment_count() == before - len(report.moments)
    assert store.sightings(["cat"], None, 0.0) == []
    assert store.search_text("cat") == []
    assert store.moments(start - 1, end + 1) == []
    query = ColorLayoutEmbedder().embed(photos["chelsea"])
    assert all(not start - 1 <= h.stamp <= end + 1 for h in images(patrol).similar(query, k=10))
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM entities WHERE label = 'cat'").fetchone()[0] == 0
        assert "cat" not in db.execute("SELECT text FROM summaries WHERE key = 'root'").fetchone()[0]
        assert db.execute("SELECT COUNT(*) FROM events WHERE start >= ? AND end <= ?", (start, end)).fetchone()[0] == 0
        dangling = db.execute("SELECT COUNT(*) FROM edges WHERE src NOT IN (SELECT id FROM events)").fetchone()[0]
    assert dangling == 0
    with store.read() as db:
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental: freed pages go back
        assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert report.compacted
    assert store.integrity_ok()
    raw = Path(store.path).read_bytes()
    lingering = [raw[max(0, m.start() - 30) : m.start() + 10] for m in re.finditer(rb"\bcat\b", raw)]
    assert not lingering, f"forgotten words must not linger on disk: {lingering[:3]}"


def test_a_killed_run_leaves_open_events_that_the_next_start_closes(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    from vidmem_ros.ingest.frames import DecodedImage, FrameInput

    path = tmp_path / "m.db"
    config = load_config(overrides={"store.path": str(path)})
    first = IngestPipeline(config, SqliteStore(path), None, ColorLayoutEmbedder())
    for i, name in enumerate(["coffee", "coffee", "chelsea"]):
        first.ingest(FrameInput(100.0 + 10 * i, "/cam", DecodedImage(photos[name])))
    assert first.store.events()[-1].status == "open"
    first.store.close()  # no finish(): as if the process died
    store = SqliteStore(path)
    engine = MemoryEngine(store, config)
    assert engine.recovered_events == 1
    assert all(e.status == "closed" for e in store.events())
    assert store.integrity_ok()


def test_image_search_rejects_a_vector_of_the_wrong_size(patrol: IngestPipeline) -> None:
    with pytest.raises(ValueError, match="values"):
        images(patrol).similar(np.ones(7, dtype=np.float32), k=3)


def test_speech_outlasting_an_event_is_not_visible_before_it_ends(patrol: IngestPipeline) -> None:
    _, end = visit_of("office")
    patrol.engine.add_transcript(Transcript(end - 2, end + 30, "the password is swordfish"))
    assert patrol.store.search_text("swordfish", as_of=end) == []
    assert all(h.end_stamp >= end + 30 for h in patrol.store.search_text("swordfish"))


def test_a_forget_by_another_process_is_followed_by_the_ingesting_engine(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    from vidmem_ros.ingest.frames import DecodedImage, FrameInput
    from vidmem_ros.memory.archive import EventArchive
    from vidmem_ros.memory.captions import ComposedCaptioner
    from vidmem_ros.memory.forget import forget

    path = tmp_path / "m.db"
    config = load_config(overrides={"store.path": str(path)})
    pipeline = IngestPipeline(config, SqliteStore(path), None, ColorLayoutEmbedder())
    for i, name in enumerate(["coffee", "chelsea", "coffee", "chelsea"]):
        assert pipeline.ingest(FrameInput(100.0 + 10 * i, "/cam", DecodedImage(photos[name]))) is not None
    other = SqliteStore(path)  # as the query node's forget service would
    forget(EventArchive(other, config, ComposedCaptioner()), 95.0, 132.0)
    later = pipeline.ingest(FrameInput(138.0, "/cam", DecodedImage(photos["astronaut"])))
    assert later is not None and pipeline.store.moment_count() == 1
    assert pipeline.engine.short_term.items() == pipeline.store.in_view_ids() == [later.id]
    query = ColorLayoutEmbedder().embed(photos["chelsea"])
    assert [h.id for h in pipeline.engine.images.search(query, 5)] == [later.id]
