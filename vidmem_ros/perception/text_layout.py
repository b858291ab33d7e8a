"""Where lines read in one frame stand to each other: the blocks of lines one thing bears (a sign's heading over its
body), and the rows of a table.  Layout only, from the lines' boxes, so memory and the reasoner share one reading.

A reader returns lines; a book's title over two lines is one thing, and the book beside it another.  Lines stand
in one block when one is above the other, they overlap across, and they are about as tall (or, one column of one
width, a few lines apart); lines side by side or far apart are separate things.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar


class Boxed(Protocol):
    """A line read, with its box (x0, y0, x1, y1) in the frame's pixels."""

    @property
    def text(self) -> str: ...

    @property
    def box(self) -> tuple[float, float, float, float]: ...


L = TypeVar("L", bound=Boxed)

MAX_GAP = 1.0  # lines further apart than this many line heights are separate blocks
MAX_HEIGHT_RATIO = 2.5  # a line this much taller than its neighbour is another thing's
MIN_OVERLAP = 0.3  # share of the narrower line's width the two must overlap across
ALIGNED = 0.8  # lines overlapping across by this share of the wider one are one column
ALIGNED_GAP = 4.0  # and may be this many line heights apart
ROW_HEIGHT_RATIO = 1.5  # parts of one row are about as tall
ROW_LEVEL = 0.6  # they overlap this share of the shorter one's height
ROW_GAP = 6.0  # and are this many line heights apart across at most (a table's columns)


def text_blocks(lines: Sequence[L]) -> list[list[L]]:
    """The lines grouped into blocks, in reading order of their first lines."""
    blocks = [sorted(g, key=lambda line: line.box[1]) for g in grouped(lines, stacked)]
    return sorted(blocks, key=lambda b: (b[0].box[1], b[0].box[0]))


def rows(lines: Sequence[L]) -> list[str]:
    """The lines' texts with the parts of one row of a table or list joined, left to right ("11:05 ELMSTEAD" and
    "PLATFORM 4" beside it): a reader splits a row where its columns leave a gap, and may give the parts in
    either order.  A row stands where its first part was read; lines without a box stay as they are."""
    return [" ".join(part.text for part in sorted(row, key=lambda line: line.box[0])) for row in grouped(lines, beside)]


def grouped(lines: Sequence[L], together: Callable[[tuple[float, ...], tuple[float, ...]], bool]) -> list[list[L]]:
    """The lines in groups of those ``together`` joins, directly or through others, each group in the order its
    lines were read and the groups in the order of their first lines."""
    parent = list(range(len(lines)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(lines):
        for j in range(i + 1, len(lines)):
            if together(a.box, lines[j].box):
                parent[root(j)] = root(i)
    groups: dict[int, list[L]] = {}
    for i, line in enumerate(lines):
        groups.setdefault(root(i), []).append(line)
    return list(groups.values())


def headings(lines: Sequence[L]) -> list[str]:
    """The top line of each block: what a sign, a board or a label is called ("FIRST AID" over the lines under it);
    a line alone heads its own."""
    return [block[0].text for block in text_blocks(lines)]


def stacked(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    ha, hb = a[3] - a[1], b[3] - b[1]
    wa, wb = a[2] - a[0], b[2] - b[0]
    if min(ha, hb, wa, wb) <= 0 or max(ha, hb) > MAX_HEIGHT_RATIO * min(ha, hb):
        return False
    across = min(a[2], b[2]) - max(a[0], b[0])
    gap = max(a[1], b[1]) - min(a[3], b[3])  # negative where they overlap vertically
    if across >= ALIGNED * max(wa, wb):  # one column of one width: a sign's heading over its body, a symbol between
        return gap <= ALIGNED_GAP * min(ha, hb)
    return across >= MIN_OVERLAP * min(wa, wb) and gap <= MAX_GAP * min(ha, hb)


def beside(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Two parts of one row: about as tall, level with each other, and apart across by a gap of a few lines'
    heights at most."""
    ha, hb = a[3] - a[1], b[3] - b[1]
    if min(ha, hb, a[2] - a[0], b[2] - b[0]) <= 0 or max(ha, hb) > ROW_HEIGHT_RATIO * min(ha, hb):
        return False
    level = min(a[3], b[3]) - max(a[1], b[1])
    gap = max(a[0], b[0]) - min(a[2], b[2])
    return level >= ROW_LEVEL * min(ha, hb) and 0 <= gap <= ROW_GAP * min(ha, hb)
