"""Keyframes are chosen among moments whose image is still kept: an event closed after the disk budget took
the images of its best frames gets keyframes that can still be looked at."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vidmem_ros.config import load_config
from vidmem_ros.memory.engine import MemoryEngine, PerceivedFrame
from vidmem_ros.memory.store import SqliteStore

T0 = 1_780_000_000.0


def test_keyframes_prefer_moments_whose_image_is_kept(tmp_path: Path) -> None:
    config = load_config(overrides={"store.path": str(tmp_path / "memory.db"), "retention.max_disk_mb": 0})
    engine_store = SqliteStore(config.store_path())
    engine = MemoryEngine(engine_store, config)
    grey = np.full((32, 32), 90, np.uint8)
    moments = [
        engine.observe(PerceivedFrame(T0 + i, "/cam", 64, 48, b"\xff\xd8jpeg%d" % i, grey, quality=float(i)))
        for i in range(30)
    ]
    best = {m.id for m in moments if m.stamp - T0 in (9, 19, 29)}  # the best of each third
    with engine_store.write() as db:  # the budget took their images before the event closed
        db.executemany("DELETE FROM payloads WHERE moment_id = ?", [(i,) for i in best])
    event = engine.finish()
    assert event is not None and len(event.keyframe_ids) == 3
    assert not best & set(event.keyframe_ids)
    assert [engine_store.moment(k).stamp - T0 for k in event.keyframe_ids] == [8, 18, 28]  # type: ignore[union-attr]
    assert all(engine_store.moment(k).jpeg for k in event.keyframe_ids)  # type: ignore[union-attr]
