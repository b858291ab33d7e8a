"""``vidmem eval`` and ``vidmem report``: answer a bag's questions, score the answers, write the HTML report."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import InputError, StoreError
from vidmem_ros.evaluation.answers import AnswerFile, AnswerLine, by_system, read_answers
from vidmem_ros.evaluation.questions import load_questions
from vidmem_ros.evaluation.report import write_report
from vidmem_ros.evaluation.scoring import format_summary, score_all, summarise, write_summary_json
from vidmem_ros.ingest.bag_reader import BagTopics
from vidmem_ros.memory.store import SqliteStore

if TYPE_CHECKING:
    from vidmem_ros.evaluation.evaluator import SystemRun


def run_report(
    store: Path,
    questions_path: Path,
    answer_paths: Sequence[Path],
    out: Path,
    bag_start: float | None = None,
    json_path: Path | None = None,
    max_thumbnails: int = 200,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Print the score table, write the report (and JSON); 0 on success, 1 when nothing could be reported."""
    stdout = sys.stdout if stdout is None else stdout  # looked up per call: a redirect made after import counts
    stderr = sys.stderr if stderr is None else stderr
    question_set = load_questions(questions_path)
    files = [read_answers(p) for p in answer_paths]
    grouped, duplicates = by_system(files)
    problems = [*question_set.problems, *(p for f in files for p in f.problems), *duplicates]
    problems += _unknown_ids(grouped, {q.id for q in question_set.questions})
    start = _bag_start(bag_start, files, store, problems)
    for problem in problems:
        print(f"warning: {problem}", file=stderr)
    if start is None:
        print("error: no bag start: give --bag-start or an answers header with meta.bag_start", file=stderr)
        return 1
    scores = score_all(question_set.truth, grouped)
    summary = summarise(scores, [q.id for q in question_set.questions if q.id not in question_set.truth])
    print(format_summary(summary), file=stdout)
    if json_path is not None:
        write_summary_json(json_path, summary, scores)
    try:
        stats = write_report(
            out,
            store,
            question_set.questions,
            grouped,
            scores,
            start,
            truth=question_set.truth,
            problems=problems,
            max_thumbnails=max_thumbnails,
        )
    except StoreError as exc:
        print(f"error: {exc}", file=stderr)
        return 1
    left = stats.keyframes_left_out + stats.evidence_left_out
    note = f", {left} image(s) left out" if left else ""
    print(f"wrote {stats.path} ({stats.size_bytes / 1e6:.2f} MB, {stats.events} events{note})", file=stdout)
    return 0


def _unknown_ids(grouped: Mapping[str, Mapping[str, AnswerLine]], known: set[str]) -> list[str]:
    return [
        f"system {system!r} answered {qid!r}, which is not in the questions file"
        for system, answers in grouped.items()
        for qid in answers
        if qid not in known
    ]


def _bag_start(given: float | None, files: Sequence[AnswerFile], store: Path, problems: list[str]) -> float | None:
    """--bag-start, else the answers headers' (they must agree), else the first stored frame (noted)."""
    if given is not None:
        return given
    starts = sorted({f.meta.bag_start for f in files if f.meta.bag_start is not None})
    if len(starts) > 1:
        problems.append(
            f"answers files disagree on bag_start ({', '.join(f'{s:.3f}' for s in starts)}); using the first"
        )
    if starts:
        return starts[0]
    try:
        reader = SqliteStore(store, readonly=True)
    except StoreError as exc:
        problems.append(str(exc))
        return None
    try:
        span = reader.time_span()
    finally:
        reader.close()
    if span is None:
        return None
    problems.append("no bag start given: times count from the first stored frame, which may be after the bag's start")
    return span[0]


def run_eval(
    bag: Path,
    questions_path: Path,
    out: Path,
    config: VidmemConfig,
    *,
    topics: BagTopics | None = None,
    baselines: Sequence[str] = (),
    report: Path | None = None,
    json_path: Path | None = None,
    quiet: bool = False,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    loops: int = 1,
) -> int:
    """``vidmem eval``: answers to ``out``, the score table when questions carry answers, optionally the report."""
    from vidmem_ros.evaluation.evaluator import evaluate
    from vidmem_ros.progress import ProgressBar

    stdout = sys.stdout if stdout is None else stdout  # looked up per call: a redirect made after import counts
    stderr = sys.stderr if stderr is None else stderr
    question_set = load_questions(questions_path)
    if not question_set.questions:
        print(f"error: {questions_path} holds no valid question", file=stderr)
        for problem in question_set.problems:
            print(f"  {problem}", file=stderr)
        return 1
    try:
        run = evaluate(
            bag,
            question_set,
            out,
            config,
            topics=topics,
            baselines=baselines,
            progress=lambda system: ProgressBar(label=f"{system} ", quiet=quiet, stream=stderr),
            loops=loops,
        )
    except InputError as exc:
        print(f"error: {exc}", file=stderr)
        return 1
    for problem in run.problems:
        print(f"warning: {problem}", file=stderr)
    for system in run.systems:
        print(_figures_line(system), file=stdout)
    print(f"answers: {out}", file=stdout)
    if question_set.truth:
        grouped = {s.system: {a.id: a for a in s.answers} for s in run.systems}
        scores = score_all(question_set.truth, grouped)
        summary = summarise(scores, [q.id for q in question_set.questions if q.id not in question_set.truth])
        if report is None:  # the report prints the same table
            print(format_summary(summary), file=stdout)
        scores_path = json_path or out.with_suffix(".scores.json")
        write_summary_json(scores_path, summary, scores)
        print(f"scores: {scores_path}", file=stdout)
    if report is not None:
        main = run.systems[0]
        return run_report(main.store, questions_path, [out], report, run.bag_start, stdout=stdout, stderr=stderr)
    return 0


def _figures_line(run: SystemRun) -> str:
    f = run.figures
    latencies = sorted(a.latency_s for a in run.answers)
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))] if latencies else 0.0
    mean = sum(latencies) / len(latencies) if latencies else 0.0
    if f is None:
        return f"{run.system}: no figures"
    kept = f.kept / f.frames if f.frames else 0.0
    return (
        f"{run.system}: {f.bag_s:.0f} s of bag ingested in {f.wall_s:.1f} s (real-time factor {f.real_time_factor:.1f}x), "
        f"{f.kept}/{f.frames} frames kept ({kept:.0%}), {f.transcripts} transcripts; "
        f"{len(latencies)} questions, latency mean {mean:.3f} s, p95 {p95:.3f} s"
    )
