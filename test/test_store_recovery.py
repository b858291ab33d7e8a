"""Bad records in a real store: reading never raises, a bad event never wedges ingestion or start-up, and
``vidmem doctor`` reports and repairs them.

The store is poisoned the way the field did it: a pose with NaN and inf reaches the engine (before intake
checked poses, so here through the pose buffer behind the intake's back), SQLite stores the NaN as NULL;
or with SQL that writes what SQLite stores for such values (9e999 is how SQLite writes an infinite float).
"""

from __future__ import annotations

import logging
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import VidmemConfig
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import ComposedCaptioner
from vidmem_ros.memory.engine import MemoryEngine
from vidmem_ros.memory.entities import entities
from vidmem_ros.memory.hierarchy import summarise_events
from vidmem_ros.memory.records import Moment, Pose
from vidmem_ros.memory.schema import POSE_COLUMNS
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.writes import insert_moment
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.embedding import ColorLayoutEmbedder
from vidmem_ros.perception.types import Detection, TextLine

T0 = 1_700_000_000.0
FIELD_POSE = Pose("odom", math.nan, 0.0, 0.0, 0.0, 0.0, 0.0, math.inf)  # what the odometry driver sent
INF = "9e999"


def ingest(
    pipeline: IngestPipeline, photos: dict[str, np.ndarray], schedule: list[tuple[float, str | np.ndarray, Pose]]
) -> list[Moment]:
    """Feed photos (by name, or an image) at T0 + offset with the pose the robot had then; all must be kept."""
    kept = []
    for offset, image, pose in schedule:
        pipeline.poses.add(T0 + offset, pose)  # behind the intake's back, as before poses were checked
        rgb = photos[image] if isinstance(image, str) else image
        moment = pipeline.ingest(FrameInput(T0 + offset, "/cam", DecodedImage(rgb)))
        assert moment is not None, f"the frame at +{offset} s was not kept"
        if not all(math.isfinite(v) for v in (pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw)):
            _write_as_older_builds_did(pipeline.store, moment, pose)
        kept.append(moment)
    return kept


def _write_as_older_builds_did(store: SqliteStore, moment: Moment, pose: Pose) -> None:
    """The raw pose columns a build without intake checks wrote (SQLite keeps inf, turns NaN into NULL);
    the write path now refuses to, so the field's store is made by hand."""
    values = (pose.frame_id, pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw)
    sets = ", ".join(f"{c} = ?" for c in POSE_COLUMNS)
    with store.write() as db:
        db.execute(f"UPDATE moments SET {sets} WHERE id = ?", (*values, moment.id))
        first = db.execute("SELECT MIN(stamp) FROM moments WHERE event_id = ?", (moment.event_id,)).fetchone()[0]
        ends = ", ".join(f"end_{c} = ?" for c in POSE_COLUMNS)
        starts = ", ".join(f"start_{c} = ?" for c in POSE_COLUMNS)
        db.execute(f"UPDATE events SET {ends} WHERE id = ?", (*values, moment.event_id))
        if first == moment.stamp:
            db.execute(f"UPDATE events SET {starts} WHERE id = ?", (*values, moment.event_id))


def test_a_nan_pose_reads_as_no_pose_and_events_keep_closing(config: VidmemConfig, detector, photos) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, detector, ColorLayoutEmbedder())
    schedule = [
        (0, "coffee", FIELD_POSE),
        (10, "chelsea", Pose("map", 1.0, 0.5)),
        (20, "astronaut", Pose("map", 2.0, 0.5)),
    ]
    poisoned, cat, _ = ingest(pipeline, photos, schedule)
    with store.read() as db:
        stored = db.execute("SELECT pose_frame, px, qw FROM moments WHERE id = ?", (poisoned.id,)).fetchone()
    assert stored == ("odom", None, math.inf), "the store holds what the field stored"
    events = store.events()
    assert [e.status for e in events] == ["closed", "closed", "open"], "the event that began at the bad pose closed"
    assert events[0].start_pose is None and events[1].start_pose == Pose("map", 1.0, 0.5)
    assert store.moment(poisoned.id).pose is None  # type: ignore[union-attr]
    assert [s.pose for s in store.sightings(["cup"], None, 0.5)] == [None]

    reasoner = Reasoner(store, config.query, tuple(COCO_LABELS.values()), detector_min_score=config.detector.min_score)
    cup = reasoner.answer("Where did you see a cup?")
    assert cup.success and cup.stamp == T0 and cup.pose is None
    where = reasoner.answer("Where did you see the cat?")
    assert where.success and where.stamp == cat.stamp and where.pose == Pose("map", 1.0, 0.5)

    store.close()  # killed: the event open now is closed by the next start
    again = IngestPipeline(config, SqliteStore(config.store_path()), None, ColorLayoutEmbedder())
    assert again.engine.recovered_events == 1
    later = again.ingest(FrameInput(T0 + 30, "/cam", DecodedImage(photos["coffee"])))
    assert later is not None and again.store.moment(later.id) is not None  # type: ignore[arg-type]


def test_an_event_that_cannot_be_closed_is_quarantined_and_ingestion_goes_on(  # type: ignore[no-untyped-def]
    config: VidmemConfig, photos, caplog
) -> None:
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None, ColorLayoutEmbedder())
    pose = Pose("map", 0.0, 0.0)
    _, stray = ingest(pipeline, photos, [(0, "coffee", pose), (10, "chelsea", pose)])
    with store.write() as db:  # a frame stamped with no real time, by a build that did not check stamps
        db.execute(f"UPDATE moments SET stamp = {INF} WHERE id = ?", (stray.id,))
    with caplog.at_level(logging.ERROR, logger="vidmem_ros.memory.archive"):
        after = ingest(pipeline, photos, [(20, "astronaut", pose), (30, "coffee", pose), (40, "chelsea", pose)])
    bad = store.event(stray.event_id)  # type: ignore[arg-type]
    assert bad is not None and bad.status == "quarantined"
    assert [e.status for e in store.events() if e.id != bad.id] == ["closed", "closed", "closed", "open"]
    assert len({m.event_id for m in after}) == 3, "each later frame began an event, and those closed"
    assert store.counter("quarantined_events") == 1 and pipeline.engine.counts["events_quarantined"] == 1
    assert [r.levelname for r in caplog.records if "quarantined" in r.getMessage()] == ["ERROR"], "logged once"
    assert bad.id not in {e.id for e in store.events(as_of=T0 + 100)}, "what was not archived is not answered from"

    with store.write() as db:  # a full disk is the store's refusal, not the event's fault: it is not quarantined
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
    assert pipeline.ingest(FrameInput(T0 + 50, "/cam", DecodedImage(photos["astronaut"]))) is None
    assert pipeline.stats.snapshot().dropped["store_error"] == 1
    assert store.event_count("open") == 1 and store.event_count("quarantined") == 1


def test_start_up_quarantines_an_event_it_cannot_close_and_closes_the_others(config: VidmemConfig, caplog) -> None:  # type: ignore[no-untyped-def]
    """Two events left open by a killed run, written by the archive's own functions; the first cannot close."""
    store = SqliteStore(config.store_path())
    archive = EventArchive(store, config, ComposedCaptioner())
    with store.write() as db:
        for start, stamps in ((T0, (T0, math.inf)), (T0 + 10, (T0 + 10, T0 + 11))):
            event_id = archive.open(db, start, "start")
            for stamp in stamps:
                moment = Moment(stamp, "/cam", 8, 8, b"jpeg", event_id=event_id, pose=Pose("map", 1.0, 2.0))
                insert_moment(db, moment)
                archive.extend(db, event_id, moment)
    store.close()
    store = SqliteStore(config.store_path())
    with caplog.at_level(logging.ERROR, logger="vidmem_ros.memory.archive"):
        engine = MemoryEngine(store, config)  # used to raise here: the node never started
    assert engine.recovered_events == 2
    assert [(e.status, e.frame_count) for e in store.events()] == [("quarantined", 2), ("closed", 2)]
    assert store.counter("quarantined_events") == 1 and "quarantined" in caplog.text
    assert store.events()[1].start_pose == Pose("map", 1.0, 2.0)
    assert "t=inf s" in summarise_events(store.events()), "a summary over it shows a time no calendar can"
    MemoryEngine(store, config)  # a second start leaves the quarantined event alone
    assert store.counter("quarantined_events") == 1


@pytest.mark.parametrize(
    "poison",
    [
        "px = NULL",  # NaN written
        f"qw = {INF}",
        "py = 'north'",
        "pose_frame = ''",
        "qx = 0, qy = 0, qz = 0, qw = 0",  # an orientation never filled in
    ],
)
def test_reading_a_moment_with_a_bad_pose_gives_no_pose(config: VidmemConfig, poison: str) -> None:
    store = SqliteStore(config.store_path())
    pose = Pose("map", 1.0, 2.0, 0.0, 0.0, 0.0, 0.6, 0.8)
    moment = Moment(T0, "/cam", 8, 8, b"jpeg", detections=[Detection("cup", 0.9, (0, 0, 4, 4))], pose=pose)
    moment.texts.append(TextLine("EXIT", 0.9))
    mid = store.add_moment(moment)
    assert store.moment(mid).pose == pose, "a valid pose reads as written"  # type: ignore[union-attr]
    with store.write() as db:
        db.execute(f"UPDATE moments SET {poison} WHERE id = ?", (mid,))
    assert store.moment(mid).pose is None  # type: ignore[union-attr]
    assert [m.pose for m in store.moments(0, math.inf)] == [None]
    assert [s.pose for s in store.sightings(["cup"], None, 0.5)] == [None]
    assert [t.pose for t in store.texts_read(0, math.inf)] == [None]
    assert store.search_place(1.0, 2.0, 5.0) == [] and store.moments_near(1.0, 2.0, 5.0) == []


@pytest.mark.parametrize(
    ("column", "value", "field", "expected"),
    [
        ("labels", "'cup, cat'", "labels", []),
        ("labels", "'{\"cup\": 1}'", "labels", []),
        ("labels", "'[\"cup\", 7, null]'", "labels", ["cup"]),
        ("keyframes", "'[3, \"x\"]'", "keyframe_ids", [3]),
        ("transcript", "'['", "transcript", []),
        ("start_px", "NULL", "start_pose", None),
        ("path_m", "'far'", "path_m", 0.0),
    ],
)
def test_reading_an_event_with_a_bad_field_gives_its_empty_value(  # type: ignore[no-untyped-def]
    config: VidmemConfig, column: str, value: str, field: str, expected
) -> None:
    store = SqliteStore(config.store_path())
    archive = EventArchive(store, config, ComposedCaptioner())
    with store.write() as db:
        event_id = archive.open(db, T0, "start")
        moment = Moment(T0, "/cam", 8, 8, b"jpeg", detections=[Detection("cup", 0.9, (0, 0, 4, 4))])
        moment.pose, moment.event_id = Pose("map", 1.0, 2.0), event_id
        insert_moment(db, moment)
        archive.extend(db, event_id, moment)
        archive.close(db, event_id)
    written = store.event(event_id)
    assert written is not None and written.labels == ["cup"] and written.start_pose == Pose("map", 1.0, 2.0)
    with store.write() as db:
        db.execute(f"UPDATE events SET {column} = {value} WHERE id = ?", (event_id,))
    assert getattr(store.event(event_id), field) == expected
    assert getattr(store.events()[0], field) == expected


def test_an_entity_prototype_the_file_garbled_does_not_stop_ingestion(config: VidmemConfig, detector, photos) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path())
    ingest(IngestPipeline(config, store, detector), photos, [(0, "coffee", Pose("map", 0.0, 0.0))])
    with store.write() as db:  # half a vector, and a vector of another size
        db.execute("UPDATE entities SET prototype = x'00010203ff' WHERE id = (SELECT MIN(id) FROM entities)")
        db.execute("UPDATE entities SET prototype = zeroblob(8) WHERE id != (SELECT MIN(id) FROM entities)")
    again = IngestPipeline(config, store, detector)
    ingest(again, photos, [(10, "coffee", Pose("map", 0.0, 0.0))])
    with store.read() as db:
        assert {e.label for e in entities(db)} >= {"cup"}


def run_doctor(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "vidmem_ros.command", "doctor", "--store", str(path), *flags]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_doctor_reports_a_poisoned_store_then_repairs_it(config: VidmemConfig, photos) -> None:  # type: ignore[no-untyped-def]
    path = config.store_path()
    store = SqliteStore(path)
    pipeline = IngestPipeline(config, store, None, ColorLayoutEmbedder())
    pose, turned = Pose("map", 1.0, 0.5), np.roll(photos["chelsea"], 25, axis=1)
    first, _, stray = ingest(pipeline, photos, [(0, "coffee", pose), (10, "chelsea", pose), (11, turned, pose)])
    with store.write() as db:
        db.execute(f"UPDATE moments SET stamp = {INF} WHERE id = ?", (stray.id,))
        db.execute("UPDATE events SET labels = 'cup, cat' WHERE id = ?", (first.event_id,))
    _, posed = ingest(pipeline, photos, [(20, "astronaut", pose), (30, "coffee", FIELD_POSE)])
    store.close()  # killed: the last event stays open

    report = run_doctor(path)
    assert report.returncode == 1, report.stdout + report.stderr
    for line in (
        f"moments stamped with no real time: 1 (ids {stray.id})",
        f"moments with an invalid or partial pose: 1 (ids {posed.id})",
        f"events with an invalid or partial start or end pose: 1 (ids {posed.event_id})",
        f"events with an unreadable list (labels, texts, transcript, keyframes): 1 (ids {first.event_id})",
        f"events left open (a run that was killed or is still running): 1 (ids {posed.event_id})",
        f"quarantined events (they could not be closed): 1 (ids {stray.event_id})",
        "events quarantined since the store was made: 1",
    ):
        assert line in report.stdout, report.stdout

    writer = SqliteStore(path)  # a node still writing: the repair must not start
    refused = run_doctor(path, "--repair")
    assert refused.returncode == 2 and "refusing to repair" in refused.stdout
    writer.close()

    repaired = run_doctor(path, "--repair")
    assert repaired.returncode == 0 and "no problems remain" in repaired.stdout, repaired.stdout + repaired.stderr
    assert "closed 1 of 1 quarantined event(s)" in repaired.stdout
    assert run_doctor(path).returncode == 0

    store = SqliteStore(path)
    assert store.integrity_ok() and store.moment(stray.id) is None and store.moment(posed.id) is not None
    assert [(e.status, e.frame_count) for e in store.events()] == [
        ("closed", 1),
        ("closed", 1),
        ("closed", 1),
        ("closed", 1),
    ]
    assert store.events()[0].labels == []
    with store.read() as db:
        assert db.execute("SELECT pose_frame, px, qw FROM moments WHERE id = ?", (posed.id,)).fetchone() == (None,) * 3
    assert MemoryEngine(store, config).recovered_events == 0


def test_a_caller_that_skips_intake_cannot_write_a_nan_pose(tmp_path: Path) -> None:
    from vidmem_ros.memory.records import Moment, Pose

    store = SqliteStore(tmp_path / "m.db")
    moment_id = store.add_moment(Moment(1.0, "/cam", 8, 8, None, pose=Pose("odom", float("nan"), 1.0)))
    with store.read() as db:
        row = db.execute("SELECT pose_frame, px, py FROM moments WHERE id = ?", (moment_id,)).fetchone()
    assert row == (None, None, None)
