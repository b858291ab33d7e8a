"""Short-term memory (EventMemAgent): at most K items, grouped into events.

While the current event has been offered at most K items, every item is admitted and whole old
events are evicted first-in first-out to stay within K.  Beyond that the event is summarised by
reservoir sampling (Algorithm R), so one long event holds a uniform sample of itself instead of
either freezing on its first K items or crowding out everything else.
"""

from __future__ import annotations

import bisect
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from vidmem_ros.config import ShortTermConfig

T = TypeVar("T")


@dataclass
class ShortTermEvent(Generic[T]):
    seq: int  # 0, 1, 2, ... in arrival order
    items: list[T] = field(default_factory=list)  # kept items, in stamp order
    stamps: list[float] = field(default_factory=list)  # parallel to items
    seen: int = 0  # items offered to this event so far (n)

    def copy(self) -> ShortTermEvent[T]:
        return ShortTermEvent(self.seq, list(self.items), list(self.stamps), self.seen)

    def _insert(self, stamp: float, item: T) -> None:
        # bisect_right: an item with an equal stamp goes after the ones already held.
        at = bisect.bisect_right(self.stamps, stamp)
        self.stamps.insert(at, stamp)
        self.items.insert(at, item)


class ShortTermMemory(Generic[T]):
    """Thread-safe: the worker adds while other threads read what is in view."""

    def __init__(self, capacity: int = 32, rng: random.Random | None = None) -> None:
        if capacity < 1:
            raise ValueError(f"short-term capacity must be at least 1, got {capacity}")
        self._capacity = capacity
        self._rng = rng if rng is not None else random.Random()
        self._events: list[ShortTermEvent[T]] = []  # oldest first; the last one is current
        self._current: ShortTermEvent[T] | None = None  # None until the first add and after a flush
        self._held = 0
        self._next_seq = 0
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: ShortTermConfig) -> ShortTermMemory[T]:
        """Seed 0 means 'draw one': an unseeded generator, seeded from the OS."""
        rng = random.Random(config.seed) if config.seed else random.Random()
        return cls(config.capacity, rng)

    @property
    def capacity(self) -> int:
        return self._capacity

    def add(self, stamp: float, item: T, new_event: bool) -> list[ShortTermEvent[T]]:
        """Offer one item; returns the whole events this evicted, oldest first."""
        with self._lock:
            current = self._current
            if new_event or current is None:
                current = ShortTermEvent(self._next_seq)
                self._next_seq += 1
                self._events.append(current)
                self._current = current
            current.seen += 1
            n = current.seen
            if n <= self._capacity:
                current._insert(stamp, item)
                self._held += 1
                return self._evict_over_capacity()
            # Algorithm R: the n-th item is kept with probability K/n and replaces a uniformly
            # chosen held item.  Past K offers, FIFO eviction has already left only the current
            # event, holding exactly K items, so slot j < K indexes the current event.
            j = self._rng.randrange(n)
            if j < len(current.items):
                del current.items[j]
                del current.stamps[j]
                current._insert(stamp, item)
            return []

    def _evict_over_capacity(self) -> list[ShortTermEvent[T]]:
        evicted: list[ShortTermEvent[T]] = []
        # The current event is last and holds at most K items, so it is never reached here.
        while self._held > self._capacity and self._events[0] is not self._current:
            oldest = self._events.pop(0)
            self._held -= len(oldest.items)
            evicted.append(oldest)
        return evicted

    def events(self) -> list[ShortTermEvent[T]]:
        """Snapshots of the events held, oldest first."""
        with self._lock:
            return [event.copy() for event in self._events]

    def items(self) -> list[T]:
        """Everything held, oldest first: what is in view now."""
        with self._lock:
            return [item for event in self._events for item in event.items]

    def __len__(self) -> int:
        with self._lock:
            return self._held

    def discard(self, drop: Callable[[T], bool]) -> int:
        """Remove held items for which ``drop`` is true (a forget); events keep their place. Returns how many."""
        with self._lock:
            removed = 0
            for event in self._events:
                keep = [i for i, item in enumerate(event.items) if not drop(item)]
                removed += len(event.items) - len(keep)
                event.items = [event.items[i] for i in keep]
                event.stamps = [event.stamps[i] for i in keep]
            self._events = [e for e in self._events if e.items or e is self._current]
            self._held -= removed
            return removed

    def flush(self) -> list[ShortTermEvent[T]]:
        """Evict everything, oldest first; the next add opens a new event."""
        with self._lock:
            evicted, self._events = self._events, []
            self._current = None
            self._held = 0
            return evicted
