"""The query node's services over DDS on a store whose clock went back an hour: every stamp a caller sends or gets
is on the robot's clock, and a window on it reaches every run that went through it."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import rclpy
from ros_robot import NAMESPACE
from two_runs import T0, two_runs

from vidmem_ros.clock import utc_clock
from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.ros.client import MemoryClient
from vidmem_ros.ros.convert import to_seconds

pytestmark = pytest.mark.ros


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MemoryClient, Path, float]]:
    """A query node (no ingest node) on a store of two runs, and a client of it; the sensor clock of run 2's start."""
    path = tmp_path / "memory.db"
    store, corrected = two_runs(path)
    store.close()
    options = NodeOptions(store=str(path), namespace=NAMESPACE, params={"query.parser": "rules"})
    proc = start_node("query", options, os.environ, str(tmp_path / "query.log"))
    rclpy.init()
    node = rclpy.create_node("vidmem_test_runs")
    try:
        client = MemoryClient(node, NAMESPACE)
        deadline = time.monotonic() + 120
        while not client.wait_for_service(0.5):
            assert time.monotonic() < deadline and proc.poll() is None, (tmp_path / "query.log").read_text()
        yield client, path, corrected
    finally:
        stop_processes([proc])
        node.destroy_node()
        rclpy.shutdown()


def test_services_speak_the_robots_clock_across_runs(served: tuple[MemoryClient, Path, float]) -> None:
    client, path, corrected = served
    run1 = (T0, T0 + 119)  # the sensor clock each run went through
    run2 = (corrected, corrected + 119)

    def on_clock(stamp: float) -> bool:
        return run1[0] <= stamp <= run1[1] or run2[0] <= stamp <= run2[1]

    last = client.ask("When did you last see a cup?", timeout_s=60)
    assert last.success and last.has_answer_stamp, last.answer
    assert to_seconds(last.answer_stamp) == corrected + 29, "run 2's last cup, on the robot's clock"
    assert last.evidence and all(on_clock(to_seconds(e.stamp)) for e in last.evidence)
    assert json.loads(last.trace)["robot_clock"]["answer_run"] == 2

    # A window from run 2's first minutes up to T0 + 60: both runs went through clock times in it.
    cups = client.search("cup", start=corrected, end=T0 + 60, max_results=50)
    stamps = sorted(to_seconds(r.stamp) for r in cups.results)
    assert cups.success and stamps and all(on_clock(s) for s in stamps)
    assert any(s >= T0 for s in stamps) and any(s <= run2[1] for s in stamps), "both runs' cups"
    early = client.search("cup", as_of=corrected + 50, max_results=50)  # as of then, run 2 had seen its cup
    assert any(run2[0] + 20 <= to_seconds(r.stamp) <= run2[0] + 29 for r in early.results)

    dog = client.summarize(start=corrected + 80, end=corrected + 119)
    assert dog.success and dog.events and "in run 2" in dog.summary and utc_clock(corrected + 80)[:13] in dog.summary
    assert all(run2[0] <= to_seconds(e.start) <= run2[1] for e in dog.events)

    gone = client.forget(start=corrected + 80, end=corrected + 119)
    assert gone.success and gone.moments_removed == 40, gone
    store = SqliteStore(path, readonly=True)
    with store.read() as db:
        left = [int(r) for (r,) in db.execute("SELECT run_id FROM moments ORDER BY stamp")]
    store.close()
    assert left == [1] * 120 + [2] * 80, "run 2's last 40 s on the robot's clock went, run 1 untouched"
