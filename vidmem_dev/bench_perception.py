"""``vidmem bench perception``: what the cpu profile's models cost on this machine, alone and together.

Three parts, all printed (nothing is asserted):

1. Per model, on 640x480 frames made from scikit-image's sample photos (signs rendered onto some of
   them) and on speech synthesised with ``espeak-ng``: latency p50/p95 over ``--runs`` calls after two
   warm-up calls.  Detector, image embedders, tagger, the text cue, OCR with and without a sign,
   MiniLM on one query, Silero VAD per 5 s of audio, Whisper per second of speech, JPEG, the gates.
2. The whole cpu profile at its default settings: ``IngestPipeline.from_config`` over the sample
   patrol (``write_sample_bag``) with signs on some rooms.  Frames that pass the rate gate are the
   *sampled* frames; each ``process`` call on one is timed, split by stage (the models' methods and
   the pipeline's helpers are wrapped with timers).  The real-time ratio at 1 FPS sampling is
   ``1 s / mean cost per sampled frame``.
3. The audio side: the ``AudioPipeline`` over the synthesised sentences (inline recognition), its
   ASR real-time factor, and the combined budget with speech 20% of the time.

The machine's load average is printed at the start and the end: on shared cores the figures move.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vidmem_dev.sample_images import photo as sample_photo
from vidmem_dev.synth import Speech
from vidmem_ros.config import VidmemConfig, load_config

SPEECH_SHARE = 0.2  # share of the time someone speaks, for the combined budget
DEFAULT_RUNS = 30
WARMUP = 2
QUICK_RUNS = 5
FRAME = (640, 480)
PHOTOS = ("coffee", "chelsea", "astronaut", "brick", "camera", "stereo_motorcycle")
SIGNS = (  # text, font, type size (px at 640 px width), tilt (degrees)
    ("Fire Exit", "DejaVuSans-Bold.ttf", 30, 0.0),
    ("Storage B12", "DejaVuSerif.ttf", 26, -8.0),
    ("Charging Station 7", "DejaVuSans.ttf", 24, 6.0),
    ("LAB 3B", "DejaVuSansMono-Bold.ttf", 40, 0.0),
    ("Studio 2", "DejaVuSerif-Bold.ttf", 28, 10.0),
    ("Staff Only", "DejaVuSans-Bold.ttf", 22, -10.0),
)
SENTENCES = (
    "The red toolbox is on the second shelf in the garage.",
    "Please remember that the charging station moved to room two hundred and fourteen.",
    "Did anyone see my coffee cup in the kitchen this morning?",
    "The delivery robot should wait at platform four until noon.",
    "Turn left after the fire exit and follow the corridor to the lab.",
    "Stop. The floor near the elevator is wet.",
)
QUERY = "where did I last see the red toolbox?"


# -- inputs --------------------------------------------------------------------------------------


def photo(name: str, size: tuple[int, int] = FRAME) -> np.ndarray:
    return sample_photo(name, size)


def sign_plate(index: int) -> np.ndarray:
    """An RGBA sign (plate, text, tilt, blur sigma 1) as test/test_ocr.py's ``render_sign`` draws them."""
    from vidmem_dev.synth import PLATES
    from vidmem_dev.synth import sign_plate as draw

    text, font, size, angle = SIGNS[index % len(SIGNS)]
    return draw(text, font, size, angle, PLATES[index % len(PLATES)], blur=1.0)


def paste(frame: np.ndarray, plate: np.ndarray, where: tuple[float, float]) -> np.ndarray:
    """``plate`` (RGBA) alpha-blended onto a copy of ``frame``; ``where`` in 0-1 of the free space."""
    from vidmem_dev.synth import paste as paste_at

    (ph, pw), (fh, fw) = plate.shape[:2], frame.shape[:2]
    left = int(np.clip(where[0], 0, 1) * max(fw - pw, 0))
    top = int(np.clip(where[1], 0, 1) * max(fh - ph, 0))
    return paste_at(frame, plate, left, top)


def sign_frames(photos: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [
        paste(photos[i % len(photos)], sign_plate(i), ((i * 0.37) % 1.0, (i * 0.61) % 1.0)) for i in range(len(SIGNS))
    ]


def synthesise(texts: Sequence[str]) -> list[Speech]:
    """Sentences spoken by espeak-ng (en-us, 160 words a minute), as int16 mono at its native rate."""
    from vidmem_dev import synth

    try:
        return synth.synthesise(tuple(texts))
    except synth.SpeechUnavailableError as exc:
        raise SystemExit(f"vidmem bench perception: {exc}") from None


# -- timing helpers ------------------------------------------------------------------------------


def load_average() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (math.nan, math.nan, math.nan)


def summary(seconds: Sequence[float]) -> dict[str, float]:
    """n, mean, p50, p95, max of durations given in seconds, in milliseconds."""
    if not len(seconds):
        return {"n": 0}
    ms = np.asarray(seconds, np.float64) * 1e3
    return {
        "n": int(ms.size),
        "mean_ms": round(float(ms.mean()), 4),
        "p50_ms": round(float(np.percentile(ms, 50)), 4),
        "p95_ms": round(float(np.percentile(ms, 95)), 4),
        "max_ms": round(float(ms.max()), 4),
    }


def time_calls(fn: Callable[[int], object], runs: int, warmup: int = WARMUP) -> list[float]:
    """Seconds per call of ``fn(i)`` for i in range(runs), after ``warmup`` untimed calls."""
    for i in range(warmup):
        fn(i)
    times = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return times


class StageClock:
    """Adds the time spent in wrapped callables to the stage they belong to, frame by frame."""

    def __init__(self) -> None:
        self.current: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()

    def wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.current[stage] += time.perf_counter() - start
                self.calls[stage] += 1

        return timed

    def take(self) -> dict[str, float]:
        """Stage times since the last take (seconds), and start over."""
        taken = dict(self.current)
        self.current.clear()
        return taken


@contextmanager
def patched(target: Any, name: str, replacement: Any) -> Iterator[None]:
    """``target.name`` replaced for the block: a module global, or a method shadowed on one instance."""
    own = name in vars(target)
    original = vars(target).get(name)
    setattr(target, name, replacement)
    try:
        yield
    finally:
        if own:
            setattr(target, name, original)
        else:
            delattr(target, name)  # the class's method shows through again


# -- 1. per model ----------------------------------------------------------------------------------


def bench_models(
    config: VidmemConfig, pipeline: Any, speech: list[Speech], runs: int, progress: Callable[[str], None]
) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """Latency of each model on its own; returns the rows and the audio backends (reused later)."""
    from vidmem_ros.imaging import compressed_to_rgb, rgb_to_jpeg
    from vidmem_ros.ingest.gates import FrameGate
    from vidmem_ros.perception import registry
    from vidmem_ros.perception.audio import SAMPLE_RATE, resample_to_16k
    from vidmem_ros.perception.embedding import ColorLayoutEmbedder
    from vidmem_ros.perception.ocr import text_likely
    from vidmem_ros.perception.tagger import TaggerFeatureEmbedder

    photos = [photo(name) for name in PHOTOS]
    signs = sign_frames(photos)

    def pick(frames: list[np.ndarray]) -> Callable[[int], np.ndarray]:
        return lambda i: frames[i % len(frames)]

    plain, signed = pick(photos), pick(signs)
    rows: dict[str, dict[str, float]] = {}

    def measure(name: str, fn: Callable[[int], object], n: int = runs) -> None:
        progress(f"  {name} ...")
        rows[name] = summary(time_calls(fn, n))

    if pipeline.detector is not None:
        measure(f"detector ({pipeline.detector.name})", lambda i: pipeline.detector.detect(plain(i)))
    colour = ColorLayoutEmbedder()
    measure("embedder color_layout", lambda i: colour.embed(plain(i)))
    t0 = time.perf_counter()
    features = TaggerFeatureEmbedder(config.tagger)
    features_load = time.perf_counter() - t0
    measure("embedder tagger_features", lambda i: features.embed(plain(i)))
    if pipeline.tagger is not None:
        measure(f"tagger ({pipeline.tagger.name})", lambda i: pipeline.tagger.tag(plain(i)))
    measure("text_likely, photo", lambda i: text_likely(plain(i)))
    measure("text_likely, sign", lambda i: text_likely(signed(i)))
    if pipeline.ocr is not None:
        measure("OCR (rapidocr), photo without sign", lambda i: pipeline.ocr.read(plain(i)))
        measure("OCR (rapidocr), frame with a sign", lambda i: pipeline.ocr.read(signed(i)))
    text_embedder = pipeline.engine.archive.text_embedder
    if text_embedder is not None:
        measure("MiniLM, one query", lambda i: text_embedder.embed_texts([QUERY]))
    cfg = config.ingest
    measure(
        f"JPEG encode (q{cfg.jpeg_quality}, 640x480)",
        lambda i: rgb_to_jpeg(plain(i), cfg.jpeg_quality, cfg.store_max_width),
    )
    jpegs = [rgb_to_jpeg(p, 85) for p in photos]
    measure("JPEG decode (q85, 640x480)", lambda i: compressed_to_rgb(jpegs[i % len(jpegs)], "jpeg"))
    gate = FrameGate(cfg)
    measure("gate check_time", lambda i: gate.check_time(1000.0 + i), runs * 10)
    image_gate = FrameGate(cfg)
    measure("gate check_image (kept: blur+static+ssim+quality)", lambda i: image_gate.check_image(i * 2.0, plain(i)))

    audio: dict[str, Any] = {"features_load_s": round(features_load, 2)}
    t0 = time.perf_counter()
    vad = registry.build_vad(config.audio)
    asr = registry.build_asr(config.audio)
    audio["load_s"] = round(time.perf_counter() - t0, 2)
    audio["vad"], audio["asr"] = vad, asr
    clips = [resample_to_16k(s.pcm.astype(np.float32) / 32768.0, s.rate) for s in speech]
    if vad is not None:
        stream = np.concatenate([np.concatenate([c, np.zeros(SAMPLE_RATE // 2, np.float32)]) for c in clips])
        five = stream[: 5 * SAMPLE_RATE]

        def run_vad(_: int) -> None:
            vad.reset()
            vad.push(five)

        measure(f"VAD ({vad.name}), per 5 s of audio", run_vad)
    if asr is not None:
        asr_runs = runs
        progress(f"  ASR ({asr.name}) x {asr_runs} ...")
        for i in range(WARMUP):
            asr.transcribe(clips[i % len(clips)])
        per_s, whole = [], []
        for i in range(asr_runs):
            clip = clips[i % len(clips)]
            start = time.perf_counter()
            asr.transcribe(clip)
            took = time.perf_counter() - start
            whole.append(took)
            per_s.append(took / (len(clip) / SAMPLE_RATE))
        rows[f"ASR ({asr.name}), per second of speech"] = summary(per_s)
        rows[f"ASR ({asr.name}), per sentence ({np.mean([len(c) for c in clips]) / SAMPLE_RATE:.1f} s mean)"] = summary(
            whole
        )
    return rows, audio


# -- 2. the whole cpu profile ----------------------------------------------------------------------


@dataclass
class PatrolFrame:
    stamp: float
    jpeg: bytes
    fmt: str
    sign: bool


def patrol_frames(
    folder: Path, camera_hz: float, sign_share: float, seed: int, quick: bool
) -> tuple[list[PatrolFrame], list[tuple[float, float]], list[str]]:
    """The sample patrol's camera frames, with a sign pasted into the rooms picked for one.

    Rooms are picked at random so that the room time with a sign comes near ``sign_share``; the
    sign drifts across the frame as the camera pans.  Returns the frames, odometry (stamp, x) and
    the names of the rooms with a sign.
    """
    from rosbags.rosbag2 import Reader
    from rosbags.typesys import Stores, get_typestore

    from vidmem_dev.sample_bag import SHORT_PATROL, START_STAMP, timeline
    from vidmem_dev.sample_patrol import write_sample_bag
    from vidmem_ros.imaging import compressed_to_rgb

    scenario = SHORT_PATROL[:2] if quick else SHORT_PATROL
    bag = write_sample_bag(folder / "patrol", camera_hz=camera_hz, scenario=scenario)
    visits = timeline(scenario)
    rng = np.random.default_rng(seed)
    target = sign_share * sum(v.end - v.start for v in visits)
    chosen: list[int] = []
    covered = 0.0
    for i in rng.permutation(len(visits)).tolist():  # a room joins when it brings the share nearer the target
        seconds = visits[i].end - visits[i].start
        if abs(covered + seconds - target) < abs(covered - target):
            chosen.append(i)
            covered += seconds
    chosen.sort()
    plates = {i: sign_plate(k) for k, i in enumerate(chosen)}
    ts = get_typestore(Stores.ROS2_JAZZY)
    frames: list[PatrolFrame] = []
    odom: list[tuple[float, float]] = []
    with Reader(bag) as reader:
        for conn, _, raw in reader.messages():
            msg: Any = ts.deserialize_cdr(raw, conn.msgtype)
            stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            if conn.msgtype == "nav_msgs/msg/Odometry":
                odom.append((stamp, msg.pose.pose.position.x))
                continue
            data, sign = bytes(msg.data), False
            t = stamp - START_STAMP
            for i, plate in plates.items():
                visit = visits[i]
                if visit.start <= t <= visit.end:
                    progress = (t - visit.start) / max(visit.end - visit.start, 1e-6)
                    rgb = paste(compressed_to_rgb(data, msg.format), plate, (0.9 - 0.8 * progress, 0.2 + 0.3 * (i % 2)))
                    ok, enc = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
                    assert ok
                    data, sign = enc.tobytes(), True
            frames.append(PatrolFrame(stamp, data, msg.format, sign))
    return frames, odom, [visits[i].room.name for i in chosen]


def bench_profile(
    pipeline: Any, frames: list[PatrolFrame], odom: list[tuple[float, float]], progress: Callable[[str], None]
) -> dict[str, Any]:
    """Time ``pipeline.process`` per frame with every stage wrapped."""
    import vidmem_ros.ingest.frames as frames_module
    import vidmem_ros.ingest.worker as ingest_module
    from vidmem_ros.ingest.frames import CompressedImage, FrameInput
    from vidmem_ros.memory.records import Pose

    clock = StageClock()
    gate_reason: list[str] = []
    check_time = pipeline.gate.check_time

    def watched_check_time(stamp: float) -> str:
        reason = check_time(stamp)
        gate_reason.append(reason)
        return str(reason)

    def named(stage: str, model: object) -> str:
        return f"{stage} ({getattr(model, 'name', type(model).__name__)})"

    wrapped = [
        (named("detector", pipeline.detector), pipeline.detector, "detect"),
        (named("embedder", pipeline.embedder), pipeline.embedder, "embed"),
        (named("tagger", pipeline.tagger), pipeline.tagger, "tag"),
        (named("OCR", pipeline.ocr), pipeline.ocr, "read"),
        ("observe (memory engine)", pipeline.engine, "observe"),
        ("  MiniLM in observe (event captions)", pipeline.engine.archive.text_embedder, "embed_texts"),
        ("gate check_image", pipeline.gate, "check_image"),
        ("JPEG decode", frames_module, "compressed_to_rgb"),
        ("text cue (text_likely)", ingest_module, "ocr_wanted"),
        ("JPEG encode", ingest_module, "rgb_to_jpeg"),
        ("crop features", ingest_module, "colour_histogram"),
    ]

    sampled: list[float] = []
    kept: list[float] = []
    kept_ocr: list[float] = []
    kept_no_ocr: list[float] = []
    gated: list[float] = []
    stages: list[dict[str, float]] = []
    sign_kept = sign_ocr = plain_kept = plain_ocr = 0
    busy = 0.0
    odom_i = 0
    with ExitStack() as stack:
        for stage, obj, method in wrapped:
            if obj is not None:
                stack.enter_context(patched(obj, method, clock.wrap(stage, getattr(obj, method))))
        stack.enter_context(patched(pipeline.gate, "check_time", watched_check_time))
        for n, frame in enumerate(frames):
            while odom_i < len(odom) and odom[odom_i][0] <= frame.stamp:
                pipeline.poses.add(odom[odom_i][0], Pose("map", odom[odom_i][1], 0.0))
                odom_i += 1
            item = FrameInput(frame.stamp, "/camera/image_raw/compressed", CompressedImage(frame.jpeg, frame.fmt))
            kept_before, ocr_before = pipeline.stats.snapshot().kept, pipeline.ocr_runs
            gate_reason.clear()
            clock.take()
            start = time.perf_counter()
            pipeline.process(item)
            took = time.perf_counter() - start
            busy += took
            split = clock.take()
            if gate_reason and gate_reason[0]:
                gated.append(took)
                continue
            sampled.append(took)
            stages.append(split)
            if pipeline.stats.snapshot().kept > kept_before:
                kept.append(took)
                ran = pipeline.ocr_runs > ocr_before
                (kept_ocr if ran else kept_no_ocr).append(took)
                if frame.sign:
                    sign_kept, sign_ocr = sign_kept + 1, sign_ocr + ran
                else:
                    plain_kept, plain_ocr = plain_kept + 1, plain_ocr + ran
            if (n + 1) % 100 == 0:
                progress(f"  {n + 1}/{len(frames)} frames, {len(sampled)} sampled, {busy:.1f} s busy")
        start = time.perf_counter()
        pipeline.finish()
        finish_s = time.perf_counter() - start

    span = frames[-1].stamp - frames[0].stamp + (frames[1].stamp - frames[0].stamp if len(frames) > 1 else 1.0)
    names = sorted({k for s in stages for k in s}, key=lambda k: -sum(s.get(k, 0.0) for s in stages))
    nested = [k for k in names if k.startswith(" ")]  # inside observe: listed right after it
    names = [k for k in names if k not in nested]
    at = next((i + 1 for i, k in enumerate(names) if k.startswith("observe")), len(names))
    names[at:at] = nested
    by_stage = {}
    top_level = 0.0
    for name in names:
        values = [s.get(name, 0.0) for s in stages]
        ran = [v for s, v in zip(stages, values, strict=True) if name in s]
        total = float(np.sum(values))
        if not name.startswith(" "):
            top_level += total
        by_stage[name] = {
            "mean_per_sampled_ms": round(total / max(len(stages), 1) * 1e3, 3),
            "share_pct": round(total / max(sum(sampled), 1e-12) * 100, 1),
            "frames": len(ran),
            "per_call": summary(ran),
        }
    rest = sum(sampled) - top_level
    by_stage["other (pose lookup, PerceivedFrame, drop bookkeeping)"] = {
        "mean_per_sampled_ms": round(rest / max(len(stages), 1) * 1e3, 3),
        "share_pct": round(rest / max(sum(sampled), 1e-12) * 100, 1),
        "frames": len(stages),
        "per_call": {"n": 0},
    }
    snap = pipeline.stats.snapshot()
    mean_sampled = float(np.mean(sampled)) if sampled else math.nan
    return {
        "input_frames": len(frames),
        "sensor_s": round(span, 2),
        "sampled_frames": len(sampled),
        "sampled_per_sensor_s": round(len(sampled) / span, 3),
        "kept_frames": snap.kept,
        "drops": dict(Counter(snap.dropped).most_common()),
        "per_sampled_frame": summary(sampled),
        "per_kept_frame": summary(kept),
        "per_kept_frame_with_ocr": summary(kept_ocr),
        "per_kept_frame_without_ocr": summary(kept_no_ocr),
        "per_rate_gated_frame": summary(gated),
        "busy_s": round(busy, 3),
        "busy_per_sensor_s": round(busy / span, 4),
        "realtime_factor_measured": round(span / busy, 2) if busy else math.inf,
        "ratio_at_1fps": round(1.0 / mean_sampled, 2) if sampled else math.nan,
        "finish_s": round(finish_s, 3),
        "ocr_runs": pipeline.ocr_runs,
        "ocr_share_of_kept": round(pipeline.ocr_runs / max(snap.kept, 1), 3),
        "ocr_share_of_sampled": round(pipeline.ocr_runs / max(len(sampled), 1), 3),
        "kept_with_sign": sign_kept,
        "ocr_on_kept_with_sign": sign_ocr,
        "kept_without_sign": plain_kept,
        "ocr_on_kept_without_sign": plain_ocr,
        "stages": by_stage,
    }


# -- 3. audio --------------------------------------------------------------------------------------


def bench_audio(config: VidmemConfig, speech: list[Speech], vad: Any, asr: Any) -> dict[str, Any]:
    """The audio pipeline over the sentences, 1 s of faint noise between them, in 100 ms S16LE chunks."""
    from vidmem_ros.ingest.audio import AudioPipeline
    from vidmem_ros.memory.records import Transcript
    from vidmem_ros.perception.audio import AudioChunkData

    rate = speech[0].rate
    rng = np.random.default_rng(0)
    parts = []
    for s in speech:
        parts.append(np.clip(rng.normal(0, 30, rate), -32768, 32767).astype(np.int16))
        parts.append(s.pcm.astype(np.int16))
    parts.append(np.clip(rng.normal(0, 30, int(1.5 * rate)), -32768, 32767).astype(np.int16))
    stream = np.concatenate(parts)
    transcripts: list[Transcript] = []
    pipe = AudioPipeline(config, transcripts.append, vad=vad, asr=asr, background=False)
    chunk = rate // 10
    start = time.perf_counter()
    for offset in range(0, len(stream), chunk):
        piece = stream[offset : offset + chunk]
        pipe.push(AudioChunkData(100.0 + offset / rate, rate, 1, "S16LE", piece.tobytes()))
    pipe.flush()
    wall = time.perf_counter() - start
    stats = pipe.stats()
    pipe.close()
    audio_s = len(stream) / rate
    front = max(wall - stats.asr_s, 0.0)
    return {
        "audio_s": round(audio_s, 2),
        "spoken_s": round(sum(s.seconds for s in speech), 2),
        "segments": stats.segments,
        "transcripts": stats.transcripts,
        "speech_s": round(stats.speech_s, 2),
        "asr_s": round(stats.asr_s, 2),
        "asr_real_time_factor": round(stats.real_time_factor, 3),
        "wall_s": round(wall, 2),
        "front_end_per_audio_s": round(front / audio_s, 4),  # resampling + VAD + buffering, per second of audio
        "texts": [t.text for t in transcripts],
        "dropped": stats.dropped,
    }


# -- the benchmark ---------------------------------------------------------------------------------


def run_perception_bench(
    runs: int = DEFAULT_RUNS,
    camera_hz: float = 5.0,
    sign_share: float = 0.2,
    json_path: Path | None = None,
    seed: int = 0,
    quick: bool = False,
    out: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Measure, print and return the figures."""
    from vidmem_ros.ingest.worker import IngestPipeline
    from vidmem_ros.memory.store import SqliteStore

    if quick:
        runs = QUICK_RUNS
    load_start = load_average()
    figures: dict[str, Any] = {
        "machine": machine(),
        "load_start": [round(v, 2) for v in load_start],
        "runs": runs,
        "warmup": WARMUP,
        "quick": quick,
    }
    out(
        f"perception bench, cpu profile at its default settings; {figures['machine']['cpus']} CPUs usable "
        f"({figures['machine']['model']}, OpenCV threads {figures['machine']['cv2_threads']}); load average at start {_load(load_start)}"
    )
    sys.stdout.flush()
    with tempfile.TemporaryDirectory(prefix="vidmem-bench-perception-") as tmp:
        folder = Path(tmp)
        config = load_config(overrides={"store.path": str(folder / "memory.db")})
        _progress("loading the cpu profile (IngestPipeline.from_config) ...")
        start = time.perf_counter()
        pipeline = IngestPipeline.from_config(config, SqliteStore(config.store_path()))
        figures["pipeline_load_s"] = round(time.perf_counter() - start, 2)
        speech = synthesise(SENTENCES[:2] if quick else SENTENCES)

        _progress(f"per-model latency ({runs} runs after {WARMUP} warm-up calls) ...")
        rows, audio_models = bench_models(config, pipeline, speech, runs, _progress)
        figures["audio_load_s"] = audio_models["load_s"]
        figures["models"] = rows
        out(format_models(figures))
        sys.stdout.flush()

        _progress(f"writing the sample patrol at {camera_hz:g} Hz and pasting signs ...")
        frames, odom, sign_rooms = patrol_frames(folder, camera_hz, sign_share, seed, quick)
        _progress(f"whole profile over {len(frames)} camera frames ...")
        profile = bench_profile(pipeline, frames, odom, _progress)
        profile.update(camera_hz=camera_hz, sign_rooms=sign_rooms, sign_share_target=sign_share)
        profile["frames_with_sign"] = sum(f.sign for f in frames)
        figures["profile"] = profile
        out(format_profile(profile))
        sys.stdout.flush()

        _progress("audio pipeline over the synthesised sentences ...")
        audio = bench_audio(config, speech, audio_models["vad"], audio_models["asr"])
        figures["audio"] = audio
        figures["budget"] = budget(profile, audio)
        out(format_audio(audio, figures["budget"]))
        pipeline.store.close()
    load_end = load_average()
    figures["load_end"] = [round(v, 2) for v in load_end]
    out(f"\nload average at end {_load(load_end)} ({figures['machine']['cpus']} CPUs)")
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2, default=str) + "\n")
        out(f"figures written to {json_path}")
    return figures


def budget(profile: dict[str, Any], audio: dict[str, Any]) -> dict[str, Any]:
    """CPU seconds per second of sensor time at 1 FPS with speech ``SPEECH_SHARE`` of the time."""
    frame = profile["per_sampled_frame"].get("mean_ms", math.nan) / 1e3  # one sampled frame per second
    asr = SPEECH_SHARE * audio["asr_real_time_factor"]
    front = audio["front_end_per_audio_s"]
    total = frame + asr + front
    return {
        "speech_share": SPEECH_SHARE,
        "frames_s_per_s": round(frame, 4),
        "asr_s_per_s": round(asr, 4),
        "audio_front_end_s_per_s": round(front, 4),
        "total_s_per_s": round(total, 4),
        "ratio": round(1.0 / total, 2) if total else math.inf,
    }


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpus": cpus,
        "model": model or "unknown CPU",
        "cv2_threads": cv2.getNumThreads(),
        "python": sys.version.split()[0],
    }


def _load(values: Sequence[float]) -> str:
    return "/".join(f"{v:.2f}" for v in values) + " (1/5/15 min)"


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# -- output ----------------------------------------------------------------------------------------


def _p(row: dict[str, float]) -> str:
    if not row.get("n"):
        return "n=0"
    return f"p50 {row['p50_ms']:9.3f}  p95 {row['p95_ms']:9.3f}  mean {row['mean_ms']:9.3f} ms  (n={row['n']})"


def format_models(f: dict[str, Any]) -> str:
    lines = [
        f"\nper model (640x480 frames from scikit-image photos; {f['runs']} runs after {f['warmup']} warm-up calls; "
        f"loading took {f['pipeline_load_s']:.1f} s for the ingest models, {f['audio_load_s']:.1f} s for VAD + ASR)"
    ]
    for name, row in f["models"].items():
        lines.append(f"  {name:<52} {_p(row)}")
    return "\n".join(lines)


def format_profile(p: dict[str, Any]) -> str:
    lines = [
        f"\nwhole cpu profile: IngestPipeline.from_config over the sample patrol at {p['camera_hz']:g} Hz, "
        f"{p['sensor_s']:.0f} s of sensor time; signs in {', '.join(p['sign_rooms']) or 'no room'} "
        f"({p['frames_with_sign']} of {p['input_frames']} frames)"
    ]

    def row(name: str, value: object) -> None:
        lines.append(f"  {name:<40} {value}")

    row("camera frames", f"{p['input_frames']:,}")
    row(
        "sampled (passed the rate gate)",
        f"{p['sampled_frames']}  ({p['sampled_per_sensor_s']:.2f} per sensor second; a rejected frame retries "
        "a quarter interval later)",
    )
    row("kept (stored)", f"{p['kept_frames']}")
    row("drops", ", ".join(f"{k} {v}" for k, v in p["drops"].items()))
    row("process() per sampled frame", _p(p["per_sampled_frame"]))
    row("  max", f"{p['per_sampled_frame'].get('max_ms', 0):.1f} ms")
    row("process() per kept frame", _p(p["per_kept_frame"]))
    row("  kept, OCR ran", _p(p["per_kept_frame_with_ocr"]))
    row("  kept, no OCR", _p(p["per_kept_frame_without_ocr"]))
    row("process() per rate-gated frame", _p(p["per_rate_gated_frame"]))
    row(
        "OCR runs",
        f"{p['ocr_runs']} = {p['ocr_share_of_sampled'] * 100:.0f}% of sampled, "
        f"{p['ocr_share_of_kept'] * 100:.0f}% of kept frames "
        f"(kept with a sign: {p['ocr_on_kept_with_sign']}/{p['kept_with_sign']} read; "
        f"without: {p['ocr_on_kept_without_sign']}/{p['kept_without_sign']} read)",
    )
    row("finish() (closes the last event)", f"{p['finish_s'] * 1e3:.1f} ms")
    lines.append("  by stage, per sampled frame (mean; per call where it ran):")
    for name, s in p["stages"].items():
        call = s["per_call"]
        per_call = (
            f"p50 {call['p50_ms']:8.2f}  p95 {call['p95_ms']:8.2f} ms on {s['frames']} frames" if call["n"] else ""
        )
        lines.append(f"    {name:<52} {s['mean_per_sampled_ms']:8.2f} ms  {s['share_pct']:5.1f}%   {per_call}".rstrip())
    row(
        "busy time / sensor time",
        f"{p['busy_s']:.1f} s / {p['sensor_s']:.0f} s = {p['busy_per_sensor_s']:.3f}  "
        f"({p['realtime_factor_measured']:.1f}x real time, all camera frames counted)",
    )
    row(
        "REAL-TIME RATIO at 1 FPS",
        f"1 s / {p['per_sampled_frame'].get('mean_ms', math.nan):.1f} ms = {p['ratio_at_1fps']:.2f}x  "
        "(target >= 3x on 2 cores)",
    )
    return "\n".join(lines)


def format_audio(a: dict[str, Any], b: dict[str, Any]) -> str:
    lines = [
        f"\naudio: AudioPipeline (inline recognition) over {len(a['texts'])} transcripts of espeak-ng speech, "
        f"{a['audio_s']:.1f} s of audio ({a['spoken_s']:.1f} s of it espeak output), 100 ms chunks"
    ]

    def row(name: str, value: object) -> None:
        lines.append(f"  {name:<40} {value}")

    row("segments / transcripts", f"{a['segments']} / {a['transcripts']}")
    row("speech recognised (padded)", f"{a['speech_s']:.1f} s in {a['asr_s']:.1f} s")
    row(
        "ASR real-time factor (stats)",
        f"{a['asr_real_time_factor']:.3f}  (1/{1 / max(a['asr_real_time_factor'], 1e-9):.1f})",
    )
    row("front end (resample + VAD) per audio s", f"{a['front_end_per_audio_s'] * 1e3:.1f} ms")
    if a["texts"]:
        row("first transcript", repr(a["texts"][0]))
    lines.append(
        f"\ncombined budget at 1 FPS, speech {b['speech_share'] * 100:.0f}% of the time "
        "(busy seconds per sensor second, each model with its configured threads):"
    )
    row("frames (mean per sampled frame)", f"{b['frames_s_per_s']:.3f}")
    row(f"ASR ({b['speech_share']:.1f} x RTF)", f"{b['asr_s_per_s']:.3f}")
    row("audio front end", f"{b['audio_front_end_s_per_s']:.3f}")
    row("total", f"{b['total_s_per_s']:.3f}  -> ratio {b['ratio']:.2f}x  (as if run one after the other;")
    lines.append(f"  {'':<40} the ingest and audio workers are separate threads and contend for the 2 cores)")
    return "\n".join(lines)
