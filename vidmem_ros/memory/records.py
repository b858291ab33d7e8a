"""Records the memory keeps; plain data shared by the store, the pipeline and the agent."""

from __future__ import annotations

from dataclasses import dataclass, field

from vidmem_ros.perception.types import Detection


@dataclass(frozen=True)
class Pose:
    """Robot pose in a named frame (position in metres, orientation as a unit quaternion)."""

    frame_id: str
    x: float
    y: float
    z: float = 0.0
    qx: float = 0.0
    qy: float = 0.0
    qz: float = 0.0
    qw: float = 1.0


@dataclass
class Moment:
    """A retained camera frame."""

    stamp: float  # sensor time, seconds since the epoch
    source: str  # topic it came from
    width: int
    height: int
    jpeg: bytes
    sharpness: float = 0.0
    detections: list[Detection] = field(default_factory=list)
    pose: Pose | None = None
    id: int | None = None


@dataclass(frozen=True)
class Sighting:
    """One detection of a label in a stored moment."""

    moment_id: int
    stamp: float
    label: str
    score: float
    pose: Pose | None
