"""What arrives while the models load: held in a bounded buffer, then handed on in arrival order.

The ingest node subscribes first and loads its models after (seconds on a CPU,
each time it restarts), so the frames, poses and speech that arrive meanwhile
are kept rather than lost.  Frames are held at the working rate
(``ingest.sample_fps``: the rest would be dropped by the rate gate anyway) and
the buffer is bounded in bytes (``ingest.startup_buffer_mb``): past it the
oldest frame goes.  Drops are counted by the pipeline once it exists.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vidmem_ros.ingest.gates import RATE_TOLERANCE
from vidmem_ros.ingest.stats import IngestStats

# What a held message without a payload (a pose) counts for against the byte budget.
SMALL_MESSAGE_BYTES = 1024


@dataclass(frozen=True)
class Held:
    """One message and the intake call that takes it."""

    deliver: Callable[[], object]
    size: int
    is_frame: bool


@dataclass
class Released:
    """What the buffer handed on and what it had to let go."""

    delivered: int = 0
    thinned: int = 0  # frames closer together than the working rate
    overflowed: int = 0  # frames dropped, oldest first, to stay within the byte budget


class StartupBuffer:
    def __init__(self, sample_fps: float, max_bytes: int) -> None:
        self.sample_fps = sample_fps
        self.max_bytes = max_bytes
        self._held: deque[Held] = deque()
        self._bytes = 0
        self._last_frame: dict[str, float] = {}  # per source: the stamp of the last frame held
        self._released = Released()
        self._lock = threading.Lock()

    def hold_frame(self, deliver: Callable[[], object], source: str, stamp: float, size: int) -> None:
        """A camera message, held if it is due at the working rate."""
        with self._lock:
            last = self._last_frame.get(source)
            if last is not None and last <= stamp < last + (1.0 - RATE_TOLERANCE) / self.sample_fps:
                self._released.thinned += 1
                return
            self._last_frame[source] = stamp
            self._add(Held(deliver, size, is_frame=True))

    def hold(self, deliver: Callable[[], object], size: int = SMALL_MESSAGE_BYTES) -> None:
        """A pose or audio message: all are held (they are small) while the budget allows."""
        with self._lock:
            self._add(Held(deliver, max(size, SMALL_MESSAGE_BYTES), is_frame=False))

    def release(self, stats: IngestStats) -> Released:
        """Deliver everything held, in arrival order; frames let go are counted in ``stats`` by reason."""
        with self._lock:
            held, self._held, self._bytes = list(self._held), deque(), 0
            released, self._released = self._released, Released()
        for _ in range(released.thinned):
            stats.received()
            stats.dropped("rate")
        for _ in range(released.overflowed):
            stats.received()
            stats.dropped("startup_overflow")
        for item in held:
            item.deliver()
        released.delivered = len(held)
        return released

    def __len__(self) -> int:
        with self._lock:
            return len(self._held)

    def _add(self, item: Held) -> None:
        self._held.append(item)
        self._bytes += item.size
        while self._bytes > self.max_bytes and self._held:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        """The oldest frame goes first (poses and speech are small and cheap to keep); without frames, the oldest."""
        index = next((i for i, item in enumerate(self._held) if item.is_frame), 0)
        item = self._held[index]
        del self._held[index]
        self._bytes -= item.size
        if item.is_frame:
            self._released.overflowed += 1


def message_stamp(msg: Any) -> float:
    """A message header's stamp in seconds (checked later, when the intake takes the message)."""
    stamp = msg.header.stamp
    return float(stamp.sec) + float(stamp.nanosec) * 1e-9
