"""A callback that raises is logged and the node goes on spinning (it used to end the node's executor thread)."""

from __future__ import annotations

import time

import pytest
import rclpy

from vidmem_ros.ros.runtime import Spinner

pytestmark = pytest.mark.ros


def test_a_failing_callback_does_not_stop_the_node(caplog: pytest.LogCaptureFixture) -> None:
    rclpy.init()
    node = rclpy.create_node("vidmem_test_spinner")
    calls: list[int] = []

    def tick() -> None:
        calls.append(len(calls))
        if len(calls) == 2:
            raise ValueError("a bug in one callback")

    node.create_timer(0.02, tick)
    spinner = Spinner(node)
    try:
        deadline = time.monotonic() + 10
        while len(calls) < 6 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(calls) >= 6 and spinner.thread.is_alive()
        assert any("a bug in one callback" in r.getMessage() for r in caplog.records)
    finally:
        spinner.stop()
        node.destroy_node()
        rclpy.shutdown()
    assert not spinner.thread.is_alive()
