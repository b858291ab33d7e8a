"""The steps a scripted planner yields: tool calls, and the final answer, each fitted to its tool's schema."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from vidmem_ros.agent.fitting import fit_to_schema
from vidmem_ros.agent.harness import AgentState, Observation
from vidmem_ros.agent.tool_args import AnswerArgs
from vidmem_ros.agent.tool_registry import ANSWER_TOOL, TOOLS
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.runs import describe_time

# The confidence of "I have not seen it": memory was searched and holds nothing of the kind.
NOT_SEEN_CONFIDENCE = 0.3
Step = list[dict[str, Any]]
Script = Generator[Step, list[Observation], None]


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": fit_to_schema(TOOLS[tool].args, args)}


def answer(
    text: str,
    confidence: float,
    evidence: list[str] | None = None,
    time_ref: str | None = None,
    place_ref: str | None = None,
    value: bool | float | str | None = None,
) -> Step:
    args: dict[str, Any] = {"text": text, "confidence": round(min(1.0, max(0.0, confidence)), 3)}
    args.update(evidence=evidence or [], time_ref=time_ref, place_ref=place_ref, value=value)
    return [{"tool": ANSWER_TOOL, "args": fit_to_schema(AnswerArgs, args, prose=frozenset({"text"}))}]


def when_said(state: AgentState, stamp: float, clock: bool = True) -> str:
    """A moment as answers give it: the clock (and run, where memory holds several) and whole seconds into memory
    (a tenth of a second is no use to anyone, and its digits read as a number the answer does not give).  Without
    ``clock`` for an answer that gives a number: the clock's hours, minutes and seconds would read as others."""
    into = f"{stamp - state.t0:.0f} s after my memory begins"
    return f"at {describe_time(state.runs, stamp)} ({into})" if clock else into


def xy_said(pose: Pose) -> str:
    """A position as answers give it: "x=1.2 m, y=-3.4 m"."""
    return f"x={pose.x:.1f} m, y={pose.y:.1f} m"
