"""Faults around the store: a killed process, a locked, corrupt, full or old store, and concurrent readers."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.errors import StoreError
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.health import ERROR, assess
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.engine import MemoryEngine
from vidmem_ros.memory.records import Moment
from vidmem_ros.memory.schema import SCHEMA_VERSION
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.embedding import ColorLayoutEmbedder

CHILD = textwrap.dedent(
    """
    import sys
    import numpy as np
    import skimage.data
    from vidmem_ros.config import load_config
    from vidmem_ros.ingest.frames import DecodedImage, FrameInput
    from vidmem_ros.ingest.worker import IngestPipeline
    from vidmem_ros.memory.store import SqliteStore
    from vidmem_ros.perception.embedding import ColorLayoutEmbedder

    path = sys.argv[1]
    photos = [skimage.data.coffee(), skimage.data.chelsea(), skimage.data.astronaut(), skimage.data.rocket()]
    pipeline = IngestPipeline(load_config(overrides={"store.path": path}), SqliteStore(path), None, ColorLayoutEmbedder())
    for i in range(100000):
        rgb = np.roll(photos[(i // 12) % 4], 7 * i, axis=1)
        moment = pipeline.ingest(FrameInput(1000.0 + i, "/cam", DecodedImage(rgb)))
        if moment is not None:
            print(moment.id, flush=True)
    """
)


def test_kill_9_loses_nothing_committed_and_the_store_reopens_and_continues(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "m.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    committed = [int(child.stdout.readline()) for _ in range(40)]  # events of 12 s close along the way
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    store = SqliteStore(path)
    assert store.integrity_ok()
    assert all(store.moment(i) is not None for i in committed)
    assert store.moment_count() >= len(committed)
    config = load_config(overrides={"store.path": str(path)})
    pipeline = IngestPipeline(config, store, None, ColorLayoutEmbedder())
    assert pipeline.engine.recovered_events == 1
    assert [e.status for e in store.events()].count("open") == 0
    span = store.time_span()
    assert span is not None
    resumed = pipeline.ingest(FrameInput(span[1] + 5.0, "/cam", DecodedImage(photos["astronaut"])))
    assert resumed is not None and store.moment(resumed.id) is not None  # type: ignore[arg-type]
    pipeline.finish()
    assert store.integrity_ok()


def test_a_locked_store_drops_the_frame_with_a_reason_and_recovers(config: VidmemConfig, photos) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path(), timeout_s=0.2)
    pipeline = IngestPipeline(config, store, None, ColorLayoutEmbedder())
    assert pipeline.ingest(FrameInput(1.0, "/cam", DecodedImage(photos["coffee"]))) is not None
    other = sqlite3.connect(config.store_path(), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    assert pipeline.ingest(FrameInput(10.0, "/cam", DecodedImage(photos["chelsea"]))) is None
    assert pipeline.stats.snapshot().dropped["store_error"] == 1
    other.execute("ROLLBACK")
    later = pipeline.ingest(FrameInput(19.0, "/cam", DecodedImage(photos["astronaut"])))
    assert later is not None
    assert store.moment_count() == 2 and store.integrity_ok()
    first, second = store.events()
    assert first.frame_count == 1 and second.id == later.event_id, "the lost boundary is not silently merged"


def test_a_full_disk_loses_only_the_frame_that_did_not_fit(config: VidmemConfig, photos) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None, ColorLayoutEmbedder())
    assert pipeline.ingest(FrameInput(1.0, "/cam", DecodedImage(photos["coffee"]))) is not None
    with store.write() as db:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 2}")  # the file system has room for two more pages
    assert pipeline.ingest(FrameInput(10.0, "/cam", DecodedImage(photos["chelsea"]))) is None
    assert pipeline.stats.snapshot().dropped["store_error"] == 1
    assert store.moment_count() == 1 and store.integrity_ok()
    with pytest.raises(StoreError, match="disk is full"):
        store.add_moment(Moment(30.0, "/cam", 8, 8, b"x" * 50_000))


def test_a_full_disk_is_named_once_not_once_a_frame(config: VidmemConfig, photos, caplog) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None, ColorLayoutEmbedder())
    assert pipeline.ingest(FrameInput(1.0, "/cam", DecodedImage(photos["coffee"]))) is not None
    before = pipeline.stats.snapshot()
    with store.write() as db:
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")  # no room left
    names = ("chelsea", "astronaut", "brick", "stereo_motorcycle")
    with caplog.at_level(logging.WARNING):
        for i in range(12):
            pipeline.ingest(FrameInput(10.0 + 10 * i, "/cam", DecodedImage(photos[names[i % 4]])))
        pipeline.finish()
    now = pipeline.stats.snapshot()
    assert now.dropped["store_error"] == 12 and pipeline.last_store_error == "the disk is full"
    refusals = [r for r in caplog.records if "could not store frame" in r.getMessage()]
    assert len(refusals) == 1 and refusals[0].levelname == "ERROR" and "disk is full" in refusals[0].getMessage()
    health = assess(before, now, used_bytes=10, max_disk_bytes=0, store_problem=pipeline.last_store_error)
    assert health.level == ERROR and health.message.endswith(
        "could not be written to the memory store: the disk is full"
    )
    assert not [r for r in caplog.records if "could not close the last event" in r.getMessage()]
    closed = store.event_count("open") == 0
    assert closed or any("stays open: the disk is full" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("content", [b"this is not a database" * 400, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_corrupt_store_file_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "m.db"
    path.write_bytes(content)
    with pytest.raises(StoreError, match=str(path)):
        SqliteStore(path)
    assert path.read_bytes() == content, "a file we cannot read is left as it was"


def test_a_version_1_store_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE moments (id INTEGER PRIMARY KEY, stamp REAL NOT NULL, source TEXT NOT NULL,
            width INTEGER NOT NULL, height INTEGER NOT NULL, sharpness REAL NOT NULL, jpeg BLOB,
            pose_frame TEXT, px REAL, py REAL, pz REAL, qx REAL, qy REAL, qz REAL, qw REAL);
        CREATE TABLE detections (id INTEGER PRIMARY KEY, moment_id INTEGER NOT NULL, stamp REAL NOT NULL,
            label TEXT NOT NULL, score REAL NOT NULL, x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL,
            y1 REAL NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '1');
        INSERT INTO moments (stamp, source, width, height, sharpness, jpeg) VALUES (5.0, '/cam', 4, 4, 30.0, x'ffd8');
        INSERT INTO detections (moment_id, stamp, label, score, x0, y0, x1, y1) VALUES (1, 5.0, 'cat', 0.9, 0, 0, 1, 1);
        """
    )
    db.close()
    store = SqliteStore(path)
    old = store.moment(1)
    assert old is not None and old.jpeg == b"\xff\xd8" and old.detections[0].label == "cat"
    assert store.get_meta("schema_version") == str(SCHEMA_VERSION)
    MemoryEngine(store, load_config(overrides={"store.path": str(path)}))  # and the engine starts on it


def test_readers_see_only_committed_data_and_never_block_the_writer(config: VidmemConfig) -> None:
    writer = SqliteStore(config.store_path())
    writer.add_moment(Moment(1.0, "/cam", 8, 8, b"a"))
    reader = sqlite3.connect(f"file:{config.store_path()}?mode=ro", uri=True, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT COUNT(*) FROM moments").fetchone()[0] == 1  # a long query holds a snapshot
    with writer.write() as db:
        db.execute("INSERT INTO moments (stamp, source, width, height, sharpness) VALUES (2.0, '/cam', 8, 8, 0)")
        assert reader.execute("SELECT COUNT(*) FROM moments").fetchone()[0] == 1, "nothing uncommitted is seen"
    writer.add_moment(Moment(3.0, "/cam", 8, 8, b"c"))  # the open read does not block the writer
    assert reader.execute("SELECT COUNT(*) FROM moments").fetchone()[0] == 1
    reader.execute("COMMIT")
    assert reader.execute("SELECT COUNT(*) FROM moments").fetchone()[0] == 3
