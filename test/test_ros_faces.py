"""Faces through the real nodes over DDS: the ingest node (``face.backend: dlib``) finds and embeds the faces in
camera frames it is sent, and the query node answers who was seen where from them."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
import rclpy
from ros_robot import CAMERA, NAMESPACE, Robot, image_msg, odom_msg

from vidmem_dev.faces import stream
from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.store import SqliteStore

pytestmark = pytest.mark.ros
T0 = 1_770_000_000.0
# Who is in view where: the astronaut at two places, another person at one between them.
VISITS = [("astronaut", "coffee", 4), ("lfw0", "brick", 4), ("astronaut", "chelsea", 4)]
PLACES = {"coffee": 0.0, "brick": 10.0, "chelsea": 20.0}


@pytest.fixture(scope="module")
def robot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Robot, str]]:
    workdir = tmp_path_factory.mktemp("faces")
    store = str(workdir / "memory.db")
    params = {"face.backend": "dlib", "query.parser": "rules", "ingest.sample_fps": 2.0}
    options = NodeOptions(store=store, camera=CAMERA, namespace=NAMESPACE, params=params)
    procs = [start_node(w, options, os.environ, str(workdir / f"{w}.log")) for w in ("ingest", "query")]
    rclpy.init()
    node = rclpy.create_node("vidmem_faces_robot")
    try:
        r = Robot(node)
        r.wait_connected()
        yield r, store
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)


def test_people_seen_in_camera_frames_are_answered_over_the_services(robot: tuple[Robot, str]) -> None:
    r, store = robot
    shots = stream(VISITS, period_s=1.0)
    for shot in shots:
        r.odom.publish(odom_msg(T0 + shot.stamp, x=PLACES[shot.place], y=0.0))
        time.sleep(0.1)
        r.send(image_msg(shot.frame, T0 + shot.stamp))
    r.kept_at_least(6, timeout_s=60.0)
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline and len(MemoryReader(SqliteStore(store, readonly=True)).people()) < 2:
        time.sleep(1.0)
    met = r.ask_fresh("How many different people did you see?")
    assert met.success and "saw 2 different people" in met.answer, met.answer
    same = r.client.ask("Was the person you saw at (0, 0) the same one you saw at (20, 0)?", timeout_s=60)
    assert same.success and same.answer.lower().startswith("yes"), same.answer
    other = r.client.ask("Was the person you saw at (0, 0) the same one you saw at (10, 0)?", timeout_s=60)
    assert other.success and other.answer.lower().startswith("no"), other.answer
