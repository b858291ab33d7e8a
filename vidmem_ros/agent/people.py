"""The ``people`` and ``person`` tools: who spoke, from the voices memory told apart (``memory.speakers``).

A person here is a voice: the transcripts that carry its speaker id, as of the question.  A name comes only from
what was heard (a self-introduction among its own sentences, visible as of the question); without one a person is
"the speaker I first heard at t (x, y)".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vidmem_ros.agent.tool_args import PeopleArgs, PersonArgs
from vidmem_ros.agent.tool_context import Finding, ToolContext, ToolError, ToolResult
from vidmem_ros.memory.records import Pose, Transcript
from vidmem_ros.memory.speakers import introduced_name

SAID_SHOWN = 3  # sentences quoted per person in the people tool's list


@dataclass(frozen=True)
class Person:
    id: int
    lines: tuple[Transcript, ...]  # oldest first
    name: str
    named_by: Transcript | None
    first_pose: Pose | None

    @property
    def first(self) -> float:
        return self.lines[0].start

    @property
    def last(self) -> float:
        return self.lines[-1].end

    def label(self, t0: float) -> str:
        if self.name:
            return self.name
        where = f" at ({self.first_pose.x:.1f}, {self.first_pose.y:.1f})" if self.first_pose is not None else ""
        return f"the speaker I first heard at t={self.first - t0:.0f} s{where}"


def people_heard(ctx: ToolContext, start_t: float | None = None, end_t: float | None = None) -> list[Person]:
    """Every voice heard in the window, as of the question, the first heard first."""
    lo, hi = ctx.window(start_t, end_t)
    by_voice: dict[int, list[Transcript]] = {}
    for line in ctx.store.transcripts(lo, hi, ctx.as_of):
        if line.speaker_id is not None:
            by_voice.setdefault(line.speaker_id, []).append(line)
    found = [_person(ctx, ref, lines) for ref, lines in by_voice.items()]
    return sorted(found, key=lambda p: p.first)


def _person(ctx: ToolContext, ref: int, lines: list[Transcript]) -> Person:
    named_by = next((line for line in lines if introduced_name(line.text)), None)
    name = introduced_name(named_by.text) if named_by is not None else ""
    return Person(ref, tuple(lines), name, named_by, ctx.reader.pose_at(lines[0].start, ctx.as_of))


def person_of(ctx: ToolContext, ref: str) -> Person:
    """The person ``speaker/N`` names, or the one who said ``transcript/N``; ToolError if none is known."""
    kind, number = ref.split("/")
    if kind == "transcript":
        said = [t for t in ctx.store.transcripts(-math.inf, math.inf, ctx.as_of) if t.id == int(number)]
        if not said:
            raise ToolError(f"{ref} is not in memory as of the question")
        if said[0].speaker_id is None:
            raise ToolError(f"I cannot tell who said {ref}: its voice was not recognised")
        number = str(said[0].speaker_id)
    # All of memory: a window would cut a person's first sentence and with it the name and the first time.
    lines = [t for t in ctx.store.transcripts(-math.inf, math.inf, ctx.as_of) if t.speaker_id == int(number)]
    if not lines:
        raise ToolError(f"speaker/{number} was not heard as of the question")
    return _person(ctx, int(number), lines)


def person_finding(ctx: ToolContext, person: Person, said: int = SAID_SHOWN) -> Finding:
    quoted = [f'"{line.text}"' for line in person.lines[:said]]
    more = f" and {len(person.lines) - said} more" if len(person.lines) > said else ""
    label = person.label(ctx.t0)
    data = {
        "person": label,
        "sentences": len(person.lines),
        "said": "; ".join(quoted) + more,
        "places": _places(ctx, person),
        **({"named_by": f"transcript/{person.named_by.id}"} if person.named_by is not None else {}),
        "first_ref": f"transcript/{person.lines[0].id}",
    }
    return Finding(f"speaker/{person.id}", "person", person.first, person.last, label, 1.0,
                   person.first_pose, data)  # fmt: skip


def _places(ctx: ToolContext, person: Person) -> list[list[float]]:
    """Where the robot was when it heard the person, each spot once (to a metre)."""
    spots: dict[tuple[int, int], list[float]] = {}
    for line in person.lines:
        pose = ctx.reader.pose_at(line.start, ctx.as_of)
        if pose is not None:
            spots.setdefault((round(pose.x), round(pose.y)), [round(pose.x, 1), round(pose.y, 1)])
    return list(spots.values())[:5]


def people(ctx: ToolContext, args: PeopleArgs) -> ToolResult:
    found = people_heard(ctx, args.start_t, args.end_t)
    findings = [person_finding(ctx, p) for p in found[: args.limit]]
    note = f"{len(found)} different people heard" if found else "no voice was told apart in that time"
    return ToolResult("people", findings, note)


def person(ctx: ToolContext, args: PersonArgs) -> ToolResult:
    """One person: who they are, then each sentence they said, oldest first."""
    chosen = person_of(ctx, args.ref)
    lines = [
        Finding(f"transcript/{t.id}", "transcript", t.start, t.end, t.text, 1.0, ctx.reader.pose_at(t.start, ctx.as_of),
                {"speaker": f"speaker/{chosen.id}"})
        for t in chosen.lines[: args.limit]
    ]  # fmt: skip
    return ToolResult("person", [person_finding(ctx, chosen), *lines])
