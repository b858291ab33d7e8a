"""Thread-safe counters of what the ingest pipeline received, dropped and kept."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class StatsSnapshot:
    received: int
    kept: int
    dropped: dict[str, int] = field(default_factory=dict)
    rejected_queries: int = 0
    rate_hz: float = 0.0
    refused: dict[str, int] = field(default_factory=dict)  # other inputs (poses), as "<stream>_<reason>"

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())


class IngestStats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._received = 0
        self._kept = 0
        self._dropped: Counter[str] = Counter()
        self._refused: Counter[str] = Counter()
        self._rejected_queries = 0
        self._rate_mark = (time.monotonic(), 0)

    def received(self) -> None:
        with self._lock:
            self._received += 1

    def kept(self) -> None:
        with self._lock:
            self._kept += 1

    def dropped(self, reason: str) -> None:
        with self._lock:
            self._dropped[reason] += 1

    def dropped_input(self, stream: str, reason: str) -> None:
        """A message of another stream than frames (poses) refused at intake."""
        with self._lock:
            self._refused[f"{stream}_{reason}"] += 1

    def rejected_query(self) -> None:
        with self._lock:
            self._rejected_queries += 1

    def snapshot(self) -> StatsSnapshot:
        """Counters so far, with the receive rate since the previous snapshot."""
        with self._lock:
            now = time.monotonic()
            then, count = self._rate_mark
            rate = (self._received - count) / (now - then) if now > then else 0.0
            self._rate_mark = (now, self._received)
            return StatsSnapshot(
                self._received, self._kept, dict(self._dropped), self._rejected_queries, rate, dict(self._refused)
            )
