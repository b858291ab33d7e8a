"""Robot pose from tf2 (e.g. map -> base_link) at each frame's stamp, where tf2_ros is installed.

tf2_ros ships with every ROS 2 install but not as a PyPI wheel; on the pip path
the pose comes from a topic instead (``ingest.pose_source``).
"""

from __future__ import annotations

from typing import Any

from rclpy.node import Node
from rclpy.time import Time

from vidmem_ros.errors import ConfigError
from vidmem_ros.memory.records import Pose


class TfPoseLookup:
    def __init__(self, node: Node, target_frame: str, base_frame: str) -> None:
        try:
            import tf2_ros
        except ImportError as exc:
            raise ConfigError(
                f"ingest.tf_frame is {target_frame!r} but tf2_ros is not installed (it comes with a ROS 2 install, "
                "not with the PyPI wheels); install ros-<distro>-tf2-ros or set ingest.tf_frame to '' and use "
                "ingest.pose_source"
            ) from exc
        self.target, self.base = target_frame, base_frame
        self._buffer: Any = tf2_ros.Buffer()
        self._listener = tf2_ros.TransformListener(self._buffer, node)
        self._errors: tuple[type[BaseException], ...] = (
            tf2_ros.LookupException,
            tf2_ros.ExtrapolationException,
            tf2_ros.ConnectivityException,
        )

    def pose_at(self, stamp: float) -> Pose | None:
        """The base frame's pose in the target frame at ``stamp``; None when tf cannot say (yet)."""
        sec = int(stamp)
        try:
            t = self._buffer.lookup_transform(
                self.target, self.base, Time(seconds=sec, nanoseconds=int((stamp - sec) * 1e9))
            )
        except self._errors:
            return None
        p, q = t.transform.translation, t.transform.rotation
        return Pose(self.target, p.x, p.y, p.z, q.x, q.y, q.z, q.w)
