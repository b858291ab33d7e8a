"""Checks at the door: stamps, poses, frame sizes, the working rate and the queue, through the real intake path."""

from __future__ import annotations

import math
import struct
import time
import zlib

import cv2
import numpy as np
import pytest

from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.errors import InputError
from vidmem_ros.ingest.frames import CompressedImage, DecodedImage, FrameInput, RawImage
from vidmem_ros.ingest.gates import FrameGate
from vidmem_ros.ingest.messages import to_seconds
from vidmem_ros.ingest.worker import IngestPipeline, IngestWorker
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.validation import StreamClock, checked_pose

T0 = 1_750_000_000.0
YEAR_2038 = 2147483647.0


def noise_frame(seed: int, shape: tuple[int, int] = (120, 160)) -> np.ndarray:
    """Sharp, never static, never a near-duplicate of another seed: passes every image gate."""
    return np.random.default_rng(seed).integers(0, 255, (*shape, 3), dtype=np.uint8)


# -- stamps ---------------------------------------------------------------------------------


def test_one_stamp_far_ahead_is_refused_and_the_clock_stays() -> None:
    clock = StreamClock(max_ahead_s=60.0)
    assert clock.admit(T0) == "" and clock.admit(T0 + 1) == ""
    assert clock.admit(YEAR_2038) == "stamp_ahead"
    assert clock.admit(T0 + 2) == "" and clock.now == T0 + 2


def test_a_real_jump_is_followed_once_consecutive_stamps_agree() -> None:
    clock = StreamClock(max_ahead_s=60.0, confirmations=3)
    clock.admit(T0)
    later = T0 + 3600  # the robot was paused for an hour
    assert [clock.admit(later + i * 0.5) for i in range(4)] == ["stamp_ahead", "stamp_ahead", "", ""]
    assert clock.now == later + 1.5


def test_a_restarted_clock_allows_for_the_time_the_process_was_down() -> None:
    fresh = StreamClock(max_ahead_s=60.0, now=T0)  # restarted at once: a stamp 50 min on needs confirming
    assert fresh.admit(T0 + 3000) == "stamp_ahead"
    resumed = StreamClock(max_ahead_s=60.0, now=T0, idle_s=3600.0)  # restarted after an hour down
    assert resumed.admit(T0 + 3000) == "" and resumed.now == T0 + 3000
    assert resumed.admit(YEAR_2038) == "stamp_ahead"  # a garbage stamp is still refused


def test_a_repeated_garbage_stamp_never_confirms_itself() -> None:
    clock = StreamClock(max_ahead_s=60.0, confirmations=3)
    clock.admit(T0)
    assert {clock.admit(YEAR_2038) for _ in range(10)} == {"stamp_ahead"}
    assert clock.now == T0


def test_scattered_outliers_never_confirm_each_other() -> None:
    clock = StreamClock(max_ahead_s=60.0, confirmations=2)
    clock.admit(T0)
    for outlier in (T0 + 1e6, T0 + 5e8, T0 + 1e6 + 2):  # each far from the one before: no new time
        assert clock.admit(outlier) == "stamp_ahead"
    assert clock.now == T0


@pytest.mark.parametrize("stamp", [math.nan, math.inf, -math.inf, -1.0])
def test_stamps_that_are_not_times_are_refused(stamp: float) -> None:
    clock = StreamClock(max_ahead_s=60.0, now=T0)
    assert clock.admit(stamp) == "bad_stamp" and clock.now == T0


def test_a_replayed_bag_takes_the_clock_back_once_its_stamps_agree() -> None:
    clock = StreamClock(max_ahead_s=60.0, now=T0 + 600)
    assert clock.admit(T0 + 599) == "" and clock.now == T0 + 600  # a late message
    assert [clock.admit(T0 + i * 0.5) for i in range(4)] == ["stamp_behind", "stamp_behind", "", ""]
    assert clock.now == T0 + 1.5


def test_one_stamp_far_behind_is_refused_and_the_clock_stays() -> None:
    clock = StreamClock(max_ahead_s=60.0, now=T0)
    assert clock.admit(0.0) == "stamp_behind"  # a driver that forgot to stamp
    assert clock.admit(T0 + 0.1) == "" and clock.now == T0 + 0.1


def test_a_first_zero_stamp_never_pins_the_clock() -> None:
    """A first frame stamped 0.0 (its header never filled in) used to become the stream's time, so every later,
    real stamp was refused as ahead of it."""
    clock = StreamClock(max_ahead_s=60.0)
    assert clock.admit(0.0) == "" and clock.now is None
    assert [clock.admit(T0 + i) for i in range(3)] == ["", "", ""] and clock.now == T0 + 2
    sim = StreamClock(max_ahead_s=60.0)  # sim time starts at zero and goes on from there
    assert [sim.admit(t) for t in (0.0, 0.1, 0.2)] == ["", "", ""] and sim.now == 0.2


# -- poses ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pose",
    [
        Pose("odom", math.nan, 0.0),
        Pose("odom", 1.0, math.inf),
        Pose("odom", 1e12, 0.0),
        Pose("odom", 1.0, 2.0, qw=math.inf),
        Pose("odom", 1.0, 2.0, qw=0.0),  # an all-zero quaternion: orientation never filled in
        Pose("odom", 1.0, 2.0, qx=3.0, qw=1.0),
        Pose("", 1.0, 2.0),
    ],
)
def test_poses_that_cannot_be_real_are_refused(pose: Pose) -> None:
    with pytest.raises(InputError) as refused:
        checked_pose(pose)
    assert refused.value.reason == "bad_pose"


def test_a_nearly_unit_quaternion_is_normalised() -> None:
    pose = checked_pose(Pose("map", 1.0, 2.0, qz=0.6, qw=0.84))
    assert math.isclose(math.hypot(pose.qz, pose.qw), 1.0) and (pose.x, pose.y) == (1.0, 2.0)


def test_a_poisoned_pose_is_refused_and_events_keep_closing(config: VidmemConfig, photos) -> None:  # type: ignore[no-untyped-def]
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    assert not pipeline.add_pose(T0, Pose("odom", math.nan, 0.0, qw=math.inf))
    assert pipeline.stats.snapshot().refused == {"pose_bad_pose": 1}
    views = list(photos.values())
    assert pipeline.ingest(FrameInput(T0, "/cam", DecodedImage(views[0]))) is not None
    for i in range(1, 40):  # poses arrive again; the view changes every 10 s, so events close
        assert pipeline.add_pose(T0 + i, Pose("odom", float(i), 0.0))
        view = np.roll(views[i // 10 % len(views)], (i % 10) * 30, axis=1)
        pipeline.ingest(FrameInput(T0 + i, "/cam", DecodedImage(view)))
    pipeline.finish()
    events = store.events()
    assert len(events) >= 2 and all(e.status == "closed" for e in events)
    assert store.moment(1, with_payload=False).pose is None  # kept, without a pose
    assert store.moment(2, with_payload=False).pose == Pose("odom", 1.0, 0.0)


# -- one frame stamped 2038 -----------------------------------------------------------------


def test_a_frame_stamped_2038_changes_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = load_config(
        overrides={
            "store.path": str(tmp_path / "memory.db"),
            "retention.period_s": 10.0,
            "retention.mid_after_s": 60.0,
            "ingest.sample_fps": 1.0,
        }
    )
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    for i in range(90):
        pipeline.ingest(FrameInput(T0 + i, "/cam", DecodedImage(noise_frame(i))))
    assert pipeline.ingest(FrameInput(YEAR_2038, "/cam", DecodedImage(noise_frame(999)))) is None
    for i in range(90, 180):
        pipeline.ingest(FrameInput(T0 + i, "/cam", DecodedImage(noise_frame(i))))
    assert pipeline.stats.snapshot().dropped.get("stamp_ahead") == 1
    with store.read() as db:
        tiers = dict(db.execute("SELECT tier, COUNT(*) FROM moments GROUP BY tier").fetchall())
        newest = db.execute("SELECT MAX(stamp) FROM moments").fetchone()[0]
        aged_after = db.execute("SELECT COUNT(*) FROM moments WHERE tier = 'mid' AND stamp >= ?", (T0 + 90,))
        aged_after_outlier = aged_after.fetchone()[0]
    assert newest == T0 + 179 and "long" not in tiers  # nothing was aged by a day
    assert aged_after_outlier > 0  # retention kept running after the outlier: frames since then aged too
    assert tiers["recent"] >= 55  # the last minute is still recent


def test_memory_reopened_after_an_old_outlier_keeps_its_clock(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A store written before intake refused such stamps may hold one: the engine's clock ignores it."""
    config = load_config(overrides={"store.path": str(tmp_path / "memory.db")})
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    for i in range(10):
        pipeline.ingest(FrameInput(T0 + i, "/cam", DecodedImage(noise_frame(i))))
    pipeline.finish()
    from vidmem_ros.memory.records import Moment

    store.add_moment(Moment(YEAR_2038, "/cam", 8, 8, None))
    store.close()
    reopened = IngestPipeline(config, SqliteStore(config.store_path()), None)
    assert reopened.engine.latest_stamp == T0 + 9
    assert reopened.ingest(FrameInput(T0 + 11, "/cam", DecodedImage(noise_frame(11)))) is not None


def test_memory_reopened_after_downtime_takes_the_first_live_frame(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A robot whose memory process was down for an hour resumes: its first frame, stamped an hour on, is kept
    (the wall time of the last stored frame says how long it was down); one a day on is still refused."""
    config = load_config(overrides={"store.path": str(tmp_path / "memory.db")})
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    for i in range(5):
        pipeline.ingest(FrameInput(T0 + i, "/cam", DecodedImage(noise_frame(i))))
    pipeline.finish()
    stored_at = pipeline.store.last_frame_wall()
    assert stored_at is not None and abs(stored_at - time.time()) < 60
    pipeline.store.set_meta("last_frame_wall", repr(stored_at - 3600))  # as if it was stored an hour ago
    pipeline.store.close()
    reopened = IngestPipeline(config, SqliteStore(config.store_path()), None)
    assert reopened.ingest(FrameInput(T0 + 86_400, "/cam", DecodedImage(noise_frame(6)))) is None
    assert reopened.ingest(FrameInput(T0 + 3_590, "/cam", DecodedImage(noise_frame(5)))) is not None
    assert reopened.stats.snapshot().dropped.get("stamp_ahead") == 1


# -- the working rate -----------------------------------------------------------------------


@pytest.mark.parametrize("jitter_s", [0.0, 0.01])
def test_the_rate_gate_keeps_the_configured_rate(jitter_s: float) -> None:
    """10 Hz camera stamps as ROS carries them (sec, nanosec), working rate 5 fps: one frame in two is kept."""
    gate = FrameGate(load_config().ingest.model_copy(update={"sample_fps": 5.0}))
    rng = np.random.default_rng(0)
    kept = 0
    for i in range(200):
        t = 1_750_000_123.4 + i * 0.1 + rng.uniform(-jitter_s, jitter_s)
        stamp = to_seconds(_Stamp(int(t), round((t - int(t)) * 1e9)))
        if gate.check_time(stamp):
            continue
        kept += gate.check_image(stamp, noise_frame(i, (48, 64))).keep
    assert 97 <= kept <= 101


class _Stamp:
    def __init__(self, sec: int, nanosec: int) -> None:
        self.sec, self.nanosec = sec, nanosec


# -- oversized frames -----------------------------------------------------------------------


def test_a_huge_raw_frame_is_downscaled_as_it_is_decoded() -> None:
    width, height = 6000, 5000
    data = np.zeros((height, width, 3), np.uint8)
    data[:, : width // 2] = (255, 0, 0)
    rgb = RawImage(memoryview(data.reshape(-1)), width, height, "rgb8", width * 3).decode(max_pixels=1_000_000)
    assert rgb.shape[0] * rgb.shape[1] <= 1_000_000 and rgb.shape[2] == 3
    assert tuple(rgb[0, 0]) == (255, 0, 0) and tuple(rgb[-1, -1]) == (0, 0, 0)


def test_a_huge_padded_bgr_frame_keeps_its_colours_when_downscaled() -> None:
    width, height, step = 3000, 2000, 3000 * 3 + 8
    rows = np.zeros((height, step), np.uint8)
    rows[:, 0 : width * 3 : 3] = 200  # blue in bgr8
    rgb = RawImage(rows.tobytes(), width, height, "bgr8", step).decode(max_pixels=500_000)
    assert rgb.shape[0] * rgb.shape[1] <= 500_000 and tuple(rgb[5, 5]) == (0, 0, 200)


def test_a_huge_jpeg_is_decoded_at_a_reduced_size() -> None:
    big = cv2.resize(noise_frame(3), (4000, 3000), interpolation=cv2.INTER_NEAREST)
    ok, jpeg = cv2.imencode(".jpg", big)
    assert ok
    rgb = CompressedImage(jpeg.tobytes(), "jpeg").decode(max_pixels=2_000_000)
    assert rgb.shape[0] * rgb.shape[1] <= 2_000_000


def test_a_compressed_frame_claiming_billions_of_pixels_is_refused_undecoded() -> None:
    with pytest.raises(InputError) as refused:
        CompressedImage(_png_claiming(60000, 60000), "png").decode(max_pixels=1_000_000)
    assert refused.value.reason == "oversized"


def _png_claiming(width: int, height: int) -> bytes:
    """A valid 1x1 PNG whose header (with its checksum) claims another size."""
    ok, png = cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))
    assert ok
    data = bytearray(png.tobytes())
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


def test_oversized_frames_enter_the_queue_small(config: VidmemConfig) -> None:
    config = config.model_copy(update={"ingest": config.ingest.model_copy(update={"max_pixels": 200_000})})
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    worker = IngestWorker(pipeline, capacity=4)
    with pipeline.engine._lock:  # hold the worker so the frame stays queued
        raw = np.zeros((2000, 3000, 3), np.uint8).reshape(-1)
        worker.submit(FrameInput(T0, "/cam", RawImage(raw, 3000, 2000, "rgb8", 9000)))
        queued = list(worker._queue) or []
    worker.wait_idle(10.0)
    worker.stop()
    for frame in queued:  # the worker may already have taken it: then it was small as well
        assert isinstance(frame.image, DecodedImage) and frame.image.rgb.size <= 3 * 200_000


# -- the queue ------------------------------------------------------------------------------


def test_the_queue_holds_at_most_its_age_of_stream(config: VidmemConfig) -> None:
    """Under overload a kill loses at most queue_max_age_s of accepted frames, not the whole queue."""
    config = config.model_copy(
        update={"ingest": config.ingest.model_copy(update={"queue_max_age_s": 1.0, "sample_fps": 5.0})}
    )
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    worker = IngestWorker(pipeline, capacity=64)
    with pipeline.engine._lock:  # the worker is stuck on its first frame: everything else waits
        for i in range(50):  # 5 s of a 10 Hz stream
            worker.submit(FrameInput(T0 + i * 0.1, "/cam", DecodedImage(noise_frame(i, (48, 64)))))
        waiting = [frame.stamp for frame in worker._queue]
    worker.wait_idle(30.0)
    worker.stop()
    assert waiting and waiting[-1] - waiting[0] <= 1.0
    assert pipeline.stats.snapshot().dropped["queue_stale"] > 0


def test_frames_seconds_apart_are_not_stale_for_their_stamp_gap(config: VidmemConfig) -> None:
    """A sparse camera (or a bag played fast): frames 2 s apart, each one due at the working rate, wait behind a
    busy worker without being dropped for the gap between their stamps."""
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    worker = IngestWorker(pipeline, capacity=16)
    with pipeline.engine._lock:  # the worker is stuck on its first frame
        worker.submit(FrameInput(T0, "/cam", DecodedImage(noise_frame(0, (48, 64)))))
        while worker._queue:  # until the worker has taken it
            time.sleep(0.01)
        for i in (1, 2):
            worker.submit(FrameInput(T0 + 2 * i, "/cam", DecodedImage(noise_frame(i, (48, 64)))))
    assert worker.wait_idle(30.0)
    worker.stop()
    assert "queue_stale" not in pipeline.stats.snapshot().dropped
    assert [m.stamp for m in pipeline.store.moments(T0 - 1, T0 + 10)] == [T0, T0 + 2, T0 + 4]


def test_garbage_with_a_size_limit_is_still_a_decode_error() -> None:
    with pytest.raises(InputError) as refused:
        CompressedImage(b"not an image", "jpeg").decode(max_pixels=1000)
    assert refused.value.reason == "decode_error"


def test_frames_held_while_models_loaded_are_all_worked_through_in_order(config: VidmemConfig) -> None:
    """A backlog spans more than queue_max_age_s, yet none of it is dropped for age, nor live frames behind it."""
    config = config.model_copy(update={"ingest": config.ingest.model_copy(update={"sample_fps": 2.0})})
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    worker = IngestWorker(pipeline, capacity=8)
    with pipeline.engine._lock:  # the worker cannot finish a frame yet
        with worker.backlog():
            for i in range(6):  # 3 s of stream held at the working rate
                worker.submit(FrameInput(T0 + i * 0.5, "/cam", DecodedImage(noise_frame(i, (48, 64)))))
        for i in range(6, 9):  # live frames after it
            worker.submit(FrameInput(T0 + i * 0.5, "/cam", DecodedImage(noise_frame(i, (48, 64)))))
    assert worker.wait_idle(30.0)
    worker.stop()
    snap = pipeline.stats.snapshot()
    assert "queue_stale" not in snap.dropped and "queue_full" not in snap.dropped, snap.dropped
    stamps = [m.stamp for m in pipeline.store.moments(T0 - 1, T0 + 10)]
    assert stamps == sorted(stamps) and len(stamps) == 9


@pytest.mark.parametrize(
    "bad",
    [
        lambda: _compressed(b"", "jpeg"),
        lambda: _compressed(bytes(range(256)) * 4, "jpeg"),  # opens with no image signature
        lambda: _raw(width=64, height=48, step=10),
        lambda: _raw(width=64, height=48, step=192, encoding="yuv9"),
    ],
)
def test_a_message_that_cannot_be_an_image_never_takes_the_rate_gates_slot(config: VidmemConfig, bad) -> None:  # type: ignore[no-untyped-def]
    from vidmem_ros.ingest.intake import SensorIntake

    config = config.model_copy(update={"ingest": config.ingest.model_copy(update={"sample_fps": 1.0})})
    pipeline = IngestPipeline(config, SqliteStore(config.store_path()), None)
    worker = IngestWorker(pipeline, capacity=8)
    intake = SensorIntake(pipeline, worker.submit)
    _, jpeg = cv2.imencode(".jpg", noise_frame(3))
    first = _compressed(jpeg.tobytes(), "jpeg")
    intake.compressed(first, "/cam/compressed")
    assert worker.wait_idle(30.0)  # kept before the next frames come, which are 2 s later
    msg = bad()
    msg.header.stamp.sec, msg.header.stamp.nanosec = int(T0) + 2, 0
    (intake.compressed if hasattr(msg, "format") else intake.image)(msg, "/cam")
    good = _compressed(cv2.imencode(".jpg", noise_frame(4))[1].tobytes(), "jpeg")
    good.header.stamp.sec, good.header.stamp.nanosec = int(T0) + 2, 10_000_000  # 10 ms after the bad one
    intake.compressed(good, "/cam/compressed")
    assert worker.wait_idle(30.0)
    worker.stop()
    assert pipeline.stats.snapshot().kept == 2, pipeline.stats.snapshot().dropped


def _compressed(data: bytes, fmt: str):  # type: ignore[no-untyped-def]
    from sensor_msgs.msg import CompressedImage as CompressedMsg

    msg = CompressedMsg(format=fmt, data=data)
    msg.header.stamp.sec = int(T0)
    return msg


def _raw(width: int, height: int, step: int, encoding: str = "rgb8"):  # type: ignore[no-untyped-def]
    from sensor_msgs.msg import Image as ImageMsg

    return ImageMsg(width=width, height=height, step=step, encoding=encoding, data=bytes(step * height))
