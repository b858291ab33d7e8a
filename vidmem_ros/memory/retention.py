"""Retention: age tiers that thin and recompress old frames, consolidation, and hard disk and RAM budgets.

Age is measured in sensor time against the newest frame, so a replayed bag
ages like a live robot.  Tiering thins frame payloads (JPEG and vector) to a
minimum spacing and recompresses what stays; a moment's row (when, where, what
was detected or read) and event keyframes are not thinned.  Past the tiers
(``fold_after_s``), events' frame rows are folded into their summaries
(``consolidate``).  The disk budget is a cap; it forgets in this order, each
step only once the one before has nothing left, and each only as much as
covers the excess:

1. frame payloads, least valuable first: thinned-tier frames before recent
   ones, ordinary frames before the open event's (its keyframes are not chosen
   yet) and those before keyframes, low quality before high;
2. frame vectors, in the same order;
3. frame rows of the oldest closed events, folded into their event summaries;
4. the oldest folded events, folded into their super events;
5. the oldest periods left with no event, merged into periods of up to a day.

Text read and speech heard are small and outlive all five.  The budget counts
the database with its WAL and is checked after every kept frame; the WAL is
bounded to a small share of it.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from vidmem_ros.clock import utc_clock
from vidmem_ros.config import RetentionConfig
from vidmem_ros.errors import InputError
from vidmem_ros.imaging import jpeg_to_rgb
from vidmem_ros.memory import consolidate
from vidmem_ros.memory.store import SqliteStore

log = logging.getLogger(__name__)

TIERS = ("recent", "mid", "long")
_BATCH = 500
# Moments aged per tier and pass: a backlog (after downtime) is worked off over several
# passes instead of stalling the frame that triggered one.
_MAX_ROWS_PER_PASS = 4 * _BATCH
# Least valuable first: not a keyframe nor in the open event, oldest tier, then lowest quality, then oldest.
_LEAST_VALUABLE = (
    "m.keyframe, COALESCE(e.status = 'open', 0), CASE m.tier WHEN 'long' THEN 0 WHEN 'mid' THEN 1 ELSE 2 END, "
    "m.quality, m.stamp"
)
# The WAL may hold this share of the disk budget before it is checkpointed (at most about SQLite's default,
# 1000 pages).  An aging batch commits once it has touched that many payload bytes: in WAL mode freed pages are
# written to the WAL as well as new ones, so no transaction outgrows it.
_WAL_SHARE = 1 / 20
_MAX_WAL_BYTES = 4_000_000
# Eviction rounds per check: the pages freed rarely match the payload bytes exactly.
_MAX_EVICTION_ROUNDS = 4
# Checkpoint tries per budget check: a reader holding an old snapshot must not stall ingestion for long.
_CHECKPOINT_ATTEMPTS = 3
# Events looked at per folding batch (a batch holds at most consolidate.MAX_ROWS_PER_BATCH frame rows).
_FOLD_EVENTS = 20
# Periods looked at per merging batch.
_MERGE_PERIODS = 200
# Events folded by age per pass at most: a backlog is worked off over several passes.
_MAX_FOLDS_PER_PASS = 200
# An over-budget store with nothing left to forget says so at most this often (seconds of wall time).
_ALARM_PERIOD_S = 60.0


@dataclass
class RetentionReport:
    moved: dict[str, int] = field(default_factory=dict)  # moments moved into each tier
    thinned: int = 0  # payloads dropped by tier spacing
    recompressed: int = 0
    evicted_payloads: int = 0  # by the disk budget
    evicted_vectors: int = 0  # by the RAM budget, or the disk budget once no payload is left
    removed_ids: list[int] = field(default_factory=list)  # moments whose vectors are gone
    folded_frames: int = 0  # frame rows folded into their events' summaries
    folded_frame_events: int = 0  # events whose frames were folded
    folded_events: int = 0  # events folded into their super events
    merged_periods: int = 0  # periods merged into their neighbours (up to a day each)
    folded_through: float = float("-inf")  # the newest time folded

    @property
    def changed(self) -> bool:
        return bool(
            self.moved
            or self.thinned
            or self.evicted_payloads
            or self.evicted_vectors
            or self.folded_frame_events
            or self.folded_events
            or self.merged_periods
        )


class Retention:
    """``synced_through``, with a fleet store: the highest moment id it acknowledged; no payload or vector past it
    is thinned or evicted, so the fleet store gets every frame's vector first.  Events are folded away only once
    the fleet store has acknowledged them too."""

    def __init__(
        self, store: SqliteStore, config: RetentionConfig, synced_through: Callable[[], int] | None = None
    ) -> None:
        self.store = store
        self.config = config
        self.synced_through = synced_through
        self.wal_bytes = int(min(config.max_disk_mb * 1e6 * _WAL_SHARE, _MAX_WAL_BYTES)) or _MAX_WAL_BYTES
        if config.max_disk_mb > 0:
            store.bound_wal(self.wal_bytes)
        self._alarmed = -np.inf  # when an over-budget store with nothing left to forget was last logged

    def run(self, now: float, vector_bytes: Callable[[], int] | None = None) -> RetentionReport:
        """One pass: move aged moments down the tiers, then enforce the disk and RAM budgets."""
        report = RetentionReport()
        cfg = self.config
        for tier, after, gap, side, quality in (
            ("mid", cfg.mid_after_s, cfg.mid_min_gap_s, cfg.mid_max_side, cfg.mid_jpeg_quality),
            ("long", cfg.long_after_s, cfg.long_min_gap_s, cfg.long_max_side, cfg.long_jpeg_quality),
        ):
            self._age(tier, now - after, gap, side, quality, report)
        if cfg.fold_after_s > 0:
            self._fold_frames(now - cfg.fold_after_s, _MAX_FOLDS_PER_PASS, report)
        self._enforce_disk(report)
        if vector_bytes is not None:
            self._enforce_ram(vector_bytes, report)
        self._count(report)
        return report

    def hold_disk_budget(self) -> RetentionReport:
        """The check after each write: one look at the store's size, and eviction only past the high mark."""
        report = RetentionReport()
        self._enforce_disk(report)
        self._count(report)
        return report

    def _evictable_through(self) -> int:
        return self.synced_through() if self.synced_through is not None else 2**62

    def _count(self, report: RetentionReport) -> None:
        if not report.changed:
            return
        with self.store.write() as db:
            for name, value in (
                ("retention_thinned", report.thinned),
                ("retention_recompressed", report.recompressed),
                ("budget_evicted_payloads", report.evicted_payloads),
                ("budget_evicted_vectors", report.evicted_vectors),
                ("consolidated_frames", report.folded_frames),
                ("consolidated_frame_events", report.folded_frame_events),
                ("consolidated_events", report.folded_events),
                ("consolidated_periods", report.merged_periods),
            ):
                if value:
                    db.execute(
                        "INSERT INTO counters VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + ?",
                        (name, value, value),
                    )
        if report.folded_frame_events or report.folded_events or report.merged_periods:
            log.info(
                "memory consolidated up to %s: frame rows of %d event(s) folded into their summaries (%d rows), "
                "%d event(s) folded into their periods, %d period(s) merged into days",
                utc_clock(report.folded_through),
                report.folded_frame_events,
                report.folded_frames,
                report.folded_events,
                report.merged_periods,
            )

    def _age(self, tier: str, before: float, gap: float, side: int, quality: int, report: RetentionReport) -> None:
        younger = TIERS[: TIERS.index(tier)]
        left = _MAX_ROWS_PER_PASS
        while left > 0:
            with self.store.write() as db:
                rows = sorted(
                    (
                        row
                        for source in younger  # one indexed range per tier: already aged moments are never scanned
                        for row in db.execute(
                            "SELECT id, stamp, keyframe FROM moments WHERE tier = ? AND stamp < ? AND id <= ? "
                            "ORDER BY stamp LIMIT ?",
                            (source, before, self._evictable_through(), _BATCH),
                        )
                    ),
                    key=lambda r: r[1],
                )[: min(_BATCH, left)]
                if not rows:
                    return
                last = db.execute(
                    "SELECT MAX(m.stamp) FROM moments m JOIN payloads p ON p.moment_id = m.id "
                    "WHERE m.tier = ? AND m.stamp < ?",
                    (tier, rows[0][1]),
                ).fetchone()[0]
                last_kept = -np.inf if last is None else float(last)
                touched = 0
                moved = []
                for moment_id, stamp, keyframe in rows:
                    moved.append(moment_id)
                    payload = db.execute("SELECT jpeg FROM payloads WHERE moment_id = ?", (moment_id,)).fetchone()
                    touched += len(payload[0]) if payload is not None else 0
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
                    if touched >= self.wal_bytes:
                        break
                db.executemany("UPDATE moments SET tier = ? WHERE id = ?", [(tier, i) for i in moved])
                report.moved[tier] = report.moved.get(tier, 0) + len(moved)
            left -= len(moved)

    def _enforce_disk(self, report: RetentionReport) -> None:
        """Past the high mark (database, WAL and shared memory), checkpoint and evict down to the low mark."""
        budget = self.config.max_disk_mb * 1e6
        high = budget * self.config.disk_high_mark
        # The files' sizes first (three stats): free pages only matter once those cross the mark.
        if budget <= 0 or self.store.disk_bytes() <= high or self.store.used_bytes() <= high:
            return
        low = high - budget * self.config.disk_hysteresis
        # While a reader holds an old snapshot the WAL cannot be folded in: evicting would only grow it.
        if not self.store.checkpoint(_CHECKPOINT_ATTEMPTS):  # folds the WAL in and hands freed pages back
            return
        used, target = self.store.used_bytes(), low
        for _ in range(_MAX_EVICTION_ROUNDS):
            if used <= target:
                return
            step = self._forget_next(used - low, report)
            if step is None:
                return
            # Evicting aims at the excess in one go, and pages freed rarely match the bytes deleted exactly: the
            # high mark will do.  Folding goes a batch at a time: on to the low mark, so it runs once per that much
            # writing, not after every frame.
            used, target = self.store.used_bytes(), (high if step == "evicted" else low)

    def _forget_next(self, excess: float, report: RetentionReport) -> str | None:
        """The next step of the order of forgetting that has something left ("evicted" or "folded"); None when
        none has (or a reader kept the WAL from being folded in)."""
        through = self._evictable_through()
        with self.store.read() as db:
            victims = _least_valuable(db, "payloads", "jpeg", excess, through)
        if victims:
            return "evicted" if self._evict(victims, report, payloads=True) else None
        with self.store.read() as db:
            victims = _least_valuable(db, "moment_vectors", "vector", excess, through)
        if victims:
            return "evicted" if self._evict(victims, report, payloads=False) else None
        if self._fold_frames(np.inf, _FOLD_EVENTS, report) or self._fold_events(report) or self._merge_periods(report):
            return "folded" if self.store.checkpoint(_CHECKPOINT_ATTEMPTS) else None
        if time.monotonic() - self._alarmed >= _ALARM_PERIOD_S:
            self._alarmed = time.monotonic()
            held = " that the fleet store has acknowledged" if self.synced_through is not None else ""
            log.error(
                "memory store is over its disk budget with nothing%s left to forget but text read, speech heard "
                "and period summaries",
                held,
            )
        return None

    def _fold_frames(self, before: float, limit: int, report: RetentionReport) -> bool:
        """Fold the frame rows of up to ``limit`` of the oldest closed events ending before ``before``, a batch per
        transaction; True if any were folded."""
        done = 0
        while done < limit:
            with self.store.write() as db:
                batch = consolidate.unfolded_events(
                    db, before, min(_FOLD_EVENTS, limit - done), self._evictable_through()
                )
                if not batch:
                    break
                folded = consolidate.fold_frames(db, [event_id for event_id, _ in batch])
            report.folded_frames += folded.rows
            report.folded_frame_events += len(folded.events)
            report.folded_through = max(report.folded_through, folded.end)
            done += len(batch)
            if before == np.inf:  # budget-driven: one batch, then the caller measures again
                break
        return done > 0

    def _fold_events(self, report: RetentionReport) -> bool:
        with self.store.write() as db:
            synced = self.store.synced_through("events") if self.synced_through is not None else 2**62
            ids = consolidate.folded_events(db, _FOLD_EVENTS, synced)
            folded = consolidate.fold_events(db, ids)
        report.folded_events += len(folded.events)
        report.folded_through = max(report.folded_through, folded.end)
        return bool(folded.events)

    def _merge_periods(self, report: RetentionReport) -> bool:
        with self.store.write() as db:
            merged = consolidate.merge_periods(db, _MERGE_PERIODS)
        report.merged_periods += len(merged.events)
        report.folded_through = max(report.folded_through, merged.end)
        return bool(merged.events)

    def _evict(self, victims: list[tuple[int, int]], report: RetentionReport, payloads: bool) -> bool:
        """Delete a WAL's worth of payload (or, with ``payloads`` false, vector) bytes per transaction, each folded
        in before the next: in WAL mode freed pages are written to the WAL too, so one large delete would take the
        files past the budget.  False if a reader kept a checkpoint from finishing (the rest waits)."""
        for ids in _batches(victims, self.wal_bytes):
            with self.store.write() as db:
                if payloads:
                    db.executemany("DELETE FROM payloads WHERE moment_id = ?", [(i,) for i in ids])
                db.executemany("DELETE FROM moment_vectors WHERE moment_id = ?", [(i,) for i in ids])
            if payloads:
                report.evicted_payloads += len(ids)
            else:
                report.evicted_vectors += len(ids)
            report.removed_ids += ids
            if not self.store.checkpoint(_CHECKPOINT_ATTEMPTS):
                return False
        return True

    def _enforce_ram(self, vector_bytes: Callable[[], int], report: RetentionReport) -> None:
        budget = self.config.max_ram_mb * 1e6
        if budget <= 0:
            return
        excess = vector_bytes() - budget
        if excess <= 0:
            return
        with self.store.write() as db:
            victims = _least_valuable(db, "moment_vectors", "vector", excess, self._evictable_through())
            ids = [moment_id for moment_id, _ in victims]
            db.executemany("DELETE FROM moment_vectors WHERE moment_id = ?", [(i,) for i in ids])
        report.evicted_vectors += len(ids)
        report.removed_ids += ids


def _least_valuable(
    db: sqlite3.Connection, table: str, column: str, excess: float, through: int
) -> list[tuple[int, int]]:
    """(moment id, bytes) of the least valuable rows of ``table`` up to moment ``through``: as few as whose
    ``column`` bytes cover ``excess``."""
    rows = db.execute(
        f"SELECT m.id, LENGTH(t.{column}) FROM moments m JOIN {table} t ON t.moment_id = m.id "
        f"LEFT JOIN events e ON e.id = m.event_id WHERE m.id <= ? ORDER BY {_LEAST_VALUABLE}",
        (through,),
    )
    chosen: list[tuple[int, int]] = []
    covered = 0
    for moment_id, size in rows:
        if covered >= excess:
            break
        chosen.append((int(moment_id), int(size or 0)))
        covered += int(size or 0)
    rows.close()
    return chosen


def _batches(victims: list[tuple[int, int]], max_bytes: int) -> Iterator[list[int]]:
    """The moment ids of ``victims`` (id, bytes) in consecutive batches of at most ``max_bytes``, one at least."""
    batch: list[int] = []
    size = 0
    for moment_id, payload_bytes in victims:
        if batch and size + payload_bytes > max_bytes:
            yield batch
            batch, size = [], 0
        batch.append(moment_id)
        size += payload_bytes
    if batch:
        yield batch


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


# What each step of the order of forgetting counts, in that order, as diagnostics name it.
FORGETTING_STEPS = (
    ("budget_evicted_payloads", "frame images"),
    ("budget_evicted_vectors", "frame vectors"),
    ("consolidated_frames", "frame rows folded into events"),
    ("consolidated_events", "events folded into periods"),
    ("consolidated_periods", "periods merged into days"),
)


def forgotten(counters: dict[str, int]) -> str:
    """What the disk budget and consolidation have forgotten so far, in the order they forget it."""
    parts = [f"{counters[name]} {what}" for name, what in FORGETTING_STEPS if counters.get(name)]
    return ", ".join(parts) or "nothing"


def tier_bytes(store: SqliteStore) -> dict[str, dict[str, int]]:
    """Per tier: moments, payloads kept and payload bytes (for stats and benchmarks)."""
    with store.read() as db:
        rows = db.execute(
            "SELECT m.tier, COUNT(m.id), COUNT(p.moment_id), COALESCE(SUM(LENGTH(p.jpeg)), 0) "
            "FROM moments m LEFT JOIN payloads p ON p.moment_id = m.id GROUP BY m.tier"
        ).fetchall()
    return {str(t): {"moments": int(n), "payloads": int(k), "payload_bytes": int(b)} for t, n, k, b in rows}
