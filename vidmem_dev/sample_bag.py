"""Builds the sample patrols: rosbag2 (MCAP) recordings of a robot camera moving through rooms.

The rooms are photos that ship inside scikit-image, seen through a 640x480 window that pans across
them, with sensor noise, motion-blurred moves between rooms, stops (a static view) and revisits, plus
odometry on /odom.  ``PATROL`` (about ten minutes; what ``vidmem make-bag`` and the demo write) also has
signs drawn onto the rooms' walls and people speaking on /audio (``vidmem_ros/msg/AudioChunk``, espeak-ng
speech); ``SHORT_PATROL`` (148 s, no signs, no speech) is what the fast tests replay.  A scenario is data,
so tests and the question set (``sample_questions``) know what was shown, read and said, where and when.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from vidmem_dev.sample_images import photo
from vidmem_dev.synth import PLATES, Speech, paste, sign_plate

CAMERA_TOPIC = "/camera/image_raw/compressed"
RAW_CAMERA_TOPIC = "/camera/image_raw"
ODOM_TOPIC = "/odom"
AUDIO_TOPIC = "/audio"
AUDIO_MSGTYPE = "vidmem_ros/msg/AudioChunk"
AUDIO_CHUNK_MSG = """\
std_msgs/Header header
uint32 sample_rate
uint8 channels
string encoding      # "S16LE" or "F32LE", interleaved samples
uint8[] data
"""  # msg/AudioChunk.msg (a test keeps the two the same)
START_STAMP = 1_782_900_000.0  # sensor time of the first message
WIDTH, HEIGHT = 640, 480
TRANSITION_S = 2.0  # default length of the blurred move into a room
AUDIO_RATE = 16_000  # Hz, S16LE mono
AUDIO_CHUNK_S = 0.1
ROOM_TONE = 30.0  # standard deviation of the background noise between utterances, in int16 steps (about -61 dBFS)
SIGN_BLUR = 0.7  # Gaussian sigma (px) of a sign as the camera sees it: no razor-sharp pasted edges
SIGN_MARGIN = 4  # px a sign's lettering must stay inside the frame to count as in view (readable)


@dataclass(frozen=True)
class Sign:
    """A text plate on a room's wall, drawn into the room's world image (its photo scaled for the camera,
    which sees it 1:1 through the 640x480 window)."""

    text: str
    left: int  # px in the world image
    top: int
    size: int = 40  # type size, px
    font: str = "DejaVuSansMono-Bold.ttf"
    colours: int | None = None  # index into synth.PLATES; None picks one by the text's length
    word_gap: int = 2  # spaces drawn between words: PP-OCR runs words set closer together into one

    def plate(self) -> np.ndarray:
        return _sign_plate(self)

    def box(self) -> tuple[int, int, int, int]:
        """x0, y0, x1, y1 of the plate in the world image."""
        h, w = self.plate().shape[:2]
        return self.left, self.top, self.left + w, self.top + h

    def text_box(self) -> tuple[int, int, int, int]:
        """x0, y0, x1, y1 of the lettering (the plate less its padding of half the type size)."""
        x0, y0, x1, y1 = self.box()
        pad = self.size // 2
        return x0 + pad, y0 + pad, x1 - pad, y1 - pad


@dataclass(frozen=True)
class Utterance:
    """Something said in a room, by someone the robot passes."""

    text: str
    at: float  # seconds into the visit when the speaker starts
    about: str  # what it is about, as a question names it ("the delivery")
    phrase: str  # words of it a question quotes ("the delivery arrived")
    answers: tuple[str, ...]  # phrases that answer "what did someone say about <about>?" (any one will do)
    seconds: float = 4.0  # it is over this long after ``at`` (the synthesised clip must fit)
    voice: str = ""  # who says it: a person of ``voices.CAST``; "" for espeak-ng's default voice


@dataclass(frozen=True)
class Room:
    """One visit of the scenario: the robot pans over ``photo`` for ``seconds`` while moving from
    ``start_xy`` to ``end_xy`` (metres, map frame)."""

    name: str
    photo: str  # skimage.data function
    seconds: float
    start_xy: tuple[float, float]
    end_xy: tuple[float, float]
    objects: tuple[str, ...]  # detector labels visible in the photo
    stop_s: tuple[float, float] | None = None  # (from, to) seconds into the room where the robot stands still
    signs: tuple[Sign, ...] = ()
    speech: tuple[Utterance, ...] = ()
    reverse: bool = False  # pan right to left (coming back the other way)
    approach_s: float = TRANSITION_S  # the blurred move into this room from the last (ignored for the first)


SHORT_PATROL: tuple[Room, ...] = (
    Room("corridor", "brick", 14.0, (0.0, 0.0), (6.0, 0.0), ()),
    Room("kitchen", "coffee", 22.0, (7.0, 0.0), (12.0, 2.0), ("cup",)),
    Room("lab", "astronaut", 22.0, (13.0, 2.0), (18.0, 4.0), ("person",)),
    Room("living room", "chelsea", 28.0, (19.0, 4.0), (22.0, 8.0), ("cat",), stop_s=(8.0, 20.0)),
    Room("garage", "stereo_motorcycle", 20.0, (23.0, 8.0), (28.0, 8.0), ("motorcycle",)),
    Room("office", "camera", 16.0, (28.0, 6.0), (24.0, 2.0), ("person",)),
    Room("kitchen", "coffee", 14.0, (12.0, 2.0), (8.0, 0.0), ("cup",)),
)
SCENARIO = SHORT_PATROL  # the name the fast tests know it by

# The ten-minute patrol.  A corridor runs east-west along y = 0 with the kitchen and lab north of it,
# the living room, garage and office south; the robot does the loop once, then a shorter second lap,
# and docks in the garage.  Signs sit where the pan keeps them whole in the frame for several seconds.
_NO_ENTRY = Sign("AUTHORIZED PERSONNEL ONLY", 100, 400, size=28, colours=0)
_WET_FLOOR = Sign("WET FLOOR", 170, 400, size=44, colours=1)
_ROOM_214 = Sign("ROOM 214", 60, 560, size=44, colours=0)
_LOADING_DOCK = Sign("LOADING DOCK", 170, 140, size=40, colours=1)
_FIRE_EXIT = Sign("FIRE EXIT", 430, 110, size=44, colours=2)
PATROL: tuple[Room, ...] = (
    Room(
        "corridor",
        "brick",
        35.0,
        (0.0, 0.0),
        (6.0, 0.0),
        (),
        signs=(_NO_ENTRY,),
        speech=(
            Utterance(
                "The fire drill is scheduled for next Tuesday.",
                8.0,
                "the fire drill",
                "fire drill",
                ("tuesday",),
            ),
        ),
    ),
    Room(
        "kitchen",
        "coffee",
        55.0,
        (7.0, 1.0),
        (9.0, 4.0),
        ("cup",),
        signs=(_WET_FLOOR,),
        speech=(
            Utterance(
                "The delivery arrived at the loading dock.",
                18.0,
                "the delivery",
                "the delivery arrived",
                ("loading dock",),
            ),
        ),
    ),
    Room(
        "lab",
        "astronaut",
        50.0,
        (10.5, 4.0),
        (13.0, 1.5),
        ("person",),
        signs=(_ROOM_214,),
        speech=(
            Utterance(
                "The printer in the lab is out of paper again.",
                14.0,
                "the printer",
                "out of paper",
                ("paper",),
            ),
        ),
    ),
    Room("corridor", "brick", 20.0, (14.0, 0.5), (19.0, 0.0), ()),
    Room(
        "living room",
        "chelsea",
        70.0,
        (19.5, -1.0),
        (17.0, -4.5),
        ("cat",),
        stop_s=(25.0, 55.0),
        speech=(
            Utterance(
                "Please water the plants on Friday morning.",
                30.0,
                "the plants",
                "water the plants",
                ("friday",),
            ),
        ),
    ),
    Room(
        "garage",
        "stereo_motorcycle",
        55.0,
        (19.5, -5.0),
        (24.0, -2.0),
        ("motorcycle",),
        signs=(_LOADING_DOCK,),
        speech=(
            Utterance(
                "Someone left the garage door open yesterday.",
                20.0,
                "the garage door",
                "left the garage door open",
                ("open",),
            ),
        ),
        approach_s=3.0,
    ),
    Room("corridor", "brick", 20.0, (24.0, 0.5), (17.0, 0.0), (), reverse=True, approach_s=3.0),
    Room(
        "office",
        "camera",
        50.0,
        (16.0, -1.0),
        (12.0, -4.0),
        ("person",),
        signs=(_FIRE_EXIT,),
        speech=(
            Utterance(
                "The meeting with the electrician starts at three o'clock.",
                12.0,
                "the electrician",
                "the meeting with the electrician",
                ("three", "3"),
            ),
        ),
    ),
    Room("corridor", "brick", 16.0, (8.0, -0.5), (3.0, 0.0), (), signs=(_NO_ENTRY,), reverse=True, approach_s=4.0),
    Room(
        "kitchen",
        "coffee",
        35.0,
        (6.5, 1.5),
        (9.0, 4.0),
        ("cup",),
        signs=(_WET_FLOOR,),
        speech=(
            Utterance(
                "We need to buy more coffee beans.",
                8.0,
                "the coffee beans",
                "buy more coffee beans",
                ("buy",),
            ),
        ),
        reverse=True,
        approach_s=4.0,
    ),
    Room("lab", "astronaut", 40.0, (10.5, 4.0), (13.0, 1.5), ("person",), signs=(_ROOM_214,)),
    Room("corridor", "brick", 15.0, (14.0, 0.5), (19.0, 0.0), ()),
    Room("living room", "chelsea", 45.0, (19.5, -1.0), (17.0, -4.5), ("cat",), reverse=True),
    Room(
        "garage",
        "stereo_motorcycle",
        65.0,
        (19.5, -5.0),
        (23.0, -2.5),
        ("motorcycle",),
        stop_s=(25.0, 55.0),
        signs=(_LOADING_DOCK,),
        speech=(
            Utterance(
                "The robot should go back to its charger after lunch.",
                30.0,
                "the charger",
                "go back to its charger",
                ("lunch",),
            ),
        ),
        approach_s=3.0,
    ),
)


@dataclass(frozen=True)
class Visit:
    room: Room
    start: float  # seconds from the first message
    end: float


@dataclass(frozen=True)
class SignSighting:
    """A stretch of time a sign's lettering is whole in the camera frame (with a margin): it can be read."""

    text: str
    start: float  # seconds from the first message
    end: float
    visit: int  # index into timeline()


@dataclass(frozen=True)
class SpokenLine:
    utterance: Utterance
    start: float  # seconds from the first message
    end: float  # the speech is over by then
    visit: int  # index into timeline()

    @property
    def text(self) -> str:
        return self.utterance.text


def timeline(scenario: tuple[Room, ...] = SHORT_PATROL) -> list[Visit]:
    visits, t = [], 0.0
    for i, room in enumerate(scenario):
        if i:
            t += room.approach_s
        visits.append(Visit(room, t, t + room.seconds))
        t += room.seconds
    return visits


def duration(scenario: tuple[Room, ...] = SHORT_PATROL) -> float:
    return timeline(scenario)[-1].end


def spoken(scenario: tuple[Room, ...] = SHORT_PATROL) -> list[SpokenLine]:
    """Every utterance with its time in the patrol, in order."""
    lines = [
        SpokenLine(u, visit.start + u.at, visit.start + u.at + u.seconds, i)
        for i, visit in enumerate(timeline(scenario))
        for u in visit.room.speech
    ]
    return sorted(lines, key=lambda line: line.start)


def sign_sightings(scenario: tuple[Room, ...] = SHORT_PATROL, step: float = 0.1) -> list[SignSighting]:
    """When each sign's lettering is whole in the frame, from the pan's geometry (sampled every ``step`` s)."""
    out = []
    visits = timeline(scenario)
    for index, visit in enumerate(visits):
        shape = _world_shape(visit.room.photo) if visit.room.signs else (0, 0)
        steps = round((visit.end - visit.start) / step)
        last = steps if index == len(visits) - 1 else steps - 1  # at its end the camera already swings away
        times = [visit.start + k * step for k in range(last + 1)]
        for sign in visit.room.signs:
            x0, y0, x1, y1 = sign.text_box()
            run_start: float | None = None
            for k, t in enumerate(times):
                ox, oy = view_origin(visit, t, shape)
                inside = (
                    ox + SIGN_MARGIN <= x0
                    and oy + SIGN_MARGIN <= y0
                    and x1 <= ox + WIDTH - SIGN_MARGIN
                    and y1 <= oy + HEIGHT - SIGN_MARGIN
                )
                if inside and run_start is None:
                    run_start = t
                if run_start is not None and (not inside or k == len(times) - 1):
                    out.append(SignSighting(sign.text, run_start, t if inside else times[k - 1], index))
                    run_start = None
    return sorted(out, key=lambda s: (s.start, s.text))


def progress(visit: Visit, t: float) -> float:
    """Share of the room's way done at t; frozen while the robot stands still."""
    local = min(max(t - visit.start, 0.0), visit.room.seconds)
    stop = visit.room.stop_s
    moving = visit.room.seconds - (stop[1] - stop[0] if stop else 0.0)
    if stop:
        local = local if local < stop[0] else (stop[0] if local < stop[1] else local - (stop[1] - stop[0]))
    return local / moving


def view_origin(visit: Visit, t: float, world_shape: tuple[int, ...]) -> tuple[int, int]:
    """Top-left corner of the camera window in the room's world image at t."""
    done = progress(visit, t)
    if visit.room.reverse:
        done = 1.0 - done
    max_x, max_y = world_shape[1] - WIDTH, world_shape[0] - HEIGHT
    return int(max_x * done), int(max_y * (0.5 + 0.4 * math.sin(2 * math.pi * done)))


def pose_at(visits: list[Visit], t: float) -> tuple[float, float, float]:
    """x, y, yaw of the robot at t, moving linearly through each room and between rooms."""
    for i, visit in enumerate(visits):
        if t <= visit.end or i == len(visits) - 1:
            if t >= visit.start:
                frac = progress(visit, t)
                a, b = visit.room.start_xy, visit.room.end_xy
            else:
                before = visits[i - 1]
                frac = (t - before.end) / (visit.start - before.end)
                a, b = before.room.end_xy, visit.room.start_xy
            x, y = a[0] + (b[0] - a[0]) * frac, a[1] + (b[1] - a[1]) * frac
            return x, y, math.atan2(b[1] - a[1], b[0] - a[0])
    raise AssertionError("unreachable")


@lru_cache(maxsize=16)
def _photo(name: str) -> np.ndarray:
    image = photo(name)
    scale = max(WIDTH * 1.3 / image.shape[1], HEIGHT * 1.3 / image.shape[0])
    size = (math.ceil(image.shape[1] * scale), math.ceil(image.shape[0] * scale))
    scaled = cv2.resize(image, size, interpolation=cv2.INTER_CUBIC)
    scaled.setflags(write=False)  # cached: shared by every caller
    return scaled


def _world_shape(name: str) -> tuple[int, ...]:
    return tuple(_photo(name).shape)


@lru_cache(maxsize=64)
def _sign_plate(sign: Sign) -> np.ndarray:
    colours = PLATES[sign.colours] if sign.colours is not None else None
    drawn = (" " * sign.word_gap).join(sign.text.split(" "))
    plate = sign_plate(drawn, sign.font, sign.size, 0.0, colours, blur=SIGN_BLUR)
    plate.setflags(write=False)
    return plate


def world(name: str, signs: tuple[Sign, ...] = ()) -> np.ndarray:
    """A room as the camera pans over it: the scaled photo with its signs drawn on."""
    image = _photo(name)
    for sign in signs:
        image = paste(image, sign.plate(), sign.left, sign.top)
    return image


class Camera:
    """Renders what the robot's camera sees at a time of the scenario."""

    def __init__(self, scenario: tuple[Room, ...], seed: int = 7) -> None:
        self.visits = timeline(scenario)
        self.worlds = {(r.photo, r.signs): world(r.photo, r.signs) for r in scenario}
        rng = np.random.default_rng(seed)
        self._noise = [rng.normal(0.0, 2.0, (HEIGHT, WIDTH, 3)).astype(np.float32) for _ in range(6)]
        self._rng = rng

    def view(self, visit: Visit, t: float) -> np.ndarray:
        image = self.worlds[(visit.room.photo, visit.room.signs)]
        x, y = view_origin(visit, t, image.shape)
        return image[y : y + HEIGHT, x : x + WIDTH]

    def frame(self, t: float) -> np.ndarray:
        image: np.ndarray = np.zeros((HEIGHT, WIDTH, 3), np.float32)
        for i, visit in enumerate(self.visits):
            if t < visit.end or i == len(self.visits) - 1:
                if t >= visit.start:
                    image = self.view(visit, t).astype(np.float32)
                else:  # moving between rooms: a fast, blurred swing from the last room to this one
                    before = self.visits[i - 1]
                    mix = (t - before.end) / (visit.start - before.end)
                    image = (1 - mix) * self.view(before, before.end) + mix * self.view(visit, visit.start)
                    image = cv2.GaussianBlur(image, (0, 0), 9.0)
                break
        noisy = image + self._noise[int(self._rng.integers(len(self._noise)))]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def pose(self, t: float) -> tuple[float, float, float]:
        """x, y, yaw of the robot at t, moving linearly through each room and between rooms."""
        return pose_at(self.visits, t)


def audio_track(scenario: tuple[Room, ...], rate: int = AUDIO_RATE, seed: int = 11) -> np.ndarray:
    """The whole patrol's sound as int16 mono: quiet room tone, each utterance spoken by espeak-ng at its time."""
    from vidmem_dev.synth import speak

    total = round(duration(scenario) * rate)
    rng = np.random.default_rng(seed)
    track = rng.normal(0.0, ROOM_TONE, total)
    for line in spoken(scenario):
        speech = speak(line.text, rate=rate) if not line.utterance.voice else spoken_by(line.utterance, rate)
        if speech.seconds > line.utterance.seconds:
            raise ValueError(
                f"{line.text!r} lasts {speech.seconds:.2f} s, longer than its {line.utterance.seconds} s slot"
            )
        first = round(line.start * rate)
        piece = speech.pcm[: max(total - first, 0)].astype(np.float64)
        track[first : first + len(piece)] += piece
    return np.clip(np.round(track), -32768, 32767).astype("<i2")


def spoken_by(utterance: Utterance, rate: int = AUDIO_RATE) -> Speech:
    """An utterance in its speaker's voice (``voices.CAST``)."""
    from vidmem_dev.synth import speak
    from vidmem_dev.voices import CAST

    voice = next(v for v in CAST if v.person == utterance.voice)
    return speak(utterance.text, voice.espeak, voice.wpm, rate, voice.pitch)


def typestore() -> Any:
    """ROS 2 Jazzy's message types plus ``vidmem_ros/msg/AudioChunk``, for writing and reading the patrol."""
    store = get_typestore(Stores.ROS2_JAZZY)
    store.register(get_types_from_msg(AUDIO_CHUNK_MSG, AUDIO_MSGTYPE))
    return store


def questions_path(bag: str | Path) -> Path:
    """Where the question set of a bag is written: beside the bag directory, not inside it."""
    bag = Path(bag)
    return bag.with_name(bag.name + ".questions.jsonl")


def _stamp(typestore: Any, seconds: float) -> Any:
    time_cls = typestore.types["builtin_interfaces/msg/Time"]  # type: ignore[attr-defined]
    sec = int(seconds)
    return time_cls(sec=sec, nanosec=round((seconds - sec) * 1e9))


def _messages(
    camera: Camera, camera_hz: float, odom_hz: float, audio: np.ndarray | None
) -> Iterator[tuple[str, float, Any]]:
    end = camera.visits[-1].end
    events = [(i / camera_hz, "camera") for i in range(int(end * camera_hz) + 1)]
    events += [(i / odom_hz, "odom") for i in range(int(end * odom_hz) + 1)]
    chunk = round(AUDIO_CHUNK_S * AUDIO_RATE)
    if audio is not None:
        events += [(i * chunk / AUDIO_RATE, "audio") for i in range(-(-len(audio) // chunk))]
    for t, kind in sorted(events):
        if kind == "camera":
            yield kind, t, camera.frame(t)
        elif kind == "odom":
            yield kind, t, camera.pose(t)
        else:
            first = round(t * AUDIO_RATE)
            assert audio is not None
            yield kind, t, audio[first : first + chunk]


def write_bag(
    path: str | Path,
    camera_hz: float = 10.0,
    odom_hz: float = 10.0,
    raw: bool = False,
    scenario: tuple[Room, ...] = SHORT_PATROL,
    jpeg_quality: int = 85,
    camera: Camera | None = None,
) -> Path:
    """Write the scenario as a rosbag2 directory (MCAP), with /audio when someone speaks in it; returns the bag's
    path.  ``sample_patrol.write_sample_bag`` writes its question set beside it too.  ``camera`` renders the
    frames (default: ``Camera(scenario)``; the who patrol's with faces pastes people into them)."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} exists; remove it first")
    ts = typestore()
    Header = ts.types["std_msgs/msg/Header"]
    Compressed = ts.types["sensor_msgs/msg/CompressedImage"]
    RawImage = ts.types["sensor_msgs/msg/Image"]
    Odometry = ts.types["nav_msgs/msg/Odometry"]
    AudioChunk = ts.types[AUDIO_MSGTYPE]
    g = {
        n: ts.types[f"geometry_msgs/msg/{n}"]
        for n in ("Point", "Quaternion", "Pose", "PoseWithCovariance", "Twist", "TwistWithCovariance", "Vector3")
    }
    camera = Camera(scenario) if camera is None else camera
    audio = audio_track(scenario) if any(room.speech for room in scenario) else None
    path.parent.mkdir(parents=True, exist_ok=True)
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        if raw:
            cam = writer.add_connection(RAW_CAMERA_TOPIC, RawImage.__msgtype__, typestore=ts)
        else:
            cam = writer.add_connection(CAMERA_TOPIC, Compressed.__msgtype__, typestore=ts)
        odom = writer.add_connection(ODOM_TOPIC, Odometry.__msgtype__, typestore=ts)
        mic = writer.add_connection(AUDIO_TOPIC, AUDIO_MSGTYPE, typestore=ts) if audio is not None else None
        for kind, t, payload in _messages(camera, camera_hz, odom_hz, audio):
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
            elif kind == "audio":
                assert mic is not None
                msg = AudioChunk(
                    header=Header(stamp=_stamp(ts, stamp), frame_id="microphone"),
                    sample_rate=AUDIO_RATE,
                    channels=1,
                    encoding="S16LE",
                    data=np.frombuffer(payload.tobytes(), np.uint8),
                )
                writer.write(mic, nanos, ts.serialize_cdr(msg, AUDIO_MSGTYPE))
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
