"""The loop that runs a planner against the tools and checks every step.

Whatever plans (a language model or the offline rules), the harness:
- validates each step strictly (known tool, arguments that fit its schema, no
  extra keys) and gives the planner one repair attempt before failing cleanly;
- blocks near-duplicate searches (word Jaccard) so turns go to new evidence;
- keeps a ledger of sub-tasks with their status and evidence;
- distils every result into a few short clues before it enters the context;
- measures the novelty of each result and advises stopping once results stop
  adding anything;
- enforces budgets for turns, wall time and tokens, and when one runs out
  answers from the best evidence gathered so far;
- grounds the final answer: every cited reference must have been observed, and
  its time and place come from memory, not from the planner's words.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError

from vidmem_ros.agent.answer import Answer, EvidenceItem
from vidmem_ros.agent.tool_args import AnswerArgs
from vidmem_ros.agent.tool_context import REF, Finding, ToolContext, ToolError, ToolResult
from vidmem_ros.agent.tool_registry import ANSWER_TOOL, TOOLS
from vidmem_ros.errors import VidmemError
from vidmem_ros.memory.runs import Run

log = logging.getLogger(__name__)

SEARCH_TOOLS = {"search": "query", "find_object": "name", "find_text": "text", "search_transcripts": "query"}
DUPLICATE_JACCARD = 0.8
LOW_NOVELTY = 0.25
CLUE_CHARS = 160
MAX_CALLS_PER_TURN = 4


class PlannerError(VidmemError):
    """The planner could not produce a step (a server down, a reply that is not a message)."""


@dataclass(frozen=True)
class Budget:
    max_turns: int = 8
    timeout_s: float = 20.0
    max_tokens: int = 12000


@dataclass(frozen=True)
class ToolCall:
    tool: str
    args: Any  # the validated pydantic model
    call_id: str = ""

    def describe(self) -> str:
        return f"{self.tool}({json.dumps(self.args.model_dump(exclude_defaults=True), default=str)})"


@dataclass
class SubTask:
    goal: str
    status: str = "pending"  # pending | done | empty | failed
    evidence: list[str] = field(default_factory=list)


@dataclass
class Observation:
    call: ToolCall
    result: ToolResult
    clues: list[str]
    novelty: float
    blocked: bool = False

    def message(self, t0: float) -> str:
        """The result as the planner's context sees it: compact JSON of clues, never raw dumps."""
        body: dict[str, Any] = {"results": [_clip(f.to_json(t0)) for f in self.result.findings[:8]]}
        if len(self.result.findings) > 8:
            body["more"] = len(self.result.findings) - 8
        if self.result.note:
            body["note"] = self.result.note
        if self.result.error:
            body["error"] = self.result.error
        return json.dumps(body, ensure_ascii=False)


@dataclass
class AgentState:
    question: str
    as_of: float | None
    t0: float
    budget: Budget
    runs: Sequence[Run] = ()  # the runs of the robot's clock memory holds (``memory.runs``), to say which
    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    tokens: int = 0
    ledger: list[SubTask] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    findings: dict[str, Finding] = field(default_factory=dict)  # every reference observed, by ref
    advice: str = ""
    repairs: int = 0
    steps: list[dict[str, Any]] = field(default_factory=list)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def remaining_s(self) -> float:
        return max(0.0, self.budget.timeout_s - self.elapsed())

    def exhausted(self) -> str:
        """Which budget has run out, or the empty string."""
        if self.turns >= self.budget.max_turns:
            return f"turn budget ({self.budget.max_turns})"
        if self.elapsed() >= self.budget.timeout_s:
            return f"time budget ({self.budget.timeout_s:g} s)"
        if self.tokens >= self.budget.max_tokens:
            return f"token budget ({self.budget.max_tokens})"
        return ""

    def plan(self, *goals: str) -> None:
        self.ledger = [SubTask(goal) for goal in goals]

    def ledger_text(self) -> str:
        return "; ".join(f"[{t.status}] {t.goal}" for t in self.ledger)


class Planner(Protocol):
    """Proposes the next step.  A raw step is a list of {"tool": name, "args": dict or JSON string, "id": str}."""

    name: str

    def start(self, state: AgentState) -> None: ...

    def next_step(self, state: AgentState) -> list[dict[str, Any]]: ...

    def repair(self, state: AgentState, error: str) -> list[dict[str, Any]]: ...

    def observe(self, state: AgentState, observations: list[Observation]) -> None: ...


# Makes a planner for one question (its text) over one tool context: how a model-backed planner is plugged in.
PlannerFactory = Callable[[str, ToolContext], Planner]


class Harness:
    def __init__(self, ctx: ToolContext, budget: Budget) -> None:
        self.ctx = ctx
        self.budget = budget

    def run(self, planner: Planner, question: str) -> Answer:
        state = AgentState(question, self.ctx.as_of, self.ctx.t0, self.budget, runs=self.ctx.runs)
        try:
            planner.start(state)
            while not (why := state.exhausted()):
                calls = self._valid_step(planner, state)
                if calls is None:
                    return self._finish(state, Answer.failure(state.steps[-1]["error"]), planner)
                state.turns += 1
                answer = next((c for c in calls if c.tool == ANSWER_TOOL), None)
                if answer is not None:
                    return self._finish(state, self._ground(state, answer.args), planner)
                observations = [self._execute(state, call) for call in calls]
                self._advise(state)
                planner.observe(state, observations)
            return self._finish(state, self._forced(state, why), planner)
        except PlannerError as exc:
            log.warning("planner %s failed: %s", planner.name, exc)
            state.steps.append({"error": str(exc)})
            if state.findings:
                # The error stays in the trace: an internal message is never the answer's text.
                forced = self._forced(state, "planner failure")
                forced.trace["error"] = str(exc)
                return self._finish(state, forced, planner)
            return self._finish(state, Answer.failure(f"the {planner.name} planner failed: {exc}"), planner)

    # -- validation ------------------------------------------------------------------

    def _valid_step(self, planner: Planner, state: AgentState) -> list[ToolCall] | None:
        raw = planner.next_step(state)
        try:
            return self.validate(raw, state)
        except StepError as first:
            state.repairs += 1
            state.steps.append({"invalid": str(first), "raw": _short(raw)})
            if why := state.exhausted():  # no budget left for a repair: fail with the reason
                state.steps.append({"error": f"the planner's output was invalid and the {why} ran out: {first}"})
                return None
            try:
                return self.validate(planner.repair(state, str(first)), state)
            except StepError as second:
                state.steps.append({"error": f"the planner's output was invalid twice: {second}"})
                return None

    def validate(self, raw: Any, state: AgentState) -> list[ToolCall]:
        if not isinstance(raw, list) or not raw:
            raise StepError("expected one or more tool calls")
        if len(raw) > MAX_CALLS_PER_TURN:
            raise StepError(f"at most {MAX_CALLS_PER_TURN} tool calls per turn")
        calls = [self._call(item, state) for item in raw]
        if any(c.tool == ANSWER_TOOL for c in calls) and len(calls) > 1:
            raise StepError(f"{ANSWER_TOOL} must be the only call of its turn")
        return calls

    def _call(self, item: Any, state: AgentState) -> ToolCall:
        if not isinstance(item, dict) or set(item) - {"tool", "args", "id"} or "tool" not in item:
            raise StepError('each call must be {"tool": name, "args": {...}} with no other keys')
        name, args = item["tool"], item.get("args", {})
        if isinstance(args, str):
            try:
                args = json.loads(args or "{}")
            except ValueError as exc:
                raise StepError(f"arguments of {name} are not valid JSON: {exc}") from exc
        if not isinstance(args, dict):
            raise StepError(f"arguments of {name} must be a JSON object")
        model = AnswerArgs if name == ANSWER_TOOL else TOOLS[name].args if name in TOOLS else None
        if model is None:
            raise StepError(f"unknown tool {name!r}; the tools are {', '.join([*TOOLS, ANSWER_TOOL])}")
        try:
            parsed = model.model_validate(args)
        except ValidationError as exc:
            raise StepError(f"{name}: {_brief(exc)}") from exc
        if isinstance(parsed, AnswerArgs):
            self._check_refs(parsed, state)
        return ToolCall(name, parsed, str(item.get("id", "")))

    def _check_refs(self, args: AnswerArgs, state: AgentState) -> None:
        cited = [*args.evidence, *(r for r in (args.time_ref, args.place_ref) if r)]
        unknown = [r for r in cited if not REF.match(r) or r not in self._observed_refs(state)]
        if unknown:
            raise StepError(f"{ANSWER_TOOL} cites references no tool returned: {', '.join(unknown[:5])}")

    @staticmethod
    def _observed_refs(state: AgentState) -> set[str]:
        refs = set(state.findings)
        for finding in state.findings.values():
            refs.update(v for v in finding.data.values() if isinstance(v, str) and REF.match(v))
        return refs

    # -- execution -------------------------------------------------------------------

    def _execute(self, state: AgentState, call: ToolCall) -> Observation:
        duplicate = self._duplicate_of(state, call)
        if duplicate is not None:
            result = ToolResult(call.tool, error=f"duplicate of an earlier call ({duplicate}); its results are above")
            observation = Observation(call, result, [], 0.0, blocked=True)
        else:
            started = time.monotonic()
            try:
                result = TOOLS[call.tool].run(self.ctx, call.args)
            except ToolError as exc:
                result = ToolResult(call.tool, error=str(exc))
            except VidmemError as exc:  # a model or the store failed; the planner may try something else
                result = ToolResult(call.tool, error=f"{call.tool} failed: {exc}")
            observation = self._observe(state, call, result)
            state.steps.append(
                {
                    "call": call.describe(),
                    "found": len(result.findings),
                    "novelty": round(observation.novelty, 2),
                    "clues": observation.clues,
                    "ms": round((time.monotonic() - started) * 1000, 1),
                    **({"note": result.note} if result.note else {}),
                    **({"error": result.error} if result.error else {}),
                }
            )
        if observation.blocked:
            state.steps.append({"call": call.describe(), "blocked": result.error})
        state.observations.append(observation)
        return observation

    def _observe(self, state: AgentState, call: ToolCall, result: ToolResult) -> Observation:
        refs = [f.ref for f in result.findings]
        new = [r for r in refs if r not in state.findings]
        novelty = len(set(new)) / len(set(refs)) if refs else 0.0
        for finding in result.findings:
            known = state.findings.get(finding.ref)
            if known is None or finding.score > known.score or finding.kind == "occasion":
                state.findings[finding.ref] = finding
        self._update_ledger(state, call, result)
        return Observation(call, result, distil(result, state.t0), novelty)

    def _update_ledger(self, state: AgentState, call: ToolCall, result: ToolResult) -> None:
        task = next((t for t in state.ledger if t.status == "pending"), None)
        if task is None:
            task = SubTask(call.describe())
            state.ledger.append(task)
        task.evidence += [f.ref for f in result.findings[:5]]
        task.status = "failed" if result.error else "done" if result.findings else "empty"

    def _duplicate_of(self, state: AgentState, call: ToolCall) -> str | None:
        for earlier in state.observations:
            if earlier.blocked or earlier.call.tool != call.tool:
                continue
            if earlier.call.args == call.args or _near_duplicate(earlier.call, call):
                return earlier.call.describe()
        return None

    def _advise(self, state: AgentState) -> None:
        recent = [o for o in state.observations if not o.blocked][-2:]
        stale = len(recent) == 2 and all(o.novelty <= LOW_NOVELTY for o in recent)
        done = bool(state.ledger) and all(t.status != "pending" for t in state.ledger)
        if state.findings and (stale or done):
            state.advice = "enough evidence gathered: answer now with final_answer"
        else:
            state.advice = ""

    # -- answers ---------------------------------------------------------------------

    def _ground(self, state: AgentState, args: AnswerArgs) -> Answer:
        """The planner's answer with time, place and evidence taken from memory by reference."""
        time_finding = self.resolve(state, args.time_ref) if args.time_ref else None
        place_finding = self.resolve(state, args.place_ref) if args.place_ref else None
        cited = [f for f in (self.resolve(state, r) for r in args.evidence) if f is not None]
        if time_finding is not None and time_finding not in cited:
            cited.insert(0, time_finding)
        stamp = time_finding.stamp if time_finding else None
        pose = place_finding.pose if place_finding else None
        return Answer(
            success=True,
            text=args.text.strip(),
            confidence=args.confidence,
            stamp=stamp,
            pose=pose,
            evidence=[evidence_item(f) for f in cited],
            value=args.value,
        )

    def resolve(self, state: AgentState, ref: str) -> Finding | None:
        """An observed reference as a finding; moments and events named only inside another result are looked up."""
        kind, _, ident = ref.partition("/")
        # A moment's own stamp and pose: an occasion cited by its best frame spans more than that frame.  A pose
        # read along the path is cited by the frame nearest it, and stands for the moment asked.
        if ref in state.findings and (kind != "moment" or state.findings[ref].kind == "pose"):
            return state.findings[ref]
        if kind == "moment":
            moment = self.ctx.store.moment(int(ident), with_payload=False)
            if moment is not None and moment.stamp <= self.ctx.upper:
                # What a tool said about it (or about the occasion it belongs to), at its own stamp and pose.
                seen = state.findings.get(ref) or next(
                    (f for f in state.findings.values() if ref in f.data.values()), None
                )
                text, score = (seen.text, seen.score) if seen else ("", 1.0)
                return Finding(ref, "moment", moment.stamp, moment.stamp, text, score, moment.pose)
        if kind == "event":
            event = self.ctx.store.event(int(ident))
            if event is not None and event.end <= self.ctx.upper:
                return Finding(ref, "event", event.start, event.end, event.caption, 1.0, event.start_pose)
        return None

    def _forced(self, state: AgentState, why: str) -> Answer:
        """Out of budget, or the planner failed: report the best evidence found so far, with modest confidence."""
        best = sorted(state.findings.values(), key=lambda f: -f.score)[:3]
        stopped = "I could not finish working this out" if why == "planner failure" else f"I ran out of {why}"
        if not best:
            return Answer(
                success=True,
                text=f"{stopped} before finding an answer, and found no evidence.",
                confidence=0.0,
                trace={"forced": why},
            )
        lines = "; ".join(f"{f.text or f.kind} at t={f.stamp - state.t0:.0f} s ({f.ref})" for f in best)
        return Answer(
            success=True,
            text=f"{stopped} before finishing. The best evidence I found: {lines}.",
            confidence=round(min(0.3, best[0].score), 3),
            evidence=[evidence_item(f) for f in best],
            trace={"forced": why},
        )

    def _finish(self, state: AgentState, answer: Answer, planner: Planner) -> Answer:
        answer.trace = {
            **answer.trace,
            "planner": planner.name,
            "question": state.question,
            "as_of": state.as_of,
            "t0": state.t0,
            "turns": state.turns,
            "tokens": state.tokens,
            "repairs": state.repairs,
            "elapsed_s": round(state.elapsed(), 4),
            "ledger": [vars(t) for t in state.ledger],
            "steps": state.steps,
        }
        return answer


class StepError(VidmemError):
    """A planner step that does not validate; its message is shown to the planner for the repair."""


def distil(result: ToolResult, t0: float, limit: int = 6) -> list[str]:
    """A few short clue lines from a result (MemDreamer): what, when, where, which reference."""
    clues = []
    for f in result.findings[:limit]:
        where = f" at ({f.pose.x:.1f}, {f.pose.y:.1f})" if f.pose else ""
        span = f"{f.stamp - t0:.0f}-{f.end - t0:.0f} s" if f.end > f.stamp + 0.5 else f"{f.stamp - t0:.0f} s"
        detail = f.text or ", ".join(str(v) for k, v in f.data.items() if k in ("seen", "read", "heard"))
        clues.append(f"{f.ref} {span}{where}: {detail}"[:CLUE_CHARS])
    if result.error:
        clues.append(f"error: {result.error}"[:CLUE_CHARS])
    return clues


def evidence_item(f: Finding) -> EvidenceItem:
    kind = {"occasion": "detection", "weak": "detection", "super_event": "summary", "root": "summary"}.get(
        f.kind, f.kind
    )
    if f.kind == "moment":
        kind = "frame"
    text = f.text or ", ".join(str(x) for k in ("seen", "read", "heard") for x in f.data.get(k, []))
    return EvidenceItem(kind, f.ref, f.stamp, f.end, text[:300], f.score, f.pose)


def _near_duplicate(a: ToolCall, b: ToolCall) -> bool:
    """Same search with nearly the same words (Jaccard) and the same filters."""
    key = SEARCH_TOOLS.get(a.tool)
    if key is None:
        return False
    rest_a = a.args.model_dump(exclude={key})
    rest_b = b.args.model_dump(exclude={key})
    if rest_a != rest_b:
        return False
    words_a, words_b = _words(getattr(a.args, key)), _words(getattr(b.args, key))
    if not words_a or not words_b:
        return words_a == words_b
    return len(words_a & words_b) / len(words_a | words_b) >= DUPLICATE_JACCARD


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"\w+", text.lower())}


def _clip(item: dict[str, Any]) -> dict[str, Any]:
    return {k: (v[:CLUE_CHARS] if isinstance(v, str) else v) for k, v in item.items()}


def _brief(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'args'}: {e['msg']}" for e in exc.errors()[:4])


def _short(raw: Any) -> str:
    return json.dumps(raw, default=str)[:300]
