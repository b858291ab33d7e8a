"""Cheap-first frame gates: working-rate sampling, blur, static and near-duplicate rejection.

Order matters for cost: the rate check needs only the stamp, so it runs before
the image is even decoded; blur, static and SSIM look at a small grey copy,
cheapest first.  Kept frames get a keyframe quality score (HOMER).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vidmem_ros.config import IngestConfig


@dataclass(frozen=True)
class GateVerdict:
    keep: bool
    reason: str = ""  # why a frame was dropped
    sharpness: float = 0.0
    quality: float = 0.0
    grey: np.ndarray | None = None  # the small grey copy the gates looked at


_SSIM_C1 = (0.01 * 255) ** 2
_SSIM_C2 = (0.03 * 255) ** 2
_HUE_BINS = 36
# After a rejected frame, the next one is tried this fraction of a working interval later.
RETRY_FRACTION = 0.25
# A frame up to this fraction of a working interval early still counts as on time: camera stamps
# jitter, and 0.2 s between two stamps often computes as 0.19999981.
RATE_TOLERANCE = 0.1


def grey_thumbnail(rgb: np.ndarray, width: int) -> np.ndarray:
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    if grey.shape[1] > width:
        height = max(1, round(grey.shape[0] * width / grey.shape[1]))
        grey = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
    return grey


def sharpness(grey: np.ndarray) -> float:
    """Variance of the Laplacian: low for blurred or featureless frames."""
    # 16-bit Laplacian and meanStdDev give the same value as a float64 variance, 1.7x faster.
    _, std = cv2.meanStdDev(cv2.Laplacian(grey, cv2.CV_16S))
    return float(std[0, 0] ** 2)


def mean_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    if a.shape != b.shape:
        return float("inf")  # a change of resolution is a change of view
    return float(cv2.norm(a, b, cv2.NORM_L1)) / a.size


def ssim(a: np.ndarray, b: np.ndarray) -> float:
    """Mean structural similarity of two grey images (Gaussian window, sigma 1.5); 0 when shapes differ."""
    if a.shape != b.shape:
        return 0.0
    x, y = a.astype(np.float32), b.astype(np.float32)

    def blur(img: np.ndarray) -> np.ndarray:
        return cv2.GaussianBlur(img, (11, 11), 1.5)

    mx, my = blur(x), blur(y)
    vx, vy, cxy = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
    num = (2 * mx * my + _SSIM_C1) * (2 * cxy + _SSIM_C2)
    den = (mx * mx + my * my + _SSIM_C1) * (vx + vy + _SSIM_C2)
    return float((num / den).mean())


def hue_entropy(rgb: np.ndarray) -> float:
    """Entropy of the hue of coloured pixels, scaled to [0, 1]: colourful, varied views score high."""
    small = rgb if rgb.shape[1] <= 160 else cv2.resize(rgb, (160, max(1, rgb.shape[0] * 160 // rgb.shape[1])))
    hsv = cv2.cvtColor(small, cv2.COLOR_RGB2HSV)
    coloured = hsv[..., 1] > 40  # grey pixels have no meaningful hue
    hist = np.bincount((hsv[..., 0][coloured].astype(np.int32) * _HUE_BINS) // 180, minlength=_HUE_BINS)
    total = hist.sum()
    if total == 0:
        return 0.0
    p = hist[hist > 0] / total
    return float(-(p * np.log(p)).sum() / np.log(_HUE_BINS))


def keyframe_quality(sharp: float, rgb: np.ndarray, hue_weight: float) -> float:
    return sharp * (1.0 + hue_weight * hue_entropy(rgb))


class FrameGate:
    """Decides, frame by frame and online, which frames enter memory."""

    def __init__(self, config: IngestConfig) -> None:
        self.config = config
        self._last_kept_stamp: float | None = None
        self._last_kept_grey: np.ndarray | None = None
        self._next_try = -float("inf")
        self._due = -float("inf")  # when the next frame may be kept

    @property
    def interval(self) -> float:
        return 1.0 / self.config.sample_fps

    def check_time(self, stamp: float) -> str:
        """Stamp-only checks that run before decoding; returns a drop reason or ''."""
        last = self._last_kept_stamp
        if last is not None and stamp < last:
            return "stamp_backwards"
        early = self.interval * RATE_TOLERANCE
        if stamp < self._due - early or stamp < self._next_try - early * RETRY_FRACTION:
            return "rate"
        return ""

    def check_image(self, stamp: float, rgb: np.ndarray) -> GateVerdict:
        cfg = self.config
        grey = grey_thumbnail(rgb, cfg.gate_width)
        sharp = sharpness(grey)
        # After a rejection, skip ahead a quarter interval: a static or blurred
        # stream then costs a few decodes per interval, not one per camera frame.
        self._next_try = stamp + self.interval * RETRY_FRACTION
        if sharp < cfg.blur_min_laplacian_var:
            return GateVerdict(False, "blur", sharp)
        if self._last_kept_grey is not None and self._last_kept_stamp is not None:
            waited = stamp - self._last_kept_stamp
            keepalive_due = cfg.static_keepalive_s > 0 and waited >= cfg.static_keepalive_s
            if not keepalive_due:
                if mean_abs_diff(grey, self._last_kept_grey) < cfg.static_max_mean_diff:
                    return GateVerdict(False, "static", sharp)
                if ssim(grey, self._last_kept_grey) > cfg.duplicate_min_ssim:
                    return GateVerdict(False, "duplicate", sharp)
        self._last_kept_stamp = stamp
        self._last_kept_grey = grey
        self._schedule_next(stamp)
        return GateVerdict(True, "", sharp, keyframe_quality(sharp, rgb, cfg.quality_hue_weight), grey)

    def _schedule_next(self, kept: float) -> None:
        """Keep frames on a grid of working intervals, so frames early by jitter are kept and the rate cannot
        drift up: on time, the next slot follows the last one; late (a gap), the grid restarts at the kept frame."""
        on_grid = abs(kept - self._due) <= self.interval * RATE_TOLERANCE
        self._due = (self._due if on_grid else kept) + self.interval

    def reset(self) -> None:
        """Forget the reference frame, e.g. after a jump in time."""
        self._last_kept_stamp = None
        self._last_kept_grey = None
        self._next_try = -float("inf")
        self._due = -float("inf")
