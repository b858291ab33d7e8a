"""Store faults for ``vidmem bench faults``: a damaged store, a truncated store and a full disk.

A store is filled through the real engine (``damaged_stores.fill``: 400 frames at 1 Hz, cups, chairs, dogs and
laptops, a room sign every 20 frames, speech, and a planted "FIRE EXIT" sign at 47-48 s), then damaged the way
the field did it: 4 KB of random bytes over a page of frame records mid-file, or the file cut to half.  Each
damaged copy is opened the way the ingest node opens its store (``open_writer_or_start_fresh``: the check at
open, the damaged file set aside, a fresh store started), then ``vidmem doctor --repair`` runs in-process on
what was set aside and the real reasoner answers the planted questions from the file it recovered.

The full disk is the tests' (``test_store_faults``): SQLite's page cap on the writer connection stands in for a
small file system (no mount without root), so SQLite answers "database or disk is full" as it does on
``ENOSPC``.  Frames (random texture, a "person" wherever a red marker is, as in ``bench_clock``) go through the
real intake and engine while room runs out, then the cap is lifted as if space were freed.

Each case reports what was kept and what was answered; nothing is asserted here.
"""

from __future__ import annotations

import io
import logging
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_dev.bench_clock import MarkerDetector
from vidmem_dev.damaged_stores import cut_to_half, digest, fill, scribble_mid_file
from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import load_config
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.health import assess
from vidmem_ros.ingest.stats import StatsSnapshot
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.doctor import run_doctor
from vidmem_ros.memory.integrity import check_connection
from vidmem_ros.memory.store import SqliteStore, open_writer_or_start_fresh

FRAMES = 400
SIGN, SIGN_AT = "FIRE EXIT", (47, 48)  # read at these seconds of the filled store
# The planted facts, and what a right answer says (the filled store's memory begins at its first frame).
PLANTED = {
    "Where did you read fire exit?": ('"fire exit"', "48 s after my memory begins"),
    "When did you first see a dog?": ("dog", "40 s after my memory begins"),  # dogs from frame 40
}
COUNTED = ("moments", "events", "texts", "transcripts")
VOCABULARY = ("cup", "chair", "dog", "laptop")

T0 = 1_780_000_000.0  # the full-disk case's clock
ROOM_PAGES = 48  # what the small file system holds beyond the store's first minute
REFUSED = "could not store frame"  # the ingest pipeline's line for a frame the store refused


def store_faults(workdir: Path | None = None) -> dict[str, Any]:
    """All three cases under ``workdir`` (a temporary directory by default)."""
    root = workdir or Path(tempfile.mkdtemp(prefix="vidmem-bench-store-"))
    root.mkdir(parents=True, exist_ok=True)
    healthy = root / "healthy.db"
    fill(healthy, FRAMES, signs=dict.fromkeys(SIGN_AT, SIGN))
    before = {"counts": _counts(healthy), "answers": _answers(healthy)}
    return {
        "filled": before,
        "damaged": _damaged(healthy, root / "damaged", scribble_mid_file),
        "truncated": _damaged(healthy, root / "truncated", cut_to_half),
        "full_disk": _full_disk(root / "full_disk" / "memory.db"),
    }


# -- a damaged or truncated store ---------------------------------------------------------------------------


def _damaged(healthy: Path, folder: Path, damage: Callable[[Path], None]) -> dict[str, Any]:
    folder.mkdir(parents=True)
    path = folder / "memory.db"
    path.write_bytes(healthy.read_bytes())
    damage(path)
    damaged = digest(path)
    config = load_config()
    with _logged() as lines:
        started = time.monotonic()
        fresh = open_writer_or_start_fresh(path, config.store.check_s)  # as the ingest node opens its store
        open_s = time.monotonic() - started
    fresh_moments = fresh.moment_count()
    fresh.close()
    aside = [p for p in folder.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    out: dict[str, Any] = {
        "bytes": path.stat().st_size if not aside else aside[0].stat().st_size,
        "open_s": open_s,
        "logged": [line for level, line in lines if level >= logging.ERROR],
        "set_aside": len(aside) == 1,
        "fresh_moments": fresh_moments,
    }
    if len(aside) != 1:
        return out
    kept = aside[0]
    out["logged_names_it"] = any(str(kept) in line and "vidmem doctor" in line for line in out["logged"])
    out["check"] = _check(kept, config.store.check_s)
    out["untouched_after_open"] = digest(kept) == damaged
    report = io.StringIO()
    out["doctor_exit"] = run_doctor(kept, True, config, report)
    out["doctor"] = report.getvalue().splitlines()
    out["untouched_after_repair"] = digest(kept) == damaged
    found = re.search(r"integrity of (.+): (\S+)$", report.getvalue(), re.MULTILINE)
    if found is None:
        return out
    recovered = Path(found[1])
    out["recovered"] = {"integrity": found[2], "counts": _counts(recovered), "answers": _answers(recovered)}
    return out


def _check(path: Path, budget_s: float) -> dict[str, Any]:
    """The check at open, by itself, read-only: what it found and how long it took."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    started = time.monotonic()
    try:
        found = check_connection(db, path, budget_s)
    finally:
        db.close()
    return {"s": time.monotonic() - started, "problems": found.problems, "checked": len(found.checked)}


def _counts(path: Path) -> dict[str, int]:
    store = SqliteStore(path, readonly=True)
    try:
        with store.read() as db:
            return {table: int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]) for table in COUNTED}
    finally:
        store.close()


def _answers(path: Path) -> dict[str, dict[str, Any]]:
    store = SqliteStore(path, readonly=True)
    try:
        reasoner = Reasoner(
            store, load_config(overrides={"query.parser": "rules"}).query, VOCABULARY, detector_min_score=0.5
        )
        answers = {q: reasoner.answer(q).text for q in PLANTED}
    finally:
        store.close()
    return {q: {"text": a, "right": all(part in a for part in PLANTED[q])} for q, a in answers.items()}


# -- a full disk --------------------------------------------------------------------------------------------


def _frames_between(before: StatsSnapshot, after: StatsSnapshot) -> dict[str, int]:
    """Frames received, kept and refused by the store between two snapshots of the ingest stats."""
    return {
        "frames": after.received - before.received,
        "kept": after.kept - before.kept,
        "refused": after.dropped.get("store_error", 0) - before.dropped.get("store_error", 0),
    }


def _full_disk(path: Path) -> dict[str, Any]:
    config = load_config(overrides={"store.path": str(path), "query.parser": "rules", "ocr.backend": "none"})
    store = SqliteStore(path)
    pipeline = IngestPipeline(config, store, MarkerDetector())
    reasoner = Reasoner(store, config.query, MarkerDetector.vocabulary, detector_min_score=0.5)
    asked = ("When did you last see a person?", "How many times did you see a person?")
    with store.write() as db:
        uncapped = int(db.execute("PRAGMA max_page_count").fetchone()[0])
    with _logged() as lines:
        _play(pipeline, T0, 60, person=range(20, 26))
        roomy = pipeline.stats.snapshot()
        with store.write() as db:  # the file system has room for ROOM_PAGES more pages
            pages = int(db.execute("PRAGMA page_count").fetchone()[0])
            db.execute(f"PRAGMA max_page_count = {pages + ROOM_PAGES}")
        started = time.monotonic()
        _play(pipeline, T0 + 60, 60, person=range(40, 46))  # the person again, once the disk is full
        full_s = time.monotonic() - started
        full = pipeline.stats.snapshot()
        health = assess(roomy, full, 0, 0, store_problem=pipeline.last_store_error)
        while_full = {q: reasoner.answer(q).text for q in asked}
        named = sum(REFUSED in line for _, line in lines)
        with store.write() as db:  # space freed
            db.execute(f"PRAGMA max_page_count = {uncapped}")
        _play(pipeline, T0 + 120, 60, person=range(30, 36))
        pipeline.finish()
    freed = pipeline.stats.snapshot()
    out = {
        "kept_before": roomy.kept,
        "room_pages": ROOM_PAGES,
        "while_full": {
            **_frames_between(roomy, full),
            "s": full_s,
            "named": named,
            "diagnostics": health.message,
            "answers": while_full,
        },
        "after_freeing": {
            **_frames_between(full, freed),
            "answers": {q: reasoner.answer(q).text for q in asked},
        },
        "logged": [line for level, line in lines if level >= logging.WARNING],
        "integrity_ok": store.integrity_ok(),
    }
    store.close()
    return out


def _play(pipeline: IngestPipeline, start: float, seconds: int, person: range) -> None:
    """A frame a second from ``start``, random texture (no gate takes it for a still or a repeat), its corner red
    while the person is in view."""
    rng = np.random.default_rng(int(start) % 1000)
    for i in range(seconds):
        rgb = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
        rgb[:8, :8] = (255, 0, 0) if i in person else (0, 0, 255)
        pipeline.ingest(FrameInput(start + i, "/cam", DecodedImage(rgb)))


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.levelno, record.getMessage()))


@contextmanager
def _logged() -> Iterator[list[tuple[int, str]]]:
    """What ``vidmem_ros`` logs meanwhile, as (level, line)."""
    logger, handler = logging.getLogger("vidmem_ros"), _Lines()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


# -- the printout -------------------------------------------------------------------------------------------


def store_lines(figures: dict[str, Any]) -> list[str]:
    """What each case kept and answered, for the bench's printout."""
    before = figures["filled"]
    lines = []
    for case, title in (("damaged", "4 KB of random bytes mid-file"), ("truncated", "the file cut to half")):
        lines += _damaged_lines(figures[case], before, f"store, {title}")
    return [*lines, *_full_disk_lines(figures["full_disk"])]


def _damaged_lines(f: dict[str, Any], before: dict[str, Any], title: str) -> list[str]:
    lines = [
        f"{title} ({f['bytes'] / 1e6:.1f} MB): opened as the ingest node does in {f['open_s']:.2f} s; set aside: "
        f"{f['set_aside']}, a fresh store started ({f['fresh_moments']} moments)"
    ]
    if "check" not in f:
        return [*lines, *(f"  log: {line}" for line in f["logged"])]
    c = f["check"]
    problems = "; ".join(c["problems"][:2]) or "none"
    lines.append(f"  the check alone: {1000 * c['s']:.1f} ms, {c['checked']} table(s) checked, found: {problems}")
    lines.append(
        f"  the node's log: {len(f['logged'])} error line(s), naming the file set aside and the repair: "
        f"{f['logged_names_it']}"
    )
    lines.append(
        f"  the damaged file's bytes unchanged after the open: {f['untouched_after_open']}, after doctor --repair: "
        f"{f['untouched_after_repair']} (doctor exit {f['doctor_exit']})"
    )
    r = f.get("recovered")
    if r is None:
        return [*lines, *(f"  doctor: {line}" for line in f["doctor"])]
    counts = ", ".join(f"{t} {r['counts'][t]}/{before['counts'][t]}" for t in COUNTED)
    lines.append(f"  recovered (integrity {r['integrity']}), of the store before: {counts}")
    for q, a in r["answers"].items():
        lines += [f"  Q: {q}", f"  A: {a['text']}  [{'right' if a['right'] else 'WRONG'}]"]
    return lines


def _full_disk_lines(f: dict[str, Any]) -> list[str]:
    full, freed = f["while_full"], f["after_freeing"]
    lines = [
        f"store, a full disk: {f['kept_before']} frames kept in the first minute; then room for "
        f"{f['room_pages']} pages: {full['kept']} of the next {full['frames']} frames kept, {full['refused']} "
        f"refused (store_error) in {full['s']:.1f} s",
        f"  the full disk named in {full['named']} log line(s); diagnostics: {full['diagnostics']}",
    ]
    lines += [f"  while full, Q: {q}\n  A: {a}" for q, a in full["answers"].items()]
    lines.append(
        f"  space freed: {freed['kept']} of the next {freed['frames']} frames kept, {freed['refused']} refused; "
        f"integrity ok: {f['integrity_ok']}"
    )
    lines += [f"  after, Q: {q}\n  A: {a}" for q, a in freed["answers"].items()]
    return lines
