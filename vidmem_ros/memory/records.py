"""Records the memory keeps; plain data shared by the store, the engine and the agent."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vidmem_ros.perception.types import Detection, Tag, TextLine


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
    """A retained camera frame; ``jpeg`` is None once retention has dropped its payload."""

    stamp: float  # sensor time, seconds since the epoch
    source: str  # topic it came from
    width: int
    height: int
    jpeg: bytes | None
    sharpness: float = 0.0
    quality: float = 0.0  # keyframe quality: sharpness x (1 + w x hue entropy)
    detections: list[Detection] = field(default_factory=list)
    texts: list[TextLine] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)  # what a whole-frame classifier saw
    pose: Pose | None = None
    embedding: np.ndarray | None = None  # L2-normalised visual feature
    event_id: int | None = None
    tier: str = "recent"
    id: int | None = None


@dataclass(frozen=True)
class Sighting:
    """One detection of a label in a stored moment."""

    moment_id: int
    stamp: float
    label: str
    score: float
    pose: Pose | None


@dataclass
class Event:
    """Contiguous moments between two segmentation boundaries."""

    id: int
    start: float
    end: float
    status: str  # open | closed
    reason: str  # why it started: start, gap, histogram, embedding, max_duration, ...
    frame_count: int = 0
    caption: str = ""
    change: str = ""  # what changed from the previous event
    labels: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    transcript: list[str] = field(default_factory=list)
    keyframe_ids: list[int] = field(default_factory=list)
    super_id: int | None = None
    start_pose: Pose | None = None
    end_pose: Pose | None = None
    path_m: float = 0.0  # distance travelled during the event


@dataclass(frozen=True)
class Transcript:
    """A recognised speech segment."""

    start: float
    end: float
    text: str
    speaker: str = ""
    id: int | None = None
    speaker_id: int | None = None  # the voice that said it (``speakers``), None when none could be told
    voice: np.ndarray | None = field(default=None, compare=False, repr=False)  # speaker vector, on its way in


@dataclass(frozen=True)
class TextRead:
    """A line of text read in a stored moment, with where the robot was."""

    id: int
    moment_id: int
    stamp: float
    text: str
    score: float
    pose: Pose | None
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # in the frame's pixels, as read


@dataclass(frozen=True)
class FaceSighting:
    """A face seen on a stored frame, with the identity it was given and where the robot was."""

    id: int
    moment_id: int
    stamp: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in the frame's pixels
    face_id: int
    pose: Pose | None


@dataclass(frozen=True)
class SuperEvent:
    id: int
    start: float
    end: float
    event_count: int
    summary: str


@dataclass(frozen=True)
class Edge:
    """A typed relation between two events (temporal or causal)."""

    src: int
    dst: int
    kind: str
    confidence: float = 1.0
    origin: str = "auto"  # auto | captioner | llm
    evidence: str = ""


@dataclass(frozen=True)
class Entity:
    """A recurring thing, unified across events by its prototype embedding."""

    id: int
    label: str
    sightings: int
    first_stamp: float
    last_stamp: float


@dataclass(frozen=True)
class SearchHit:
    """One result of a memory search, citable by kind and ref."""

    kind: str  # moment | event | text | transcript | super_event | root
    ref: int
    stamp: float
    end_stamp: float
    score: float
    text: str = ""
    pose: Pose | None = None
