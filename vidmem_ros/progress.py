"""A one-line progress bar on stderr for long runs (bag replay, evaluation); pure Python.

The line shows done/total, the percentage, the elapsed wall time, the ETA and the
speed (for ``unit="s"`` of bag time: the real-time factor, bag seconds per wall
second).  It is redrawn at most every ``interval`` seconds, so callers may update
it on every message, and ends with a final line.  It stays silent when the stream
is not a terminal (logs, pipes, CI) unless forced, and always when quiet.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import Protocol, TextIO


class ProgressSink(Protocol):
    """What a long run reports to: ``start`` once the total is known, ``update`` often, ``finish`` at the end."""

    def start(self, total: float | None = None) -> None: ...

    def update(self, done: float) -> None: ...

    def finish(self) -> None: ...


class ProgressBar:
    """``label [####....]  42.0/148.0 s  28%  elapsed 0:10  ETA 0:25  4.1x`` on one line of ``stream``."""

    def __init__(
        self,
        total: float | None = None,
        *,
        label: str = "",
        unit: str = "s",
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        interval: float = 0.25,
        force: bool = False,
        quiet: bool = False,
        width: int = 20,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and (force or _isatty(self.stream))
        self.label, self.unit, self.clock, self.interval, self.width = label, unit, clock, interval, width
        self.total = total
        self.start()

    def start(self, total: float | None = None) -> None:
        """(Re)start the wall clock at zero done; ``total`` (None: unknown, as for an endless loop) if given."""
        if total is not None:
            self.total = total
        self.started = self.clock()
        self.done = 0.0
        self._drawn_at: float | None = None
        self._drawn_len = 0

    def update(self, done: float) -> None:
        """Record ``done`` units so far; redraws only when ``interval`` has passed since the last draw."""
        self.done = done
        if not self.enabled:
            return
        now = self.clock()
        if self._drawn_at is None or now - self._drawn_at >= self.interval:
            self._draw(self.line(now), now)

    def advance(self, amount: float = 1.0) -> None:
        """Count ``amount`` more units done (for item counts, as an evaluation loop has)."""
        self.update(self.done + amount)

    def finish(self) -> None:
        """Draw the final line (always, throttling aside) and end it."""
        if self.enabled:
            now = self.clock()
            self._draw(self.line(now, final=True) + "\n", now)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.finish()

    def speed(self, now: float) -> float | None:
        """Units done per wall second since start; None before any time has passed."""
        elapsed = now - self.started
        return self.done / elapsed if elapsed > 0 else None

    def eta(self, now: float) -> float | None:
        """Wall seconds left at the average speed so far; None while unknown."""
        speed = self.speed(now)
        if self.total is None or not speed:
            return None
        return max(self.total - self.done, 0.0) / speed

    def line(self, now: float, final: bool = False) -> str:
        parts = [self.label] if self.label else []
        if self.total:
            share = min(max(self.done / self.total, 0.0), 1.0)
            filled = round(share * self.width)
            parts.append(f"[{'#' * filled}{'.' * (self.width - filled)}]")
            parts.append(f"{self.done:.1f}/{self.total:.1f} {self.unit}")
            parts.append(f"{share:4.0%}")
        else:
            parts.append(f"{self.done:.1f} {self.unit}")
        parts.append(f"elapsed {_clock_text(now - self.started)}")
        if not final and self.total:
            eta = self.eta(now)
            parts.append(f"ETA {_clock_text(eta) if eta is not None else '--:--'}")
        speed = self.speed(now)
        if speed is not None:
            parts.append(f"{speed:.1f}x" if self.unit == "s" else f"{speed:.1f} {self.unit}/s")
        if final:
            parts.append("done")
        return "  ".join(parts)

    def _draw(self, text: str, now: float) -> None:
        # Carriage return, then pad over what the previous, longer, line left behind.
        body = text.rstrip("\n")
        pad = " " * max(self._drawn_len - len(body), 0)
        self.stream.write(f"\r{body}{pad}{text[len(body) :]}")
        self.stream.flush()
        self._drawn_at, self._drawn_len = now, len(body)


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _clock_text(seconds: float) -> str:
    """``M:SS``, or ``H:MM:SS`` from an hour on."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
