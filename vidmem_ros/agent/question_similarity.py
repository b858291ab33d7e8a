"""Reading a question without a language model and without sentence patterns: by likeness to example questions.

The words that say what is asked (question words, verbs of seeing, reading and hearing, words of time, place
and number) are a small closed set; every other run of words is what the question is about.  Those runs are
masked ("when did the red kite first show up" -> "when did something first show up"), the masked question
is embedded with the text embedder, and the nearest example question gives the intent and modality.  The runs
give the subject, and for an order, before or after question the second thing.  A question like no example
is left to the planner's search.
"""

from __future__ import annotations

import re
import threading

import numpy as np

from vidmem_ros.agent.asked import Asked, asked_kind, asks_a_time_said, cites_a_source
from vidmem_ros.agent.grounding import Sense, lists_on_a_sign, source_named
from vidmem_ros.agent.question import (
    CALENDAR,
    Intent,
    Modality,
    ParsedQuestion,
    asking_clause,
    asks_what_was_planned,
    clean_target,
    counted_thing,
    modality_named,
    names_any_message,
    names_what_it_needs,
    refined,
    window_of,
    with_either,
    with_ordinal,
)
from vidmem_ros.perception.embedding import TextEmbedder

SOMETHING = "something"
# Below this cosine to its nearest example a question is not read at all (the planner searches its words).
MIN_SIMILARITY = 0.45
# From this cosine on, the nearest example is trusted over a question's form, whose reading knows fewer shapes.
SURE_SIMILARITY = 0.6

_O, _T, _S, _P = Modality.OBJECT, Modality.TEXT, Modality.SPEECH, Modality.PLACE
# Example questions, the subject masked.  Intent.SEARCH marks a value asked about (a name, price, time heard):
# those are read out of what memory holds by the planner's search, not planned here.
EXAMPLES: tuple[tuple[Intent, Modality, str], ...] = (
    (Intent.DID, _O, "did you see something"),
    (Intent.DID, _O, "have you come across something"),
    (Intent.DID, _O, "was there something anywhere"),
    (Intent.DID, _O, "did something show up at any point"),
    (Intent.DID, _O, "is it true that you spotted something"),
    (Intent.DID, _T, "did you read something on a sign"),
    (Intent.DID, _T, "was something written anywhere"),
    (Intent.DID, _S, "did anyone mention something"),
    (Intent.DID, _S, "did you hear anything about something"),
    (Intent.DID, _S, "has anybody brought up something"),
    (Intent.FIRST, _O, "when did you first see something"),
    (Intent.FIRST, _O, "at what moment did something first come into view"),
    (Intent.FIRST, _O, "what was the earliest time you noticed something"),
    (Intent.FIRST, _T, "when did you first read something"),
    (Intent.FIRST, _S, "when was something first mentioned"),
    (Intent.LAST, _O, "when did you last see something"),
    (Intent.LAST, _O, "what was the most recent time something was in view"),
    (Intent.LAST, _O, "when did something last show up"),
    (Intent.LAST, _T, "when did you last read something"),
    (Intent.LAST, _S, "when did someone talk about something"),
    (Intent.LAST, _S, "at what time was something announced"),
    (Intent.LAST, _S, "at what time did someone report something"),
    (Intent.WHERE, _O, "where were you when you saw something"),
    (Intent.WHERE, _O, "where did you spot something"),
    (Intent.WHERE, _O, "what was your position when something was in view"),
    (Intent.WHERE, _T, "where were you when you read something"),
    (Intent.WHERE, _S, "where were you when you heard something"),
    (Intent.COUNT, _O, "how many times did you see something"),
    (Intent.COUNT, _O, "how often was something in view"),
    (Intent.COUNT, _O, "on how many occasions did something appear"),
    (Intent.COUNT, _S, "how many times did someone mention something"),
    (Intent.COUNT, _S, "how many messages were broadcast"),
    (Intent.COUNT, _S, "how many things were announced"),
    (Intent.COUNT, _P, "how many times were you in something"),
    (Intent.COUNT, _P, "how many visits did you make to something"),
    (Intent.COUNT, _P, "how often did you go to something"),
    (Intent.DURATION, _O, "how long did you see something"),
    (Intent.DURATION, _O, "for how much time was something in view"),
    (Intent.DURATION, _O, "how long did you spend watching something"),
    (Intent.DURATION, _P, "how long were you in something"),
    (Intent.DURATION, _P, "how much time did you spend at something"),
    (Intent.DURATION, _P, "for how long did you stay in something"),
    (Intent.BEFORE, _O, "what did you see just before something"),
    (Intent.BEFORE, _O, "what came into view right before something"),
    (Intent.AFTER, _O, "what did you see right after something"),
    (Intent.AFTER, _O, "what showed up next after something"),
    (Intent.BEFORE, _P, "which room were you in before something"),
    (Intent.BEFORE, _P, "where had you been just before something"),
    (Intent.AFTER, _P, "which room did you go to after something"),
    (Intent.AFTER, _P, "where did you head next after something"),
    (Intent.ORDER, _O, "which did you see first something or something"),
    (Intent.ORDER, _O, "which came earlier something or something"),
    (Intent.ORDER, _O, "did you see something before or after something"),
    (Intent.ORDER, _S, "which did you hear first something or something"),
    (Intent.WHAT, _O, "what did you see"),
    (Intent.WHAT, _O, "what is in front of you now"),
    (Intent.WHAT, _O, "what do you see at the moment"),
    (Intent.WHAT, _O, "list the things you noticed"),
    (Intent.READ, _T, "what did you read"),
    (Intent.READ, _T, "what did the signs say"),
    (Intent.SAID, _S, "what did people say"),
    (Intent.SAID, _S, "what did someone say about something"),
    (Intent.SAID, _S, "what did you hear"),
    (Intent.ACTIVE, _O, "how long have you been running"),
    (Intent.ACTIVE, _O, "for how much time have you been on duty"),
    (Intent.ACTIVE, _O, "how long have you been on the go so far"),
    (Intent.SEARCH, _T, "what did something say"),
    (Intent.SEARCH, _T, "what number was written on something"),
    (Intent.SEARCH, _T, "what was the price of something"),
    (Intent.SEARCH, _S, "at what hour is something planned"),
    (Intent.SEARCH, _S, "on which date is something due"),
    (Intent.SEARCH, _O, "what kind of something was it"),
    (Intent.SEARCH, _O, "which something was something"),
    (Intent.SEARCH, _O, "what colour was something"),
    (Intent.SEARCH, _O, "who was something"),
)


def _words(text: str) -> list[str]:
    return text.split()


# The closed set of words that say what is asked rather than about what: everything else is a subject.
_FRAME_WORDS = frozenset(
    _words(
        """
        a an the any some anything anyone anybody someone somebody something everything nothing one ones it its they
        them their there here this that these those you your yourself i me my we us our he she him her his
        what's where's when's who's how's that's it's there's
        what which who whom whose when where why how whether if is are was were be been being am do does did
        done have has had having can could will would should shall may might must not no yes ever never already yet
        still again so far up to now until till since at in on into onto to from of for by with about near inside
        outside around over under through across along during while after before earlier later first last next
        previous earliest latest recent recently most more less least just right directly immediately straight once
        twice time times moment moments occasion occasions often frequently many much long how altogether see saw
        seen seeing sees spot spotted spotting notice noticed noticing observe observed watch watched watching look
        looked looking view sight visible show showed shown showing appear appeared appearing come came coming pass
        passed passing encounter encountered meet met catch caught glimpse glimpsed find found read reading written
        write wrote say said saying says tell told telling mention mentioned mentioning talk talked talking speak
        spoke spoken announce announced hear heard hearing report reported call called go went gone going get got
        visit visited visiting visits make made pay paid stay stayed staying spend spent be head headed move moved
        walk walked drive drove enter entered reach reached return returned remain remained position location
        coordinates place places room rooms spot area where sign signs label labels notice notices text words word
        message messages announcement announcements kind type sort or and but than either both please give state
        name list report tell show anywhere somewhere everywhere nowhere way today yesterday tonight so roughly
        approximately exactly about really actually true correct possible probably maybe bring brought raise raised
        discuss discussed warn warned ask asked complain complained note noted turn turned turning case point drop
        dropped stop stopped pop popped check checked beside besides between among against opposite below above
        beneath underneath toward towards past via within without upon length amount period stretch duration happen
        happened happening occur occurred take took place
        """
    )
)
_WORD = re.compile(r"[\w'’-]+|[,;:]")
# Words that start a subject when a name follows them ("room 12"); other nouns start one anyway.
_NAMING = frozenset(("room", "place", "area", "spot"))
# Things that bear words: words that ask ("what did the sign say") alone, a subject's head after a subject word.
_BEARERS = frozenset(("sign", "signs", "label", "labels", "notice", "notices"))
# Who may have said something: not what it was about.
_SPEAKERS = frozenset(("people", "person", "a person", "the people", "anyone", "someone", "staff"))
# A verb of saying: the subjects before it in a question of what was said are who said it ("what did the voice in
# the hall say about ..."), not what it was about.
_SAYING = re.compile(r"\b(?:say|said|says|tell|told|ask|asked|mention|mentioned|announce|announced|report|reported)\b")
# Words that may sit inside a subject phrase, between two of its words.
_BRIDGES = frozenset(
    _words(
        """
        a an the some of on in at with by near from under over behind inside outside into onto to one
        room place area spot
        """
    )
)


class SimilarityParser:
    """``QuestionParser`` by likeness to example questions; needs a text embedder."""

    name = "similarity"

    def __init__(self, embedder: TextEmbedder, min_similarity: float = MIN_SIMILARITY) -> None:
        self.embedder = embedder
        self.min_similarity = min_similarity
        self._examples: np.ndarray | None = None
        self._lock = threading.Lock()

    def parse(self, question: str) -> ParsedQuestion | None:
        clause = asking_clause(question)
        masked, subjects = mask_subjects(clause)
        nearest, similarity = self._nearest(masked)
        intent, modality, _ = EXAMPLES[nearest]
        if similarity < self.min_similarity or intent is Intent.SEARCH:
            return None
        if intent in (Intent.FIRST, Intent.LAST) and asks_a_time_said(question):
            return None  # "the last ferry is at what time": a time said or read, found by the search
        named = source_named(question)
        if intent is Intent.DID and cites_a_source(question) and named:
            return None  # "according to the notice, does the club meet on Fridays": what the notice says, searched
        if intent is Intent.COUNT and cites_a_source(question):
            return None  # "according to the caller, how many times did the pump stall": a number said, searched
        if _other_source(modality, named):
            return None  # "the number on the tag warning about X": read, though warning is a way of saying
        if modality is Modality.OBJECT and named == [Sense.HEARD]:
            modality = Modality.SPEECH  # "when did the request for blankets come in": when it was said
        if intent in (Intent.BEFORE, Intent.AFTER):
            relation = _NEIGHBOUR.search(clause)
            if relation is None:
                return None  # nothing said of before or after: the embedding matched something else
            if asks_what_was_planned(clause[: relation.start()]):
                return None  # "what should happen after lunch": what was said to be done, read out by the search
        if _WHICH_THING.match(masked) and intent not in (Intent.BEFORE, Intent.AFTER, Intent.ORDER):
            return None  # "which number is on the sign", "what animal was it": a name, read out by the search
        asked = asked_kind(question)
        if asked is Asked.NAME and intent not in _NAMES and similarity < SURE_SIMILARITY:
            return None  # likely a name asked for ("which number is on the sign"): read out of memory by the search
        intent = _agreeing(intent, asked, clause, modality)
        if intent is Intent.ORDER and not _ORDER_WORDS.search(_TIME_BOUND.sub("", clause)):
            return None  # "which rows were called to board", "which tap must be shut by nine": no order asked
        if intent is Intent.ORDER:
            target, other = (clean_target(s) for s in _ordered(subjects))
        elif modality is Modality.SPEECH:  # what was said is searched by all its words ("the boiler is leaking again")
            said = _said_about(masked, subjects)
            target, other = clean_target(" ".join(said)), ""
        else:
            target, other = clean_target(_main(subjects)), ""
        if intent is Intent.COUNT and (thing := counted_thing(clause)) and thing not in target.split():
            return None  # "how many sacks are stacked in the shed": sacks, not visits to the shed nor sightings of it
        if (
            intent is Intent.COUNT
            and modality is Modality.PLACE
            and counted_thing(clause)
            and lists_on_a_sign(question)
        ):
            return None  # "count the ferries listed on the board": what a sign lists, not visits
        if intent in (Intent.BEFORE, Intent.AFTER):
            target, other = "", target
            if modality_named(clause[: _NEIGHBOUR.search(clause).start()]) is Modality.TEXT:  # type: ignore[union-attr]
                modality = Modality.TEXT  # "what was the next thing you read after seeing X": what was read
        if intent in (Intent.WHAT, Intent.READ, Intent.SAID, Intent.ACTIVE):
            target, other = (target if intent is Intent.SAID and target not in _SPEAKERS else ""), ""
        if intent not in (Intent.BEFORE, Intent.AFTER, Intent.ORDER):
            modality, target = refined(intent, modality, target)
        if not names_what_it_needs(intent, modality, target, other):
            return None
        now = intent is Intent.WHAT and bool(re.search(r"\bnow\b", clause))
        return with_either(
            with_ordinal(ParsedQuestion(question, intent, target, modality, other, window_of(question), now))
        )

    def _nearest(self, masked: str) -> tuple[int, float]:
        with self._lock:
            if self._examples is None:
                self._examples = np.asarray(self.embedder.embed_texts([e[2] for e in EXAMPLES]), dtype=np.float32)
        vector = np.asarray(self.embedder.embed_texts([masked]), dtype=np.float32)[0]
        scores = self._examples @ vector
        best = int(np.argmax(scores))
        return best, float(scores[best])


def _other_source(modality: Modality, named: list[Sense]) -> bool:
    """Whether an example's modality is one the question's named source rules out: what was said where the
    question names a thing read, or the reverse."""
    return (modality is Modality.SPEECH and named == [Sense.READ]) or (
        modality is Modality.TEXT and named == [Sense.HEARD]
    )


# What the form of the question says is asked, which an embedding blurs: the intents each answer may be.
_FITS: dict[Asked, tuple[Intent, ...]] = {
    Asked.YES_NO: (Intent.DID, Intent.ORDER),
    Asked.TIME: (Intent.FIRST, Intent.LAST),
    Asked.POSITION: (Intent.WHERE,),
    Asked.COUNT: (Intent.COUNT,),
    Asked.DURATION: (Intent.DURATION, Intent.ACTIVE),
}
_WHICH_THING = re.compile(
    rf"^(?:(?:in|on|at|from|to|for|with|by) )?(?:which|what) (?:(?:sorts?|kinds?|types?) of )?{SOMETHING}\b"
)
# The intents whose answer is a name (what was seen, read or heard; which came first or next).
_NAMES = (Intent.WHAT, Intent.READ, Intent.SAID, Intent.BEFORE, Intent.AFTER, Intent.ORDER)
# A moment of the clock or the day after a relation word ("before eight", "after 10 pm", "by noon"): a time bound,
# not a second thing met.
_CLOCK_TIME = (
    r"(?:\d{1,2}(?:[:.]\d{2})?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midday|midnight"
    r"|dawn|dusk|sunrise|sunset|nightfall|daybreak)\b"
)
_TIME_BOUND = re.compile(rf"\b(?:before|after|by|until|till|prior to|earlier than|later than) {_CLOCK_TIME}")
_NEIGHBOUR = re.compile(
    rf"\b(?:before|after|prior to|preceding|following|next|earlier than|later than)\b(?! (?:the )?{CALENDAR}\b)"
    rf"(?! {_CLOCK_TIME})"
)
_OPPOSITES = (
    (Intent.BEFORE, Intent.AFTER, re.compile(r"\b(?:before|prior to|preceding|earlier than)\b"),
     re.compile(r"\b(?:after|following|next|later than)\b")),
    (Intent.FIRST, Intent.LAST, re.compile(r"\b(?:first|earliest)\b"),
     re.compile(r"\b(?:last|latest|most recent|most recently)\b")),
)  # fmt: skip


# What an order question says: which came first, earlier, sooner; one before or after the other.
_ORDER_WORDS = re.compile(
    r"\b(?:first|earlier|earliest|sooner|later|last|before|after|order|sequence|preceded|followed|then)\b"
)


def _agreeing(intent: Intent, asked: Asked, clause: str, modality: Modality | None = None) -> Intent:
    """The nearest example's intent, made to agree with the question's form (a yes/no question asks whether, a
    "when" question for a time) and with the one of two opposite words it uses ("before" or "after")."""
    fits = _FITS.get(asked)
    if asked is Asked.POSITION and modality is Modality.PLACE:
        fits = (Intent.WHERE, Intent.BEFORE, Intent.AFTER)  # "where had you been before the X": a place, as asked
    if fits and intent not in fits:
        intent = Intent.LAST if fits[0] is Intent.FIRST else fits[0]
    for one, other, says_one, says_other in _OPPOSITES:
        if intent in (one, other):
            first, second = bool(says_one.search(clause)), bool(says_other.search(clause))
            if first != second:
                intent = one if first else other
    return intent


def _said_about(masked: str, subjects: list[str]) -> list[str]:
    """The subjects after the verb of saying in a masked clause: what was said, without who said it, nor the kind
    of thing said where its topic is named too ("the visitor's question", of "... the visitor's question about
    the boiler")."""
    verb = _SAYING.search(masked)
    # ... but for a verb in the passive, whose subject is the topic ("did the leak get mentioned")
    if verb is not None and not re.search(
        r"\b(?:get|got|gets|was|were|is|are|be|been|being)\s+$", masked[: verb.start()]
    ):
        subjects = subjects[masked[: verb.start()].count(SOMETHING) :]
    topics = [s for s in subjects if not _UTTERANCE.fullmatch(s)]
    return topics or subjects


# The kind of thing said, by a speaker's name or not ("the driver's complaint", "a question"): no topic of its own.
_UTTERANCE = re.compile(
    r"(?:(?:the|a|an|that|this|any) )?(?:[\w-]+'s )?(?:message|announcement|reminder|warning|question|complaint"
    r"|request|call|instruction|remark|news|report|order|query|enquiry|inquiry|comment)s?"
)


def _main(subjects: list[str]) -> str:
    """The subject of a question about one thing: its longest phrase, the last of equals ("is it true you saw a
    cat on the sofa" -> "cat on the sofa")."""
    return max(reversed(subjects), key=lambda s: len(s.split()), default="")


def _ordered(subjects: list[str]) -> list[str]:
    return [*subjects, "", ""][:2]


def mask_subjects(clause: str) -> tuple[str, list[str]]:
    """The clause with each subject phrase replaced by "something", and those phrases in order.  A phrase runs
    from a subject word to the last one before a word that asks; determiners and prepositions between subject
    words stay in it ("a cat on the sofa", "three children flying a kite")."""
    words = [w for w in _WORD.findall(clause.lower()) if w not in ",;:"] + [""]
    masked: list[str] = []
    subjects: list[str] = []
    i = 0
    while i < len(words) - 1:
        if not (_is_subject(words[i]) or (words[i] in _NAMING and _is_subject(words[i + 1]))):
            masked.append(words[i])
            i += 1
            continue
        end = i
        j = i + 1
        while j < len(words) - 1 and (_is_subject(words[j]) or words[j] in _BRIDGES or words[j] in _BEARERS):
            if _is_subject(words[j]) or (words[j] in _BEARERS and j == end + 1):
                end = (
                    j  # "the striped poster": a word that asks ("sign") is the subject's own once a subject word leads
                )
            j += 1
        if names_any_message(" ".join(words[i : end + 2])):
            end += 1  # "voice messages", "radio calls": the kind of message, not a thing called "voice"
        subjects.append(" ".join(words[i : end + 1]))
        masked.append(SOMETHING)
        i = end + 1
    return " ".join(masked), subjects


def _is_subject(word: str) -> bool:
    return bool(word) and word not in _FRAME_WORDS
