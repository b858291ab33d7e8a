"""Pieces shared by the benchmarks that drive the real nodes over DDS (``vidmem bench ros``, ``vidmem bench faults``).

Nothing here imports rclpy at module level: the benchmarks set the DDS environment first.
"""

from __future__ import annotations

import math
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

# memory_stats drop reasons of inputs other than camera frames start with these
OTHER_STREAMS = ("audio_", "pose_")


def image_msg(rgb: np.ndarray) -> Any:
    """An rgb8 ``sensor_msgs/Image`` of ``rgb``, unstamped."""
    from sensor_msgs.msg import Image

    msg = Image(height=rgb.shape[0], width=rgb.shape[1], encoding="rgb8", step=rgb.shape[1] * 3)
    msg.data = np.ascontiguousarray(rgb).tobytes()
    return msg


def percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": math.nan, "p95": math.nan, "max": math.nan}
    a = np.asarray(values, dtype=float)
    return {
        "n": len(values),
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "max": float(a.max()),
    }


def drops(stats: Any) -> dict[str, int]:
    """Every drop count in a ``memory_stats`` message, by reason."""
    return {r: int(n) for r, n in zip(stats.drop_reasons, stats.drop_counts, strict=True)}


def frame_drops(stats: Any) -> dict[str, int]:
    """Drops of camera frames: reasons of the other inputs carry their stream's prefix."""
    return {r: n for r, n in drops(stats).items() if not r.startswith(OTHER_STREAMS)}


class PacedStream(threading.Thread):
    """Calls ``publish(i, stamp)`` at ``rate_hz`` on its own thread, to an absolute schedule (no bursts, unless
    it fell behind), with ``stamp = stamp0 + i / rate_hz``; for ``duration_s`` or, when None, until ``stop()``.

    ``pause()`` holds publishing (the schedule, and so the stamps, run on: the stream has a gap) until
    ``resume()``; ``last_stamp`` is the stamp of the latest message published."""

    def __init__(
        self,
        publish: Callable[[int, float], None],
        rate_hz: float,
        stamp0: float,
        duration_s: float | None = None,
        name: str = "bench-stream",
    ) -> None:
        super().__init__(name=name, daemon=True)
        self.publish, self.rate_hz, self.stamp0, self.duration_s = publish, rate_hz, stamp0, duration_s
        self.published = 0
        self.last_stamp = math.nan
        self.wall_s = 0.0
        self._start = math.nan
        self._stopped = threading.Event()
        self._running = threading.Event()
        self._running.set()

    def run(self) -> None:
        period = 1.0 / self.rate_hz
        count = math.inf if self.duration_s is None else round(self.duration_s * self.rate_hz)
        start = self._start = time.monotonic()
        i = 0
        while i < count:
            delay = start + i * period - time.monotonic()
            if delay > 0 and self._stopped.wait(delay):
                break
            self._running.wait()
            if self._stopped.is_set():
                break
            late = math.floor((time.monotonic() - start) / period) - i
            if late > 1 and self.duration_s is None:  # a pause or a stall: skip its slots, keep stamps to the clock
                i += late
            stamp = self.stamp0 + i * period
            self.publish(i, stamp)
            self.published += 1
            self.last_stamp = stamp
            i += 1
        self.wall_s = time.monotonic() - start

    def clock(self) -> float:
        """The stream's stamp for this instant (its schedule runs on through pauses)."""
        return self.stamp0 + (time.monotonic() - self._start)

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def stop(self) -> None:
        self._stopped.set()
        self._running.set()
        if self.ident is not None:  # started
            self.join()


def wait_until_up(
    node: Any,
    client: Any,
    publishers: Sequence[Any],
    procs: Sequence[subprocess.Popen[bytes]],
    logs: Path,
    timeout_s: float = 90.0,
) -> None:
    """Spin until the nodes subscribe to every publisher, serve ``query`` and publish ``memory_stats``."""
    import rclpy

    deadline = time.monotonic() + timeout_s
    while not (all(p.get_subscription_count() for p in publishers) and client.wait_for_service(0.2)):
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            raise RuntimeError(f"the nodes did not come up; see {logs}/*.log")
        rclpy.spin_once(node, timeout_sec=0.2)
    if client.wait_for_stats(lambda s: True, 30) is None:
        raise RuntimeError(f"no memory_stats from the ingest node; see {logs}/*.log")


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
