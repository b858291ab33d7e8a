"""Reading a rosbag2 (MCAP or sqlite3) as the library's records, without ROS installed.

The bag evaluator feeds these records to the same ingestion code the ingest
node runs.  A topic of the wrong type is skipped with a message naming it, a
message that does not decode is counted, and damage found while reading ends
the stream with a message saying how far it got.  An MCAP cut short has lost
its footer, so rosbags cannot open it at all: that is an ``InputError`` naming
the file.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from vidmem_ros.errors import InputError
from vidmem_ros.ingest.frames import FrameInput
from vidmem_ros.ingest.messages import audio_chunk, compressed_frame, image_frame, stamped_pose
from vidmem_ros.memory.records import Pose
from vidmem_ros.perception.audio import AudioChunkData

log = logging.getLogger(__name__)

AUDIO_MSGTYPE = "vidmem_ros/msg/AudioChunk"
AUDIO_CHUNK_MSG = """\
std_msgs/Header header
uint32 sample_rate
uint8 channels
string encoding
uint8[] data
"""
POSE_TYPES = (
    "nav_msgs/msg/Odometry",
    "geometry_msgs/msg/PoseStamped",
    "geometry_msgs/msg/PoseWithCovarianceStamped",
)


def typestore() -> Any:
    """ROS 2 Jazzy's message types plus ``vidmem_ros/msg/AudioChunk``, for bags that carry no definitions."""
    store = get_typestore(Stores.ROS2_JAZZY)
    store.register(get_types_from_msg(AUDIO_CHUNK_MSG, AUDIO_MSGTYPE))
    return store


@dataclass(frozen=True)
class BagTopics:
    image: str = "/camera/image_raw"
    compressed: str = "/camera/image_raw/compressed"
    audio: str = "/audio"
    pose: str = "/odom"

    def expected(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """topic -> (role, accepted message types)."""
        return {
            self.image: ("image", ("sensor_msgs/msg/Image",)),
            self.compressed: ("compressed", ("sensor_msgs/msg/CompressedImage",)),
            self.audio: ("audio", (AUDIO_MSGTYPE,)),
            self.pose: ("pose", POSE_TYPES),
        }


@dataclass(frozen=True)
class BagRecord:
    """One message as a record: exactly one of frame, audio or pose is set."""

    t: float  # seconds after the bag's first message (recording time)
    frame: FrameInput | None = None
    audio: AudioChunkData | None = None
    pose: tuple[float, Pose] | None = None


@dataclass
class BagReport:
    problems: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    truncated: bool = False


class BagStream:
    """Iterates a bag's camera, audio and pose messages in recording order."""

    def __init__(self, path: str | Path, topics: BagTopics | None = None) -> None:
        self.path = Path(path)
        self.topics = topics or BagTopics()
        self.report = BagReport()
        if not self.path.exists():
            raise InputError("no_bag", f"{self.path} does not exist")
        try:
            self._reader = AnyReader([self.path], default_typestore=typestore())
            self._reader.open()
        except Exception as exc:  # rosbags raises its own error types for every kind of damage
            raise InputError("bad_bag", f"cannot open {self.path} as a rosbag2: {exc}") from exc
        self.start_ns = int(self._reader.start_time)
        self.duration_s = max(0.0, (int(self._reader.end_time) - self.start_ns) * 1e-9)
        self._roles = self._match_topics()

    @property
    def start_s(self) -> float:
        return self.start_ns * 1e-9

    def _match_topics(self) -> dict[str, str]:
        roles: dict[str, str] = {}
        present = {c.topic: c.msgtype for c in self._reader.connections}
        for topic, (role, types) in self.topics.expected().items():
            msgtype = present.get(topic)
            if msgtype is None:
                continue
            if msgtype not in types:
                self._problem(f"topic {topic} has type {msgtype}; {role} needs {' or '.join(types)}: skipped")
                continue
            roles[topic] = role
        if not {"image", "compressed"} & set(roles.values()):
            cameras = f"{self.topics.image} or {self.topics.compressed}"
            images = [t for t, m in present.items() if m.startswith("sensor_msgs/msg/") and "Image" in m]
            hint = (
                f"; the bag's image topics: {', '.join(images)} (see --image-topic, --compressed-topic)"
                if images
                else ""
            )
            self._problem(f"{self.path}: no camera topic ({cameras}); nothing will be seen, only heard{hint}")
        if "pose" not in roles.values():
            self._problem(f"{self.path}: no pose topic {self.topics.pose}; answers will carry no place")
        return roles

    def __iter__(self) -> Iterator[BagRecord]:
        connections = [c for c in self._reader.connections if c.topic in self._roles]
        played = 0
        try:
            for connection, stamp_ns, raw in self._reader.messages(connections=connections):
                played += 1
                record = self._record(connection, (stamp_ns - self.start_ns) * 1e-9, raw)
                if record is not None:
                    yield record
        except Exception as exc:  # a truncated or corrupt chunk: keep what was read, say where it stopped
            self.report.truncated = True
            self._problem(f"{self.path} is damaged after {played} messages: {exc}; the rest was not read")

    def _record(self, connection: Any, t: float, raw: bytes) -> BagRecord | None:
        role = self._roles[connection.topic]
        try:
            msg = self._reader.deserialize(raw, connection.msgtype)
            self.report.counts[role] += 1
            if role == "image":
                return BagRecord(t, frame=image_frame(msg, connection.topic))
            if role == "compressed":
                return BagRecord(t, frame=compressed_frame(msg, connection.topic))
            if role == "audio":
                return BagRecord(t, audio=audio_chunk(msg))
            return BagRecord(t, pose=stamped_pose(msg))
        except Exception as exc:  # one bad message never ends the read
            self.report.counts[f"{role}_undecodable"] += 1
            if self.report.counts[f"{role}_undecodable"] == 1:
                self._problem(f"{connection.topic}: a message at t={t:.3f} s does not decode ({exc}); skipped")
            return None

    def _problem(self, text: str) -> None:
        log.warning(text)
        self.report.problems.append(text)

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> BagStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
