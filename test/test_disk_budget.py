"""The disk budget is a cap: a bag pushed through the real pipeline never takes the store's files past it, each
eviction takes only the excess (and the hysteresis), and keyframes keep their images while ordinary frames remain."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.ingest.bag import BagIngest
from vidmem_ros.ingest.bag_reader import BagStream
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.store import SqliteStore

CAMERA_HZ = 5.0  # the sample_bag fixture's rate
# Every frame kept, at JPEG quality 100 (about 125 kB each): the short patrol's kept frames come to about 75 MB,
# fifteen times the 5 MB budget and nearly four times the 20 MB one.
EVERY_FRAME_AT_Q100 = {"ingest.sample_fps": CAMERA_HZ, "ingest.jpeg_quality": 100, "audio.enabled": False}


@dataclass
class Run:
    config: VidmemConfig
    store: SqliteStore
    kept: int = 0
    sizes: list[int] = field(default_factory=list)  # bytes of db + WAL + shm, before every statement the writer ran
    keyframes_lost_early: set[int] = field(default_factory=set)  # images evicted while ordinary frames kept theirs

    @property
    def budget(self) -> float:
        return self.config.retention.max_disk_mb * 1e6


def images(store: SqliteStore) -> tuple[set[int], set[int], set[int]]:
    """Ids of keyframes, of keyframes holding an image, and of ordinary moments holding one."""
    with store.read() as db:
        keyframes = {int(r[0]) for r in db.execute("SELECT id FROM moments WHERE keyframe = 1")}
        rows = db.execute("SELECT m.id, m.keyframe FROM moments m JOIN payloads p ON p.moment_id = m.id").fetchall()
    return keyframes, {int(i) for i, k in rows if k}, {int(i) for i, k in rows if not k}


def ingest(tmp_path: Path, bag_path: Path, overrides: dict[str, Any]) -> Run:
    """The bag through the ingest pipeline as the evaluator runs it, watching the store's files all along."""
    path = tmp_path / "memory.db"
    config = load_config(overrides={"store.path": str(path), **EVERY_FRAME_AT_Q100, **overrides})
    store = SqliteStore(path)
    pipeline = IngestPipeline(config, store, None)
    run = Run(config, store)
    # Sized before every statement the writer runs, so the files are seen right after each commit (before the
    # budget's check) as well as after it, the WAL included.
    assert store._writer is not None
    store._writer.set_trace_callback(lambda _: run.sizes.append(store.disk_bytes()))
    bag = BagIngest(config, BagStream(bag_path), pipeline)
    with_images: set[int] = set()
    t = 0.0
    while not bag.exhausted:
        t += 0.5 / CAMERA_HZ  # half the camera's period: at most one frame per step
        bag.advance_to(t)
        keyframes, keyframe_images, ordinary_images = images(store)
        lost = (keyframes & with_images) - keyframe_images  # keyframes whose image went in this step
        if lost and ordinary_images:
            run.keyframes_lost_early |= lost
        with_images = keyframe_images | ordinary_images
    bag.finish()
    store._writer.set_trace_callback(None)
    run.kept = pipeline.stats.snapshot().kept
    return run


@pytest.mark.parametrize("budget_mb", [5.0, 20.0])
def test_store_files_stay_within_the_disk_budget_and_only_the_excess_is_evicted(
    tmp_path: Path, sample_bag: Path, budget_mb: float
) -> None:
    run = ingest(tmp_path, sample_bag, {"retention.max_disk_mb": budget_mb})
    evicted = run.store.counter("budget_evicted_payloads")
    assert evicted > run.kept / 2, "the bag must exceed the budget several times over for this test to mean anything"
    assert max(run.sizes) <= 1.1 * run.budget, f"the store's files reached {max(run.sizes) / 1e6:.2f} MB"
    full = next(i for i, size in enumerate(run.sizes) if size > run.config.retention.disk_high_mark * run.budget)
    floor = min(run.sizes[full:])
    assert floor >= 0.7 * run.budget, f"eviction cut the store to {floor / 1e6:.2f} MB, far more than the excess"
    assert run.store.disk_bytes() >= 0.7 * run.budget
    assert not run.keyframes_lost_early, "keyframe images were evicted while ordinary frames kept theirs"
    assert run.store.integrity_ok()


def test_the_disk_budget_holds_while_tiers_thin_and_recompress(tmp_path: Path, sample_bag: Path) -> None:
    # Tiers every 10 s of the bag: their batches delete and rewrite many payloads, and SQLite writes freed pages
    # to the WAL too, so an unbounded batch or vacuum would take the files past the budget on its own.
    tiers = {"retention.period_s": 10.0, "retention.mid_after_s": 30.0, "retention.mid_min_gap_s": 2.0}
    run = ingest(tmp_path, sample_bag, {"retention.max_disk_mb": 20.0, **tiers})
    assert run.store.counter("retention_thinned") > 0 and run.store.counter("retention_recompressed") > 0
    assert run.store.counter("budget_evicted_payloads") > 0
    assert max(run.sizes) <= 1.1 * run.budget, f"the store's files reached {max(run.sizes) / 1e6:.2f} MB"
    assert not run.keyframes_lost_early
    assert run.store.integrity_ok()
