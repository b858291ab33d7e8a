"""The ``people`` and ``person`` tools: who spoke, from the voices memory told apart (``memory.speakers``).

A person here is a voice: the transcripts that carry its speaker id, as of the question.  A name comes only from
what was heard (a self-introduction among its own sentences, visible as of the question); without one a person is
"the speaker I first heard at t (x, y)".
"""

from __future__ import annotations

import math

from vidmem_ros.agent.tool_args import PeopleArgs, PersonArgs
from vidmem_ros.agent.tool_context import Finding, ToolContext, ToolError, ToolResult
from vidmem_ros.memory.people import SAID_SHOWN, Person, people_heard, person_heard

__all__ = ["Person", "people", "person", "person_finding", "person_of"]


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
    found = person_heard(ctx.reader, int(number), ctx.as_of)
    if found is None:
        raise ToolError(f"speaker/{number} was not heard as of the question")
    return found


def person_finding(ctx: ToolContext, person: Person, said: int = SAID_SHOWN) -> Finding:
    quoted = [f'"{line.text}"' for line in person.lines[:said]]
    more = f" and {len(person.lines) - said} more" if len(person.lines) > said else ""
    label = person.label(ctx.t0)
    data = {
        "person": label,
        "sentences": len(person.lines),
        "said": "; ".join(quoted) + more,
        "places": [list(spot) for spot in person.places()],
        **({"named_by": f"transcript/{person.named_by.id}"} if person.named_by is not None else {}),
        "first_ref": f"transcript/{person.lines[0].id}",
    }
    return Finding(f"speaker/{person.id}", "person", person.first, person.last, label, 1.0,
                   person.first_pose, data)  # fmt: skip


def people(ctx: ToolContext, args: PeopleArgs) -> ToolResult:
    found = people_heard(ctx.reader, *ctx.window(args.start_t, args.end_t), ctx.as_of)
    findings = [person_finding(ctx, p) for p in found[: args.limit]]
    note = f"{len(found)} different people heard" if found else "no voice was told apart in that time"
    return ToolResult("people", findings, note)


def person(ctx: ToolContext, args: PersonArgs) -> ToolResult:
    """One person: who they are, then each sentence they said, oldest first."""
    chosen = person_of(ctx, args.ref)
    lines = [
        Finding(f"transcript/{t.id}", "transcript", t.start, t.end, t.text, 1.0, pose, {"speaker": chosen.ref})
        for t, pose in list(zip(chosen.lines, chosen.poses, strict=True))[: args.limit]
    ]
    return ToolResult("person", [person_finding(ctx, chosen), *lines])
