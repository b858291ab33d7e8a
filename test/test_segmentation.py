"""Online event segmentation on synthetic camera streams built from real photos, with known cuts."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from vidmem_ros.config import SegmentConfig
from vidmem_ros.ingest.gates import grey_thumbnail
from vidmem_ros.memory.segmentation import (
    EventSegmenter,
    grey_histogram,
    otsu_split,
    otsu_threshold,
    pearson,
)

BASE_WIDTH = 400  # photos are downscaled to this once; frames are 320 x 200 crops that pan across them
FRAME_W, FRAME_H = 320, 200
NOISE_SD = 3.0
TOLERANCE_S = 2.0
# The paper's δ = 0.2 misses most cuts between these photos (their grey histograms correlate at up to
# ≈ 0.76); within a scene the correlation with the event average stays ≥ ≈ 0.96.  0.85 sits between.
HISTOGRAM_ONLY_CORRELATION = 0.85


def visual_feature(rgb: np.ndarray) -> np.ndarray:
    """Stand-in for the embedder: colour distribution plus coarse grey layout, L2-normalised.

    Hue is binned only for saturated, lit pixels (for grey pixels it is noise); the rest go to
    brightness bins.  The layout is damped for flat images, where its shape would be noise too.
    """
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
    chroma = cv2.inRange(hsv, (0, 48, 32), (180, 255, 255))
    hue = cv2.calcHist([hsv], [0, 1, 2], chroma, [8, 3, 3], [0, 180, 48, 256, 32, 256]).ravel()
    grey_levels = cv2.calcHist([hsv], [2], cv2.bitwise_not(chroma), [8], [0, 256]).ravel()
    colour = np.sqrt(np.concatenate([hue, grey_levels]).astype(np.float64) / (rgb.shape[0] * rgb.shape[1]))
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    layout = cv2.resize(grey, (8, 8), interpolation=cv2.INTER_AREA).astype(np.float64).ravel()
    layout -= layout.mean()
    layout /= np.linalg.norm(layout) + 200.0
    feature = np.concatenate([colour, layout])
    unit: np.ndarray = (feature / np.linalg.norm(feature)).astype(np.float32)
    return unit


@dataclass
class Frame:
    stamp: float
    grey: np.ndarray
    embedding: np.ndarray | None


@pytest.fixture(scope="module")
def bases(photos: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = {}
    for name, image in photos.items():
        if image.ndim != 3:  # a grey photo passed through an RGB-only loader; rebuild it
            import skimage.data

            image = np.dstack([getattr(skimage.data, name)()] * 3)
        height = round(image.shape[0] * BASE_WIDTH / image.shape[1])
        out[name] = cv2.resize(image, (BASE_WIDTH, height), interpolation=cv2.INTER_AREA)
    return out


class Camera:
    """Renders frames of a photo: a slow pan plus hand jitter plus sensor noise, reproducibly."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        # Drawing fresh noise per frame dominated the test's run time; a window at a random offset
        # into one larger field is just as independent from frame to frame for our purpose.
        field = self.rng.normal(0.0, NOISE_SD, (FRAME_H + 64, FRAME_W * 3 + 192))
        self._noise = np.round(field).astype(np.int16)

    def frame(self, image: np.ndarray, x: float, y: float, jitter: float) -> np.ndarray:
        dx, dy = self.rng.uniform(-jitter, jitter, 2)
        shift = np.array([[1, 0, -(x + dx)], [0, 1, -(y + dy)]], dtype=np.float32)
        view = cv2.warpAffine(image, shift, (FRAME_W, FRAME_H), flags=cv2.INTER_LINEAR)
        oy, ox = self.rng.integers(0, 64), self.rng.integers(0, 192)
        noise = self._noise[oy : oy + FRAME_H, ox : ox + FRAME_W * 3]
        noisy = cv2.add(view.reshape(FRAME_H, -1), noise, dtype=cv2.CV_8U)
        return noisy.reshape(view.shape)


def observed(rgb: np.ndarray, stamp: float) -> Frame:
    return Frame(stamp, grey_thumbnail(rgb, 320), visual_feature(rgb))


@pytest.fixture(scope="module")
def scene_stream(bases: dict[str, np.ndarray]) -> tuple[list[Frame], list[float]]:
    """1 frame/s, scenes of 15-60 s, each a different photo than the last; returns frames and true cuts."""
    camera = Camera(seed=11)
    rng = camera.rng
    names = sorted(bases)
    frames: list[Frame] = []
    cuts: list[float] = []
    stamp, previous = 0, ""
    while stamp < 900:
        length = int(rng.integers(15, 61))
        name = str(rng.choice([n for n in names if n != previous]))
        previous = name
        image = bases[name]
        slack_x, slack_y = image.shape[1] - FRAME_W - 8, image.shape[0] - FRAME_H - 8
        x0, x1 = rng.uniform(4, 4 + slack_x, 2)  # pan over up to 80 px during the scene
        y = rng.uniform(4, 4 + slack_y)
        if stamp:
            cuts.append(float(stamp))
        for i in range(length):
            x = x0 + (x1 - x0) * i / (length - 1)
            frames.append(observed(camera.frame(image, x, y, jitter=3.0), float(stamp)))
            stamp += 1
    return frames, cuts


def run(config: SegmentConfig, frames: list[Frame]) -> list[tuple[float, str]]:
    segmenter = EventSegmenter(config)
    return [(f.stamp, r) for f in frames if (r := segmenter.observe(f.stamp, f.grey, f.embedding))]


def precision_recall(found: list[float], truth: list[float]) -> tuple[float, float]:
    """One-to-one matching within ±TOLERANCE_S (greedy in time order, fine for cuts ≥ 15 s apart)."""
    unused = sorted(found)
    hits = 0
    for cut in truth:
        match = next((f for f in unused if abs(f - cut) <= TOLERANCE_S), None)
        if match is not None:
            unused.remove(match)
            hits += 1
    precision = hits / len(found) if found else 1.0
    return precision, hits / len(truth)


@pytest.mark.parametrize(
    ("signals", "settings"),
    [
        (["histogram"], {"histogram_min_correlation": HISTOGRAM_ONLY_CORRELATION}),
        (["embedding"], {}),
        (["histogram", "embedding"], {}),
        (["histogram", "embedding"], {"combine": "all", "histogram_min_correlation": HISTOGRAM_ONLY_CORRELATION}),
    ],
    ids=["histogram", "embedding", "any", "all"],
)
def test_cuts_are_found_with_precision_and_recall(
    scene_stream: tuple[list[Frame], list[float]], signals: list[str], settings: dict[str, object]
) -> None:
    frames, truth = scene_stream
    config = SegmentConfig.model_validate({"signals": signals, **settings})
    result = run(config, frames)
    assert result[0] == (0.0, "start")
    found = [stamp for stamp, _ in result[1:]]
    precision, recall = precision_recall(found, truth)
    label = f"{'+'.join(signals)} ({config.combine})"
    print(f"\n{label}: {len(truth)} cuts, {len(found)} found, precision {precision:.3f}, recall {recall:.3f}")
    assert precision >= 0.9
    assert recall >= 0.9
    allowed = {"histogram", "embedding", "histogram+embedding"}
    assert {reason for _, reason in result[1:]} <= allowed
    assert all(b - a >= config.min_event_s for a, b in zip([0.0, *found], found, strict=False))
    if "histogram" in signals:
        # For the record: the paper's δ = 0.2 on the same stream.
        paper = config.model_copy(update={"histogram_min_correlation": 0.2})
        p, r = precision_recall([s for s, _ in run(paper, frames)[1:]], truth)
        print(f"{label} at the paper's δ=0.2: precision {p:.3f}, recall {r:.3f}")


def test_both_signals_are_named_when_both_fire(scene_stream: tuple[list[Frame], list[float]]) -> None:
    frames, _ = scene_stream
    config = SegmentConfig(histogram_min_correlation=HISTOGRAM_ONLY_CORRELATION)
    reasons = [reason for _, reason in run(config, frames)]
    assert "histogram+embedding" in reasons


def test_static_scene_is_cut_only_at_the_duration_cap(bases: dict[str, np.ndarray]) -> None:
    camera = Camera(seed=5)
    image = bases["coffee"]
    # 60 distinct noisy, jittered renderings drawn at random for 1200 s: the cost of 60 frames, not 1200.
    views = [observed(camera.frame(image, 40.0, 30.0, jitter=1.0), 0.0) for _ in range(60)]
    picks = camera.rng.integers(0, len(views), 1200)
    segmenter = EventSegmenter(SegmentConfig())
    cuts = []
    for t, pick in enumerate(picks):
        view = views[pick]
        if reason := segmenter.observe(float(t), view.grey, view.embedding):
            cuts.append((float(t), reason))
    print(f"\nstatic scene: cuts {cuts}, embedding threshold {segmenter.embedding_threshold:.3f}")
    assert cuts[0] == (0.0, "start")
    assert len(cuts) == 4
    for (stamp, reason), expected in zip(cuts[1:], (300.0, 600.0, 900.0), strict=True):
        assert reason == "max_duration"
        assert abs(stamp - expected) <= 1.0
    # A history of pure noise must not be trusted as bimodal.
    assert not segmenter.embedding_adaptive
    assert segmenter.embedding_threshold == pytest.approx(0.2)


def two_scenes(bases: dict[str, np.ndarray], switch: int, end: int) -> list[Frame]:
    camera = Camera(seed=2)
    frames = []
    for t in range(end):
        image = bases["coffee"] if t < switch else bases["astronaut"]
        frames.append(observed(camera.frame(image, 40.0, 30.0, jitter=2.0), float(t)))
    return frames


def test_gap_and_backwards_stamp_start_an_event(bases: dict[str, np.ndarray]) -> None:
    frames = two_scenes(bases, switch=100, end=6)
    segmenter = EventSegmenter(SegmentConfig())
    assert segmenter.event_start is None
    assert [segmenter.observe(f.stamp, f.grey, f.embedding) for f in frames[:4]] == ["start", "", "", ""]
    hours = 3 * 3600.0
    assert segmenter.observe(hours, frames[4].grey, frames[4].embedding) == "gap"  # ignores min_event_s
    assert segmenter.event_start == hours
    assert segmenter.observe(hours + 1, frames[5].grey, frames[5].embedding) == ""
    assert segmenter.observe(hours - 10, frames[5].grey, frames[5].embedding) == "gap"
    assert segmenter.observe(hours - 9, frames[5].grey, frames[5].embedding) == ""
    # A pause shorter than max_gap_s is not a gap.
    assert segmenter.observe(hours + 50, frames[5].grey, frames[5].embedding) == ""
    segmenter.reset()
    assert segmenter.event_start is None
    assert segmenter.observe(0.0, frames[0].grey, frames[0].embedding) == "start"


def test_min_event_s_holds_back_signals_but_not_the_hard_rules(bases: dict[str, np.ndarray]) -> None:
    frames = two_scenes(bases, switch=5, end=20)  # the view changes 5 s into the event

    strict = run(SegmentConfig(min_event_s=8.0), frames)
    assert strict[0] == (0.0, "start")
    assert all(stamp >= 8.0 for stamp, _ in strict[1:])

    eager = run(SegmentConfig(min_event_s=0.0), frames)
    assert eager[:2] == [(0.0, "start"), (5.0, "histogram+embedding")]
    assert len(eager) == 2

    capped = run(SegmentConfig(min_event_s=8.0, max_event_s=4.0), frames)
    assert [stamp for stamp, reason in capped if reason == "max_duration"] == [4.0, 8.0, 12.0, 16.0]


def test_a_frame_without_embedding_does_not_fire_that_signal(bases: dict[str, np.ndarray]) -> None:
    frames = two_scenes(bases, switch=10, end=20)
    for frame in frames[10:12]:
        frame.embedding = None
    assert run(SegmentConfig(min_event_s=0.0), frames) == [(0.0, "start"), (10.0, "histogram")]
    # Both required: the histogram fires at 10 and 11 but there is nothing to compare embeddings on.
    both_required = SegmentConfig(combine="all", min_event_s=0.0)
    assert run(both_required, frames) == [(0.0, "start"), (12.0, "histogram+embedding")]
    # Without a cut the next embedding is compared with the last one seen, so a change in the hole still shows;
    # after a cut (first case) that reference was dropped, so the same change is not cut twice.
    assert run(SegmentConfig(signals=["embedding"], min_event_s=0.0), frames) == [(0.0, "start"), (12.0, "embedding")]


def unit_vectors(distances: list[float]) -> list[np.ndarray]:
    """Unit vectors in the plane whose consecutive cosine distances are the given ones."""
    angle, out = 0.0, [np.array([1.0, 0.0], dtype=np.float32)]
    for d in distances:
        angle += math.acos(1.0 - d)
        out.append(np.array([math.cos(angle), math.sin(angle)], dtype=np.float32))
    return out


def feed(distances: list[float], config: SegmentConfig | None = None) -> tuple[EventSegmenter, list[str]]:
    segmenter = EventSegmenter(config or SegmentConfig(signals=["embedding"], min_event_s=0.0))
    grey = np.zeros((4, 4), np.uint8)
    reasons = [segmenter.observe(float(t), grey, e) for t, e in enumerate(unit_vectors(distances))]
    return segmenter, reasons


def test_adaptive_threshold_is_trusted_only_on_a_bimodal_history() -> None:
    rng = np.random.default_rng(0)
    fallback = pytest.approx(0.2)

    # Noise with a heavy tail: Otsu splits it somewhere, but that split must not become the threshold.
    noise = list(np.minimum(rng.exponential(0.01, 200), 0.12))
    segmenter, reasons = feed(noise)
    assert reasons[1:] == [""] * len(noise)
    assert not segmenter.embedding_adaptive and segmenter.embedding_threshold == fallback

    # A steady pan: a large share of moderate distances is motion, not a set of boundaries.
    pan = [0.15 if i % 3 else 0.01 for i in range(100)]
    segmenter, reasons = feed(pan)
    assert not any(reasons[1:])
    assert not segmenter.embedding_adaptive and segmenter.embedding_threshold == fallback

    # Too little history: the fallback decides, so a 0.15 jump is not a cut yet.
    segmenter, reasons = feed([0.01] * 4 + [0.6] + [0.01] * 4 + [0.15])
    assert reasons[1:] == [""] * 4 + ["embedding"] + [""] * 5

    # Quiet frames with a few clear cuts: the threshold adapts below the fallback.
    history = [float(d) for d in rng.uniform(0.002, 0.02, 60)]
    for i in (10, 25, 40, 55):
        history[i] = 0.6
    segmenter, reasons = feed(history)
    assert segmenter.embedding_adaptive
    assert 0.05 <= segmenter.embedding_threshold < 0.15
    assert [i for i, r in enumerate(reasons[1:]) if r] == [10, 25, 40, 55]
    _, reasons = feed([*history, 0.15, 0.03])
    assert reasons[-2:] == ["embedding", ""]  # a jump the fallback (0.2) would have let through


def test_histogram_and_statistics_helpers(bases: dict[str, np.ndarray]) -> None:
    grey = grey_thumbnail(bases["chelsea"], 320)
    hist = grey_histogram(grey, 64)
    assert hist.shape == (64,) and hist.dtype == np.float64
    assert hist.sum() == pytest.approx(1.0)
    assert grey_histogram(grey.astype(np.float32), 64) == pytest.approx(hist)
    assert grey_histogram(grey, 50).sum() == pytest.approx(1.0)

    assert pearson(hist, hist) == pytest.approx(1.0)
    assert pearson(hist, hist.max() - hist) == pytest.approx(-1.0)
    flat = np.full(64, 1 / 64)
    assert pearson(flat, flat) == 1.0
    assert pearson(flat, hist) == 0.0

    rng = np.random.default_rng(1)
    values = np.concatenate([rng.normal(0.02, 0.005, 90), rng.normal(0.5, 0.05, 10)])
    split = otsu_split(values)
    assert values[:90].max() < split.threshold < values[90:].min()
    assert split.upper_fraction == pytest.approx(0.1)
    assert otsu_threshold(values) == split.threshold
    assert otsu_threshold([0.3, 0.3, 0.3]) == 0.3
    assert otsu_threshold([1.0, 2.0]) == 1.5
