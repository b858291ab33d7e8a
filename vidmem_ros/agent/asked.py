"""What kind of value a question asks for, and answers that carry it typed or say they have none.

A time, a position, a count, a duration, yes or no, or a name (anything said
in words).  Read from the interrogative clause alone (its question word and
auxiliary verb), whatever opens the question: context sentences before it
("A van pulled up. Which firm...") and adverbials in front of it ("Until
now, did anybody...") are passed over.  This is English grammar, not a list of
phrasings, so it holds for questions no parser understood; a reader of the
answer gets the value in its typed field, or a plain statement that there is
none, never a number from the evidence mistaken for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from vidmem_ros.agent.answer import Answer
from vidmem_ros.agent.idioms import WINDOW_SAID, negated, plain_asking, plain_sentence, sentences_of
from vidmem_ros.memory.records import Pose


class Asked(str, Enum):
    YES_NO = "yes_no"
    TIME = "time"  # a moment of memory
    POSITION = "position"  # where the robot was
    COUNT = "count"
    DURATION = "duration"
    NAME = "name"  # anything said in words: a thing, a place, a text read, a clock time heard


_AUXILIARY = r"(?:did|do|does|was|were|is|are|am|have|has|had|can|could|will|would|should|shall|may|might|must)(?:n't)?"
# Words that open an interrogative clause or an imperative request.
_OPENER = re.compile(
    rf"^(?:{_AUXILIARY}|what|which|who|whom|whose|when|where|why|how|tell|give|name|list|say|show|state|report"
    r"|provide|count|(?:at|in|on|from|by|to|for|during|after|before|until|since|with) (?:what|which|whose|how))\b"
)
_DURATION = re.compile(
    r"\bhow long\b|\bhow much time\b|\bfor how many (?:seconds|minutes|hours)\b"
    r"|\bhow many (?:seconds|minutes|hours)\b"
)
_COUNT = re.compile(r"\bhow many\b|\bhow often\b|\bnumber of times\b|\bhow frequently\b")
_POSITION = re.compile(
    r"^where\b|\bcoordinates?\b|\bposition\b|\blocation\b|\(\s*x\s*,\s*y\s*\)|\bx\s*,\s*y\b|\bx and y\b"
)
# "when ..." and "at what time did ..." ask for a moment of memory; "what time will ..." asks what was said.
# A moment asked for: "what time", "what moment", "what point in the shift".
WHAT_MOMENT = r"what (?:time|moment|point)(?: of day| (?:in|of|during) (?:the|your|this|my) \w+)?"
_TIME = re.compile(
    rf"^when\b|^(?:at )?{WHAT_MOMENT} (?:did|was|were|had)\b"
    r"|^what(?:'s| is| was) the (?:very )?(?:first|last|latest|earliest|most recent) (?:time|moment)\b"
)
# "When will / is / should ..." and "when was it due / supposed to ..." ask for a time that was said or written (what
# was planned), not for a moment of memory; "when is the first time ..." still asks for one.
_TIME_SAID = re.compile(
    r"^when (?:is|are|will|does|do|should|shall|must|would)\b(?! (?:the |your )?(?:first|last|next) time\b)"
    r"|\b(?:supposed to|scheduled|due|planned|expected to)\b"
)
# A time asked of what is, will be or should be ("last orders are at what time", "what time does it open"):
# said or read, not when something was met.
_TIME_STATED = re.compile(
    r"\b(?:is|are|will be)(?: \w+)? at what time\b|\bwhat time (?:is|are|will|does|do|should|shall|must)\b"
    # ... or that a thing gave ("what time did the clock on the tower show"), not one the robot met
    r"|\bwhat time (?:did|had|has) (?!you\b|i\b|we\b|the robot\b)(?:[\w'-]+ ){1,5}"
    r"(?:show|say|give|read|display|state|list|announce|post)(?: (?:for|as|on|in)\b.*)?$"
)
_YES_NO = re.compile(rf"^{_AUXILIARY}\b")
# "Where was it made, according to the label?": the answer is what a text or a person says, in words.
_CITED = re.compile(r"\baccording to\b")


# A request wrapped around a question ("can you tell me where ...", "do you know when ..."): the question inside.
_POLITE = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?(?:tell|show|let) me|(?:do|would) you (?:happen to )?know"
    r"|i(?:'d| would) like to know|i wonder)[,:]? (?=(?:what|which|who|when|where|how|whether|if)\b)"
)


def interrogative(question: str) -> str:
    """The clause that asks: the last sentence, from its first clause that opens with a question word, an
    auxiliary verb or a request; lower case, without its question mark."""
    sentences = sentences_of(question)
    asking = next((s for s in reversed(sentences) if s.rstrip().endswith("?")), sentences[-1] if sentences else "")
    text = _POLITE.sub("", plain_sentence(re.sub(r"\s+", " ", asking.lower()).strip().rstrip("?.! ")))
    clauses = [c.strip() for c in re.split(r"[,:;]", text)]
    opening = [i for i, clause in enumerate(clauses) if _OPENER.match(clause)]
    # "When you heard the alarm, had you ...": a "when" clause with its own subject sets the time of the question
    # that follows it; it asks nothing itself.
    asking_at = [i for i in opening if not _SUBORDINATE.match(clauses[i])] or opening
    if not asking_at:
        return plain_asking(text)
    # "In the last five minutes, how many ...": a window said first bounds the question that follows, as it would
    # at its end.
    fronted = [c for c in clauses[: asking_at[0]] if _WINDOW_SAID.fullmatch(c)]
    asked = " ".join([", ".join(clauses[asking_at[0] :]), *fronted])
    # An idiom read at the start of a sentence is read again where the asking clause did not start it.
    return plain_asking(plain_sentence(asked) if asking_at[0] else asked)


_WINDOW_SAID = re.compile(WINDOW_SAID)


def without_lead_in(question: str) -> str:
    """A question without a remark before a colon that the question after it does not refer back to ("Passing
    this on from the night porter: which gate ..."): its words describe nothing to find.  A short topic ("The kiln: how
    hot ...") or a lead the question points back to ("... a leak: which tap was it?") stays."""
    found = _LEAD_IN.match(question.strip())
    if found is None:
        return question
    lead, asked = found["lead"], found["asked"]
    # "... the shelf: what was the shelf's title?": a pronoun read as the lead's thing points back to it
    owners = {m[1] for m in re.finditer(r"\b([a-z]+)'s\b", asked.lower())}
    named = owners & set(re.findall(r"[a-z]+", lead.lower()))
    keep = len(lead.split()) <= LEAD_TOPIC_WORDS or _REFERS_BACK.search(asked.lower()) or named
    return question if keep or not _OPENER.match(asked.lower()) else asked


_LEAD_IN = re.compile(r"^(?P<lead>[^:?.!]{1,160}):\s+(?P<asked>\S.*)$")
# A lead of at most this many words may be the topic the question is about ("Pears: what price per kilo?").
LEAD_TOPIC_WORDS = 3
# Words that point back to something said before them.
_REFERS_BACK = re.compile(r"\b(?:it|its|they|them|their|she|her|he|him|his|there|then|one|those|these|that|this)\b")


# A clause that opens with a time word followed by its own subject, not by an auxiliary verb ("when you left").
_SUBORDINATE = re.compile(rf"^(?:when|where)\s+(?!{_AUXILIARY}\b)\w+")


def asked_kind(question: str) -> Asked:
    clause = interrogative(question)
    for kind, pattern in (
        (Asked.DURATION, _DURATION),
        (Asked.COUNT, _COUNT),
        (Asked.POSITION, _POSITION),
        (Asked.TIME, _TIME),
        (Asked.YES_NO, _YES_NO),
    ):
        if pattern.search(clause):
            said = kind is Asked.TIME and (_TIME_SAID.search(clause) or _TIME_STATED.search(clause))
            return Asked.NAME if said or (kind in (Asked.TIME, Asked.POSITION) and cites_a_source(clause)) else kind
    return Asked.NAME


def asks_a_time_said(question: str) -> bool:
    """Whether a question asks for a time that was said or read ("when does the kiosk open", "the ferry is at what
    time"), not for when something was met."""
    clause = interrogative(question)
    return bool(_TIME_SAID.search(clause) or _TIME_STATED.search(clause))


def asks_negated(question: str) -> bool:
    """Whether a yes/no question asks if something did not happen ("did nobody mention the power cut?"): it is read
    as the positive, and the answer's yes or no turned round."""
    sentences = sentences_of(question)
    last = sentences[-1].lower() if sentences else ""
    return asked_kind(question) is Asked.YES_NO and negated(last)


def turned_round(answer: Answer) -> Answer:
    """The answer to the positive question, as the answer to the negative one that was asked."""
    if not isinstance(answer.value, bool):
        return answer
    answer.value = not answer.value
    said = re.sub(r"^(?:yes|no)\b[,:;.]?\s*", "", answer.text, flags=re.IGNORECASE)
    answer.text = f"{'Yes' if answer.value else 'No'}: {said[:1].upper()}{said[1:]}"
    answer.trace["negated"] = True
    return answer


def cites_a_source(question: str) -> bool:
    """Whether a question says its answer is what a text or someone says ("according to the caption")."""
    return bool(_CITED.search(question.lower()))


PoseAt = Callable[[float], Pose | None]


def settle(answer: Answer, asked: Asked, pose_at: PoseAt) -> Answer:
    """Fill the typed part the question asks for where the answer's evidence gives it; otherwise make the
    answer say it has none (unless it already says the thing was never found)."""
    answer.trace["asked"] = asked.value
    if not answer.success:
        return answer
    if asked is Asked.POSITION and answer.pose is None and answer.stamp is not None:
        answer.pose = pose_at(answer.stamp)  # "where were you when ...": the robot's pose at that moment
    missing = {
        Asked.TIME: answer.stamp is None,
        Asked.POSITION: answer.pose is None,
        Asked.COUNT: not _is_count(answer.value),
        Asked.DURATION: not _is_number(answer.value),
    }.get(asked, False)
    if missing and not _says_none(answer):
        answer.text = f"I cannot give {_NAMES[asked]} for that. {answer.text}"
        answer.trace["no_value"] = asked.value
    return answer


_NAMES = {Asked.TIME: "a time", Asked.POSITION: "a position", Asked.COUNT: "a count", Asked.DURATION: "a duration"}


def _is_count(value: object) -> bool:
    """A whole number (the answer schema carries numbers as floats)."""
    return _is_number(value) and float(value).is_integer()  # type: ignore[arg-type]


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _says_none(answer: Answer) -> bool:
    """An answer that found nothing (its value is the empty one: no, zero, nothing) states that itself."""
    return answer.value is False or (_is_number(answer.value) and answer.value == 0) or answer.value == ""


# "what <field> is / does ...", "which <field> are ...", "to which <field> is ...": the noun phrase a question
# asks the value of, with the preposition that governs it where it comes along.
_FIELD_ASKED = re.compile(
    r"^(?:(?:to|in|on|at|for|from|by|of|with|into|onto|under|through|during)\s+)?"
    rf"(?:what|which)\s+(?:kinds? of |sorts? of |types? of )?(?!{_AUXILIARY}\b)(?P<f>[a-z][a-z' -]*?)\s+{_AUXILIARY}\b"
)
# "... closes in what month", "it is shut which day": the question phrase left in place, ending the clause.
_FIELD_IN_PLACE = re.compile(
    rf"(?<=\w )(?:what|which)\s+(?:kinds? of |sorts? of |types? of )?(?!{_AUXILIARY}\b)"
    r"(?P<f>[a-z][a-z'-]*(?: [a-z][a-z'-]*){0,2})$"
)
# "what is the <field> on / of ...": the same field, named after the verb.
_FIELD_NAMED = re.compile(
    r"^(?:what|which) (?:is|are|was|were|'s) (?:the|its|their|his|her) (?P<f>[a-z][a-z' -]*?)"
    r"(?= (?:on|of|in|at|for|from|by|written|printed|shown|given|listed|stated|that|which)\b|$)"
)


def asked_field(question: str) -> str:
    """The thing whose value a question asks to be read out, by its question phrase: "use-by date" of "what
    use-by date is printed on it", "animals" of "which insects does the notice warn about", "opening hour" of
    "what is the opening hour on the door"; "" where it asks with a bare "what" ("what does it say")."""
    clause = interrogative(question)
    found = _FIELD_ASKED.match(clause) or _FIELD_NAMED.match(clause) or _FIELD_IN_PLACE.search(clause)
    return found["f"].strip() if found else ""
