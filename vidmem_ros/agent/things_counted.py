"""How many things of a kind there were, as against how often they were met.

"How many chairs were in the refectory?" and "how many dogs did you see?" ask for a number of things; "how many
times did you see a dog?" asks for occasions.  A camera cannot tell one dog from another across a patrol, so the
number of things is estimated from what was in view together: at one place, the most of the kind detected in one
frame; over the patrol, that figure summed over the places stayed at (things of different places are taken to be
different things, as furniture, parked vehicles and stock are).  The ``count_things`` tool gives the figure per
place; the planner adds them up and says how it counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from vidmem_ros.agent.asked import interrogative
from vidmem_ros.agent.grounding import source_named
from vidmem_ros.agent.question import without_window
from vidmem_ros.agent.tool_args import CountThingsArgs
from vidmem_ros.agent.tool_context import Finding, ToolContext, ToolResult
from vidmem_ros.agent.tools import NO_PLACE, labels_for, place_claimed, place_finding
from vidmem_ros.memory import places as stays

# Why nothing was counted where the count is not known to be none: the thing (or, ``NO_PLACE``, the place) could not
# be told.
NO_LABEL = "my detector has no label for"


@dataclass(frozen=True)
class ThingsCounted:
    thing: str
    place: str  # where they were, as the question says it ("the refectory"); "" for anywhere
    on_thing: bool = False  # ... said of a thing they were on or by ("on the counter"), seen in one view, not a stay


# Where things stood, said after them ("in the refectory", "on the bench by the door").
_AT = r"(?:in|at|on|inside|by|near|around|outside|under|beside|next to|within|along)"
# A state things were found in ("lying", "parked"), said between "were" and where.
_STATE = (
    r"(?:lying|standing|sitting|parked|waiting|left|kept|placed|stacked|hanging|leaning|visible|present|in view"
    r"|to be seen|around|about)"
)
# Counted things are not occasions, stays or what was read or heard: those are counted elsewhere.
_NOT_THINGS = (
    r"(?:more |other |separate |different |distinct |individual )*(?:times?|occasions?|visits?|stops?|places?"
    r"|rooms?|locations?|spots?|signs?|notices?|labels?|posters?|messages?|announcements?|calls?|words|seconds"
    r"|minutes|hours)\b"
)
# A word of a thing's name: no verb or pronoun ("how many vans did the driver say were coming" counts no vans seen).
_WORD = (
    r"(?!(?:did|does|do|have|has|had|were|was|are|is|will|would|could|can|should|must|may|might|you|it|they|he|she"
    r"|we|i)\b)[a-z][a-z'-]*"
)
_COUNTED = re.compile(
    rf"^how many (?!{_NOT_THINGS})(?P<t>{_WORD}(?: {_WORD}){{0,4}}?)"
    rf"(?: (?:were|was|are|is)(?: there)?(?: {_STATE}| [a-z]{{2,}}ing\b(?: [a-z' -]+?)??)?"
    r"| (?:did|have|had|could|can) (?:you|the robot|it) (?:see|seen|spot|spotted|notice|noticed|count|counted"
    r"|make out|find|found|come across|came across))"
    rf"(?: (?P<p>(?:{_AT}|during) .+?))?$"
)


def things_counted(question: str) -> ThingsCounted | None:
    """The question read as a count of things of a kind (and where they were), or None."""
    clause = interrogative(question)  # plain: without remarks such as "all told"
    found = _COUNTED.match(clause)
    if found is None or _ON_THE_WAY.match(found["p"] or "") or source_named(clause):
        return None  # "on their way", "the clerk said", "on the notice": a number said or read, not things seen
    said = without_window(found["p"] or "")  # "in the first hour", "during the patrol": when, not where
    said = "" if said.startswith("during ") else said
    together = _TOGETHER.search(said)  # "at once", "at the same time": the most in one view
    if together is not None:
        said = said[: together.start()].strip()
        if not said:  # ... wherever it was
            return ThingsCounted(found["t"].strip(), "", on_thing=True)
    place = re.sub(rf"^{_AT} (?:the |a |an |your |this |that )?", "", said).strip()
    return ThingsCounted(found["t"].strip(), place, bool(place) and not re.match(_IN, said))


_TOGETHER = re.compile(r"(?:^|\s)(?:at once|at (?:one|the same) time|in (?:one|a single) (?:view|frame|go|shot))$")


# "on their way", "on the way": coming, not somewhere.
_ON_THE_WAY = re.compile(r"(?:on|in) (?:their|its|his|her|the|our|my|your) way\b")


# Prepositions that put things in a place the robot stays at ("in the refectory", "at the gate"); the others put them
# on or by a thing ("on the counter", "next to the till").
_IN = r"(?:in|at|inside|outside|within)\b"


def count_things(ctx: ToolContext, args: CountThingsArgs) -> ToolResult:
    """For each place stayed at (or the one ``at`` names), the most things of the kind detected in one frame."""
    labels = labels_for(ctx, args.about)
    if not labels:
        return ToolResult("count_things", note=f"{NO_LABEL} {args.about!r}")
    lo, hi = ctx.window(args.start_t, args.end_t)
    listed = stays.places(ctx.visits(lo, hi))
    if not listed and not args.at.strip():  # no path to tell places by: the most in one frame anywhere
        return ToolResult("count_things", _most_in_a_frame(ctx, labels, lo, hi))
    if args.at.strip():
        place = place_claimed(ctx, args.at)
        if place is None:
            return ToolResult("count_things", note=f"{NO_PLACE} {args.at!r}")
        listed = [place]
    findings = []
    for place in listed:
        # Each kind's most in one frame, over the kinds asked about ("animals": the dogs and the cats).
        most = sum(max((v.at_once[label] for v in place.visits), default=0) for label in labels)
        if most:
            finding = place_finding(ctx, place, 1.0)
            findings.append(replace(finding, data={**finding.data, "count": most}))
    there = " there" if args.at.strip() else ""
    return ToolResult("count_things", findings, "" if findings else f"no {args.about} detected{there}")


def _most_in_a_frame(ctx: ToolContext, labels: list[str], lo: float, hi: float) -> list[Finding]:
    best, most = None, 0
    for moment in ctx.store.moments(lo, hi, ctx.as_of, limit=5000, with_tags=False):
        count = sum(1 for d in moment.detections if d.label in labels and d.score >= ctx.min_score)
        if count > most:
            best, most = moment, count
    if best is None:
        return []
    return [Finding(f"moment/{best.id}", "moment", best.stamp, best.stamp, "", 1.0, best.pose, {"count": most})]
