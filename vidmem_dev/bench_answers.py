"""``vidmem bench answers``: how long answering a question takes, end to end, with and without the language model.

A memory is built by replaying the ten-minute sample patrol through the real ingest pipeline (or a store kept by
``vidmem eval`` is given with ``--store`` and its questions with ``--questions``).  Then every question is answered
by the reasoner the query node builds, as of its moment in the recording, twice: with the rules alone
(``query.parser: rules``) and with the default parser (the rules first; the packaged model reads a question only
where the rules' answer is weak).  Before timing, each reasoner embeds the meaning of memory's records and answers
the first few questions, as a running query node already has (it reads records' meaning ahead every
``query.read_ahead_s``).  Prints p50 / p95 / max latency and how many questions the model read; it never asserts
timings.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from vidmem_dev.demo import DEMO_CAMERA_HZ
from vidmem_dev.sample_bag import PATROL
from vidmem_dev.sample_patrol import write_sample_bag
from vidmem_dev.sample_questions import patrol_questions
from vidmem_ros.agent.reasoner import build_reasoner
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.evaluation.questions import load_questions
from vidmem_ros.ingest.bag import BagIngest
from vidmem_ros.ingest.bag_reader import BagStream
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.store import SqliteStore

# Questions answered, untimed, before timing: what a running query node has already done once.  The last one
# reads no sentence pattern, so the sentence embedder is loaded and memory's records are read for meaning.
WARM_UP_QUESTIONS = 3
WARM_UP = "Out of curiosity, what was the gist of the last notice you came across?"


def run_answers_bench(
    store_path: Path | None = None,
    questions_path: Path | None = None,
    bag_start: float | None = None,
    parsers: tuple[str, ...] = ("rules", "default"),
    json_path: Path | None = None,
    limit: int = 0,
) -> int:
    config = load_config()
    with tempfile.TemporaryDirectory(prefix="vidmem-bench-answers-") as tmp:
        if store_path is None:
            store_path, asked, start = _sample_memory(config, Path(tmp))
        else:
            if questions_path is None:
                print("error: --store needs --questions", file=sys.stderr)
                return 2
            asked = [(q.question, q.ask_at) for q in load_questions(questions_path).questions]
            start = bag_start if bag_start is not None else _first_stamp(store_path)
        asked = asked[:limit] if limit else asked
        figures: dict[str, Any] = {"questions": len(asked), "store": str(store_path)}
        for parser in parsers:
            figures[parser] = _timed(_with_parser(config, parser), store_path, asked, start)
    _print(figures)
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def _sample_memory(config: VidmemConfig, tmp: Path) -> tuple[Path, list[tuple[str, float]], float]:
    """The sample patrol replayed into a fresh store, and its questions."""
    print("building the ten-minute sample patrol and replaying it into memory (a few minutes) ...", flush=True)
    bag = write_sample_bag(tmp / "sample_patrol", camera_hz=DEMO_CAMERA_HZ, scenario=PATROL)
    store_path = tmp / "memory.db"
    cfg = config.model_copy(update={"store": config.store.model_copy(update={"path": str(store_path)})})
    store = SqliteStore(store_path)
    try:
        with BagStream(bag) as stream:
            start = stream.start_s
            BagIngest(cfg, stream, IngestPipeline.from_config(cfg, store)).finish()
    finally:
        store.close()
    asked = [(str(q["question"]), float(q["ask_at"])) for q in patrol_questions(PATROL)]
    return store_path, asked, start


def _first_stamp(store_path: Path) -> float:
    store = SqliteStore(store_path, readonly=True)
    try:
        span = store.time_span()
    finally:
        store.close()
    return span[0] if span else 0.0


def _with_parser(config: VidmemConfig, parser: str) -> VidmemConfig:
    if parser == "default":
        return config
    return config.model_copy(update={"query": config.query.model_copy(update={"parser": parser})})


def _timed(config: VidmemConfig, store_path: Path, asked: list[tuple[str, float]], start: float) -> dict[str, Any]:
    store = SqliteStore(store_path, readonly=True)
    try:
        reasoner = build_reasoner(config, store)
        if (warming := getattr(reasoner.parser, "warming", None)) is not None:
            warming.join()  # the model's prompt, read at start-up as the query node does, before any question
        began = time.perf_counter()
        read_ahead = reasoner.read_ahead() if config.query.read_ahead_s > 0 else 0  # as the query node does
        read_ahead_s = time.perf_counter() - began
        for question, ask_at in [*asked[:WARM_UP_QUESTIONS], (WARM_UP, asked[-1][1] if asked else 0.0)]:
            reasoner.answer(question, as_of=start + ask_at)  # loads the models
        warm_up_s = time.perf_counter() - began
        latencies: list[float] = []
        model_read = 0
        for question, ask_at in asked:
            began = time.perf_counter()
            answer = reasoner.answer(question, as_of=start + ask_at)
            latencies.append(time.perf_counter() - began)
            model_read += bool(answer.trace.get("model_read")) or answer.trace.get("parser", "rules") != "rules"
    finally:
        store.close()
    ranked = sorted(latencies)
    return {
        "parser": config.query.parser,
        "warm_up_s": round(warm_up_s, 3),
        "read_ahead": read_ahead,
        "read_ahead_s": round(read_ahead_s, 3),
        "p50_s": round(statistics.median(ranked), 4),
        "p95_s": round(ranked[min(len(ranked) - 1, int(0.95 * len(ranked)))], 4),
        "max_s": round(ranked[-1], 4),
        "mean_s": round(statistics.fmean(ranked), 4),
        "model_read": model_read,
    }


def _print(figures: dict[str, Any]) -> None:
    print(f"{figures['questions']} questions over {figures['store']}")
    for name, f in figures.items():
        if isinstance(f, dict):
            print(
                f"  {name:8s} (query.parser {f['parser']}): p50 {f['p50_s']:.3f} s, p95 {f['p95_s']:.3f} s, "
                f"max {f['max_s']:.3f} s, mean {f['mean_s']:.3f} s; the model read {f['model_read']}; "
                f"warm-up {f['warm_up_s']:.1f} s, of which {f['read_ahead_s']:.1f} s embedding {f['read_ahead']} "
                "records' meaning"
            )
