"""The demo's path: the sample patrol bag played over DDS into both nodes, then questioned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import rclpy

from vidmem_ros.ros.client import MemoryClient
from vidmem_ros.ros.convert import to_seconds
from vidmem_ros.tools.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.tools.replay import replay
from vidmem_ros.tools.sample_bag import START_STAMP

pytestmark = pytest.mark.ros


def test_sample_patrol_replayed_through_the_nodes(tmp_path: Path, sample_bag: Path) -> None:
    """The demo's path: a bag played over DDS into both nodes, then questions with and without as_of."""
    options = NodeOptions(store=str(tmp_path / "patrol.db"), camera="/camera/image_raw")
    procs = [start_node(w, options, os.environ, str(tmp_path / f"{w}.log")) for w in ("ingest", "query")]
    try:
        _replay_and_ask(sample_bag)
    finally:
        stop_processes(procs)  # even when rclpy fails to start, no node outlives the test


def _replay_and_ask(sample_bag: Path) -> None:
    rclpy.init()
    node = rclpy.create_node("vidmem_test_replay")
    try:
        client = MemoryClient(node)
        assert client.wait_for_service(60) and client.wait_for_stats(lambda s: True, 60) is not None
        result = replay(node, sample_bag, rate=8.0)
        frames = result.published["/camera/image_raw/compressed"]
        stats = client.wait_until_idle(frames, timeout_s=90)
        assert stats is not None and stats.frames_received >= 0.95 * frames
        assert client.ask("Did you see a cat?").answer.startswith("Yes")
        first_cup = client.ask("When did you first see a cup?")
        assert 16 <= to_seconds(first_cup.answer_stamp) - START_STAMP <= 40  # the first kitchen visit
        last_cup = client.ask("When did you last see a cup?")
        assert to_seconds(last_cup.answer_stamp) - START_STAMP >= 134  # the revisit at the end
        assert client.ask("Did you see a dog?").answer.startswith("No")
        assert client.ask("Did you see a motorcycle?", as_of=START_STAMP + 60).answer.startswith("No")
    finally:
        node.destroy_node()
        rclpy.shutdown()
