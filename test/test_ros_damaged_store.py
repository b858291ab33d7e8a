"""Real nodes on a damaged store: nothing writes it.  The ingest node sets it aside untouched and remembers in
a fresh store, and the query node answers from that; a query node with no ingest node reads it read-only."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import rclpy
from ros_robot import CAMERA, NAMESPACE, Robot, image_msg

from vidmem_dev.damaged_stores import digest, fill, scribble_mid_file
from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.memory.store import SqliteStore

pytestmark = pytest.mark.ros
T0 = 1_700_000_000.0  # the filled store's time


def test_a_damaged_store_is_set_aside_by_the_ingest_node_and_the_query_node_follows(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "memory.db"
    fill(store)
    scribble_mid_file(store)
    damaged = digest(store)
    options = NodeOptions(store=str(store), camera=CAMERA, namespace=NAMESPACE, params={"store.check_s": 1.0})
    alone = start_node("query", options, os.environ, str(tmp_path / "alone.log"))
    rclpy.init()
    node = rclpy.create_node("vidmem_test_damaged")
    procs = []
    try:
        robot = Robot(node)
        deadline = time.monotonic() + 120
        while not robot.client.wait_for_service(0.5):  # after waiting for an ingest node that never came
            assert time.monotonic() < deadline, (tmp_path / "alone.log").read_text()
        stop_processes([alone])
        assert digest(store) == damaged
        assert "read-only" in (tmp_path / "alone.log").read_text()

        procs = [start_node(w, options, os.environ, str(tmp_path / f"{w}.log")) for w in ("ingest", "query")]
        robot.wait_connected(timeout_s=120)
        for i, name in enumerate(("coffee", "chelsea")):
            robot.send(image_msg(photos[name], T0 + 10_000 + 10 * i))
        robot.kept_at_least(2, timeout_s=60)
        cat = robot.ask_fresh("Did you see a cat?")
        assert cat.answer.lower().startswith("yes"), cat.answer
    finally:
        stop_processes([alone, *procs])
        node.destroy_node()
        rclpy.shutdown()
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1 and digest(aside[0]) == damaged, "set aside untouched"
    assert "set aside" in (tmp_path / "ingest.log").read_text()
    # Whichever configured first, the query node ends on the fresh store, never reading the damaged one.
    assert "read-only" not in (tmp_path / "query.log").read_text()
    fresh = SqliteStore(store, readonly=True)
    assert fresh.moment_count() == 2 and fresh.integrity_ok()
