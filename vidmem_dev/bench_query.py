"""``vidmem bench query``: question latency on memories of hours of robot time.

A memory is built with ``vidmem bench memory``'s simulation (real engine, real
store; synthetic detections at a few dozen places) plus a line of speech every
five minutes.  Then one question per intent is asked about labels that memory
holds, at several moments (as of the end, as of the middle), with the offline
planner; the figures are p50 / p95 latency and turns per question.

For the language-model planner the same steps are replayed through its real
request building (``LlmPlanner`` with an in-process chat backend that answers
with the offline planner's calls), so the tokens per turn are those the
planner would send a server; they are estimated at four characters a token.

The command prints figures and never asserts timings.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from vidmem_dev.bench_memory import EPOCH, simulate
from vidmem_ros.agent.harness import AgentState, Budget, Harness
from vidmem_ros.agent.llm_planner import LlmPlanner
from vidmem_ros.agent.offline_planner import OfflinePlanner
from vidmem_ros.agent.question import parse_question
from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.agent.tool_context import ToolContext
from vidmem_ros.chat_client import ChatReply, ChatToolCall, Message
from vidmem_ros.config import load_config
from vidmem_ros.memory.records import Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.coco import COCO_LABELS

SPEECH_EVERY_S = 300.0
LINES = ("The delivery arrived at the side entrance.", "Please water the plants on Friday.")


# Every frame at the working rate kept (no blur, static or duplicate gate): the densest memory an hour makes.
DENSE = {"ingest.blur_min_laplacian_var": 0.0, "ingest.static_max_mean_diff": 0.0, "ingest.duplicate_min_ssim": 1.0}


def run_query_bench(
    hours: list[float],
    camera_hz: float = 2.0,
    json_path: Path | None = None,
    dense: bool = False,
    out: Any = print,
) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="vidmem-bench-query-") as tmp:
        for h in hours:
            overrides: dict[str, Any] = {"store.path": str(Path(tmp) / f"memory-{h:g}h.db"), **(DENSE if dense else {})}
            config = load_config(overrides=overrides)
            _progress(f"building a memory of {h:g} h of robot time ...")
            simulate(config, h, camera_hz, 40, 0, _progress)
            store = SqliteStore(config.store_path())
            _add_speech(store, h)
            figures[f"{h:g}h"] = _bench(store, config)
            store.close()
    out(format_query(figures))
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
        out(f"\nfigures written to {json_path}")
    return figures


def _add_speech(store: SqliteStore, hours: float) -> None:
    t = 60.0
    while t < hours * 3600:
        store.add_transcript(Transcript(EPOCH + t, EPOCH + t + 3.0, LINES[int(t // SPEECH_EVERY_S) % len(LINES)]))
        t += SPEECH_EVERY_S


def questions(store: SqliteStore) -> list[str]:
    """One question per intent about labels this memory holds (the two most seen), plus a trap."""
    with store.read() as db:
        rows = db.execute("SELECT label, COUNT(*) FROM detections GROUP BY label ORDER BY 2 DESC LIMIT 2").fetchall()
    a, b = (str(r[0]) for r in rows) if len(rows) == 2 else ("person", "cup")
    trap = next(x for x in COCO_LABELS.values() if x not in (a, b) and x != "person")
    return [
        f"Did you see a {a}?",
        f"Did you see a {trap}?",
        f"When did you first see a {a}?",
        f"When did you last see a {b}?",
        f"Where did you see the {b}?",
        f"How many times did you see a {a}?",
        f"How long did you see the {b}?",
        f"Did you see the {a} before or after the {b}?",
        f"What did you see after the {a}?",
        "What did you see in the last 5 minutes?",
        "What do you see now?",
        "What did you read?",
        "What did someone say about the delivery?",
        "When did someone say water the plants?",
        "Is the dishwasher broken again?",
    ]


def _bench(store: SqliteStore, config: Any) -> dict[str, Any]:
    span = store.time_span()
    assert span is not None
    reasoner = Reasoner(store, config.query, tuple(COCO_LABELS.values()), detector_min_score=config.detector.min_score)
    latencies: dict[str, list[float]] = defaultdict(list)
    turns: Counter[int] = Counter()
    tokens: list[int] = []
    prompts: list[int] = []
    for as_of in (None, (span[0] + span[1]) / 2):
        for question in questions(store):
            started = time.perf_counter()
            answer = reasoner.answer(question, as_of)
            latencies[_intent(question)].append(time.perf_counter() - started)
            turns[int(answer.trace.get("turns", 0))] += 1
            per_turn = _llm_tokens(reasoner, question, as_of)
            prompts += per_turn
            tokens.append(sum(per_turn))
    every = sorted(x for xs in latencies.values() for x in xs)
    return {
        "moments": store.moment_count(),
        "events": store.event_count(),
        "questions": len(every),
        "p50_s": _pct(every, 50),
        "p95_s": _pct(every, 95),
        "max_s": every[-1],
        "by_intent_p95_s": {k: _pct(sorted(v), 95) for k, v in sorted(latencies.items())},
        "turns": dict(sorted(turns.items())),
        "llm_prompt_tokens_per_turn_mean": round(statistics.fmean(prompts)) if prompts else 0,
        "llm_prompt_tokens_per_turn_max": max(prompts, default=0),
        "llm_tokens_per_question_mean": round(statistics.fmean(tokens)) if tokens else 0,
    }


class _Recorder(OfflinePlanner):
    """The offline planner, keeping the steps it took."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.steps: list[list[dict[str, Any]]] = []

    def next_step(self, state: AgentState) -> list[dict[str, Any]]:
        step = super().next_step(state)
        self.steps.append(step)
        return step


class _ReplayChat:
    """A chat backend answering with recorded steps, so LlmPlanner's real requests can be measured."""

    timeout_s = 30.0

    def __init__(self, steps: list[list[dict[str, Any]]]) -> None:
        self.steps = list(steps)
        self.calls = 0

    def complete(self, messages: list[Message], tools: Any = None, *rest: Any, **kw: Any) -> ChatReply:
        step = self.steps.pop(0) if self.steps else []
        self.calls += 1
        calls = [ChatToolCall(f"call_{self.calls}_{i}", c["tool"], json.dumps(c["args"])) for i, c in enumerate(step)]
        return ChatReply("", calls)


def _llm_tokens(reasoner: Reasoner, question: str, as_of: float | None) -> list[int]:
    """Prompt tokens of each request the LLM planner would send, taking the offline planner's steps."""
    ctx: ToolContext = reasoner.context(as_of)
    recorder = _Recorder(parse_question(question), reasoner.store.time_span(as_of))
    budget = Budget(reasoner.config.max_turns, 60.0, 10**9)
    Harness(ctx, budget).run(recorder, question)
    planner = LlmPlanner(_ReplayChat(recorder.steps), ctx)
    Harness(ctx, budget).run(planner, question)
    return [t.prompt for t in planner.turn_tokens]


def _intent(question: str) -> str:
    parsed = parse_question(question)
    return parsed.intent.value if parsed else "search"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    return round(values[min(len(values) - 1, math.ceil(q / 100 * len(values)) - 1)], 4)


def format_query(figures: dict[str, Any]) -> str:
    lines = ["offline planner latency (s) and LLM-planner request size (estimated tokens, 4 chars each)"]
    lines.append(
        f"{'memory':>8} {'moments':>8} {'events':>7} {'n':>4} {'p50':>7} {'p95':>7} {'max':>7}  turns  tok/turn"
    )
    for name, f in figures.items():
        turns = ", ".join(f"{k}:{v}" for k, v in f["turns"].items())
        lines.append(
            f"{name:>8} {f['moments']:>8} {f['events']:>7} {f['questions']:>4} {f['p50_s']:>7.3f} "
            f"{f['p95_s']:>7.3f} {f['max_s']:>7.3f}  {turns}  {f['llm_prompt_tokens_per_turn_mean']} "
            f"(max {f['llm_prompt_tokens_per_turn_max']}, {f['llm_tokens_per_question_mean']} per question)"
        )
    for name, f in figures.items():
        slow = ", ".join(f"{k} {v:.3f}" for k, v in f["by_intent_p95_s"].items())
        lines.append(f"{name} p95 by intent: {slow}")
    return "\n".join(lines)


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
