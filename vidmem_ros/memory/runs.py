"""Runs: stretches of the robot's clock, laid end to end on memory's own monotonic time.

A sensor clock can go back: a bag played with ``--loop``, a simulator's time reset, a live clock corrected an
hour back.  Stored as it comes, the second pass would land on the stamps of the first: events interleave, the
occasions of a thing merge, and "last" and "memory begins" read from the wrong pass.  So every record's time
in the store (``stamp``, ``start``, ``end``) is *memory time*: the sensor stamp plus its run's ``offset``.  The
first run has offset 0 (memory time is the sensor clock until it first goes back); a stamp more than
``CLOCK_RESET_S`` behind its run's newest stamp (the reset intake already detects and confirms) starts the next
run, whose offset puts its first stamp ``RUN_GAP_S`` after the end of the run before.  Readers then order,
count and window by memory time alone, and the ``runs`` table turns a memory time back into the robot's clock.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from vidmem_ros.clock import utc_clock
from vidmem_ros.validation import CLOCK_RESET_S

# Memory time between the end of one run and the start of the next: longer than any occasion gap and than
# segmentation's stream gap, so two runs never share an occasion, an event or "the last minute".
RUN_GAP_S = 60.0

RUN_SQL = "id, first_stamp, last_stamp, offset, started_wall, reason"


@dataclass(frozen=True)
class Run:
    id: int
    first_stamp: float  # sensor clock
    last_stamp: float
    offset: float  # memory time = sensor stamp + offset
    started_wall: float  # Unix time at which it was stored
    reason: str

    @property
    def start(self) -> float:
        """Memory time of the run's first stamp."""
        return self.first_stamp + self.offset

    @property
    def end(self) -> float:
        return self.last_stamp + self.offset


@dataclass(frozen=True)
class Placement:
    """Where a sensor stamp lands: its run (``new`` when it starts one) and memory time."""

    run: Run
    time: float
    new: bool = False


class RunClock:
    """The run in progress, held by the one writer (the engine); ``place`` decides, ``commit`` writes."""

    def __init__(self, current: Run | None) -> None:
        self.current = current

    @classmethod
    def load(cls, db: sqlite3.Connection) -> RunClock:
        row = db.execute(f"SELECT {RUN_SQL} FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        return cls(None if row is None else run_from(row))

    def place(self, stamp: float) -> Placement:
        """The run and memory time of a sensor stamp that intake admitted; nothing is written yet."""
        run = self.current
        if run is None:
            return Placement(Run(1, stamp, stamp, 0.0, time.time(), "start"), stamp, new=True)
        if stamp < run.last_stamp - CLOCK_RESET_S:
            back = run.last_stamp - stamp
            why = f"clock went back {back:.1f} s, from {utc_clock(run.last_stamp)} to {utc_clock(stamp)}"
            offset = run.end + RUN_GAP_S - stamp
            return Placement(Run(run.id + 1, stamp, stamp, offset, time.time(), why), stamp + offset, new=True)
        return Placement(replace(run, last_stamp=max(run.last_stamp, stamp)), stamp + run.offset)

    def within(self, stamp: float) -> tuple[int, float, bool]:
        """(run id, memory time, whether it lies more than ``CLOCK_RESET_S`` behind the run) of a stamp from another
        stream than the frames (speech, the pose track): frames alone start and move runs, since another stream's
        clock may differ from the camera's, and a stamp behind the run may belong to one the frames have not
        started yet."""
        run = self.current
        if run is None:
            return 1, stamp, False  # the first frame starts run 1 at offset 0: memory time is the stamp
        return run.id, stamp + run.offset, stamp < run.last_stamp - CLOCK_RESET_S

    def commit(self, db: sqlite3.Connection, placed: Placement) -> None:
        """Write the placement's run inside the caller's transaction; the clock follows it."""
        run = placed.run
        if placed.new:
            db.execute(f"INSERT INTO runs ({RUN_SQL}) VALUES (?, ?, ?, ?, ?, ?)", _values(run))
        elif self.current is None or run.last_stamp > self.current.last_stamp:
            db.execute("UPDATE runs SET last_stamp = ? WHERE id = ?", (run.last_stamp, run.id))
        self.current = run

    def sensor_latest(self) -> float | None:
        """The newest sensor stamp of the run in progress: what the stream's clock is seeded with."""
        return None if self.current is None else self.current.last_stamp


def run_from(row: Sequence[object]) -> Run:
    id_, first, last, offset, wall, reason = row
    return Run(int(str(id_)), _num(first), _num(last), _num(offset), _num(wall), str(reason or ""))


def _num(value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def _values(run: Run) -> tuple[object, ...]:
    return (run.id, run.first_stamp, run.last_stamp, run.offset, run.started_wall, run.reason)


def run_at(runs: Sequence[Run], t: float) -> Run | None:
    """The run a memory time belongs to: the last one started by then (a late record before its run's first
    stamp still belongs to it, since runs are RUN_GAP_S apart)."""
    found = None
    for run in runs:
        if run.start - RUN_GAP_S / 2 <= t or found is None:
            found = run
    return found


def sensor_stamp(runs: Sequence[Run], t: float) -> float:
    """The robot's clock at a memory time."""
    run = run_at(runs, t)
    return t if run is None else t - run.offset


def runs_in(db: sqlite3.Connection) -> list[Run]:
    """Every run, oldest first, read inside the caller's transaction (a summary written there reads the runs
    its times belong to)."""
    return [run_from(row) for row in db.execute(f"SELECT {RUN_SQL} FROM runs ORDER BY id")]


def memory_time(runs: Sequence[Run], stamp: float) -> float:
    """A moment on the robot's clock (a question's ``as_of``) in memory time: in the latest run whose stamps
    reached it (a looped bag has been through it once per loop, and the latest is "now"; a clock corrected an
    hour back reached it only before the correction); past every run's stamps, the latest run begun by then;
    before every run, the first run's reading."""
    began = [run for run in runs if run.first_stamp <= stamp]
    reached = [run for run in began if stamp <= run.last_stamp + CLOCK_RESET_S]
    chosen = reached or began or list(runs[:1])
    return stamp + chosen[-1].offset if chosen else stamp


def memory_as_of(runs: Sequence[Run], stamp: float | None) -> float | None:
    """A request's ``as_of`` (None: now) in memory time; see ``memory_time``."""
    return None if stamp is None else memory_time(runs, stamp)


def clock_spans(runs: Sequence[Run], start: float | None, end: float | None) -> list[tuple[float, float]]:
    """A window on the robot's clock (None: unbounded on that side) as memory-time spans, one per run it
    overlaps: every memory time whose clock reading (``sensor_stamp``) falls in the window, in whichever run.
    A window is many moments, not one: a looped bag went through it once per loop and a clock corrected an
    hour back went through it twice, so searching, summarising and forgetting it reach every pass (unlike
    ``as_of``, one moment, read in the latest run that reached it).  Without runs, the window as it is."""
    lo = -math.inf if start is None else start
    hi = math.inf if end is None else end
    if not runs:
        return [(lo, hi)]
    spans = []
    for i, run in enumerate(runs):
        first = -math.inf if i == 0 else run.start - RUN_GAP_S / 2  # run_at's bounds
        last = math.inf if i == len(runs) - 1 else runs[i + 1].start - RUN_GAP_S / 2
        span = (max(lo + run.offset, first), min(hi + run.offset, last))
        if span[0] <= span[1]:
            spans.append(span)
    return spans


def describe_time(runs: Sequence[Run], t: float) -> str:
    """A memory time as the robot's clock read it; with more than one run, which run it fell in and why that
    run began."""
    run = run_at(runs, t)
    clock = utc_clock(sensor_stamp(runs, t))
    if run is None or len(runs) < 2:
        return clock
    if run.id == runs[0].id:
        return f"{clock} in run {run.id} (before the clock first went back)"
    return f"{clock} in run {run.id} (after the {run.reason})"


def describe_span(runs: Sequence[Run], start: float, end: float) -> str:
    """A memory-time span as the robot's clock read it ("… to … UTC"); with more than one run, the run it fell
    in, or the runs of either end where it spans several."""
    first, last = run_at(runs, start), run_at(runs, end)
    clocks = utc_clock(sensor_stamp(runs, start)), utc_clock(sensor_stamp(runs, end))
    if first is None or last is None or len(runs) < 2:
        return f"{clocks[0]} to {clocks[1]}"
    if first.id == last.id:
        return f"{clocks[0]} to {clocks[1]} in run {first.id}"
    return f"{clocks[0]} in run {first.id} to {clocks[1]} in run {last.id}"


def clock_note(runs: Sequence[Run], stamp: float | None, evidence: Sequence[float]) -> dict[str, object]:
    """For a caller that reads stamps on the robot's clock: where memory holds several runs, which run the
    answer's stamp and each evidence stamp fell in (a stamp alone no longer says which pass it was); else {}."""
    if len(runs) < 2:
        return {}
    note: dict[str, object] = {"runs": len(runs), "evidence_runs": [_run_id(runs, t) for t in evidence]}
    if stamp is not None:
        note["answer_run"] = _run_id(runs, stamp)
    return note


def _run_id(runs: Sequence[Run], t: float) -> int:
    run = run_at(runs, t)
    return 0 if run is None else run.id


def runs_of(runs: Sequence[Run], times: Sequence[float]) -> list[int]:
    """The ids of the runs some memory times fall in, in order."""
    return sorted({run.id for t in times if (run := run_at(runs, t)) is not None})


def runs_named(runs: Sequence[Run], times: Sequence[float]) -> str:
    """ ", in runs 1, 2 and 3" where what was found spans more than one run (it then matters which), else ""."""
    ids = [str(i) for i in runs_of(runs, times)]
    if len(ids) < 2:
        return ""
    return f", in runs {', '.join(ids[:-1])} and {ids[-1]}"
