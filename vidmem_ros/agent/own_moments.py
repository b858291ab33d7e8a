"""Where the robot itself was, or when, at a moment the question names by the clock or by the run: "where were you
at 10:05?", "where are you now?", "where did your round end?", "what was your starting point?", "where were you
five minutes ago?", "when did you set off?".

Nothing is looked up in memory here: a question is read into what it asks (a position or a time) and a moment
(``NamedMoment``), and ``moment_stamp`` places that moment on memory's time line.  A moment named by something
met ("where were you when you heard the alarm") is not read here: that is a grounding question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum

from vidmem_ros.agent.harness import AgentState
from vidmem_ros.agent.idioms import ACTIVITY
from vidmem_ros.agent.steps import Script, answer, call, when_said, xy_said
from vidmem_ros.memory.runs import Run, describe_time
from vidmem_ros.spoken_numbers import parse_duration

# A moment this far outside what memory holds is still read at memory's edge (a question asked "now" a little
# after the last record); further out, memory has nothing from then.
EDGE_S = 30.0


class MomentKind(str, Enum):
    START = "start"  # when the run began
    END = "end"  # the end of what memory holds as of the question
    NOW = "now"  # the question's own moment
    AGO = "ago"  # ``seconds`` before the question's moment
    INTO = "into"  # ``seconds`` after the run began
    BEFORE_END = "before_end"  # ``seconds`` before the end
    CLOCK = "clock"  # ``seconds`` after midnight (UTC, the clock answers are given in)


@dataclass(frozen=True)
class NamedMoment:
    kind: MomentKind
    seconds: float = 0.0


@dataclass(frozen=True)
class OwnQuestion:
    """A question about the robot itself at a named moment: its position (``where``) or the time (``when``)."""

    asks: str  # where | when
    moment: NamedMoment


_SELF = r"(?:you|the robot|it)"
_OWN = r"(?:your|the robot's|its)"
# The robot's run as a question names it: its activity ("patrol", "shift"), or a word for one stretch of work.
_RUN = rf"(?:{ACTIVITY}|run|walk|recording|session|lap|day|job|task|inspection|sweep)"
_OF_RUN = rf"(?: of (?:{_OWN}|the|this|today's) (?:\w+ )?{_RUN})?"
_STARTED = (
    r"(?:started|began|set off|set out|started out|got going|got started|departed|kicked off|were switched on"
    r"|was switched on|were turned on|was turned on|came online|woke up|booted up)"
)
_FINISHED = r"(?:finished|stopped|ended|were done|was done|wrapped up|completed|came to a (?:stop|halt)|halted)"
# An amount of time as words or digits ("five minutes", "1.5 hours", "a minute and a half", "twenty one seconds").
_AMOUNT = (
    r"(?P<d>(?:(?:\d+(?:\.\d+)?|a|an|half|and|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety)[ -])+(?:hours?|hrs?|minutes?|mins?|seconds?|secs?|s)(?: and a half)?)"
)
_ABOUT = r"(?:(?:at |around |about |roughly |approximately |some |exactly |precisely |just )+)?"
_MOMENTS: list[tuple[MomentKind, re.Pattern[str]]] = [
    (
        MomentKind.NOW,
        re.compile(
            r"(?:right |just )?now|currently|at present|presently|at (?:the|this) (?:moment|minute|instant)"
            r"|at this (?:point|time)|at this very moment|as we speak"
        ),
    ),
    (MomentKind.AGO, re.compile(rf"{_ABOUT}{_AMOUNT} (?:ago|back|before now|earlier)")),
    (
        MomentKind.BEFORE_END,
        re.compile(rf"{_ABOUT}{_AMOUNT} before (?:the (?:very )?end{_OF_RUN}|{_SELF} {_FINISHED}(?: \w+ \w+)?)"),
    ),
    (
        MomentKind.INTO,
        re.compile(
            rf"{_ABOUT}(?:the )?{_AMOUNT} (?:mark|point|in|into (?:{_OWN} |the |this |today's )?(?:\w+ )?{_RUN}"
            rf"|after (?:the (?:very )?(?:start|beginning|outset){_OF_RUN}|{_SELF} {_STARTED}(?: \w+ \w+)?)"
            rf"|from the (?:start|beginning|outset){_OF_RUN})(?: mark)?"
        ),
    ),
    (
        MomentKind.START,
        re.compile(
            rf"(?:(?:at|in) the (?:very )?(?:start|beginning|outset|onset){_OF_RUN}|when {_SELF} (?:first )?{_STARTED}"
            rf"(?: (?:{_OWN}|the|this|today's) (?:\w+ )?{_RUN})?|at first|first thing|initially|to begin with"
            r"|at the (?:very )?first moment)"
        ),
    ),
    (
        MomentKind.END,
        re.compile(
            rf"(?:(?:at|by) the (?:very )?(?:end|finish|close|conclusion){_OF_RUN}|when {_SELF} (?:had )?{_FINISHED}"
            rf"(?: (?:{_OWN}|the|this|today's) (?:\w+ )?{_RUN})?|in the end|at last|last of all|finally"
            r"|at the (?:very )?last moment)"
        ),
    ),
]
# A time of day: "10:05", "10:05:30", "9 am", "3 p.m.", "ten o'clock" is read as digits only, "noon".
_CLOCK = re.compile(
    rf"{_ABOUT}(?:(?P<h>\d{{1,2}})(?::(?P<m>[0-5]\d))?(?::(?P<s>[0-5]\d))? ?(?P<ap>a\.?m\.?|p\.?m\.?|o'clock|h\b)?"
    r"|(?P<noon>noon|midday|midnight))(?: utc| gmt)?"
)

# Asked for the robot's own position, with the moment after it: "where were you ...", "what was your location ...".
_WHERE_SELF = re.compile(
    rf"^(?:where (?P<be>were|are|was|is) {_SELF}(?: standing| located| positioned| situated| parked)?"
    rf"|(?:what|which) (?P<be2>was|is|were|are) {_OWN} (?:exact |precise |x, y |x and y )?(?:coordinates|position"
    rf"|location|whereabouts|pose|place)"
    rf"|(?:give|tell|report|state)(?: me| us)? {_OWN} (?:exact |precise |x, y |x and y )?(?:coordinates|position"
    rf"|location|whereabouts|pose))(?P<rest>.*)$"
)
_STARTING = r"(?:starting|start|initial|first|beginning|opening|original|departure|launch)"
_ENDING = r"(?:final|last|ending|end|finishing|closing|concluding|last known|latest|most recent)"
_CURRENT = r"(?:current|present|present-day)"
_POINT = r"(?:point|position|location|place|spot|coordinates|pose|whereabouts)"
# "What was your starting point (of the patrol)?", "where is the robot's current location?"
_ADJECTIVE_POINT = re.compile(
    rf"^(?:what|which|where) (?:was|is|were|are) (?:{_OWN}|the|the robot's) (?:(?P<start>{_STARTING})|(?P<end>"
    rf"{_ENDING})|(?P<now>{_CURRENT})) {_POINT}{_OF_RUN}$"
)
# "Where did you start (your patrol)?", "where did your shift end?", "where did the robot end up?"
_WHERE_VERB = re.compile(
    rf"^(?P<w>where|when|at what time) did (?:{_SELF}|(?:{_OWN}|the|this|today's) (?:\w+ )?{_RUN}) (?:first )?"
    r"(?:(?P<start>start|begin|set off|set out|start out|depart|kick off|get going|get started|commence)"
    r"|(?P<end>finish|end|stop|end up|wind up|conclude|terminate|come to an end|come to a (?:stop|halt)|halt"
    rf"|wrap up|finish up))(?: (?:{_OWN}|the|this|today's) (?:\w+ )?{_RUN})?(?: from| at| in| up| off)?"
    rf"(?: (?:at|by|in) the (?:very )?(?:end|start|beginning|outset){_OF_RUN}| finally| in the end)?$"
)


def own_question(text: str) -> OwnQuestion | None:
    """The question read as one about the robot itself at a named moment, or None."""
    q = _plain(text)
    match = _WHERE_SELF.match(q)
    if match is not None:
        rest = match["rest"].strip(" ,")
        if not rest:  # "where are you?": now; "where were you?" names no moment
            present = (match["be"] or match["be2"]) in ("are", "is")
            return OwnQuestion("where", NamedMoment(MomentKind.NOW)) if present else None
        moment = named_moment(rest)
        return OwnQuestion("where", moment) if moment is not None else None
    match = _ADJECTIVE_POINT.match(q)
    if match is not None:
        kind = MomentKind.START if match["start"] else MomentKind.END if match["end"] else MomentKind.NOW
        return OwnQuestion("where", NamedMoment(kind))
    match = _WHERE_VERB.match(q)
    if match is not None:
        kind = MomentKind.START if match["start"] else MomentKind.END
        return OwnQuestion("where" if match["w"] == "where" else "when", NamedMoment(kind))
    return None


def named_moment(text: str) -> NamedMoment | None:
    """The moment a whole phrase names ("at 10:05", "two minutes ago", "at the end of the patrol"), or None."""
    phrase = _plain(text).strip(" ,")
    for kind, pattern in _MOMENTS:
        match = pattern.fullmatch(phrase)
        if match is not None:
            amount = parse_duration(match["d"]) if "d" in pattern.groupindex else 0.0
            return NamedMoment(kind, amount) if amount is not None else None
    match = _CLOCK.fullmatch(phrase)
    if match is not None and (match["noon"] or match["m"] or match["ap"]) and _real_hour(match):
        return NamedMoment(MomentKind.CLOCK, _day_seconds(match))
    return None


def _real_hour(match: re.Match[str]) -> bool:
    """No 25:00, and no 13 p.m."""
    if match["noon"]:
        return True
    hour = int(match["h"])
    return hour <= (12 if (match["ap"] or "").replace(".", "") in ("am", "pm") else 23)


def moment_stamp(moment: NamedMoment, span: tuple[float, float], as_of: float | None, runs: Sequence[Run]) -> float:
    """Where a named moment falls in memory time.  The run is the latest one begun by the question's moment (the
    whole of memory where no run is recorded); a time of day is its latest occurrence up to the question."""
    now = span[1] if as_of is None else as_of
    begun = [run.start for run in runs if run.start <= now]
    start = max(begun) if begun else span[0]
    end = min(span[1], now)
    kind = moment.kind
    if kind is MomentKind.START:
        return start
    if kind is MomentKind.END:
        return end
    if kind is MomentKind.NOW:
        return now
    if kind is MomentKind.AGO:
        return now - moment.seconds
    if kind is MomentKind.INTO:
        return start + moment.seconds
    if kind is MomentKind.BEFORE_END:
        return end - moment.seconds
    day = datetime.fromtimestamp(now, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    stamp = (day + timedelta(seconds=moment.seconds)).timestamp()
    return stamp - 86_400.0 if stamp > now + 1.0 else stamp


def own_script(state: AgentState, own: OwnQuestion, span: tuple[float, float]) -> Script:
    """Where the robot was (or when it was) at the moment named: its pose read along its path there."""
    stamp = moment_stamp(own.moment, span, state.as_of, state.runs)
    said = moment_words(own.moment)
    if not span[0] - EDGE_S <= stamp <= span[1] + EDGE_S:
        lo, hi = (describe_time(state.runs, t) for t in span)
        yield answer(f"I have no memory from {said}: what I remember runs from {lo} to {hi}.", 0.0)
        return
    stamp = min(max(stamp, span[0]), span[1])
    state.plan(f"read my pose {said}", "compose the answer")
    obs = (yield [call("pose_at", t=round(stamp - state.t0, 2))])[0]
    pose = next(iter(obs.result.findings), None)
    if pose is None or pose.pose is None:
        yield answer(f"I have no pose recorded {said}: {obs.result.note or 'no odometry then'}.", 0.0)
        return
    when = when_said(state, pose.stamp)
    if own.asks == "when":
        verb = "started" if own.moment.kind is MomentKind.START else "stopped"
        yield answer(f"I {verb} {when}.", 0.9, [pose.ref], pose.ref, pose.ref)
        return
    where = xy_said(pose.pose)
    now = own.moment.kind is MomentKind.NOW and stamp >= (state.as_of or stamp) - EDGE_S
    text = f"I am at {where} ({when})." if now else f"{said[0].upper()}{said[1:]}, I was at {where} ({when})."
    yield answer(text, 0.9, [pose.ref], pose.ref, pose.ref)


def moment_words(moment: NamedMoment) -> str:
    """The moment as an answer names it."""
    amount = _amount_words(moment.seconds)
    return {
        MomentKind.START: "when I started",
        MomentKind.END: "at the end of what I remember",
        MomentKind.NOW: "now",
        MomentKind.AGO: f"{amount} before this question",
        MomentKind.INTO: f"{amount} after I started",
        MomentKind.BEFORE_END: f"{amount} before the end of what I remember",
        MomentKind.CLOCK: f"at {_clock_words(moment.seconds)} UTC",
    }[moment.kind]


def _plain(text: str) -> str:
    text = re.sub(r"\s+", " ", text.strip().lower().replace("’", "'"))
    text = re.sub(r"^(?:and |so |ok(?:ay)?,? |please,? )+", "", text)
    return text.rstrip(" ?.!").removesuffix(" please").rstrip(" ,")


def _day_seconds(match: re.Match[str]) -> float:
    if match["noon"]:
        return 0.0 if match["noon"] == "midnight" else 43_200.0
    hour, minute, second = int(match["h"]), int(match["m"] or 0), int(match["s"] or 0)
    marker = (match["ap"] or "").replace(".", "")
    if marker == "pm" and hour < 12:
        hour += 12
    elif marker == "am" and hour == 12:
        hour = 0
    return float(hour % 24 * 3600 + minute * 60 + second)


def _amount_words(seconds: float) -> str:
    if seconds >= 3600 and math.isclose(seconds % 3600, 0.0):
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and math.isclose(seconds % 60, 0.0):
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def _clock_words(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}" + (f":{secs:02d}" if secs else "")
