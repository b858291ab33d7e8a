"""Questions about the time between two things met: "how long was it between seeing A and hearing about B?", "how
much time passed between A and B?", "between A and B, how many seconds went by?", "what was the gap between A and
B?", "how long after A did you see B?", "how long before A did you hear B?"; and the delay from the start of memory
to a thing met: "how long did it take to find A?", "how long were you on the move before A came into view?".

Read from the grammar of an interval (a measure of time, and two things joined by "between ... and" or set apart
by "after"), not from sentence patterns; each side keeps how the question says it was met ("seeing", "hearing
about", "reading").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vidmem_ros.agent.question import MESSAGE_NOUN, Modality, clean_target, last_sentence, modality_named

_MEASURE = (
    r"(?:how (?:long|much time|many (?:seconds|minutes|hours))"
    r"|what (?:was|is) the (?:total |whole )?(?:time |elapsed )?"
    r"(?:time|gap|interval|delay|lag|difference|separation|span|amount of time|length of time|stretch)"
    r"(?: in time| of time| in seconds| in minutes)?)"
)
_PASSED = (
    r"(?: (?:was it|was there|is there|is it|passed|elapsed|went by|had passed|has passed|had gone by|lay|came|were"
    r" there|(?:was|is) the (?:gap|time|interval|delay|pause|break|stretch)))?"
)
_BETWEEN = re.compile(rf"^{_MEASURE}{_PASSED} (?:between (?P<a>.+?) and|from (?P<a2>.+?) (?:to|until|till)) (?P<b>.+)$")
_FRONTED = re.compile(rf"^between (?P<a>.+?) and (?P<b>[^,:;]+)[,:;] {_MEASURE}\b.*$")
_SEPARATED = re.compile(
    rf"^{_MEASURE} (?:separated|lay between|passed between|went by between) (?P<a>.+?) and (?P<b>.+)$"
)
# "how long after seeing A did you hear B": B's moment counted from A's.
_AFTER = re.compile(
    rf"^{_MEASURE} after (?P<a>.+?) (?:did|was|were|had|has) (?P<b>.+?)"
    r"(?: (?:come|come up|happen|appear|show up|turn up|get mentioned|get seen))?$"
)
# "how long before seeing A did you hear B": A's moment less B's.
_BEFORE = re.compile(
    rf"^{_MEASURE} before (?P<a>.+?) (?:did|was|were|had|has) (?P<b>(?:you|the robot|it|someone|anyone|somebody) .+?)$"
)
# The robot being at its work, said of the time up to a moment ("on the move", "patrolling", "out and about").
_AT_WORK = (
    r"(?:\w+ing(?: around| about)?|on (?:the move|duty|patrol|the go|the road|(?:your|its|the) \w+)|out(?: and about)?"
    r"|about|around|under ?way|active|up and running)"
)
# The delay from the start to a moment: "how long did it take (you) to ...", "how much time passed before ...",
# "how long had you been patrolling when ...", "after how many minutes did you first ...".
_DELAY = re.compile(
    rf"^{_MEASURE}(?: (?:did it take(?: (?:you|the robot|it))?|did (?:you|the robot|it) take)"
    rf" (?:to|until|till|before)|(?: (?:was it|has it been"
    rf"|had it been|passed|elapsed|went by|had passed|had elapsed|had gone by|did you need|did (?:you|the robot|it)"
    rf" (?:wait|go|drive|travel)|(?:had|have) (?:you|the robot|it) been {_AT_WORK}|(?:were|was) (?:you|the robot"
    rf"|it) {_AT_WORK}))? (?:until|till|before|when))"
    r" (?P<b>(?!.* (?:did|do|were|was|had|has) (?:you|the robot|it)\b)(?!(?:(?:you|the robot|it) )?(?:came|come|got|get"
    r"|went|go|headed|head) back\b|(?:(?:you|the robot|it) )?return(?:ed)?\b).+)$"
)
# "how long did it take to get from A to B": the time from the one to the other.
_TRAVEL = re.compile(
    r"^(?:get|go|travel|drive|walk|move|come|make it|head|return|get back|go back|come back) from (?P<a>.+?)"
    r"(?: back)? (?:to|until|till|into|as far as) (?P<b>.+)$"
)
# A journey named by its noun: "how long was the drive from A to B", "what was the travel time from A to B".
_JOURNEY = re.compile(
    rf"^(?:{_MEASURE}(?: (?:was|is|did|does))?(?: the| your| its)? (?:trip|drive|journey|ride|walk|transit"
    r"|transfer|crossing|way|passage)|what (?:was|is) the (?:travel|transit|driving|walking|journey) time"
    r"(?: in seconds)?)(?: take)?(?: back)? from (?P<a>.+?)(?: back)? (?:to|until|till|into|as far as) (?P<b>.+?)"
    r"(?: take)?$"
)
_DELAY_FRONTED = re.compile(
    r"^after how (?:long|much time|many (?:seconds|minutes|hours))(?: of \w+)? (?:did|had|were|was) (?:you|the robot"
    r"|it) (?P<b>.+)$"
)
# How a side was met, said before its name: the verb (gerund, past, or after a subject) and its particle.
_MET = re.compile(
    r"^(?:(?:you|the robot|it|i|someone|somebody|anyone|anybody) )?(?:first |last )?(?:(?:see|seeing|saw|seen|spot"
    r"|spotting|spotted|notice|noticing|mention|mentioned|mentioning|say|said|talk about|talked about"
    r"|noticed|hear|hearing|heard|read|reading|pass|passing|passed|meet|meeting|met|find|finding|found|reach|reaching"
    r"|reached|encounter|encountering|encountered|come across|came across|bring up|brought up|bringing up|raise"
    r"|raised|announce|announced|discuss|discussed)(?: about| of)?|the moment"
    r"(?: you| i)? (?:saw|heard|read))\s+"
)
_TAIL = re.compile(
    r"\s+(?:(?:was|were|got)\s+)?(?:seen|heard|read|mentioned|said|announced|spotted|noticed|came into view"
    r"|came up|appeared|showed up|turned up|was in view|brought up|raised|discussed|talked about)$"
)


# The gap between two occasions of one thing: "the gap between the two cat sightings", "how long between the first
# and second time you saw the van".
_TWICE = re.compile(
    rf"^{_MEASURE}{_PASSED} between (?:the |your |its )?(?:two|first and (?:the )?second|1st and 2nd) "
    r"(?:(?P<x>.+?) (?P<k>sightings|occasions|appearances|encounters|readings|mentions)|(?P<k2>sightings|occasions"
    r"|appearances|encounters|readings|mentions) of (?P<z>.+)|times? (?:that )?(?:you |the robot |it )?(?P<y>.+))$"
)
# How the occasions a gap is asked between were met, by their noun.
_MET_BY_OCCASION = {"mentions": Modality.SPEECH, "readings": Modality.TEXT, "sightings": Modality.OBJECT}


@dataclass(frozen=True)
class Interval:
    first: str  # the thing named first
    second: str
    first_met: Modality | None  # how the question says each was met (None: it does not say)
    second_met: Modality | None
    after: bool  # "how long after A did B": B's moment less A's, not the distance between them
    from_start: bool = False  # "how long did it take to find B": B's first moment less the start of memory
    repeat: bool = False  # "the gap between the two B sightings": from the end of B's first occasion to its second
    # Where a side is a place and the question says which edge of a stay it means ("leaving A", "reaching B"):
    # LEFT is the end of a visit, REACHED its start; "" a thing met, or a place's first moment.
    first_edge: str = ""
    second_edge: str = ""


LEFT, REACHED = "left", "reached"  # each edge named by the verb an answer gives it with
# Leaving or reaching a place, said before its name.
_EDGE_VERB = (
    (
        LEFT,
        re.compile(
            r"^(?:(?:you|the robot|it) )?(?:leaving|left|leave|exiting|exited|exit|departing|departed"
            r"|depart(?:ing|ed)? from|getting out of|got out of|moving off from|moved off from"
            r"|finish(?:ed|ing)? (?:at|in|with)|(?:being|were|was) done (?:at|in|with))\s+"
        ),
    ),
    (
        REACHED,
        re.compile(
            r"^(?:(?:you|the robot|it) )?(?:arriving (?:at|in)|arrived (?:at|in)|arrive (?:at|in)"
            r"|reaching|reached|reach|getting to|got to|get to|entering|entered|enter|coming to"
            r"|came to|come to|pulling into|pulled into|making it to|made it to)\s+"
        ),
    ),
)


def _edged(words: str) -> tuple[str, str]:
    """A side's words less a verb of leaving or reaching a place, and which edge of the stay that verb names."""
    for edge, verb in _EDGE_VERB:
        bare = verb.sub("", words.strip())
        if bare != words.strip():
            return edge, bare
    return "", words


def interval_question(text: str) -> Interval | None:
    """The question read as one about the time between two things met, or None."""
    sentence = last_sentence(text)
    twice = _TWICE.match(sentence)
    if twice is not None:
        name, met = side_named(twice["x"] or twice["y"] or twice["z"])
        met = met or _MET_BY_OCCASION.get(twice["k"] or twice["k2"] or "")  # "the two mentions of X": X was heard
        return Interval(name, name, met, met, True, repeat=True) if name else None
    delay = _DELAY.match(sentence) or _DELAY_FRONTED.match(sentence)
    journey = _JOURNEY.match(sentence) or (_TRAVEL.match(delay["b"]) if delay is not None else None)
    if journey is not None:  # from leaving one place to reaching the other
        (first, first_met), (second, second_met) = side_named(journey["a"]), side_named(journey["b"])
        return (
            Interval(first, second, first_met, second_met, True, first_edge=LEFT, second_edge=REACHED)
            if first and second
            else None
        )
    if delay is not None and not _BEFORE.match(sentence):
        edge, words = _edged(re.sub(r"^(?:you|the robot|it) ", "", delay["b"]))
        second, second_met = side_named(words)
        second = _FIRST.sub("", second)
        return Interval("", second, None, second_met, True, from_start=True, second_edge=edge) if second else None
    for pattern in (_BETWEEN, _FRONTED, _SEPARATED, _AFTER, _BEFORE):
        match = pattern.match(sentence)
        if match is None:
            continue
        directed = bool(match.groupdict().get("a2"))  # "from A to B": B's moment less A's
        a, b = match["a"] or match.groupdict().get("a2") or "", match["b"]
        if pattern in (_AFTER, _BEFORE):
            b = re.sub(r"^(?:you|the robot|it) ", "", b)
        (first_edge, a), (second_edge, b) = _edged(a), _edged(b)
        (first, first_met), (second, second_met) = side_named(a), side_named(b)
        if (directed or pattern is _AFTER) and (_START.match(first) or _STARTING.match(first)):
            # "from the start to B", "how long after setting off did you see B": the delay to B's first occasion
            # "first" goes before the name is read: "the first announcement" is any announcement
            second, second_met = side_named(_FIRST.sub("", b.strip()))
            return Interval("", second, None, second_met, True, from_start=True) if second else None
        if not first or not second or _NO_THING.match(first) or _NO_THING.match(second):
            return None  # "between the first and the last time you saw X": one thing's span, not two things
        if pattern is _BEFORE:  # B came first: the time from it to A
            return Interval(second, first, second_met, first_met, True, first_edge=second_edge, second_edge=first_edge)
        after = pattern is _AFTER or directed
        return Interval(first, second, first_met, second_met, after, first_edge=first_edge, second_edge=second_edge)
    return None


# "The first X": the delay to a thing is to its first occasion anyway.
_FIRST = re.compile(r"^(?:the )?(?:very )?first ")
# The start of memory as one side ("from the start", "from when you set off").
_START = re.compile(
    r"^(?:the )?(?:very )?(?:start|beginning|outset)(?: of .*)?$|^(?:when )?(?:you|the robot|it) (?:started|began"
    r"|set off|set out|started out)\b.*$"
)
# ... said with a verb ("how long after setting off"): the start of memory, however the sentence goes on.
_STARTING = re.compile(
    r"^(?:starting|beginning|setting off|setting out|starting out|kicking off)(?: (?:the|your|its|this) \w+)?$"
)


# A side that names no thing of its own.
_NO_THING = re.compile(
    r"^(?:the|a|an|first|last|second|(?:first|last|next) time\b.*|time\b.*|it|that|this"
    r"|(?:start|beginning|outset|end)(?: of .*)?|(?:you|it|the robot) (?:started|began|set off|set out).*)$"
)  # "how long after the start did you ...": a moment counted from the start, asked by the rules as "when"
# What was seen, named by its kind after its name ("the cat sighting").
_SIGHTING_NOUN = re.compile(r"\s+(?:sighting|appearance|encounter)s?$")


def side_named(words: str) -> tuple[str, Modality | None]:
    """A side's name and how it was met: by its verb, or (a topic and "message") heard."""
    name = words.strip()
    while (bare := _MET.sub("", name)) != name:  # "first hear someone mention X": every verb of meeting goes
        name = bare
    name = clean_target(_TAIL.sub("", name))
    met = modality_named(words)
    if MESSAGE_NOUN.search(name):
        name, met = MESSAGE_NOUN.sub("", name), met or Modality.SPEECH
    elif _SIGHTING_NOUN.search(name):
        name, met = _SIGHTING_NOUN.sub("", name), met or Modality.OBJECT
    return name, met


Visit = tuple[float, float, str]  # start, end, reference


def edge_of(visit: Visit, edge: str) -> float:
    """The moment of a stay an edge names: its end where the robot left, else its start."""
    return visit[1] if edge == LEFT else visit[0]


def journey(first: list[Visit], second: list[Visit], first_edge: str, second_edge: str) -> tuple[Visit, Visit] | None:
    """The visits a trip from the first place to the second joins: the earliest visit to the second place that
    some visit to the first came before, with the last such visit to the first (the robot may pass the first place
    twice before it goes on). None where the second place was never met after the first."""
    for there in sorted(second, key=lambda v: edge_of(v, second_edge)):
        reached = edge_of(there, second_edge)
        before = [v for v in first if edge_of(v, first_edge) <= reached and v[:2] != there[:2]]
        if before:
            return max(before, key=lambda v: edge_of(v, first_edge)), there
    return None
