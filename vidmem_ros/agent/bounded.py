"""Counts bounded by another thing met: "how many announcements did you hear before the kite showed up?", "how
many people did you see after you heard about the picnic?", "how many signs had you read by the time you reached
the kiosk?".

Read from the grammar of such a bound (a word of time order, then a clause naming a thing met), not from sentence
patterns; the thing keeps how the question says it was met.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vidmem_ros.agent.asked import interrogative
from vidmem_ros.agent.interval import side_named
from vidmem_ros.agent.question import BOUND_WORDS, CLOCK, Modality, clean_target, without_arrival

_BOUND = re.compile(rf"\b(?P<r>{BOUND_WORDS}) (?P<a>(?!now\b|then\b|today\b).+)$")
# A time of day or a part of the run, not a thing met.
_A_TIME = re.compile(
    rf"{CLOCK.pattern}|^(?:(?:this|the) (?:morning|afternoon|evening|night)|(?:the )?(?:last|past|first) \w+"
    r" (?:seconds?|minutes?|hours?))\b"
)
_ENDS = ("before", "prior to", "until", "till", "up until", "by the time")


@dataclass(frozen=True)
class Bound:
    before: bool  # the count ends at the thing's first occasion (else it starts there)
    anchor: str  # the thing met
    anchor_met: Modality | None  # how it was met, where the question says
    clause: str  # the bounding words, as the question put them (to take off the thing counted)


def occasion_bound(text: str) -> Bound | None:
    """The thing whose first occasion bounds a count, or None where no thing met bounds it."""
    clause = interrogative(text)
    found = _BOUND.search(clause)
    if found is None:
        return None
    words = re.sub(r"^(?:you|the robot|it) (?=first |\w+ed\b|saw|heard|read|got|came|went|met|found)", "", found["a"])
    name, met = side_named(without_arrival(words))
    if not name or re.match(r"(?:you|the robot|it|we|i)\b", name) or _A_TIME.search(name):
        return None  # "after you left": the robot's own doing; "since 9 am", "before noon": a time, no thing met
    return Bound(found["r"] in _ENDS, clean_target(name), met, found.group(0))
