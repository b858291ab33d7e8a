"""Real nodes over DDS: a poisoned pose, then valid frames, a restart (frames sent while its models load are kept),
and a question answered with a pose."""

from __future__ import annotations

import math
import os
import re
import time
from pathlib import Path

import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from nav_msgs.msg import Odometry
from ros_robot import CAMERA, NAMESPACE, Robot, image_msg

from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.ros.convert import to_time

pytestmark = pytest.mark.ros
T0 = 1_765_000_000.0
YEAR_2038 = 2147483647.0


def odometry(stamp: float, x: float, w: float = 1.0) -> Odometry:
    msg = Odometry()
    msg.header.stamp, msg.header.frame_id = to_time(stamp), "odom"
    msg.pose.pose.position.x, msg.pose.pose.orientation.w = x, w
    return msg


def test_a_poisoned_pose_leaves_memory_that_restarts_closes_events_and_answers_with_poses(
    tmp_path: Path,
    photos,  # type: ignore[no-untyped-def]
) -> None:
    store = tmp_path / "memory.db"
    options = NodeOptions(store=str(store), camera=CAMERA, namespace=NAMESPACE, params={"segment.min_event_s": 2.0})

    def start() -> list:  # type: ignore[type-arg]
        return [start_node(w, options, os.environ, str(tmp_path / f"{w}.log")) for w in ("ingest", "query")]

    procs = start()
    rclpy.init()
    node = rclpy.create_node("vidmem_test_faults")
    try:
        robot = Robot(node)
        statuses: list[DiagnosticStatus] = []
        node.create_subscription(DiagnosticArray, "/diagnostics", lambda m: statuses.extend(m.status), 10)
        robot.wait_connected()
        poisoned = odometry(T0, math.nan, w=math.inf)
        poisoned.pose.pose.position.y = math.inf
        # Sent again until counted: the publisher can see the node's subscription before the node has matched it.
        sent = 0
        for _ in range(20):
            robot.odom.publish(poisoned)
            sent += 1
            if robot.client.wait_for_stats(lambda s: "pose_bad_pose" in s.drop_reasons, 1.5) is not None:
                break
        views = ["coffee", "chelsea", "astronaut", "stereo_motorcycle"]
        for i, name in enumerate(views):  # a new view every 5 s: events open and close
            robot.odom.publish(odometry(T0 + 5 * i, x=float(i)))
            time.sleep(0.2)
            robot.send(image_msg(photos[name], T0 + 5 * i))
        robot.send(image_msg(photos["brick"], YEAR_2038))  # a valid frame with a garbage stamp
        robot.kept_at_least(len(views))
        stats = robot.client.wait_for_stats(lambda s: "stamp_ahead" in s.drop_reasons, 10.0)
        assert stats is not None, robot.client.stats()
        drops = dict(zip(stats.drop_reasons, stats.drop_counts, strict=True))
        assert 1 <= drops.get("pose_bad_pose", 0) <= sent and drops.get("stamp_ahead") == 1, drops
        deadline = time.monotonic() + 10
        while not any("refus" in s.message for s in statuses) and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.2)
        ours = [s for s in statuses if s.name.startswith(f"{NAMESPACE}/vidmem_ingest")]
        assert any(s.level == DiagnosticStatus.WARN and "refus" in s.message for s in ours), [s.message for s in ours]

        stop_processes(procs)
        procs = start()  # the store holds what the poisoned run wrote; the node must start on it
        deadline = time.monotonic() + 60
        while not (robot.raw.get_subscription_count() and robot.odom.get_subscription_count()):
            assert time.monotonic() < deadline, "the restarted node did not subscribe"
            time.sleep(0.05)
        time.sleep(1.0)  # discovery settles on the node's side too (a sample sent at the first match may be lost)
        # Sent as soon as the node subscribes, while its models still load: held, then ingested.
        for i, name in enumerate(["coffee", "chelsea"], start=len(views)):
            robot.odom.publish(odometry(T0 + 5 * i, x=float(i)))
            time.sleep(0.2)
            robot.raw.publish(image_msg(photos[name], T0 + 5 * i))
            time.sleep(0.3)
        robot.wait_connected()
        robot.client.clear_stats()  # the counts of the process that was stopped
        robot.kept_at_least(2)
        held = [int(m[1]) for s in statuses if (m := re.search(r"(\d+) messages held until", s.message))]
        # How many of the four arrive before the models are ready depends on how fast they load (a warm page cache
        # loads them in about a second): some must have been held, and none lost (both frames kept, the pose used).
        assert max(held, default=0) >= 1, "the frames and poses sent while the models loaded were not held"
        cat = robot.client.ask("Where did you see the cat?")
        assert cat.answer.startswith("I last saw cat") and cat.has_answer_pose, cat.answer
        assert cat.answer_pose.pose.position.x == pytest.approx(5.0)
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)
    memory = SqliteStore(store, readonly=True)
    try:
        events = memory.events()
        assert len(events) >= 2 and all(e.status == "closed" for e in events)
        assert all(m.stamp < YEAR_2038 for m in memory.moments(0, math.inf))
        assert memory.integrity_ok()
    finally:
        memory.close()
