"""Bag replay over DDS: the demo's path through both nodes, and ros2-bag-play options seen by a subscriber."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rclpy
from nav_msgs.msg import Odometry
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosbags.rosbag2 import Reader, StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore
from rosbags.typesys.msg import get_types_from_msg
from rosgraph_msgs.msg import Clock

from vidmem_dev.sample_bag import ODOM_TOPIC, START_STAMP
from vidmem_ros.command.launcher import NodeOptions, deep_subscription, start_node, stop_processes
from vidmem_ros.command.replay import replay
from vidmem_ros.errors import InputError
from vidmem_ros.ros.client import MemoryClient
from vidmem_ros.ros.convert import to_seconds

pytestmark = pytest.mark.ros
CAMERA = "/camera/image_raw"
DEEP = deep_subscription(CAMERA + "/compressed")  # a loaded machine may stall the node's callbacks a moment


def test_sample_patrol_replayed_through_the_nodes(tmp_path: Path, sample_bag: Path) -> None:
    """The demo's path: a bag played over DDS into both nodes, then questions with and without as_of."""
    options = NodeOptions(store=str(tmp_path / "patrol.db"), camera=CAMERA, transport="compressed", params=DEEP)
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
        assert _parameter(node, "vidmem_ingest", next(iter(DEEP))) == 200  # the standard override was taken
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


def _parameter(node: Node, remote: str, name: str) -> Any:
    """One parameter's value, asked of another node over its parameter services."""
    client = AsyncParameterClient(node, remote)
    assert client.wait_for_services(30)
    future = client.get_parameters([name])
    rclpy.spin_until_future_complete(node, future, timeout_sec=30)
    assert future.done()
    return parameter_value_to_python(future.result().values[0])


class Recorder:
    """A second node, spun in a thread, that keeps what arrives on some topics."""

    def __init__(self, topics: dict[str, type], best_effort: tuple[str, ...] = ()) -> None:
        self.node = rclpy.create_node("vidmem_test_recorder")
        self.received: dict[str, list[Any]] = defaultdict(list)
        self._lock = threading.Lock()
        for topic, cls in topics.items():
            reliability = ReliabilityPolicy.BEST_EFFORT if topic in best_effort else ReliabilityPolicy.RELIABLE
            qos = QoSProfile(depth=10_000, reliability=reliability)
            self.node.create_subscription(cls, topic, lambda msg, t=topic: self._keep(t, msg), qos)
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self.executor.spin, daemon=True)
        self._thread.start()

    def _keep(self, topic: str, msg: Any) -> None:
        with self._lock:
            self.received[topic].append(msg)

    def wait_for(self, topic: str, count: int, timeout_s: float = 10.0) -> list[Any]:
        deadline = time.monotonic() + timeout_s
        while len(self.received[topic]) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        with self._lock:
            return list(self.received[topic])

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self._thread.join(5.0)


@pytest.fixture
def player() -> Iterator[Node]:
    rclpy.init()
    node = rclpy.create_node("vidmem_test_player")
    try:
        yield node
    finally:
        node.destroy_node()
        rclpy.shutdown()


@pytest.fixture
def recorder(player: Node) -> Iterator[Recorder]:
    rec = Recorder({ODOM_TOPIC: Odometry, "/replayed/odom": Odometry, "/clock": Clock}, best_effort=("/clock",))
    try:
        yield rec
    finally:
        rec.close()


def _odom_stamps(bag: Path, from_s: float) -> list[float]:
    """Header stamps (s) of the bag's odometry from ``from_s`` after its first message, read straight from the file."""
    ts = get_typestore(Stores.ROS2_JAZZY)
    with Reader(bag) as reader:
        start = reader.start_time + round(from_s * 1e9)
        conns = [c for c in reader.connections if c.topic == ODOM_TOPIC]
        msgs = [ts.deserialize_cdr(raw, c.msgtype) for c, _, raw in reader.messages(conns, start=start)]
    return [m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in msgs]


def _stamps(msgs: list[Any]) -> list[float]:
    return [m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in msgs]


def test_start_offset_skips_the_early_messages(player: Node, recorder: Recorder, sample_bag: Path) -> None:
    expected = _odom_stamps(sample_bag, 140.0)
    result = replay(player, sample_bag, rate=0, topics={ODOM_TOPIC}, start_offset=140.0, delay=0.5)
    assert result.published == {ODOM_TOPIC: len(expected)} and result.loops == 1
    assert result.first_stamp_ns >= round((START_STAMP + 140.0) * 1e9) - 1_000
    got = _stamps(recorder.wait_for(ODOM_TOPIC, len(expected)))
    assert got == expected
    assert min(got) >= START_STAMP + 140.0 - 1e-6


def test_loop_plays_the_window_twice(player: Node, recorder: Recorder, sample_bag: Path) -> None:
    expected = _odom_stamps(sample_bag, 144.0)
    result = replay(player, sample_bag, rate=0, topics=[ODOM_TOPIC], start_offset=144.0, max_loops=2, delay=0.5)
    assert result.loops == 2 and result.published[ODOM_TOPIC] == 2 * len(expected)
    assert _stamps(recorder.wait_for(ODOM_TOPIC, 2 * len(expected))) == expected + expected


def test_remap_lands_on_the_new_topic(player: Node, recorder: Recorder, sample_bag: Path) -> None:
    result = replay(
        player, sample_bag, rate=0, topics={ODOM_TOPIC}, remap={"odom": "/replayed/odom"}, start_offset=146.0, delay=0.5
    )
    count = result.published["/replayed/odom"]
    assert set(result.published) == {"/replayed/odom"} and count == len(_odom_stamps(sample_bag, 146.0))
    assert len(recorder.wait_for("/replayed/odom", count)) == count
    time.sleep(0.2)
    assert recorder.received[ODOM_TOPIC] == []


def test_clock_follows_the_bag_and_keeps_increasing_over_loops(
    player: Node, recorder: Recorder, sample_bag: Path
) -> None:
    result = replay(
        player, sample_bag, rate=4.0, topics={ODOM_TOPIC}, start_offset=144.0, max_loops=2, clock_hz=100, delay=0.5
    )
    assert result.loops == 2 and 150 <= result.clock_messages <= 260  # 2 s of wall time at 100 Hz
    assert 1.5 <= result.wall_s <= 5.0 and abs(result.bag_s - 8.0) < 0.01
    times = [m.clock.sec + m.clock.nanosec * 1e-9 for m in recorder.wait_for("/clock", result.clock_messages, 2.0)]
    assert len(times) >= 0.5 * result.clock_messages  # best effort, as rclpy's /clock subscription is
    assert times == sorted(times)
    assert times[0] >= START_STAMP + 144.0 - 1e-6 and times[-1] <= START_STAMP + 152.0
    assert times[-1] > START_STAMP + 150.0  # the second loop is shifted by the window (4 s), not replayed at 144 s


def test_truncated_mcap_names_the_file(player: Node, sample_bag: Path, tmp_path: Path) -> None:
    bag = tmp_path / "truncated"
    shutil.copytree(sample_bag, bag)
    mcap = next(bag.glob("*.mcap"))
    os.truncate(mcap, mcap.stat().st_size // 2)
    with pytest.raises(InputError, match="no messages were played") as caught:
        replay(player, bag)
    assert str(mcap) in str(caught.value)
    cli = subprocess.run(
        [sys.executable, "-m", "vidmem_ros.command", "replay", str(bag)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 1 and str(mcap) in cli.stderr and "Traceback" not in cli.stderr


def test_unknown_message_types_are_skipped_by_name(player: Node, tmp_path: Path) -> None:
    ts = get_typestore(Stores.ROS2_JAZZY)
    ts.register(get_types_from_msg("int32 x", "vidmem_no_such_msgs/msg/Blip"))
    bag = tmp_path / "unknown"
    with Writer(bag, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        blip = writer.add_connection("/blip", "vidmem_no_such_msgs/msg/Blip", typestore=ts)
        chatter = writer.add_connection("/chatter", "std_msgs/msg/String", typestore=ts)
        for i in range(3):
            msg = ts.types["std_msgs/msg/String"](data=f"hello {i}")
            writer.write(chatter, 1_000 + i, ts.serialize_cdr(msg, "std_msgs/msg/String"))
            writer.write(
                blip,
                1_000 + i,
                ts.serialize_cdr(ts.types["vidmem_no_such_msgs/msg/Blip"](x=i), "vidmem_no_such_msgs/msg/Blip"),
            )
    result = replay(player, bag, rate=0)
    assert result.published == {"/chatter": 3}
    assert "vidmem_no_such_msgs/msg/Blip" in result.skipped_topics["/blip"]


def test_topics_are_replayed_with_the_qos_they_were_recorded_with(player: Node, tmp_path: Path) -> None:
    """/tf_static was recorded latched and a driver's scan best-effort: a node that starts after /tf_static was
    played still gets it only if it is replayed latched."""
    from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime

    def offered(reliability: QosReliability, durability: QosDurability) -> Qos:
        never = QosTime(sec=0, nsec=0)
        return Qos(
            QosHistory.KEEP_LAST, 1, reliability, durability, never, never, QosLiveliness.AUTOMATIC, never, False
        )

    ts = get_typestore(Stores.ROS2_JAZZY)
    bag = tmp_path / "qos"
    latched = offered(QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL)
    sensor = offered(QosReliability.BEST_EFFORT, QosDurability.VOLATILE)
    with Writer(bag, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        static = writer.add_connection(
            "/static_info", "std_msgs/msg/String", typestore=ts, offered_qos_profiles=[latched]
        )
        scan = writer.add_connection("/scan_text", "std_msgs/msg/String", typestore=ts, offered_qos_profiles=[sensor])
        plain = writer.add_connection("/plain", "std_msgs/msg/String", typestore=ts)
        for conn in (static, scan, plain):
            writer.write(
                conn, 1_000, ts.serialize_cdr(ts.types["std_msgs/msg/String"](data="x"), "std_msgs/msg/String")
            )
    seen: dict[str, tuple[int, int]] = {}

    def inspect(topic: str, _: int) -> None:
        info = player.get_publishers_info_by_topic(topic)
        seen[topic] = (int(info[0].qos_profile.reliability), int(info[0].qos_profile.durability))

    replay(player, bag, rate=0, on_message=inspect)
    reliable, best_effort = int(ReliabilityPolicy.RELIABLE), int(ReliabilityPolicy.BEST_EFFORT)
    latched_d, volatile = int(DurabilityPolicy.TRANSIENT_LOCAL), int(DurabilityPolicy.VOLATILE)
    assert seen == {
        "/static_info": (reliable, latched_d),
        "/scan_text": (best_effort, volatile),
        "/plain": (reliable, volatile),
    }


def test_cli_documents_the_replay_options() -> None:
    cli = subprocess.run(
        [sys.executable, "-m", "vidmem_ros.command", "replay", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    for flag in ("--rate", "--start-offset", "--loop", "--remap", "--topics", "--clock", "--progress", "--quiet"):
        assert flag in cli.stdout
