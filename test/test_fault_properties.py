"""Hostile sensor messages of every subscribed type, pushed through the real intake into a real store.

Hypothesis drives a robot's stream as a state machine: valid frames and poses
interleaved with generated messages whose fields are NaN, infinite, huge,
empty, of the wrong length or encoding, for every subscribed message type and
every pose source.  Whatever arrives, nothing raises past the intake, memory
already written stays as it was, events keep closing, and the engine reopens
the store with its poses readable.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import cv2
import numpy as np
import pytest
from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from nav_msgs.msg import Odometry
from sensor_msgs.msg import CompressedImage, Image
from vidmem_ros.msg import AudioChunk

from vidmem_dev.sample_images import photo
from vidmem_ros.config import load_config
from vidmem_ros.imaging import SUPPORTED_ENCODINGS
from vidmem_ros.ingest.audio import AudioPipeline
from vidmem_ros.ingest.intake import SensorIntake
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.engine import MemoryEngine
from vidmem_ros.memory.rows import POSE_SQL
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.registry import build_asr, build_vad
from vidmem_ros.ros.convert import to_time

T0 = 1_750_000_000.0
UINT32 = 2**32 - 1
VIEWS = [photo(name) for name in ("coffee", "chelsea", "astronaut", "brick")]

anything_float = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324])
any_time = st.builds(Time, sec=st.integers(-(2**31), 2**31 - 1), nanosec=st.integers(0, UINT32))
near_time = st.floats(-120.0, 120.0).map(lambda dt: to_time(T0 + 60 + dt))
stamps = st.one_of(any_time, near_time, st.just(Time(sec=0, nanosec=0)), st.just(Time(sec=2**31 - 1, nanosec=0)))
frame_ids = st.one_of(st.just(""), st.just("odom"), st.text(max_size=40))
sizes = st.one_of(st.integers(0, 64), st.integers(0, UINT32), st.just(0), st.just(UINT32))
payloads = st.binary(max_size=4096)
encodings = st.one_of(
    st.sampled_from([*SUPPORTED_ENCODINGS, "RGB8", "", "hsv8", "rgb16", "bayer_rggb8"]), st.text(max_size=12)
)


@st.composite
def images(draw: st.DrawFn) -> Image:
    msg = Image()
    msg.header.stamp, msg.header.frame_id = draw(stamps), draw(frame_ids)
    if draw(st.booleans()):  # a consistent small image: only its stamp or encoding may be wrong
        msg.width, msg.height = draw(st.integers(1, 48)), draw(st.integers(1, 48))
        msg.encoding = draw(st.sampled_from(SUPPORTED_ENCODINGS))
        channels = {"mono8": 1, "8uc1": 1, "mono16": 2, "16uc1": 2, "rgba8": 4, "bgra8": 4}.get(msg.encoding, 3)
        msg.step = msg.width * channels + draw(st.integers(0, 3))
        msg.data = draw(st.binary(min_size=msg.step * msg.height, max_size=msg.step * msg.height))
    else:
        msg.width, msg.height, msg.step = draw(sizes), draw(sizes), draw(sizes)
        msg.encoding, msg.data = draw(encodings), draw(payloads)
    msg.is_bigendian = draw(st.integers(0, 255))
    return msg


@st.composite
def compressed_images(draw: st.DrawFn) -> CompressedImage:
    msg = CompressedImage()
    msg.header.stamp = draw(stamps)
    msg.format = draw(
        st.one_of(st.sampled_from(["jpeg", "png", "rgb8; jpeg compressed bgr8", ""]), st.text(max_size=20))
    )
    ok, jpeg = cv2.imencode(".jpg", VIEWS[draw(st.integers(0, len(VIEWS) - 1))])
    assert ok
    whole = jpeg.tobytes()
    msg.data = draw(st.one_of(payloads, st.integers(0, len(whole)).map(lambda n: whole[:n]), st.just(whole)))
    return msg


@st.composite
def audio_chunks(draw: st.DrawFn) -> AudioChunk:
    msg = AudioChunk()
    msg.header.stamp = draw(stamps)
    msg.sample_rate = draw(st.one_of(st.sampled_from([0, 1, 16000, 44100, 48000, 384001]), st.integers(0, UINT32)))
    msg.channels = draw(st.integers(0, 255))
    msg.encoding = draw(st.one_of(st.sampled_from(["S16LE", "F32LE", "s16le", "U8", ""]), st.text(max_size=8)))
    msg.data = draw(st.one_of(payloads, st.binary(min_size=3200, max_size=3200)))
    return msg


@st.composite
def poses(draw: st.DrawFn) -> Odometry | PoseStamped | PoseWithCovarianceStamped:
    msg = draw(st.sampled_from([Odometry, PoseStamped, PoseWithCovarianceStamped]))()
    msg.header.stamp, msg.header.frame_id = draw(stamps), draw(frame_ids)
    pose = msg.pose.pose if hasattr(msg.pose, "pose") else msg.pose
    p, q = pose.position, pose.orientation
    p.x, p.y, p.z = draw(anything_float), draw(anything_float), draw(anything_float)
    q.x, q.y, q.z, q.w = (draw(st.one_of(anything_float, st.just(0.0), st.just(1.0))) for _ in range(4))
    return msg


@pytest.fixture(scope="module")
def speech_models():  # type: ignore[no-untyped-def]
    """The configured voice-activity and speech models (real weights), loaded once for every run."""
    audio = load_config().audio
    return build_vad(audio), build_asr(audio)


class HostileStream(RuleBasedStateMachine):
    """One robot's stream: good frames and poses, and hostile messages of every type in between."""

    speech_models = (None, None)  # set by the test below

    @initialize()
    def start(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="vidmem-faults-"))
        self.config = load_config(overrides={"store.path": str(self.dir / "memory.db")})
        self.store = SqliteStore(self.config.store_path())
        self.pipeline = IngestPipeline(self.config, self.store, None)
        vad, asr = self.speech_models
        audio = AudioPipeline(self.config, self.pipeline.engine, vad=vad, asr=asr, background=False)
        self.intake = SensorIntake(self.pipeline, audio=audio)
        self.t = T0
        self.scene = 0
        for _ in range(12):  # memory written before anything hostile arrives
            self.good_frame()
        self.baseline = _rows(self.store)

    @rule()
    def good_frame(self) -> None:
        self.t += 1.0
        self.scene += 1
        view = np.roll(VIEWS[self.scene // 8 % len(VIEWS)], (self.scene % 8) * 40, axis=1)
        msg = Image(height=view.shape[0], width=view.shape[1], encoding="rgb8", step=view.shape[1] * 3)
        msg.header.stamp = to_time(self.t)
        msg.data = view.tobytes()
        self.intake.pose(_odometry(self.t, self.scene))
        self.intake.image(msg, "/camera/image_raw")

    @rule(msg=images())
    def hostile_image(self, msg: Image) -> None:
        self.intake.image(msg, "/camera/image_raw")

    @rule(msg=compressed_images())
    def hostile_compressed(self, msg: CompressedImage) -> None:
        self.intake.compressed(msg, "/camera/image_raw/compressed")

    @rule(msg=audio_chunks())
    def hostile_audio(self, msg: AudioChunk) -> None:
        self.intake.audio_chunk(msg)

    @rule(msg=poses())
    def hostile_pose(self, msg: Odometry | PoseStamped | PoseWithCovarianceStamped) -> None:
        self.intake.pose(msg)

    @invariant()
    def memory_already_written_is_intact(self) -> None:
        if hasattr(self, "baseline"):
            assert _rows(self.store, len(self.baseline)) == self.baseline

    @invariant()
    def only_real_poses_are_stored(self) -> None:
        if not hasattr(self, "store"):
            return
        with self.store.read() as db:
            bad = db.execute(
                "SELECT COUNT(*) FROM moments WHERE pose_frame IS NOT NULL AND (pose_frame = '' OR "
                "px IS NULL OR py IS NULL OR pz IS NULL OR ABS(px) > 1e7 OR ABS(py) > 1e7 OR ABS(pz) > 1e7 OR "
                "ABS(qx * qx + qy * qy + qz * qz + qw * qw - 1) > 1e-6)"
            ).fetchone()[0]
        assert bad == 0

    def teardown(self) -> None:
        if not hasattr(self, "pipeline"):
            return
        # The stream goes on past anything a hostile frame was allowed to stamp (a late frame is dropped),
        # with new views, so events must open and close.
        self.t = max(self.t, *(m.stamp for m in self.store.moments(0, float("inf"), limit=100_000)))
        for _ in range(20):
            self.scene += 4
            self.good_frame()
        self.pipeline.finish()
        events = self.store.events()
        assert events and all(e.status == "closed" for e in events), [e.status for e in events]
        assert len(events) >= 2
        assert self.store.integrity_ok()
        self.store.close()
        reopened = SqliteStore(self.config.store_path())
        engine = MemoryEngine(reopened, self.config)  # starts, whatever was written
        last = reopened.moments(self.t, self.t)
        assert last and last[0].pose is not None and engine.recovered_events == 0
        for event in reopened.events():  # every record reads, with a pose or without one
            assert event.start <= event.end
        reopened.close()


def _odometry(t: float, scene: int) -> Odometry:
    msg = Odometry()
    msg.header.stamp, msg.header.frame_id = to_time(t), "odom"
    msg.pose.pose.position.x = float(scene)
    msg.pose.pose.orientation.w = 1.0
    return msg


def _rows(store: SqliteStore, limit: int = 1_000_000) -> list[tuple[object, ...]]:
    """What a moment says and shows (closing its event may still mark it a keyframe)."""
    with store.read() as db:
        return db.execute(
            f"SELECT m.id, stamp, source, width, height, sharpness, quality, event_id, {POSE_SQL}, p.jpeg "
            "FROM moments m LEFT JOIN payloads p ON p.moment_id = m.id ORDER BY m.id LIMIT ?",
            (limit,),
        ).fetchall()


def test_hostile_messages_never_take_memory_down(speech_models) -> None:  # type: ignore[no-untyped-def]
    HostileStream.speech_models = speech_models
    run = HostileStream.TestCase
    run.settings = settings(
        max_examples=25,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    run().runTest()
