"""Ingest node: camera and pose topics in, moments written to the store, memory_stats out."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from nav_msgs.msg import Odometry
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import CompressedImage, Image

from vidmem_ros.audio_pipeline import AudioPipeline
from vidmem_ros.errors import InputError
from vidmem_ros.frames import FrameInput
from vidmem_ros.ingest import IngestPipeline, IngestWorker
from vidmem_ros.memory.archive import QUARANTINED
from vidmem_ros.memory.health import assess
from vidmem_ros.memory.stats import StatsSnapshot
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.msg import AudioChunk, MemoryStats
from vidmem_ros.msg import Event as EventMsg
from vidmem_ros.ros.convert import (
    audio_chunk,
    compressed_frame,
    event_msg,
    image_frame,
    stamped_pose,
)
from vidmem_ros.ros.params import declare_config, watch_runtime_changes
from vidmem_ros.ros.runtime import bridge_logging, run_nodes
from vidmem_ros.ros.tf_pose import TfPoseLookup


class IngestNode(Node):
    def __init__(self, **kwargs: object) -> None:
        super().__init__("vidmem_ingest", **kwargs)  # type: ignore[arg-type]
        bridge_logging(self)
        self.config = declare_config(self)
        cfg = self.config
        self.store = SqliteStore(cfg.store_path())
        self.pipeline = IngestPipeline.from_config(cfg, self.store)
        self.worker = IngestWorker(self.pipeline, cfg.ingest.queue_size)
        watch_runtime_changes(self, cfg)
        # Callbacks only convert and enqueue; the worker thread does the heavy work.
        sensors = MutuallyExclusiveCallbackGroup()
        self.image_topic = self.resolve_topic_name("image")
        self.compressed_topic = self.resolve_topic_name("image/compressed")
        self.create_subscription(Image, "image", self._on_image, qos_profile_sensor_data, callback_group=sensors)
        self.create_subscription(
            CompressedImage, "image/compressed", self._on_compressed, qos_profile_sensor_data, callback_group=sensors
        )
        self.tf = TfPoseLookup(self, cfg.ingest.tf_frame, cfg.ingest.tf_base_frame) if cfg.ingest.tf_frame else None
        # One pose source, so every stored pose is in one frame.
        pose_type = {"odom": Odometry, "pose": PoseStamped, "pose_with_covariance": PoseWithCovarianceStamped}
        if self.tf is None:
            source = cfg.ingest.pose_source
            self.create_subscription(pose_type[source], source, self._on_pose, 50, callback_group=sensors)
        self.audio = AudioPipeline(cfg, self.pipeline.engine)  # recognises on its own thread
        self.create_subscription(AudioChunk, "audio", self._on_audio, qos_profile_sensor_data, callback_group=sensors)
        self.stats_publisher = self.create_publisher(MemoryStats, "memory_stats", 10)
        self.events_publisher = self.create_publisher(EventMsg, "events", 50)
        self.pipeline.engine.listeners.append(lambda event: self.events_publisher.publish(event_msg(event)))
        self.diagnostics_publisher = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._last_snapshot: StatsSnapshot | None = None
        self._last_audio_drops = 0
        self.create_timer(cfg.ingest.stats_period_s, self.publish_stats)
        self.get_logger().info(
            f"ingesting {self.image_topic} and {self.compressed_topic} into {cfg.store_path()} "
            f"(profile {cfg.profile}, {cfg.ingest.sample_fps} fps, detector {cfg.detector.backend})"
        )

    def _on_image(self, msg: Image) -> None:
        self._submit(lambda: image_frame(msg, self.image_topic))

    def _on_compressed(self, msg: CompressedImage) -> None:
        self._submit(lambda: compressed_frame(msg, self.compressed_topic))

    def _submit(self, convert: Callable[[], FrameInput]) -> None:
        try:
            frame = convert()
        except InputError as exc:
            self.pipeline.stats.received()
            self.pipeline.stats.dropped(exc.reason)
            self.get_logger().warning(f"dropped a frame: {exc}")
            return
        if self.tf is not None:
            pose = self.tf.pose_at(frame.stamp)
            if pose is not None:
                self.pipeline.poses.add(frame.stamp, pose)
        self.worker.submit(frame)

    def _on_audio(self, msg: AudioChunk) -> None:
        self.audio.push(audio_chunk(msg))

    def _on_pose(self, msg: Odometry | PoseStamped | PoseWithCovarianceStamped) -> None:
        stamp, pose = stamped_pose(msg)
        self.pipeline.poses.add(stamp, pose)

    def publish_stats(self) -> None:
        snap = self.pipeline.stats.snapshot()
        msg = MemoryStats()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.frames_received = snap.received
        msg.frames_dropped = snap.dropped_total
        drops = dict(snap.dropped)
        drops.update({f"audio_{reason}": n for reason, n in self.audio.stats().dropped.items()})
        msg.drop_reasons = sorted(drops)
        msg.drop_counts = [drops[r] for r in msg.drop_reasons]
        msg.frames_kept = snap.kept
        msg.events = self.store.event_count()
        msg.ram_bytes = _rss_bytes()
        msg.disk_bytes = self.store.disk_bytes()
        msg.ingest_rate_hz = float(snap.rate_hz)
        msg.queue_depth = self.worker.depth
        msg.queue_depth_max = self.worker.take_peak_depth()
        msg.queue_capacity = self.worker.capacity
        msg.rejected_queries = self.store.counter("rejected_queries")
        self.stats_publisher.publish(msg)
        self._publish_health(snap, msg)

    def _publish_health(self, snap: StatsSnapshot, stats: MemoryStats) -> None:
        audio_drops = sum(self.audio.stats().dropped.values())
        used = self.store.used_bytes()
        health = assess(
            self._last_snapshot,
            snap,
            used,
            self.config.retention.max_disk_mb * 1e6,
            audio_drops - self._last_audio_drops,
            quarantined=self.store.event_count(QUARANTINED),
        )
        self._last_snapshot, self._last_audio_drops = snap, audio_drops
        status = DiagnosticStatus(
            level=bytes([health.level]),
            name=f"{self.get_fully_qualified_name()}: memory ingest",
            message=health.message,
            hardware_id=str(self.config.store_path()),
        )
        status.values = [
            KeyValue(key=key, value=str(value))
            for key, value in (
                ("frames_received", stats.frames_received),
                ("frames_kept", stats.frames_kept),
                ("frames_dropped", stats.frames_dropped),
                ("queue_depth", f"{stats.queue_depth}/{stats.queue_capacity}"),
                ("events", stats.events),
                ("disk_used_mb", f"{used / 1e6:.1f}"),
                ("ram_mb", f"{stats.ram_bytes / 1e6:.1f}"),
            )
        ]
        array = DiagnosticArray(status=[status])
        array.header.stamp = stats.header.stamp
        self.diagnostics_publisher.publish(array)

    def close(self) -> None:
        self.audio.close()
        self.worker.stop()
        self.pipeline.finish()
        self.store.close()


def _rss_bytes() -> int:
    try:
        with open(f"/proc/{os.getpid()}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def main(args: list[str] | None = None) -> int:
    return run_nodes([IngestNode], args if args is not None else sys.argv)


if __name__ == "__main__":
    sys.exit(main())
