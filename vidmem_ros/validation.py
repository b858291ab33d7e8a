"""Checks at the door: every stamp and pose is checked before it can reach memory.

One bad message from a driver, a simulator or a localisation reset must not
become part of memory: a NaN pose would be stored as NULL and break every
reader of that record, and a frame stamped years ahead would move memory's
notion of "now" and age everything at once.  Refused input raises or returns
a drop reason that the caller counts; nothing here touches the store.
"""

from __future__ import annotations

import logging
import math
import threading
import time

from vidmem_ros.errors import InputError
from vidmem_ros.memory.records import Pose

# Beyond any map a robot drives in: a larger coordinate is a corrupted message, not a place.
MAX_COORDINATE_M = 1e7
# A quaternion whose norm is this close to 1 is normalised; further off, the orientation is garbage.
QUATERNION_NORM_TOLERANCE = 0.1
# A backwards jump of the sensor clock larger than this is a restarted source (a looped or replayed
# bag), not a late message: the stream's clock starts over from it.
CLOCK_RESET_S = 30.0
# A new time is believed once this much of it has passed in agreeing stamps: a real source's stamps
# advance, a stuck or garbage one repeats itself.
CONFIRM_SPAN_S = 1.0


def checked_pose(pose: Pose) -> Pose:
    """The pose with its quaternion normalised; InputError when it cannot be a real pose."""
    if not pose.frame_id or not pose.frame_id.strip():
        raise InputError("bad_pose", "pose has no frame id")
    position = (pose.x, pose.y, pose.z)
    if not all(math.isfinite(v) and abs(v) <= MAX_COORDINATE_M for v in position):
        raise InputError("bad_pose", f"position {position} is not finite or beyond {MAX_COORDINATE_M:g} m")
    quaternion = (pose.qx, pose.qy, pose.qz, pose.qw)
    if not all(math.isfinite(v) for v in quaternion):
        raise InputError("bad_pose", f"orientation {quaternion} is not finite")
    norm = math.sqrt(sum(v * v for v in quaternion))
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        raise InputError("bad_pose", f"orientation {quaternion} has norm {norm:.3g}, not a unit quaternion")
    qx, qy, qz, qw = (v / norm for v in quaternion)
    return Pose(pose.frame_id, *position, qx, qy, qz, qw)


class StreamClock:
    """The newest stamp of one input stream, which a single outlier cannot move.

    A stamp more than ``max_ahead_s`` ahead of the stream, beyond the wall
    time that passed since the stream's last stamp (a live robot that paused),
    or more than ``CLOCK_RESET_S`` behind it, is refused unless
    ``confirmations`` stamps in a row, rising over ``CONFIRM_SPAN_S``, agree on
    the new time: the source really jumped (a gap in a bag, a bag replayed
    from its start).
    """

    def __init__(
        self, max_ahead_s: float, confirmations: int = 3, now: float | None = None, idle_s: float = 0.0
    ) -> None:
        """``idle_s``: wall time that already passed since ``now`` arrived (a restarted process seeded with the
        newest stamp its memory holds: the robot's time moved on while the process was down)."""
        self.max_ahead_s = max_ahead_s
        self.confirmations = confirmations
        self.now = now
        self._jump: list[float] = []
        # After a stamp that confirmed a jump: the stamps refused on the way (a stream may take them after all).
        self.jumped_with: tuple[float, ...] = ()
        self._arrived = time.monotonic() - max(0.0, idle_s)  # wall time at which ``now`` arrived

    def admit(self, stamp: float) -> str:
        """'' when the stamp is accepted (and the clock follows it), else the drop reason."""
        if not math.isfinite(stamp) or stamp < 0:
            return "bad_stamp"
        now, arrived = self.now, time.monotonic()
        self.jumped_with = ()
        if now is not None:
            ahead = stamp > now + self.max_ahead_s + (arrived - self._arrived)
            behind = stamp < now - CLOCK_RESET_S
            if ahead or behind:
                if not self._confirmed(stamp):
                    return "stamp_ahead" if ahead else "stamp_behind"
                self.jumped_with = tuple(self._jump[:-1])
        self._jump.clear()
        if stamp == 0.0 and now is None:
            return ""  # a header nobody stamped (or sim time's first instant): taken as "now" it would pin the clock
        if now is None or stamp > now or stamp < now - CLOCK_RESET_S:
            self.now, self._arrived = stamp, arrived
        return ""

    def _confirmed(self, stamp: float) -> bool:
        """True once enough consecutive far-off stamps, each a little after the last, agree on a new time."""
        if self._jump and not 0 < stamp - self._jump[-1] <= self.max_ahead_s:
            self._jump.clear()
        self._jump.append(stamp)
        return len(self._jump) >= self.confirmations and stamp - self._jump[0] >= CONFIRM_SPAN_S


class ThrottledLog:
    """Warns the first time for each kind of bad input, then at most once per period with a count.

    A flood of malformed messages must not become a flood of log lines (each
    also goes to /rosout).
    """

    def __init__(self, logger: logging.Logger, period_s: float = 10.0) -> None:
        self.logger = logger
        self.period_s = period_s
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}
        self._lock = threading.Lock()

    def warning(self, key: str, message: str) -> None:
        self._emit(logging.WARNING, key, message)

    def error(self, key: str, message: str) -> None:
        self._emit(logging.ERROR, key, message)

    def _emit(self, level: int, key: str, message: str) -> None:
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self.period_s:
                self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return
            self._last[key] = now
            suppressed = self._suppressed.pop(key, 0)
        if suppressed:
            message += f" ({suppressed} more like it since the last report)"
        self.logger.log(level, message)
