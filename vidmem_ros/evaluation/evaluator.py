"""The online evaluator: ingest a bag as fast as it runs, pause at each question's time, ask, go on.

Each question is asked with ``as_of`` set to its moment, after exactly the
messages recorded up to then were ingested, so no answer can rest on anything
later: the store does not hold it yet, and every tool filters by ``as_of`` too.
Only ``id``, ``ask_at`` and ``question`` reach the system under test.

A looped bag (``loops`` > 1, as ``ros2 bag play --loop`` plays it) is ingested that many times into one memory:
its stamps go back at each loop, so each play is a run of memory (``memory.runs``).  The questions are asked
during the last play, each at its ``ask_at`` of that play: memory then holds the earlier plays as the past, and
"now" is the last one.  Answer and evidence times are read back on the bag's clock (seconds from its first
message, within the play they fell in), so a looped run scores against the same ground truth times.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from vidmem_ros.agent.answer import Answer
from vidmem_ros.agent.reasoner import build_reasoner
from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import InputError
from vidmem_ros.evaluation.answers import AnswerLine, AnswersMeta, Evidence, answer_writer
from vidmem_ros.evaluation.baselines import SingleShotRetriever, baseline_config
from vidmem_ros.evaluation.questions import Question, QuestionSet, fit_to_bag
from vidmem_ros.ingest.bag import BagIngest, IngestFigures
from vidmem_ros.ingest.bag_reader import BagStream, BagTopics
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.runs import sensor_stamp
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.registry import build_text_embedder
from vidmem_ros.progress import ProgressSink

log = logging.getLogger(__name__)


class Answerer(Protocol):
    def answer(self, question: str, as_of: float | None = None) -> Answer: ...


@dataclass
class SystemRun:
    system: str
    store: Path
    figures: IngestFigures | None = None
    answers: list[AnswerLine] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)


@dataclass
class EvalRun:
    bag: Path
    bag_start: float
    duration_s: float
    problems: list[str]
    systems: list[SystemRun]


def evaluate(
    bag: Path,
    questions: QuestionSet,
    out: Path,
    config: VidmemConfig,
    *,
    topics: BagTopics | None = None,
    baselines: Sequence[str] = (),
    work_dir: Path | None = None,
    progress: Callable[[str], ProgressSink] | None = None,
    loops: int = 1,
) -> EvalRun:
    """Run the system (and any baselines) over ``bag``, played ``loops`` times, writing every answer line to
    ``out``."""
    if loops < 1:
        raise InputError("bad_loops", f"loops must be at least 1, got {loops}")
    with BagStream(bag, topics) as probe:
        start, duration = probe.start_s, probe.duration_s
    asked, problems = fit_to_bag(questions.questions, duration)
    problems = [*questions.problems, *problems]
    work = work_dir or out.parent / f"{out.stem}.memory"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    meta = AnswersMeta(bag_start=start, system="vidmem", bag=str(bag), bag_duration_s=duration)
    runs = []
    with answer_writer(out, meta) as sink:
        for system in ("vidmem", *baselines):
            run = _run_system(system, bag, asked, config, topics, work, progress, sink.write, loops)
            problems += [p for p in run.problems if p not in problems]
            runs.append(run.system_run)
    return EvalRun(bag, start, duration, problems, runs)


@dataclass
class _Outcome:
    system_run: SystemRun
    problems: list[str]


def _run_system(
    system: str,
    bag: Path,
    questions: list[Question],
    config: VidmemConfig,
    topics: BagTopics | None,
    work: Path,
    progress: Callable[[str], ProgressSink] | None,
    write: Callable[[AnswerLine], None],
    loops: int = 1,
) -> _Outcome:
    store_path = work / f"{system}.db"
    cfg = config if system == "vidmem" else baseline_config(config, system)
    cfg = cfg.model_copy(update={"store": cfg.store.model_copy(update={"path": str(store_path)})})
    store = SqliteStore(store_path)
    try:
        pipeline = IngestPipeline.from_config(cfg, store)
        for _ in range(loops - 1):  # the earlier plays of a looped bag: memory's earlier runs, asked nothing
            with BagStream(bag, topics) as earlier:
                BagIngest(cfg, earlier, pipeline).finish()
        with BagStream(bag, topics) as stream:
            answerer = _answerer(system, cfg, store)
            run = SystemRun(system, store_path)
            bar = progress(system) if progress else None
            ingest = BagIngest(cfg, stream, pipeline)
            if bar is not None:
                bar.start(stream.duration_s)
            for question in sorted(questions, key=lambda q: q.ask_at):
                _advance(ingest, question.ask_at, bar)
                line = _ask(answerer, question, stream.start_s, system, store)
                write(line)  # at once: a run that dies keeps what it answered
                run.answers.append(line)
            _advance(ingest, stream.duration_s, bar)
            ingest.finish()
            if bar is not None:
                bar.finish()
            run.figures = ingest.figures()
            return _Outcome(run, stream.report.problems)
    finally:
        store.close()


def _advance(ingest: BagIngest, t: float, bar: ProgressSink | None) -> None:
    """Ingest up to ``t`` in steps, so the progress bar moves during long stretches without questions."""
    while ingest.t < t and not ingest.exhausted:
        step = min(t, ingest.t + 5.0)
        ingest.advance_to(step, settle=step >= t)  # speech may lag the camera until the question's moment
        if bar is not None:
            bar.update(ingest.t)


def _answerer(system: str, config: VidmemConfig, store: SqliteStore) -> Answerer:
    if system != "uniform":
        return build_reasoner(config, store)
    embedder = build_text_embedder(config.text_embedder)
    if embedder is None:
        raise ValueError("the uniform baseline needs a text embedder (text_embedder.backend: minilm)")
    return SingleShotRetriever(store, embedder, config.query.min_score)


def _ask(answerer: Answerer, question: Question, bag_start: float, system: str, store: SqliteStore) -> AnswerLine:
    started = time.perf_counter()
    try:
        answer = answerer.answer(question.question, as_of=bag_start + question.ask_at)
    except Exception as exc:  # one failing question must not end the evaluation; it scores as wrong
        log.exception("question %s failed", question.id)
        answer = Answer.failure(f"{type(exc).__name__}: {exc}")
    latency = time.perf_counter() - started
    runs = store.runs()
    return answer_line(question.id, answer, bag_start, latency, system, lambda t: sensor_stamp(runs, t))


def answer_line(
    qid: str,
    answer: Answer,
    bag_start: float,
    latency: float,
    system: str,
    clock: Callable[[float], float] = float,
) -> AnswerLine:
    """An answer in the evaluation file's terms: times from the bag's first message, typed parts where known.
    ``clock``: a memory time on the bag's clock (``memory.runs``; the same for a bag played once)."""
    evidence = [
        Evidence(kind=e.kind, ref=e.ref, time=round(clock(e.stamp) - bag_start, 3), text=e.text[:300], score=e.score)
        for e in answer.evidence
    ]
    value = answer.value
    return AnswerLine(
        id=qid,
        answer=answer.text if answer.success else "",
        confidence=answer.confidence,
        latency_s=round(latency, 4),
        evidence=evidence,
        time=None if answer.stamp is None else round(clock(answer.stamp) - bag_start, 3),
        position=None if answer.pose is None else (round(answer.pose.x, 3), round(answer.pose.y, 3)),
        value=value,
        system=system,
        error=answer.error,
    )
