"""Cheap-first frame gates: working-rate sampling, blur and static rejection.

Order matters for cost: the rate check needs only the stamp, so it runs before
the image is even decoded; blur and static look at a small grey copy.
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


def grey_thumbnail(rgb: np.ndarray, width: int) -> np.ndarray:
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    if grey.shape[1] > width:
        height = max(1, round(grey.shape[0] * width / grey.shape[1]))
        grey = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
    return grey


def sharpness(grey: np.ndarray) -> float:
    """Variance of the Laplacian: low for blurred or featureless frames."""
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def mean_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    if a.shape != b.shape:
        return float("inf")  # a change of resolution is a change of view
    return float(cv2.absdiff(a, b).mean())


class FrameGate:
    """Decides, frame by frame and online, which frames enter memory."""

    def __init__(self, config: IngestConfig) -> None:
        self.config = config
        self._last_kept_stamp: float | None = None
        self._last_kept_grey: np.ndarray | None = None
        self._next_try = -float("inf")

    @property
    def interval(self) -> float:
        return 1.0 / self.config.sample_fps

    def check_time(self, stamp: float) -> str:
        """Stamp-only checks that run before decoding; returns a drop reason or ''."""
        last = self._last_kept_stamp
        if last is not None and stamp < last:
            return "stamp_backwards"
        if (last is not None and stamp - last < self.interval) or stamp < self._next_try:
            return "rate"
        return ""

    def check_image(self, stamp: float, rgb: np.ndarray) -> GateVerdict:
        cfg = self.config
        grey = grey_thumbnail(rgb, cfg.gate_width)
        sharp = sharpness(grey)
        # After a rejection, skip ahead a quarter interval: a static or blurred
        # stream then costs a few decodes per interval, not one per camera frame.
        self._next_try = stamp + self.interval / 4
        if sharp < cfg.blur_min_laplacian_var:
            return GateVerdict(False, "blur", sharp)
        if self._last_kept_grey is not None and self._last_kept_stamp is not None:
            waited = stamp - self._last_kept_stamp
            keepalive_due = cfg.static_keepalive_s > 0 and waited >= cfg.static_keepalive_s
            if not keepalive_due and mean_abs_diff(grey, self._last_kept_grey) < cfg.static_max_mean_diff:
                return GateVerdict(False, "static", sharp)
        self._last_kept_stamp = stamp
        self._last_kept_grey = grey
        return GateVerdict(True, "", sharp)

    def reset(self) -> None:
        """Forget the reference frame, e.g. after a jump in time."""
        self._last_kept_stamp = None
        self._last_kept_grey = None
        self._next_try = -float("inf")
