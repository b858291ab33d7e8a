"""A query node with the question model loaded stops cleanly on Ctrl-C, whether or not a generation is under way:
llama.cpp's model is freed while the interpreter is whole, not by the garbage collector at exit."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import rclpy
from ros_robot import NAMESPACE, Robot

from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.memory.store import SqliteStore

pytestmark = pytest.mark.ros


@pytest.mark.parametrize("settle_s", [0.0, 8.0])
def test_the_query_node_exits_cleanly_on_sigint_with_its_model_loaded(tmp_path: Path, settle_s: float) -> None:
    store = tmp_path / "memory.db"
    SqliteStore(store).close()
    options = NodeOptions(store=str(store), namespace=NAMESPACE, params={"query.parser": "local"})
    log = tmp_path / "query.log"
    query = start_node("query", options, os.environ, str(log))
    rclpy.init()
    node = rclpy.create_node("vidmem_test_shutdown")
    try:
        robot = Robot(node)
        deadline = time.monotonic() + 120
        while not robot.client.wait_for_service(0.5):
            assert time.monotonic() < deadline and query.poll() is None, log.read_text()[-2000:]
        time.sleep(settle_s)  # 0: the prompt warm-up still under way; later: the model idle
    finally:
        stop_processes([query], grace_s=60.0)
        node.destroy_node()
        rclpy.shutdown()
    assert query.returncode == 0, log.read_text()[-3000:]
