"""The ingest pipeline on real photos and on the sample patrol bag, with the real detector."""

import time
from pathlib import Path

import cv2
import numpy as np
from bag_feed import run_bag

from vidmem_dev.sample_bag import START_STAMP, timeline
from vidmem_ros.config import VidmemConfig
from vidmem_ros.ingest.frames import CompressedImage, DecodedImage, FrameInput, RawImage
from vidmem_ros.ingest.worker import IngestPipeline, IngestWorker
from vidmem_ros.memory.store import SqliteStore


def test_sample_patrol_is_remembered_room_by_room(config: VidmemConfig, detector, sample_bag: Path) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, detector)
    run_bag(pipeline, sample_bag)
    stats = pipeline.stats.snapshot()
    assert stats.received == stats.kept + stats.dropped_total
    assert stats.dropped["blur"] > 0, "the blurred swings between rooms should be gated"
    assert 0.05 < stats.kept / stats.received < 0.35
    for visit in timeline():
        start, end = START_STAMP + visit.start, START_STAMP + visit.end
        for label in visit.room.objects:
            inside = [s for s in store.sightings([label], None, 0.5) if start <= s.stamp <= end]
            assert inside, f"{label} in the {visit.room.name} ({visit.start}-{visit.end} s) was never detected"
            assert all(s.pose is not None for s in inside)
    assert store.sightings(["dog", "giraffe", "car"], None, 0.5) == []


def test_every_drop_has_a_reason_and_bad_frames_do_not_stop_ingestion(config: VidmemConfig, photos) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    good = photos["coffee"]
    frames = [
        FrameInput(0.0, "/cam", DecodedImage(good)),
        FrameInput(1.0, "/cam", CompressedImage(b"garbage", "jpeg")),
        FrameInput(2.0, "/cam", RawImage(good.tobytes(), 600, 400, "rgb8", 100)),  # step too small
        FrameInput(3.0, "/cam", RawImage(good.tobytes(), 600, 400, "hsv8", 1800)),
        FrameInput(4.0, "/cam", DecodedImage(cv2.GaussianBlur(good, (0, 0), 8))),
        FrameInput(5.0, "/cam", DecodedImage(photos["chelsea"])),
        FrameInput(1.0, "/cam", DecodedImage(photos["astronaut"])),  # late frame
        FrameInput(6.0, "/cam", DecodedImage(np.zeros((1, 1, 3), np.uint8))),  # 1x1: nothing to see
    ]
    for frame in frames:
        pipeline.ingest(frame)
    stats = pipeline.stats.snapshot()
    assert stats.received == 8 and stats.kept == 2
    assert stats.dropped == {"decode_error": 1, "bad_step": 1, "bad_encoding": 1, "blur": 2, "stamp_backwards": 1}
    assert store.moment_count() == 2


def test_a_clock_that_jumps_back_restarts_the_gate(config: VidmemConfig, photos) -> None:  # type: ignore[no-untyped-def]
    """A bag replayed from its start: once a second of stamps agrees on the earlier time, frames are kept again."""
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    assert pipeline.ingest(FrameInput(1000.0, "/cam", DecodedImage(photos["coffee"]))) is not None
    for stamp in (10.0, 10.5):
        assert pipeline.ingest(FrameInput(stamp, "/cam", DecodedImage(photos["chelsea"]))) is None
    assert pipeline.stats.snapshot().dropped == {"stamp_behind": 2}
    assert pipeline.ingest(FrameInput(11.0, "/cam", DecodedImage(photos["chelsea"]))) is not None


def test_worker_queue_is_bounded_and_drops_the_oldest(config: VidmemConfig, photos) -> None:  # type: ignore[no-untyped-def]
    config.ingest.sample_fps = 30.0
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    worker = IngestWorker(pipeline, capacity=3)
    views = [photos["coffee"], photos["chelsea"], photos["astronaut"], photos["stereo_motorcycle"]]
    for i in range(200):
        worker.submit(FrameInput(i * 0.1, "/cam", DecodedImage(views[i % 4])))
        assert worker.depth <= 4  # three waiting and one in work
    assert worker.wait_idle(30.0)
    worker.stop()
    stats = pipeline.stats.snapshot()
    assert stats.received == 200
    assert stats.kept + stats.dropped_total == 200
    assert stats.dropped.get("queue_full", 0) > 0


def test_frames_over_the_working_rate_never_take_a_queue_slot(config: VidmemConfig, photos, detector) -> None:  # type: ignore[no-untyped-def]
    # 1 frame per second kept; the detector's ~50 ms per kept frame is longer than five camera periods.
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), detector)
    worker = IngestWorker(pipeline, capacity=3)
    views = [photos["coffee"], photos["chelsea"]]
    for i in range(300):  # a 100 Hz camera for 3 s, in real time
        worker.submit(FrameInput(i * 0.01, "/cam", DecodedImage(views[(i // 100) % 2])))
        time.sleep(0.01)
    assert worker.wait_idle(30.0)
    peak = worker.take_peak_depth()
    worker.stop()
    stats = pipeline.stats.snapshot()
    assert stats.kept == 3 and "queue_full" not in stats.dropped, stats.dropped
    assert stats.dropped["rate"] >= 290 and 1 <= peak <= 3
