"""Questions asked indirectly, as the direct question inside them.

"Tell me where you heard about the delivery", "I'd like to know if there was a fox on your route", "could you
check whether anyone mentioned the boiler": a request or a wish to know wraps an embedded question, whose subject
and verb stand in the order of a statement.  Every reader of a question knows the direct form ("where did you hear
about the delivery?", "was there a fox on your route?"), so the embedded question is said that way before
anything reads it: the request is dropped, an auxiliary goes before the subject, and a past or present verb
becomes "did" / "does" with the verb's dictionary form (from the WordNet the caller reads words with; without
it, the regular past only).  What a question
quotes keeps its case.
"""

from __future__ import annotations

import re

from vidmem_ros.perception.wordnet import WordNet

_WH = r"(?:where|when|what|which|who|whom|whose|why|how|whether|if)\b"
# A request or a wish to know, before the embedded question.
_LEAD_IN = re.compile(
    r"^(?:please,? )?(?:"
    r"(?:can|could|would|will) you (?:please )?(?:tell|show|remind|let) me(?: know)?"
    r"|(?:can|could|would|will) you (?:please )?(?:check|find out|say|see|work out|confirm)"
    r"|(?:(?:can|could|would|will) you (?:please )?)?count(?: up)?(?: for me)?"
    r"|(?:please )?(?:tell|show|remind) me|let me know|find out|check"
    r"|i(?:'d| would) (?:like|love) to know|i (?:want|need|wish) to know|i(?:'m| am) wondering|i wonder"
    r"|do you (?:happen to )?(?:know|remember|recall)|(?:(?:do you have|have you got|have you) )?any idea"
    r"|(?:at )?what (?:time|hour) (?:was it|was that|did it happen)|what was the time"  # "... when you set off"
    rf")[,:]?\s+(?={_WH})",
    re.IGNORECASE,
)
_AUXILIARIES = frozenset(
    re.findall(r"\w+", "was were is are am had has have did does do can could will would should shall might may must")
)
_PRONOUNS = r"you|it|we|they|he|she|there|some(?:one|body)|any(?:one|body)|every(?:one|body)|no(?:one|body)"
_DETERMINERS = frozenset(("the", "a", "an", "that", "this", "those", "these", "your", "its", "any", "some", "our"))
_SUBJECT = rf"{_PRONOUNS}|the robot|(?:{'|'.join(_DETERMINERS)}) [\w'-]+(?: [\w'-]+){{0,3}}?"
# Adverbs that stand between a subject and its verb ("when you first saw it").
_ADVERBS = r"first|last|ever|already|just|actually|really|still|most recently|again|also|finally|previously|earlier"
# The embedded question: its question phrase (with the words it asks of: "how many spoken messages"), its
# subject, its first verb and the rest.
_EMBEDDED = re.compile(
    r"^(?P<wh>whether|if|(?:at |in |on |for )?(?:what|which|whose)(?: [\w'-]+){0,5}?|where|when|why|who|whom"
    r"|how(?: (?:long|many|much|often|far|soon|come))?(?: [\w'-]+){0,5}?)"
    rf"\s+(?P<subject>{_SUBJECT})\s+(?P<adverb>(?:{_ADVERBS})\s+)?(?P<verb>[\w']+)(?P<rest>\b.*)$",
    re.IGNORECASE,
)
# "Do you remember seeing a fox": whether it happened.
_RECALLED = re.compile(r"^(?:do you (?:remember|recall)|can you remember)\s+(?P<verb>\w+ing)\b", re.IGNORECASE)


# A statement asked to be confirmed ("someone was in the shed, right?", "you saw the van, didn't you?").
_TAG = re.compile(
    r"^(?P<statement>.+?),?\s+(?:right|correct|yes|true|yeah|eh|ok|okay|am i right|is that (?:right|correct|so)"
    r"|(?:was|were|is|are|did|do|does|had|has|have)(?:n't| not)? (?:you|it|they|there|he|she|we|i)"
    r"|(?:was|were|is|are|did|do|does|had|has|have)(?:n't| not)? (?:someone|somebody|anyone|anybody))\s*[?!.]*$",
    re.IGNORECASE,
)
# A question that leaves out "did you" ("spot any foxes on the way?", "hear anything about the lift?").
_ELLIPTICAL = re.compile(
    r"^(?:spot|see|notice|hear|read|catch|meet|find|pass|come across|run into|bump into|visit|get to)\s+"
    r"(?=(?:any|anything|anyone|anybody|a|an|some|something|someone|somebody|many|much|more)\b)",
    re.IGNORECASE,
)
# A moment said first, then the question ("when you reached the quay, was a boat moored there?").
_MOMENT_FIRST = re.compile(
    r"^(?P<moment>(?:when|while|as|once|after|before) (?:you|the robot|it|we) [^,]+),\s+"
    r"(?P<asked>(?:was|were|is|are|did|do|does|had|has|have|could|can)\b.+)$",
    re.IGNORECASE,
)


# A count asked for as a quantity ("tally of vans so far, please", "what's your count of visits to the kiln room", "give
# me the number of messages you heard"): how many.
_COUNT_OF = re.compile(
    r"^(?:(?:what|how much)(?: is| was|'s| are| were) |(?:please )?(?:give|tell|show|get) me |(?:can|could|would) you "
    r"(?:please )?(?:give|tell) me )?(?:a |an |the |your |my )?(?:running |final |current |overall |total |full )?"
    r"(?:tally|count|number|total|head ?count|sum)(?: number)? of (?:the |all the )?(?P<counted>.+?)(?:,? please)?\s*[?.!]*$",
    re.IGNORECASE,
)
# Plural nouns not made with an "s".
_PLURALS = frozenset(
    ("people", "children", "men", "women", "staff", "police", "sheep", "deer", "fish", "mice", "geese")
)


# "As of right now, ...", "up to now, ...": the moment asked is now already.
_AS_OF_NOW = re.compile(r"^(?:as of|up to|until|till) (?:right |just )?now,\s*", re.IGNORECASE)
# Questions said another way than the patterns read them, as the plain question: (pattern, replacement).
_REWORDED = [
    # "at what second of the recording did you ...", "at which point into the patrol did you ...": when
    (re.compile(r"^at (?:what|which) (?:exact )?(?:second|minute|point|moment|instant)(?: (?:of|in|into) (?:the |your "
                r"|this )?(?:recording|patrol|run|memory|footage|video|shift|round))? (?P<x>(?:did|do|was|were|had|have)"
                r"\b.*)$", re.IGNORECASE), "when {x}"),
    # "last sighting of the van: what time was it?", "when was your first sighting of the van?"
    (re.compile(r"^(?P<w>first|last|latest|earliest|most recent|final) sighting of (?P<x>.+?)\s*[:,;-]+\s*(?:what time "
                r"was (?:it|that)|when was (?:it|that)|what was the time|when)\s*\??$", re.IGNORECASE),
     "when did you {w} see {x}?"),
    (re.compile(r"^when was (?:the|your|its) (?P<w>first|last|latest|earliest|most recent|final) sighting of "
                r"(?P<x>.+?)\s*\??$", re.IGNORECASE), "when did you {w} see {x}?"),
    # "the vestry was followed by which room?", "which area was the cloister preceded by?"
    (re.compile(r"^(?P<x>.+?) (?:was|were) (?P<r>followed|succeeded|preceded) by (?:which|what) (?:\w+ )?(?:part|place"
                r"|area|room|spot|stop|location|zone|section)(?: of [\w ]+?)?\s*\??$", re.IGNORECASE),
     "where did you go {r} {x}?"),
    # "kiln room visit: duration?", "stop at the arch - length in seconds?"
    (re.compile(r"^(?P<x>.+?) (?:visit|stop|stay)\s*[:,-]+\s*(?:the |its |your )?(?:duration|length|time spent"
                r"|how long)(?: in (?:seconds|minutes))?\s*\??$", re.IGNORECASE), "how long was your visit to {x}?"),
    # "kiln room visits: how many?", "trips to the kiln room - how many so far?"
    (re.compile(r"^(?P<x>.+?)(?:\s*[-,:])?\s+(?P<v>visits|trips|stops)\s*[:,-]+\s*how many(?P<tail>(?: (?:so far|in all"
                r"|in total|altogether|today|until now|up to now))*)\s*\??$", re.IGNORECASE), "how many {v} to {x}{tail}?"),
    # "just before the kiln room you were somewhere else. where?": where the robot was
    (re.compile(r"^(?P<x>(?:just |right |immediately )?(?:before|after) .+?),? (?:you|the robot) (?:were|was|had been"
                r"|went) (?:somewhere|someplace|elsewhere)(?: else)?\s*[.;,:-]+\s*where(?: was that| was it)?\s*\??$",
                re.IGNORECASE), "where were you {x}?"),
    # "kiln room -> ?", "kiln room -> ? (next stop)": the stop after it
    (re.compile(r"^(?P<x>[^?]+?)\s*(?:->|→|=>|-->)\s*\?.*$"), "where did you go after {x}?"),
    (re.compile(r"^\?\s*(?:->|→|=>|-->)\s*(?P<x>[^?]+?)\s*[?.]*$"), "where did you go before {x}?"),
    # "the kite was seen from which x, y?", "the notice was read at what position?"
    (re.compile(r"^(?P<x>.+?) (?:was|were) (?P<v>seen|spotted|noticed|observed|detected|read|heard) (?:from|at) "
                r"(?:which|what) (?:odom |map |robot )?(?:x,? ?y|x and y|position|coordinates|point|spot|location|place)"
                r"\s*\??$", re.IGNORECASE), "where did you {v} {x}?"),
    # "what was the length of your stop there", "the duration of the visit to the kiln room"
    (re.compile(r"^what (?:was|is) the (?:length|duration|total length|total duration) of (?:your|the|its|my) "
                r"(?P<x>(?:stop|visit|stay|halt|time)\b.*?)\s*\??$", re.IGNORECASE), "how long was your {x}?"),
]  # fmt: skip


def direct_question(question: str, wordnet: WordNet | None = None) -> str:
    """The question in its direct form where it was asked indirectly, as a statement to confirm, without its "did
    you", or with the moment it asks about said first; otherwise the question as asked."""
    question = _AS_OF_NOW.sub("", question.strip())
    text = question
    for topic, rest in (("", text), _topic_and_question(text)):
        for pattern, plain in _REWORDED:
            if reworded := pattern.match(rest):
                parts = {k: _PLAIN_WORDS.get(v.lower(), _lowered(v)) for k, v in reworded.groupdict().items()}
                return topic + plain.format(**parts)
    recalled = _RECALLED.match(text)
    if recalled:
        return f"did you {_base(recalled['verb'], wordnet)}{text[recalled.end() :]}"
    if text.endswith("?") and _ELLIPTICAL.match(text):
        return f"did you {text[0].lower()}{text[1:]}"
    counted = _COUNT_OF.match(text)
    if counted and _plural(counted["counted"]):
        embedded = f"how many {counted['counted']}"
        # "... you passed" is said as a question ("did you pass"); a phrase without it stays as it is
        by_you = re.search(r"\b(?:you|the robot|it|we)\b", counted["counted"], re.IGNORECASE)
        if not by_you:
            return _asked(embedded)
        return _direct(embedded, wordnet) or question  # not in the order of a statement: as it was asked
    moment = _MOMENT_FIRST.match(text.rstrip(" ?.!"))
    if moment:
        return _asked(f"{moment['asked']} {moment['moment'][0].lower()}{moment['moment'][1:]}")
    lead = _LEAD_IN.match(text)
    tag = _TAG.match(text) if lead is None and text.endswith("?") else None
    if tag is not None:
        statement = tag["statement"]
        first = statement.split(" ", 1)[0]
        if re.fullmatch(_PRONOUNS, first.lower()) or first.lower() in _DETERMINERS:
            statement = statement[0].lower() + statement[1:]  # "Somebody was ..." as "was somebody ..."
        return _direct(f"whether {statement}", wordnet) or question
    if lead is None:
        return question
    embedded = text[lead.end() :]
    # the question word is its subject ("what was said"), or no verb follows it: in the order of asking
    return _direct(embedded, wordnet) or _asked(embedded)


def _direct(embedded: str, wordnet: WordNet | None) -> str | None:
    """An embedded question ("whether the van was late") in the direct form ("was the van late?"); None where it
    has no subject and verb in the order of a statement."""
    match = _EMBEDDED.match(embedded)
    if match is None:
        return None
    wh, subject, verb, rest = match["wh"], match["subject"], match["verb"], match["rest"]
    adverb = match["adverb"] or ""
    asked = "" if wh.lower() in ("whether", "if") else f"{wh} "
    if verb.lower() in _AUXILIARIES:
        return _asked(f"{asked}{verb} {subject} {adverb}{rest.lstrip()}")
    base = _base(verb, wordnet)
    if base == verb.lower() and not (wordnet is not None and wordnet.is_verb(base)):
        return None
    does = "does" if _present(verb, base) else "did"
    return _asked(f"{asked}{does} {subject} {adverb}{base}{rest}")


def _plural(phrase: str) -> bool:
    """Whether a noun phrase names things in the plural in its first words ("spoken messages", "the vans"): a
    count of them; not "the number of the tram"."""
    words = re.findall(r"[a-z']+", phrase.lower())[:3]
    return any(w in _PLURALS or (w.endswith("s") and not w.endswith(("ss", "us", "is", "'s"))) for w in words)


# A topic said before the question ("The kiln room: what ...", "The van - when ...").
_TOPIC = re.compile(r"^(?P<topic>[^:?]{2,60}?(?::| -| –| —)\s+)(?P<rest>\S.*)$")


def _topic_and_question(text: str) -> tuple[str, str]:
    topic = _TOPIC.match(text)
    return (topic["topic"], topic["rest"]) if topic else ("", text)


def _lowered(phrase: str) -> str:
    """A phrase put inside a question: its first word in lower case where it is a determiner or an ordinary word
    that opened the question ("The kiln room" as "the kiln room", "Last" as "last"), not a name."""
    first = phrase.split(" ", 1)[0]
    ordinary = first.lower() in _DETERMINERS | _ORDINALS | _OPENERS
    return phrase[0].lower() + phrase[1:] if ordinary else phrase


# Words of a reworded question said as the plain one says them: "seen from which x, y" as "did you see", "the
# latest sighting" as "last see", "followed by" as "after".
_PLAIN_WORDS = {"seen": "see", "spotted": "spot", "noticed": "notice", "observed": "observe", "detected": "detect",
                "heard": "hear", "earliest": "first", "latest": "last", "most recent": "last", "final": "last",
                "followed": "after", "succeeded": "after", "preceded": "before"}  # fmt: skip
_OPENERS = frozenset(("just", "right", "immediately", "before", "after", "once", "when", "while"))
_ORDINALS = frozenset(("first", "last", "latest", "earliest", "most", "final"))


def _asked(clause: str) -> str:
    return clause.rstrip(" .!?") + "?"


def _present(verb: str, base: str) -> bool:
    """Whether a verb is its present tense ("starts", "goes", "carries"), not a past form."""
    lower, base = verb.lower(), base.lower()
    return lower != base and (lower in (base + "s", base + "es") or (lower.endswith("ies") and base.endswith("y")))


def _base(verb: str, wordnet: WordNet | None) -> str:
    lower = verb.lower()
    if wordnet is not None:
        return wordnet.verb_base(lower)
    return lower[:-2] if lower.endswith("ed") and len(lower) > 4 else lower  # the regular past only
