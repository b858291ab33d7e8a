"""Builds the sample patrol: a rosbag2 (MCAP) of a robot camera moving through rooms.

The rooms are photos that ship inside scikit-image, seen through a 640x480
window that pans across them, with sensor noise, motion-blurred transitions
between rooms, a stop (a static view) and a revisit, plus odometry on /odom.
The scenario is data, so tests know what was shown where and when.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from vidmem_ros.tools.sample_images import photo

CAMERA_TOPIC = "/camera/image_raw/compressed"
RAW_CAMERA_TOPIC = "/camera/image_raw"
ODOM_TOPIC = "/odom"
START_STAMP = 1_782_900_000.0  # sensor time of the first message
WIDTH, HEIGHT = 640, 480
TRANSITION_S = 2.0


@dataclass(frozen=True)
class Room:
    name: str
    photo: str  # skimage.data function
    seconds: float
    start_xy: tuple[float, float]
    end_xy: tuple[float, float]
    objects: tuple[str, ...]  # detector labels visible in the photo
    stop_s: tuple[float, float] | None = None  # (from, to) seconds into the room where the robot stands still


SCENARIO: tuple[Room, ...] = (
    Room("corridor", "brick", 14.0, (0.0, 0.0), (6.0, 0.0), ()),
    Room("kitchen", "coffee", 22.0, (7.0, 0.0), (12.0, 2.0), ("cup",)),
    Room("lab", "astronaut", 22.0, (13.0, 2.0), (18.0, 4.0), ("person",)),
    Room("living room", "chelsea", 28.0, (19.0, 4.0), (22.0, 8.0), ("cat",), stop_s=(8.0, 20.0)),
    Room("garage", "stereo_motorcycle", 20.0, (23.0, 8.0), (28.0, 8.0), ("motorcycle",)),
    Room("office", "camera", 16.0, (28.0, 6.0), (24.0, 2.0), ("person",)),
    Room("kitchen", "coffee", 14.0, (12.0, 2.0), (8.0, 0.0), ("cup",)),
)


@dataclass(frozen=True)
class Visit:
    room: Room
    start: float  # seconds from the first message
    end: float


def timeline(scenario: tuple[Room, ...] = SCENARIO) -> list[Visit]:
    visits, t = [], 0.0
    for i, room in enumerate(scenario):
        visits.append(Visit(room, t, t + room.seconds))
        t += room.seconds + (TRANSITION_S if i < len(scenario) - 1 else 0.0)
    return visits


def duration(scenario: tuple[Room, ...] = SCENARIO) -> float:
    return timeline(scenario)[-1].end


def _photo(name: str) -> np.ndarray:
    image = photo(name)
    scale = max(WIDTH * 1.3 / image.shape[1], HEIGHT * 1.3 / image.shape[0])
    size = (math.ceil(image.shape[1] * scale), math.ceil(image.shape[0] * scale))
    return cv2.resize(image, size, interpolation=cv2.INTER_CUBIC)


class Camera:
    """Renders what the robot's camera sees at a time of the scenario."""

    def __init__(self, scenario: tuple[Room, ...], seed: int = 7) -> None:
        self.visits = timeline(scenario)
        self.photos = {room.photo: _photo(room.photo) for room in scenario}
        rng = np.random.default_rng(seed)
        self._noise = [rng.normal(0.0, 2.0, (HEIGHT, WIDTH, 3)).astype(np.float32) for _ in range(6)]
        self._rng = rng

    def view(self, visit: Visit, t: float) -> np.ndarray:
        photo = self.photos[visit.room.photo]
        progress = self._progress(visit, t)
        max_x, max_y = photo.shape[1] - WIDTH, photo.shape[0] - HEIGHT
        x = int(max_x * progress)
        y = int(max_y * (0.5 + 0.4 * math.sin(2 * math.pi * progress)))
        return photo[y : y + HEIGHT, x : x + WIDTH]

    def _progress(self, visit: Visit, t: float) -> float:
        """Share of the pan done at t; frozen while the robot stands still."""
        local = min(max(t - visit.start, 0.0), visit.room.seconds)
        stop = visit.room.stop_s
        moving = visit.room.seconds - (stop[1] - stop[0] if stop else 0.0)
        if stop:
            local = local if local < stop[0] else (stop[0] if local < stop[1] else local - (stop[1] - stop[0]))
        return local / moving

    def frame(self, t: float) -> np.ndarray:
        image: np.ndarray = np.zeros((HEIGHT, WIDTH, 3), np.float32)
        for i, visit in enumerate(self.visits):
            if t < visit.end or i == len(self.visits) - 1:
                if t >= visit.start:
                    image = self.view(visit, t).astype(np.float32)
                else:  # moving between rooms: a fast, blurred swing from the last room to this one
                    before = self.visits[i - 1]
                    mix = (t - before.end) / TRANSITION_S
                    image = (1 - mix) * self.view(before, before.end) + mix * self.view(visit, visit.start)
                    image = cv2.GaussianBlur(image, (0, 0), 9.0)
                break
        noisy = image + self._noise[int(self._rng.integers(len(self._noise)))]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def pose(self, t: float) -> tuple[float, float, float]:
        """x, y, yaw of the robot at t, moving linearly through each room and between rooms."""
        for i, visit in enumerate(self.visits):
            if t <= visit.end or i == len(self.visits) - 1:
                if t >= visit.start:
                    frac = self._progress(visit, t)
                    a, b = visit.room.start_xy, visit.room.end_xy
                else:
                    before = self.visits[i - 1]
                    frac = (t - before.end) / TRANSITION_S
                    a, b = before.room.end_xy, visit.room.start_xy
                x, y = a[0] + (b[0] - a[0]) * frac, a[1] + (b[1] - a[1]) * frac
                return x, y, math.atan2(b[1] - a[1], b[0] - a[0])
        raise AssertionError("unreachable")


def _stamp(typestore: Any, seconds: float) -> Any:
    time_cls = typestore.types["builtin_interfaces/msg/Time"]  # type: ignore[attr-defined]
    sec = int(seconds)
    return time_cls(sec=sec, nanosec=round((seconds - sec) * 1e9))


def _messages(camera: Camera, camera_hz: float, odom_hz: float) -> Iterator[tuple[str, float, Any]]:
    end = camera.visits[-1].end
    events = [(i / camera_hz, "camera") for i in range(int(end * camera_hz) + 1)]
    events += [(i / odom_hz, "odom") for i in range(int(end * odom_hz) + 1)]
    for t, kind in sorted(events):
        yield (kind, t, camera.frame(t) if kind == "camera" else camera.pose(t))


def write_sample_bag(
    path: str | Path,
    camera_hz: float = 10.0,
    odom_hz: float = 10.0,
    raw: bool = False,
    scenario: tuple[Room, ...] = SCENARIO,
    jpeg_quality: int = 85,
) -> Path:
    """Write the scenario as a rosbag2 directory (MCAP); returns its path."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} exists; remove it first")
    ts = get_typestore(Stores.ROS2_JAZZY)
    Header = ts.types["std_msgs/msg/Header"]
    Compressed = ts.types["sensor_msgs/msg/CompressedImage"]
    RawImage = ts.types["sensor_msgs/msg/Image"]
    Odometry = ts.types["nav_msgs/msg/Odometry"]
    g = {
        n: ts.types[f"geometry_msgs/msg/{n}"]
        for n in ("Point", "Quaternion", "Pose", "PoseWithCovariance", "Twist", "TwistWithCovariance", "Vector3")
    }
    camera = Camera(scenario)
    path.parent.mkdir(parents=True, exist_ok=True)
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        if raw:
            cam = writer.add_connection(RAW_CAMERA_TOPIC, RawImage.__msgtype__, typestore=ts)
        else:
            cam = writer.add_connection(CAMERA_TOPIC, Compressed.__msgtype__, typestore=ts)
        odom = writer.add_connection(ODOM_TOPIC, Odometry.__msgtype__, typestore=ts)
        for kind, t, payload in _messages(camera, camera_hz, odom_hz):
            stamp = START_STAMP + t
            nanos = round(stamp * 1e9)
            if kind == "camera":
                header = Header(stamp=_stamp(ts, stamp), frame_id="camera")
                rgb = payload
                if raw:
                    msg = RawImage(
                        header=header,
                        height=HEIGHT,
                        width=WIDTH,
                        encoding="rgb8",
                        is_bigendian=0,
                        step=WIDTH * 3,
                        data=np.ascontiguousarray(rgb).reshape(-1),
                    )
                else:
                    ok, jpeg = cv2.imencode(
                        ".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality]
                    )
                    assert ok
                    msg = Compressed(header=header, format="rgb8; jpeg compressed bgr8", data=jpeg.reshape(-1))
                writer.write(cam, nanos, ts.serialize_cdr(msg, msg.__msgtype__))
            else:
                x, y, yaw = payload  # type: ignore[misc]
                pose = g["Pose"](
                    position=g["Point"](x=x, y=y, z=0.0),
                    orientation=g["Quaternion"](x=0.0, y=0.0, z=math.sin(yaw / 2), w=math.cos(yaw / 2)),
                )
                zero = g["Vector3"](x=0.0, y=0.0, z=0.0)
                msg = Odometry(
                    header=Header(stamp=_stamp(ts, stamp), frame_id="map"),
                    child_frame_id="base_link",
                    pose=g["PoseWithCovariance"](pose=pose, covariance=np.zeros(36)),
                    twist=g["TwistWithCovariance"](
                        twist=g["Twist"](linear=zero, angular=zero), covariance=np.zeros(36)
                    ),
                )
                writer.write(odom, nanos, ts.serialize_cdr(msg, msg.__msgtype__))
    return path
