"""Ingest node: camera and pose topics in, moments written to the store, memory_stats out.

A lifecycle node: configure opens the store and creates the publishers; activate subscribes and loads the
models; deactivate stops taking input, closes the last event and frees the models; cleanup closes the store.
With ``autostart`` (the default) it goes straight to active."""

from __future__ import annotations

import copy
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from nav_msgs.msg import Odometry
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from rclpy.qos_overriding_options import QoSOverridingOptions
from rclpy.subscription import Subscription
from rclpy.timer import Timer
from sensor_msgs.msg import CompressedImage, Image

from vidmem_ros.errors import VidmemError
from vidmem_ros.fleet.milvus import embedded
from vidmem_ros.fleet.sync import SyncLoop, SyncReport, build_fleet_sync
from vidmem_ros.ingest.audio import AudioPipeline
from vidmem_ros.ingest.frames import FrameInput
from vidmem_ros.ingest.health import WARN, Health, assess, pose_problem
from vidmem_ros.ingest.intake import SensorIntake
from vidmem_ros.ingest.startup_buffer import SMALL_MESSAGE_BYTES, StartupBuffer, message_stamp
from vidmem_ros.ingest.stats import StatsSnapshot
from vidmem_ros.ingest.worker import IngestPipeline, IngestWorker
from vidmem_ros.memory.archive import QUARANTINED
from vidmem_ros.memory.records import Event
from vidmem_ros.memory.retention import forgotten
from vidmem_ros.memory.store import SqliteStore, open_writer_or_start_fresh
from vidmem_ros.msg import AudioChunk, MemoryStats
from vidmem_ros.msg import Event as EventMsg
from vidmem_ros.ros.convert import event_msg
from vidmem_ros.ros.memory_node import MemoryNode
from vidmem_ros.ros.runtime import Spinner, run_nodes
from vidmem_ros.ros.tf_pose import TfPoseLookup

# How long closing waits for subscribers to acknowledge the last events.
EVENTS_ACK_S = 2.0
# How long closing waits for models still loading (a stop during start-up), so what was held is ingested.
LOADER_WAIT_S = 60.0
POSE_WARNING_PERIOD_S = 30.0  # how often the log repeats that no pose arrives


class IngestNode(MemoryNode):
    """Subscribes first, then loads the models on a thread of its own: what arrives meanwhile is held in a
    bounded buffer and ingested once they are ready, so a restart loses only the seconds before the
    subscriptions exist.  A model that fails to load ends the process with the error (``startup_failure``)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__("vidmem_ingest", **kwargs)
        self.pipeline: IngestPipeline | None = None
        self.worker: IngestWorker | None = None
        self.audio: AudioPipeline | None = None
        self.intake: SensorIntake | None = None
        self._intake_lock = threading.Lock()  # the hand-over from the buffer to the intake keeps arrival order
        self._inputs: list[Subscription] = []
        self._timer: Timer | None = None
        self._loader: threading.Thread | None = None
        self.pose_node: Node | None = None
        self.pose_spinner: Spinner | None = None
        self.tf: TfPoseLookup | None = None
        self.fleet_sync: SyncLoop | None = None
        self._fleet_report: SyncReport | None = None

    # -- lifecycle -----------------------------------------------------------------

    def _configure(self) -> None:
        self.stats_publisher = self.create_lifecycle_publisher(MemoryStats, "memory_stats", 10)
        self.events_publisher = self.create_lifecycle_publisher(EventMsg, "events", 50)
        self.diagnostics_publisher = self.create_lifecycle_publisher(DiagnosticArray, "/diagnostics", 10)

    def _activate(self) -> None:
        cfg = self.config
        self.startup = StartupBuffer(cfg.ingest.sample_fps, int(cfg.ingest.startup_buffer_mb * 1_000_000))
        # Callbacks only convert and enqueue; the worker thread does the heavy work.
        sensors = MutuallyExclusiveCallbackGroup()
        cameras = self._subscribe_camera(cfg.ingest.image_transport, sensors)
        self._inputs.append(self._sensor_subscription(AudioChunk, "audio", self._on_audio, sensors))
        self.pose_node, self.pose_spinner, self.tf = self._subscribe_poses()
        self._last_snapshot: StatsSnapshot | None = None
        self._last_audio_drops = 0
        self._timer = self.create_timer(cfg.ingest.stats_period_s, self.publish_stats)
        self.get_logger().info(
            f"ingesting {' and '.join(cameras)} into {cfg.store_path()} "
            f"(profile {cfg.profile}, {cfg.ingest.sample_fps} fps, detector {cfg.detector.backend}); loading models"
        )
        self._loader = threading.Thread(target=self._load, name="vidmem-load", daemon=True)
        self._loader.start()

    def _stop(self) -> None:
        """Stop taking input, then ingest what is queued, close the last event (published while ROS is still up)
        and drop the models, so their memory goes back."""
        for subscription in self._inputs:
            self.destroy_subscription(subscription)
        self._inputs = []
        if self._timer is not None:
            self.destroy_timer(self._timer)
            self._timer = None
        if self.pose_spinner is not None:
            self.pose_spinner.stop()
        if self._loader is not None:
            self._loader.join(LOADER_WAIT_S)  # stopped while loading: what was held is ingested first
            self._loader = None
        if self.audio is not None:
            self.audio.close()
        if self.worker is not None:
            self.worker.stop()
        if self.pipeline is not None:
            self.pipeline.finish()
            # The last event was published just now: give subscribers a moment to take it before the node goes.
            self.events_publisher.wait_for_all_acked(Duration(seconds=EVENTS_ACK_S))
        if self.fleet_sync is not None:
            self.fleet_sync.stop()  # a last round: what was committed goes on if the fleet store is up
            self.fleet_sync = None
        if self.pose_node is not None:
            self.pose_node.destroy_node()
        with self._intake_lock:
            self.pipeline = self.worker = self.audio = self.intake = None
        self.pose_node = self.pose_spinner = self.tf = None

    def _open_store(self) -> SqliteStore:
        # A damaged store is set aside, not written, and memory starts afresh: the robot goes on remembering.
        return open_writer_or_start_fresh(self.config.store_path(), self.config.store.check_s)

    def _release(self) -> None:
        if self._store is not None:
            for publisher in (self.stats_publisher, self.events_publisher, self.diagnostics_publisher):
                self.destroy_lifecycle_publisher(publisher)
        super()._release()

    # -- ingesting -----------------------------------------------------------------

    def _load(self) -> None:
        """Load the models, then hand what the buffer holds to the intake and let callbacks reach it directly."""
        started = time.monotonic()
        try:
            pipeline = IngestPipeline.from_config(self.config, self.store)
            audio = AudioPipeline(self.config, pipeline.engine)  # recognises on its own thread
        except VidmemError as exc:
            self.startup_failure = exc
            return
        except Exception as exc:  # a bug in a model's loader must still end start-up with a message
            self.get_logger().error(f"loading the models failed: {exc!r}")
            self.startup_failure = VidmemError(f"loading the models failed: {exc!r}")
            return
        try:
            # An embedded fleet store is let go of after each round: the query node opens it too.
            keep_open = not embedded(self.config.fleet.uri)
            dim = pipeline.embedder.dim if pipeline.embedder else 0
            sync = build_fleet_sync(self.config, self.store, dim, keep_open)
        except VidmemError as exc:
            self.startup_failure = exc
            return
        worker = IngestWorker(pipeline, self.config.ingest.queue_size)
        pipeline.engine.listeners.append(self._publish_event)
        with self._intake_lock:
            self.pipeline, self.worker, self.audio = pipeline, worker, audio
            self.intake = SensorIntake(pipeline, self._submit, audio)
            if sync is not None:  # memory goes on to the fleet store from a thread of its own
                self.fleet_sync = SyncLoop(sync, self.config.fleet.sync_period_s, self._on_fleet_round)
            with worker.backlog():  # callbacks wait on the lock meanwhile: arrival order holds
                held = self.startup.release(pipeline.stats)
        self.get_logger().info(
            f"models ready after {time.monotonic() - started:.1f} s; ingesting the {held.delivered} messages "
            f"that arrived meanwhile ({held.thinned} frames over the working rate, {held.overflowed} over "
            "ingest.startup_buffer_mb)"
        )

    def _take_frame(self, msg: Image | CompressedImage, topic: str, deliver: Callable[[SensorIntake], object]) -> None:
        with self._intake_lock:
            if self.intake is None:
                self.startup.hold_frame(lambda: deliver(self._ready()), topic, message_stamp(msg), len(msg.data))
                return
        deliver(self.intake)

    def _on_audio(self, msg: AudioChunk) -> None:
        self._take(lambda i: i.audio_chunk(msg), len(msg.data))

    def _take(self, deliver: Callable[[SensorIntake], object], size: int = SMALL_MESSAGE_BYTES) -> None:
        with self._intake_lock:
            if self.intake is None:
                self.startup.hold(lambda: deliver(self._ready()), size)
                return
        deliver(self.intake)

    def _ready(self) -> SensorIntake:
        """The intake, for messages delivered from the buffer (it exists by then)."""
        assert self.intake is not None
        return self.intake

    def _subscribe_camera(self, transport: str, group: MutuallyExclusiveCallbackGroup) -> list[str]:
        """Subscribe to the camera by one transport (raw ``image`` or ``image/compressed``), or both; the resolved
        topic names subscribed."""
        topics = []
        if transport != "compressed":
            raw = self.resolve_topic_name("image")
            self._inputs.append(self._sensor_subscription(Image, "image", partial(self._on_image, raw), group))
            topics.append(raw)
        if transport != "raw":
            packed = self.resolve_topic_name("image/compressed")
            subscribe = self._sensor_subscription(
                CompressedImage, "image/compressed", partial(self._on_compressed, packed), group
            )
            self._inputs.append(subscribe)
            topics.append(packed)
        return topics

    def _sensor_subscription(
        self, msg_type: type, topic: str, callback: Callable[[Any], None], group: MutuallyExclusiveCallbackGroup
    ) -> Subscription:
        """Sensor-data QoS (best effort, depth 5) unless the standard ``qos_overrides.<topic>.subscription.*``
        parameters say otherwise: a replay for evaluation, which must lose nothing, asks for reliable and deep."""
        return self.create_subscription(
            msg_type,
            topic,
            callback,
            copy.copy(qos_profile_sensor_data),  # rclpy writes the overrides into the profile it is given
            callback_group=group,
            qos_overriding_options=QoSOverridingOptions.with_default_policies(),
        )

    def _on_image(self, topic: str, msg: Image) -> None:
        self._take_frame(msg, topic, lambda intake: intake.image(msg, topic))

    def _on_compressed(self, topic: str, msg: CompressedImage) -> None:
        self._take_frame(msg, topic, lambda intake: intake.compressed(msg, topic))

    def _subscribe_poses(self) -> tuple[Node, Spinner, TfPoseLookup | None]:
        """Poses (a topic, or tf) on a node and thread of their own, so they never wait behind frames; the
        camera stays on this node's single-threaded executor (see ``runtime.executor_for``)."""
        cfg = self.config.ingest
        node = Node(
            f"{self.get_name()}_poses",
            namespace=self.get_namespace(),
            context=self.context,
            cli_args=["--ros-args", "-r", f"__node:={self.get_name()}_poses"],  # whatever renames this node
            start_parameter_services=False,
        )
        try:
            tf = TfPoseLookup(node, cfg.tf_frame, cfg.tf_base_frame) if cfg.tf_frame else None
        except VidmemError:
            node.destroy_node()
            raise
        if tf is None:  # one pose source, so every stored pose is in one frame
            pose_type = {"odom": Odometry, "pose": PoseStamped, "pose_with_covariance": PoseWithCovarianceStamped}
            topic = self.resolve_topic_name(cfg.pose_source)  # as this node's remappings name it
            # Best effort matches every publisher: drivers and simulators often publish odometry best-effort, and a
            # reliable subscription would silently never connect to them.
            qos = QoSProfile(depth=50, reliability=ReliabilityPolicy.BEST_EFFORT, durability=DurabilityPolicy.VOLATILE)
            node.create_subscription(pose_type[cfg.pose_source], topic, lambda m: self._take(lambda i: i.pose(m)), qos)
        return node, Spinner(node), tf

    def _submit(self, frame: FrameInput) -> None:
        assert self.pipeline is not None and self.worker is not None  # the intake exists only once they do
        if self.tf is not None:
            pose = self.tf.pose_at(frame.stamp)
            if pose is not None:
                self.pipeline.add_pose(frame.stamp, pose)
        self.worker.submit(frame)

    def _on_fleet_round(self, report: SyncReport) -> None:
        self._fleet_report = report

    def _publish_event(self, event: Event) -> None:
        if self.context.ok():  # once ROS has shut down, the event is in the store with no one left to tell
            self.events_publisher.publish(event_msg(event, self.store.runs()))  # on the robot's clock

    def publish_stats(self) -> None:
        """memory_stats once ingesting; until then diagnostics say the models are loading."""
        if self.pipeline is None or self.worker is None or self.audio is None:
            message = f"starting: loading the models; {len(self.startup)} messages held until they are ready"
            self._publish_status(0, message, [], self.get_clock().now().to_msg())  # 0: OK
            return
        snap = self.pipeline.stats.snapshot()
        msg = MemoryStats()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.frames_received = snap.received
        msg.frames_dropped = snap.dropped_total
        drops = {**snap.dropped, **snap.refused}  # refused poses as pose_<reason>
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
        self._publish_health(snap, msg, sum(self.audio.stats().dropped.values()))

    def _publish_health(self, snap: StatsSnapshot, stats: MemoryStats, audio_drops: int) -> None:
        used = self.store.used_bytes()
        health = assess(
            self._last_snapshot,
            snap,
            used,
            self.config.retention.max_disk_mb * 1e6,
            audio_drops - self._last_audio_drops,
            quarantined=self.store.event_count(QUARANTINED),
            store_problem=self.pipeline.last_store_error if self.pipeline is not None else None,
        )
        self._last_snapshot, self._last_audio_drops = snap, audio_drops
        cfg = self.config.ingest
        source = f"tf ({cfg.tf_frame} to {cfg.tf_base_frame})" if self.tf else self.resolve_topic_name(cfg.pose_source)
        poses = len(self.pipeline.poses) if self.pipeline is not None else 0
        no_pose = pose_problem(snap.kept, poses, source)
        if no_pose:
            self.get_logger().warning(no_pose, throttle_duration_sec=POSE_WARNING_PERIOD_S)
            message = "; ".join(m for m in (health.message if health.level else "", no_pose) if m)
            health = Health(max(health.level, WARN), message)
        values = (
            ("frames_received", stats.frames_received),
            ("frames_kept", stats.frames_kept),
            ("frames_dropped", stats.frames_dropped),
            ("queue_depth", f"{stats.queue_depth}/{stats.queue_capacity}"),
            ("events", stats.events),
            ("disk_used_mb", f"{used / 1e6:.1f}"),
            ("forgotten", forgotten(self.store.counters())),
            ("ram_mb", f"{stats.ram_bytes / 1e6:.1f}"),
            *self._fleet_values(),
        )
        self._publish_status(health.level, health.message, values, stats.header.stamp)

    def _fleet_values(self) -> tuple[tuple[str, object], ...]:
        report = self._fleet_report
        if self.fleet_sync is None or report is None:
            return ()
        return (("fleet_sync", f"paused: {report.error}" if report.error else "ok"),)

    def _publish_status(self, level: int, message: str, values: Sequence[tuple[str, object]], stamp: Time) -> None:
        status = DiagnosticStatus(
            level=bytes([level]),
            name=f"{self.get_fully_qualified_name()}: memory ingest",
            message=message,
            hardware_id=str(self.config.store_path()),
        )
        status.values = [KeyValue(key=key, value=str(value)) for key, value in values]
        array = DiagnosticArray(status=[status])
        array.header.stamp = stamp
        self.diagnostics_publisher.publish(array)


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
