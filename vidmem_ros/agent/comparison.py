"""Questions that compare two things by how often or how long they were met: "which did you see more often, A or
B?", "was A or B in view longer?", "did you hear about A more times than about B?", "were there more As than Bs?",
"which room did you spend less time in, X or Y?"; and one thing's time in view against an amount of time: "was the
cup visible for over a minute?".

Read from the grammar of a comparison (a comparative of frequency or duration, and two things offered with "or"
or set against each other with "than"), not from sentence patterns; each side is then counted or timed the way
the same question about it alone would be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vidmem_ros.agent.question import (
    IN_SIGHT,
    Intent,
    Modality,
    clean_target,
    closing_occasion,
    last_sentence,
    modality_named,
)
from vidmem_ros.spoken_numbers import NUMBER_WORDS, TIMES_WORDS, parse_duration

# Comparatives of duration first: "for longer" is not "more often"; "more time" is a duration.
_LONGER = (
    r"(?:for )?(?:a )?(?:longer|the longest|longest)(?: time| period| stretch)?|(?:for )?(?:more|the most) time"
    r"|(?:for )?a greater (?:length of )?time"
)
_SHORTER = (
    r"(?:for )?(?:a )?(?:shorter|the shortest|shortest)(?: time| period| stretch)?|(?:for )?(?:less|the least) time"
    r"|more briefly|(?:the )?most briefly"
)
_MORE_OFTEN = (
    r"more (?:often|frequently|times|regularly|occasions)|(?:the )?most (?:often|frequently|times|regularly)"
    r"|on more occasions|a greater number of times|more(?! recently)|most(?! recently)"
)
_LESS_OFTEN = (
    r"less (?:often|frequently|regularly)|fewer times|(?:the )?(?:least|fewest) (?:often|frequently|times)"
    r"|on fewer occasions|less|least|fewer|fewest"
)
_COMPARATIVES = [
    (Intent.DURATION, True, _LONGER),
    (Intent.DURATION, False, _SHORTER),
    (Intent.COUNT, True, _MORE_OFTEN),
    (Intent.COUNT, False, _LESS_OFTEN),
]
# A place is compared by its visits: "which room did you visit more", "where did you spend more time".
_PLACE_WORDS = re.compile(
    r"\b(?:visit|visited|go to|went to|been to|been in|spend|spent|stay|stayed|stop|stopped|be in|were you in"
    r"|room|place|area|where)\b"
)
# How a side was met or where it was, said around its name: not part of it ("the cat in view", "seeing the dog").
_SIDE_EDGES = re.compile(
    r"^(?:(?:did|have|has|had|was|were|is|are) )?(?:you |the robot |it )?(?:(?:see|seen|saw|spot|spotted|notice"
    r"|noticed|hear|heard|read|meet|met|come across|came across|run into|ran into|observe|observed|visit|visited"
    r"|spend time (?:in|at|with)|go to|been to|been in|encounter|encountered)(?: about)? )?"
)
_SIDE_TAIL = re.compile(
    r"\s+(?:(?:in view|visible|on camera|in sight|around|present|there|seen|heard|read|spotted|noticed|mentioned"
    r"|about|up|come up|show up|showed up|appear|appeared)\b\s*)+$"
)


@dataclass(frozen=True)
class Comparison:
    measure: Intent  # COUNT or DURATION
    more: bool  # which was met more (often, or for longer); False: less
    target: str
    other: str
    modality: Modality
    yes_no: bool  # "did you see A more often than B?": whether the first side wins, not which does


def comparison_question(text: str) -> Comparison | None:
    """The question read as a comparison of two things by how often or how long they were met, or None."""
    sentence = last_sentence(text)
    if sentence.startswith("how "):  # "how many more times ...": a difference, not which
        return None
    for measure, more, words in _COMPARATIVES:
        comparative = re.compile(rf"\b(?:{words})\b")
        found = comparative.search(sentence)
        if found is None:
            continue
        sides = _than_sides(sentence, found) or _or_sides(sentence, comparative)
        if sides is None:
            return None
        (target, other), yes_no = (_as_written(text, sides[0][0]), _as_written(text, sides[0][1])), sides[1]
        modality = modality_named(sentence) or Modality.OBJECT
        if _PLACE_WORDS.search(sentence) and modality is Modality.OBJECT and not _SEEING.search(sentence):
            modality = Modality.PLACE
        return Comparison(measure, more, target, other, modality, yes_no)
    return None


_AMOUNT_OF_TIME = re.compile(r"(?:(?:an?|few|couple|of|several|half|\d+(?:\.\d+)?)\s+)+(?:seconds?|minutes?|hours?)\b")
_SEEING = re.compile(r"\b(?:see|seen|saw|spot|spotted|notice|noticed|in view|visible|on camera|sightings?)\b")
_ASKS_WHICH = re.compile(r"^(?:(?:so|and|tell me|say),? )?(?:which|what|who)\b")
_THERE_WERE = re.compile(r"^there(?: been)?$")  # "were there more As than Bs", past the verb


def _than_sides(sentence: str, comparative: re.Match[str]) -> tuple[tuple[str, str], bool] | None:
    """ "Did you see A more often than B?", "were there more As than Bs?": A against B, yes or no."""
    than = re.search(r"\bthan\b", sentence[comparative.end() :])
    if than is None:
        return None
    before = _SIDE_EDGES.sub("", sentence[: comparative.start()].strip()).strip()
    # "more As than Bs": the first side follows the comparative; else it comes before it.
    first = sentence[comparative.end() :][: than.start()] if not before or _THERE_WERE.match(before) else before
    second = sentence[comparative.end() + than.end() :].strip()
    if re.match(rf"(?:\d+|{'|'.join((*NUMBER_WORDS, *TIMES_WORDS))})\b", second) or _AMOUNT_OF_TIME.match(second):
        return None  # "more than three", "more than once", "under an hour": a count or time, not a thing
    a, b = _side(first), _side(re.sub(r"^(?:(?:you |it |the robot )?(?:did|were|was|had|have)\b\s*)", "", second))
    return ((a, b), not _ASKS_WHICH.match(sentence)) if a and b else None


def _or_sides(sentence: str, comparative: re.Pattern[str]) -> tuple[tuple[str, str], bool] | None:
    """ "Which did you see more often, A or B?", "was A or B in view longer?", "did you see more As or more Bs?":
    the clause offering two things, without the asking words and the comparative around them."""
    clauses = re.split(r"\s*[:;,]\s*|\s+-\s+", sentence)
    a, _, b = next((c for c in clauses if " or " in c), "").partition(" or ")
    if not b:
        return None
    if in_a := list(comparative.finditer(a)):  # "which did you see more often the A", "did you see more As"
        a = a[in_a[-1].end() :]
    if (in_b := comparative.search(b)) is not None:  # "more Bs", "the B in view longer"
        b = b[in_b.end() :] if in_b.start() == 0 else b[: in_b.start()]
    target, other = _side(a), _side(b)
    return ((target, other), False) if target and other and not _ASKS_WHICH.match(target) else None


def _side(words: str) -> str:
    side = _SIDE_TAIL.sub("", _SIDE_EDGES.sub("", words.strip()))
    side = re.sub(r"\s+(?:sightings?|occasions?|times?|visits?)$", "", side)  # "dog sightings"
    side = re.sub(r"^(?:(?:the )?(?:sightings?|occasions?|appearances?|visits?|mentions?) )?of ", "", side)
    return clean_target(side)


def _as_written(text: str, side: str) -> str:
    """A side as the question wrote it: words read are matched as written ("EXIT")."""
    at = text.lower().find(side)
    return text[at : at + len(side)] if at >= 0 else side


@dataclass(frozen=True)
class DurationCheck:
    target: str
    modality: Modality
    check: str  # gt, ge, lt, le (as ``question.times_hold`` reads them)
    seconds: float
    ordinal: int = 0  # "... on your first visit": that occasion alone (0: all of them)


# Being at a place: "did you stay at X", "were you in X", "did the robot wait by X".
_STAYED_AT = (
    r"(?:(?:did|have|had) (?:you|the robot|it) (?:stay|stayed|remain|remained|wait|waited|linger|lingered|stop"
    r"|stopped|park|parked|spend time|spent time|hang around|hung around|been)|(?:were|was) (?:you|the robot|it))"
    r" (?:at|in|inside|near|by|beside|next to)"
)
_CHECK_WORDS = {
    "over": "gt", "more than": "gt", "longer than": "gt", "at least": "ge", "no less than": "ge", "less than": "lt",
    "under": "lt", "shorter than": "lt", "at most": "le", "no more than": "le", "up to": "le",
}  # fmt: skip
_LASTING = re.compile(
    rf"^(?:{_STAYED_AT} (?P<p>.+?)|(?:was|were|is|are) (?P<a>.+?)|did (?P<e>.+?) (?:stay|remain|linger) {IN_SIGHT}|(?:did|have|has|had) (?:you|the robot|it) (?:\w+ )?(?:see|seen|watch"
    rf"|watched|observe|observed|look at|looked at|have|had) (?P<b>.+?)) for (?:a total of |in total )?"
    rf"(?P<c>{'|'.join(sorted(_CHECK_WORDS, key=len, reverse=True))}) (?P<d>[\w. -]+?)"
    r"(?: (?:in total|altogether|in all|overall|all told|all together))?$"
)


def duration_check(text: str) -> DurationCheck | None:
    """A yes/no question whether a thing was in view (or the robot at a place) for more or less than an amount of
    time, on every occasion or the one it names, or None."""
    sentence, ordinal = closing_occasion(last_sentence(text))
    match = _LASTING.match(sentence)
    if match is None or (seconds := parse_duration(match["d"])) is None:
        return None
    target = _side(_as_written(text, match["p"] or match["a"] or match["b"] or match["e"]))
    if not target:
        return None
    modality = Modality.PLACE if match["p"] else modality_named(sentence) or Modality.OBJECT
    return DurationCheck(target, modality, _CHECK_WORDS[match["c"]], seconds, ordinal)
