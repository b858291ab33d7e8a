"""Answers kept for questions a long-running process asks again and again, within a bound."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """What ``compute`` gave for each key, at most ``limit`` of them: past that all are dropped and kept anew, as
    what is asked shifts slowly and a month of words read is many.  Safe to share between threads: a race at worst
    computes an answer twice."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: dict[K, V] = {}

    def get(self, key: K, compute: Callable[[], V]) -> V:
        if key in self._kept:
            return self._kept[key]
        if len(self._kept) >= self.limit:
            self._kept.clear()
        found = self._kept[key] = compute()
        return found

    def __len__(self) -> int:
        return len(self._kept)
