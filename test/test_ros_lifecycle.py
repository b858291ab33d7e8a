"""Both nodes as lifecycle nodes, driven over DDS as a lifecycle manager would: nothing subscribed or offered
until activated, the last event closed and the camera let go on deactivate, memory kept across the cycle."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import rclpy
from lifecycle_msgs.msg import State, Transition
from lifecycle_msgs.srv import ChangeState, GetState
from rclpy.node import Node
from ros_robot import Robot, image_msg, refused_start

from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.memory.store import SqliteStore

pytestmark = pytest.mark.ros
NAMESPACE = "/robot1"
T0 = 1_762_000_000.0


class Manager:
    """Calls a node's lifecycle services (``<node>/change_state``, ``<node>/get_state``)."""

    def __init__(self, node: Node, name: str) -> None:
        self.node = node
        self.change = node.create_client(ChangeState, f"{NAMESPACE}/{name}/change_state")
        self.get = node.create_client(GetState, f"{NAMESPACE}/{name}/get_state")

    def state(self) -> int:
        assert self.get.wait_for_service(60.0), "the node offers no lifecycle services"
        return int(self._call(self.get, GetState.Request()).current_state.id)

    def transition(self, transition_id: int) -> bool:
        assert self.change.wait_for_service(60.0)
        request = ChangeState.Request()
        request.transition.id = transition_id
        return bool(self._call(self.change, request).success)

    def _call(self, client, request):  # type: ignore[no-untyped-def]
        future = client.call_async(request)
        rclpy.spin_until_future_complete(self.node, future, timeout_sec=120.0)
        assert future.done(), "no answer from the lifecycle service"
        return future.result()


def test_a_lifecycle_manager_brings_the_nodes_up_down_and_up_again(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    store_path = tmp_path / "memory.db"
    options = NodeOptions(
        store=str(store_path), camera="/test_cam/image_raw", namespace=NAMESPACE, params={"autostart": False}
    )
    procs = [start_node(w, options, os.environ, str(tmp_path / f"{w}.log")) for w in ("ingest", "query")]
    rclpy.init()
    node = rclpy.create_node("vidmem_test_lifecycle")
    try:
        robot = Robot(node)
        ingest, query = Manager(node, "vidmem_ingest"), Manager(node, "vidmem_query")
        assert ingest.state() == State.PRIMARY_STATE_UNCONFIGURED == query.state()
        assert not store_path.exists(), "unconfigured: the store is not even opened"

        assert ingest.transition(Transition.TRANSITION_CONFIGURE) and query.transition(Transition.TRANSITION_CONFIGURE)
        assert ingest.state() == State.PRIMARY_STATE_INACTIVE == query.state()
        assert store_path.exists()
        rclpy.spin_once(node, timeout_sec=1.0)
        assert robot.raw.get_subscription_count() == 0, "inactive: the camera is not taken yet"
        assert not robot.client.wait_for_service(1.0), "inactive: no questions are taken yet"

        assert ingest.transition(Transition.TRANSITION_ACTIVATE) and query.transition(Transition.TRANSITION_ACTIVATE)
        robot.wait_connected()
        for i, name in enumerate(["coffee", "chelsea", "coffee"]):
            robot.send_at(photos[name], T0 + 10 * i, 2.0 + i, 0.0)
        robot.kept_at_least(3)

        assert ingest.transition(Transition.TRANSITION_DEACTIVATE)
        assert ingest.state() == State.PRIMARY_STATE_INACTIVE
        deadline = time.monotonic() + 10
        while robot.raw.get_subscription_count() and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.2)
        assert robot.raw.get_subscription_count() == 0, "deactivated: the camera is let go"
        memory = SqliteStore(store_path, readonly=True)
        events = memory.events()
        memory.close()
        assert events and all(e.status == "closed" for e in events), "deactivated: the last event is closed"
        # The query node stays active and answers from what was kept.
        cat = robot.ask_fresh("Did you see a cat?")
        assert cat.success and cat.answer.startswith("Yes")

        assert ingest.transition(Transition.TRANSITION_ACTIVATE)
        robot.wait_connected()
        robot.client.clear_stats()
        robot.send(image_msg(photos["astronaut"], T0 + 25))  # within ingest.max_stamp_jump_s of the last frame
        stats = robot.client.wait_for_stats(lambda s: s.frames_kept >= 1 and s.queue_depth == 0, 60.0)
        assert stats is not None, "reactivated: frames are taken again, with the models loaded anew"

        assert query.transition(Transition.TRANSITION_DEACTIVATE)
        deadline = time.monotonic() + 10
        while robot.client.wait_for_service(0.2) and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.2)
        assert not robot.client.wait_for_service(0.5), "deactivated: the services are withdrawn"
        assert query.transition(Transition.TRANSITION_CLEANUP)
        assert query.state() == State.PRIMARY_STATE_UNCONFIGURED
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)
    memory = SqliteStore(store_path, readonly=True)
    assert memory.moment_count() == 4 and memory.integrity_ok()
    memory.close()


def test_a_store_that_cannot_be_opened_fails_configure_and_stops_an_autostarted_node(tmp_path: Path) -> None:
    blocker = tmp_path / "not_a_directory"
    blocker.write_text("a file where the store's directory should be")
    options = NodeOptions(store=str(blocker / "memory.db"))
    log = refused_start("query", options, tmp_path / "query.log")
    assert "cannot start" in log and "memory.db" in log
