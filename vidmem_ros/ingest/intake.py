"""Sensor messages in, one call per message: convert, check, count, hand on.

The ingest node's callbacks are one line each over this class, and the
property-based fault tests drive the very same calls, so what the tests prove
about hostile messages holds for the node.  Nothing raises past it: a message
that cannot be used is dropped with its reason counted (and a throttled
warning); memory is only ever handed checked records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vidmem_ros.errors import InputError
from vidmem_ros.ingest.audio import AudioPipeline
from vidmem_ros.ingest.frames import FrameInput
from vidmem_ros.ingest.messages import audio_chunk, compressed_frame, image_frame, stamped_pose
from vidmem_ros.ingest.worker import IngestPipeline


class SensorIntake:
    def __init__(
        self,
        pipeline: IngestPipeline,
        submit: Callable[[FrameInput], object] | None = None,
        audio: AudioPipeline | None = None,
    ) -> None:
        """``submit`` takes each converted frame (a worker's queue); by default the pipeline ingests it inline."""
        self.pipeline = pipeline
        self.submit = submit or pipeline.ingest
        self.audio = audio

    def image(self, msg: Any, topic: str) -> None:
        """sensor_msgs/Image."""
        self._frame(lambda: image_frame(msg, topic))

    def compressed(self, msg: Any, topic: str) -> None:
        """sensor_msgs/CompressedImage."""
        self._frame(lambda: compressed_frame(msg, topic))

    def pose(self, msg: Any) -> bool:
        """nav_msgs/Odometry, geometry_msgs/PoseStamped or PoseWithCovarianceStamped; False when refused."""
        return self.pipeline.add_pose(*stamped_pose(msg))

    def audio_chunk(self, msg: Any) -> bool:
        """vidmem_ros/AudioChunk; False when dropped (or when audio is not ingested)."""
        return self.audio is not None and self.audio.push(audio_chunk(msg))

    def _frame(self, convert: Callable[[], FrameInput]) -> None:
        try:
            frame = convert()
        except InputError as exc:
            self.pipeline.stats.received()
            self.pipeline.stats.dropped(exc.reason)
            self.pipeline.warnings.warning(exc.reason, f"dropped a frame: {exc}")
            return
        self.submit(frame)
