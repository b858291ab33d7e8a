"""Questions about the time between two things met: "how long was it between seeing A and hearing about B?", "how
much time passed between A and B?", "between A and B, how many seconds went by?", "what was the gap between A and
B?", "how long after A did you see B?".

Read from the grammar of an interval (a measure of time, and two things joined by "between ... and" or set apart
by "after"), not from sentence patterns; each side keeps how the question says it was met ("seeing", "hearing
about", "reading").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vidmem_ros.agent.question import Modality, clean_target, last_sentence, modality_named

_MEASURE = (
    r"(?:how (?:long|much time|many (?:seconds|minutes|hours))|what (?:was|is) the (?:time|gap|interval|delay"
    r"|time gap|time difference|difference in time|amount of time|length of time|time span|span of time))"
)
_PASSED = (
    r"(?: (?:was it|was there|is there|is it|passed|elapsed|went by|had passed|has passed|had gone by|lay|came|were"
    r" there))?"
)
_BETWEEN = re.compile(rf"^{_MEASURE}{_PASSED} between (?P<a>.+?) and (?P<b>.+)$")
_FRONTED = re.compile(rf"^between (?P<a>.+?) and (?P<b>[^,:;]+)[,:;] {_MEASURE}\b.*$")
_SEPARATED = re.compile(
    rf"^{_MEASURE} (?:separated|lay between|passed between|went by between) (?P<a>.+?) and (?P<b>.+)$"
)
# "how long after seeing A did you hear B": B's moment counted from A's.
_AFTER = re.compile(
    rf"^{_MEASURE} after (?P<a>.+?) (?:did|was|were|had|has) (?P<b>.+?)"
    r"(?: (?:come|come up|happen|appear|show up|turn up|get mentioned|get seen))?$"
)
# How a side was met, said before its name: the verb (gerund, past, or after a subject) and its particle.
_MET = re.compile(
    r"^(?:(?:you|the robot|it|i) )?(?:first |last )?(?:(?:see|seeing|saw|seen|spot|spotting|spotted|notice|noticing"
    r"|noticed|hear|hearing|heard|read|reading|pass|passing|passed|meet|meeting|met)(?: about| of)?|the moment"
    r"(?: you| i)? (?:saw|heard|read))\s+"
)
_TAIL = re.compile(r"\s+(?:was|were|got)?\s*(?:seen|heard|read|mentioned|said|announced|spotted|noticed)$")


@dataclass(frozen=True)
class Interval:
    first: str  # the thing named first
    second: str
    first_met: Modality | None  # how the question says each was met (None: it does not say)
    second_met: Modality | None
    after: bool  # "how long after A did B": B's moment less A's, not the distance between them


def interval_question(text: str) -> Interval | None:
    """The question read as one about the time between two things met, or None."""
    sentence = last_sentence(text)
    for pattern in (_BETWEEN, _FRONTED, _SEPARATED, _AFTER):
        match = pattern.match(sentence)
        if match is None:
            continue
        a, b = match["a"], match["b"]
        if pattern is _AFTER:
            b = re.sub(r"^(?:you|the robot|it) ", "", b)
        (first, first_met), (second, second_met) = _side(a), _side(b)
        if not first or not second or _NO_THING.match(first) or _NO_THING.match(second):
            return None  # "between the first and the last time you saw X": one thing's span, not two things
        return Interval(first, second, first_met, second_met, pattern is _AFTER)
    return None


# A side that names no thing of its own.
_NO_THING = re.compile(
    r"^(?:the|a|an|first|last|second|(?:first|last|next) time\b.*|time\b.*|it|that|this"
    r"|(?:start|beginning|outset|end)(?: of .*)?|(?:you|it|the robot) (?:started|began|set off|set out).*)$"
)  # "how long after the start did you ...": a moment counted from the start, asked by the rules as "when"
# What was heard, named by its kind after its topic ("the delivery message").
_MESSAGE_NOUN = re.compile(r"\s+(?:message|announcement|news|call|remark)s?$")


def _side(words: str) -> tuple[str, Modality | None]:
    """A side's name and how it was met: by its verb, or (a topic and "message") heard."""
    name = clean_target(_TAIL.sub("", _MET.sub("", words.strip())))
    met = modality_named(words)
    if _MESSAGE_NOUN.search(name):
        name, met = _MESSAGE_NOUN.sub("", name), met or Modality.SPEECH
    return name, met
