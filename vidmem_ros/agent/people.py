"""The ``people`` and ``person`` tools: who was met, from the voices and faces memory told apart and linked
(``memory.people``).

A person is a linked voice and face, a lone voice or a lone face, as of the question.  A name comes only from
evidence visible as of the question: a self-introduction among their own sentences, or a name (by the dictionary's
test) read on a badge or plate just below their face; without one a person is "the person I first saw (or heard)
at t (x, y)".
"""

from __future__ import annotations

import math

from vidmem_ros.agent.tool_args import PeopleArgs, PersonArgs
from vidmem_ros.agent.tool_context import Finding, ToolContext, ToolError, ToolResult
from vidmem_ros.agent.tools import name_test
from vidmem_ros.memory.people import SAID_SHOWN, Person, people_met, person_called

__all__ = ["Person", "people", "person", "person_finding", "person_of"]


def person_of(ctx: ToolContext, ref: str) -> Person:
    """The person ``speaker/N`` or ``face/N`` names, or the one who said ``transcript/N``; ToolError if none is
    known."""
    kind, number = ref.split("/")
    if kind == "transcript":
        said = [t for t in ctx.store.transcripts(-math.inf, math.inf, ctx.as_of) if t.id == int(number)]
        if not said:
            raise ToolError(f"{ref} is not in memory as of the question")
        if said[0].speaker_id is None:
            raise ToolError(f"I cannot tell who said {ref}: its voice was not recognised")
        kind, number = "speaker", str(said[0].speaker_id)
    found = person_called(ctx.reader, f"{kind}/{number}", ctx.as_of, name_test(ctx))
    if found is None:
        raise ToolError(f"{kind}/{number} was neither heard nor seen as of the question")
    return found


def person_finding(ctx: ToolContext, person: Person, said: int = SAID_SHOWN) -> Finding:
    quoted = [f'"{line.text}"' for line in person.lines[:said]]
    more = f" and {len(person.lines) - said} more" if len(person.lines) > said else ""
    label = person.label(ctx.t0)
    first_ref = f"transcript/{person.lines[0].id}" if person.lines else f"moment/{person.seen[0].moment_id}"
    data = {
        "person": label,
        "refs": person.refs,
        "sentences": len(person.lines),
        "said": "; ".join(quoted) + more,
        "places": [list(spot) for spot in person.places()],
        "first_ref": first_ref,
    }
    if person.named_by is not None:
        data["named_by"] = f"transcript/{person.named_by.id}"
    elif person.badge is not None:
        data["named_by"] = f"text/{person.badge.id}"
    if person.seen:
        data |= {
            "frames_seen": len(person.seen),
            "first_seen_t": round(person.seen[0].stamp - ctx.t0, 1),
            "last_seen_t": round(person.seen[-1].stamp - ctx.t0, 1),
            "first_seen_ref": f"moment/{person.seen[0].moment_id}",
            "last_seen_ref": f"moment/{person.seen[-1].moment_id}",
            "seen_places": [list(spot) for spot in person.seen_places()],
        }
    if person.speaker_id is not None and person.face_id is not None:
        data["link_confidence"] = person.link
    return Finding(person.ref, "person", person.first, person.last, label, 1.0, person.first_pose, data)


def people(ctx: ToolContext, args: PeopleArgs) -> ToolResult:
    found = people_met(ctx.reader, *ctx.window(args.start_t, args.end_t), ctx.as_of, name_test(ctx))
    if args.how == "heard":
        found = [p for p in found if p.lines]
    elif args.how == "seen":
        found = [p for p in found if p.seen]
    findings = [person_finding(ctx, p) for p in found[: args.limit]]
    verb = {"met": "met", "heard": "heard", "seen": "seen"}[args.how]
    note = f"{len(found)} different people {verb}" if found else f"nobody {verb} was told apart in that time"
    return ToolResult("people", findings, note)


def person(ctx: ToolContext, args: PersonArgs) -> ToolResult:
    """One person: who they are, then each sentence they said, oldest first, then each frame they were seen in."""
    chosen = person_of(ctx, args.ref)
    lines = [
        Finding(f"transcript/{t.id}", "transcript", t.start, t.end, t.text, 1.0, pose, {"speaker": chosen.ref})
        for t, pose in list(zip(chosen.lines, chosen.poses, strict=True))[: args.limit]
    ]
    label = f"{chosen.label(ctx.t0)} seen"
    seen = [
        Finding(f"moment/{s.moment_id}", "face", s.stamp, s.stamp, label, 1.0, s.pose, {"face": f"face/{s.face_id}"})
        for s in chosen.seen[: args.limit]
    ]
    return ToolResult("person", [person_finding(ctx, chosen), *lines, *seen])
