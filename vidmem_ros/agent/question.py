"""Parsing a plain-language question into an intent, what it is about, and any time constraint.

The offline planner answers from this parse alone, so every phrasing it accepts
is listed here; anything else falls back to a plain memory search.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum

from vidmem_ros.agent.asked import WHAT_MOMENT, cites_a_source, interrogative
from vidmem_ros.agent.idioms import (
    ACTIVITY,
    BEARER,
    MESSAGES,
    WINDOW_SAID,
    plain_asking,
    plain_sentence,
    sentences_of,
)
from vidmem_ros.agent.readable import FUNCTION_WORDS
from vidmem_ros.errors import InputError
from vidmem_ros.spoken_numbers import parse_duration


class Intent(str, Enum):
    DID = "did"  # did you see / read / hear X?
    FIRST = "first"  # when did you first see X?
    LAST = "last"  # when did you (last) see X?
    WHERE = "where"  # where did you see X?
    WHAT = "what"  # what did you see (in the last 5 minutes)? what is in view?
    READ = "read"  # what did you read? what did the sign say?
    SAID = "said"  # what did someone say (about X)?
    COUNT = "count"  # how many times did you see X?
    DURATION = "duration"  # how long did you see X?
    BEFORE = "before"  # what did you see before X?
    AFTER = "after"  # what did you see after X?
    ORDER = "order"  # did you see X before or after Y?
    ACTIVE = "active"  # how long have you been patrolling (working, running)?
    ROUTE = "route"  # where have you been? which places did you stop at, in what order? (ordinal: that stop alone)
    SEARCH = "search"  # anything else: the question's words searched in memory


class Modality(str, Enum):
    OBJECT = "object"  # something a detector reports
    TEXT = "text"  # words read on a sign or screen
    SPEECH = "speech"  # words heard
    PLACE = "place"  # a place the robot stayed at, named by a description


@dataclass(frozen=True)
class Window:
    """A time constraint relative to the question's moment (``last``) or the start of memory (``first``), or a
    moment counted from the start of memory (``at``)."""

    anchor: str  # last | first | at | since (from a moment counted from the start of memory on) | between
    seconds: float
    until: float = 0.0  # with "between": the window's end, counted from the start of memory


@dataclass(frozen=True)
class ParsedQuestion:
    text: str
    intent: Intent
    target: str = ""
    modality: Modality = Modality.OBJECT
    other: str = ""  # the second thing of an order question, or the anchor of before / after
    window: Window | None = None
    now: bool = False  # "what do you see now"
    relation: str = ""  # "before" / "after": a yes-or-no question whether the target came so relative to other
    latest: bool = False  # an order question asking which of the two came last, not first
    ordinal: int = 0  # "the second time": that occasion or visit (0: none named; -1: a route's last stop)
    times: tuple[str, int] | None = None  # "did you see X twice / more than once": the check (eq, gt, ge, lt, le) and n
    # "when did you leave X": the end of a visit to a place, not its start; "how long were you away from X": the
    # time from leaving it to coming back
    leaving: bool = False


_SEE = (
    r"(?:see|seen|saw|spot|spotted|notice|noticed|observe|observed|encounter|encountered|watch|watched"
    r"|look at|looked at|come across|came across|pass|passed|go past|went past|drive past|drove past|meet|met"
    r"|run into|ran into|bump into|bumped into|come upon|came upon|happen upon|happened upon|stumble upon"
    r"|stumbled upon|stumble across|stumbled across|chance upon|chanced upon)"
)
# Being at a place, and the prepositions that lead to its description.
_BE_AT = (
    r"(?:were you|have you been|had you been|was the robot|has the robot been|did (?:you|the robot|it) (?:go|come"
    r"(?! across| upon)|get|stay|stop|remain|return|end up|pass through|walk through|drive through|go through|cross)"
    r"|did (?:you|the robot|it) visit|have you visited|did you make|have you made|did you pay|have you paid"
    r"|have you (?:stood|stopped|stayed|waited|parked|been (?:standing|waiting|parked))"
    r"|did (?:you|the robot|it) (?:stand|wait|park))"
)
_MESSAGE = r"(?:the )?(?:message|announcement|one|news|call|remark|words?)(?: about| that| on| saying)?"
# "Where were you", and the ways of asking for a position that mean the same.
_WHERE_WERE_YOU = (
    r"(?:where (?:were you|was the robot|was it)(?: standing| located| positioned)?"
    r"|what (?:was|were) your (?:x, y |x and y )?(?:coordinates|position|location)"
    r"|(?:give|report|state|tell me) your (?:x, y |x and y )?(?:position|coordinates|location))"
)
# "when you saw", "while you were watching", "as it passed", "while reading": the moment a position is asked at.
_WHILE = r"(?:when|while|as)(?: (?:you|it|the robot)(?: was| were)?)?"
_AT_WHICH_POSITION = r"(?:at|in|from) (?:which|what) (?:position|location|spot|point|coordinates|x, y)"
_INTO = r"(?: back)?(?: to| in| into| at| inside| on| outside on| out on| out in| by| near| among| amongst| beside)?"
_NEXT = r"(?:right |just |directly |immediately |straight )?"
_PLACE = r"(?:room|place|area|location|spot|space|part of the building|site|stop)"
_MOVE = r"(?:go to|go into|visit|enter|move to|head to|reach|come to|drive to|walk to|go)"
_SELF = r"(?:you|it|the robot)"  # the robot, as a question names it
_WHO = r"(?:someone|anyone|somebody|anybody|they|people|a person|the person|you)"
_SAY = (
    r"(?:say|said|mention|mentioned|talk about|talked about|speak about|spoke about|bring up|brought up|refer to"
    r"|referred to|ask for|asked for|call for|called for|request|requested|complain about|complained about)"
)
_HEAR = rf"(?:hear (?:{_WHO} )?(?:say|mention|talk about)|hear|heard|(?:were|was|got) told(?: that| about)?)"
_READ = r"(?:read|see written|see the words?)"
# Things that bear words, by their kind ("signs", "a notice").
_BEARER_KINDS = r"(?:signs?|notices?|labels?|posters?|placards?|plaques?|banners?)"


def either_of(kinds: str) -> str:
    """A pattern for one or more of ``kinds`` joined by "or" or "and" ("announcements or spoken messages",
    "signs, notices and labels"): kinds counted together."""
    return rf"{kinds}(?:(?:,|,? or|,? and) {kinds})*"


_SIGN = r"(?:a |the |any )?(?:sign|text|notice|label|poster|screen|board)"
_WORDS_ONLY = r"(?:sign|text|notice|label|board)"  # what bears words and no pictures
_SAYING = (
    r"(?:that said|saying|that says|which said|reading|that read|with the words?|warning (?:about|of|against)"
    r"|that warned (?:about|of)|announcing|mentioning|that mentioned|that mentions|which mentioned|naming|that named"
    r"|referring to|that referred to|about|for|with)"
)
_ANCHOR = rf"(?:(?:you )?(?:saw|seeing|{_SEE}) )?"
# Verbs by which a message says something of its topic to the robot ("told you to", "warned you about").
_TOLD = r"told|tell|asked|ask|warned|warn|reminded|remind|urged|urge|instructed|instruct|informed|inform|alerted|alert"
# Things heard named only by their kind ("spoken messages", "radio calls"): every one of them, not what they said.
_MESSAGE_KINDS = (
    r"(?:(?:spoken|voice|radio|audio|verbal|different|separate|distinct|individual) )*"
    rf"(?:{MESSAGES}|calls?|thing said)"
)
# One thing of a yes-or-no order question ("was the boiler fixed before the shutter?"): who met it and how, what it
# was about, and what happened to it are not part of its name.
_ARRIVE = r"(?:reach|reached|get to|got to|arrive at|arrived at|come to|came to|come upon|came upon)"
_MET = (
    rf"(?:{_WHO} (?:{_SEE}|{_HEAR}|{_SAY}|{_READ}|{_ARRIVE}|report|reported|announce|announced) )?(?:about )?"
    rf"(?:{_MESSAGE} )?"
)
_HAPPENED = (
    r"(?: (?:was |were |got |had been |has been )?(?:first )?(?:seen|heard|read|mentioned|said|announced|noticed"
    r"|spotted"
    r"|reported|brought up|come up"
    r"|came up|come into view|come|came|happen|happened|appear|appeared|show up|showed up|turn up|turned up"
    r"|arrive|arrived|occur|occurred|get seen))?"
)
_ORDER_WORD = r"(?P<r>before|after|earlier than|later than|ahead of|prior to)"
# The subject of a passive ("was the van seen"): a thing, not a clause with a doer of its own.
_PASSIVE_SUBJECT = r"(?P<t>(?!.*\b(?:you|i|we|they|he|she|someone|anyone|somebody|anybody|come|came)\b).+?)"
_PASSIVE = r" (?:anywhere |ever |already |at all )?(?:to be |been )?"
# A count a yes-or-no question checks, said after its verb ("... more than twice", "... three times").
_CHECKED = (
    r"(?: (?:more than|fewer than|less than|at least|at most|exactly|only|over|under|no more than|not more than))?"
    r"(?: (?:once|twice|thrice|(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten) times)(?: or more)?)?"
    r"(?: (?:at all|so far|yet|today))?"
)
# Participles that say a thing was heard of, or seen, in the passive ("when the leak was reported").
_SAID_OF = (
    r"(?:mentioned|said|announced|reported|discussed|brought up|talked about|spoken about|spoken of|heard|raised"
    r"|called out)"
)
IN_SIGHT = r"(?:in view|visible|in sight|on camera|readable|legible)"
_SEEN = rf"(?:seen|spotted|noticed|sighted|observed|{IN_SIGHT}|detected|passed)"

# (intent, modality, pattern).  Order matters: the first match wins.
# The start of the robot's run, said as a moment: "you started", "the beginning of your shift".
_RUN_START = (
    r"(?:(?:you|we|the robot) (?:first )?(?:started|began|set off|set out|were switched on|came online)"
    rf"(?: (?:on )?(?:the |your |its |this |today's )?{ACTIVITY})?|(?:the )?(?:start|beginning)(?: of [\w ]+)?"
    # "since the recording began", "since your memory starts"
    r"|(?:the |your |this |my )?(?:recording|memory|log|logging|video|footage|run|session|patrol|shift)"
    r" (?:started|began|begins|starts|was started|kicked off|got going))"
)
# The kinds of things said ("the complaint about the lift", "a reminder about the van").
_SAYINGS = (
    r"(?:complaint|grumble|moan|gripe|remark|comment|warning|reminder|request|question|query|announcement|message"
    r"|call|report|note|alert|update|joke|instruction|order|news|mention|appeal|plea)s?"
)
# How a count without a verb may end ("so far", "in all").
_TALLY_END = (
    r"(?: (?:so far|until now|up to now|by now|yet|today|tonight|in total|in all|altogether|overall|all told))*"
)
# ... and the words that are no part of the things counted ("how many vans were in the cloister" has a verb).
_NOT_NOUN = (
    r"(?:were|was|are|is|be|been|did|do|does|have|has|had|you|it|we|they|there|in|at|on|to|into|by|near|from|with"
    r"|so|until|up|yet|today|tonight|overall|altogether|all)"
)
# What a question without "there" says is somewhere: something indefinite ("a canoe", "any prams", "anyone").
_SOME_ONE = (
    r"(?:(?:a|an|any|some|more|several|many|lots of|a few)\s+\w[\w-]*"
    r"|anyone|anybody|someone|somebody|anything|something|people|nobody|no one)"
)
# ... how it was there, not what it was doing ("anyone waiting at the counter", not "anyone rowing at the club")
_STILL = r"(?:sitting|standing|waiting|lying|sleeping|resting|queuing|queueing|gathering|hanging|leaning|parked)"
# ... not a time said like a place ("at any point", "at all", "on the way")
_NO_PLACE = r"(?:any|some|one|that|this|the same) (?:point|time|stage|moment)\b|all\b|first\b|last\b|once\b|the way\b"
_WHERE_AT = r"in|at|on|inside|outside|near|by|beside|behind|under|among|next to|in front of|on top of|around"


_PATTERNS: list[tuple[Intent, Modality, str]] = [
    (
        Intent.ORDER,
        Modality.SPEECH,
        rf"^which (?:did you hear|was said|was mentioned|were you told) first[,:;]? (?:{_MESSAGE} )?(?P<t>.+?) or "
        rf"(?:{_MESSAGE} )?(?P<o>.+)$",
    ),
    (
        Intent.ORDER,
        Modality.OBJECT,
        rf"^did you (?:{_SEE}|{_READ}|{_HEAR}) (?P<t>.+?) before or after (?P<o>.+?){_HAPPENED}$",
    ),
    (
        Intent.ORDER,
        Modality.OBJECT,
        rf"^(?:was|were|is) {_MET}(?P<t>.+?){_HAPPENED} before or after (?P<o>.+?){_HAPPENED}$",
    ),
    (
        Intent.ORDER,
        Modality.OBJECT,
        r"^(?:did|was|were) (?P<t>.+?) (?:come|come into view|show up|turn up|appear|get seen) (?:first )?before or "
        r"after (?P<o>.+)$",
    ),
    (Intent.ORDER, Modality.OBJECT, r"^which (?:did you see |came )?first[,:;]? (?P<t>.+?) or (?P<o>.+)$"),
    (
        Intent.ORDER,
        Modality.OBJECT,
        rf"^(?:was|were|did|is|had|has|does) {_MET}(?P<t>.+?){_HAPPENED} {_ORDER_WORD} {_MET}(?P<o>.+?){_HAPPENED}$",
    ),
    (
        Intent.ACTIVE,
        Modality.OBJECT,
        r"^(?:for )?how long (?:have|had) you been (?:\w+ing(?: around| about| here)?|on (?:duty|patrol|the move|(?:your |the )?rounds?|(?:your |the )?shift|the job)|awake|active|"
        r"out(?: and about)?|up(?: and (?:about|running))?)(?:,? (?:from|since) .*| so far| until now| up to now| in total| altogether)?$",
    ),
    (  # time gone since the start: "how many minutes have passed since you started?"
        Intent.ACTIVE,
        Modality.OBJECT,
        r"^how (?:long|much time|many (?:seconds|minutes|hours))(?: (?:has it been|(?:have|has) (?:passed|elapsed|gone by)"
        rf"|went by|passed|elapsed|is it))? since {_RUN_START}$",
    ),
    (  # the same asked for as a quantity: "what is the time elapsed since the start of your shift?"
        Intent.ACTIVE,
        Modality.OBJECT,
        r"^what(?:'s| is| was) (?:the |your )?(?:(?:total |overall )?(?:elapsed|running) time|(?:amount of )?time "
        rf"(?:that (?:has|had) |that's )?(?:elapsed|passed|gone by))(?: so far)? since {_RUN_START}$",
    ),
    (  # "what is the total running time so far?"
        Intent.ACTIVE,
        Modality.OBJECT,
        r"^what(?:'s| is| was) (?:the |your )?(?:total|overall|elapsed|whole) (?:\w+ )?time(?: so far| until now| up to "
        r"now| in total| altogether)?$",
    ),
    (
        Intent.COUNT,
        Modality.PLACE,
        rf"^how (?:many (?:separate |different |distinct )?(?:times|visits)|often) {_BE_AT}{_INTO} (?P<t>.+)$",
    ),
    (
        Intent.DURATION,
        Modality.OBJECT,
        r"^(?:for )?how (?:long|much time) did you (?:spend|stay|stand) (?:looking at|watching|observing|in front of)"
        r" (?P<t>.+?)(?: for)?$",
    ),
    (  # "how long did you spend with the kite in view", "how much time did you have the kite in sight"
        Intent.DURATION,
        Modality.OBJECT,
        rf"^(?:for )?how (?:long|much time) did you (?:spend(?: time)? with|have|keep) (?P<t>.+?) {IN_SIGHT}(?: for)?$",
    ),
    (
        Intent.DURATION,
        Modality.SPEECH,
        r"^(?:for )?how (?:long|much time) (?:(?:were you|was the robot|have you been|did you spend(?: time)?)"
        r" (?:listening to|hearing)|did you (?:listen to|hear)) (?P<t>.+?)(?: for)?$",
    ),
    (
        Intent.DURATION,
        Modality.PLACE,
        rf"^(?:for )?how (?:long|much time) (?:were you|have you been|was the robot|did you (?:stay|spend|remain|stop"
        rf"|wait|spend time|linger|hang around|hang about|hang out|stick around|loiter|dwell|idle))(?: there)?{_INTO}"
        r" (?P<t>.+?)(?: for)?$",
    ),
    (Intent.AFTER, Modality.PLACE, rf"^(?:which|what) {_PLACE} did you {_MOVE} {_NEXT}(?P<r>before|after) (?P<o>.+)$"),
    (
        Intent.AFTER,
        Modality.PLACE,
        rf"^where (?:did you (?:go|head|drive|move|walk)(?: to)?|(?:were|was) {_SELF}(?: at| in)?|had {_SELF} been)"
        rf" {_NEXT}(?P<r>before|after|next after) (?P<o>.+)$",
    ),
    (Intent.COUNT, Modality.SPEECH, rf"^how many times did {_WHO} {_SAY} (?P<t>.+)$"),
    (  # "how many different things did people talk about": every message
        Intent.COUNT,
        Modality.SPEECH,
        r"^how many (?P<t>(?:(?:different|distinct|separate|other) )*(?:things|topics|subjects|matters|messages))"
        rf" (?:did|have|had|has) {_WHO} {_SAY}$",
    ),
    (Intent.COUNT, Modality.SPEECH, rf"^how (?:many times|often) (?:did|have) you {_HEAR} (?:about |of )?(?P<t>.+)$"),
    (
        Intent.COUNT,
        Modality.SPEECH,
        rf"^how many {either_of(_MESSAGE_KINDS)}(?: (?:did|have) you (?:hear|heard|catch|caught|pick up|picked up|get|got|receive"
        r"|received|register|registered|record|recorded|log|logged|take in|taken in)"
        r"| (?:were|have been) (?:said|made|announced"
        r"|heard)| (?:were|have) you (?:been )?asked| (?:were there|have there been|did you get|came in))(?P<w>.*)$",
    ),
    (  # "how many messages reached you", "how many calls got through to the robot": every one, whatever the verb
        Intent.COUNT,
        Modality.SPEECH,
        rf"^how many {either_of(_MESSAGE_KINDS)} (?:(?:have|has|had|did) )?(?!(?:{_TOLD})\b)[a-z]+(?: [a-z]+)?"
        r" (?:to |for )?(?:you|the robot|it|us)(?P<w>)$",
    ),
    (Intent.COUNT, Modality.TEXT, rf"^how (?:many times|often) (?:did|have) you {_READ} (?P<t>.+)$"),
    (  # signs counted, however they were met: "how many notices did you come across"
        Intent.COUNT,
        Modality.TEXT,
        rf"^how many (?P<t>{either_of(rf'(?:(?:different|distinct|separate|unique|individual|other) )*{_BEARER_KINDS}')})"
        rf" (?:did|have|had) you (?:{_SEE}|{_READ}|seen)$",
    ),
    (Intent.COUNT, Modality.OBJECT, rf"^how (?:many times|often) (?:did|have) you {_SEE} (?P<t>.+)$"),
    (Intent.DURATION, Modality.OBJECT, rf"^(?:for )?how long (?:did|have) you {_SEE} (?P<t>.+?)(?: for)?$"),
    (
        Intent.DURATION,
        Modality.OBJECT,
        rf"^(?:for )?how long (?:was|were) (?P<t>.+?) (?:{IN_SIGHT}|around|present|about)(?: for)?$",
    ),
    (  # "how long did the kite stay in view", "how long did the trolley remain visible"
        Intent.DURATION,
        Modality.OBJECT,
        rf"^(?:for )?how long (?:did|does) (?P<t>.+?) (?:stay|remain|linger|last|keep) {IN_SIGHT}(?: for)?$",
    ),
    (Intent.AFTER, Modality.OBJECT, rf"^what did you {_SEE} (?:right |just |directly )?after {_ANCHOR}(?P<o>.+)$"),
    (Intent.BEFORE, Modality.OBJECT, rf"^what did you {_SEE} (?:right |just |directly )?before {_ANCHOR}(?P<o>.+)$"),
    (  # "what was in view just before the kiosk": what was seen then
        Intent.BEFORE,
        Modality.OBJECT,
        rf"^what (?:was|came) (?:into |in )?(?:{IN_SIGHT}|view) (?:right |just |directly )?before {_ANCHOR}(?P<o>.+)$",
    ),
    (
        Intent.AFTER,
        Modality.OBJECT,
        rf"^what (?:was|came) (?:into |in )?(?:{IN_SIGHT}|view) (?:right |just |directly )?after {_ANCHOR}(?P<o>.+)$",
    ),
    (Intent.READ, Modality.TEXT, rf"^what (?:text |words |sign )?did you read (?P<r>after|before) {_ANCHOR}(?P<o>.+)$"),
    (Intent.READ, Modality.TEXT, r"^what (?:text |words |signs? )?(?:did|have) you read(?P<w>.*)$"),
    (Intent.READ, Modality.TEXT, rf"^what (?:did|does) {_SIGN}(?P<w>.*?) (?:say|read|show|display|state)(?: .+)?$"),
    (
        Intent.READ,
        Modality.TEXT,
        rf"^what did the (?:first|last) {BEARER} (?:you|the robot|it) read say$",
    ),
    (Intent.READ, Modality.TEXT, r"^what (?:was|is) written(?P<w>.*)$"),
    (  # "what was the first animal you saw": the first thing of that kind seen
        Intent.FIRST,
        Modality.OBJECT,
        r"^(?:what|which) (?:was|is) the (?:very )?(?:first|earliest) (?P<t>.+?) (?:you|the robot|it)"
        r" (?:saw|spotted|noticed|came across|met|encountered|detected|ran into)$",
    ),
    (
        Intent.LAST,
        Modality.OBJECT,
        r"^(?:what|which) (?:was|is) the (?:very )?(?:last|latest|most recent|final) (?P<t>.+?) (?:you|the robot|it)"
        r" (?:saw|spotted|noticed|came across|met|encountered|detected|ran into)$",
    ),
    (  # "what was the second sign you read", "which sign did you see near the kite"
        Intent.READ,
        Modality.TEXT,
        rf"^(?:what (?:was|is) the \w+ {BEARER} (?:you|the robot|it) (?:read|saw|passed)"
        rf"|(?:what|which) {BEARER}s? (?:did|have) (?:you|the robot|it) (?:see|read|pass|notice|spot))(?P<w>.*)$",
    ),
    (Intent.READ, Modality.TEXT, rf"^what (?:was|is) (?:shown |printed |displayed )?on {_SIGN}(?P<w>.*)$"),
    (Intent.SAID, Modality.SPEECH, rf"^what did {_WHO} (?:say|mention|talk about)(?: about (?P<t>.+?))?(?P<w>)$"),
    # "what did someone say was broken": the thing the message was about is asked for, by what was said of it
    (Intent.SAID, Modality.SPEECH, rf"^what did {_WHO} say (?:was|is|were|are|had|has|would|will) (?P<t>.+)$"),
    (Intent.SAID, Modality.SPEECH, r"^what did you hear(?: about (?P<t>.+?))?(?P<w>)$"),
    (Intent.SAID, Modality.SPEECH, r"^what was said(?: about (?P<t>.+?))?(?P<w>)$"),
    (Intent.WHAT, Modality.OBJECT, r"^what (?:do|can) you see(?: now| right now| at the moment)?$"),
    (Intent.WHAT, Modality.OBJECT, r"^what (?:is|was) (?:in view|in front of you|around you)(?: now)?$"),
    (Intent.WHAT, Modality.OBJECT, rf"^what (?:did|have) you {_SEE}(?P<w>.*)$"),
    (Intent.FIRST, Modality.SPEECH, rf"^when (?:did|have) {_WHO} first {_SAY} (?P<t>.+)$"),
    (Intent.LAST, Modality.SPEECH, rf"^when (?:did|have) {_WHO} (?:last )?{_SAY} (?P<t>.+)$"),
    (Intent.FIRST, Modality.SPEECH, rf"^when (?:did|have) you first {_HEAR} (?P<t>.+)$"),
    (Intent.LAST, Modality.SPEECH, rf"^when did you (?:last )?{_HEAR} (?P<t>.+)$"),
    (Intent.WHERE, Modality.SPEECH, rf"^{_WHERE_WERE_YOU} when {_WHO} {_SAY} (?P<t>.+)$"),
    (
        Intent.WHERE,
        Modality.SPEECH,
        rf"^{_WHERE_WERE_YOU} {_WHILE} (?:first |last |most recently )?(?:{_HEAR}|hearing|listening to) (?P<t>.+)$",
    ),
    (Intent.WHERE, Modality.TEXT, rf"^{_WHERE_WERE_YOU} {_WHILE} (?:first |last )?(?:{_READ}|reading) (?P<t>.+)$"),
    # "where were you when the delivery was mentioned / the notice was read / the van was spotted": said passively
    (
        Intent.WHERE,
        Modality.SPEECH,
        rf"^{_WHERE_WERE_YOU} (?:when|while|as) (?P<t>.+?) (?:was|were|got|being) {_SAID_OF}$",
    ),
    (Intent.WHERE, Modality.TEXT, rf"^{_WHERE_WERE_YOU} (?:when|while|as) (?P<t>.+?) (?:was|were|got|being) read$"),
    (  # "where were you when the picnic came up": raised in talk
        Intent.WHERE,
        Modality.SPEECH,
        rf"^{_WHERE_WERE_YOU} (?:when|while|as) (?P<t>.+?) (?:came up|cropped up|was raised|were raised)$",
    ),
    (
        Intent.WHERE,
        Modality.OBJECT,
        rf"^{_WHERE_WERE_YOU} (?:when|while|as) (?P<t>.+?) (?:was|were|got|being) {_SEEN}$",
    ),
    (Intent.WHERE, Modality.TEXT, rf"^{_AT_WHICH_POSITION} (?:did|have) you (?:first |last )?{_READ} (?P<t>.+)$"),
    (Intent.WHERE, Modality.OBJECT, rf"^{_AT_WHICH_POSITION} (?:did|have) you (?:first |last )?{_SEE} (?P<t>.+)$"),
    (
        Intent.WHERE,
        Modality.OBJECT,
        rf"^{_WHERE_WERE_YOU} {_WHILE} (?:first |last )?(?:{_SEE}|seeing|watching|looking at|passing) (?P<t>.+)$",
    ),
    (
        Intent.LAST,
        Modality.SPEECH,
        r"^when (?:was|were|is|are) (?P<t>.+?) (?:reported|announced|mentioned|brought up|talked about|referred to"
        r"|said to be|declared)(?P<t2> .+)?$"
        # "when was the complaint about the lift said": a thing said, named by what kind of saying it was
        rf"|^when (?:was|were) (?P<t3>(?:the|a|an|that|this|your) (?:[a-z-]+ )?{_SAYINGS} (?:about|of|on|concerning|from) .+?"
        r"|it|that|this|they|those)"
        r" (?:said|made|voiced|raised|heard|uttered|broadcast|aired|put out|passed on|given|issued|sent|shouted"
        r"|called out)$",
    ),
    (Intent.WHERE, Modality.SPEECH, rf"^where did you {_HEAR} (?P<t>.+)$"),
    (Intent.DID, Modality.SPEECH, rf"^(?:did|has|have) {_WHO} (?:ever |already )?{_SAY} (?P<t>.+)$"),
    (Intent.DID, Modality.SPEECH, rf"^(?:did|have|has) {_WHO} (?:ever |already )?{_HEAR} (?:that )?(?P<t>.+)$"),
    (Intent.FIRST, Modality.TEXT, rf"^when (?:did|have) you first {_READ} (?P<t>.+)$"),
    (Intent.LAST, Modality.TEXT, rf"^when (?:did|have) you (?:last )?{_READ} (?P<t>.+)$"),
    (Intent.WHERE, Modality.TEXT, rf"^where (?:did|have) you (?:last |first )?{_READ} (?P<t>.+)$"),
    (Intent.DID, Modality.TEXT, rf"^(?:did|have) you (?:ever )?{_READ} (?P<t>.+)$"),
    (Intent.FIRST, Modality.OBJECT, rf"^when (?:did|have) you first {_SEE} (?P<t>.+)$"),
    (Intent.FIRST, Modality.OBJECT, rf"^when was the first time you {_SEE} (?P<t>.+)$"),
    (Intent.LAST, Modality.OBJECT, rf"^when (?:did|have) you (?:last|most recently) {_SEE} (?P<t>.+)$"),
    (Intent.LAST, Modality.OBJECT, rf"^when was the last time you {_SEE} (?P<t>.+)$"),
    (Intent.LAST, Modality.OBJECT, rf"^when did you {_SEE} (?P<t>.+)$"),
    (Intent.FIRST, Modality.OBJECT, rf"^when (?:was|were) (?P<t>.+?) first {_SEEN}$"),  # the passive
    (Intent.LAST, Modality.OBJECT, rf"^when (?:was|were) (?P<t>.+?) (?:last |most recently )?{_SEEN}$"),
    (Intent.WHERE, Modality.OBJECT, rf"^where (?:did|have) you (?:last |first )?{_SEE} (?P<t>.+)$"),
    (Intent.WHERE, Modality.OBJECT, r"^where (?:is|was|were|are) (?P<t>.+)$"),
    (Intent.DID, Modality.OBJECT, rf"^(?:did|have|had) you (?:ever |already )?{_SEE} (?P<t>.+)$"),
    (Intent.DID, Modality.OBJECT, r"^(?:is|was|were|are) there (?P<t>.+)$"),
    # without "there": "was a canoe in the loft", "were any prams outside the shed", "was anyone at the counter"
    (
        Intent.DID,
        Modality.OBJECT,
        rf"^(?:is|was|were|are) (?P<t>{_SOME_ONE}(?: (?!\w+ing\b)\S+?)*?(?: {_STILL})? (?:{_WHERE_AT}) (?!{_NO_PLACE}).+)$",
    ),
    # a count asked without a verb: "how many visits to the kiln room so far", "how many vans in all"
    (
        Intent.COUNT,
        Modality.PLACE,
        rf"^how many (?:separate |different |distinct )?(?:visits|trips|stops|calls) (?:to|into|at|in) (?P<t>.+?){_TALLY_END}"
        rf"(?: (?:were|are|was|is) there)?{_TALLY_END}$",
    ),
    (
        Intent.COUNT,
        Modality.OBJECT,
        rf"^how many (?P<t>(?!times\b)(?:(?!{_NOT_NOUN}\b)[a-z][a-z'-]*)(?: (?!{_NOT_NOUN}\b)[a-z][a-z'-]*){{0,4}}?)"
        rf"{_TALLY_END}(?: (?:were|are|was|is) there)?{_TALLY_END}$",
    ),
    # the passive, with a count checked or none: "was the van seen more than once", "was the leak mentioned"
    (Intent.DID, Modality.SPEECH, rf"^(?:was|were|has|have|had) {_PASSIVE_SUBJECT}{_PASSIVE}{_SAID_OF}{_CHECKED}$"),
    (Intent.DID, Modality.TEXT, rf"^(?:was|were|has|have|had) {_PASSIVE_SUBJECT}{_PASSIVE}read{_CHECKED}$"),
    (Intent.DID, Modality.OBJECT, rf"^(?:was|were|has|have|had) {_PASSIVE_SUBJECT}{_PASSIVE}{_SEEN}{_CHECKED}$"),
]
_COMPILED = [(intent, modality, re.compile(pattern)) for intent, modality, pattern in _PATTERNS]
# The counts asked without a verb: where the question names what says the number ("according to the sign, how
# many units are there"), the number is read, not counted.
_BARE_COUNTS = {pattern for _, _, pattern in _COMPILED if _TALLY_END in pattern.pattern}
_SOURCE_NAMED = re.compile(
    r"\baccording to\b|\b(?:the|a|that|this) (?:sign|notice|label|poster|board|plaque|placard|banner|note|screen"
    r"|display|sticker|message|announcement|call)s?\b"
)
_SIGN_TARGET = re.compile(rf"^{_SIGN} {_SAYING} (?P<t>.+)$")
_FILLER = re.compile(
    r"^(?:(?:anything|something|aught) (?:about|on|regarding|concerning|mentioning|saying|that said)"
    r"|any|an|a|the|those|some|one|my|your"
    r"|that(?=\s+(?!(?:the|a|an|my|your|his|her|its|our|their|there|it|he|she|they|we|i|you|this)\b)))\s+"
)  # "anything about a leak" names the leak; "that fox" is the fox ("that the door was open" is a clause)
# How a thing was met, said before it ("seeing the dog", "hearing about a leak"): not part of its name.
_MEETING = re.compile(
    r"^(?:(?:seeing|spotting|noticing|watching|hearing|reading)(?: about)?|about)\s+(?=(?:the|a|an|any|some|that)\s)"
    r"|^about\s+(?=\w)"
)
_TRAILING = re.compile(
    r"\s+(?:(?:anywhere|everywhere|wherever|somewhere|any ?place)(?: (?:you|the robot|it|we) (?:looked|went|have been"
    r"|had been|were|was|passed|drove|visited|checked|stopped|have looked|had looked))?|around|at all"
    r"|at any (?:point|time|stage)|today|ever|so far|before|yet|here|there|again|ones?"
    r"|for the (?:very )?(?:first|last) time|first(?: of all)?|at first|initially|last(?: of all)?|most recently"
    r"|(?:on|along|during|in the course of) (?:your|the|this|my) (?:patrol|rounds?|route|way|tour|shift|walk)"
    r"|while (?:patrolling|on patrol|on your rounds)"
    # how a thing was lying about, not what it was ("a wallet left lying around", "bikes left unattended", "people
    # milling about")
    r"|(?:left|lying|standing|sitting|abandoned)(?: (?:lying|standing|sitting|unattended|behind|around|about|out"
    r"|open|there))*|(?:moving|walking|wandering|milling|running|rushing) (?:about|around))$"
)
# How a thing stood, lay or hung where it was met ("a painting hanging in the hall", "boxes left lying on the
# floor", "fruit laid out on the counter"): where it was, not part of its name.
_POSTURE = re.compile(
    r"\s+(?:(?:left|been left|been|being)\s+)?(?:hanging|hung|lying|laid|sitting|sat|standing|stood|resting|propped"
    r"|leaning|placed|parked|stacked|piled|spread|scattered|displayed|mounted|pinned|taped|stuck|perched|curled|lined"
    r"|set|kept|stored|left|abandoned|waiting|lurking|sold|offered|(?:on|for) (?:sale|offer|display|show))"
    r"(?:\s+(?:out|up|about|around|down|away))?"
    r"(?=\s+(?:in|on|at|by|near|among|amongst|beside|behind|inside|outside|under|over|around|against|next to|along"
    r"|across|atop|upon|within|beneath|below|above)\s)"
)
# Moving about, wherever it is said in a description ("children running around outside by the pond"): how they
# were, not who.
_ABOUT_THE_PLACE = re.compile(
    r"\s+(?:moving|walking|wandering|milling|running|rushing) (?:about|around)"
    r"(?: (?:outside|inside|there|here)(?! (?:the|a|an|your|its|this|that)\b))?\b"
)
_QUOTED = re.compile(r"(?:^|\s)[\"'“‘](?P<q>[^\"'“”‘’]{2,})(?:[\"'”’]|$)")
# Words in capitals, as a sign prints them ("before KEEP CLEAR"): four letters at least, so "TV" stays a thing.
_CAPITALS = re.compile(r"\b[A-Z][A-Z0-9'&-]*(?:\s+[A-Z0-9][A-Z0-9'&-]*)*\b")


def written_as_read(question: str, name: str) -> bool:
    """Whether a question gives a thing's name as words read: quoted, or in capitals as a sign prints them (where
    the question itself is not all in capitals)."""
    wanted = name.strip().lower()
    if not wanted or question.upper() == question:
        return False
    quoted = [q["q"].strip().lower() for q in _QUOTED.finditer(question)]
    capitals = [c.lower() for c in _CAPITALS.findall(question) if sum(ch.isalpha() for ch in c) >= 4]
    return wanted in quoted or wanted in capitals


def capitals_quoted(question: str) -> str:
    """The question with words in capitals quoted, as words read are ("did you read NO ENTRY" asks about the sign's
    words, and its "NO" negates nothing); a question all in capitals is left as asked."""
    if question.upper() == question:
        return question
    spans = [(m.start(), m.end()) for m in _QUOTED.finditer(question)]

    def quoted(m: re.Match[str]) -> str:
        inside = any(a <= m.start() < b for a, b in spans)
        return m[0] if inside or sum(ch.isalpha() for ch in m[0]) < 4 else f'"{m[0]}"'

    return _CAPITALS.sub(quoted, question)


_NAME = r"[a-z][\w'-]*(?: [a-z][\w'-]*){0,2}?"  # one to three words, as few as end the name
# Where a thing's name ends in a context sentence: a preposition, a verb, a time word or punctuation.
_NAME_END = (
    r"(?= (?:at|in|on|by|near|and|that|which|with|was|were|is|are|has|had|have|will|would|can|could|did|does"
    r"|yesterday|today|earlier|again|\w+ed)\b|[,.;:!?]|$)"
)
_PRONOUN = re.compile(r"^(?:one|ones|it|them|that|those|this|these|they|some|any|one of them)$")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "five": 5, "ten": 10, "fifteen": 15, "thirty": 30}
_UNITS = {"second": 1.0, "minute": 60.0, "hour": 3600.0}
_WINDOW = re.compile(
    r"\s*(?:in|during|within|over) the (?P<a>last|past|first) "
    r"(?:(?P<n>\d+(?:\.\d+)?|a|an|one|two|three|five|ten|fifteen|thirty) )?(?P<u>second|minute|hour)s?$"
)
_QUOTES = "\"'“”‘’`"


def validate_question(text: str, max_chars: int) -> str:
    stripped = text.strip()
    if not stripped:
        raise InputError("empty_question", "the question is empty")
    if len(stripped) > max_chars:
        raise InputError("question_too_long", f"the question has {len(stripped)} characters; the limit is {max_chars}")
    return stripped


# A pronoun's contracted auxiliary ("you'd", "we've", "they're"), with the words after it.
_CONTRACTED = re.compile(
    r"\b(?P<who>i|you|we|they|he|she|it)['’](?P<aux>d|ve|re|ll)\b(?=(?P<rest>(?: [a-z]+){0,3}))", re.I
)
_AUXILIARY = {"ve": "have", "re": "are", "ll": "will"}
# Words that may stand between "'d" and its participle ("you'd already left").
_BETWEEN_AUX = frozenset(("already", "just", "never", "ever", "only", "first", "last", "since", "not", "both", "all"))
# Past participles that look like no other form: "'d" before one is "had".
_PARTICIPLES = frozenset(("been", "gone", "seen", "done", "had", "got", "gotten", "come", "become", "begun", "run"))


def expanded_contractions(text: str, is_participle: Callable[[str], bool] | None = None) -> str:
    """A question with its pronouns' contracted auxiliaries written out: "you'd" is "you had" before a past
    participle ("once you'd left the yard"), else "you would"; "we've", "they're", "it'll" are "have", "are",
    "will".  ``is_participle`` tells an irregular participle ("left", "found") where WordNet is at hand."""

    def full(m: re.Match[str]) -> str:
        aux, rest = m["aux"].lower(), m["rest"]
        if aux != "d":
            return f"{m['who']} {_AUXILIARY[aux]}"
        after = [w for w in rest.lower().split() if w not in _BETWEEN_AUX]
        verb = after[0] if after else ""
        participle = verb in _PARTICIPLES or verb.endswith("ed") or bool(is_participle and is_participle(verb))
        return f"{m['who']} {'had' if participle else 'would'}"

    return _CONTRACTED.sub(full, text)


# "At what time did ..." asks what "when did ..." asks.
_WHAT_TIME = re.compile(rf"^(?:at )?{WHAT_MOMENT} (?=(?:did|was|were|had|have|has) )")


# A remark on the form of a position ("(x, y)", "(x, y in the map frame)"): no part of what is asked about.
_FORMAT_REMARK = re.compile(
    r"\s*\((?:\s*(?:x|y|z|and|in|the|as|a|an|of|frame|odom|map|metres|meters|m|coordinates?|position|please)"
    r"[\s,;.]*)+\)"
)


# A bare "how many" after a request to count says nothing the request did not ("Tally up the vans. How many?").
_BARE_HOW_MANY = re.compile(r"how many(?: (?:were|are) there| in all| in total| altogether| all told)?\s*[?.!]*")
_COUNT_REQUEST = re.compile(r"^(?:please )?(?:tally|count|add|total)(?: up)?\b", re.IGNORECASE)


def _count_request_asked(text: str) -> str:
    """A request to count followed by a bare "how many", as the one question it asks."""
    sentences = sentences_of(text)
    if len(sentences) >= 2 and _BARE_HOW_MANY.fullmatch(sentences[-1].lower()) and _COUNT_REQUEST.match(sentences[-2]):
        return " ".join([*sentences[:-2], sentences[-2].rstrip(".! ") + "?"])
    return text


def parse_question(text: str) -> ParsedQuestion | None:
    """The intent and targets of a supported question, or None."""
    text = _count_request_asked(text)
    route = route_question(text)
    if route is not None:
        return route
    parsed = places_counted(text) or away_question(text) or alternatives_question(text) or visit_question(text)
    parsed = parsed or neighbour_question(text)
    parsed = parsed or _parse_clause(text) or _bounded_count(text)
    if parsed is None:
        return None
    return with_this_visit(_resolved(with_either(with_times(with_ordinal(parsed))), _context(text)))


# A closing clause that points back to the place the question named ("a canoe in the loft when you went up
# there", "people in the hall while you were in it", "... during your visit there"): the place says it already.
_BACK_REFERENCE = re.compile(
    r",?\s+(?:(?:when|while|as|whenever|each time|every time) (?:you|the robot|it|we) (?:went|go|passed|walked|drove"
    r"|came|were|was|are|stopped|looked|called|checked|visited)(?: (?:through|in|into|past|by|inside|round|around|up"
    r"|down|over|in on))?(?: (?:it|there|them|in there|in it|that place|that room|that area))?"
    r"|(?:during|on) (?:your|that|each|every) (?:visits?|stops?|time)(?: (?:there|to it|in it|to them))?)"
    r"(?=\s*[?.!]*$)"
)
# ... after a place the question has named
_PLACE_NAMED = re.compile(r"\b(?:in|at|inside|on|by|near|around) (?:the|a|an|your|that|this)\b")


def without_back_reference(text: str) -> str:
    """The question less a closing clause that only points back to the place it named."""
    match = _BACK_REFERENCE.search(text)
    if match is None or not _PLACE_NAMED.search(text[: match.start()]):
        return text
    return text[: match.start()] + text[match.end() :]


# "How long have you been at the dock now", "... in this room", "... here": the visit going on when asked
# (ordinal -1, the last), at the place named, else wherever the robot is.
_THIS_VISIT = re.compile(r"\s+(?:this time|now|right now|at the moment|currently|on this visit|this visit|just now)$")
_HERE = re.compile(r"^(?:here|this (?:room|place|spot|area|location|space|part of the building)|where you are)$")
_STAYING = re.compile(
    r"^(?:standing|waiting|parked|stopped|sitting|stationed|staying|idling)(?: (?:at|in|on|by|near))? "
)


def with_this_visit(parsed: ParsedQuestion) -> ParsedQuestion:
    """A question of how long the robot has been at a place, asked of the visit going on: that visit alone."""
    if parsed.intent is not Intent.DURATION or parsed.modality is not Modality.PLACE:
        return parsed
    target = _STAYING.sub("", parsed.target)
    now = _THIS_VISIT.search(target)
    target = clean_target(target[: now.start()]) if now else target
    if _HERE.match(target):
        return replace(parsed, target="", ordinal=-1)
    return replace(parsed, target=target, ordinal=-1 if now else parsed.ordinal)


# A word that sets a count's end ("before", "by the time") or its start ("after", "since"), then what was met then
# ("how many signs did you read before the kite showed up"); "up to now" and the like bound nothing.
BOUND_WORDS = r"(?:before|prior to|until|till|up until|by the time|after|since|once)"
_BOUND_CLAUSE = re.compile(rf"\s+\b{BOUND_WORDS} (?!now\b|then\b|today\b)\S.*$")


def _bounded_count(text: str) -> ParsedQuestion | None:
    """A count whose clause reads only without the moment that bounds it; the planner finds that moment."""
    sentence = last_sentence(text)
    cut = _BOUND_CLAUSE.sub("", sentence.rstrip(" ?.!"))
    if cut == sentence.rstrip(" ?.!"):
        return None
    parsed = _parse_clause(cut + "?")
    return replace(parsed, text=text) if parsed is not None and parsed.intent is Intent.COUNT else None


def with_either(parsed: ParsedQuestion) -> ParsedQuestion:
    """ "Did you see a fox or a badger?" asks whether either was met; "did you see the fox or the badger first?"
    which came first."""
    if parsed.intent not in (Intent.DID, Intent.ORDER) or parsed.modality is Modality.PLACE:
        return parsed
    sentence = last_sentence(parsed.text)
    ordered = _ORDER_ASKED.search(sentence)
    if parsed.intent is Intent.ORDER:
        asks_order = ordered or not _YES_NO_OPENING.match(sentence)
        return parsed if asks_order else replace(parsed, intent=Intent.DID, relation="or")
    a, sep, b = parsed.target.partition(" or ")
    if not sep or parsed.other:
        return parsed
    target, other = clean_target(a), clean_target(_ORDER_ASKED.sub("", b))
    if not target or not other:
        return parsed
    if ordered:
        late = re.search(rf"\b(?:{_LATER})\b", sentence) is not None
        return replace(parsed, intent=Intent.ORDER, target=target, other=other, latest=late)
    return replace(parsed, target=target, other=other, relation="or")


_YES_NO_OPENING = re.compile(r"^(?:did|do|does|was|were|is|are|have|has|had)\b")


# "... twice", "... three times", "... more than once", "... at least 4 times": a yes/no question checking a count.
_HOW_OFTEN = {"once": 1, "twice": 2, "thrice": 3, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
_CHECKS = {"more than": "gt", "over": "gt", "at least": "ge", "fewer than": "lt", "less than": "lt", "under": "lt",
           "at most": "le", "no more than": "le", "not more than": "le", "exactly": "eq", "only": "eq"}  # fmt: skip
_TIMES_CHECKED = re.compile(
    rf"\s*\b(?:(?P<check>{'|'.join(sorted(_CHECKS, key=len, reverse=True))})\s+)?"
    r"(?P<n>once|twice|thrice|(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten) times)(?P<more> or more)?"
    r"(?:\s+(?:so far|in all|in total|altogether|today))?$"
)


def with_times(parsed: ParsedQuestion) -> ParsedQuestion:
    """A yes/no question that ends by naming how often ("did you see the fox twice?") checks that count."""
    if parsed.intent is not Intent.DID:
        return parsed
    match = _TIMES_CHECKED.search(last_sentence(parsed.text))
    if match is None:
        return parsed
    word = match.group("n").split()[0]
    n = int(word) if word.isdigit() else _HOW_OFTEN[word]
    check = "ge" if match.group("more") else _CHECKS.get(match.group("check") or "", "eq")
    target = clean_target(_TIMES_CHECKED.sub("", parsed.target)) or parsed.target
    return replace(parsed, target=target, times=(check, n))


def times_hold(check: str, n: float, found: float) -> bool:
    """Whether ``found`` (occasions, or seconds) passes a question's check of ``n`` ("more than once": found > 1)."""
    return {"eq": found == n, "gt": found > n, "ge": found >= n, "lt": found < n, "le": found <= n}[check]


# "The second time", "on your third visit": one occasion of several, counted from the first.
_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
_ORDINAL = re.compile(
    rf"(?:,?\s*\b(?:for|on|during|at|in)\s+)?\b(?:the|your|its|my)\s+(?P<n>{'|'.join(_ORDINALS)})\s+"
    r"(?:time|visit|occasion|stay|stop|pass|trip|round)\b"
    r"(?:\s+(?:that\s+)?(?:you|it|the robot)\s+\w+(?:\s+(?:it|them|one|there|by|past))?\b)?"
)


_LATER_OCCASION = re.compile(_ORDINAL.pattern + "$")
_AGAIN = re.compile(r"\b(?:again|once more|a second time|another time)$")


def ordinal_of(text: str) -> int:
    """Which occasion a question names by its place in order ("the second time"), or 0."""
    match = _ORDINAL.search(text.lower())
    return _ORDINALS[match.group("n")] if match else 0


# "How long did you see X the first time": the first occasion's length (elsewhere "first" asks when it began).
_FIRST_OCCASION = re.compile(
    r"(?:,?\s*\b(?:for|on|during|at|in)\s+)?\b(?:the|your|its) (?:very )?first (?:time|visit|occasion|stay|stop)\b"
    # "at the very start", "at the beginning of the shift": the first of the visits, said by when it was
    r"|,?\s*\b(?:at|in) the (?:very )?(?:start|beginning|outset)(?: of (?:the|your|its|this) (?:round|patrol|shift|run|day|night|tour|route|circuit|mission|session))?(?! of\b)"
    # ... closing the sentence or a clause, never naming a place ("at the start line")
    r"(?=\s*(?:[,?.!]|$)|\s+(?:when|while|as|did|does|do|was|were|is|are|had|has|have|you|it|and|or|before|after)\b)"
)


_FIRST_OCCASION_END = re.compile(_FIRST_OCCASION.pattern + "$")


def closing_occasion(sentence: str) -> tuple[str, int]:
    """A sentence without the occasion that closes it ("... on your first visit", "... the second time"), and
    that occasion's place in order (0 where none closes it)."""
    lower = sentence.lower().rstrip(" ?.!")
    for pattern in (_LATER_OCCASION, _FIRST_OCCASION_END):
        match = pattern.search(lower)
        if match is not None:
            return lower[: match.start()].rstrip(), ordinal_of(match.group(0)) or 1
    return lower, 0


# Which of several occasions a thing was met on, named by order or by being the later one ("on your later visit",
# "the last time you looked", "your second look at it"); -1 names the last.
_OCCASION_NOUNS = r"(?:time|visit|occasion|stay|stop|pass|trip|round|look|glance|check|sighting|reading|viewing)"
_OCCASION_NAMED = re.compile(
    rf"\b(?:the|your|its|my|that)\s+(?:very\s+)?(?P<n>first|earlier|initial|later|latter|last|latest|final|most recent"
    rf"|{'|'.join(_ORDINALS)})\s+{_OCCASION_NOUNS}\b"
)
_OCCASION_ORDER = {"first": 1, "earlier": 1, "initial": 1, **_ORDINALS}


def occasion_named(text: str) -> int:
    """Which occasion a question names (1 the first, -1 the last), or 0 where it names none."""
    match = _OCCASION_NAMED.search(text.lower())
    if match:
        return _OCCASION_ORDER.get(match["n"], -1)
    return 1 if first_occasion_named(text) else 0  # "at the very start", "on the first occasion"


def first_occasion_named(text: str) -> bool:
    """Whether a question names the first of several occasions ("the first time you met it", "on your first visit")."""
    return _FIRST_OCCASION.search(text.lower()) is not None


# The bearer of words told apart by a thing beside it: "the sign next to the kite", "the notice by the trolley".
_BESIDE_THING = re.compile(
    rf"\b{BEARER}s? (?:(?:that|which) (?:was|is|stood|hung|sat) |(?:did|have) (?:you|the robot|it) (?:see|read|pass"
    r"|notice|spot) )?(?:beside|near|by|next to|close to|alongside"
    r"|in front of|behind|above|below|under|over) (?:the|a|an|that|this) (?P<x>[a-z]+(?: [a-z]+)?)"
)
# Words that end the thing's name there ("the person the first time ...", "the kite say").
_NAME_ENDS = {"the", "a", "an", "when", "while", "as", "you", "it", "that", "which", "on", "in", "at", "during", "say",
              "says", "said", "read", "reads", "show", "shows", "showed", "display", "displayed", "state", "stated"}  # fmt: skip


def thing_beside(text: str) -> str:
    """The thing a sign is told apart by ("kite" of "what did the notice beside the kite say"), or ""."""
    match = _BESIDE_THING.search(text.lower())
    if match is None:
        return ""
    words = match.group("x").split()
    while words and words[-1] in _NAME_ENDS:
        words.pop()
    return " ".join(words)


def with_ordinal(parsed: ParsedQuestion) -> ParsedQuestion:
    """A plan with the occasion its question names by order, and its things without those words (said as the
    question put it, or as its idiom's plain form does: "the second sighting of X" is "X the second time")."""
    n = ordinal_of(parsed.text) or ordinal_of(_asked_clause(parsed.text))
    if not n and parsed.intent in (Intent.FIRST, Intent.LAST) and _AGAIN.search(_asked_clause(parsed.text)):
        target = clean_target(_AGAIN.sub("", parsed.target)) or parsed.target
        return replace(parsed, intent=Intent.FIRST, target=target, ordinal=2)  # "when did you see X again"
    if not n and parsed.intent is Intent.DURATION and first_occasion_named(parsed.text):
        target, other = (clean_target(_FIRST_OCCASION.sub("", x)) for x in (parsed.target, parsed.other))
        return replace(parsed, target=target, other=other, ordinal=1)
    if not n:
        return parsed
    target, other = (clean_target(_ORDINAL.sub("", x)) for x in (parsed.target, parsed.other))
    intent = Intent.FIRST if parsed.intent is Intent.LAST else parsed.intent  # "when ... the second time"
    return replace(parsed, intent=intent, target=target, other=other, ordinal=n)


def _resolved(parsed: ParsedQuestion, context: str) -> ParsedQuestion:
    """Targets as the words meant: quoted words as quoted ("read the words 'X'" -> X), and a pronoun or a
    question without one ("did you notice one?", "what did they say?") about what the context named."""
    target, modality = parsed.target, parsed.modality
    quoted = _QUOTED.search(target)
    if quoted and parsed.modality in (Modality.TEXT, Modality.SPEECH):
        target = quoted.group("q").strip()
    elif parsed.modality is Modality.OBJECT and (words := _QUOTED.search(_clause(parsed.text))):
        # Words quoted are words read or heard, never a thing's name ("when did you pass the 'WET FLOOR' sign").
        said = modality_named(parsed.text) is Modality.SPEECH
        target, modality = words.group("q").strip(), (Modality.SPEECH if said else Modality.TEXT)
    other = parsed.other
    if context and other and _PRONOUN.match(other):  # "the kiosk: where did you go before it?": the other is it
        other = _antecedent(context) or other
    unnamed = not target and (parsed.intent in (Intent.SAID, Intent.READ) or parsed.modality is Modality.PLACE)
    unnamed = unnamed and other == parsed.other
    there = parsed.modality is Modality.PLACE and target in ("there", "that place")  # "it" is a pronoun already
    if context and (_PRONOUN.match(target) or unnamed or there):  # "the boathouse - how many visits?": visits to it
        target = _antecedent(context) or target
    changed = target != parsed.target or modality is not parsed.modality or other != parsed.other
    return replace(parsed, target=target, modality=modality, other=other) if changed else parsed


def _context(text: str) -> str:
    """What comes before the asking sentence ("I lost a glove." of "I lost a glove. Did you see one?")."""
    sentences = _sentences(text)
    return " ".join(sentences[:-1]) if len(sentences) > 1 else ""


def _sentences(text: str) -> list[str]:
    """A question's sentences, a thing set before a colon counted as one ("the kiosk: what came after it?")."""
    return [s for s in re.split(rf"(?<=[.?!:])\s+|\s+[-–—]\s+(?={_ASKING_WORD})", text.strip()) if s.strip()]


# A word that opens a question ("boathouse - how many visits?": what follows the dash asks).
_ASKING_WORD = r"(?:what|which|where|when|who|how|did|was|were|have|has|had|is|are|do|does|can|could)\b"


def spelled_out(text: str) -> str:
    """The asking sentence with the pronouns that point back at what its context named said as that thing: "I need
    the caretaker. What's her name, going by the plate on her door?" asks for "the caretaker's name, going by the
    plate on the caretaker's door"; "the kiosk: what came next after it?" asks what came after the kiosk.  A pronoun
    a pattern reads as the thing asked about ("have you seen it") is resolved later, with its plan; those after a
    preposition or before a noun are said here, where no pattern would read them."""
    context = _context(text)
    thing = _antecedent(context) if context else ""
    if not thing:
        return text
    asking = _sentences(text)[-1]
    said = _POSSESSIVE.sub(lambda m: f"{m['lead']}the {thing}'s", asking)
    said = _AFTER_PREPOSITION.sub(lambda m: f"{m['prep']} the {thing}", said)
    return text if said == asking else text[: text.rfind(asking)] + said


# A pronoun after a preposition ("what came next after it", "who was near them"): the thing it points back at.
_AFTER_PREPOSITION = re.compile(
    r"\b(?P<prep>after|before|near|beside|by|inside|behind|around|than|from|at|in) (?:it|them)(?=[\s?.!,]|$)",
    re.IGNORECASE,
)
# A possessive pronoun before a noun ("her name", "its colour"): whose it is.  "Her" before a word that can open no
# noun phrase is the object ("did you see her yesterday").
_POSSESSIVE = re.compile(
    r"(?P<lead>^|\s)(?:her|his|its|their)(?=\s+[a-z])(?!\s+(?:yesterday|today|tonight|again|there|here|at|in|on|by"
    r"|near|before|after|when|while|earlier|later|first|last|once|twice|ever|anywhere|this|that|the|a|an|and|or|with"
    r"|to|from|about)\b)",
    re.IGNORECASE,
)


def _antecedent(context: str) -> str:
    """The thing a context sentence is about: what it says something was "about", else the first thing it
    introduces with "a" or "an", else the last it names with "the"."""
    words = context.lower()
    about = re.search(r"\babout (?P<t>[^,.;:!?]+)", words)
    if about:
        return clean_target(about.group("t"))
    new = re.search(rf"\b(?:a|an|some|my|our|his|her|their) (?P<t>{_NAME}){_NAME_END}", words)
    if new:
        return clean_target(new.group("t"))
    # ... the one a relative clause says more of ("the groom who works in the stables"), not a thing in that clause
    headed = re.search(rf"\b(?:the|that|this|those|these) (?P<t>{_NAME}) (?:who|whom|whose|that|which)\b", words)
    if headed:
        return clean_target(headed.group("t"))
    named = re.findall(rf"\b(?:the|that|this|those|these) (?P<t>{_NAME}){_NAME_END}", words)
    if named:
        return clean_target(named[-1])
    # a bare topic set before a colon or dash ("boat shed - how many visits?"): the thing itself
    topic = re.fullmatch(r"\s*(?P<t>[a-z][\w' -]{0,40}?)\s*[:\-–—]?\s*", words)
    return clean_target(topic.group("t")) if topic and len(topic.group("t").split()) <= 4 else ""


def _parse_clause(text: str) -> ParsedQuestion | None:
    normal, window = _split_window(_clause(text))
    window = window or _lead_window(text)
    for intent, modality, pattern in _COMPILED:
        match = pattern.match(normal)
        if match is None or (pattern in _BARE_COUNTS and _SOURCE_NAMED.search(text.lower())):
            continue
        groups = match.groupdict()
        # A comma ends the thing's name: what follows adds to the question ("a heron, even a picture of one").
        target = clean_target(((groups.get("t") or groups.get("t3") or "") + (groups.get("t2") or "")).split(", ")[0])
        other = clean_target(groups.get("o") or "")
        relation = ""
        if intent is Intent.ORDER:
            if groups.get("r") and (not _order_sides(target, other) or re.match(r"or\b", other)):
                continue
            if groups.get("r"):
                relation = "after" if groups["r"] in ("after", "later than") else "before"
            modality = modality_named(normal) or modality
            target, other = (_without_message_noun(without_arrival(x)) for x in (target, other))
        elif intent in (Intent.READ, Intent.AFTER) and groups.get("r"):
            intent = Intent.AFTER if groups["r"].endswith("after") else Intent.BEFORE
            if modality is Modality.PLACE:  # "the room before going (back) to the kiln": the kiln
                other = without_arrival(other)
        if modality in (Modality.OBJECT, Modality.TEXT) and (sign := _SIGN_TARGET.match(target)):
            modality, target = Modality.TEXT, clean_target(sign.group("t"))
        if intent is Intent.LAST and re.match(r"(?:very )?(?:first|earliest)\b", target):
            intent = Intent.FIRST  # "when did you hear the very first announcement"
        modality, target = refined(intent, modality, target)
        latest = False
        if intent is Intent.WHERE and modality is Modality.SPEECH and (nth := _NTH_MESSAGE.match(target)):
            target, latest = "", nth["w"] not in ("first", "earliest")  # where the first or last message was heard
        elif intent is Intent.WHERE and modality is Modality.SPEECH and target in ("anything", "something", "words"):
            target = ""  # "where were you when you first heard anything": the first (or last) message
            latest = re.search(r"\b(?:last|latest|most recently|final)\b", normal) is not None
        if not names_what_it_needs(intent, modality, target, other) or cites_a_text(intent, normal):
            continue
        now = intent is Intent.WHAT and ("now" in normal or normal.startswith(("what do", "what can", "what is")))
        return ParsedQuestion(text, intent, target, modality, other, window, now, relation, latest)
    return None


# The first or last message heard, named by its order alone.
_NTH_MESSAGE = re.compile(
    r"^(?:the )?(?:very )?(?P<w>first|earliest|last|latest|most recent|final) (?:message|announcement|thing said"
    r"|sentence|call|words?)s?$"
)


# Moving to, being at or leaving a place, with the place it names ("reached the gym", "got out onto the balcony",
# "been to the lab"): English verbs of motion and location, their particles and prepositions.
# Stopping somewhere, and going away from a place: verbs of being at or leaving a place.
_STOP_VERBS = r"(?:stop|stopped|halt|halted|pause|paused|park|parked|wait|waited|stay|stayed|linger|lingered)"
_GOING_AWAY = r"(?:went|go|pulled|pull|moved|move|drove|drive|headed|head) (?:away|off)"
# Being through with a place is leaving it ("once you had finished at the lab", "when you were done in the yard").
_FINISHED = r"(?:finish(?:ed|ing)?|(?:were|was|are|got) (?:done|finished)|done|wrapped up) (?:at|in|with|inside)"
_MOTION = (
    r"(?:been|go|goes|went|gone|get|got|gotten|come|came|arrive|arrived|reach|reached|enter|entered|visit|visited"
    r"|leave|left|exit|exited|head|headed|return|returned|drive|drove|driven|walk|walked|step|stepped|move|moved"
    r"|pass|passed|make it|made it|going|getting|coming|arriving|reaching|entering|visiting|leaving|exiting"
    rf"|returning|heading|set off|set out|{_GOING_AWAY}|{_STOP_VERBS}|finish|finished|finishing|done)"
)
_STOPPING = re.compile(rf"\b{_STOP_VERBS}\b")
_LEAVING = re.compile(
    r"\b(?:leave|left|leaving|exit|exited|exiting|depart|departed|moved? on from|c[oa]me out of|set (?:off|out) from"
    rf"|{_GOING_AWAY} from|{_FINISHED})\b"
)
_ARRIVING = re.compile(
    r"\b(?:reach|reached|reaching|arrive|arrived|arriving|enter|entered|entering|get|got|getting|come|came|coming"
    r"|make it|made it)\b"
)
_TO_PLACE = r"(?:to|into|onto|in|at|through|inside|by|across|from|of|near|beside|next to|close to)"
# Verbs of motion that take the place as their object ("reached the gym"); the rest need a preposition ("got to the
# gym": "got the message" is no place).
_TAKES_PLACE = (
    r"(?:reach|reached|reaching|enter|entered|entering|visit|visited|visiting|leave|left|leaving|exit|exited|exiting"
    r"|pass|passed|passing|approach|approached|approaching)"
)
_PLACE_OBJECT = re.compile(
    rf"\b(?:{_TAKES_PLACE}(?: (?:out|back|up|down|over|inside|outside|in))*(?: {_TO_PLACE})*"
    rf"|{_MOTION}(?: (?:out|back|up|down|over|inside|outside|in))*(?: {_TO_PLACE})+)"
    r" (?P<place>(?:the|a|an|that|this|your) [a-z0-9' -]+?)"
    r"(?=[,;:?.]|$| (?:and|before|after|when|while|then|next|yet|so far|already|again|first|last|earlier|later|once"
    r"|ever|at any|(?:more|fewer|less) than|at (?:least|most)|exactly|twice|thrice|\w+ times)\b)"
)
# A place named with no article after a verb that can only take a place ("have you been to baggage claim yet",
# "did you visit reception"): one to three words that hold no other word of the sentence's grammar.
_BARE_PLACE_OBJECT = re.compile(
    r"\b(?:(?:been|gone|went|go|get|got|come|came|arrived?) (?:to|into|in at|at|through)|visit|visited|reach"
    r"|reached|enter|entered) (?P<place>(?!(?:the|a|an|that|this|your|my|our|his|her|their|its|any|some|see|check"
    r"|look|find|fetch|pick|meet|know|think|work|be|do|have|make|take|get)\b)[a-z][a-z0-9'-]*(?: [a-z0-9'-]+){0,2}?)"
    r"(?=[,;:?.]|$| (?:and|before|after|when|while|then|next|yet|so far|already|again|first|last|earlier|later|once"
    r"|ever|at any|today|tonight)\b)"
)
_SENSING = re.compile(rf"\b(?:{_SEE}|{_HEAR}|{_READ}|{_SAY}|seen|saw|watch|look)\b")


def _bare_place_object(sentence: str) -> re.Match[str] | None:
    """A place named with no article, not a word of the sentence's grammar ("went to right after ...")."""
    found = _BARE_PLACE_OBJECT.search(sentence)
    first = found.group("place").split()[0] if found else ""
    return found if found and first not in FUNCTION_WORDS and first not in _ADVERBS_OF_GOING else None


# Adverbs that follow a verb of going and name no place ("went right after", "got straight back").
_ADVERBS_OF_GOING = frozenset(("right", "just", "straight", "back", "next", "there", "here", "first", "again", "later"))
_MEASURE = re.compile(r"\bhow (?:many|often|long|much)\b")


# "What / which ... <verb of meeting> ... right after <anchor>": the thing met next to another, however the words
# before the relation are put ("what was the next thing you read after", "which sign did you read right after").
_NEIGHBOUR_ASKED = re.compile(
    r"^(?:(?:tell me|say|list|name) )?(?:what|which)\b(?P<head>.*?)\s(?:right |just |directly |immediately |straight )?"
    r"(?P<r>before|after|next after|prior to|following)\s+(?P<o>.+)$"
)
_ANCHOR_MET = re.compile(
    rf"^(?:you |the robot |it )?(?:saw|{_SEE}|{_READ}|\w+ing(?= (?:the|a|an|some|that|this|these|those|your)\b))\s+"
)


# A modal before the relation word ("what should happen after lunch", "what must be done before noon"), or a thing
# set for a time ("what is scheduled for next week"), asks what was to be done then, as something heard or read
# said: not what was met next to a thing.
_PLANNED = re.compile(
    r"\b(?:should|must|shall|will|would|ought to|(?:is|are|was|were) to|ha(?:s|ve|d) to|needs? to"
    r"|(?:supposed|meant|due|expected|scheduled|planned) to|(?:scheduled|planned|due|set|booked|arranged|fixed"
    r"|pencilled in|lined up) (?:for|on|at)|happening|taking place|coming up|going on)\b"
)
# The days and spans of a calendar: "next" or "following" before one of them names a date, not the next thing met.
CALENDAR = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|weekend|month|year|day|morning|afternoon"
    r"|evening|night|shift|season|quarter|january|february|march|april|may|june|july|august|september|october"
    r"|november|december)s?"
)


def asks_what_was_planned(head: str) -> bool:
    """Whether the words before a question's "before" or "after" ask what was to be done then."""
    return _PLANNED.search(head) is not None


def neighbour_question(text: str) -> ParsedQuestion | None:
    """What was seen, read or heard right before or after a thing, read from the relation word and the verb of
    meeting before it rather than from a sentence's shape."""
    clause = asking_clause(text)
    match = _NEIGHBOUR_ASKED.match(clause)
    if match is None or re.search(r"\b(?:before or after|after or before)\b", clause):
        return None
    if asks_what_was_planned(match.group("head")):
        return None
    head = _NOTICING.sub(r"\g<who> see", match.group("head"))
    met = modality_named(head)
    if met is None and not re.search(r"\b(?:come|came|show|showed|appear|appeared)\b", head):
        return None
    other = clean_target(_ANCHOR_MET.sub("", match.group("o")))
    if met is Modality.SPEECH:  # "what was said right after the lunch announcement": after what it was about
        other = _without_message_noun(other)
    if not other or CLOCK.search(other) or _INDEFINITE.match(other):
        return None
    intent = Intent.BEFORE if match.group("r") in ("before", "prior to") else Intent.AFTER
    return ParsedQuestion(text, intent, "", met or Modality.OBJECT, other, window_of(text))


# The places the robot stayed at, counted with no description of one: "how many rooms did you go to", "how many
# stops did you make", "how often did you stop".  Stops and visits count stays; places, rooms and areas count the
# different places.
_VISIT_NOUNS = r"(?:stops|visits|halts|stays|pauses)"
_PLACE_NOUNS = rf"(?:places|rooms|locations|areas|spots|sites|destinations|parts of the building|{_VISIT_NOUNS})"
_AT_PLACES = (
    r"(?:visit|visited|go to|went to|gone to|go into|went into|gone into|been to|been in|been at|been|stop at"
    r"|stopped at|stop in|stopped in"
    r"|stay at|stayed at|stay in|stayed in|pass through|passed through|go through|went through|enter|entered|make"
    r"|made|reach|reached|call at|called at|check|checked|cover|covered|patrol|patrolled|drive through|drove through"
    r"|get to|got to|come to|came to|pause at|paused at)"
)
_PLACES_COUNTED = re.compile(
    rf"^(?:in )?how many (?:(?:different|distinct|separate|unique|individual|other) )*(?P<n>{_PLACE_NOUNS})"
    r"(?: (?:with|that had|having|where there was|where there were) (?P<with>(?:a|an|any|some) [a-z ]+?))?"
    rf"(?: (?:did|have|had|has) {_SELF}(?: \w+)? {_AT_PLACES}| (?:were|was) {_SELF}(?: at| in)?"
    rf"| (?:were|are|have been|had been) (?:there|visited|on (?:the|your|its) \w+)| {_SELF} {_AT_PLACES})?"
    r"(?: by then| by now| so far| yet| in total| in all| altogether| overall)?$"
)
# The robot's route as a whole: every stay in order, or one stay named by its place in order ("where have you been",
# "which rooms did you pass through", "list the places you stopped at", "what was your second stop").
_STOP_ORDER = {**_OCCASION_ORDER, "last": -1, "latest": -1, "final": -1, "most recent": -1, "previous": -1}
_STOP_ORDINAL = rf"(?:first|last|latest|final|most recent|previous|{'|'.join(_ORDINALS)})"
_ANY_PLACE = rf"(?:{_PLACE_NOUNS}|{_PLACE}|destination|visit|halt|stay|pause)"
_WENT = (
    r"(?:been|gone|go|went|stop|stopped|travel|traveled|travelled|drive|driven|drove|move|moved|visit|visited|patrol"
    r"|patrolled|wander|wandered|roam|roamed|pass|passed|pass through|passed through|head|headed|stay|stayed)"
)
_SO_FAR = (
    r"(?: (?:so far|today|tonight|yet|by now|until now|up to now|in total|altogether|overall|in all"
    r"|(?:on|during|over) (?:the|your|its|this) (?:patrol|round|shift|run|tour|mission|trip)))*"
)
_ROUTE_NOUNS = r"(?:route|path|itinerary|journey|trip|movements|whereabouts|rounds|stops|travels|circuit)"
_ROUTE_ASKED = re.compile(
    "|".join(
        (
            # "where have you been", "where did you stop first", "where all did you go today"
            rf"^where (?:all |else )?(?:have|had|did|has) {_SELF} {_WENT}(?: to| at| in)?(?: (?P<o1>{_STOP_ORDINAL}))?"
            rf"{_SO_FAR}$",
            # "which rooms did you visit", "what places have been patrolled", "which room did you enter last"
            rf"^(?:which|what) (?:(?:different|distinct|separate|unique|individual|other) )*{_ANY_PLACE}"
            rf"(?: (?:did|have|had|has) {_SELF} {_AT_PLACES}| (?:were|was|have been|had been) (?:visited|patrolled"
            rf"|covered|checked|passed through)(?: by {_SELF})?)(?: (?P<o2>{_STOP_ORDINAL}))?{_SO_FAR}$",
            # "list the places you stopped at", "name every room you went through", "tell me all the areas visited"
            rf"^(?:please )?(?:(?:can|could|would|will) you (?:please )?)?(?:list|name|enumerate|give me|tell me"
            rf"|show me|recount|recite|go through|run through|walk me through)(?: (?:all|every|each|of))*"
            rf"(?: the| your| its)? (?:(?:different|distinct|separate|unique) )*{_ANY_PLACE}"
            rf"(?:(?: (?:that|which|where))?(?: {_SELF}(?: (?:have|had|has))?)? (?:{_AT_PLACES}|visited|patrolled"
            rf"|covered|checked|passed|passed by|went past|stopped)(?: at| in)?)?{_SO_FAR}$",
            # "what was your route", "describe the path you took", "what route did you follow"
            rf"^(?:what|which) (?:was|is|were) (?:your|its|the robot's|the) {_ROUTE_NOUNS}{_SO_FAR}$",
            rf"^(?:describe|summari[sz]e|outline|retrace|recount|give me|tell me|show me|walk me through|tell me about)"
            rf" (?:your|its|the robot's|the) {_ROUTE_NOUNS}(?: (?:that |which )?{_SELF} (?:took|followed|made"
            rf"|went on))?{_SO_FAR}$",
            rf"^(?:what|which) (?:route|path|way) (?:did|have|had) {_SELF} (?:take|taken|follow|followed|travel"
            rf"|travelled|traveled|drive|driven)?{_SO_FAR}$",
            # "what was the first place you visited", "where was your last stop", "which was the second room you
            # entered"
            rf"^(?:what|which|where) (?:was|is) (?:the|your|its|the robot's) (?P<o3>{_STOP_ORDINAL}) {_ANY_PLACE}"
            rf"(?:(?: (?:that|which|where))?(?: {_SELF})? (?:{_AT_PLACES}|visited|stopped|went|made)(?: at| in| to)?)?"
            rf"{_SO_FAR}$",
        )
    )
)


def route_question(text: str) -> ParsedQuestion | None:
    """Where the robot has been: every stay in order, or the one a question names by its order ("your first
    stop": 1, "the last room you entered": -1), within the question's window."""
    normal, window = _split_window(_clause(text))
    found = _ROUTE_ASKED.match(normal)
    if found is None:
        return None
    which = found["o1"] or found["o2"] or found["o3"]
    ordinal = _STOP_ORDER.get(which, 0) if which else 0
    return ParsedQuestion(text, Intent.ROUTE, "", Modality.PLACE, window=window or _lead_window(text), ordinal=ordinal)


_STOPS_COUNTED = re.compile(
    rf"^how (?:many times|often) (?:did|have|has|had) {_SELF} (?:stop|stopped|halt|halted|pause|paused|come to a stop"
    r"|came to a stop|made a stop|make a stop)(?: anywhere| somewhere| along the way)?$"
)


def places_counted(text: str) -> ParsedQuestion | None:
    """A count of the places stayed at (or of the stays, where stops or visits are counted), of every one or of
    those with a thing ("how many rooms with a sign did you stop in")."""
    normal, window = _split_window(_clause(text))
    found = _PLACES_COUNTED.match(normal)
    if found is None and _STOPS_COUNTED.match(normal) is None:
        return None
    having = clean_target(found["with"] or "") if found is not None else ""  # "places with a sign": those alone
    return ParsedQuestion(text, Intent.COUNT, having, Modality.PLACE, window=window or _lead_window(text))


def counted_thing(clause: str) -> str:
    """The things "how many" counts where they are not visits, places or occasions ("sacks" of "how many sacks
    ..."); "" for those and for no count."""
    found = re.search(r"\bhow many (?:(?:different|distinct|separate|other) )*(?P<n>[a-z]+)", clause.lower())
    if found is None or re.fullmatch(rf"times|occasions|{_PLACE_NOUNS}", found["n"]):
        return ""
    return found["n"]


def counts_stays(text: str) -> bool:
    """Whether a count of places counts each stay ("how many stops") rather than each different place."""
    normal = _clause(text)
    found = _PLACES_COUNTED.match(_split_window(normal)[0])
    return found is None or re.fullmatch(_VISIT_NOUNS, found["n"]) is not None


# The time away from a place before coming back: "how long were you away from the lab", "how long before you came
# back to the kitchen", "how long did it take to return to the dock".
_AWAY = re.compile(
    rf"^how (?:long|much time|many (?:seconds|minutes|hours))(?: (?:were|was) {_SELF} (?:away|gone) from"
    rf"| (?:was it |did it take(?: {_SELF})? )?(?:before|until|till|to) (?:{_SELF} )?(?:came|come|got|get|went|go"
    rf"|headed|head) back to| (?:was it |did it take(?: {_SELF})? )?(?:before|until|till|to) (?:{_SELF} )?"
    r"(?:returned|return) to) (?P<place>.+?)(?: (?:again|between (?:your|its|the) \w+ visits|in between|after"
    r" (?:leaving|you left) (?:it|there)))?$"
)


def away_question(text: str) -> ParsedQuestion | None:
    """How long the robot was away from a place before it came back, or None."""
    found = _AWAY.match(last_sentence(text))
    place = clean_target(found["place"]) if found else ""
    if not place:
        return None
    return with_ordinal(ParsedQuestion(text, Intent.DURATION, place, Modality.PLACE, leaving=True))


def visit_question(text: str) -> ParsedQuestion | None:
    """A question about being at a place, read from its verb of motion and the place that verb names, not from a
    sentence pattern: when the robot got to a place (first or last), whether it has been there, where it went after
    leaving one or before reaching one.  None for anything else, and for questions that also see, read or hear
    (counts and durations of visits are read by the patterns)."""
    sentence = _UP_TO_NOW.sub("", plain_asking(last_sentence(text)))  # "... for the first time": "first ..."
    found = _PLACE_OBJECT.search(sentence) or _bare_place_object(sentence)
    if found is None or _MEASURE.search(sentence):
        return None
    if _SENSING.search(sentence[: found.start("place")] + sentence[found.end("place") :]):
        return None  # "the spot" names a place; "spotted" outside it is seeing
    place = clean_target(found.group("place"))
    if not place or _PRONOUN.match(place):
        return None
    # "Where", or "which / what" with a place noun: not "what does it cost to leave a bag in the lockers"
    asks_place = re.search(
        r"\bwhere\b|\b(?:which|what)(?! time\b) (?:\w+ )?(?:place|room|area|spot|location|site|stop|destination"
        r"|part of the building)s?\b|\bwhat (?:did|do|have|had) (?:you|it|the robot) (?:visit|enter|reach|go to|head to"
        r"|move to|drive to|come to)\b",
        sentence,
    )
    if asks_place and (_LEAVING.search(sentence) or re.search(r"\b(?:next|after|then)\b", sentence)):
        leaving_or_after = _LEAVING.search(sentence[: found.end()]) or " after " in f" {sentence} "
        if leaving_or_after or re.search(r"\bnext\b", sentence):
            return ParsedQuestion(text, Intent.AFTER, "", Modality.PLACE, place)
    if asks_place and re.search(r"\bbefore\b", sentence) and _ARRIVING.search(sentence):
        return ParsedQuestion(text, Intent.BEFORE, "", Modality.PLACE, place)
    if sentence.startswith(("when", "at what time", "what time")) and (
        _ARRIVING.search(sentence) or _LEAVING.search(sentence)
    ):
        last = re.search(r"\b(?:last|most recently|latest|finally)\b", sentence)
        leaving = _LEAVING.search(sentence) is not None and not _ARRIVING.search(sentence)
        back = not last and re.search(r"\b(?:back|again|return|returned|returning)\b", sentence) is not None
        intent = Intent.LAST if last else Intent.FIRST  # "when did you come back to X": the first return, its 2nd visit
        return ParsedQuestion(text, intent, place, Modality.PLACE, ordinal=2 if back else 0, leaving=leaving)
    if sentence.startswith("where") and _STOPPING.search(sentence[: found.start("place")]):
        return ParsedQuestion(text, Intent.WHERE, place, Modality.PLACE)  # "where did you stop near X": that stay
    if re.search(r"\b(?:before|after|prior to) \w", sentence[found.end("place") :]):
        return None  # "had you been to X before Y": an order, read by the patterns
    if re.search(
        r"\b(?:before|after|since|until|till|prior to) (?:you|the robot|it|we) (?:had )?$", sentence[: found.start()]
    ) and not re.match(r"(?:have|had|has|did|were|was) (?:you|the robot|it|we)\b", sentence):
        return None  # "did the bell ring after you got to X": the visit sets when; the bell is asked about
    if re.match(r"(?:have|had|has|did|were|was)\b", sentence) and re.search(
        r"\b(?:been|visit|visited|go|gone|went|come|came|get|got|return|returned)\b", sentence
    ):
        back = re.search(r"\b(?:back|again|return|returned|revisit|revisited)\b", sentence) is not None
        return ParsedQuestion(text, Intent.DID, place, Modality.PLACE, ordinal=2 if back else 0)  # a second visit
    return None


# Words that ask which of two came first, or last.
_EARLIER = r"earlier|earliest|first|sooner|soonest"
_LATER = r"later|latest|last|more recently|most recently"
_TIME_WORD = re.compile(rf"\b(?:(?P<early>{_EARLIER})|(?P<late>{_LATER}))\b")
# Words that ask which came first or last: with them "A or B" is an order, without them either of two.
_ORDER_ASKED = re.compile(rf"\b(?:{_EARLIER}|{_LATER}|before|after|prior)\b")
# What names one of the two before its description ("the one about", "the message concerning").
_ALTERNATIVE_HEAD = re.compile(
    r"^(?:the |a |an )?(?:one|ones|thing|message|announcement|sign|notice|news)? ?(?:about|on|concerning|regarding"
    r"|with|saying|that said)? ?"
)


def alternatives_question(text: str) -> ParsedQuestion | None:
    """ "Which came first, A or B?", in any arrangement of its parts ("A or B: which did you read earlier?",
    "which announcement came later: the one about A or the B warning?"): the clause that offers two things joined
    by "or", and a word asking which came first or last.  Read from that grammar, not a sentence pattern; how the
    two were met (read, heard, seen) is left to the words naming it."""
    sentence = last_sentence(text)
    when = _TIME_WORD.search(sentence)
    if when is None or not re.search(r"\b(?:which|what|who)\b", sentence) or " or " not in sentence:
        return None
    offered = next((c for c in re.split(r"\s*[:;,]\s*|\s+-\s+", sentence) if " or " in c), "")
    # Past the words that ask ("which came first the kite or the ball"): the two things follow them.
    asking = re.match(rf"^.*?\b(?:{_EARLIER}|{_LATER})\b\s*", offered)
    if asking and re.match(r"^(?:which|what|who)\b", offered):
        offered = offered[asking.end() :]
    a, _, b = offered.partition(" or ")
    target, other = (_without_message_noun(clean_target(_ALTERNATIVE_HEAD.sub("", x.strip()))) for x in (a, b))
    if not target or not other or _PRONOUN.match(target) or _PRONOUN.match(other):
        return None
    modality = modality_named(sentence) or Modality.OBJECT
    if modality in (Modality.SPEECH, Modality.TEXT):
        target, other = topic_of(target), topic_of(other)
    return ParsedQuestion(text, Intent.ORDER, target, modality, other, latest=when.group("late") is not None)


def last_sentence(text: str) -> str:
    sentences = sentences_of(text.lower())
    return plain_sentence(re.sub(r"\s+", " ", sentences[-1] if sentences else "").strip().rstrip("?.! "))


# Someone unnamed, as the thing seen ("anybody", "any people", "a human being").
_ANY_PERSON = re.compile(
    r"^(?:(?:any|some|a|an|other|several|many|different)\s+)?(?:anyone|anybody|someone|somebody|people|persons?"
    r"|humans?|human beings?|individuals?|visitors?)(?:\s+(?:at all|else|around|about|there|here))?"
)
_SOMEONE = re.compile(r"^(?:anyone|anybody|someone|somebody)(?:\s+else)?\b")
_INDEFINITE = re.compile(r"^(?:anything|something|anyone|someone|anybody|somebody|what|it)\b")
CLOCK = re.compile(r"^(?:\d|noon\b|midnight\b|(?:the )?(?:start|beginning|end)\b)|\b(?:o'clock|a\.?m\.?|p\.?m\.?)$")
# What was heard, named by its kind after its topic ("the delivery message").
MESSAGE_NOUN = re.compile(r"\s+(?:message|announcement|news|call|remark)s?$")


# A count of what was read that names only the kind of thing read ("different notices"), not what it said.
_ANY_SIGN = re.compile(
    "^"
    + either_of(
        r"(?:(?:different|distinct|separate|unique|individual|other) )*(?:signs?|notices?|texts?|labels?|posters?"
        r"|words|things?(?: written)?|plates?|placards?|plaques?)"
    )
    + "$"
)
# Things that bear words, named only by their kind.
_BEARERS_ONLY = re.compile(
    "^"
    + either_of(rf"(?:(?:different|distinct|separate|unique|individual|other) )*(?:{_BEARER_KINDS}|signboards?)")
    + "$"
)
_RECENCY = re.compile(r"^(?:(?:very|first|last|latest|earliest|most recent|newest|final|previous|next) )+")
# A count of what was heard that names only the kind of thing heard ("radio calls"), not what it was about.
_ANY_MESSAGE = re.compile(
    r"^(?:(?:the|a|an|that|this|any) )?(?:[a-z-]+'s )?"  # whose it was tells no topic ("the courier's question")
    + either_of(
        rf"(?:{_MESSAGE_KINDS}|news|times?|(?:(?:different|distinct|separate|individual|other) )*(?:things?|words"
        r"|stuff|topics?|subjects?|matters?))"
    )
    + "$"
)


# The kind of thing a text was written on, said after its words ("a wet floor warning", "the exit sign").
_TEXT_KINDS = r"(?:sign|notice|label|poster|warning|board|plaque|placard|banner|note|screen|display|sticker|caption)"
_TEXT_KIND = re.compile(rf"\s+{_TEXT_KINDS}s?$")


def refined(intent: Intent, modality: Modality, target: str) -> tuple[Modality, str]:
    """How a plan's thing was met and its name, as its words say, whoever read the question (rules or model):
    "any mention of a leak" was heard, "through the lobby" is a place, "a wet floor warning" is read as "wet
    floor", and "voice messages" counted are all messages."""
    if modality is Modality.OBJECT and (heard := spoken_of(target)):
        modality, target = Modality.SPEECH, heard
    if modality in (Modality.OBJECT, Modality.PLACE) and target and names_any_message(target):
        modality = Modality.SPEECH  # "how many radio calls reached you": messages, however they came
    if modality is Modality.OBJECT:  # "did you see anybody (in the hall)": whoever was seen, a person
        target = "person" if _ANY_PERSON.fullmatch(target) else _SOMEONE.sub("person", target, count=1)
    if intent in (Intent.COUNT, Intent.DURATION) and modality is Modality.OBJECT and (place := place_passed(target)):
        modality, target = Modality.PLACE, place
    if intent is Intent.COUNT and modality is Modality.OBJECT and _BEARERS_ONLY.match(target):
        modality = Modality.TEXT  # "how many signs did you spot": the signs are known by what was read on them
    if intent is Intent.COUNT and modality is Modality.TEXT and _ANY_SIGN.match(target):
        target = ""  # "how many different signs did you read": every sign read is counted
    if modality is Modality.TEXT:
        target = sign_words(target)
    if modality in (Modality.SPEECH, Modality.TEXT):  # "the message about the printer" was about the printer
        target = topic_of(_THAT_CLAUSE.sub("", target))  # "(heard) that the lift was out": the lift was out
    if intent is Intent.DID and modality is Modality.SPEECH and names_any_message(target):
        target = "anything"  # "has anyone asked you a question", "did you hear any announcements": any message
    if intent in (Intent.COUNT, Intent.FIRST, Intent.LAST) and modality is Modality.SPEECH:
        plain = _RECENCY.sub("", target)  # "the latest message", "the first thing said": any message at all
        anyone = _ANYONE_SPEAKING.match(plain)  # "when did you last hear someone speak": the last message
        target = "" if names_any_message(plain) or anyone or plain in ("anything", "something") else target
    if intent is Intent.WHERE and modality is Modality.SPEECH and names_any_message(target):
        target = ""  # "where did you hear the visitor's question": where a message was heard (which one, by its order)
    return modality, target


_ABOUT_HEAD = re.compile(
    r"^(?:the |a |an |that |this )?(?:message|announcement|call|news|remark|words?|sentence|talk)s? (?:about|on the subject of"
    r"|on|regarding|concerning|that said|saying) "
    # whatever a thing heard or read is called ("the alert about", "a request concerning"), its topic follows
    r"|^(?:the |a |an |that |this |any )?(?:[a-z'-]+ )?[a-z-]+ (?:about|regarding|concerning|on the subject of) (?!to\b)"
)


_THAT_CLAUSE = re.compile(r"^that\s+(?=\S)")


def topic_of(name: str) -> str:
    """What a message or text named with its topic is about ("the freezer" of "the alert about the freezer")."""
    return clean_target(_ABOUT_HEAD.sub("", name)) or name


_ANYONE_SPEAKING = re.compile(
    r"^(?:someone|anyone|somebody|anybody|people|a person|a voice|voices|anything|something)(?: (?:speak|speaking|talk"
    r"|talking|say anything|say something|saying anything|saying something|spoken|said))?$"
)


def sign_words(target: str) -> str:
    """The words a text asked about holds: "wet floor" of "a wet floor warning" (a sign that reads WARNING is
    still found by the words before it)."""
    return _TEXT_KIND.sub("", target) or target


def cites_a_text(intent: Intent, question: str) -> bool:
    """Whether a question about where or when says its answer is what a text or someone says ("where was it
    made, according to the label?"): those words are asked for, not the robot's position or a moment."""
    return intent in (Intent.WHERE, Intent.FIRST, Intent.LAST) and cites_a_source(question)


# Talk named as a thing: "any mention of a leak", "word about the delivery".
_TALK_OF = re.compile(
    r"^(?:(?:any|a|an|some|the) )?(?:mention|talk|word|news|announcement|discussion|message|rumou?r)s? (?:of|about|on"
    r"|regarding|concerning) (?P<t>.+)$"
)


def spoken_of(target: str) -> str:
    """What talk named as a thing was about ("a leak" of "any mention of a leak"), or "" when it is no talk."""
    match = _TALK_OF.match(target.lower())
    return clean_target(match.group("t")) if match else ""


# Moving through a place, said before it: "through the lobby" of "how often did you pass through the lobby".
_THROUGH = re.compile(r"^(?:through|into|inside|in|to|at|across) ")


def place_passed(target: str) -> str:
    """The place a visit is described by ("lobby" of "through the lobby"), or "" when it names no place so."""
    return clean_target(_THROUGH.sub("", target)) if _THROUGH.match(target.lower()) else ""


def resolve_context(parsed: ParsedQuestion) -> ParsedQuestion:
    """A plan whose thing is a pronoun ("have you seen it?") about what the question's context named."""
    return _resolved(parsed, _context(parsed.text))


def names_any_message(target: str) -> bool:
    """Whether a thing heard is named only as a message ("voice messages"): every message heard is meant."""
    return bool(_ANY_MESSAGE.match(target.lower()))


def _order_sides(target: str, other: str) -> bool:
    """Whether "was A before B" orders two things: not "did you see anything before B" (what came before it),
    nor "was A seen before noon" (a time)."""
    return bool(target and other) and not _INDEFINITE.match(target) and not CLOCK.search(other)


# Getting somewhere, said before a side's name ("before reaching the kiosk", "after you got to the kite"): the
# thing was met there, in view.
ARRIVAL = (
    r"(?:reach|reached|reaching|get to|got to|getting to|arrive at|arrived at|arriving at|enter|entered|entering"
    r"|come to|came to|coming to|make it to|made it to|making it to|go to|went to|going to|been to|been in|been at"
    r"|(?:been|gone|go|went|going|got|get|getting|come|came|coming|head|headed|heading) (?:up|down|out|over|across"
    r"|round|back|in) (?:to|on|onto|at|into|in)"
    r"|gone to|gone into|visit|visited|visiting|back (?:to|at|in|into)|return(?:ed|ing)? to)"
)
_LEADING_ARRIVAL = re.compile(rf"^(?:(?:you|the robot|it) )?{ARRIVAL}\s+")


def without_arrival(name: str) -> str:
    """ "reaching the kiosk" names the kiosk: how it was got to says it was met there."""
    return clean_target(_LEADING_ARRIVAL.sub("", name)) if _LEADING_ARRIVAL.match(name) else name


def _without_message_noun(name: str) -> str:
    """ "the shutter message" names the shutter: what a message was about is what was heard."""
    return MESSAGE_NOUN.sub("", name) or name


def asking_clause(text: str) -> str:
    """The clause that asks, normalised, without past context, remarks on a position's form or a time window."""
    return _split_window(_clause(text))[0]


def window_of(text: str) -> Window | None:
    """The time window a question sets ("in the last 5 minutes", "by ten minutes in, ..."), whoever reads the
    rest of it."""
    return _split_window(_clause(text))[1] or _lead_window(text)


# "By 2 minutes in", "within the first hour", "up to ten minutes into the patrol": memory's first stretch, said
# anywhere in the question (often in a clause before the one that asks).
_LEAD_WINDOW = re.compile(
    r"\b(?:(?:by|up to|until|till|at) (?P<n>\d+(?:\.\d+)?|a|an|one|two|three|five|ten|fifteen|thirty) "
    r"(?P<u>second|minute|hour)s? (?:in|into (?:the |your |its |this )?\w+)\b"
    r"|\b(?:in|within|during|over) the first (?P<n2>\d+(?:\.\d+)?|a|an|one|two|three|five|ten|fifteen|thirty)? ?"
    r"(?P<u2>second|minute|hour)s?\b)"
)


def without_window(phrase: str) -> str:
    """A phrase less the time window it sets: "in the hall in the last hour" is "in the hall", "in the first two
    minutes of the patrol" is nothing."""
    rest, window = _split_window(phrase)
    if window is not None:
        return rest
    lead = _LEAD_WINDOW.search(phrase.lower())
    return phrase[: lead.start()].strip() if lead else phrase


def _lead_window(text: str) -> Window | None:
    match = _LEAD_WINDOW.search(text.lower())
    if match is None:
        return None
    return _window("first", match.group("n") or match.group("n2"), match.group("u") or match.group("u2"))


def _window(anchor: str, count: str | None, unit: str) -> Window:
    """A window of ``count`` (a numeral or a number word; none: one) ``unit``s from the anchor."""
    amount = float(_NUMBERS.get(count or "1", count or "1"))  # type: ignore[arg-type]
    return Window(anchor, amount * _UNITS[unit])


def _clause(text: str) -> str:
    """The interrogative clause, normalised: past context, format remarks, a closing "up to now" and the closing
    occasion of a question of how long ("... on your second visit", which ``with_ordinal`` reads) left out, and "next to" said as "beside" (a
    place, not the next thing in time)."""
    clause = _asked_clause(text)
    if clause.startswith(("how long", "for how long", "how much time")):  # the occasion timed, not an anchor's
        clause = _FIRST_OCCASION_END.sub("", _LATER_OCCASION.sub("", clause).rstrip()).rstrip()
    return re.sub(r"\bnext to\b", "beside", clause)


def _asked_clause(text: str) -> str:
    return _UP_TO_NOW.sub("", _WHAT_TIME.sub("when ", interrogative(_FORMAT_REMARK.sub("", text))))


# A closing adverbial that bounds a question by the moment it is asked ("up to this moment", "until the present",
# "to date"): every question sees only memory up to then, so it changes nothing asked.
_UP_TO_NOW = re.compile(
    r"(?:,? (?:up to|up until|until|till|as of|by|at) (?:now|this (?:moment|point|time|stage|minute|second)"
    r"|the (?:present|current) (?:moment|time)|the present|present)|,? (?:to date|thus far|so far|as yet|all told))+$"
)


def content_words(text: str) -> list[str]:
    """The words of a question worth searching for (none of a remark on the form of a position: "(x, y in odom)")."""
    text = _FORMAT_REMARK.sub(" ", text)
    words = re.findall(r"[\w']+", text.lower())
    return [w for w in words if _uncontracted(w) not in _STOPWORDS and len(w) > 1]


def _uncontracted(word: str) -> str:
    """A word without the ending a contraction gives it ("what" of "what's", "can" of "can't")."""
    bare = _CONTRACTION_END.sub("", word)
    return _IRREGULAR_NEGATIVES.get(bare, bare) if word.endswith("n't") else bare


# The ending a function word takes in a contraction ("what's", "there's", "didn't", "you're"): the word is still one.
_CONTRACTION_END = re.compile(r"(?:n't|'s|'re|'ll|'d|'ve|'m)$")
_IRREGULAR_NEGATIVES = {"ca": "can", "wo": "will", "sha": "shall"}


def asked_words(text: str) -> list[str]:
    """The content words but the generic place nouns of the phrases that say where ("in the staff room"): what a
    sign or line must share with a question to answer it, rather than name the place it was asked about."""
    return content_words(_LOCATIVE.sub(lambda m: _GENERIC_PLACE.sub(" ", m.group(0)), text))


# Nouns that name a place only by its kind; a description's other words tell which place.
GENERIC_PLACES = frozenset(("room", "place", "area", "location", "spot", "space", "site", "one", "part"))
_GENERIC_PLACE = re.compile(rf"\b(?:{'|'.join(GENERIC_PLACES)})\b", re.IGNORECASE)
_PLACING = r"in|at|on|inside|outside|behind|beside|near|under|by|next to|across from"
# A preposition, a determiner, and what follows up to the next preposition, clause word or punctuation.
_LOCATIVE = re.compile(
    rf"\b(?:{_PLACING})\s+(?:the|a|an|this|that|your|my|our)\s+.*?"
    rf"(?=\s+(?:{_PLACING}|and|that|which|where|when|while)\b|[,;.?!]|$)",
    re.IGNORECASE,
)


_OBJECTS = frozenset(("you", "it", "them", "us", "me", "him", "her"))
# Words that end a place's name: a form of be or have, a preposition, or a verb of saying ("what did the voice in
# the hall say").
_ENDS_NAME = frozenset(("is", "was", "were", "are", "be", "been", "did", "does", "do", "had", "has", "have", "about",
                        "for", "with", "say", "says", "said", "tell", "told", "mention", "mentioned", "announce",
                        "announced", "ask", "asked"))  # fmt: skip


def places_named(text: str) -> list[str]:
    """The places a question says something was at ("in the boiler room", "by the shutter"), without preposition
    or determiner, that name a place by more than its kind alone."""
    found = []
    for match in _LOCATIVE.finditer(text.lower()):
        words = match.group(0).split()
        words = words[2:] if words[0] != "next" and words[:2] != ["across", "from"] else words[3:]
        # The name ends before a verb with an object pronoun after it ("the shutter warn you"), a form of be or a preposition.
        ends = [i for i, w in enumerate(words) if w in _ENDS_NAME or (i + 1 < len(words) and words[i + 1] in _OBJECTS)]
        words = words[: ends[0]] if ends else words
        # A part of a place after its kind ("the boiler room floor") is still that place.
        kinds = [i for i, w in enumerate(words) if w in GENERIC_PLACES and i > 0]
        name = " ".join(words[: kinds[0] + 1] if kinds else words)
        # "on your second visit", "during the later stop": an occasion, not a place
        if content_words(_GENERIC_PLACE.sub(" ", name)) and not occasion_named(f"the {name}"):
            found.append(name)
    return found


def names_what_it_needs(intent: Intent, modality: Modality, target: str, other: str) -> bool:
    """Whether a plan names what its intent is about: a thing (every message heard may be counted without one),
    and the second thing of an order or the anchor of before / after."""
    needs_target = intent in (
        Intent.DID, Intent.FIRST, Intent.LAST, Intent.WHERE, Intent.COUNT, Intent.DURATION, Intent.ORDER,
    )  # fmt: skip
    any_one = (intent is Intent.COUNT and modality is Modality.TEXT) or (
        intent in (Intent.COUNT, Intent.FIRST, Intent.LAST, Intent.WHERE) and modality is Modality.SPEECH
    )  # how many signs or messages; the first or last message heard, or where
    if needs_target and not target and not any_one:
        return False
    return bool(other) or intent not in (Intent.ORDER, Intent.BEFORE, Intent.AFTER)


# "in the last minute and a half", "over the past twenty-five seconds": any amount of time said in words.
_WINDOW_AMOUNT = re.compile(rf"\s*{WINDOW_SAID}$")


# "Two minutes ago", "under half an hour ago", "a few minutes ago": a moment before the question, read as a window
# that ends at it: one said as a bound ("less than") is that window; one said as a moment, half as long again.
_AMOUNT_WORD = (
    r"(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    r"|forty|fifty|sixty|ninety|half|few|couple|of|several)"
)
_AGO = re.compile(
    r"\s*,?\s*\b(?P<lt>(?:less than|under|within|no more than|not more than|at most) )?(?:(?:about|around|roughly"
    rf"|some|just|only|approximately) )?(?P<d>(?:{_AMOUNT_WORD}[ -]){{1,3}}(?:seconds?|minutes?|hours?)"
    r"(?: and a half)?) ago$"
)
_ROUGH_AMOUNTS = (("a few", "three"), ("a couple of", "two"), ("a couple", "two"), ("several", "five"))
ROUGH_MOMENT = 1.5


def _ago(normal: str) -> tuple[str, Window] | None:
    match = _AGO.search(normal)
    if match is None:
        return None
    amount = match["d"]
    for rough, number in _ROUGH_AMOUNTS:
        amount = re.sub(rf"^{rough}\b", number, amount)
    seconds = parse_duration(amount) or parse_duration(f"a {amount}")
    if not seconds:
        return None
    return normal[: match.start()].strip(), Window("last", seconds if match["lt"] else ROUGH_MOMENT * seconds)


def _split_window(normal: str) -> tuple[str, Window | None]:
    between = _between(normal) or _ago(normal)
    if between is not None:
        return between
    match = _WINDOW.search(normal)
    amount = _WINDOW_AMOUNT.search(normal) if match is None else None
    seconds = amount and (parse_duration(amount["d"]) or parse_duration(f"a {amount['d']}"))
    if amount is not None and seconds:
        return normal[: amount.start()].strip(), Window("first" if amount["a"] == "first" else "last", seconds)
    if match is None:
        moment = _AT_MOMENT.search(normal)
        if moment is None or not _MOMENT_MARKED.search(moment.group(0)):
            return normal, None
        return normal[: moment.start()].strip(), _window("at", moment.group("n"), moment.group("u"))
    anchor = "first" if match.group("a") == "first" else "last"
    return normal[: match.start()].strip(), _window(anchor, match.group("n"), match.group("u"))


# "between 100 and 300 seconds", "from the 2 minute mark to the 4 minute mark", "between one and three minutes in":
# the span of the run between two moments counted from its start.
_MARK = r"(?:the )?(?P<{0}>[\w.]+(?:[ -][\w.]+){{0,3}}?)(?:[ -](?P<u{0}>seconds?|minutes?|hours?))?(?: mark| point)?"
_BETWEEN = re.compile(
    rf",?\s*\b(?:between|from) {_MARK.format('a')} (?:and|to|until|till) {_MARK.format('b')}"
    r"(?: (?:in|into (?:the |your |its |this )?\w+|after (?:the start|you started|the beginning)))?$"
)


def _between(normal: str) -> tuple[str, Window] | None:
    """The clause without a span said as two moments of the run, and that span; None where it says none."""
    match = _BETWEEN.search(normal)
    if match is None or not (match["ub"] or match["ua"]):
        return None
    unit_a, unit_b = match["ua"] or match["ub"], match["ub"] or match["ua"]
    start, end = parse_duration(f"{match['a']} {unit_a}"), parse_duration(f"{match['b']} {unit_b}")
    if start is None or end is None or end <= start:
        return None
    return normal[: match.start()].strip(), Window("between", start, end)


# "at the 250 second mark", "at around 400 seconds", "3 minutes into the patrol", "two minutes in": a moment,
# counted from the start of memory; the question asks about what was met around it.
_AT_MOMENT = re.compile(
    r",?\s*\b(?:(?:at|around|about|near)\s+)?(?:around |about |roughly |approximately )?(?:the )?"
    r"(?P<n>\d+(?:\.\d+)?|a|an|one|two|three|five|ten|fifteen|thirty)[ -](?P<u>second|minute|hour)s?"
    r"(?:\s+(?:mark|point))?(?:\s+(?:into (?:the |your |its |this )?\w+|in))?$"
)
_MOMENT_MARKED = re.compile(r"^,?\s*(?:at|around|about|near)\b|\b(?:mark|point|into \w+(?: \w+)?|in)$")


def clean_target(target: str) -> str:
    previous = None
    target = target.strip()
    while previous != target:
        previous = target
        target = _POSTURE.sub("", _ABOUT_THE_PLACE.sub("", target.strip()))
        target = _FILLER.sub("", _MEETING.sub("", _TRAILING.sub("", target))).strip()
        target = target.strip(_QUOTES + ",;:").strip()
    if target.count('"') % 2:  # a quote left open by what was cut off ('"no entry" sign' less its kind)
        target = target.replace('"', "").strip()
    return target


_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        "a an the and or of to in on at for with from by about is was were are be been did do does have has had "
        "you your i me my we our it its this that these those what when where which who whom how why there here "
        "any some ever please tell show say said see saw seen",
    )
)


_SENSES = (
    # a poster or a screen shows pictures as well: it names no sense by itself
    (Modality.TEXT, re.compile(rf"\b(?:{_READ}|{_WORDS_ONLY}|written|reading)\b")),
    (
        Modality.SPEECH,
        re.compile(
            rf"\b(?:{_HEAR}|{_SAY}|talk|talked|spoke|mentioned|mentions|announced?|announcements?|told|hearing"
            r"|mentioning|reported|broadcast|paged|messages?(?! (?:on|written|printed|chalked|scrawled|board)))\b"
        ),
    ),
    (Modality.OBJECT, re.compile(rf"\b(?:{_SEE}|seen|saw|seeing|spotting|noticing|watching|observing)\b")),
)


def modality_named(text: str) -> Modality | None:
    """How a question says the thing was met (read, heard, seen), by the first such verb or noun in it; None
    where it says none.  For questions the patterns do not read whole ("which robot heard ...")."""
    lowered = _NOTICING.sub(r"\g<who> \g<when>see", without_asking(text.lower()))
    found = [(m.start(), modality) for modality, pattern in _SENSES if (m := pattern.search(lowered))]
    return min(found, key=lambda pair: pair[0])[1] if found else None


# "Notice" said of the robot is a verb of seeing, not a notice that was read.
_NOTICING = re.compile(r"\b(?P<who>you|it|robot|i|we) (?P<when>first |last |ever )?notice\b")
# "Would you say ...", "do you say ...": the asker's words for asking, not speech the robot heard.
_ASKING = re.compile(
    r"\b(?:would|do|did|could|can|will|wouldn't|don't) you say\b"
    # a request to the robot to say what it knows ("report your position", "please state the time"): the asker's
    r"|^(?:please )?(?:report|state|tell me|say|give)(?= (?:me |us )?(?:the|your|its|a|an|where|when|how|what|which)\b)"
)


def without_asking(text: str) -> str:
    """A lower-case question without the asker's own verbs of saying."""
    return _ASKING.sub(" ", text)
