"""Clock faults for ``vidmem bench faults``: a bag looped three times and a live clock set an hour back.

Frames go through the real intake (stamp checks, gates) into the real engine and store, and the real reasoner
answers; only perception is a stand-in (a "person" wherever a frame carries a red marker), since what is measured
is what memory makes of time, not what the detector sees.  Each case reports what was kept (frames refused at
the jump, runs, moments) and what was answered.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import load_config
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.types import Detection

T0 = 1_780_000_000.0
LOOP_S = 60  # one play of the looped bag; the person is in view for its seconds 20-25
HOUR = 3600.0


class MarkerDetector:
    """A person wherever the frame's top-left corner is red."""

    name = "marker"
    vocabulary = ("person",)

    def detect(self, rgb: np.ndarray) -> list[Detection]:
        r, g, b = (int(v) for v in rgb[:8, :8].reshape(-1, 3).mean(axis=0))
        return [Detection("person", 0.9, (0.0, 0.0, 8.0, 8.0))] if r > 200 and g < 50 and b < 50 else []


def clock_faults(workdir: Path | None = None) -> dict[str, Any]:
    """Both cases, each in a fresh store under ``workdir`` (a temporary directory by default)."""
    root = workdir or Path(tempfile.mkdtemp(prefix="vidmem-bench-clock-"))
    return {"loop": _looped(root / "loop.db"), "hour_back": _hour_back(root / "hour_back.db")}


def _looped(path: Path) -> dict[str, Any]:
    pipeline, store = _pipeline(path)
    for _ in range(3):
        _play(pipeline, T0, LOOP_S, person=range(20, 26))
    pipeline.finish()
    asked = ["How many times did you see a person?", "When did you last see a person?"]
    return _report(pipeline, store, asked)


def _hour_back(path: Path) -> dict[str, Any]:
    pipeline, store = _pipeline(path)
    _play(pipeline, T0, 120, person=range(40, 50))
    _play(pipeline, T0 + 120 - HOUR, 120, person=range(80, 120))  # the clock set an hour back
    pipeline.finish()
    asked = [
        "When did you last see a person?",
        "What did you see in the last minute?",
        "When did you first see a person?",
    ]
    return _report(pipeline, store, asked)


def _pipeline(path: Path) -> tuple[IngestPipeline, SqliteStore]:
    config = load_config(overrides={"store.path": str(path), "query.parser": "rules", "ocr.backend": "none"})
    store = SqliteStore(path)
    return IngestPipeline(config, store, MarkerDetector()), store


def _play(pipeline: IngestPipeline, start: float, seconds: int, person: range) -> None:
    """A frame a second from ``start``: random texture (so no gate takes it for a still or a repeat), marked
    red while the person is in view."""
    rng = np.random.default_rng(int(start) % 1000)
    for i in range(seconds):
        rgb = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
        rgb[:8, :8] = (255, 0, 0) if i in person else (0, 0, 255)
        pipeline.ingest(FrameInput(start + i, "/cam", DecodedImage(rgb)))


def _report(pipeline: IngestPipeline, store: SqliteStore, questions: list[str]) -> dict[str, Any]:
    stats = pipeline.stats.snapshot()
    reasoner = Reasoner(store, pipeline.config.query, MarkerDetector.vocabulary, detector_min_score=0.5)
    span = store.time_span()
    runs = store.runs()
    out = {
        "frames": stats.received,
        "kept": stats.kept,
        "refused": {k: v for k, v in stats.dropped.items() if k.startswith("stamp")},
        "runs": [{"id": r.id, "frames": _frames_in(store, r.id), "why": r.reason} for r in runs],
        "memory_begins": None if span is None else span[0] - T0,
        "answers": {q: reasoner.answer(q).text for q in questions},
    }
    store.close()
    return out


def _frames_in(store: SqliteStore, run_id: int) -> int:
    with store.read() as db:
        return int(db.execute("SELECT COUNT(*) FROM moments WHERE run_id = ?", (run_id,)).fetchone()[0])


def clock_lines(figures: dict[str, Any]) -> list[str]:
    """What each case kept and answered, for the bench's printout."""
    lines = []
    for case, title in (("loop", "a bag looped 3 times"), ("hour_back", "a live clock set 1 h back")):
        f = figures[case]
        refused = ", ".join(f"{n} {reason}" for reason, n in f["refused"].items()) or "none"
        runs = "; ".join(f"run {r['id']}: {r['frames']} moments ({r['why']})" for r in f["runs"])
        lines.append(f"clock, {title}: {f['kept']}/{f['frames']} frames kept, refused at the jumps: {refused}")
        lines.append(f"  {runs}; memory begins at T0{f['memory_begins']:+.0f} s")
        lines += [f"  Q: {q}\n  A: {a}" for q, a in f["answers"].items()]
    return lines
