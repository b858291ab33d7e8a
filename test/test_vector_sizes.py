"""A store holding vectors of two sizes (the image embedder was changed between runs) starts, and image search
goes over the vectors the size of the newest, naming the others in the log."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from vidmem_ros.config import load_config
from vidmem_ros.memory.engine import MemoryEngine, PerceivedFrame
from vidmem_ros.memory.store import SqliteStore

T0 = 1_780_000_000.0


def frame(i: int, vector: np.ndarray) -> PerceivedFrame:
    grey = np.full((32, 32), 40 * (i // 10), np.uint8)
    return PerceivedFrame(T0 + i, "/cam", 64, 48, b"\xff\xd8jpeg", grey, embedding=vector / np.linalg.norm(vector))


def test_a_store_with_vectors_of_two_sizes_starts_and_searches_the_newest(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = load_config(overrides={"store.path": str(tmp_path / "memory.db"), "retention.max_disk_mb": 0})
    rng = np.random.default_rng(0)
    store = SqliteStore(config.store_path())
    first = MemoryEngine(store, config)
    for i in range(10):  # the earlier embedder's 16 values
        first.observe(frame(i, rng.standard_normal(16).astype(np.float32)))
    newer = [rng.standard_normal(32).astype(np.float32) for _ in range(10)]
    first.observe(frame(10, newer[0]))  # the embedder changed while running: the index follows it
    assert first.images.dim == 32 and len(first.images) == 1
    first.finish()
    store.close()

    store = SqliteStore(config.store_path())
    second = MemoryEngine(store, config)
    for i, vector in enumerate(newer[1:], start=11):
        second.observe(frame(i, vector))
    with caplog.at_level(logging.WARNING, logger="vidmem_ros.memory.vector_search"):
        third = MemoryEngine(store, config)  # a start with both sizes in the store
    assert "10 vector(s) are not of the newest vectors' size" in caplog.text
    assert third.images.dim == 32 and len(third.images) == 10
    query = newer[4] / np.linalg.norm(newer[4])
    hits = third.images.search(query.astype(np.float32), 1)
    assert [store.moment(h.id, with_payload=False).stamp for h in hits] == [T0 + 14]  # type: ignore[union-attr]
