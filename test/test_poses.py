"""A frame's pose from the samples around its stamp, and the robot's path kept in the store."""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from vidmem_ros.config import VidmemConfig
from vidmem_ros.ingest.poses import TRACK_BATCH_S, PoseBuffer
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.forget import forget
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.store import SqliteStore

T0 = 1_750_000_000.0


def yawed(x: float, yaw_deg: float, frame: str = "map") -> Pose:
    half = math.radians(yaw_deg) / 2
    return Pose(frame, x, 0.0, 0.0, 0.0, 0.0, math.sin(half), math.cos(half))


def yaw_deg(pose: Pose) -> float:
    return math.degrees(2 * math.atan2(pose.qz, pose.qw))


def test_a_frame_between_two_samples_gets_the_pose_between_them() -> None:
    poses = PoseBuffer()
    poses.add(T0, yawed(0.0, 0.0))
    poses.add(T0 + 1.0, yawed(1.0, 90.0))
    pose = poses.at(T0 + 0.25, max_age_s=1.0)
    assert pose is not None
    assert pose.x == pytest.approx(0.25, abs=1e-5)
    assert yaw_deg(pose) == pytest.approx(22.5, abs=1e-3)
    assert math.hypot(pose.qx, pose.qy, pose.qz, pose.qw) == pytest.approx(1.0)
    assert poses.at(T0 + 1.0, max_age_s=1.0) == yawed(1.0, 90.0)  # on a sample: that sample
    poses.add(T0 + 2.0, yawed(50.0, 0.0, frame="odom"))  # the source switched frames
    assert poses.at(T0 + 1.2, max_age_s=1.0) == yawed(1.0, 90.0)  # never a pose between two frames


def test_orientation_turns_the_short_way_whatever_the_quaternions_sign() -> None:
    poses = PoseBuffer()
    poses.add(T0, yawed(0.0, 170.0))
    poses.add(T0 + 1.0, yawed(0.0, -170.0))  # 20 degrees on, across +-180
    pose = poses.at(T0 + 0.5, max_age_s=1.0)
    assert pose is not None
    assert abs(yaw_deg(pose)) == pytest.approx(180.0)


def test_a_late_sample_takes_its_place_instead_of_emptying_the_buffer() -> None:
    poses = PoseBuffer()
    for t, x in ((0.0, 0.0), (1.0, 1.0), (0.5, 0.5)):  # 0.5 arrives last
        poses.add(T0 + t, yawed(x, 0.0))
    assert len(poses) == 3
    pose = poses.at(T0 + 0.75, max_age_s=1.0)
    assert pose is not None and pose.x == pytest.approx(0.75, abs=1e-5)


def test_no_pose_when_the_nearest_sample_is_older_than_the_age_limit() -> None:
    poses = PoseBuffer()
    poses.add(T0, yawed(0.0, 0.0))
    poses.add(T0 + 10.0, yawed(10.0, 0.0))
    assert poses.at(T0 + 5.0, max_age_s=1.0) is None  # a gap in odometry: both sides 5 s away
    near_end = poses.at(T0 + 9.5, max_age_s=1.0)  # one side near enough: the pose between them
    assert near_end is not None and near_end.x == pytest.approx(9.5, abs=1e-5)
    assert poses.at(T0 + 11.5, max_age_s=1.0) is None  # never extrapolated past the age limit
    held = poses.at(T0 + 10.5, max_age_s=1.0)
    assert held is not None and held.x == 10.0  # within it, the last sample holds


def test_a_frame_waits_for_the_sample_after_it_from_another_thread() -> None:
    poses = PoseBuffer()
    first = threading.Event()

    def odometry() -> None:
        poses.add(T0, yawed(0.0, 0.0))
        first.set()
        time.sleep(0.2)  # the frame is being looked up meanwhile
        poses.add(T0 + 0.2, yawed(0.2, 0.0))

    feeder = threading.Thread(target=odometry)
    feeder.start()
    first.wait()
    pose = poses.at(T0 + 0.1, max_age_s=1.0, wait_s=30.0)
    feeder.join()
    assert pose is not None and pose.x == pytest.approx(0.1, abs=1e-5)  # interpolated, not the sample before held
    held = poses.at(T0 + 0.3, max_age_s=1.0, wait_s=0.05)  # no later sample comes: the wait ends
    assert held is not None and held.x == pytest.approx(0.2, abs=1e-5)  # and the last sample holds


# -- the pose track in the store ---------------------------------------------------------------


def drive(pipeline: IngestPipeline, start: float, seconds: float, hz: float, speed: float, x0: float = 0.0) -> None:
    """Odometry at ``hz`` for ``seconds``: along x from ``x0`` at ``speed`` metres per second."""
    for i in range(round(seconds * hz)):
        assert pipeline.add_pose(start + i / hz, yawed(x0 + speed * i / hz, 0.0))


def test_the_track_keeps_a_sample_per_period_moving_and_few_standing_still(config: VidmemConfig) -> None:
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    drive(pipeline, T0, 20.0, hz=30.0, speed=1.0)  # 600 samples, 1 m/s
    drive(pipeline, T0 + 20.0, 40.0, hz=30.0, speed=0.0, x0=20.0)  # then 1200 standing
    pipeline.finish()
    moving = store.pose_track(T0, T0 + 19.99)
    assert len(moving) == 40  # one per 0.5 s
    assert all(pose.x == pytest.approx(t - T0) for t, pose in moving)
    still = store.pose_track(T0 + 20.0, T0 + 60.0)
    assert [round(t - T0) for t, _ in still] == [20, 30, 40, 50]  # one per 10 s


def test_the_track_samples_once_moved_or_turned_enough(config: VidmemConfig) -> None:
    config.ingest.pose_track_period_s = 0.0
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    drive(pipeline, T0, 2.0, hz=30.0, speed=0.55)  # 0.11 m every 6 samples (0.2 s)
    for i in range(30):  # then turning on the spot where the last sample was kept, 1.1 degrees a sample
        pipeline.add_pose(T0 + 2.0 + i / 30, yawed(0.55 * 54 / 30, 1.1 * i))
    pipeline.finish()
    track = store.pose_track(T0, T0 + 3.0)
    moved = [t - T0 for t, _ in track if t < T0 + 2.0]
    assert moved == pytest.approx([0.2 * i for i in range(10)], abs=1e-6)
    turned = [yaw_deg(p) for t, p in track if t >= T0 + 2.0]
    assert turned == pytest.approx([5.5, 11.0, 16.5, 22.0, 27.5])


def test_the_track_reaches_the_store_in_batches_and_all_of_it_at_finish(config: VidmemConfig) -> None:
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    reader = SqliteStore(config.store_path(), readonly=True)
    drive(pipeline, T0, TRACK_BATCH_S - 1.0, hz=30.0, speed=1.0)
    assert reader.pose_track(T0, T0 + 100) == []  # not one transaction per message
    drive(pipeline, T0 + TRACK_BATCH_S - 1.0, 3.0, hz=30.0, speed=1.0)
    written = reader.pose_track(T0, T0 + 100)
    assert written and written[-1][0] >= T0 + TRACK_BATCH_S
    pipeline.finish()
    assert len(reader.pose_track(T0, T0 + 100)) > len(written)


def test_the_track_honours_as_of_and_forget_removes_it_in_the_range(config: VidmemConfig) -> None:
    store = SqliteStore(config.store_path())
    pipeline = IngestPipeline(config, store, None)
    drive(pipeline, T0, 20.0, hz=10.0, speed=1.0)
    pipeline.finish()
    assert [t - T0 for t, _ in store.pose_track(T0, T0 + 20, as_of=T0 + 2.0)] == [0.0, 0.5, 1.0, 1.5, 2.0]
    forget(pipeline.engine.archive, T0 + 5.0, T0 + 10.0)
    left = [t - T0 for t, _ in store.pose_track(T0, T0 + 20)]
    assert 4.5 in left and 10.5 in left and not [t for t in left if 5.0 <= t <= 10.0]


def test_a_store_from_before_the_track_gets_it_on_open_and_bad_rows_read_as_nothing(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    SqliteStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE pose_track")
    assert SqliteStore(path, readonly=True).pose_track(T0, T0 + 1) == []  # read-only: nothing to read yet
    store = SqliteStore(path)
    store.add_pose_track([(T0, yawed(1.0, 0.0)), (T0 + 1, yawed(2.0, 0.0))])
    with store.write() as db:
        db.execute("UPDATE pose_track SET qw = 7 WHERE stamp = ?", (T0 + 1,))  # not a unit quaternion
    assert store.pose_track(T0, T0 + 1) == [(T0, yawed(1.0, 0.0))]


def test_the_pose_at_a_moment_is_read_along_the_stored_path(config: VidmemConfig) -> None:
    store = SqliteStore(config.store_path())
    pose_at = MemoryReader(store).pose_at
    store.add_pose_track([(T0, yawed(0.0, 0.0)), (T0 + 4.0, yawed(4.0, 40.0)), (T0 + 30.0, yawed(9.0, 0.0))])
    between = pose_at(T0 + 1.0)
    assert between is not None and between.x == pytest.approx(1.0) and yaw_deg(between) == pytest.approx(10.0)
    assert pose_at(T0 + 8.0).x == pytest.approx(4.0)  # type: ignore[union-attr]  # the last sample near
    assert pose_at(T0 + 1.0, as_of=T0 + 2.0).x == 0.0  # type: ignore[union-attr]  # nothing after as_of
    assert pose_at(T0 + 100.0) is None  # no sample and no kept frame near
    store.close()
