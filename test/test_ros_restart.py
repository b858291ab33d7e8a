"""Real nodes: a PoseStamped pose source, /diagnostics, and a restart that keeps memory."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from ros_robot import Robot, image_msg, refused_start

from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.ros.convert import to_time

pytestmark = pytest.mark.ros
NAMESPACE = "/robot1"
T0 = 1_760_000_000.0


def pose_msg(stamp: float, x: float) -> PoseStamped:
    msg = PoseStamped()
    msg.header.stamp = to_time(stamp)
    msg.header.frame_id = "map"
    msg.pose.position.x, msg.pose.orientation.w = x, 1.0
    return msg


def test_restarted_nodes_answer_about_what_they_saw_before(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    options = NodeOptions(
        store=str(tmp_path / "memory.db"),
        camera="/test_cam/image_raw",
        pose="/localisation/pose",
        namespace=NAMESPACE,
        params={"ingest.pose_source": "pose"},
    )

    def start() -> list:  # type: ignore[type-arg]
        return [start_node(w, options, os.environ, str(tmp_path / f"{w}.log")) for w in ("ingest", "query")]

    procs = start()
    rclpy.init()
    node = rclpy.create_node("vidmem_test_restart")
    try:
        robot = Robot(node)
        poses = node.create_publisher(PoseStamped, "/localisation/pose", 50)
        statuses: list[DiagnosticStatus] = []
        node.create_subscription(DiagnosticArray, "/diagnostics", lambda m: statuses.extend(m.status), 10)
        robot.wait_connected(pose=poses)
        assert robot.compressed.get_subscription_count() == 0  # one camera transport: raw, the default
        for i, name in enumerate(["coffee", "chelsea", "astronaut"]):
            poses.publish(pose_msg(T0 + 10 * i, x=5.0 + i))
            time.sleep(0.2)
            robot.send(image_msg(photos[name], T0 + 10 * i))
        robot.kept_at_least(3)
        deadline = time.monotonic() + 10

        def ingesting() -> list[DiagnosticStatus]:  # not the "starting" status sent while the models loaded
            return [s for s in statuses if s.name.startswith(f"{NAMESPACE}/vidmem_ingest") and s.values]

        while not ingesting() and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.2)
        ours = ingesting()
        assert ours and ours[-1].level == DiagnosticStatus.OK, [s.message for s in statuses]
        assert {v.key for v in ours[-1].values} >= {"frames_kept", "queue_depth", "disk_used_mb"}

        stop_processes(procs)
        procs = start()
        robot.wait_connected(pose=poses)
        # The restarted query node answers once its models are loaded, which on a busy 2-core machine (both
        # nodes loading at once) can take longer than a question's usual bound.
        cat = robot.ask_fresh("Where did you see the cat?")
        assert cat.answer.startswith("I last saw cat") and cat.has_answer_pose
        assert cat.answer_pose.pose.position.x == pytest.approx(6.0)
        assert cat.answer_pose.header.frame_id == "map"
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)


def test_tf_poses_without_tf2_installed_stop_the_node_with_the_setting_named(tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("tf2_ros") is not None:
        pytest.skip("tf2_ros is installed here; this checks the message for installs without it")
    options = NodeOptions(store=str(tmp_path / "m.db"), params={"ingest.tf_frame": "map"})
    log = refused_start("ingest", options, tmp_path / "ingest.log")
    assert "ingest.tf_frame" in log and "tf2_ros" in log
