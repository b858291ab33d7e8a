"""The ingest node sends its memory on to the fleet store while it runs, and what it committed last at stop."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import rclpy
from ros_robot import Robot

from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.fleet.milvus import MilvusFleetStore
from vidmem_ros.fleet.records import FleetScope
from vidmem_ros.perception.embedding import ColorLayoutEmbedder

pytestmark = pytest.mark.ros
NAMESPACE = "/robot1"
T0 = 1_764_000_000.0


def test_the_ingest_node_sends_what_it_keeps_to_the_fleet_store(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    fleet_uri = tmp_path / "fleet.db"
    options = NodeOptions(
        store=str(tmp_path / "memory.db"),
        camera="/test_cam/image_raw",
        namespace=NAMESPACE,
        params={"fleet.uri": str(fleet_uri), "fleet.robot_id": "robot7", "fleet.sync_period_s": 0.5},
    )
    procs = [start_node(w, options, os.environ, str(tmp_path / f"{w}.log")) for w in ("ingest", "query")]
    rclpy.init()
    node = rclpy.create_node("vidmem_test_fleet")
    try:
        robot = Robot(node)
        robot.wait_connected()
        for i, name in enumerate(["coffee", "chelsea", "astronaut"]):
            robot.send_at(photos[name], T0 + 5 * i, 1.0 + i, 2.0)
        robot.kept_at_least(3)
        # The query node opens the embedded fleet store between the sync's rounds (one process at a time).
        deadline = time.monotonic() + 60
        while True:
            answer = robot.ask_fresh("Which robot saw a cup?", 120.0, 60.0, scope="fleet")
            if answer.evidence or time.monotonic() > deadline:
                break
            time.sleep(1.0)  # the event with the cup is sent once it is closed and the next round runs
        assert answer.success, answer.error
        assert answer.answer.startswith("robot7 ") and answer.evidence[0].robot == "robot7"
        assert answer.has_answer_pose and answer.answer_pose.header.frame_id == "map"
        solo = robot.client.ask("Which robot saw a cup?", timeout_s=60.0, scope="fleet", robots=["robot8"])
        assert solo.success and not solo.evidence
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)  # the node's last round sends the last event
    log = (tmp_path / "ingest.log").read_text()
    assert "fleet sync paused" not in log, log
    fleet = MilvusFleetStore(str(fleet_uri), ColorLayoutEmbedder().dim, 384)
    assert fleet.counts("robot7")["moments"] == 3
    events = fleet.search_text("cat", None, 5, FleetScope(robots=["robot7"], kinds=["event"]))
    assert events and events[0].robot == "robot7" and events[0].x is not None
