"""Retention: age tiers thin and recompress old frames; disk and RAM budgets evict the least valuable first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import cv2
import numpy as np
import pytest

from vidmem_ros.config import RetentionConfig
from vidmem_ros.imaging import jpeg_to_rgb, rgb_to_jpeg
from vidmem_ros.memory.records import Moment
from vidmem_ros.memory.retention import Retention, tier_bytes
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.writes import insert_moment
from vidmem_ros.perception.types import Detection

STEP_S = 5.0
HOURS = 2.0
KEYFRAME_EVERY = 97  # moments; deliberately not a multiple of the tier gaps


def frame(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    base = cv2.resize(rng.integers(0, 255, (12, 16, 3), dtype=np.uint8), (1024, 768), interpolation=cv2.INTER_CUBIC)
    return rgb_to_jpeg(base, 90)


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    store = SqliteStore(tmp_path / "r.db")
    payloads = [frame(i) for i in range(8)]
    with store.write() as db:
        for i in range(int(HOURS * 3600 / STEP_S)):
            m = Moment(
                stamp=i * STEP_S,
                source="/cam",
                width=1024,
                height=768,
                jpeg=payloads[i % 8],
                quality=float(i % 13),
                detections=[Detection("cup", 0.9, (0, 0, 10, 10))],
                embedding=np.full(8, 1 / np.sqrt(8), dtype=np.float32),
            )
            insert_moment(db, m)
            if i % KEYFRAME_EVERY == 0:
                db.execute("UPDATE moments SET keyframe = 1 WHERE id = ?", (m.id,))
    return store


def config(**overrides: float) -> RetentionConfig:
    settings = {"mid_after_s": 600.0, "long_after_s": 3600.0, "max_disk_mb": 0.0, "max_ram_mb": 0.0, **overrides}
    return RetentionConfig(**settings)  # type: ignore[arg-type]


def kept(store: SqliteStore, tier: str) -> list[tuple[float, int, int]]:
    with store.read() as db:
        return db.execute(
            "SELECT m.stamp, m.keyframe, LENGTH(p.jpeg) FROM moments m JOIN payloads p ON p.moment_id = m.id "
            "WHERE m.tier = ? ORDER BY m.stamp",
            (tier,),
        ).fetchall()


def test_tiers_thin_by_age_keep_keyframes_and_recompress(store: SqliteStore) -> None:
    cfg = config()
    now = HOURS * 3600 - STEP_S
    before = store.moment_count()
    report = Retention(store, cfg).run(now)
    assert store.moment_count() == before, "thinning drops payloads, never what a moment recorded"
    assert len(store.sightings(["cup"], None, 0.5)) == before
    for tier, after, gap, side in (
        ("mid", cfg.mid_after_s, cfg.mid_min_gap_s, cfg.mid_max_side),
        ("long", cfg.long_after_s, cfg.long_min_gap_s, cfg.long_max_side),
    ):
        rows = kept(store, tier)
        assert rows and all(now - stamp > after for stamp, _, _ in rows)
        plain = [stamp for stamp, keyframe, _ in rows if not keyframe]
        assert min(np.diff(plain)) >= gap
        with store.read() as db:
            keyframes = db.execute("SELECT COUNT(*) FROM moments WHERE tier = ? AND keyframe = 1", (tier,)).fetchone()[
                0
            ]
        assert keyframes == sum(k for _, k, _ in rows), f"every {tier} keyframe keeps its payload"
        oldest = store.moment(_id_at(store, rows[0][0]))
        assert oldest is not None and oldest.jpeg is not None
        assert max(jpeg_to_rgb(oldest.jpeg).shape[:2]) <= side
    recent = kept(store, "recent")
    assert len(recent) == sum(1 for i in range(before) if now - i * STEP_S <= cfg.mid_after_s)
    assert report.thinned > 0 and report.recompressed > 0
    assert store.counter("retention_thinned") == report.thinned
    tiers = tier_bytes(store)
    assert sum(t["moments"] for t in tiers.values()) == store.moment_count()
    per_payload = {name: t["payload_bytes"] / t["payloads"] for name, t in tiers.items()}
    assert per_payload["long"] < per_payload["mid"] < per_payload["recent"]
    again = Retention(store, cfg).run(now)
    assert not again.changed, "a second pass at the same time has nothing to do"


def test_disk_budget_evicts_ordinary_frames_before_keyframes(store: SqliteStore) -> None:
    used = store.used_bytes()
    budget_mb = used / 2 / 1e6
    report = Retention(store, config(max_disk_mb=budget_mb, mid_after_s=1e9, long_after_s=2e9)).run(HOURS * 3600)
    assert store.used_bytes() <= budget_mb * 1e6
    assert report.evicted_payloads > 0 and store.counter("budget_evicted_payloads") == report.evicted_payloads
    with store.read() as db:
        keyframes_kept = db.execute(
            "SELECT COUNT(*) FROM moments m JOIN payloads p ON p.moment_id = m.id WHERE m.keyframe = 1"
        ).fetchone()[0]
        keyframes = db.execute("SELECT COUNT(*) FROM moments WHERE keyframe = 1").fetchone()[0]
    assert keyframes_kept == keyframes
    assert store.integrity_ok()


def test_disk_budget_takes_only_the_excess_and_waits_for_a_reader_holding_the_wal(store: SqliteStore) -> None:
    assert store.checkpoint()
    budget = store.used_bytes() / 0.95  # just past the high mark
    cfg = config(max_disk_mb=budget / 1e6)
    retention = Retention(store, cfg)
    store.set_meta("touched", "1")  # a commit in the WAL that the reader's snapshot includes
    reader = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM payloads").fetchone()
    assert retention.hold_disk_budget().evicted_payloads == 0, "evicting cannot shrink a WAL a reader holds"
    reader.execute("COMMIT")
    reader.close()
    report = retention.hold_disk_budget()
    low = budget * (cfg.disk_high_mark - cfg.disk_hysteresis)
    assert report.evicted_payloads > 0
    # Freed pages match payload bytes to within a page or so per payload.
    assert abs(store.used_bytes() - low) < 0.01 * budget, "evicted the excess and the hysteresis, no more"
    assert not retention.hold_disk_budget().changed, "below the high mark a check does nothing"


def test_ram_budget_drops_the_least_valuable_vectors(store: SqliteStore) -> None:
    with store.read() as db:
        vectors = db.execute("SELECT COUNT(*) FROM moment_vectors").fetchone()[0]
    per_vector = 8 * 4
    budget = vectors * per_vector / 2
    report = Retention(store, config(max_ram_mb=budget / 1e6)).run(0.0, lambda: vectors * per_vector)
    assert report.evicted_vectors >= vectors / 2
    with store.read() as db:
        left = db.execute("SELECT COUNT(*) FROM moment_vectors").fetchone()[0]
        kept_keyframes = db.execute(
            "SELECT COUNT(*) FROM moment_vectors v JOIN moments m ON m.id = v.moment_id WHERE m.keyframe = 1"
        ).fetchone()[0]
    assert left == vectors - report.evicted_vectors
    assert kept_keyframes == len(range(0, vectors, KEYFRAME_EVERY))


def _id_at(store: SqliteStore, stamp: float) -> int:
    with store.read() as db:
        return int(db.execute("SELECT id FROM moments WHERE stamp = ?", (stamp,)).fetchone()[0])
