"""Feeding a recorded bag straight into an ingest pipeline, for tests that need memory built from real frames."""

from __future__ import annotations

from pathlib import Path

from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_typestore

from vidmem_ros.ingest.frames import CompressedImage, FrameInput
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.records import Pose


def run_bag(pipeline: IngestPipeline, bag: Path) -> None:
    ts = get_typestore(Stores.ROS2_JAZZY)
    with Reader(bag) as reader:
        for conn, _, raw in reader.messages():
            msg = ts.deserialize_cdr(raw, conn.msgtype)
            stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            if conn.msgtype == "nav_msgs/msg/Odometry":
                p = msg.pose.pose.position
                pipeline.poses.add(stamp, Pose(msg.header.frame_id, p.x, p.y))
            else:
                pipeline.ingest(FrameInput(stamp, conn.topic, CompressedImage(msg.data, msg.format)))
