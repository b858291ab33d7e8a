"""Poses under load, over DDS with the real ingest node and the cpu profile's models.

A live camera at 5 Hz shows a new view every frame (so frames are kept and the
models work on each), while odometry carries the camera's stamps: at 5 Hz for
the first half, at 30 Hz for the second.  As in the run that found poses going
missing, a flood of malformed messages of every subscribed type (150 a second:
images, compressed images, odometry with a NaN position or an old stamp) goes
on meanwhile.  The robot drives along x at 1 m/s, so a stored pose that is d
metres off is a pose d seconds off the frame's stamp.  Then Ctrl-C: the last
event is closed and published while ROS is still up.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
import rclpy
from nav_msgs.msg import Odometry
from rclpy.node import Node
from ros_robot import image_msg, odom_msg
from sensor_msgs.msg import CompressedImage, Image
from vidmem_ros.msg import Event as EventMsg

from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.memory.records import Moment
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.ros.client import MemoryClient
from vidmem_ros.ros.convert import to_time

pytestmark = pytest.mark.ros
NAMESPACE = "/poses_robot"
CAMERA = "/poses_cam/image_raw"
ODOM = "/poses_odom"
T0 = 1_760_000_000.0
SPEED = 1.0  # m/s along x
CAMERA_HZ = 5
PHASES = ((5, 0.0, 8.0), (30, 8.0, 16.0))  # odometry rate, and the stretch of stream (s after T0) it covers
TICK_HZ = 30  # the stream is played in ticks of the fastest rate
TOLERANCE_S = 0.25


def x_at(stamp: float) -> float:
    return SPEED * (stamp - T0)


@dataclass
class Run:
    moments: list[Moment]
    track: list[tuple[float, float]]  # (stamp, x) of the stored pose track
    events_published: list[EventMsg]
    event_ids_stored: list[int]
    log: str


class Stream:
    """The test's robot: camera, odometry and a flood of malformed messages on the node's topics."""

    def __init__(self, node: Node, views: list[np.ndarray]) -> None:
        self.views = views
        self.camera = node.create_publisher(Image, CAMERA, 10)
        self.compressed = node.create_publisher(CompressedImage, CAMERA + "/compressed", 10)
        self.odom = node.create_publisher(Odometry, ODOM, 50)
        self.flood = list(_malformed())

    def connected(self) -> bool:
        return all(p.get_subscription_count() for p in (self.camera, self.compressed, self.odom))

    def play(self) -> int:
        """Play the stream in real time, each tick the camera first (when due), then odometry; returns the valid
        frames sent."""
        start, frames, flood = time.monotonic(), 0, itertools.cycle(self.flood)
        for tick in range(round(PHASES[-1][2] * TICK_HZ)):
            t = tick / TICK_HZ
            odom_hz = next(hz for hz, begin, end in PHASES if begin <= t < end)
            time.sleep(max(0.0, start + t - time.monotonic()))
            if tick % (TICK_HZ // CAMERA_HZ) == 0:
                self.camera.publish(image_msg(self.views[frames % len(self.views)], T0 + t))
                frames += 1
            if tick % (TICK_HZ // odom_hz) == 0:
                self.odom.publish(odom_msg(T0 + t, x=x_at(T0 + t), y=0.0))
            for _ in range(len(self.flood)):
                self._publish(next(flood))
        return frames

    def _publish(self, msg: Image | CompressedImage | Odometry) -> None:
        publisher = {Image: self.camera, CompressedImage: self.compressed, Odometry: self.odom}[type(msg)]
        publisher.publish(msg)


def _malformed() -> Iterator[Image | CompressedImage | Odometry]:
    """One tick's flood: a row step too short, bytes that are no JPEG, a NaN position, a long-gone stamp."""
    yield Image(height=48, width=64, encoding="rgb8", step=10, data=bytes(480))
    yield Image(height=48, width=64, encoding="hsv8", step=192, data=bytes(48 * 192))
    yield CompressedImage(format="jpeg", data=bytes(range(100)))
    nan = odom_msg(T0, x=math.nan, y=0.0)
    nan.header.stamp = to_time(T0 + 100.0)
    yield nan
    yield odom_msg(1.0, x=-1.0, y=0.0)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, photos: dict[str, np.ndarray]) -> Iterator[Run]:
    workdir = tmp_path_factory.mktemp("poses")
    store = workdir / "memory.db"
    options = NodeOptions(
        store=str(store),
        camera=CAMERA,
        transport="both",
        odom=ODOM,
        namespace=NAMESPACE,
        params={"ingest.sample_fps": float(CAMERA_HZ)},
    )
    log = workdir / "ingest.log"
    procs = [start_node("ingest", options, os.environ, str(log))]
    rclpy.init()
    node = rclpy.create_node("vidmem_test_poses")
    try:
        client = MemoryClient(node, NAMESPACE)
        stream = Stream(node, list(photos.values()))
        _wait_connected(client, stream)
        frames = stream.play()
        assert client.wait_until_idle(frames, timeout_s=120.0) is not None, "the node did not drain its queue"
        stop_processes(procs, grace_s=120.0)  # Ctrl-C, as an operator would
        client.wait_for_events(10_000, timeout_s=3.0)  # whatever was published on the way out
        memory = SqliteStore(store, readonly=True)
        yield Run(
            moments=memory.moments(T0 - 1, T0 + 100, limit=10_000),
            track=[(t, pose.x) for t, pose in memory.pose_track(T0 - 1, T0 + 100)],
            events_published=list(client.events),
            event_ids_stored=[e.id for e in memory.events()],
            log=log.read_text(errors="replace"),
        )
    finally:
        stop_processes(procs)
        node.destroy_node()
        rclpy.shutdown()


def _wait_connected(client: MemoryClient, stream: Stream, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if stream.connected() and client.stats():
            return
        rclpy.spin_once(client.node, timeout_sec=0.2)
    raise TimeoutError("the ingest node did not connect")


@pytest.mark.parametrize(("odom_hz", "begin", "end"), PHASES)
def test_kept_frames_carry_the_pose_at_their_stamp_with_odometry_at(
    run: Run, odom_hz: int, begin: float, end: float
) -> None:
    kept = [m for m in run.moments if T0 + begin <= m.stamp < T0 + end]
    off_s = [abs(m.pose.x - x_at(m.stamp)) / SPEED if m.pose is not None else float("inf") for m in kept]
    good = sum(off <= TOLERANCE_S for off in off_s)
    print(
        f"odometry {odom_hz} Hz: {good} of {len(kept)} kept frames carry a pose within {TOLERANCE_S} s "
        f"(no pose: {off_s.count(float('inf'))}, worst {max(off_s, default=0):.3f} s)"
    )
    assert len(kept) >= 5, "too few frames were kept to judge"
    assert good >= 0.95 * len(kept)


def test_the_path_is_stored_downsampled(run: Run) -> None:
    stamps = [t for t, _ in run.track]
    assert stamps[0] == pytest.approx(T0, abs=0.2) and stamps[-1] >= T0 + PHASES[-1][2] - 1.0
    assert all(later - earlier >= 0.5 - 1e-3 for earlier, later in itertools.pairwise(stamps))  # one per 0.5 s at most
    assert len(stamps) >= 0.8 * PHASES[-1][2] / 0.5
    assert all(x == pytest.approx(x_at(t), abs=1e-3) for t, x in run.track)


def test_ctrl_c_closes_the_last_event_and_publishes_it_while_ros_is_up(run: Run) -> None:
    assert run.event_ids_stored, "no event was stored"
    assert sorted(int(e.id) for e in run.events_published) == sorted(run.event_ids_stored)
    assert "listener failed" not in run.log and "context is invalid" not in run.log, run.log[-2000:]
