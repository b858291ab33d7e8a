"""``vidmem bench eval``: the evaluator on the sample patrol, with both baselines, as figures.

Builds the ten-minute patrol (signs, speech, revisits) at ``camera_hz`` in a
temporary directory, runs ``vidmem eval`` on it with the ``uniform`` and
``fixed30`` baselines, and prints per system: the real-time factor of
ingestion, the share of frames kept, mean and p95 question latency, and
accuracy by question type.  It prints figures and never asserts timings.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from vidmem_ros.config import load_config
from vidmem_ros.evaluation.command import run_eval
from vidmem_ros.tools.sample_bag import PATROL, questions_path, write_sample_bag


def run_eval_bench(camera_hz: float = 10.0, json_path: Path | None = None, keep: Path | None = None) -> int:
    with tempfile.TemporaryDirectory(prefix="vidmem-bench-eval-") as tmp:
        root = keep or Path(tmp)
        bag = root / "patrol"
        started = time.perf_counter()
        if not bag.exists():
            write_sample_bag(bag, camera_hz=camera_hz, scenario=PATROL)
        print(f"sample patrol at {camera_hz:g} Hz written in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        return run_eval(
            bag,
            questions_path(bag),
            root / "answers.jsonl",
            load_config(),
            baselines=["uniform", "fixed30"],
            json_path=json_path,
        )
