"""Recent robot poses, so each kept frame can say where it was seen."""

from __future__ import annotations

import bisect
import threading
from collections import deque

from vidmem_ros.memory.records import Pose


class PoseBuffer:
    """A bounded, stamp-ordered window of pose samples."""

    def __init__(self, capacity: int = 2000) -> None:
        self._stamps: deque[float] = deque(maxlen=capacity)
        self._poses: deque[Pose] = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def add(self, stamp: float, pose: Pose) -> None:
        with self._lock:
            if self._stamps and stamp < self._stamps[-1]:
                self._stamps.clear()  # the clock went back (a replay restarted): old samples are meaningless
                self._poses.clear()
            self._stamps.append(stamp)
            self._poses.append(pose)

    def nearest(self, stamp: float, max_age_s: float) -> Pose | None:
        with self._lock:
            if not self._stamps:
                return None
            stamps = list(self._stamps)
            i = bisect.bisect_left(stamps, stamp)
            candidates = [j for j in (i - 1, i) if 0 <= j < len(stamps)]
            best = min(candidates, key=lambda j: abs(stamps[j] - stamp))
            if abs(stamps[best] - stamp) > max_age_s:
                return None
            return self._poses[best]

    def __len__(self) -> int:
        return len(self._stamps)
