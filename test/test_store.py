import sqlite3
from pathlib import Path

import pytest

from vidmem_ros.errors import StoreError
from vidmem_ros.memory.records import Moment, Pose
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.types import Detection, Tag


def moment(stamp: float, *labels: tuple[str, float], pose: Pose | None = None) -> Moment:
    dets = [Detection(label, score, (0.0, 0.0, 10.0, 10.0)) for label, score in labels]
    return Moment(stamp=stamp, source="/cam", width=64, height=48, jpeg=b"\xff\xd8jpeg", detections=dets, pose=pose)


def test_sightings_respect_label_score_and_as_of(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    store.add_moment(moment(10.0, ("cup", 0.9), ("person", 0.4)))
    store.add_moment(moment(20.0, ("cup", 0.3)))
    store.add_moment(moment(30.0, ("cup", 0.8), pose=Pose("map", 1.0, 2.0)))
    assert [s.stamp for s in store.sightings(["cup"], None, 0.5)] == [10.0, 30.0]
    assert [s.stamp for s in store.sightings(["cup"], 25.0, 0.5)] == [10.0]
    assert store.sightings(["person"], None, 0.5) == []
    assert store.sightings(["cup"], None, 0.5)[-1].pose == Pose("map", 1.0, 2.0)
    assert store.time_span(15.0) == (10.0, 10.0)
    assert store.moment_count() == 3


def test_scene_tags_are_read_by_class_without_reading_every_frame(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    beagle = Tag("beagle", 0.6, ("dog", "animal"))
    hound = Tag("Dog", 0.05, ("animal",))  # a class whose own word is another class's broader word, too weak
    kettle = Tag("teakettle", 0.3, ("kettle", "pot"))
    for stamp, tags in [(10.0, [beagle, kettle]), (20.0, [beagle, hound]), (30.0, [kettle]), (40.0, [beagle])]:
        store.add_moment(
            Moment(
                stamp=stamp, source="/cam", width=8, height=8, tags=list(tags), pose=Pose("map", stamp, 0.0), jpeg=None
            )
        )
    assert store.tag_classes(0.0, 100.0, None, 0.1) == {"beagle": ("dog", "animal"), "teakettle": ("kettle", "pot")}
    assert list(store.tag_classes(0.0, 100.0, None, 0.0)) == ["beagle", "teakettle", "Dog"]
    assert list(store.tag_classes(0.0, 100.0, 25.0, 0.1)) == ["beagle", "teakettle"]
    frames = store.tag_frames(["beagle", "Dog"], 0.0, 100.0, None, 0.0)
    # One row per frame and class, read through the class's own word: the beagle's "dog" row is not the Dog class.
    assert [(f.stamp, f.label) for f in frames] == [(10.0, "beagle"), (20.0, "beagle"), (20.0, "Dog"), (40.0, "beagle")]
    assert frames[-1].pose == Pose("map", 40.0, 0.0)
    assert [f.stamp for f in store.tag_frames(["beagle"], 15.0, 100.0, 30.0, 0.1)] == [20.0]
    assert store.tag_counts(0.0, 100.0) == [("beagle", 3), ("teakettle", 2), ("Dog", 1)]
    assert store.tag_counts(25.0, 100.0, 35.0) == [("teakettle", 1)]
    untagged = store.moments(0.0, 100.0, with_tags=False)
    assert [m.tags for m in untagged] == [[], [], [], []]
    assert [len(m.tags) for m in store.moments(0.0, 100.0)] == [2, 2, 1, 1]


def test_memory_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SqliteStore(path)
    mid = store.add_moment(moment(5.0, ("cat", 0.95), pose=Pose("odom", 3.0, 4.0, 0.0, 0.0, 0.0, 0.6, 0.8)))
    store.bump_counter("rejected_queries")
    store.close()
    again = SqliteStore(path)
    restored = again.moment(mid)
    assert restored is not None
    assert restored.detections[0].label == "cat"
    assert restored.pose == Pose("odom", 3.0, 4.0, 0.0, 0.0, 0.0, 0.6, 0.8)
    assert again.counter("rejected_queries") == 1
    assert again.integrity_ok()


def test_a_reader_in_another_connection_sees_each_commit(tmp_path: Path) -> None:
    writer = SqliteStore(tmp_path / "m.db")
    reader = SqliteStore(tmp_path / "m.db", readonly=True)
    assert reader.moment_count() == 0
    writer.add_moment(moment(1.0, ("dog", 0.7)))
    assert reader.moment_count() == 1
    with pytest.raises(StoreError, match="read-only"):
        reader.add_moment(moment(2.0))


def test_a_reader_of_a_missing_store_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        SqliteStore(tmp_path / "none.db", readonly=True)


def test_a_file_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError):
        SqliteStore(junk)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match=r"not a vidmem memory store|schema version"):
        SqliteStore(other, readonly=True)


def test_reads_of_a_time_window_are_served_by_an_index(tmp_path: Path) -> None:
    # A month of memory holds millions of rows: a question about one visit must not read them all.
    store = SqliteStore(tmp_path / "m.db")
    for stamp in (10.0, 20.0, 30.0):
        store.add_moment(
            Moment(stamp=stamp, source="/cam", width=8, height=8, tags=[Tag("beagle", 0.6, ("dog",))], jpeg=None)
        )
    statements: list[str] = []
    with store.read() as db:
        db.set_trace_callback(statements.append)
    store.tag_counts(15.0, 25.0)
    store.tag_classes(15.0, 25.0, None, 0.1)
    store.moments(15.0, 25.0, with_tags=False)
    store.transcripts(15.0, 25.0)
    store.texts_read(15.0, 25.0)
    store.pose_track(15.0, 25.0)
    with store.read() as db:
        db.set_trace_callback(None)
        # The traced statements carry their values inline; SQLite writes an unbounded one as Inf.
        plans = {
            sql: [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {sql.replace('Inf', '9e999')}")]
            for sql in statements
        }
    scans = {
        sql: steps
        for sql, steps in plans.items()
        if any(step.startswith("SCAN") and "sqlite_master" not in step for step in steps)
    }
    assert len(plans) >= 6
    assert scans == {}
