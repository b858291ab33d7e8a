"""Online event segmentation: decides, frame by frame, whether a kept frame starts a new event.

Two signals, both strictly causal (nothing beyond the current frame is looked at):

* histogram (EventMemAgent): Pearson correlation of the frame's grey histogram with the running
  mean histogram of the current event; a correlation below a fixed δ starts an event.
* embedding (VAM): cosine distance to the previous frame's embedding, compared with a threshold
  fitted by Otsu to a sliding history of such distances, with a fixed fallback while the history
  is short or not clearly bimodal.

Hard rules sit in front of the signals: a gap in the stream (or a stamp going backwards) and an
event reaching the duration cap always cut; the signals are muted until an event is min_event_s old.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import NamedTuple

import cv2
import numpy as np

from vidmem_ros.config import SegmentConfig

OTSU_BINS = 64

# Bimodality rule for the adaptive embedding threshold (see EventSegmenter._fit_threshold).
MIN_CLASS_RATIO = 3.0  # upper class mean ≥ this × lower class mean
MIN_FLOOR_RATIO = 2.0  # upper class mean ≥ this × embedding_min_distance
MAX_UPPER_FRACTION = 0.25  # cuts are rare: at most this share of the history may lie above the split


def grey_histogram(grey: np.ndarray, bins: int) -> np.ndarray:
    """Histogram of grey levels over [0, 256), normalised to sum 1 (all zeros for an empty image)."""
    if grey.dtype == np.uint8 and grey.ndim == 2:
        counts = cv2.calcHist([np.ascontiguousarray(grey)], [0], None, [bins], [0, 256]).ravel()
    else:
        counts, _ = np.histogram(grey, bins=bins, range=(0.0, 256.0))
    hist = counts.astype(np.float64)
    total = hist.sum()
    return hist / total if total > 0 else hist


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation; a constant vector has no defined correlation, so it gets 1.0 only against its equal."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"pearson needs vectors of equal length, got {x.size} and {y.size}")
    dx = x - x.mean()
    dy = y - y.mean()
    sx = float(np.sqrt(np.dot(dx, dx)))
    sy = float(np.sqrt(np.dot(dy, dy)))
    if sx == 0.0 or sy == 0.0:
        return 1.0 if sx == 0.0 and sy == 0.0 and np.array_equal(x, y) else 0.0
    return float(np.clip(np.dot(dx, dy) / (sx * sy), -1.0, 1.0))


class OtsuSplit(NamedTuple):
    threshold: float  # middle of the gap between the classes
    lower_max: float
    upper_min: float
    lower_mean: float
    upper_mean: float
    upper_fraction: float  # share of the values above the threshold


def otsu_split(values: Sequence[float] | np.ndarray, bins: int = OTSU_BINS) -> OtsuSplit:
    """Otsu's split of 1-D values, with the statistics needed to judge whether the split is real.

    The split maximising between-class variance is searched on a histogram between min and max.
    Empty bins form a plateau of equal variance, so instead of a bin edge the threshold is the
    middle of the actual gap between the two classes: it then sits as far from both as possible.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        raise ValueError("otsu_split needs at least one value")
    lo, hi = float(v.min()), float(v.max())
    if hi <= lo:
        return OtsuSplit(lo, lo, lo, lo, lo, 0.0)
    counts, edges = np.histogram(v, bins=bins, range=(lo, hi))
    p = counts / v.size
    centres = (edges[:-1] + edges[1:]) / 2
    omega = np.cumsum(p)[:-1]  # weight of the lower class when it ends after bin k
    mu = np.cumsum(p * centres)[:-1]
    mu_total = float(np.dot(p, centres))
    denominator = omega * (1.0 - omega)
    between = np.zeros_like(omega)
    valid = denominator > 1e-12
    between[valid] = (mu_total * omega[valid] - mu[valid]) ** 2 / denominator[valid]
    k = int(np.argmax(between))
    upper_mask = v >= edges[k + 1]  # np.histogram puts a value on an inner edge into the upper bin
    lower, upper = v[~upper_mask], v[upper_mask]
    lower_max, upper_min = float(lower.max()), float(upper.min())
    return OtsuSplit(
        (lower_max + upper_min) / 2,
        lower_max,
        upper_min,
        float(lower.mean()),
        float(upper.mean()),
        float(upper.size / v.size),
    )


def otsu_threshold(values: Sequence[float] | np.ndarray) -> float:
    """Otsu's threshold of 1-D values; the value itself when all are equal."""
    return otsu_split(values).threshold


def cosine_distance(a: np.ndarray, b: np.ndarray) -> float | None:
    """1 − cosine similarity; None when there is nothing to compare (a zero vector, or a change of model/size)."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape:
        return None
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    if norm == 0.0 or not np.isfinite(norm):
        return None
    return float(1.0 - np.clip(np.dot(x, y) / norm, -1.0, 1.0))


class EventSegmenter:
    """Causal event boundary detector; feed it every kept frame in stamp order.

    A frame without an embedding cannot fire the embedding signal, so with combine="all" it
    cannot cut on signals either; the next embedding is compared with the last one seen.
    """

    def __init__(self, config: SegmentConfig) -> None:
        self.config = config
        self._use_histogram = "histogram" in config.signals
        self._use_embedding = "embedding" in config.signals
        # The distance history outlives events: the threshold describes the camera and scene
        # dynamics, which do not change at a cut.
        self._history: deque[float] = deque(maxlen=config.embedding_history)
        self._threshold = self._fallback_distance
        self._adaptive = False
        self.reset()

    @property
    def _fallback_distance(self) -> float:
        return max(1.0 - self.config.embedding_fallback_similarity, self.config.embedding_min_distance)

    def reset(self) -> None:
        """Forget the current event and the previous frame (the distance history is kept)."""
        self._event_start: float | None = None
        self._last_stamp: float | None = None
        self._last_embedding: np.ndarray | None = None
        self._hist_sum: np.ndarray | None = None
        self._hist_count = 0

    @property
    def event_start(self) -> float | None:
        """Stamp of the first frame of the current event; None before the first frame."""
        return self._event_start

    @property
    def embedding_threshold(self) -> float:
        """Distance above which the next frame's embedding signal fires."""
        return self._threshold

    @property
    def embedding_adaptive(self) -> bool:
        """Whether embedding_threshold comes from Otsu (True) or from the fallback similarity."""
        return self._adaptive

    @property
    def embedding_history(self) -> list[float]:
        return list(self._history)

    def observe(self, stamp: float, grey: np.ndarray, embedding: np.ndarray | None) -> str:
        """Return '' if the frame continues the current event, else why it starts a new one."""
        cfg = self.config
        hist = grey_histogram(grey, cfg.histogram_bins) if self._use_histogram else None
        last_stamp, start = self._last_stamp, self._event_start
        reason = ""
        if start is None or last_stamp is None:
            reason = "start"
        elif stamp < last_stamp or stamp - last_stamp > cfg.max_gap_s:
            reason = "gap"
        elif stamp - start >= cfg.max_event_s:
            reason = "max_duration"

        # Distance to the previous frame; across a start or a gap it is not a frame-to-frame
        # change and would only pollute the history.
        distance: float | None = None
        if embedding is not None and self._last_embedding is not None and reason not in ("start", "gap"):
            distance = cosine_distance(embedding, self._last_embedding)

        if not reason and start is not None and stamp - start >= cfg.min_event_s:
            fired: list[str] = []
            if (
                hist is not None
                and self._hist_sum is not None
                and pearson(hist, self._hist_sum / self._hist_count) < cfg.histogram_min_correlation
            ):
                fired.append("histogram")
            if self._use_embedding and distance is not None and distance > self._threshold:
                fired.append("embedding")
            wanted = len(set(cfg.signals))
            if (cfg.combine == "any" and fired) or (cfg.combine == "all" and len(fired) == wanted):
                reason = "+".join(fired)

        if distance is not None:
            self._history.append(distance)  # after deciding: a frame never votes on itself
            self._threshold, self._adaptive = self._fit_threshold()
        if embedding is not None:
            self._last_embedding = np.asarray(embedding)
        elif reason:
            self._last_embedding = None  # the reference belongs to the closed event; do not cut twice on it
        if reason:
            self._event_start = stamp
            self._hist_sum = None
            self._hist_count = 0
        if hist is not None:
            self._hist_sum = hist.copy() if self._hist_sum is None else self._hist_sum + hist
            self._hist_count += 1
        self._last_stamp = stamp
        return reason

    def _fit_threshold(self) -> tuple[float, bool]:
        """Otsu over the distance history, accepted only when the history is clearly bimodal.

        On a history that is all noise Otsu still splits it somewhere, and cutting at that split
        would chop a static scene into pieces.  The split is accepted only if
        (1) the upper class mean is ≥ MIN_CLASS_RATIO × the lower class mean (two distinct levels),
        (2) the upper class mean is ≥ MIN_FLOOR_RATIO × embedding_min_distance (real jumps, not
            noise tails that merely clear the floor), and
        (3) at most MAX_UPPER_FRACTION of the history lies above the split (cuts are rare events;
            a large upper class is a pan or a busy scene, not a set of boundaries).
        Otherwise the fallback distance 1 − embedding_fallback_similarity is used.

        Within the empty gap between the classes the threshold is put at the geometric, not the
        arithmetic, midpoint: distance noise grows with its level, so equal ratios are equal
        margins, and a history holding only very strong cuts (d ≈ 0.9) then still lets a weaker
        one (d ≈ 0.4) through, where the arithmetic midpoint (≈ 0.45) would miss it.
        """
        cfg = self.config
        if len(self._history) < cfg.embedding_min_history:
            return self._fallback_distance, False
        split = otsu_split(np.fromiter(self._history, dtype=np.float64, count=len(self._history)))
        bimodal = (
            split.upper_mean >= MIN_CLASS_RATIO * split.lower_mean
            and split.upper_mean >= MIN_FLOOR_RATIO * cfg.embedding_min_distance
            and 0.0 < split.upper_fraction <= MAX_UPPER_FRACTION
        )
        if not bimodal:
            return self._fallback_distance, False
        return max(float(np.sqrt(split.lower_max * split.upper_min)), cfg.embedding_min_distance), True
