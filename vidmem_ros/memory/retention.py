"""Retention: age tiers that thin and recompress old frames, and hard disk and RAM budgets.

Age is measured in sensor time against the newest frame, so a replayed bag
ages like a live robot.  Tiering thins frame payloads (JPEG and vector) to a
minimum spacing and recompresses what stays; a moment's row (when, where, what
was detected or read) and event keyframes are never thinned.  The budgets then
evict the least valuable payloads first: thinned-tier frames before recent
ones, ordinary frames before keyframes, low quality before high.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from vidmem_ros.config import RetentionConfig
from vidmem_ros.errors import InputError
from vidmem_ros.imaging import jpeg_to_rgb
from vidmem_ros.memory.store import SqliteStore

log = logging.getLogger(__name__)

TIERS = ("recent", "mid", "long")
_BATCH = 500
# Batches aged per tier and pass: a backlog (after downtime) is worked off over several
# passes instead of stalling the frame that triggered one.
_MAX_BATCHES_PER_PASS = 4
# Least valuable first: not a keyframe, oldest tier, then lowest quality, then oldest.
_LEAST_VALUABLE = "m.keyframe, CASE m.tier WHEN 'long' THEN 0 WHEN 'mid' THEN 1 ELSE 2 END, m.quality, m.stamp"


@dataclass
class RetentionReport:
    moved: dict[str, int] = field(default_factory=dict)  # moments moved into each tier
    thinned: int = 0  # payloads dropped by tier spacing
    recompressed: int = 0
    evicted_payloads: int = 0  # by the disk budget
    evicted_vectors: int = 0  # by the RAM budget
    removed_ids: list[int] = field(default_factory=list)  # moments whose vectors are gone

    @property
    def changed(self) -> bool:
        return bool(self.moved or self.thinned or self.evicted_payloads or self.evicted_vectors)


class Retention:
    def __init__(self, store: SqliteStore, config: RetentionConfig) -> None:
        self.store = store
        self.config = config

    def run(self, now: float, vector_bytes: Callable[[], int] | None = None) -> RetentionReport:
        """One pass: move aged moments down the tiers, then enforce the disk and RAM budgets."""
        report = RetentionReport()
        cfg = self.config
        for tier, after, gap, side, quality in (
            ("mid", cfg.mid_after_s, cfg.mid_min_gap_s, cfg.mid_max_side, cfg.mid_jpeg_quality),
            ("long", cfg.long_after_s, cfg.long_min_gap_s, cfg.long_max_side, cfg.long_jpeg_quality),
        ):
            self._age(tier, now - after, gap, side, quality, report)
        self._enforce_disk(report)
        if vector_bytes is not None:
            self._enforce_ram(vector_bytes, report)
        if report.changed:
            with self.store.write() as db:
                for name, value in (
                    ("retention_thinned", report.thinned),
                    ("retention_recompressed", report.recompressed),
                    ("budget_evicted_payloads", report.evicted_payloads),
                    ("budget_evicted_vectors", report.evicted_vectors),
                ):
                    if value:
                        db.execute(
                            "INSERT INTO counters VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + ?",
                            (name, value, value),
                        )
        return report

    def _age(self, tier: str, before: float, gap: float, side: int, quality: int, report: RetentionReport) -> None:
        younger = TIERS[: TIERS.index(tier)]
        for _ in range(_MAX_BATCHES_PER_PASS):
            with self.store.write() as db:
                rows = sorted(
                    (
                        row
                        for source in younger  # one indexed range per tier: already aged moments are never scanned
                        for row in db.execute(
                            "SELECT id, stamp, keyframe FROM moments WHERE tier = ? AND stamp < ? ORDER BY stamp LIMIT ?",
                            (source, before, _BATCH),
                        )
                    ),
                    key=lambda r: r[1],
                )[:_BATCH]
                if not rows:
                    return
                last = db.execute(
                    "SELECT MAX(m.stamp) FROM moments m JOIN payloads p ON p.moment_id = m.id "
                    "WHERE m.tier = ? AND m.stamp < ?",
                    (tier, rows[0][1]),
                ).fetchone()[0]
                last_kept = -np.inf if last is None else float(last)
                for moment_id, stamp, keyframe in rows:
                    payload = db.execute("SELECT jpeg FROM payloads WHERE moment_id = ?", (moment_id,)).fetchone()
                    if payload is not None and (keyframe or stamp - last_kept >= gap):
                        db.execute(
                            "UPDATE payloads SET jpeg = ? WHERE moment_id = ?",
                            (recompress(bytes(payload[0]), side, quality), moment_id),
                        )
                        last_kept = stamp
                        report.recompressed += 1
                    elif payload is not None:
                        db.execute("DELETE FROM payloads WHERE moment_id = ?", (moment_id,))
                        db.execute("DELETE FROM moment_vectors WHERE moment_id = ?", (moment_id,))
                        report.removed_ids.append(int(moment_id))
                        report.thinned += 1
                db.executemany("UPDATE moments SET tier = ? WHERE id = ?", [(tier, r[0]) for r in rows])
                report.moved[tier] = report.moved.get(tier, 0) + len(rows)

    def _enforce_disk(self, report: RetentionReport) -> None:
        budget = self.config.max_disk_mb * 1e6
        if budget <= 0:
            return
        while self.store.used_bytes() > budget:
            with self.store.write() as db:
                ids = [
                    int(r[0])
                    for r in db.execute(
                        f"SELECT m.id FROM moments m JOIN payloads p ON p.moment_id = m.id "
                        f"ORDER BY {_LEAST_VALUABLE} LIMIT 200"
                    )
                ]
                if not ids:
                    log.error("memory store is over its disk budget with no frame payload left to evict")
                    return
                marks = ", ".join("?" * len(ids))
                db.execute(f"DELETE FROM payloads WHERE moment_id IN ({marks})", ids)
                db.execute(f"DELETE FROM moment_vectors WHERE moment_id IN ({marks})", ids)
            report.evicted_payloads += len(ids)
            report.removed_ids += ids
            self.store.checkpoint()

    def _enforce_ram(self, vector_bytes: Callable[[], int], report: RetentionReport) -> None:
        budget = self.config.max_ram_mb * 1e6
        if budget <= 0:
            return
        excess = vector_bytes() - budget
        if excess <= 0:
            return
        with self.store.read() as db:
            row = db.execute("SELECT LENGTH(vector) FROM moment_vectors LIMIT 1").fetchone()
        per_vector = max(1, int(row[0]) if row else 1)
        count = int(excess // per_vector) + 1
        with self.store.write() as db:
            ids = [
                int(r[0])
                for r in db.execute(
                    f"SELECT m.id FROM moments m JOIN moment_vectors v ON v.moment_id = m.id "
                    f"ORDER BY {_LEAST_VALUABLE} LIMIT ?",
                    (count,),
                )
            ]
            db.executemany("DELETE FROM moment_vectors WHERE moment_id = ?", [(i,) for i in ids])
        report.evicted_vectors += len(ids)
        report.removed_ids += ids


def recompress(jpeg: bytes, max_side: int, quality: int) -> bytes:
    """Downscale so the longest side is at most ``max_side`` and re-encode; unreadable payloads stay as they are."""
    try:
        rgb = jpeg_to_rgb(jpeg)
    except InputError:
        return jpeg
    scale = max_side / max(rgb.shape[:2])
    if scale < 1.0:
        size = (max(1, round(rgb.shape[1] * scale)), max(1, round(rgb.shape[0] * scale)))
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return encoded.tobytes() if ok and len(encoded) < len(jpeg) else jpeg


def tier_bytes(store: SqliteStore) -> dict[str, dict[str, int]]:
    """Per tier: moments, payloads kept and payload bytes (for stats and benchmarks)."""
    with store.read() as db:
        rows = db.execute(
            "SELECT m.tier, COUNT(m.id), COUNT(p.moment_id), COALESCE(SUM(LENGTH(p.jpeg)), 0) "
            "FROM moments m LEFT JOIN payloads p ON p.moment_id = m.id GROUP BY m.tier"
        ).fetchall()
    return {str(t): {"moments": int(n), "payloads": int(k), "payload_bytes": int(b)} for t, n, k, b in rows}
