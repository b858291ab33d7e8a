"""Consolidation makes the disk budget a cap: a month of bursts of frames through the real engine into a real
store stays within 10 % of a small budget, forgetting in the documented order (payloads, vectors, frame rows
into event summaries, events into periods), and what was planted on day 1 (a sign read, a message heard, an
object seen at a place) is still answered on day 30."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.memory import consolidate
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import ComposedCaptioner
from vidmem_ros.memory.engine import MemoryEngine, PerceivedFrame
from vidmem_ros.memory.forget import forget
from vidmem_ros.memory.records import Pose, Transcript
from vidmem_ros.memory.retention import Retention, RetentionReport, forgotten
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.types import Detection, TextLine

T0 = 1_780_000_000.0
DAY = 86400.0
LABELS = ("chair", "cup", "laptop", "bottle", "person", "dog")


def month_config(path: Path, budget_mb: float) -> VidmemConfig:
    return load_config(overrides={"store.path": str(path), "retention.max_disk_mb": budget_mb, "query.parser": "rules"})


def burst(
    engine: MemoryEngine, start: float, frames: int, rng: np.random.Generator, place: float, planted: bool = False
) -> int:
    """``frames`` at 1 Hz, the view changing every 20 s; with ``planted``, day 1's facts.  Returns the largest
    size of the store's files after a frame."""
    peak = 0
    for i in range(frames):
        stamp = start + i
        label = LABELS[int(rng.integers(len(LABELS)))]
        detections = [Detection(label, float(rng.uniform(0.6, 0.95)), (0.0, 0.0, 20.0, 20.0))]
        texts = []
        if planted and i == 10:  # a thing seen once in the month, at x = 0.1
            detections.append(Detection("umbrella", 0.9, (10.0, 10.0, 40.0, 40.0)))
        if planted and i == 30:
            texts = [TextLine("LOCKER ROOM SEVEN", 0.95, (0.0, 0.0, 30.0, 8.0))]
        engine.observe(
            PerceivedFrame(
                stamp=stamp,
                source="/cam",
                width=64,
                height=48,
                jpeg=rng.bytes(3000),
                grey=np.full((32, 32), (i // 20) * 53 % 256, np.uint8),
                quality=float(rng.uniform(0, 1)),
                detections=detections,
                texts=texts,
                pose=Pose("map", place + i * 0.01, 2.0),
                embedding=rng.standard_normal(32).astype(np.float32),
            )
        )
        peak = max(peak, engine.store.disk_bytes())
    if planted:
        engine.add_transcript(Transcript(start + 40, start + 43, "the spare keys are under the blue mat"))
    return peak


def live_a_month(path: Path, budget_mb: float, days: int = 30, per_day: int = 4, frames: int = 40) -> list[float]:
    """Bursts of frames every 24/per_day hours for ``days``; the largest size of the store's files in each."""
    rng = np.random.default_rng(0)
    store = SqliteStore(path)
    engine = MemoryEngine(store, month_config(path, budget_mb))
    sizes = []
    for day in range(days):
        for b in range(per_day):
            start = T0 + day * DAY + b * DAY / per_day
            sizes.append(burst(engine, start, frames, rng, float(b * 10), planted=day == b == 0))
    engine.finish()
    store.close()
    return sizes


def test_a_month_stays_within_a_small_budget_and_day_one_is_still_answered(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    budget = 2.0
    sizes = live_a_month(path, budget)
    assert max(sizes) <= budget * 1e6 * 1.1, f"peak {max(sizes) / 1e6:.2f} MB over a {budget} MB budget"
    store = SqliteStore(path)
    counters = store.counters()
    assert forgotten(counters).startswith(f"{counters['budget_evicted_payloads']} frame images")
    for step in ("budget_evicted_payloads", "consolidated_frames", "consolidated_events"):
        assert counters.get(step, 0) > 0, f"{step} was reached"
    assert store.integrity_ok()
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM payloads").fetchone()[0] < 300, "payloads went first"
        periods = db.execute("SELECT COUNT(*) FROM folded_periods").fetchone()[0]
        oldest = db.execute("SELECT MIN(start) FROM events").fetchone()[0]
    assert periods > 0 and oldest > T0 + DAY, "day 1's events were folded into their periods"

    config = month_config(path, budget)
    reasoner = Reasoner(store, config.query, tuple(COCO_LABELS.values()), detector_min_score=0.5)
    sign = reasoner.answer("What did the sign say?")
    assert "LOCKER ROOM SEVEN" in sign.text.upper() and sign.stamp is not None and sign.stamp < T0 + DAY
    heard = reasoner.answer("What did someone say about the keys?")
    assert "blue mat" in heard.text and heard.stamp is not None and heard.stamp < T0 + DAY
    umbrella = reasoner.answer("Where did you see an umbrella?")
    assert umbrella.success and umbrella.stamp == T0 + 10 and umbrella.pose is not None
    assert abs(umbrella.pose.x - 0.1) < 1e-6
    store.close()


def test_folding_frames_keeps_keyframes_best_sightings_and_text_and_counts_every_label(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteStore(path)
    engine = MemoryEngine(store, month_config(path, 0))
    rng = np.random.default_rng(1)
    burst(engine, T0, 60, rng, 0.0, planted=True)
    engine.finish()
    with store.read() as db:
        before = dict(db.execute("SELECT label, COUNT(DISTINCT moment_id) FROM detections GROUP BY label"))
        events = [int(r[0]) for r in db.execute("SELECT id FROM events WHERE status = 'closed' ORDER BY start")]
        keyframes = {int(r[0]) for r in db.execute("SELECT id FROM moments WHERE keyframe = 1")}
    with store.write() as db:
        folded = consolidate.fold_frames(db, events)
    assert folded.events == events and folded.rows > 0
    with store.read() as db:
        kept = {int(r[0]) for r in db.execute("SELECT id FROM moments")}
        summaries = [consolidate.read_labels(r[0]) for r in db.execute("SELECT labels FROM folded_events")]
        after = dict(db.execute("SELECT label, COUNT(DISTINCT moment_id) FROM detections GROUP BY label"))
    assert keyframes <= kept
    assert set(after) == set(before), "each label keeps its best sighting"
    totals: dict[str, float] = {}
    for summary in summaries:
        for label, (frames, first, last, _) in summary.items():
            totals[label] = totals.get(label, 0) + frames
            assert first <= last
    assert totals == {k: float(v) for k, v in before.items()}, "every frame is counted in its event's summary"
    assert [t.text for t in store.texts_read(T0, T0 + 100)] == ["LOCKER ROOM SEVEN"]
    assert store.integrity_ok()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    budget=st.sampled_from([1.5, 2.0, 3.0]),
    steps=st.lists(
        st.tuples(st.sampled_from(["frames", "forget", "tight"]), st.integers(5, 80)), min_size=3, max_size=12
    ),
)
def test_any_sequence_of_frames_budgets_and_forgets_keeps_the_cap(tmp_path: Path, budget: float, steps) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / f"memory-{abs(hash((budget, tuple(steps))))}.db"
    store = SqliteStore(path)
    config = month_config(path, budget)
    engine = MemoryEngine(store, config)
    rng = np.random.default_rng(len(steps))
    clock = T0
    peak = 0
    for kind, n in steps:
        if kind == "forget":  # a stretch of memory forgotten through the forget service's code
            forget(EventArchive(store, config, ComposedCaptioner()), clock - n * 600, clock - n * 300)
        else:
            if kind == "tight":  # many small frames in a row: rows, not payloads, fill the store
                for _ in range(10):
                    peak = max(peak, burst(engine, clock, n, rng, 5.0))
                    clock += 3 * 3600
            peak = max(peak, burst(engine, clock, n * 4, rng, 0.0))
        clock += 6 * 3600
    engine.finish()
    assert peak <= budget * 1e6 * 1.1, f"peak {peak / 1e6:.2f} MB over a {budget} MB budget"
    store.close()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert check.execute("PRAGMA foreign_key_check").fetchall() == []
    check.close()
    SqliteStore(path).close()  # a writer's start-up check passes: the store is readable and usable


def test_with_a_fleet_store_only_events_it_acknowledged_are_folded_away(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteStore(path)
    config = month_config(path, 0)
    engine = MemoryEngine(store, config)
    burst(engine, T0, 80, np.random.default_rng(2), 0.0)
    engine.finish()
    with store.read() as db:
        events = [int(r[0]) for r in db.execute("SELECT id FROM events ORDER BY start")]
    with store.write() as db:
        consolidate.fold_frames(db, events)
    store.set_meta("fleet_synced_events", str(events[1]))  # the fleet store has the first two
    retention = Retention(store, config.retention, synced_through=lambda: 2**40)
    report = RetentionReport()
    while retention._fold_events(report):
        pass
    assert report.folded_events == 2
    assert [e.id for e in store.events()] == events[2:]


def test_forgetting_a_range_removes_the_periods_folded_inside_it(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteStore(path)
    config = month_config(path, 0)
    engine = MemoryEngine(store, config)
    rng = np.random.default_rng(3)
    for hour in range(4):  # four periods an hour apart (a gap starts a period)
        burst(engine, T0 + hour * 3600, 40, rng, 0.0)
    engine.finish()
    with store.write() as db:
        consolidate.fold_frames(db, [e.id for e in store.events()])
    retention = Retention(store, config.retention)
    report = RetentionReport()
    while retention._fold_events(report):
        pass
    assert store.events() == [] and len(store.super_events()) == 4, "every event folded into its period"
    forget(EventArchive(store, config, ComposedCaptioner()), T0 - 1, T0 + 3600 + 100)
    left = store.super_events()
    assert [round((s.start - T0) / 3600) for s in left] == [2, 3]
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM folded_periods").fetchone()[0] == 2
    assert not [h for h in store.search_text("chair cup laptop", 20) if h.end_stamp < T0 + 3700]


def test_periods_left_with_no_event_are_merged_into_days_keeping_their_counts(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteStore(path)
    config = month_config(path, 0)
    engine = MemoryEngine(store, config)
    rng = np.random.default_rng(4)
    for burst_no in range(36):  # three days of a sparse camera: a period every two hours
        burst(engine, T0 + burst_no * 7200, 10, rng, 0.0)
    engine.finish()
    with store.read() as db:
        frames = dict(db.execute("SELECT label, COUNT(DISTINCT moment_id) FROM detections GROUP BY label"))
    with store.write() as db:
        consolidate.fold_frames(db, [e.id for e in store.events()])
    retention = Retention(store, config.retention)
    report = RetentionReport()
    while retention._fold_events(report):
        pass
    assert len(store.super_events()) == 36
    while retention._merge_periods(report):
        pass
    days = store.super_events()
    assert len(days) == 3 and all(d.end - d.start <= DAY for d in days)
    assert sum(d.event_count for d in days) == report.folded_events
    totals: dict[str, float] = {}
    with store.read() as db:
        for (labels,) in db.execute("SELECT labels FROM folded_periods"):
            for label, (n, *_) in consolidate.read_labels(labels).items():
                totals[label] = totals.get(label, 0) + n
    assert totals == {k: float(v) for k, v in frames.items()}, "every frame is still counted"
    assert {h.ref for h in store.search_text("chair", 10, kinds=["super_event"])} == {d.id for d in days}
    assert store.integrity_ok()
