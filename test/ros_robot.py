"""A test-side robot for the node tests: publishers for camera and odometry, a memory client, and the messages."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import rclpy
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.publisher import Publisher
from sensor_msgs.msg import CompressedImage, Image

from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.ros.client import MemoryClient
from vidmem_ros.ros.convert import to_time

NAMESPACE = "/robot1"
CAMERA = "/test_cam/image_raw"


class Robot:
    """A test-side node that plays camera and odometry and asks questions."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.client = MemoryClient(node, NAMESPACE)
        self.raw = node.create_publisher(Image, CAMERA, 50)
        self.compressed = node.create_publisher(CompressedImage, CAMERA + "/compressed", 50)
        self.odom = node.create_publisher(Odometry, "/odom", 50)

    def send(self, msg: Image | CompressedImage) -> None:
        """Publish at a slow camera's pace: sensor QoS is best-effort, a burst of large frames may be shed, and
        frames on two topics (raw, compressed) are only taken in stamp order if the first is taken before the next,
        so wait (up to a few seconds, for a loaded machine) until the node has counted this one."""
        before = self.client.stats()
        (self.compressed if isinstance(msg, CompressedImage) else self.raw).publish(msg)
        time.sleep(0.5)
        if before is not None:
            received = before.frames_received
            self.client.wait_for_stats(lambda s: s.frames_received > received, 5.0)

    def send_at(self, rgb: np.ndarray, stamp: float, x: float, y: float) -> None:
        """The robot's odometry at ``stamp``, then the frame it took there (the pose first, so the frame has it)."""
        self.odom.publish(odom_msg(stamp, x, y))
        time.sleep(0.2)
        self.send(image_msg(rgb, stamp))

    def wait_connected(self, timeout_s: float = 60.0, pose: Publisher | None = None, compressed: bool = False) -> None:
        """Wait until the nodes subscribe to the raw camera (and the compressed one, for ``compressed``) and
        ``pose`` (default: odometry) and serve queries."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            pubs = (self.raw, *([self.compressed] if compressed else []), pose or self.odom)
            if all(p.get_subscription_count() for p in pubs) and self.client.wait_for_service(0.2):
                return
            rclpy.spin_once(self.node, timeout_sec=0.2)
        raise TimeoutError("the nodes did not connect")

    def ask_fresh(self, question: str, total_s: float = 180.0, each_s: float = 30.0, **request: Any):  # type: ignore[no-untyped-def]
        """Ask a node whose service was just offered: a request sent while discovery of the new service is still
        under way can be lost, so one that goes unanswered is asked again until ``total_s`` has passed."""
        deadline = time.monotonic() + total_s
        while True:
            left = max(1.0, deadline - time.monotonic())
            try:
                return self.client.ask(question, timeout_s=min(each_s, left), **request)
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise

    def kept_at_least(self, n: int, timeout_s: float = 30.0):  # type: ignore[no-untyped-def]
        stats = self.client.wait_for_stats(lambda s: s.frames_kept >= n and s.queue_depth == 0, timeout_s)
        assert stats is not None, f"fewer than {n} frames kept; last stats: {self.client.stats()}"
        return stats


def refused_start(which: str, options: NodeOptions, log: Path) -> str:
    """Start one node that must refuse to start: it exits with status 2; returns what it logged."""
    proc = start_node(which, options, os.environ, str(log))
    try:
        assert proc.wait(60) == 2
    finally:
        stop_processes([proc])
    return log.read_text()


def image_msg(rgb: np.ndarray, stamp: float, encoding: str = "rgb8", pad: int = 0, bigendian: bool = False) -> Image:
    if encoding == "bgr8":
        pixels = rgb[..., ::-1]
    elif encoding == "mono16":
        grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.uint16) * 257
        pixels = grey.astype(">u2" if bigendian else "<u2")
    else:
        pixels = rgb
    rows = np.ascontiguousarray(pixels).reshape(rgb.shape[0], -1).view(np.uint8)
    step = rows.shape[1] + pad
    data = np.zeros((rows.shape[0], step), np.uint8)
    data[:, : rows.shape[1]] = rows
    msg = Image(height=rgb.shape[0], width=rgb.shape[1], encoding=encoding, step=step, is_bigendian=int(bigendian))
    msg.header.stamp = to_time(stamp)
    msg.data = data.tobytes()
    return msg


def jpeg_msg(rgb: np.ndarray, stamp: float) -> CompressedImage:
    ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    assert ok
    msg = CompressedImage(format="jpeg")
    msg.header.stamp = to_time(stamp)
    msg.data = jpeg.tobytes()
    return msg


def odom_msg(stamp: float, x: float, y: float) -> Odometry:
    msg = Odometry()
    msg.header.stamp = to_time(stamp)
    msg.header.frame_id = "map"
    msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
    msg.pose.pose.orientation.w = 1.0
    return msg
