"""``vidmem bench parser``: how long reading a question into a plan takes, and what the model costs in memory.

Reads the sample patrol's questions (several wordings per kind) three ways: the
rules alone, the packaged language model alone (``parser_first: model``) and
the default (rules first, the model for the rest), and prints p50 / p95 / max
latency of each, the model's load and warm-up time, and the resident memory
of the query side (``build_reasoner`` on the default configuration) without
and with the model.  It prints figures and never asserts them.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vidmem_dev.bench_memory import rss_mb
from vidmem_dev.sample_bag import PATROL
from vidmem_dev.sample_questions import patrol_questions
from vidmem_ros.agent.question_model import ModelQuestionParser, RuleParser, build_question_parser
from vidmem_ros.agent.question_similarity import SimilarityParser
from vidmem_ros.config import load_config
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.registry import build_text_embedder


def run_parser_bench(json_path: Path | None = None, limit: int = 0) -> int:
    questions = list(dict.fromkeys(q["question"] for q in patrol_questions(PATROL)))
    if limit:
        questions = questions[:limit]
    figures: dict[str, Any] = {"questions": len(questions)}
    config = load_config()
    with tempfile.TemporaryDirectory(prefix="vidmem-bench-parser-") as tmp:
        store = SqliteStore(Path(tmp) / "memory.db")
        rules_config = config.model_copy(update={"query": config.query.model_copy(update={"parser": "rules"})})
        figures["rss_mb_start"] = _rss_mb()
        from vidmem_ros.agent.reasoner import build_reasoner

        build_reasoner(rules_config, store)
        figures["rss_mb_query_side_rules"] = _rss_mb()
        started = time.perf_counter()
        model_first = build_question_parser(config.query.model_copy(update={"parser_first": "model"}))
        figures["model_load_s"] = round(time.perf_counter() - started, 2)
        assert isinstance(model_first, ModelQuestionParser)
        started = time.perf_counter()
        model_first.warm_up().join()  # the second warm-up waits for the first, then runs on a cached prompt
        figures["model_warm_up_s"] = round(time.perf_counter() - started, 2)
        figures["rss_mb_query_side_with_model"] = _rss_mb()
        rules = (
            RuleParser(SimilarityParser(embedder)) if (embedder := build_text_embedder(config.text_embedder)) else None
        )
        time_limit = config.query.parser_timeout_s
        default = ModelQuestionParser(model_first.chat, model_first.name, time_limit, True, rules)
        patterns = RuleParser()
        figures["patterns"] = _timed(patterns.parse, questions)
        if rules is not None:
            figures["rules"] = _timed(rules.parse, questions)  # the patterns, then likeness to example questions
        figures["model"] = _timed(lambda q: model_first.plan(q, math.inf), questions)  # the model's own pace
        figures["default"] = _timed(default.parse, questions)
        figures["read_by_the_model"] = sum(patterns.parse(q) is None for q in questions)
        store.close()
    _print(figures)
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def _timed(parse: Callable[[str], object], questions: list[str]) -> dict[str, float]:
    latencies = []
    failed = 0
    for question in questions:
        started = time.perf_counter()
        failed += parse(question) is None
        latencies.append(time.perf_counter() - started)
    latencies.sort()
    return {
        "p50_s": round(statistics.median(latencies), 4),
        "p95_s": round(latencies[max(0, round(0.95 * len(latencies)) - 1)], 4),
        "max_s": round(latencies[-1], 4),
        "no_plan": failed,
    }


def _rss_mb() -> float:
    return round(rss_mb(), 1)


def _print(f: dict[str, Any]) -> None:
    out = sys.stdout
    print(f"{f['questions']} sample-patrol questions, several wordings per kind", file=out)
    print(f"model load {f['model_load_s']} s, warm-up (the fixed prompt) {f['model_warm_up_s']} s", file=out)
    print(f"{'parser':<34}{'p50 s':>9}{'p95 s':>9}{'max s':>9}{'no plan':>9}", file=out)
    rows = (
        ("patterns", "sentence patterns"),
        ("rules", "patterns, then examples"),
        ("model", "model (every question, no limit)"),
        ("default", "patterns, model, examples"),
    )
    for key, name in rows:
        if key not in f:
            continue
        row = f[key]
        print(f"{name:<34}{row['p50_s']:>9.3f}{row['p95_s']:>9.3f}{row['max_s']:>9.3f}{row['no_plan']:>9}", file=out)
    print(f"questions the patterns leave to the model: {f['read_by_the_model']} of {f['questions']}", file=out)
    print(
        f"query side RSS: {f['rss_mb_query_side_rules']} MB with the rules, "
        f"{f['rss_mb_query_side_with_model']} MB with the model loaded",
        file=out,
    )
