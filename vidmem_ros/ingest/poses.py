"""Recent robot poses, so each kept frame can say where it was seen, and the path the robot took.

``PoseBuffer`` holds a window of pose samples and gives a frame the pose at its
stamp, interpolated between the samples either side of it.  ``PoseTrack``
downsamples every sample into the path kept in the store.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections.abc import Callable, Sequence

from vidmem_ros.config import IngestConfig
from vidmem_ros.errors import StoreError
from vidmem_ros.memory.poses import interpolate, turned_deg
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.validation import CLOCK_RESET_S, ThrottledLog

# Track samples gather in memory until they span this much sensor time, then go to the store in one
# transaction: a killed process loses at most this much of the track.
TRACK_BATCH_S = 5.0
# Stamps carry float error (0.5 s between two stamps may compute as 0.49999976): this much early is on time.
STAMP_SLACK_S = 1e-3


class PoseBuffer:
    """A bounded, stamp-ordered window of pose samples (poses already checked at intake)."""

    def __init__(self, capacity: int = 2000) -> None:
        self.capacity = capacity
        self._stamps: list[float] = []
        self._poses: list[Pose] = []
        self._arrived = threading.Condition()
        self._feeder: int | None = None  # the thread that added the latest sample

    def add(self, stamp: float, pose: Pose) -> None:
        with self._arrived:
            if self._stamps and stamp < self._stamps[-1] - CLOCK_RESET_S:
                self._stamps.clear()  # the clock went back (a replay restarted): old samples are meaningless
                self._poses.clear()
            i = bisect.bisect_right(self._stamps, stamp)  # a late sample takes its place in stamp order
            self._stamps.insert(i, stamp)
            self._poses.insert(i, pose)
            if len(self._stamps) > self.capacity:
                del self._stamps[0], self._poses[0]
            self._feeder = threading.get_ident()
            self._arrived.notify_all()

    def at(self, stamp: float, max_age_s: float, wait_s: float = 0.0) -> Pose | None:
        """The pose at ``stamp``, interpolated between the samples before and after it.

        When no sample at or after ``stamp`` has arrived yet but the stream is live (its newest sample
        within ``max_age_s``) and fed by another thread, wait up to ``wait_s`` for one: where this thread
        feeds the samples itself (a bag read in order), none can arrive meanwhile.  Without a later sample
        the last one holds.  None when the nearest sample is further than ``max_age_s`` from ``stamp``.
        """
        with self._arrived:
            live = self._stamps and stamp - max_age_s <= self._stamps[-1] < stamp
            if wait_s > 0 and live and self._feeder != threading.get_ident():
                self._arrived.wait_for(lambda: not self._stamps or self._stamps[-1] >= stamp, wait_s)
            return self._pose_at(stamp, max_age_s)

    def _pose_at(self, stamp: float, max_age_s: float) -> Pose | None:
        near = self._bracket(stamp)
        if not near or min(abs(self._stamps[j] - stamp) for j in near) > max_age_s:
            return None
        if len(near) == 1:
            return self._poses[near[0]]
        (t0, t1), (p0, p1) = (self._stamps[j] for j in near), (self._poses[j] for j in near)
        if p0.frame_id != p1.frame_id:  # the source switched frames: no pose lies between the two
            return p0 if stamp - t0 <= t1 - stamp else p1
        return interpolate(p0, p1, (stamp - t0) / (t1 - t0) if t1 > t0 else 0.0)

    def _bracket(self, stamp: float) -> list[int]:
        """Indices of the last sample at or before ``stamp`` and the first after it, those that exist."""
        i = bisect.bisect_right(self._stamps, stamp)
        return [j for j in (i - 1, i) if 0 <= j < len(self._stamps)]

    def __len__(self) -> int:
        with self._arrived:
            return len(self._stamps)


class PoseTrack:
    """The robot's path, downsampled, written to the store a batch at a time (never once per message).

    A sample joins the track when ``pose_track_period_s`` has passed since the last one and the robot has
    moved ``pose_track_min_move_m`` or turned ``pose_track_min_turn_deg`` since; standing still, once
    every ``pose_track_still_s``.
    """

    def __init__(
        self,
        store: SqliteStore,
        config: IngestConfig,
        log: ThrottledLog,
        write: Callable[[Sequence[tuple[float, Pose]]], None] | None = None,
    ) -> None:
        """``write``: how a batch reaches the store (the engine's, which puts it on memory's time); the store's
        own by default."""
        self.store = store
        self.write = write or store.add_pose_track
        self.config = config  # read at each sample: run-time changes apply
        self.log = log
        self._last: tuple[float, Pose] | None = None
        self._pending: list[tuple[float, Pose]] = []
        self._lock = threading.Lock()

    def add(self, stamp: float, pose: Pose) -> None:
        """Offer a checked sample; writes the pending batch once it spans ``TRACK_BATCH_S``."""
        with self._lock:
            if not self._keeps(stamp, pose):
                return
            self._last = (stamp, pose)
            self._pending.append((stamp, pose))
            due = not 0 <= stamp - self._pending[0][0] < TRACK_BATCH_S
        if due:
            self.flush()

    def flush(self) -> None:
        """Write every pending sample in one transaction (at shutdown, and as batches fill)."""
        with self._lock:
            batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            self.write(batch)
        except StoreError as exc:
            self.log.warning("pose_track", f"could not store {len(batch)} samples of the pose track: {exc}")

    def _keeps(self, stamp: float, pose: Pose) -> bool:
        if self._last is None:
            return True
        last_stamp, last = self._last
        dt = stamp - last_stamp
        if dt < -CLOCK_RESET_S:
            return True  # the clock went back (a replay restarted): the track starts over
        if dt <= 0:
            return False  # a late or repeated sample: the track only moves forward
        cfg = self.config
        if pose.frame_id != last.frame_id or dt >= cfg.pose_track_still_s - STAMP_SLACK_S:
            return True
        if dt < cfg.pose_track_period_s - STAMP_SLACK_S:
            return False
        moved = math.dist((pose.x, pose.y, pose.z), (last.x, last.y, last.z))
        return moved >= cfg.pose_track_min_move_m or turned_deg(last, pose) >= cfg.pose_track_min_turn_deg
