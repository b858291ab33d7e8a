"""``vidmem bench memory``: hours of simulated robot time through the memory layer only.

Only the memory layer is timed: the frame gates (``FrameGate.check_time`` and ``check_image``) and
``MemoryEngine.observe``.  Decoding, detection and embedding are left out: every camera frame is one
of a fixed pool of precomputed views (RGB array for the gates, JPEG bytes, a ``ColorLayoutEmbedder``
vector, synthetic detections with their crop features), built before the clock starts from
scikit-image's sample photos.

The robot dwells 20-300 s at one of a few dozen places (now and then parked for much longer),
looking around, then drives to another, often one it has seen before; most frames while it drives
are motion-blurred.  Sensor time advances by the full simulated span, so retention really moves old
frames to the mid tier after an hour: the disk figures are per hour of robot time and per tier.

The command prints figures and never asserts timings.
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vidmem_dev.bench_index import bench_search, format_rows
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.errors import StoreError
from vidmem_ros.imaging import rgb_to_jpeg
from vidmem_ros.ingest.gates import FrameGate, grey_thumbnail, sharpness
from vidmem_ros.memory.engine import MemoryEngine, PerceivedFrame
from vidmem_ros.memory.records import Pose, Transcript
from vidmem_ros.memory.retention import tier_bytes
from vidmem_ros.memory.store import SqliteStore, store_files
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.embedding import ColorLayoutEmbedder, colour_histogram
from vidmem_ros.perception.types import Detection, TextLine

EPOCH = 1_782_900_000.0  # sensor time of the first frame
WIDTH, HEIGHT = 320, 240
SOURCE = "/camera/image_raw"
# Facts planted in the first kept frame, asked about once the simulation ends (day 30 of a month).
PLANTED_SIGN = "LOCKER ROOM SEVEN"
PLANTED_SPEECH = "the spare keys are under the blue mat"
ODOM_FRAME = "odom"
DEFAULT_SEARCH_SIZES = (10_000, 100_000, 1_000_000)
QUICK_HOURS = 0.25
SHARP_VIEWS = 6  # per place: crop jitter, brightness and noise
BLURRED_VIEWS = 2  # per place: what the camera sees while the robot drives
DWELL_S = (20.0, 300.0)
PARKED_S = (900.0, 2400.0)  # long static dwells (charging, waiting)
PARKED_SHARE = 0.08
LOOK_S = (2.0, 15.0)  # how long the camera holds one view while the robot dwells
REVISIT_SHARE = 0.4
SPEED_M_S = 1.0
DRIVE_S = (5.0, 60.0)
SHARP_WHILE_DRIVING = 0.25
MAP_M = (60.0, 40.0)
ENGINE_QUERIES = 200
_SAMPLES = (
    "astronaut",
    "coffee",
    "chelsea",
    "rocket",
    "stereo_motorcycle",
    "brick",
    "camera",
    "clock",
    "coins",
    "colorwheel",
    "grass",
    "gravel",
    "hubble_deep_field",
    "immunohistochemistry",
    "logo",
    "moon",
    "page",
    "retina",
    "text",
    "cell",
)


@dataclass
class View:
    """One precomputed camera image and what perception would have made of it."""

    place: int
    blurred: bool
    rgb: np.ndarray
    jpeg: bytes
    embedding: np.ndarray
    detections: list[Detection]
    crops: list[np.ndarray | None]


@dataclass
class Timeline:
    """Per camera frame: which view it shows and the robot's pose."""

    view: np.ndarray  # int32 index into the view pool
    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    visits: int
    revisits: int
    parked: int


# -- precomputation (not timed) --------------------------------------------------------------


def sample_images() -> list[np.ndarray]:
    """scikit-image's bundled sample photos as RGB uint8 (those that need a download are skipped)."""
    import skimage.data

    images = []
    for name in _SAMPLES:
        try:
            image = getattr(skimage.data, name)()
        except Exception:  # a sample that needs a download is left out
            continue
        for img in image if isinstance(image, tuple) else (image,):
            arr = np.asarray(img)
            if arr.dtype != np.uint8:
                arr = (np.clip(arr.astype(np.float64), 0.0, 1.0) * 255).astype(np.uint8)
            if arr.ndim == 2:
                arr = cv2.cvtColor(arr, cv2.COLOR_GRAY2RGB)
            images.append(np.ascontiguousarray(arr[..., :3]))
    if not images:
        raise RuntimeError("no scikit-image sample photo could be loaded")
    return images


def build_views(places: int, rng: np.random.Generator, config: VidmemConfig) -> list[View]:
    """``places`` scenes, each with sharp and blurred variants; view ``p * per_place + v`` is variant v of place p."""
    sources = sample_images()
    embedder = ColorLayoutEmbedder()
    labels = sorted(set(COCO_LABELS.values()))
    views: list[View] = []
    for place in range(places):
        src = sources[place % len(sources)]
        h, w = src.shape[:2]
        # The first pass over the sources frames each photo whole; later passes zoom into a part,
        # mirrored and tinted, so grey photos become places of distinct colour.
        zoom = 1.0 if place < len(sources) else rng.uniform(0.45, 0.7)
        cw, ch = _fit_4_3(w * zoom, h * zoom)
        cx, cy = rng.uniform(cw / 2, w - cw / 2 + 1e-9), rng.uniform(ch / 2, h - ch / 2 + 1e-9)
        mirror = place >= len(sources)
        tint = np.ones(3) if place < len(sources) else rng.uniform(0.6, 1.3, 3)
        objects = [
            (str(rng.choice(labels)), rng.uniform(0.3, 0.97), _random_box(rng)) for _ in range(int(rng.integers(0, 4)))
        ]
        for v in range(SHARP_VIEWS + BLURRED_VIEWS):
            jitter = 0.0 if v == 0 else 0.06
            dx, dy = rng.uniform(-jitter, jitter, 2) * (cw, ch)
            x0 = int(np.clip(cx + dx - cw / 2, 0, w - cw))
            y0 = int(np.clip(cy + dy - ch / 2, 0, h - ch))
            rgb = cv2.resize(src[y0 : y0 + int(ch), x0 : x0 + int(cw)], (WIDTH, HEIGHT), interpolation=cv2.INTER_AREA)
            if mirror:
                rgb = rgb[:, ::-1]
            gain = tint * (1.0 if v == 0 else rng.uniform(0.85, 1.15))
            noisy = rgb.astype(np.float32) * gain.astype(np.float32)
            if v > 0:
                noisy += rng.normal(0.0, rng.uniform(1.0, 4.0), noisy.shape).astype(np.float32)
            rgb = np.ascontiguousarray(np.clip(noisy, 0, 255).astype(np.uint8))
            blurred = v >= SHARP_VIEWS
            if blurred:
                angle = float(rng.uniform(0.0, 180.0))
                rgb = _motion_blur(rgb, angle, config.ingest.blur_min_laplacian_var, config.ingest.gate_width)
            detections, crops = _detections(rgb, objects, rng, config)
            views.append(
                View(
                    place=place,
                    blurred=blurred,
                    rgb=rgb,
                    jpeg=rgb_to_jpeg(rgb, config.ingest.jpeg_quality, config.ingest.store_max_width),
                    embedding=embedder.embed(rgb),
                    detections=detections,
                    crops=crops,
                )
            )
    return views


def _fit_4_3(w: float, h: float) -> tuple[float, float]:
    return (w, w * 3 / 4) if w * 3 / 4 <= h else (h * 4 / 3, h)


def _random_box(rng: np.random.Generator) -> tuple[float, float, float, float]:
    bw, bh = rng.uniform(30, 160), rng.uniform(30, 140)
    x0, y0 = rng.uniform(0, WIDTH - bw), rng.uniform(0, HEIGHT - bh)
    return (x0, y0, x0 + bw, y0 + bh)


def _motion_blur(rgb: np.ndarray, angle: float, limit: float, gate_width: int) -> np.ndarray:
    """Blur along ``angle`` (degrees), longer and longer until the blur gate would reject the frame."""
    out = rgb
    for length in range(9, 9 + 4 * 12, 4):
        line = np.zeros((length, length), np.float32)
        line[length // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
        rotated = cv2.warpAffine(line, rot, (length, length))
        kernel = np.asarray(rotated / max(float(rotated.sum()), 1e-6), np.float32)
        out = cv2.GaussianBlur(cv2.filter2D(rgb, -1, kernel), (0, 0), 1.0 + length / 8)
        if sharpness(grey_thumbnail(out, gate_width)) < 0.8 * limit:
            break
    return np.ascontiguousarray(out)


def _detections(
    rgb: np.ndarray,
    objects: list[tuple[str, float, tuple[float, float, float, float]]],
    rng: np.random.Generator,
    config: VidmemConfig,
) -> tuple[list[Detection], list[np.ndarray | None]]:
    """The place's objects with jittered scores and boxes, and their crop features as ingest makes them."""
    detections, crops = [], []
    for label, score, box in objects:
        s = float(np.clip(score + rng.normal(0.0, 0.04), 0.0, 1.0))
        if s < config.detector.min_score:
            continue
        shift = rng.normal(0.0, 4.0, 4)
        x0, y0, x1, y1 = (float(v) for v in np.clip(np.add(box, shift), 0, (WIDTH, HEIGHT, WIDTH, HEIGHT)))
        det = Detection(label, round(s, 3), (x0, y0, x1, y1))
        crop = rgb[int(y0) : max(int(y0), int(y1)), int(x0) : max(int(x0), int(x1))]
        usable = s >= config.archive.label_min_score and min(crop.shape[:2]) >= 16
        detections.append(det)
        crops.append(colour_histogram(crop) if usable else None)
    return detections, crops


def build_timeline(frames: int, hz: float, places: int, rng: np.random.Generator) -> Timeline:
    """Dwell, look around, drive (blurred), sometimes park for long; returns per-frame view and pose."""
    per_place = SHARP_VIEWS + BLURRED_VIEWS
    pos = np.column_stack([rng.uniform(0, MAP_M[0], places), rng.uniform(0, MAP_M[1], places)])
    view = np.empty(frames, np.int32)
    x = np.empty(frames)
    y = np.empty(frames)
    yaw = np.empty(frames)
    here = int(rng.integers(places))
    visited = {here}
    visits = revisits = parked = 0
    heading = 0.0
    i = 0
    while i < frames:
        visits += 1
        if rng.random() < PARKED_SHARE:  # parked: one unchanging view
            parked += 1
            n = min(frames - i, round(rng.uniform(*PARKED_S) * hz))
            view[i : i + n] = here * per_place + int(rng.integers(SHARP_VIEWS))
            x[i : i + n], y[i : i + n], yaw[i : i + n] = pos[here, 0], pos[here, 1], heading
            i += n
        else:  # dwell, turning to look at the place from a few angles
            end = min(frames, i + round(rng.uniform(*DWELL_S) * hz))
            while i < end:
                n = min(end - i, max(1, round(rng.uniform(*LOOK_S) * hz)))
                heading = float(rng.uniform(-math.pi, math.pi))
                view[i : i + n] = here * per_place + int(rng.integers(SHARP_VIEWS))
                x[i : i + n] = pos[here, 0] + rng.normal(0.0, 0.02)
                y[i : i + n] = pos[here, 1] + rng.normal(0.0, 0.02)
                yaw[i : i + n] = heading
                i += n
        if i >= frames:
            break
        known = sorted(visited - {here})
        if known and rng.random() < REVISIT_SHARE:
            there = int(rng.choice(known))
            revisits += 1
        else:
            there = int(rng.choice([p for p in range(places) if p != here] or [here]))
            revisits += int(there in visited)
        visited.add(there)
        distance = float(np.hypot(*(pos[there] - pos[here])))
        n = min(frames - i, max(1, round(float(np.clip(distance / SPEED_M_S, *DRIVE_S)) * hz)))
        s = (np.arange(n) + 1) / n
        origin = np.where(s < 0.5, here, there)
        blurred = rng.random(n) >= SHARP_WHILE_DRIVING
        variant = np.where(
            blurred, SHARP_VIEWS + rng.integers(BLURRED_VIEWS, size=n), rng.integers(SHARP_VIEWS, size=n)
        )
        view[i : i + n] = np.where(blurred, origin, there) * per_place + variant
        x[i : i + n] = pos[here, 0] + s * (pos[there, 0] - pos[here, 0])
        y[i : i + n] = pos[here, 1] + s * (pos[there, 1] - pos[here, 1])
        heading = math.atan2(pos[there, 1] - pos[here, 1], pos[there, 0] - pos[here, 0])
        yaw[i : i + n] = heading
        i += n
        here = there
    return Timeline(view, x, y, yaw, visits, revisits, parked)


# -- measurement helpers -----------------------------------------------------------------------


def rss_mb() -> float:
    """Resident set size now (Linux /proc; elsewhere the peak from getrusage)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    arr = np.asarray(values)
    return {
        "n": int(arr.size),
        "mean_ms": round(float(arr.mean()), 3),
        "p50_ms": round(float(np.percentile(arr, 50)), 3),
        "p95_ms": round(float(np.percentile(arr, 95)), 3),
        "p99_ms": round(float(np.percentile(arr, 99)), 3),
        "max_ms": round(float(arr.max()), 3),
    }


def _pose(tl: Timeline, i: int) -> Pose:
    half = float(tl.yaw[i]) / 2
    return Pose(ODOM_FRAME, float(tl.x[i]), float(tl.y[i]), 0.0, 0.0, 0.0, math.sin(half), math.cos(half))


# -- the benchmark -------------------------------------------------------------------------------


def run_memory_bench(
    hours: float = 8.0,
    camera_hz: float = 10.0,
    places: int = 40,
    max_disk_mb: float | None = None,
    search_sizes: Sequence[int] = DEFAULT_SEARCH_SIZES,
    store: Path | None = None,
    json_path: Path | None = None,
    seed: int = 0,
    quick: bool = False,
    out: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run the simulation and the search benchmarks, print the figures and return them."""
    if quick:
        hours, search_sizes = QUICK_HOURS, (10_000,)
    if store is not None and store.expanduser().exists():
        raise SystemExit(f"vidmem bench memory: {store} exists; the benchmark needs a fresh store")
    with tempfile.TemporaryDirectory(prefix="vidmem-bench-") as tmp:
        path = store.expanduser() if store is not None else Path(tmp) / "memory.db"
        overrides: dict[str, Any] = {"store.path": str(path)}
        if max_disk_mb is not None:
            overrides["retention.max_disk_mb"] = max_disk_mb
        config = load_config(overrides=overrides)
        figures = simulate(config, hours, camera_hz, places, seed, _progress)
        out(format_memory(figures))
        sys.stdout.flush()
        if search_sizes:
            _progress(f"vector index search benchmark at {', '.join(f'{s:,}' for s in search_sizes)} vectors ...")
            rows = bench_search(search_sizes, dim=ColorLayoutEmbedder.dim, config=config.index, seed=seed)
            figures["vector_search"] = rows
            out(
                f"\nvector index search (bench_search: random unit vectors of {ColorLayoutEmbedder.dim} dimensions "
                "as the image embedder makes, k=10, 200 queries)"
            )
            out(format_rows(rows))
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
        out(f"\nfigures written to {json_path}")
    return figures


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def simulate(
    config: VidmemConfig,
    hours: float,
    hz: float,
    places: int,
    seed: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    frames = round(hours * 3600 * hz)
    t0 = time.perf_counter()
    views = build_views(places, rng, config)
    timeline = build_timeline(frames, hz, places, rng)
    setup_s = time.perf_counter() - t0
    progress(
        f"precomputed {len(views)} views of {places} places and a {hours:g} h timeline "
        f"({frames:,} frames at {hz:g} Hz) in {setup_s:.1f} s"
    )

    store = SqliteStore(config.store_path())
    engine = MemoryEngine(store, config)
    gate = FrameGate(config.ingest)
    planted: dict[str, Any] = {}
    seen = {d.label for v in views for d in v.detections}
    planted_label = next((x for x in sorted(set(COCO_LABELS.values())) if x not in seen), "umbrella")
    drops: Counter[str] = Counter()
    observe_ms: list[float] = []
    this_hour: list[float] = []  # every observe of the current robot hour
    hourly: list[dict[str, float]] = []
    closing_ms: list[float] = []  # observes that closed an event
    retention_ms: list[float] = []  # observes that ran a retention pass
    image_s = 0.0
    image_checks = 0
    rss: list[tuple[float, float]] = []  # (hours of robot time, RSS MB)
    # The store's files after every kept frame, against the budget: the hour's largest, and how often over.
    budget = config.retention.max_disk_mb * 1e6
    disk_by_hour: list[tuple[float, int]] = []
    hour_peak = 0
    over_budget = over_margin = 0
    per_hour = round(3600 * hz)
    hour_frames = set(range(per_hour, frames + 1, per_hour)) | {frames}
    view_idx = timeline.view
    loop_s = 0.0
    start = time.perf_counter()
    lap = start
    rss_start = rss_mb()
    for i in range(frames):
        stamp = EPOCH + i / hz
        reason = gate.check_time(stamp)
        if reason:
            drops[reason] += 1
        else:
            view = views[view_idx[i]]
            a = time.perf_counter()
            verdict = gate.check_image(stamp, view.rgb)
            b = time.perf_counter()
            image_s += b - a
            image_checks += 1
            if not verdict.keep:
                drops[verdict.reason] += 1
            else:
                assert verdict.grey is not None
                obs = PerceivedFrame(
                    stamp=stamp,
                    source=SOURCE,
                    width=WIDTH,
                    height=HEIGHT,
                    jpeg=view.jpeg,
                    grey=verdict.grey,
                    sharpness=verdict.sharpness,
                    quality=verdict.quality,
                    embedding=view.embedding,
                    detections=view.detections,
                    crop_embeddings=view.crops,
                    pose=_pose(timeline, i),
                )
                if not planted:  # day 1: a sign read, a thing seen at a place; a message heard below
                    box = (10.0, 10.0, 60.0, 40.0)
                    obs.texts = [TextLine(PLANTED_SIGN, 0.95, box)]
                    obs.detections = [*obs.detections, Detection(planted_label, 0.9, box)]
                    obs.crop_embeddings = [*obs.crop_embeddings, None]
                    planted = {"stamp": stamp, "label": planted_label, "pose": obs.pose}
                closed = engine.counts["events_closed"]
                due = engine._next_retention  # private: only to tell retention passes apart
                a = time.perf_counter()
                try:
                    engine.observe(obs)
                except StoreError as exc:
                    progress(f"store error at {stamp:.1f}: {exc}")
                    drops["store_error"] += 1
                else:
                    ms = (time.perf_counter() - a) * 1e3
                    this_hour.append(ms)
                    if planted.get("stamp") == stamp:
                        engine.add_transcript(Transcript(stamp + 1.0, stamp + 4.0, PLANTED_SPEECH))
                    size = store.disk_bytes()  # three stats, outside the timed observe
                    hour_peak = max(hour_peak, size)
                    over_budget += budget > 0 and size > budget
                    over_margin += budget > 0 and size > budget * 1.1
                    if engine._next_retention != due:
                        retention_ms.append(ms)
                    elif engine.counts["events_closed"] != closed:
                        closing_ms.append(ms)
                    else:
                        observe_ms.append(ms)
        if i + 1 in hour_frames:
            now = time.perf_counter()
            loop_s += now - lap
            rss.append(((i + 1) / hz / 3600, rss_mb()))
            disk_by_hour.append(((i + 1) / hz / 3600, hour_peak))
            hour_peak = 0
            hourly.append({"hours": round((i + 1) / hz / 3600, 3), "wall_s": round(now - lap, 2)})
            hourly[-1].update(_percentiles(this_hour))
            this_hour = []
            kept = len(observe_ms) + len(closing_ms) + len(retention_ms)
            progress(
                f"  robot time {(i + 1) / hz / 3600:5.2f} h: {kept:,} kept, wall {now - start:6.1f} s, "
                f"RSS {rss[-1][1]:.0f} MB, vector index {len(engine.images):,}"
            )
            lap = time.perf_counter()
    a = time.perf_counter()
    last_event = engine.finish()
    finish_s = time.perf_counter() - a

    kept = len(observe_ms) + len(closing_ms) + len(retention_ms)
    robot_h = frames / hz / 3600
    tiers: dict[str, dict[str, float]] = {t: dict(v) for t, v in tier_bytes(store).items()}
    with store.read() as db:
        spans = {
            str(t): (float(lo), float(hi))
            for t, lo, hi in db.execute("SELECT tier, MIN(stamp), MAX(stamp) FROM moments GROUP BY tier")
        }
        events = int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
        entities = int(db.execute("SELECT COUNT(*) FROM entities").fetchone()[0])
        vectors = int(db.execute("SELECT COUNT(*) FROM moment_vectors").fetchone()[0])
    for tier, row in tiers.items():
        lo, hi = spans.get(tier, (0.0, 0.0))
        span_h = max(hi - lo, 1.0 / hz) / 3600
        row["span_h"] = round(span_h, 3)
        row["payload_bytes_per_tier_hour"] = int(row["payload_bytes"] / span_h)
        row["payload_bytes_per_robot_hour"] = int(row["payload_bytes"] / robot_h)
    disk = store.disk_bytes()
    used = store.used_bytes()
    files = {p.name: p.stat().st_size for p in store_files(store.path) if p.exists()}

    engine_search = _engine_search(engine, views, rng, EPOCH + robot_h * 1800)
    planted_answers = _ask_planted(store, config, planted) if planted else {}
    memory_s = image_s + sum(observe_ms + closing_ms + retention_ms) / 1e3
    rss_first, rss_last = (rss[0][1], rss[-1][1]) if rss else (rss_start, rss_start)
    figures: dict[str, Any] = {
        "robot_hours": round(robot_h, 3),
        "camera_hz": hz,
        "places": places,
        "views": len(views),
        "visits": timeline.visits,
        "revisits": timeline.revisits,
        "parked_dwells": timeline.parked,
        "seed": seed,
        "store": str(store.path),
        "max_disk_mb": config.retention.max_disk_mb,
        "disk_peak_bytes": max((b for _, b in disk_by_hour), default=0),
        "disk_peak_by_hour": [(round(h, 3), b) for h, b in disk_by_hour],
        "kept_frames_over_budget": over_budget,
        "kept_frames_over_budget_by_10pct": over_margin,
        "setup_s": round(setup_s, 2),
        "input_frames": frames,
        "wall_s": round(loop_s, 2),
        "frames_per_s": round(frames / loop_s, 1),
        "realtime_factor": round(robot_h * 3600 / loop_s, 1),
        "memory_layer_s": round(memory_s, 2),
        "image_checks": image_checks,
        "check_image_mean_ms": round(image_s / max(image_checks, 1) * 1e3, 3),
        "kept": kept,
        "kept_share": round(kept / max(frames, 1), 5),
        "kept_per_robot_hour": round(kept / robot_h, 1),
        "drops": dict(drops.most_common()),
        "observe_ms": _percentiles(observe_ms + closing_ms + retention_ms),
        "observe_plain_ms": _percentiles(observe_ms),
        "observe_closing_event_ms": _percentiles(closing_ms),
        "observe_with_retention_ms": _percentiles(retention_ms),
        "observe_by_hour": hourly,
        "finish_s": round(finish_s, 3),
        "events_closed": int(engine.counts["events_closed"]) + int(last_event is not None),
        "events": events,
        "entities": entities,
        "short_term_evicted_events": int(engine.counts["short_term_evicted_events"]),
        "moment_vectors": vectors,
        "index_vectors": len(engine.images),
        "index_mb": round(engine.images.memory_bytes() / 2**20, 2),
        "tiers": tiers,
        "disk_bytes": disk,
        "disk_bytes_per_robot_hour": int(disk / robot_h),
        "used_bytes": used,
        "used_bytes_per_robot_hour": int(used / robot_h),
        "files": files,
        "counters": store.counters(),
        "rss_mb_start": round(rss_start, 1),
        "rss_mb_by_hour": [(round(h, 3), round(m, 1)) for h, m in rss],
        "rss_mb_first_hour": round(rss_first, 1),
        "rss_mb_end": round(rss_last, 1),
        "rss_growth_pct": round((rss_last - rss_first) / rss_first * 100, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10, 1),
        "engine_search": engine_search,
        "planted": planted_answers,
    }
    store.close()
    return figures


def _ask_planted(store: SqliteStore, config: VidmemConfig, planted: dict[str, Any]) -> dict[str, Any]:
    """Ask, at the end, about what was planted in the first kept frame: answered means the answer carries it."""
    from vidmem_ros.agent.reasoner import Reasoner

    query = config.query.model_copy(update={"parser": "rules"})  # no language model: the read-out is the test
    reasoner = Reasoner(store, query, tuple(COCO_LABELS.values()), detector_min_score=config.detector.min_score)
    pose = planted["pose"]
    asked = {
        "sign read": (
            "What did the sign say?",
            lambda a: PLANTED_SIGN in a.text.upper() and a.stamp == planted["stamp"],
        ),
        "message heard": (
            "What did someone say about the keys?",
            lambda a: "blue mat" in a.text and a.stamp is not None and a.stamp - planted["stamp"] < 10,
        ),
        "thing seen at a place": (
            f"Where did you first see a {planted['label']}?",
            lambda a: a.stamp == planted["stamp"] and a.pose is not None and abs(a.pose.x - pose.x) < 1e-6,
        ),
    }
    found = {}
    for fact, (question, carries) in asked.items():
        answer = reasoner.answer(question)
        found[fact] = {
            "question": question,
            "answered": bool(answer.success and carries(answer)),
            "answer": answer.text,
        }
    return {"stamp": planted["stamp"], "label": planted["label"], "facts": found}


def _engine_search(engine: MemoryEngine, views: list[View], rng: np.random.Generator, as_of: float) -> dict[str, Any]:
    """``engine.images.search`` latency on the real store: views of random places, slightly perturbed."""
    picks = rng.integers(len(views), size=ENGINE_QUERIES)
    queries = [views[int(p)].embedding + rng.normal(0.0, 0.01, views[0].embedding.shape) for p in picks]
    queries = [(q / np.linalg.norm(q)).astype(np.float32) for q in queries]
    result: dict[str, Any] = {"vectors": len(engine.images)}
    for label, bound in (("none", None), ("as_of half", as_of)):
        for q in queries[:5]:
            engine.images.search(q, 10, bound)
        latencies = []
        for q in queries:
            a = time.perf_counter()
            engine.images.search(q, 10, bound)
            latencies.append((time.perf_counter() - a) * 1e3)
        result[label] = _percentiles(latencies)
    return result


# -- output -----------------------------------------------------------------------------------


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def _thin(rows: Sequence[Any], most: int) -> list[Any]:
    """At most about ``most`` of ``rows``, evenly spaced, the last always among them (a month has 720 hours)."""
    step = max(1, -(-len(rows) // most))
    return [r for i, r in enumerate(rows) if (len(rows) - 1 - i) % step == 0]


def format_memory(f: dict[str, Any]) -> str:
    """The simulation's figures as a readable table."""
    lines: list[str] = []

    def row(name: str, value: object) -> None:
        lines.append(f"  {name:<36} {value}")

    lines.append(
        f"memory layer: {f['robot_hours']:g} h of robot time at {f['camera_hz']:g} Hz, {f['places']} places "
        f"({f['visits']} visits, {f['revisits']} revisits, {f['parked_dwells']} parked), seed {f['seed']}"
    )
    row("input frames", f"{f['input_frames']:,}")
    row("wall time (timed loop)", f"{f['wall_s']:.1f} s  (setup {f['setup_s']:.1f} s, not timed)")
    row("frames/s through memory layer", f"{f['frames_per_s']:,.0f}  ({f['realtime_factor']:,.0f}x real time)")
    row("  of which gates + observe", f"{f['memory_layer_s']:.1f} s")
    row("check_image calls", f"{f['image_checks']:,}  ({f['check_image_mean_ms']:.2f} ms mean)")
    row("kept frames", f"{f['kept']:,}  ({f['kept_share'] * 100:.2f}% of input, {f['kept_per_robot_hour']:,.0f}/h)")
    for reason, count in f["drops"].items():
        row(f"  dropped: {reason}", f"{count:,}  ({count / f['input_frames'] * 100:.2f}%)")
    for key, name in (
        ("observe_ms", "observe latency, all"),
        ("observe_plain_ms", "  plain"),
        ("observe_closing_event_ms", "  closing an event"),
        ("observe_with_retention_ms", "  with a retention pass"),
    ):
        p = f[key]
        if p["n"]:
            row(
                name,
                f"n={p['n']:,}  mean {p['mean_ms']:.2f}  p50 {p['p50_ms']:.2f}  p95 {p['p95_ms']:.2f}  "
                f"p99 {p['p99_ms']:.2f}  max {p['max_ms']:.1f} ms",
            )
    per_hour = f["observe_by_hour"]
    if len(per_hour) > 1:
        row(
            "observe p50/p95 ms by hour",
            "  ".join(f"{h['hours']:g}h:{h['p50_ms']:.1f}/{h['p95_ms']:.1f}" for h in _thin(per_hour, 24) if h["n"]),
        )
        row("loop wall s by hour", "  ".join(f"{h['hours']:g}h:{h['wall_s']:.1f}" for h in _thin(per_hour, 24)))
    row("finish (close last event)", f"{f['finish_s'] * 1e3:.1f} ms")
    row("events closed", f"{f['events_closed']:,}  (events in store {f['events']:,}, entities {f['entities']:,})")
    lines.append("  disk, per tier (payload = JPEG bytes):")
    lines.append(
        f"    {'tier':<7} {'moments':>8} {'payloads':>9} {'payload':>11} {'span h':>7} "
        f"{'per tier-hour':>14} {'per robot-hour':>15}"
    )
    for tier in ("recent", "mid", "long"):
        t = f["tiers"].get(tier)
        if t:
            lines.append(
                f"    {tier:<7} {t['moments']:>8,} {t['payloads']:>9,} {_mb(t['payload_bytes']):>11} "
                f"{t['span_h']:>7.2f} {_mb(t['payload_bytes_per_tier_hour']):>14} "
                f"{_mb(t['payload_bytes_per_robot_hour']):>15}"
            )
    row(
        "store on disk (db + wal + shm)",
        f"{_mb(f['disk_bytes'])}  = {_mb(f['disk_bytes_per_robot_hour'])} per robot-hour",
    )
    row("  live pages + wal (budget counts)", f"{_mb(f['used_bytes'])}  = {_mb(f['used_bytes_per_robot_hour'])}/h")
    row("  files", ", ".join(f"{k} {_mb(v)}" for k, v in f["files"].items()))
    row("disk budget (retention.max_disk_mb)", f"{f['max_disk_mb']:g} MB")
    if f["max_disk_mb"]:
        budget = f["max_disk_mb"] * 1e6
        row(
            "  largest after a kept frame",
            f"{_mb(f['disk_peak_bytes'])} ({f['disk_peak_bytes'] / budget:.1%} of the budget); "
            f"over it after {f['kept_frames_over_budget']:,} kept frame(s), over by 10% after "
            f"{f['kept_frames_over_budget_by_10pct']:,}",
        )
        row(
            "  largest by robot hour",
            "  ".join(f"{h:g}h:{_mb(b)}" for h, b in _thin(f["disk_peak_by_hour"], 24)),
        )
    counters = f["counters"]
    retention = {k: v for k, v in counters.items() if k.startswith(("retention_", "budget_", "consolidated_"))}
    row("retention counters", ", ".join(f"{k}={v:,}" for k, v in sorted(retention.items())) or "none yet")
    row("other store counters", f"{len(counters) - len(retention)} (in the JSON)")
    row("vectors (store / index)", f"{f['moment_vectors']:,} / {f['index_vectors']:,}  (index {f['index_mb']:.1f} MB)")
    row("RSS at start of loop", f"{f['rss_mb_start']:.0f} MB")
    by_hour = f["rss_mb_by_hour"]
    if by_hour:
        if len(by_hour) > 1:
            row(f"RSS at {by_hour[0][0]:g} h", f"{f['rss_mb_first_hour']:.0f} MB")
        row(f"RSS at {by_hour[-1][0]:g} h", f"{f['rss_mb_end']:.0f} MB  (growth {f['rss_growth_pct']:+.1f}%)")
        row("RSS by hour (MB)", "  ".join(f"{h:g}h:{m:.0f}" for h, m in _thin(by_hour, 24)))
    row("peak RSS", f"{f['peak_rss_mb']:.0f} MB")
    planted = f.get("planted") or {}
    for fact, row_ in planted.get("facts", {}).items():
        row(
            f"day-1 {fact}",
            f"{'answered' if row_['answered'] else 'NOT answered'} at {f['robot_hours']:g} h: {row_['answer'][:70]}",
        )
    es = f["engine_search"]
    for label in ("none", "as_of half"):
        p = es[label]
        row(
            f"engine.images.search ({label})",
            f"{es['vectors']:,} vectors, p50 {p['p50_ms']:.3f} ms  p95 {p['p95_ms']:.3f} ms  (n={p['n']})",
        )
    return "\n".join(lines)
