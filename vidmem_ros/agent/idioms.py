"""English idioms of asking, said in the plain form every reader of a question knows.

People ask the same thing many ways: "at what point" is "when", "the total time X was in view" is "how long X was
in view", "how many minutes into the shift" is "when", "spotted anybody?" is "have you spotted anybody?".  These
are forms of English, not phrasings of particular questions: each rewrite below is a grammatical idiom with its
plain equivalent, applied to a lower-case sentence before anything reads it, so the question words, the answer
type and the thing asked about are found the same way whichever form was used.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from vidmem_ros.config import LexiconConfig
from vidmem_ros.perception import wordnet as wn

_UNIT = r"(?:seconds?|minutes?|hours?)"
# A window of time said as the last, past or first stretch of it ("in the last minute and a half", "over the past
# twenty-five seconds"): its anchor and its amount, in any words.
WINDOW_SAID = (
    r"(?:in|during|within|over) the (?P<a>last|past|first) (?P<d>(?:[\w.]+[ -]){0,5}?(?:seconds?|minutes?|hours?)"
    r"(?: and a half)?)"
)
# Things that bear words, and the verbs of meeting one.
BEARER = r"(?:sign|notice|label|poster|placard|plaque|board|banner)"
_MET_SIGN = r"read|see|saw|seen|pass|passed|come across|came across|notice|noticed|spot|spotted"
# The robot's own patrol, as a question bounds itself by it: every question is about that, so it names nothing.
ACTIVITY = r"(?:patrol|patrols|rounds?|route|tour|shift|trip|journey|mission|loop|circuit|duty)"
_SCOPE = re.compile(
    rf",?\s*(?<!been )(?<!being )(?<!you are )(?<!you were )(?<!far )\b(?:on|along|during|throughout|over|in the course of"
    rf"|while on|from|across)\s+"
    rf"(?:your|its|this|today's|the robot's|the)\s+(?:(?:whole|entire|full) )?{ACTIVITY}\b"
    r"|,?\s*\b(?:on|along)\s+(?:your|its|the robot's)\s+way\b"
    # "anywhere in your records", "in your memory": every question is asked of memory
    r"|,?\s*\b(?:anywhere |at all |at any point )?(?:in|within|among|from|on) (?:your|its|the robot's|the) (?:records?"
    r"|memory|memories|logs?|history|footage|recordings?|data)\b"
)
# Irregular past forms of verbs of meeting: their base form and participle (the patterns read a regular past after
# "did", and a regular participle is the past).
_IRREGULAR = {"saw": ("see", "seen"), "heard": ("hear", "heard"), "met": ("meet", "met"), "found": ("find", "found"),
              "came": ("come", "come"), "ran": ("run", "run"), "drove": ("drive", "driven"), "went": ("go", "gone"),
              "got": ("get", "got"), "caught": ("catch", "caught"), "spoke": ("speak", "spoken"),
              "took": ("take", "taken"), "wrote": ("write", "written"), "ate": ("eat", "eaten"),
              "stole": ("steal", "stolen"), "fell": ("fall", "fallen")}  # fmt: skip
# A clause that says what the robot did ("you saw X"), or what state a thing was in ("X was in view").
_ROBOT_DID = re.compile(r"(?:you|the robot|it) (?P<v>\w+)(?P<rest>.*)$")
_THING_WAS = re.compile(r"(?P<s>.+?) (?P<v>was|were) (?P<p>.+)$")


def _base_form(past: str) -> str:
    """A verb's base form: the table above, else WordNet's list of irregular forms ("made" -> "make"); a regular
    past is read as it is."""
    if past in _IRREGULAR:
        return _IRREGULAR[past][0]
    wordnet = _wordnet()
    base = wordnet.irregular_verb(past) if wordnet is not None else ""
    return base or past


# The past of the verbs of looking and listening whose past is not "-ed".
_LOOKED = {"read": "read", "see": "saw", "hear": "heard"}


def _ing_base(verb: str) -> str:
    """The base form of a verb's "-ing" form ("looking" -> "look", "taking" -> "take"), by WordNet where found."""
    wordnet = _wordnet()
    base = wordnet.verb_base(verb) if wordnet is not None else verb
    return base if base != verb else verb[:-3]


@functools.lru_cache(maxsize=1)
def _wordnet() -> wn.WordNet | None:
    """WordNet where the lexicon's default settings find it, looked up once."""
    return wn.load(LexiconConfig().wordnet_dir)


def _participle(past: str) -> str:
    return _IRREGULAR.get(past, (past, past))[1]


# An aside set off by dashes inside a sentence ("was any water - a pond, say - visible"): it restates or gives
# examples, the sentence reads whole without it.
_ASIDE = re.compile(r"\s+[-–—]\s+[^-–—?]+?\s+[-–—]\s+")
# Words that open where or when a thing was met ("near the bins", "during the storm"); "before" and "after" relate
# two things, which the order questions read.
_WHERE_OR_WHEN = (
    r"(?:in|on|at|by|near|among|amongst|beside|behind|inside|outside|under|over|around|against|next to|close to|along"
    r"|across|within|beneath|below|above|from|during|while|when|today)"
)
# "A before B, or after it?": the either/or of a relation said whole ("A before or after B").
_SPLIT_ALTERNATIVE = re.compile(
    r"\b(?P<r>before|after) (?P<b>[^,]+?),? or (?P<s>after|before)(?: (?:it|that|them|this|then|him|her))?$"
)
# Forms of asking and their plain equivalents, applied to the asking clause in order.
_ASKING_FORMS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    # "total time in the kiosk", "what was your overall time at the pier": how long the robot was there.
    (
        re.compile(
            r"^(?:what (?:was|is) )?(?:your |the robot's |its |the )?(?:total |overall |whole |full )?"
            r"(?:time|duration)(?: (?:spent|passed|you spent|the robot spent))? (?P<p>in|at|inside|by) (?P<x>.+)$"
        ),
        lambda m: f"how long were you {m['p']} {m['x']}",
    ),
    # "tally up the vans you saw", "add up every message": asked as "how many".
    (
        re.compile(
            r"^(?:please )?(?:tally|add|total)(?: up)?(?: for me)? (?:every|each|all(?: of)?(?: the)?|the) (?P<x>.+?)"
            r"(?: (?:that )?(?:you|the robot) (?:have |had )?(?P<v>\w+)(?P<r>.*))?$"
        ),
        lambda m: (
            f"how many {m['x']} did you {_base_form(m['v'])}{m['r']}" if m["v"] else f"how many {m['x']} were there"
        ),
    ),
    # "how many messages heard so far", "how many vans seen today": the robot's meeting, said without its verb.
    (
        re.compile(
            r"^how many (?!(?:seconds|minutes|hours)\b)(?P<x>[a-z]+(?: (?!(?:you|we|i|it|they|have|has|had|were|was"
            r"|are|is)\b)[a-z]+)?) (?P<v>seen|heard|read|spotted|passed|met"
            r"|noticed|visited)\b(?P<r>.*)$"
        ),
        lambda m: f"how many {m['x']} did you {_base_form(m['v']) if m['v'] != 'seen' else 'see'}{m['r']}",
    ),
    # "what is the number of times you ...", "tell me the number of signs you read": asked as "how many" (not "the
    # number of the room", a number read).
    (
        re.compile(
            r"^(?:please )?(?:what(?: is| was|'s)|tell me|give me|say|state|report|give) the (?:total |overall )?"
            r"number of (?!the\b|this\b|that\b)"
            r"(?P<x>\w[^?]*?) (?:that )?(?P<w>you|the robot) (?:have |has |had )?(?P<v>\w+)(?P<r>.*)$"
        ),
        lambda m: f"how many {m['x']} did you {_base_form(m['v'])}{m['r']}",  # the robot asked of is "you"
    ),
    # "Could you read me the code on the plate", "read out the notice by the lift": what it said.
    (
        re.compile(r"^(?:(?:can|could|would|will) you |please )*read (?:me |us |out |aloud |back |off )+(?P<x>.+)$"),
        lambda m: f"what was {m['x']}",
    ),
    # "how many messages are there", "how many notices are in the recording" (its scope said already): were there.
    (re.compile(r"^how many (?P<x>.+?) (?:are|is|were|was)(?: there)?$"), lambda m: f"how many {m['x']} were there"),
    # "count up the signs you read", "could you count the kites you saw": asked as "how many" ("count for me how
    # many ..." is a request that wraps the question, read as one in ``indirect``).
    (
        re.compile(
            r"^(?:(?:can|could|would|will) you |please )*count(?: up)?(?: for me)? (?:the |all the |all of the |all |every |each |up the )?"
            r"(?P<x>.+?) (?:that )?(?P<w>you|the robot) (?:have |had |has )?(?P<v>\w+)(?P<r>.*)$"
        ),
        lambda m: f"how many {m['x']} did you {_base_form(m['v'])}{m['r']}",  # the robot asked of is "you"
    ),
    # The passive with a modal ("could a fox be seen from the bridge", "can the van have been spotted"): whether
    # the robot saw it.
    (
        re.compile(
            r"^(?:could|can|might|would|may) (?P<t>(?:a|an|any|the|some|that|this|those|these) [\w' -]+?)"
            r" (?:ever |at any point |at all )?(?:have been|be) (?:seen|spotted|sighted|noticed|observed|detected"
            r"|made out|glimpsed)(?P<r> .*)?$"
        ),
        lambda m: f"did you see {m['t']}{m['r'] or ''}",
    ),
    # The passive said with where or when it happened ("was a fox seen near the bins", "were any vans spotted after
    # dark"): whether the robot saw it there or then.
    (
        re.compile(
            r"^(?:was|were|has|have|had) (?P<t>(?:a|an|any|the|some|that|this|those|these) [\w' -]+?)"
            r" (?:ever |at any point |anywhere |already )?(?:been )?(?:seen|spotted|sighted|noticed|observed|detected"
            rf"|visible|in view|in sight|on camera) (?P<r>{_WHERE_OR_WHEN}\b.*)$"
        ),
        r"did you see \g<t> \g<r>",
    ),
    # "how much of the shift has gone by", "how far into the patrol are you": how long the robot has been on duty.
    (
        re.compile(
            rf"^how (?:much of|far into|far along|far through|long into) (?:the |your |this |today's |our )?{ACTIVITY}\b"
            r"(?: (?:has|have|had) (?:gone by|passed|elapsed|been done|gone)| are (?:you|we)| is it| have (?:you|we)"
            r" (?:got|come|gone))?(?: (?:now|right now|by now|at this point|at the moment|so far))?$"
        ),
        "how long have you been on duty",
    ),
    # "how long did your patrol last", "how long was the shift", "what was the length of your round": how long the
    # robot has been on duty.
    (
        re.compile(
            rf"^(?:how long (?:did|has|had|was|is|have) (?:the |your |its |this |today's )?{ACTIVITY}"
            r"(?: (?:last|lasted|take|taken|taken so far|gone on|been going|been going on|run|been running|go on|been))?"
            rf"|(?:what|which) (?:was|is) the (?:length|duration|running time) of (?:the |your |its |this |today's )?"
            rf"{ACTIVITY})$"
        ),
        "how long have you been on duty",
    ),
    # "when did you start looking at X", "what time did the robot begin reading the board": when it first did so;
    # "stop watching", "finish reading": when it last did.
    (
        re.compile(
            r"\b(?P<a>start|started|begin|began|begun|commence|commenced|stop|stopped|finish|finished|cease|ceased)"
            r"(?: to)? (?P<v>[a-z]{2,}ing)\b"
        ),
        lambda m: f"{'first' if m['a'][:3] in ('sta', 'beg', 'com') else 'last'} {_ing_base(m['v'])}",
    ),
    # "where did you stop to look at X", "where you paused to read the notice": where it looked at or read it.
    (
        re.compile(
            r"\b(?P<a>stop|stopped|pause|paused|halt|halted)(?: briefly)? (?:to|and) (?P<v>look|watch|read|listen"
            r"|check|inspect|examine|view|see|hear)\b"
        ),
        lambda m: m["v"] if not m["a"].endswith("ed") else _LOOKED.get(m["v"], f"{m['v'].rstrip('e')}ed"),
    ),
    # "report the x, y where you looked at X", "give me the coordinates at which the robot read Y": where it was.
    (
        re.compile(
            r"^(?:please )?(?:give|report|tell|state|say|send|provide|share|list)(?: me| us)? (?:the |your |its "
            r"|the robot's )?(?:odom |map |exact |precise )*(?:x and y|x, ?y|x/y|xy|coordinates|co-ordinates|position"
            r"|location|spot|pose)(?: coordinates)? (?:where|at which|when|while|as|from which|from where) (?P<c>.+)$"
        ),
        lambda m: f"where were you when {m['c']}",
    ),
    # "at what point / stage / moment did ..." asks "when did ...".
    (
        re.compile(
            r"^(?:at )?(?:what|which) (?:point|stage|moment|instant|second|minute)\b(?: in time)?(?= (?:did|was|were|had|has|have|do|does|is|are)\b)"
        ),
        "when",
    ),
    # "was there ever a moment when a fox was in view", "was there a time you heard about X": the clause is asked.
    (
        re.compile(
            r"^(?:was|is|has|had) there (?:ever )?(?:been )?(?:a|an|any|one|some) (?:single )?(?:time|moment|point"
            r"|occasion|instance|stage)(?: in time)?,? (?:when |at which |in which |where |that |during which )?"
            r"(?P<c>.+)$"
        ),
        lambda m: _clause_asked(m),  # defined below, with the forms it reads
    ),
    # "Name the sign you read after X", "identify the animal you saw": a thing asked for by a request to name it.
    (
        re.compile(
            r"^(?:please )?(?:name|identify|tell me|give me|state|say|specify|describe|report)"
            r" (?=(?:the|a|an|one|something|anything)\b(?! (?:time|moment|date|hour|number|count|position|location"
            r"|coordinates|duration|length|amount)\b))"
        ),
        "what was ",
    ),
    # "what was the last place you visited before X", "the first room you went to after X": the place right
    # before (or after) it.
    (
        re.compile(
            r"^(?:what|which) (?:was|is) the (?:(?P<last>last|final|latest)|first|earliest) (?P<k>place|room|area"
            r"|location|stop|spot|site) (?:that |which )?(?:you|the robot|it) (?:visited|went to|went into|stopped at"
            r"|were at|were in|was at|was in|reached|got to|entered|called at)(?= (?P<r>before|after)\b)"
        ),
        lambda m: f"which place did you go to{' right' if (m['last'] is not None) == (m['r'] == 'before') else ''}",
    ),
    # "what was the animal you saw", "which was the sign that you read after X": what animal did you see.
    (
        re.compile(
            r"^(?:what|which) (?:was|is|were|are) the (?P<k>(?!(?:first|last|latest|earliest|final|next|previous|only"
            r"|most|very|same|other)\b)\w+) (?:that |which )?(?P<s>you|the robot) (?P<v>\w+)\b"
        ),
        lambda m: f"what {m['k']} did {m['s']} {_base_form(m['v'])}",
    ),
    # "at what clock time", "at what time of day": at what time.
    (re.compile(r"^(?P<at>at )?what (?:clock time|time of (?:the )?day)\b"), lambda m: f"{m['at'] or ''}what time"),
    # "how many minutes into the patrol did ...", "how long after the start did ...": a moment, counted from the start.
    (
        re.compile(
            rf"^(?:how (?:many|much) {_UNIT}|how long|how far|how much time)"
            rf" (?:into (?:the |your |its |this )?\w+|after (?:the start|you (?:started|began|set off)))\b"
        ),
        "when",
    ),
    # "for how many seconds was X in view", "how many minutes did you spend at Y": how long (a count of time units
    # before a verb is a length; "how many minutes have passed since ..." keeps its own form).
    (re.compile(rf"^(?:for )?how (?:many|much) {_UNIT} (?=(?:did|was|were|does|do|is|are) )"), "how long "),
    # "how long ago did you last see X" asks for that moment.
    (re.compile(r"^how (?:long|many (?:seconds|minutes|hours)) ago\b"), "when"),
    # "when did you see X for the first time": when did you first see X.
    (
        re.compile(
            r"^(?P<a>when (?:did|have|had) (?:you|the robot|it)) (?P<b>.+?),? (?:for )?the (?:very )?"
            r"(?P<w>first|last|final|most recent) time\b"
        ),
        lambda m: f"{m['a']} {'first' if m['w'] == 'first' else 'last'} {m['b']}",
    ),
    # "how long did the second sighting of X last", "when was the third appearance of X": that occasion of seeing X.
    (
        re.compile(
            r"^(?P<w>how long|when) (?:did|was|were) (?:the|your|its) (?P<n>second|third|fourth|fifth|sixth|2nd|3rd|4th"
            r"|5th) (?:sighting|occurrence|appearance|occasion|glimpse|view|encounter) of (?P<t>.+?)"
            r"(?: (?:last|take place|happen|occur|start|begin))?$"
        ),
        lambda m: f"{m['w']} did you see {m['t']} the {m['n']} time",
    ),
    # "when did the cup first show up (on camera)", "when did a van last come into view": when it was seen.
    (
        re.compile(
            r"^(?P<q>when|at what time|what time) did "
            r"(?P<t>(?!(?:you|it|the robot|someone|anyone|somebody|anybody)\b).+?)"
            r" (?P<w>first |last )?"
            r"(?:show up|appear|come into view|come into sight|turn up|pop up|come up on camera)"
            r"(?: (?:on camera|on the camera|in view|in the picture|in frame|on screen))?"
            r"(?P<n>,? (?:for|on) the \w+ time)?$"
        ),
        lambda m: _seen_when(m),
    ),
    # "count the times X was in view", "count the people you met": how many.
    (re.compile(r"^(?:please )?count (?:up )?(?:all )?(?:the )?(?=\w)"), "how many "),
    # "what was the total time X was in view", "for what length of time": how long.
    (
        re.compile(
            r"^(?:what|which) (?:is|was) the (?:total|whole|entire|overall|combined|full) "
            r"(?:time|length of time|duration|amount of time|time span)(?: (?:that|for which|during which|when))?\b"
        ),
        "how long",
    ),
    (re.compile(r"\bfor (?:what|which) (?:length|amount|period|span) of time\b"), "for how long"),
    (re.compile(r"^(?:what|which) (?:length|amount|period|span) of time\b"), "how long"),
    # "has a fox crossed your path": did you come across a fox.
    (
        re.compile(r"^(?:has|have|did) (?P<t>.+?) (?:cross|crossed) (?:your|its|the robot's) path\b"),
        r"did you come across \g<t>",
    ),
    # A planner's terse query: "fox seen?", "number of fox sightings", "last fox sighting time".
    # "what is the total number of X", "give me the count of X", "number of X": how many X.  Not "the number of
    # the locker": that asks for a number read.
    (
        re.compile(
            r"^(?:(?:what|which) (?:is|was|were|are) |(?:give|tell|show) (?:me|us) |report |state |say )?(?:the )?"
            r"(?:total |overall |full |combined |entire |exact )?(?:number|count|tally) of "
            r"(?!(?:the|a|an|this|that|these|those|your|my|its|his|her|their)\b)"
        ),
        "how many ",
    ),
    # "how many vans?": how many there were.
    (
        re.compile(
            r"^how many (?P<t>(?!(?:times|visits|occasions)\b)(?:(?!(?:did|do|does|was|were|is|are|have|has|had|you"
            r"|there)\b)[a-z][\w'-]*)(?: (?!(?:did|do|does|was|were|is|are|have|has|had|you|there)\b)[a-z][\w'-]*){0,3})$"
        ),
        r"how many \g<t> were there",
    ),
    # "how many X sightings", "how many sightings of X (were there)", "how many X were spotted": how many times X
    # was seen.
    (
        re.compile(
            r"^how many (?:(?:separate |different |distinct )?(?:sightings|occurrences|appearances|detections) of "
            r"(?P<a>.+?)(?: (?:were there|have there been|did you (?:have|make|record|get)|have you (?:had|made"
            r"|recorded)|were (?:made|recorded)))?|(?P<b>[\w' -]+?) (?:sightings|occurrences|appearances|detections)"
            r"(?: (?:were there|have there been|did you (?:have|make|record)|have you (?:had|made|recorded)))?"
            r"|(?P<c>[\w' -]+?) (?:were |have been |got )?(?:seen|spotted|sighted|noticed|detected))$"
        ),
        lambda m: f"how many times did you see {m['a'] or m['b'] or m['c']}",
    ),
    (
        re.compile(r"^(?:the )?(?P<w>first|last|latest|most recent) (?P<t>.+?) sighting(?: time)?$"),
        lambda m: f"when did you {'first' if m['w'] == 'first' else 'last'} see {m['t']}",
    ),
    (
        re.compile(
            r"^(?!.*\b(?:what|when|where|which|who|how|why|was|were|is|are|did|do|does|have|has|had|you|it)\b)"
            r"(?P<t>[\w' -]+?) (?:seen|spotted|sighted|noticed)$"
        ),
        r"have you seen \g<t>",
    ),
    # "what was the last thing you heard": the last message heard, and when.
    (
        re.compile(
            r"^what (?:was|is|were|are) the (?P<w>first|last|latest|most recent|earliest) (?:thing|things|words?|sentence"
            r"|message|announcement)s? (?:that )?(?:(?:you|the robot) (?:heard|were told|was told)|(?:anyone|anybody"
            r"|someone|somebody|people|they) (?:said|told you|told the robot|said to you|said to the robot))$"
        ),
        lambda m: f"when did you hear the {'first' if m['w'] in ('first', 'earliest') else 'last'} message",
    ),
    # "where was the last announcement made", "where did you hear the first message": where the robot was then.
    (
        re.compile(
            r"^where (?:was|were|did you hear) the (?P<w>first|last|latest|most recent|earliest|final) (?:thing said"
            r"|message|announcement|sentence|call|words)s?(?: (?:made|heard|given|said|delivered|broadcast))?$"
        ),
        lambda m: f"where were you when you heard the {'first' if m['w'] in ('first', 'earliest') else 'last'} message",
    ),
    # "what was the first thing you read", "the earliest text you read": what the first sign read said.
    (
        re.compile(
            r"^what (?:was|is|were) the (?P<w>first|last|latest|most recent|earliest) (?:thing|words?|text)s? (?:that )?"
            r"(?:you|the robot) read$"
        ),
        lambda m: f"what did the {_first_or_last(m['w'])} sign you read say",
    ),
    # "what was the first thing you saw": the first thing seen at all, and when.
    (
        re.compile(
            r"^what (?:was|is|were|are) the (?P<w>first|last|latest|most recent|earliest) (?:thing|object|item)s? "
            r"(?:that )?(?:you|the robot) (?:saw|noticed|spotted|came across|detected)$"
        ),
        lambda m: f"when did you {'first' if m['w'] in ('first', 'earliest') else 'last'} see anything",
    ),
    # "Which sign did you pass most recently", "what was the first notice you saw": what the first or last sign
    # read said.
    (
        re.compile(
            rf"^(?:which|what) (?P<n>{BEARER})s? (?:did|have|had) (?:you|the robot|it) (?:{_MET_SIGN})"
            r"(?: by| past)? (?P<w>first|last|most recently|latest|earliest|before anything else)$"
            rf"|^(?:which|what) (?:was|is) the (?P<w2>first|last|most recent|latest|earliest|final) (?P<n2>{BEARER})"
            rf" (?:that )?(?:you|the robot|it) (?:{_MET_SIGN})(?: by| past)?$"
        ),
        lambda m: f"what did the {_first_or_last(m['w'] or m['w2'])} {m['n'] or m['n2']} you read say",
    ),
    # A yes/no question without its auxiliary: "spotted anybody?", "seen a fox?", "any foxes around?".
    (
        re.compile(
            r"^(?=(?:seen|spotted|noticed|heard|read|met|encountered|come across|run into|ever seen|ever heard)\b)"
        ),
        "have you ",
    ),
    (re.compile(r"^(?=any(?:thing|one|body)?\b)"), "was there "),
    # "is a fox anywhere (in your records)?", "were any foxes around?": whether there was one; "was a fox mentioned"
    # asks what was said.
    (
        re.compile(
            r"^(?:is|was|are|were) (?P<t>(?:a|an|any|some)(?: (?!(?:seen|ever|spotted|noticed|detected|visible|observed"
            r"|sighted|in|on|at|to|among|or|and|anywhere|around|about|present|here|there|mentioned|said|announced|reported"
            r"|discussed|heard|read|raised|talked|spoken|brought|told|called|written)\b)[\w'-]+){1,2})(?: (?:anywhere|around|about|present|here|there"
            r"|at all))*$"
        ),
        r"was there \g<t>",
    ),
    # "what were you looking at just before the kiosk", "what was the robot watching right after X": what was seen.
    (
        re.compile(
            r"^what (?:was|were) (?:you|the robot|it) (?:looking at|watching|viewing|facing|observing|staring at"
            r"|pointed at|pointing at)(?P<r> (?:(?:right|just|directly|immediately|straight) )?(?:before|after) .+)$"
        ),
        lambda m: "what did you see" + re.sub(r"\b(before|after) (?:it|the robot) ", r"\1 you ", m["r"]),
    ),
    # "when did the van go out of your field of view", "when did it drop out of sight": when it was last seen.
    (
        re.compile(
            r"^(?P<w>when|at what time) did (?P<x>.+?) (?:last |finally )?(?:leave|exit|drop out of|go out of"
            r"|disappear from|pass out of|move out of|slip out of) (?:the |your |its |the robot's )?"
            r"(?:camera's |cameras' |camera )?(?:view|sight|frame|field of view|shot)$"
        ),
        lambda m: f"{m['w']} did you last see {m['x']}",
    ),
    # "which place did you come to the kiosk from", "where had you come from before the kiosk": the place before.
    (
        re.compile(
            r"^(?:where|which (?:place|room|area|part of \w+(?: \w+)?)|what (?:place|room|area)) (?:did|had) "
            r"(?:you|the robot|it) (?:come|arrived?|get|got|walk(?:ed)?|drive|driven|go|gone) (?:to|at|into|in) (?P<x>.+?)"
            r" from$"
        ),
        lambda m: f"which place did you visit right before {m['x']}",
    ),
)


# "Of A and B, which came first?": the two offered after the question, as "which came first, A or B" has them.
_OFFERED_FIRST = re.compile(
    r"^(?:of|between|out of) (?P<a>.+?) and (?P<b>[^,:;]+?)[,:;] (?P<q>(?:which|what|who)\b.*)$"
)
# "The bell or the siren - which did you hear first?": the two offered as alternatives before the question.
_OFFERED_EITHER = re.compile(
    r"^(?P<a>(?!(?:did|was|were|have|has|had|is|are|do|does|can|could|which|what|who|when|where|how|of|between)\b)"
    r"[^,:;?]+?),? or (?P<b>[^,:;?]+?)\s*(?:[,:;]|\s[-–—])\s+(?P<q>(?:which|what|who)\b.*)$"
)
# A closing remark on how to answer ("counting each visit", "roughly", "in seconds"), which asks nothing.
# A dash or colon left at the end once what followed it was taken away as a remark.
_DANGLING = re.compile(r"\s*[-–—:;,]\s*(?=[?.!]*$)")
# Words that only say how an answer is to be written, and the units or axes among them one must name.
_FORM_WORDS = r"in|as|and|or|the|a|an|please|only|just|give|number|of|map|frame|odom|terms"
# Whole words only: a name made of their letters ("Sam or Max") is no form, and a bare "s" or "m" is a unit only
# written after a number, which never stands alone in such a remark.
_FORM_UNITS = r"x|y|z|seconds|secs|minutes|mins|metres|meters|coordinates|co-ordinates|hh:mm(?::ss)?|mm:ss"
_FORM_REMARK = re.compile(
    r"[,;:] (?:(?:counting|including|excluding|rounding|rounded|roughly|approximately|more or less|give or take"
    r"|if possible|please|in (?:seconds|minutes|metres|meters))\b[^,;:]*"
    r"|(?:repeats|repeat \w+|repeated \w+|each \w+|every \w+) (?:included|counted|too|separately))$"
    r"|,? (?:all together|altogether|in total|all in all|in all|all told|overall|combined|or not)$"
    # the form of the answer named after a colon or a dash ("...: x, y?", "... - in seconds?", "...? x and y")
    rf"|\s*(?:[,;:?]|\s[-–—])\s*(?:\b(?:{_FORM_WORDS})\b[\s,/]*)*\b(?:{_FORM_UNITS})(?![\w:-])"
    rf"(?:[\s,/]+\b(?:{_FORM_WORDS}|{_FORM_UNITS})(?![\w:-]))*[\s,/]*$"
)


# A request for the robot's position at a moment, said as a need or an order ("I need your coordinates from when
# ...", "give me the robot's x, y at the moment ..."): where it was then.
_POSITION_REQUEST = re.compile(
    r"^(?:(?:i|we)(?: need| want| would like|'d like)|(?:can|could|may) (?:i|we) (?:have|get|see)"
    r"|(?:please )?(?:give|tell|send|show|report|state)(?: me| us)?|let (?:me|us) (?:have|know)"
    r"|what (?:was|were|is))(?: to know)?"
    r" (?:the robot's|your|its|the robot|the) (?:x, y|x and y|x/y|coordinates|co-ordinates|position|location)"
    r"(?: coordinates)?(?: (?:from|at|for|during|of))? (?:(?P<when>the (?:moment|time|instant)(?: that)?|when) |(?=while |as ))"
)
# "Mark on the map where you saw it", "show me where the van was": asks where, as a question does.
_SHOW_WHERE = re.compile(
    r"^(?:please )?(?:mark|show|point out|pinpoint|indicate|plot|locate)(?: (?:me|us|it))?"
    r"(?: (?:on|in) (?:the|a|your) (?:map|plan|floor plan))? where (?:(?P<who>you|it|the robot)"
    r" (?:(?P<v>(?!(?:was|were|is|are|had|has|have)\b)\w+)|(?P<was>was|were|is|are)\b)"
    r"|(?P<x>(?:the|a|an|your|its) [^?.,;:]+?) (?P<be>was|were|is|are|had been|has been)\b)"
)


def _where_asked(match: re.Match[str]) -> str:
    if match["v"]:
        return f"where did {match['who']} {_base_form(match['v'])}"
    if match["was"]:  # "show me where you were when ...": where the robot was then
        return f"where {'were' if match['who'] == 'you' else 'was'} {match['who']}"
    return f"where {match['be']} {match['x']}"


# Whether a thing seen counts as seen in a picture too ("in pictures or otherwise", "even a photo of one", "real or
# not"): every sighting counts, as a camera cannot tell them apart, so the remark asks nothing.
_PICTURED = r"(?:pictures?|photos?|photographs?|images?|paintings?|drawings?|posters?|screens?|pictured|depicted)"
_DEPICTED_REMARK = re.compile(
    rf",? (?:(?:either |whether )?(?:in|on|as) (?:a |an )?{_PICTURED}|even (?:just )?(?:as |in )?(?:a |an )?{_PICTURED}"
    rf"(?: of (?:one|it|them|some))?|(?:whether )?real or (?:{_PICTURED}|not|otherwise|fake))"
    r"(?:,? or (?:otherwise|for real|in real life|in person|real(?: ones?)?|not|in the flesh))?(?=[?.!]|$)"
)


# What else a question says it does not mean ("did you see a kite, not just pictures of one"): the verb already
# says how the thing was met, so the remark asks nothing more.
_NOT_JUST = re.compile(r",? (?:and |but )?not (?:just|only|merely|simply) [^,?.!]+(?=[,?.!]|$)")


# "A bird of any kind", "any vehicle whatsoever": every kind of the thing is meant, as its name alone means.
_ANY_KIND = re.compile(
    r" (?:of any (?:kind|sort|type|description)|of some (?:kind|sort)|whatsoever|at all)(?=[\s,?.!]|$)"
)


# How a position is to be given, said anywhere in the sentence ("where were you, in x and y, when ..."): it asks
# nothing more.
_POSITION_FORM = re.compile(
    r"(?:,\s*|\s+)(?:in|as|using|with|giving|in terms of) (?:the |your |map |odom )*(?:x and y|x, y|x/y|x-y"
    r"|\(x, ?y\)|coordinates|co-ordinates|metres|meters)(?: coordinates)?(?:\s*,(?=\s)|(?=[?.!]|$| when| while| as| at))"
)


# Idioms of seeing ("catch sight of", "lay eyes on") and the verb they stand for, in the same form.
_PERFECT = r"\b(?:have|has|had) (?:(?:you|it|we|they|the robot|ever|first|already|just|never) )*"
_SEEING = (
    (re.compile(rf"({_PERFECT})(?:caught sight of|(?:laid|set|clapped) eyes on)\b"), r"\1seen"),
    (re.compile(r"\b(?:caught sight of|(?:laid|clapped) eyes on)\b"), "saw"),
    (re.compile(r"\b(?:catching sight of|(?:laying|setting|clapping) eyes on)\b"), "seeing"),
    (re.compile(r"\b(?:catch(?:es)? sight of|(?:lay|set|clap)s? eyes on)\b"), "see"),
    (re.compile(r"\bin front of (?:you|the robot|it|(?:your|the|its) cameras?)\b"), "in view"),
    # Going past a thing is passing it ("had you already been past the kiosk", "did you drive past a van").
    (re.compile(r"\b(?:been|gone|went|driven|drove|walked|rolled|come|came|moved) past\b"), "passed"),
    (re.compile(r"\b(?:go|drive|walk|roll|come|move) past\b"), "pass"),
    (re.compile(r"\b(?:going|driving|walking|rolling|coming|moving) past\b"), "passing"),
    # The camera kept on a thing is the robot looking at it ("how long did you have the camera trained on the van").
    (
        re.compile(
            r"\b(?:keep|kept|keeping|have|had|hold|held) (?:the|your|its|the robot's) cameras? (?:(?:pointed|trained"
            r"|fixed|aimed|focused|locked) )?(?:on|at) "
        ),
        "look at ",
    ),
    (
        re.compile(
            r"^(?P<q>how long|for how long|how much time) (?:was|were) (?:the|your|its|the robot's) cameras? "
            r"(?:(?:pointed|trained|fixed|aimed|focused|locked) )?(?:on|at) "
        ),
        r"\g<q> did you look at ",
    ),
    # A thing said to be somewhere at the moment of another question ("where were you while the dog was on the
    # sofa"): the robot seeing it there.
    (
        re.compile(
            r"\b(?P<c>when|while|as) (?P<x>(?:the|a|an|that|this|some|your) [\w' -]+?) (?:was|were)"
            r" (?P<p>(?:on|in|at|by|near|beside|under|inside|outside) (?:the|a|an|your|its)\b)"
        ),
        lambda m: f"{m['c']} you saw {m['x']} {m['p']}",
    ),
    # A thing appearing, said as the moment of another question ("where were you when the van came into view",
    # "what were you doing as a fox turned up"): the robot seeing it.  Before and after are left to the readers of
    # intervals, which know how a thing first came into view.
    (
        re.compile(
            r"\b(?P<c>when|as|once|the moment|the instant) (?P<x>(?:the|a|an|that|this"
            r"|some|your) [\w' -]+?) (?P<e>first |last )?(?:showed up|appeared|came into (?:view|sight)|turned up"
            r"|popped up|came along|came by)\b"
        ),
        lambda m: f"{m['c']} you {m['e'] or ''}saw {m['x']}",
    ),
)

# The robot's own run said as the subject that began ("since the shift started", "how long ago did the round
# begin", "how many minutes into the patrol are we"): the robot started, as the questions of its time on duty say.
_RUN_BEGAN = (
    (
        re.compile(
            rf"\b(?:the|your|its|this|today's|our|the robot's) {ACTIVITY} (?:began|started|commenced|kicked off"
            r"|got under way|got going|got started)\b"
        ),
        "you started",
    ),
    (
        re.compile(
            rf"^how long ago did (?:you|we|the robot|(?:the|your|its|this|today's|our) {ACTIVITY}) (?:start|begin"
            r"|set off|set out|commence|kick off|get going)\b"
        ),
        "how long have you been on duty",
    ),
    (
        re.compile(
            rf"^how many (?:seconds|minutes|hours) into (?:the |your |this |today's |our )?{ACTIVITY} (?:are (?:you|we)"
            r"|is it|have (?:you|we) (?:got|come|gone))(?: (?:now|right now|by now|at this point|at the moment|so far))?"
            r"(?=[?.!]*$)"
        ),
        "how long have you been on duty",
    ),
)

# Verbs of telling someone something, in their base and past forms.
_TELL = (
    r"tell|inform|warn|remind|notify|alert|advise|ask|instruct|brief|update|caution|urge|order|request|enquire"
    r"|inquire"
)
_TOLD = (
    r"told|informed|warned|reminded|notified|alerted|advised|asked|instructed|briefed|updated|cautioned|urged"
    r"|ordered|requested|enquired|inquired"
)
# Who may tell the robot something: unnamed, or named by what they are ("any visitor", "the night porter").
_TELLER = (
    r"someone|somebody|anyone|anybody|a person|a voice|they|he|she|staff"
    r"|(?:any|a|an|the|some|one|another|that|this) (?:[a-z-]+ )?[a-z-]+"
)
# What follows a verb of telling: what was said, or that something was asked ("asked whether", "asked you a
# question", "asked you something").
_TOLD_WHAT = r" about| of| that| whether| if| a question| any questions?| questions?| something| anything"


def _heard_what(told: str) -> str:
    """What the robot heard, said after "heard": "that" a thing, "a question", or "about" a thing."""
    told = told.strip()
    return " that" if told == "that" else f" {told}" if "question" in told or told.endswith("thing") else " about"


# What the robot hears called by its kind ("the announcements", "a reminder").
MESSAGES = (
    r"(?:messages?|announcements?|reminders?|warnings?|sentences?|utterances?|remarks?|things said|questions?"
    r"|enquir(?:y|ies)|inquir(?:y|ies))"
)
# Hearing said by its manner ("overheard"), a topic that "came up in conversation", and the robot told or warned
# of a thing: heard, mentioned, and heard about.
_HEARING = (
    # a message that played, came on or went out was heard ("when the message about the boiler played")
    (
        re.compile(
            rf"\b(?P<m>{MESSAGES} (?:about|on|regarding|concerning) [a-z0-9' -]+?) (?:played|was played|came on"
            r"|came over|sounded|went out|was broadcast|aired|was aired|was read out|rang out)\b"
        ),
        lambda m: f"{m['m']} was heard",
    ),
    (
        re.compile(
            r"\b(?:were|was|have|has|had) (?:you|the robot|it) (?:ever )?(?:been )?(?:told|informed|warned|reminded"
            r"|notified|alerted|advised)(?P<p> about| of| that| to)?\b"
        ),
        lambda m: f"did you hear{' that' if m['p'] == ' that' else ' about'}",
    ),
    # ... said of the moment it happened ("when you were reminded about X", "as someone warned you of X")
    (
        re.compile(
            rf"\b(?:(?:you|the robot|it) (?:were|was|got|had been|have been|has been)"
            rf"|(?:{_TELLER})(?: had| has)?)"
            rf" (?:{_TOLD})(?: (?:you|the robot|it))?(?P<p>{_TOLD_WHAT})\b"
        ),
        lambda m: f"you heard{_heard_what(m['p'])}",
    ),
    # ... asked with the teller as the subject ("did anyone warn you about X", "when did someone remind you of X")
    (
        re.compile(
            rf"\b(?:did|has|had) (?:{_TELLER})"
            rf"(?: ever)? (?:{_TELL}|{_TOLD})(?: (?:you|the robot|it))?(?P<p>{_TOLD_WHAT})\b"
        ),
        lambda m: f"did you hear{_heard_what(m['p'])}",
    ),
    (
        re.compile(
            r"^(?:was|were|has|had) (?:there )?(?:anything|something|aught|any word|a word) (?:been )?(?:said|mentioned"
            r"|announced|heard|reported|brought up|spoken)(?= about| of| on| regarding| concerning)"
        ),
        "did you hear anything",
    ),
    # A message about a thing said in the passive ("at what time was the warning on the parade broadcast", "was a warning
    # about ice given"): when, or whether, the robot heard about it.
    (
        re.compile(
            rf"\b(?:was|were) (?:the|a|an|that|any|this) (?:(?:spoken|radio|public|verbal) )?(?:{MESSAGES}|calls?)"
            r" (?:about|regarding|concerning|on|of|for) (?P<x>.+?) (?:made|given|issued|broadcast|delivered|read out"
            r"|put out|played|sent|sent out|aired|said|spoken|announced|heard|asked|put to you)$"
        ),
        lambda m: f"did you hear about {m['x']}",
    ),
    (re.compile(r"\boverhear(s|ing)?\b"), r"hear\1"),
    # Messages the robot "picked up", "caught" or "received" were heard.
    (
        re.compile(
            rf"\b(?P<m>{MESSAGES}) (?:that )?(?P<w>you|the robot) (?P<aux>have |has |had )?(?:picked up|caught"
            r"|received|got|registered|captured)\b"
        ),
        lambda m: f"{m['m']} {m['w']} {m['aux'] or ''}heard",
    ),
    (re.compile(r"\boverheard\b"), "heard"),
    # Messages counted in the passive ("how many messages have been spoken to you", "how many spoken messages were
    # picked up"): how many the robot heard.
    (
        re.compile(
            rf"\bhow many (?:spoken |audio |voice |radio )?(?P<m>{MESSAGES}) (?:have been|had been|were|got|was)"
            r" (?:spoken|said|given|picked up|received|caught|heard|announced|made|broadcast|delivered|passed on)"
            r"(?: (?:to|at|for) (?:you|the robot|it))?\b"
        ),
        lambda m: f"how many {m['m']} did you hear",
    ),
    (
        re.compile(
            r"\b(?P<v>come|came|comes|coming) up (?:in|during) (?:a |the |any )?(?:conversations?|discussions?|talks?"
            r"|chats?|what was said|what people said)\b"
        ),
        lambda m: {"came": "was mentioned", "comes": "is mentioned", "coming": "being mentioned"}.get(
            m["v"], "get mentioned"
        ),
    ),
)


# The robot's camera or microphone as the one that met a thing ("did the camera pick up a fox", "the microphone
# caught a siren"): the robot saw or heard it.
_SENSOR = r"(?:the|your|its|the robot's) (?:(?:front|main|onboard|on-board) )?"
_BY_SENSOR = (
    (
        re.compile(
            rf"\b(?P<aux>did|has|have|had) {_SENSOR}(?:cameras?|video|vision|eyes?|image sensors?) (?:ever )?"
            r"(?:pick(?:ed)? up|capture[d]?|catch|caught|record(?:ed)?|see|seen|spot(?:ted)?|detect(?:ed)?|register(?:ed)?"
            r"|get|got)\b"
        ),
        lambda m: f"{'did' if m['aux'] == 'did' else m['aux']} you {'see' if m['aux'] == 'did' else 'seen'}",
    ),
    (
        re.compile(
            rf"\b(?P<aux>did|has|have|had) {_SENSOR}(?:microphones?|mics?|ears?|audio) (?:ever )?"
            r"(?:pick(?:ed)? up|capture[d]?|catch|caught|record(?:ed)?|hear|heard|register(?:ed)?|get|got)\b"
        ),
        lambda m: f"{'did' if m['aux'] == 'did' else m['aux']} you {'hear' if m['aux'] == 'did' else 'heard'}",
    ),
    (
        re.compile(
            rf"\b{_SENSOR}(?:cameras?|video|vision|eyes?) (?:picked up|captured|caught|recorded|saw|spotted|detected)\b"
        ),
        lambda m: "you saw",
    ),
    (
        re.compile(rf"\b{_SENSOR}(?:microphones?|mics?|ears?) (?:picked up|captured|caught|recorded|heard)\b"),
        lambda m: "you heard",
    ),
    # "messages that came through your microphone", "did a van come into the camera": heard, seen.
    (
        re.compile(
            rf"\b(?P<v>came|come|comes|got|get) (?:in )?(?:through|over|via|on|into|to|onto) {_SENSOR}"
            r"(?P<s>microphones?|mics?|audio|radio|cameras?|video)\b"
        ),
        lambda m: (
            ("were heard" if m["v"] in ("came", "got") else "get heard")
            if m["s"].startswith(("mic", "audio", "radio"))
            else ("were seen" if m["v"] in ("came", "got") else "get seen")
        ),
    ),
)


# "After the fountain, which sign did you read next?", "before the gate, where were you?": a relation said before
# the question that it bounds; the plain order puts it after ("which sign did you read after the fountain").
_FRONTED_RELATION = re.compile(
    r"^(?P<r>(?:right |just |directly |immediately |straight )?(?:after|before|ahead of|prior to|following))"
    r" (?P<x>[^,;:]+)[,;:] "
    r"(?P<q>(?:what|which|where|who)\b.+?)(?: next| then| afterwards)?(?P<e>[?.!]?)$"
)


# A stop at a place said as a noun ("after your stop in the kiosk", "just before the kiosk stop"): the visit to it.
_STOP_AT = re.compile(
    r"\b(?P<r>before|after|since|until|till) (?:(?:your|the robot's|its|the) )?(?:stop (?:at|in|by) (?:the |a )?"
    r"(?P<x>[a-z][\w' -]*?)|(?!(?:you|we|i|it|they|he|she)\b)(?P<y>[a-z][\w' -]*?) stop)"
    r"(?=$|[,;:?.!]| and | or | before | after | when | while )"
)


def _stop_visited(m: re.Match[str]) -> str:
    """ "before the kiosk stop" as "before you visited the kiosk"; a stop WordNet names ("the bus stop") is left."""
    place = m["x"] or m["y"]
    wordnet = _wordnet()
    if m["y"] and wordnet is not None and wordnet.senses(f"{place.split()[-1]} stop"):
        return m[0]
    return f"{m['r']} you visited the {place}"


def _relation(said: str) -> str:
    """An order relation in its plain word: "ahead of" and "prior to" are "before", "following" is "after"."""
    return re.sub(r"\b(?:ahead of|prior to)$", "before", re.sub(r"\bfollowing$", "after", said))


# "find the first moment the van appeared", "tell me the last time you heard the bell": what that moment was.
_WANTED_MOMENT = re.compile(
    r"^(?:i need|i want|i'd like|i would like|give me|tell me|let me know|find)(?: to know| to find out)? "
    r"(?=the (?:first|last|earliest|latest) (?:moment|time|instant|point(?: in time)?)\b)"
)


# "When you saw the fox, where were you?": a clause that sets the moment, said before the question; the plain order
# puts it after ("where were you when you saw the fox").
_FRONTED_MOMENT = re.compile(
    r"^(?P<moment>(?:(?:when|while|just as|right as|as soon as|at the (?:moment|time|instant)|the (?:moment|instant))"
    r" |as (?=(?:you|the robot|it|we|someone|somebody|anyone|anybody) ))[^,;:]+)[,;:]"
    r" (?P<question>(?:where|what|which|who|how)\b.+)$"
)


def _clause_asked(m: re.Match[str]) -> str:
    """The yes-or-no question a "was there a time when ..." clause asks: "you saw X" is "have you ever seen X",
    "X was in view" is "was X in view"."""
    clause = m["c"]
    robot = _ROBOT_DID.match(clause)
    if robot is not None:
        return f"have you ever {_participle(robot['v'])}{robot['rest']}"
    state = _THING_WAS.match(clause)
    return f"{state['v']} {state['s']} {state['p']}" if state is not None else m.group(0)


def _seen_when(m: re.Match[str]) -> str:
    """ "When did X show up (for the second time)": when did you see X (the second time); "for the first time" is
    "first"."""
    nth = m["n"] or ""
    edge = re.search(r"\b(first|last) time", nth)
    which = m["w"] or (f"{edge[1]} " if edge else "")
    return f"{m['q']} did you {which}see {m['t']}{'' if edge else nth}"


# "When (what) was the last time you saw X", "the first time a van was in view, when was that?": the moment of an occasion
# named by its order, asked as "when did you last see X", "when was a van first in view".
_EDGE = r"(?P<w>first|last|latest|most recent|final|earliest)"
_EDGE_TIME_ASKED = re.compile(
    rf"^(?P<q>when|where|at what time|what time|what) (?:was|is) the (?:very )?{_EDGE} time (?:that |when )?(?P<c>.+)$"
)
_EDGE_TIME_FRONTED = re.compile(
    rf"^(?:the )?(?:very )?{_EDGE} time (?:that |when )?(?P<c>[^,;:]+)[,;:]? (?P<q>when|where|at what time|what time)"
    r" (?:was|is) (?:that|it|this)$"
)


def _edge_time(m: re.Match[str]) -> str:
    """The plain question of an occasion named by its order: the robot's own verb, or a thing's state."""
    which, clause = _first_or_last(m["w"]), m["c"]
    asked = "when" if m["q"] == "what" else m["q"]  # "what is the last time you ..." asks a time
    robot = _ROBOT_DID.match(clause)
    if robot is not None:
        return f"{asked} did you {which} {_base_form(robot['v'])}{robot['rest']}"
    state = _THING_WAS.match(clause)
    return f"{asked} {state['v']} {state['s']} {which} {state['p']}" if state is not None else m.group(0)


def _first_or_last(word: str) -> str:
    return "first" if word in ("first", "earliest", "before anything else") else "last"


# "The thing you remember reading", "do you recall hearing": remembering having met it is having met it.
_REMEMBERED = re.compile(
    r"\b(?P<aux>(?:did|do|does|can|could) )?(?P<who>you|the robot|it) (?:can )?(?:remember|recall)"
    r" (?P<g>seeing|reading|hearing)\b"
)
_REMEMBERED_VERB = {"seeing": ("saw", "see"), "reading": ("read", "read"), "hearing": ("heard", "hear")}


# The robot named in the third person is "you", as the questions it answers say; a passive's agent ("seen by the
# robot") is who saw, which every such question means.
_ROBOT = r"the robot(?!'s)"
_PLURAL = {"has": "have", "does": "do", "is": "are", "was": "were"}
_THIRD_PERSON = (
    (re.compile(rf"\b(?P<aux>did|had|could|would|will|can) {_ROBOT}\b"), lambda m: f"{m['aux']} you"),
    (re.compile(rf"\b(?P<aux>has|does|is|was) {_ROBOT}\b"), lambda m: f"{_PLURAL[m['aux']]} you"),
    (re.compile(rf"\b{_ROBOT} (?P<aux>has|does|is|was)\b"), lambda m: f"you {_PLURAL[m['aux']]}"),
    (
        re.compile(rf"\b{_ROBOT} (?=(?:saw|heard|read|noticed|spotted|met|passed|encountered|came|went|visited)\b)"),
        lambda m: "you ",
    ),
    (
        re.compile(
            r"\b(?P<done>seen|heard|read|noticed|spotted|detected|met|passed|encountered) by (?:the robot|you)\b"
        ),
        lambda m: m["done"],
    ),
)


# "what's", "where's": the question word and "is" (or "has", before "been" or "got").
_CONTRACTED = re.compile(r"\b(?P<w>what|where|when|who|which|how|that|there)['’]s\b(?P<been> (?:been|got|gotten)\b)?")


# How exact an answer should be, or a word that carries on a talk, said before the question word ("roughly when",
# "exactly where", "and how many"): it asks nothing.
_LEADING_HEDGE = re.compile(
    r"^(?:roughly|approximately|about|around|more or less|exactly|precisely|and|so|ok(?:ay)?|now|then)[,:]? "
    r"(?=(?:what|which|who|when|where|how|whether|if)\b)"
)


# A place named as a thing's ("the heron's spot", "the kettle's room"): the place where that thing was.  The robot's
# own is not one ("the robot's route").
_POSSESSED_PLACE = re.compile(
    r"\b(?:the |a |an )?(?!robot['’]s\b)(?P<x>[a-z][a-z-]*)['’]s (?P<k>room|place|area|spot|location|space|site)\b"
)


# A thing said to have been left somewhere, or to lie about there, asks whether it was seen there ("had someone
# left a bag lying around in the hall", "was a ladder lying about near the gate").
_LYING = (
    r"(?:lying|lying around|lying about|lying out|left out|left behind|left|sitting|standing|parked|placed|out|behind"
    r"|stacked|piled(?: up)?|hanging|hung(?: up)?|propped(?: up)?|leaning|resting|displayed|mounted|pinned(?: up)?"
    r"|taped(?: up)?|perched|stored|kept|dumped|abandoned|scattered|spread out|laid out|lined up|set out)"
)
_PLACED = r"(?: (?:in|at|on|inside|near|by|beside|behind|next to) .+)"
_LEFT_THERE = (
    re.compile(
        r"^(?:had|has|did) (?:someone|somebody|anyone|anybody|people) (?:left|leave|put|placed|place|dumped|dump"
        rf"|parked|park) (?P<x>.+?)(?:(?: {_LYING})+(?P<p>{_PLACED})?|(?P<q>{_PLACED}))$"
    ),
    re.compile(
        rf"^(?:was|were) (?!(?:you|we|i|it|the robot|there)\b)(?P<x>.+?) {_LYING}(?: around| about)?(?P<p>{_PLACED})$"
    ),
    # ... said in the passive perfect ("had any tools been left on the bench", "has a box been put by the door")
    re.compile(
        r"^(?:has|have|had) (?!(?:you|we|i|it|the robot|there)\b)(?P<x>.+?) been (?:left|put|placed|set|dumped"
        rf"|dropped|parked|stored|stacked|piled|hung|propped|abandoned)(?: {_LYING})*(?P<p>{_PLACED})$"
    ),
)


# Getting somewhere said by how the robot moved in ("pull into", "roll up at"), and calling in at a place ("look in
# on", "drop by"): getting to it, and going to it.
_MOVED_IN = r"(?:into|in to|up at|up to|up in|in at)"
_ARRIVING = (
    # The run or a route as what took the robot somewhere ("did the patrol take you into the lab"), and the robot
    # taken there in the passive ("where was the robot taken next"): where it went.
    (
        re.compile(
            rf"\b(?P<aux>did|does|has|have|had) (?:the|your|its|this|today's|our) (?:{ACTIVITY}|route|path|way)"
            r"(?: (?:ever|already|once|at any point))? (?:take|taken|bring|brought|lead|led|send|sent) (?:you|the robot"
            r"|it)\b"
        ),
        "did you go",
    ),
    (re.compile(r"\b(?:was|were) (?:you|the robot|it) (?:taken|driven|sent|moved|brought|led)\b"), "did you go"),
    # Moving through a place is being in it ("have you been through the cellar yet", "when did you drive through the
    # loft", "had it already passed through the gate"): the verb's tense kept, "through" as "to".
    (
        re.compile(
            r"\b(?P<aux>have|has|had) (?P<w>you|the robot|it) (?P<a>(?:already|ever|yet|just|once) )?(?:been|gone"
            r"|passed|driven|walked|rolled|come|moved|travell?ed) through\b"
        ),
        lambda m: f"{m['aux']} {m['w']} {m['a'] or ''}been to",
    ),
    (
        re.compile(
            r"\b(?P<s>did (?:you|the robot|it)|(?:you|the robot|it) (?:will|would|could|can|must)) (?:go|pass"
            r"|drive|walk|roll|come|move|travel) through\b"
        ),
        lambda m: f"{m['s']} go to",
    ),
    (
        re.compile(r"\b(?P<w>you|the robot|it) (?:went|passed|drove|walked|rolled|came|moved|travell?ed) through\b"),
        lambda m: f"{m['w']} went to",
    ),
    (
        re.compile(
            r"\b(?P<w>you|the robot|it) (?P<b>were|was) (?:going|passing|driving|walking|rolling|coming|moving"
            r"|travell?ing) through\b"
        ),
        lambda m: f"{m['w']} {m['b']} in",
    ),
    # "which room was visited next": which the robot visited
    (
        re.compile(r"\b(?P<w>which|what) (?P<k>[a-z]+) (?:was|were) (?P<e>first |next |last )?visited\b"),
        lambda m: f"{m['w']} {m['k']} did you {m['e'] or ''}visit",
    ),
    (re.compile(rf"\b(?:pull|roll|drive|head|walk|step|wheel|turn) {_MOVED_IN}\b"), "get to"),
    (re.compile(rf"\b(?:pulled|rolled|drove|headed|walked|stepped|wheeled|turned) {_MOVED_IN}\b"), "got to"),
    (
        re.compile(rf"\b(?:pulling|rolling|driving|heading|walking|stepping|wheeling|turning) {_MOVED_IN}\b"),
        "getting to",
    ),
    (
        re.compile(
            r"\b(?P<aux>have|has|had) (?P<w>you|the robot|it) (?:(?:already|ever|yet) )?(?:looked in on|checked in on"
            r"|popped into|dropped by|dropped in at|stopped by|called at|called in at|checked)\b"
        ),
        lambda m: f"{m['aux']} {m['w']} been to",
    ),
    (re.compile(r"\b(?:look in on|check in on|pop into|drop by|drop in at|stop by|call at|call in at)\b"), "go to"),
    # "where had you just come from when you reached X", "where were you coming from as you got to X": the place
    # before it
    (
        re.compile(
            r"^where (?:had|have|did|were|was) (?P<w>you|the robot|it) (?:just |only just )?(?:come|came|coming|been)"
            r"(?: in)? from,? (?:when|as|before|just before|right before) (?:you|the robot|it) (?P<v>reached|got to"
            r"|arrived at|arrived in|entered|came to|came into|were getting to|got into)\b"
        ),
        lambda m: f"where had {m['w']} been right before {m['w']} {m['v']}",
    ),
    (
        re.compile(
            r"\b(?:looked in on|checked in on|popped into|dropped by|dropped in at|stopped by|called at"
            r"|called in at)\b"
        ),
        "went to",
    ),
    (
        re.compile(
            r"\b(?P<q>(?:which|what) (?:room|place|area|location|spot) did (?:you|the robot)) (?:check|inspect|visit)\b"
        ),
        lambda m: f"{m['q']} go to",
    ),
)
# The length of a stay said as a thing ("the length of your stay in X", "how long was your visit to X").
_STAY_LENGTH = re.compile(
    r"^(?:what was|what's|what is|how long (?:was|did)) (?:the (?:length|duration) of )?(?:your|the robot's|its|the) "
    r"(?:(?P<n>first|second|third|fourth|fifth) )?(?:stay|visit|stop|time|halt|pause|wait)s? (?P<p>in|at|to|inside"
    r"|among|amongst|by|near|beside) (?P<x>.+?)(?: (?:last|take))?$"
)
# A place said before a question of staying ("up in the attic, how long did you stay?"): the place of the stay.
_FRONTED_STAY = re.compile(
    r"^(?:(?:up|down|back|over|out|once) )?(?P<p>in|at|inside) (?P<x>the [^,]+), (?P<q>how (?:long|much time|many "
    r"(?:seconds|minutes)) did (?:you|the robot) (?:stay|spend|remain|linger|stop|wait)(?: there)?)(?P<e>[?.!]?)$"
)
# "Once you were done at X, what was your next stop?", "between your two visits to X, where did you stop?": where the
# robot went right after X.
_NEXT_STOP = re.compile(
    r"^(?:(?:once|after|when|as soon as) (?:you|the robot|it) (?:(?:were|was|had) (?:done|finished|through) (?:at|in|with)"
    r"|(?:had )?(?:left|exited|departed(?: from)?|came out of|moved on from|got out of)) (?P<x>[^,]+)"
    r"|between (?:your|the robot's|its|the) (?:two|first and second) visits (?:to|at|in) (?P<y>[^,]+)),? "
    r"(?:what was (?:your|its|the) next (?:stop|place|destination|room)|where did (?:you|the robot) (?:stop|go)(?: next)?"
    r"|which (?:room|place) did (?:you|the robot) (?:go to|visit|stop at)(?: next)?)(?P<e>[?.!]?)$"
)


# "Which place came next after X", "what was the next room after X", "what room came before X": the place the robot
# went to right after (or before) it.
_PLACE_NEXT = re.compile(
    r"^(?:which|what) (?:(?P<k>place|room|area|location|stop|spot) (?:came|was|followed) (?:next |straight |right )?"
    r"|(?:was|is) the (?:next|following|previous|preceding) (?P<k2>place|room|area|location|stop|spot) )"
    r"(?P<r>after|before) (?P<x>.+?)(?P<e>[?.!]?)$"
)


# A voice that came over the robot's microphone was heard; the camera that stayed on a thing had it in view.
_AUDIO = (
    r"(?:audio|microphone|mic|microphones|speakers?|radio|intercom|loudspeakers?|channel|feed|pa system|pa"
    r"|public address(?: system)?|walkie-talkie|two-way radio)"
)
_VOICE = r"(?:a |any |some )?(?:voice|voices|someone|somebody|anyone|anybody|people|a person)"
_SENSED = (
    (
        re.compile(
            rf"^how (?:many times|often) (?:has|have|did) {_VOICE} (?:come|came|spoken|speak|talked|talk)"
            rf"(?: to (?:you|the robot|it))?(?: (?:over|through|on|in) (?:your|the|its) {_AUDIO})?(?P<r>.*)$"
        ),
        lambda m: f"how many messages did you hear{m['r']}",
    ),
    (
        re.compile(rf"\b(?:has|have|did) {_VOICE} (?:come|came) (?:over|through|on) (?:your|the|its) {_AUDIO}\b"),
        "did you hear anything",
    ),
    # "how many messages have come in", "how many calls got through": how many were heard
    (
        re.compile(
            rf"^how many (?:(?:spoken|voice|radio|separate|different) )*(?P<n>{MESSAGES}|calls?) (?:have |had |has )?"
            r"(?:come|came|arrived|got through|gotten through|been received|were received|come in|came in"
            r"|come through|came through)(?P<r>.*)$"
        ),
        lambda m: f"how many {m['n']} did you hear{m['r']}",
    ),
    # "how many messages came over the radio or the intercom": the way a message came is no part of what it was
    (
        re.compile(
            rf"(?P<m>\b{MESSAGES}\b.*?) (?:over|through|on|via|from) (?:your |the |its |a )?{_AUDIO}"
            rf"(?: (?:or|and) (?:over |through |on |via |from )?(?:your |the |its |a )?{_AUDIO})*\b"
        ),
        lambda m: m["m"],
    ),
    (
        re.compile(
            r"\b(?:did|does|has) (?:the|your|its) camera (?:stay|stayed|linger|lingered|remain|remained|rest|rested"
            r"|dwell|dwelt|focus|focused) on (?P<x>[^?,]+)"
        ),
        lambda m: f"was {m['x'].strip()} in view",
    ),
)


# "The earliest time X shows up", "the last time X appeared": when X was first (or last) seen.
_SHOWED_UP = re.compile(
    r"^what(?:'s| is| was) the (?P<e>earliest|first|latest|last|most recent|final) (?:time|moment) (?:that )?(?P<x>.+?) "
    r"(?:showed up|shows? up|appeared|appears?|turned up|turns? up|came into view|comes? into view|popped up"
    r"|pops? up)\b(?P<r>.*)$"
)


def _visits_plain(sentence: str) -> str:
    """Questions of getting to, staying at and leaving places, in the plain words the patterns read."""
    for pattern, plain in _ARRIVING:
        sentence = pattern.sub(plain, sentence)
    bare = sentence.rstrip("?.! ")
    if (stay := _STAY_LENGTH.match(bare)) is not None:  # "how long did your second stop at X last"
        nth = f" on your {stay['n']} visit" if stay["n"] else ""
        where = "in" if stay["p"] in ("in", "at", "to", "inside") else stay["p"]
        return f"how long were you {where} {stay['x']}{nth}{sentence[len(bare) :]}"
    if (fronted := _FRONTED_STAY.match(sentence)) is not None:
        return f"{fronted['q']} {fronted['p']} {fronted['x']}{fronted['e']}"
    if (shown := _SHOWED_UP.match(sentence)) is not None:
        edge = "first" if shown["e"] in ("earliest", "first") else "last"
        return f"when did you {edge} see {shown['x']}{shown['r']}"
    if (near := _PLACE_NEXT.match(sentence)) is not None:
        return f"which {near['k'] or near['k2']} did you go to right {near['r']} {near['x']}{near['e']}"
    if (nxt := _NEXT_STOP.match(sentence)) is not None:
        return f"where did you go right after {nxt['x'] or nxt['y']}{nxt['e']}"
    return sentence


# "How long were you watching the kettle": how long it was looked at, not a stay somewhere.
_LOOKING_LONG = re.compile(
    r"^(?P<q>how long|for how long|how much time) (?:were|was) (?:you|the robot|it) (?:looking (?:at|into)|watching"
    r"|observing|viewing|staring at|facing|studying|examining) "
)


# "Any sign of a fox", "some trace of the van", "no sign of the dog": an indication of a thing is the thing met.
_SIGN_OF = r"(?:signs?|traces?|evidence|indications?|hints?) of"
_INDICATION = re.compile(rf"\b(?:any|some|a) {_SIGN_OF} (?=(?:a|an|any|some|the|that|this)\s)")
_NO_INDICATION = re.compile(rf"\bno {_SIGN_OF} (?:(?:a|an|any|the) )?")


def _indicated(m: re.Match[str]) -> str:
    return "was there " if m.start() == 0 else ""  # "any sign of a fox?" on its own asks whether there was one


def _seen_there(sentence: str) -> str:
    """A thing said to have been left or to lie somewhere, asked as whether it was seen there."""
    bare = sentence.rstrip("?.! ")
    for left in _LEFT_THERE:
        found = left.match(bare)
        if found is not None:
            place = found["p"] or found.groupdict().get("q") or ""
            return f"did you see {found['x']}{place}{sentence[len(bare) :]}"
    return sentence


# "Had you already done X when Y happened" asks whether X came before Y, however the two clauses are ordered.
_DONE_BY_THEN = (
    re.compile(
        r"^(?:when|by the time|at the time|the moment) (?P<c>[^,]+), had (?P<w>you|the robot) (?:already )?(?P<r>.+)$"
    ),
    re.compile(r"^had (?P<w>you|the robot) (?:already )?(?P<r>.+?),? (?:when|by the time|at the time) (?P<c>.+)$"),
)


# "Was a wallet left lying around?", "were there cups left on the counter?": whether such a thing was seen.
_LEFT_ABOUT = re.compile(
    r"^(?:was|were) (?:there )?(?P<x>(?:a|an|any|some|the) [^?]+?|[a-z]+s) (?:left|lying|standing|sitting|abandoned)"
    r"(?: (?:lying|standing|sitting|unattended|behind|around|about|out|open))*(?P<r>.*)$"
)


# How a thing was left somewhere: where it was, not what it did ("permitted", "mentioned" say something else).
_PLACED_AS = (
    r"(?:parked|left|chained|locked|tied|moored|docked|stacked|piled|stored|kept|placed|propped|leaned|hung|hanging"
    r"|mounted|abandoned|dumped|lined up|set up|installed|displayed|lying|standing|sitting)"
)
# A thing somewhere doing something, asked of ("was any lorry idling in the yard", "were some geese grazing by the
# pond", "was a van parked outside the shop"): whether it was seen there; what it was doing, the camera does not
# tell apart.
_DOING_THERE = re.compile(
    r"^(?:was|were) (?:there )?(?P<x>(?:a|an|any|some|several|many) [a-z' -]+?|(?!(?:the|your|its|this|that|my|our"
    r"|their|you|it|we|they|there|any|some|no|every)(?:one|body)?\b)[a-z'-]+)"
    rf" (?P<v>[a-z]+ing|{_PLACED_AS})(?: (?:about|around|along|past|up|down|out))? (?P<r>{_WHERE_OR_WHEN} .+)$"
)
# A place said to have a thing ("did the kitchen have any bread on its shelves", "does the garage have a bicycle in
# it"): whether the thing was seen there.  Not a thing that bears words ("did the notice have a date on it").
_PLACE_HAD = re.compile(
    r"^(?:did|does) (?:the|your|its|that) (?P<pl>[a-z' -]+?) (?:have|hold|contain|include)(?: got)?"
    r" (?P<x>(?:a|an|any|some) [a-z' -]+?)(?: (?:on|in|at|by|near|under|behind|beside|inside|outside|along)"
    r" (?:its|it|there|their|them)\b.*)?$"
)


def _seen_doing_there(sentence: str) -> str:
    doing = _DOING_THERE.match(sentence)
    wordnet = _wordnet()
    verb = doing is not None and (re.fullmatch(_PLACED_AS, doing["v"]) or (wordnet and wordnet.is_verb(doing["v"])))
    if doing is not None and verb:
        return f"did you see {doing['x']} {doing['r']}"
    had = _PLACE_HAD.match(sentence)
    if had is not None and not re.search(rf"\b(?:{BEARER}|screen|display|menu|whiteboard|leaflet)s?$", had["pl"]):
        return f"did you see {had['x']} in the {had['pl']}"
    return sentence


# Where a yes-or-no question is asked of, said before it ("in the yard, did you see a fox?"): said after it;
# not an occasion said first ("on your first visit to X, ..."), which the patterns read where it is.
_FRONTED_WHERE = re.compile(
    r"^(?P<pp>(?:on|in|at|inside|near|by|outside) (?:the|a|an|your|its) (?![^,;:]*\b(?:visits?|trips?|way|rounds?"
    r"|times?|stops?|stays?|patrol|shift|occasions?|passes)\b)[^,;:]+)[,;:] "
    r"(?P<q>(?:did|could|were|was|have|has|had|is|are|can|do) (?:you|the robot|it|there|anyone|anybody)\b[^?]*)$"
)
# "Could you see X", "were you able to make out X": whether it was seen (not a request to look, "could you see if").
_COULD_SEE = re.compile(r"^(?:(?:could|can) you|were you able to) (?P<v>see|spot|make out|notice) (?!(?:if|whether)\b)")


# Words that set the moment of a clause, said as "when".
_AT_THE_MOMENT = re.compile(r"^(?:at the (?:moment|time|instant)|the (?:moment|instant)|as soon as|just as|right as)")


# "By now", "so far", "all told" before the question: every question is asked as of its moment, of all memory.
_AS_OF_NOW = re.compile(
    r"^(?:by now|so far|up to now|up till now|up until now|until now|till now|to date|thus far|as of now|as yet"
    r"|all told|in all|all in all|altogether|overall|in total),?\s+(?=\w)"
)
# A thing set before a question with a colon or a dash ("the kiosk: what came next after it?") is its context, said again in
# it where a pronoun points back at it; two things offered so ("between the van and the bus: which came first") are
# part of the question.
_TOPIC_COLON = re.compile(
    r"^(?!(?:of|between|out of|among)\b)(?![^:]* (?:or|and|vs|versus) )[^:?.!]{1,60}(?::|\s[-–—])\s+"
    r"(?=(?:what|which|where|when|who|how|did|was|were|have|has|had|is|are|do|does|can|could|tell|give|state|report"
    r"|list|name|(?:at|in|on|from|by|to|for|during) (?:what|which|whose|how))\b)"
)


# A kind asked after with no verb ("what sort of animal?"): the kind of the thing just spoken of.
_BARE_KIND = re.compile(r"^(?P<q>(?:what|which) (?:sort|kind|type|variety|species|breed) of [a-z' -]+?)$")


# Occasions counted are times: "on how many occasions did you ...", "how many separate occasions ...".
_OCCASIONS = re.compile(r"\b(?:(?:on|in) )?how many (?P<m>(?:separate |different |distinct )?)occasions\b")


# A topic set before a bare question word that asks about it whole ("time spent in the shop - how much?", "visits
# to the kiosk: how many?"): the question word goes before it.
_BARE_ASKING = re.compile(
    r"^(?P<topic>[^:?.!]{1,80}?)\s*(?::|\s[-–—])\s+(?P<wh>how (?:much|many|long|often)|when|where"
    r"|(?P<count>(?:give me|tell me|what is|what's|i need|state|report) (?:the )?(?:number|count|total|tally)))"
    r"(?: please)?\s*[?.!]?$"
)


# An amount of time hedged ("in the first hour or thereabouts", "over roughly the past ten minutes"): a window is rough
# anyway.
_ROUGHLY = re.compile(
    r"(?<=second|minute)(?:s)?(?: or so| or thereabouts|,? give or take)\b|(?<=hour)(?:s)?(?: or so| or thereabouts"
    r"|,? give or take)\b|\b(?:roughly|approximately|about|around|more or less) (?=the (?:last|past|first)"
    r" (?:[\w.]+[ -]){0,3}?(?:seconds?|minutes?|hours?)\b)"
)
# The one who spoke, described by speaking ("the woman who talked to you a minute ago", "the man that called over
# the radio"): someone, with when they spoke moved to the end of the sentence, where a window is read.
_SPEAKER_DESCRIBED = re.compile(
    r"\b(?:the|a|an|that) (?:[a-z'-]+ ){1,3}?(?:who|that) (?:spoke|talked|was talking|were talking|called|came over"
    r"|radioed|chatted|addressed you)(?: (?:to|with) (?:you|the robot|it))?(?: (?:over|on|through) (?:the |your |its )?"
    r"[a-z-]+)?(?P<ago>(?: [\w.-]+){1,5}? ago)?(?= (?:say|said|mention|mentioned|tell|told|ask|asked|want|wanted"
    r"|report|reported)\b)"
)


def _speaker_said_plainly(sentence: str) -> str:
    found = _SPEAKER_DESCRIBED.search(sentence)
    if found is None:
        return sentence
    plain = f"{sentence[: found.start()]}someone{sentence[found.end() :]}"
    return f"{plain}{found['ago']}" if found["ago"] else plain


# A moment set by someone speaking ("when Dr Ames spoke", "as the porter called over the radio"): when the robot
# heard them, by the name or role they would have spoken under.
_SPOKE_THEN = re.compile(
    r"\b(?P<w>when|while|as|after|before) (?P<who>(?:the |a |an )?(?:(?:dr|doctor|mr|mrs|ms|miss|captain|sister|nurse"
    r"|officer|professor|prof|sergeant|father)\.? )?[a-z][a-z'-]+(?: [a-z][a-z'-]+)?) (?:spoke|called|talked|radioed"
    r"|phoned|said something|came on the radio|got in touch|was speaking|was talking)(?: to (?:you|the robot|it))?"
    r"(?: (?:over|on|through) (?:the |your |its )?[a-z-]+)?\b"
)
# A request to list what was met, and a question of which things were: "list everything you saw", "name the signs
# you read", "give me every message you heard", "which objects did you spot" ask "what did you see / read / hear".
_THINGS = r"(?:things?|objects?|items?|stuff|everything|anything|all)"
_LISTED_KINDS = rf"(?:{_THINGS}|{BEARER}s?|texts?|words|{MESSAGES})"
_LIST_REQUEST = re.compile(
    r"^(?:please )?(?:(?:can|could|would|will) you (?:please )?)?(?:list|name|enumerate|give me|tell me|recount"
    r"|recite|summari[sz]e|go through|run through|show me)(?: (?:all|every|each|of))*(?: the| your)?"
    rf" (?P<n>{_LISTED_KINDS})(?: (?:that|which))? (?:you|the robot|it)(?: (?:have|had|has))? (?P<v>[a-z]+)"
    r"(?P<rest>(?: .*)?)$"
)
_WHICH_THINGS = re.compile(
    rf"^(?:which|what) (?:(?:different|other|kinds? of|sorts? of) )*{_THINGS} (?=(?:did|have|had) )"
)


def _listed(m: re.Match[str]) -> str:
    """A listing request said as its question: messages are what was heard, the things of a generic noun are
    "what", the rest keep their noun ("what signs did you read")."""
    if re.fullmatch(MESSAGES, m["n"]):
        return f"what did you hear{m['rest']}"
    noun = "" if re.fullmatch(_THINGS, m["n"]) else f" {m['n']}"
    return f"what{noun} did you {_base_form(m['v'])}{m['rest']}"


def plain_sentence(sentence: str) -> str:
    """A lower-case sentence without the robot's patrol as its scope or a remark on how to answer, an either/or
    relation said whole, two things offered before the question that asks which said after it, and an idiom of
    seeing said with its verb."""
    sentence = _BARE_ASKING.sub(lambda m: f"{'how many' if m['count'] else m['wh']} {m['topic']}", sentence)
    sentence = _OCCASIONS.sub(lambda m: f"how many {m['m']}times", _BARE_KIND.sub(r"\g<q> was it", sentence))
    sentence = _TOPIC_COLON.sub("", re.sub(r"\b(you|we|they|i)['’]ve\b", r"\1 have", sentence))
    sentence = _WANTED_MOMENT.sub("what was ", _AS_OF_NOW.sub("", sentence))
    sentence = _seen_doing_there(_LEFT_ABOUT.sub(lambda m: f"did you see {m['x']}{m['r']}", sentence))
    sentence = _FRONTED_WHERE.sub(lambda m: f"{m['q']} {m['pp']}", sentence)
    sentence = _COULD_SEE.sub("did you see ", sentence)
    sentence = _CONTRACTED.sub(lambda m: f"{m['w']} {'has' if m['been'] else 'is'}{m['been'] or ''}", sentence)
    sentence = _LEADING_HEDGE.sub("", _ROUGHLY.sub(lambda m: "s" if m.group(0).startswith("s") else "", sentence))
    sentence = _SPOKE_THEN.sub(lambda m: f"{m['w']} you heard {m['who']}", _speaker_said_plainly(sentence))
    sentence = _WHICH_THINGS.sub("what ", _LIST_REQUEST.sub(_listed, sentence))
    sentence = _SHOW_WHERE.sub(
        _where_asked, _POSITION_REQUEST.sub(lambda m: f"where were you {'when ' * bool(m['when'])}", sentence)
    )
    sentence = _DEPICTED_REMARK.sub("", _POSITION_FORM.sub("", sentence))
    sentence = _ANY_KIND.sub("", _NOT_JUST.sub("", _INDICATION.sub(_indicated, _NO_INDICATION.sub("no ", sentence))))
    sentence = _POSSESSED_PLACE.sub(lambda m: f"the {m['k']} with the {m['x']}", sentence)
    sentence = _LOOKING_LONG.sub(r"\g<q> did you look at ", _visits_plain(_seen_there(sentence)))
    for pattern, plain in _SENSED:
        sentence = pattern.sub(plain, sentence)
    for done in _DONE_BY_THEN:
        sentence = done.sub(lambda m: f"had {m['w']} {m['r'].rstrip(' ?')} before {m['c'].rstrip(' ?')}", sentence)
    sentence = re.sub(
        r"^(at )?(?:roughly|approximately|about|around|more or less|exactly) (what time|when)\b", r"\1\2", sentence
    )
    sentence = without_aside(sentence)
    sentence = re.sub(r"\bvery (first|last|latest|earliest|final|start|beginning|end)\b", r"\1", sentence)
    sentence = _REMEMBERED.sub(
        lambda m: f"{m['aux'] or ''}{m['who']} {_REMEMBERED_VERB[m['g']][1 if m['aux'] else 0]}", sentence
    )
    for idiom, verb in (*_SEEING, *_HEARING, *_RUN_BEGAN):
        sentence = idiom.sub(verb, sentence)
    for pattern, said in (*_THIRD_PERSON, *_BY_SENSOR):
        sentence = pattern.sub(said, sentence)
    previous = None
    while previous != sentence:
        previous, sentence = sentence, _DANGLING.sub("", _FORM_REMARK.sub("", _SCOPE.sub("", sentence))).lstrip(",;: ")
    offered = _OFFERED_FIRST.match(sentence) or _OFFERED_EITHER.match(sentence)
    sentence = f"{offered['q']}, {offered['a']} or {offered['b']}" if offered else sentence
    sentence = _FRONTED_MOMENT.sub(lambda m: f"{m['question']} {_AT_THE_MOMENT.sub('when', m['moment'])}", sentence)
    sentence = _EDGE_TIME_ASKED.sub(_edge_time, _EDGE_TIME_FRONTED.sub(_edge_time, sentence))
    sentence = _FRONTED_RELATION.sub(lambda m: f"{m['q']} {_relation(m['r'])} {m['x']}{m['e']}", sentence)
    sentence = _STOP_AT.sub(_stop_visited, sentence)
    return _SPLIT_ALTERNATIVE.sub(lambda m: f"{m['r']} or {m['s']} {m['b']}" if m["r"] != m["s"] else m[0], sentence)


# The negative words of a yes/no question that asks whether something did not happen ("did nobody mention X",
# "was there no cat"), and their positive counterparts; "didn't you see" and "or not" ask as the positive does.
_NEGATIVES = (
    (re.compile(r"\b(?:nobody|no one|noone)\b"), "anybody"),
    (re.compile(r"\bnothing\b"), "anything"),
    (re.compile(r"\bnever\b"), "ever"),
    (re.compile(r"\bnone of\b"), "any of"),
    (re.compile(r"\bno(?= [a-z])(?! (?:longer|more|matter|doubt)\b)"), "any"),
)


# Words quoted ("did you read 'NO ENTRY'"): what was read or heard, never the question's own negation.
_QUOTED = re.compile(r"(?:(?<=\s)|^)[\"'“‘][^\"'“”‘’]{1,80}[\"'”’](?=\s|$|[,.?!;:])")


def negated(clause: str) -> bool:
    """Whether a lower-case yes/no clause asks if something did not happen."""
    unquoted = _QUOTED.sub(" ", clause)
    return any(pattern.search(unquoted) for pattern, _ in _NEGATIVES)


def _positive(clause: str) -> str:
    """The clause with its negative words made positive, outside what it quotes."""
    parts = re.split(f"({_QUOTED.pattern})", clause)
    for i in range(0, len(parts), 2):
        for negative, positive in _NEGATIVES:
            parts[i] = negative.sub(positive, parts[i])
    return "".join(parts)


def plain_asking(clause: str) -> str:
    """A lower-case asking clause in the plain form of its idiom of asking, where it uses one, and asked as
    the positive (the answer's yes or no is turned round for a question that was negative)."""
    for pattern, plain in _ASKING_FORMS:
        clause = pattern.sub(plain, clause, count=1)
    return _positive(clause)


# Abbreviations whose full stop ends no sentence ("Dr. Ames", "No. 4").
_ABBREVIATION = re.compile(r"\b(mr|mrs|ms|dr|st|prof|no|nr|approx|e\.g|i\.e)\.(?=\s)", re.IGNORECASE)


def sentences_of(text: str) -> list[str]:
    """The sentences of a question, split after a full stop, question or exclamation mark that ends one."""
    kept = _ABBREVIATION.sub(lambda m: m[1] + "\0", text.strip())
    return [s.replace("\0", ".") for s in re.split(r"(?<=[.?!])\s+", kept) if s.strip()]


def without_aside(text: str) -> str:
    """A sentence without an aside set off by dashes ("was any water - a pond, say - visible")."""
    return _ASIDE.sub(" ", text)
