"""Plays a rosbag2 (MCAP or sqlite3) into live topics, like ``ros2 bag play``, for installs without rosbag2.

Messages are published as the serialized bytes stored in the bag: nothing is
decoded, so any message type whose Python module is importable can be played.
"""

from __future__ import annotations

import importlib
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosbags.rosbag2 import Reader

from vidmem_ros.errors import InputError


@dataclass
class ReplayResult:
    published: Counter[str] = field(default_factory=Counter)
    skipped_topics: dict[str, str] = field(default_factory=dict)
    first_stamp_ns: int = 0
    last_stamp_ns: int = 0
    wall_s: float = 0.0


def message_class(msgtype: str) -> type:
    """``sensor_msgs/msg/Image`` -> the rclpy message class."""
    package, kind, name = msgtype.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), name)  # type: ignore[no-any-return]


def replay(
    node: Node,
    bag: str | Path,
    rate: float = 1.0,
    remap: Mapping[str, str] | None = None,
    topics: set[str] | None = None,
    on_message: Callable[[str, int], None] | None = None,
) -> ReplayResult:
    """Publish every message of ``bag`` at its recorded pace divided by ``rate`` (0: as fast as possible)."""
    remap = remap or {}
    result = ReplayResult()
    try:
        reader = Reader(Path(bag))
        reader.open()
    except Exception as exc:  # rosbags raises several types for unreadable bags
        raise InputError("bad_bag", f"cannot open bag {bag}: {exc}") from exc
    try:
        publishers: dict[int, tuple[str, Publisher]] = {}
        for conn in reader.connections:
            if topics is not None and conn.topic not in topics:
                continue
            try:
                cls = message_class(conn.msgtype)
            except (ImportError, AttributeError, ValueError) as exc:
                result.skipped_topics[conn.topic] = f"message type {conn.msgtype} is not installed ({exc})"
                continue
            out = remap.get(conn.topic, conn.topic)
            qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
            publishers[conn.id] = (out, node.create_publisher(cls, out, qos))
        chosen = [c for c in reader.connections if c.id in publishers]
        started = time.monotonic()
        for conn, stamp_ns, raw in reader.messages(connections=chosen):
            if not result.first_stamp_ns:
                result.first_stamp_ns = stamp_ns
            result.last_stamp_ns = stamp_ns
            if rate > 0:
                due = started + (stamp_ns - result.first_stamp_ns) * 1e-9 / rate
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            topic, publisher = publishers[conn.id]
            publisher.publish(bytes(raw))
            result.published[topic] += 1
            if on_message:
                on_message(topic, stamp_ns)
        result.wall_s = time.monotonic() - started
        for _, publisher in publishers.values():
            node.destroy_publisher(publisher)
    finally:
        reader.close()
    return result
