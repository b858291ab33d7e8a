"""``vidmem bench eval``: the evaluator on the sample patrol and any further sets, as figures.

Builds the ten-minute patrol (signs, speech, revisits) at ``camera_hz`` in a
temporary directory and runs ``vidmem eval`` on it with the ``rules`` (the
same system without the language-model parser), ``uniform`` and ``fixed30``
baselines; then on each further bag and question set given (a development set
such as ``../shared/dev-eval``) with the ``rules`` baseline.  Per system it
prints the real-time factor of ingestion, the share of frames kept, mean and
p95 question latency, and accuracy by question type.  It prints figures and
never asserts timings.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from vidmem_dev.sample_bag import PATROL, questions_path
from vidmem_dev.sample_patrol import write_sample_bag
from vidmem_ros.config import load_config
from vidmem_ros.evaluation.command import run_eval


def run_eval_bench(
    camera_hz: float = 10.0,
    json_path: Path | None = None,
    keep: Path | None = None,
    sets: Sequence[tuple[Path, Path]] = (),
) -> int:
    with tempfile.TemporaryDirectory(prefix="vidmem-bench-eval-") as tmp:
        root = keep or Path(tmp)
        bag = root / "patrol"
        started = time.perf_counter()
        if not bag.exists():
            write_sample_bag(bag, camera_hz=camera_hz, scenario=PATROL)
        print(f"sample patrol at {camera_hz:g} Hz written in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        print("== the sample patrol", flush=True)
        status = run_eval(
            bag,
            questions_path(bag),
            root / "answers.jsonl",
            load_config(),
            baselines=["rules", "uniform", "fixed30"],
            json_path=json_path,
        )
        for index, (extra_bag, questions) in enumerate(sets, 1):
            print(f"== {extra_bag} with {questions}", flush=True)
            extra_json = json_path.with_name(f"{json_path.stem}.set{index}{json_path.suffix}") if json_path else None
            out = root / f"set{index}" / "answers.jsonl"
            out.parent.mkdir(parents=True, exist_ok=True)
            known = _known_fields(questions, out.parent / "questions.jsonl")
            status = max(
                status, run_eval(extra_bag, known, out, load_config(), baselines=["rules"], json_path=extra_json)
            )
        return status


def _known_fields(questions: Path, copy: Path) -> Path:
    """A copy of a question set with only the fields ``vidmem eval`` scores by (another set's own metadata, such
    as categories or its scorer's extra rules, is left out and named), so its answers are scored by this
    project's rules."""
    fields = ("id", "ask_at", "question", "type", "answer", "accept", "tolerance")
    dropped: set[str] = set()
    lines = []
    for line in questions.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            item = None
        if not isinstance(item, dict):
            lines.append(line)  # left for vidmem eval to report
            continue
        dropped |= set(item) - set(fields)
        lines.append(json.dumps({k: item[k] for k in fields if k in item}))
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if dropped:
        print(f"{questions}: scored without its fields {', '.join(sorted(dropped))}", flush=True)
    return copy
