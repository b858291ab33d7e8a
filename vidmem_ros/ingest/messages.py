"""Sensor messages as the library's plain records, for rclpy messages and rosbags-decoded ones alike.

Both kinds carry the same field names, so one set of conversions serves the
nodes and the bag evaluator; nothing here imports rclpy.
"""

from __future__ import annotations

from typing import Any

from vidmem_ros.imaging import check_compressed, check_raw_layout
from vidmem_ros.ingest.frames import CompressedImage, FrameInput, RawImage
from vidmem_ros.memory.records import Pose
from vidmem_ros.perception.audio import AudioChunkData


def to_seconds(stamp: Any) -> float:
    return float(stamp.sec + stamp.nanosec * 1e-9)


def image_frame(msg: Any, source: str) -> FrameInput:
    """sensor_msgs/Image; one whose fields describe no image is refused here, before it takes a rate slot."""
    check_raw_layout(msg.data, msg.width, msg.height, msg.encoding, msg.step)
    image = RawImage(memoryview(msg.data), msg.width, msg.height, msg.encoding, msg.step, bool(msg.is_bigendian))
    return FrameInput(to_seconds(msg.header.stamp), source, image)


def compressed_frame(msg: Any, source: str) -> FrameInput:
    """sensor_msgs/CompressedImage."""
    check_compressed(msg.data, msg.format)  # before it takes a slot of the rate gate
    return FrameInput(to_seconds(msg.header.stamp), source, CompressedImage(memoryview(msg.data), msg.format))


def audio_chunk(msg: Any) -> AudioChunkData:
    """vidmem_ros/AudioChunk."""
    return AudioChunkData(to_seconds(msg.header.stamp), msg.sample_rate, msg.channels, msg.encoding, bytes(msg.data))


def stamped_pose(msg: Any) -> tuple[float, Pose]:
    """nav_msgs/Odometry, geometry_msgs/PoseStamped or PoseWithCovarianceStamped as a stamped pose sample."""
    pose = msg.pose.pose if hasattr(msg.pose, "pose") else msg.pose
    p, q = pose.position, pose.orientation
    return to_seconds(msg.header.stamp), Pose(msg.header.frame_id, p.x, p.y, p.z, q.x, q.y, q.z, q.w)
