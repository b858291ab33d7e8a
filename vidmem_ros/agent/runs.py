"""Splitting time-ordered records into runs: the occasions of a thing seen, read or heard."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


# Sentences heard with no longer pause than this between them are one message (a recogniser splits a message into
# sentences, and a sentence at a comma).
MESSAGE_GAP_S = 2.0


def group_runs(
    items: Sequence[T], stamp: Callable[[T], float], gap_s: float, end: Callable[[T], float] | None = None
) -> list[list[T]]:
    """Split time-ordered items into runs wherever one starts more than ``gap_s`` after the previous one's stamp
    (or its ``end``, for items that last)."""
    runs: list[list[T]] = []
    until = end or stamp
    for item in sorted(items, key=stamp):
        if runs and stamp(item) - until(runs[-1][-1]) <= gap_s:
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs
