"""Grounding a description in all of memory: one retriever over every kind of record.

A question names what it is about by a description ("the notice on the fridge", "the leaflet on the counter",
"the warning about the shutter").  The thing may have been read (the lines of a sign, taken together), heard (a
sentence), detected or tagged (a label, widened through WordNet), or summarised (an event's caption).  Every kind
is scored on one scale by two signals fused:

- words: the share of the description's content words found in the record, by stem.  A word that no record of
  that kind holds at all ("plate", "yellow", "notice") describes what bore the words rather than the words
  themselves, so it counts for little;
- meaning: the cosine of the description and the record under the text embedder, mapped from what unrelated and
  paraphrased short texts score under such models onto [0, 1].

A source the question names (read, heard, seen) restricts the search; with none named every kind competes.  A
match is claimed only when it is good enough and stands out from the best other thing by a margin.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from enum import Enum
from typing import Any, Protocol, TypeVar

import numpy as np

from vidmem_ros.agent.asked import interrogative
from vidmem_ros.agent.idioms import sentences_of, without_aside
from vidmem_ros.agent.labels import singular
from vidmem_ros.agent.question import without_asking
from vidmem_ros.agent.runs import MESSAGE_GAP_S, group_runs
from vidmem_ros.agent.sounds import misheard_as
from vidmem_ros.agent.text_match import holds_numbers, identifiers, plural_stem, squash, stem
from vidmem_ros.memory.captions import seen_part
from vidmem_ros.memory.records import Pose, Transcript
from vidmem_ros.memory.view import MemoryView
from vidmem_ros.perception import wordnet as wn
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.text_layout import rows
from vidmem_ros.perception.types import TextLine
from vidmem_ros.spoken_numbers import NUMBER_WORDS, clock_spans

# Cosines of a description and a record under a small sentence embedder (MiniLM): unrelated short texts rarely
# pass the floor, a related sentence that shares no word with the description sits around 0.35-0.45, a paraphrase
# above the top.  Between them the meaning score rises linearly.
MEANING_FLOOR = 0.15
MEANING_FULL = 0.55
# A word no record of a kind holds cannot tell its records apart (it describes what bore the words): it weighs
# this much of a word some record holds.
UNKNOWN_WORD_WEIGHT = 0.25
# A word found only as a synonym ("cookies" for "biscuits") weighs this much of the word itself: a synonym shares
# one sense of a word, not all of them.
SYNONYM_WEIGHT = 0.85
# A grounding is claimed at this score, and only this far ahead of the best other thing.
CLAIM_MIN = 0.45
CLAIM_MARGIN = 0.08
# A scene tag is a sighting on more than one frame, or on one at the score a detection needs: a classifier's weak
# passing guess is not.
TAG_MIN_FRAMES = 2
TAG_MIN_SCORE = 0.1  # below it a tag is among a classifier's also-rans
# A tag on one frame below a detection's score weighs this much of what its words and meaning say.
WEAK_TAG_WEIGHT = 0.4
# A tag that shares no word with a description but means something like it ("tool kit" for "garage") is a
# classifier's guess read by a second model's sense of words: it weighs this much.
TAG_MEANING_WEIGHT = 0.8
# A tag matched only by one of its broader words weighs this much of one matched by its own name.
BROADER_WORD_WEIGHT = 0.6
# The most frames whose tags one question reads.
# Records of one thing less than this apart are one occasion.
OCCASION_GAP_S = 12.0
# An event's caption summarises many frames (on the cpu profile it is composed from their labels): as evidence of
# one thing it weighs this much of a record of that thing itself.
CAPTION_WEIGHT = 0.8
# The most distinct records of one kind weighed by meaning for a question (the rest by words only).
MEANING_CANDIDATES = 400
T = TypeVar("T")


class Sense(str, Enum):
    """How a thing was met."""

    READ = "read"
    HEARD = "heard"
    SEEN = "seen"


@dataclass(frozen=True)
class Grounded:
    """One thing in memory a description may refer to: every record of it in a run, its best score."""

    sense: Sense
    kind: str  # text | transcript | detection | tag | caption
    ref: str
    stamp: float  # first record
    end: float  # last record
    text: str  # what was read or heard, the label seen, or the caption
    score: float
    words: float
    meaning: float
    pose: Pose | None = None
    count: int = 1  # frames or lines
    data: dict[str, object] = field(default_factory=dict)
    confidence: float = 1.0  # the best a model said of its own records (a detector's or tagger's score)

    @property
    def identity(self) -> str:
        return f"{self.sense.value}:{squash(self.text)}"


@dataclass
class Grounding:
    """Everything a description was grounded in, best first."""

    description: str
    found: list[Grounded]

    def claimed(self, min_score: float = CLAIM_MIN, margin: float = CLAIM_MARGIN) -> Grounded | None:
        """The best match where it is good enough and ahead of the best *other* thing by ``margin``."""
        if not self.found or self.found[0].score < min_score:
            return None
        best = self.found[0]
        other = next((g for g in self.found[1:] if g.identity != best.identity and not _one_sign(best, g)), None)
        return best if other is None or best.score - other.score >= margin else None

    def of(self, identity: str) -> list[Grounded]:
        """Every occasion of one thing, oldest first."""
        return sorted((g for g in self.found if g.identity == identity), key=lambda g: g.stamp)


# Words that say nothing of what a thing is: question and function words, and the verbs of meeting it.
STOP_WORDS = frozenset(
    re.findall(
        r"[a-z']+",
        """a an the and or but of to in on at for with from by about into onto over under above below behind
        beside besides between near next across through along around inside outside up down off out is was were
        are be been being am did do does done doing have has had having will would shall should can could may
        might must you your yours i me my mine we us our it its this that these those there here what when where
        which who whom whose how why any some every each all no not yet ever so just only also than then too
        very please tell me say said see saw seen read heard hear notice noticed spot spotted one ones thing
        things something anything someone anyone somebody anybody robot time first last most recent earlier
        later before after while during still again already""",
    )
)


def terms(description: str) -> list[str]:
    """The content words of a description, in order, without repeats."""
    words = re.findall(r"[a-z0-9][a-z0-9'-]*", description.lower())
    words = [re.sub(r"'s$", "", w).strip("'-") for w in words]  # "the room's door" names the room
    return list(dict.fromkeys(w for w in words if w not in STOP_WORDS and len(w) > 1))


Synonyms = Mapping[str, Sequence[str]]


def word_score(wanted: Sequence[str], text: str, known: set[str], synonyms: Synonyms | None = None) -> float:
    """The share of ``wanted`` in ``text`` by word form or synonym, words outside ``known`` (those some record of
    the kind holds) weighing little."""
    hits = [word_hit(w, text, synonyms) for w in wanted]
    if not any(hits):
        return 0.0
    unknown = sum(not hit and w not in known for w, hit in zip(wanted, hits, strict=True))
    return sum(hits) / (len(wanted) - unknown + UNKNOWN_WORD_WEIGHT * unknown)


def word_hit(word: str, text: str, synonyms: Synonyms | None = None) -> float:
    """1 for a word found in a text in some form, ``SYNONYM_WEIGHT`` for one found only as a synonym, else 0."""
    if found_in(word, text):
        return 1.0
    if synonyms and any(found_in(other, text) for other in synonyms.get(word, ())):
        return SYNONYM_WEIGHT
    return 0.0


def known_words(wanted: Sequence[str], texts: Iterable[str], synonyms: Synonyms | None = None) -> set[str]:
    """The words of ``wanted`` that some text holds in some form."""
    joined = " ".join(dict.fromkeys(texts))
    return {w for w in wanted if word_hit(w, joined, synonyms)}


@functools.lru_cache(maxsize=65_536)  # a question matches its few words against every record, often again
def found_in(word: str, text: str) -> bool:
    """Whether a word is in a text in some form: a word of the text that begins with its stem and goes on at most
    three letters ("plates" and "plated" for "plate", not "platform"), or, for a long word, run together with
    others ("eastwing" holds "wing")."""
    tokens = _tokens(text)
    word = squash(word)
    if not word:
        return False
    if len(word) <= 3:  # short words ("c", "b12", "lab") must stand as words: they hide inside others
        return word in tokens
    forms = _forms(word)
    if any(t.startswith(f) and len(t) - len(f) <= 3 for t in tokens for f in forms):
        return True
    if any(len(t) >= 4 and word.startswith(t) and len(word) - len(t) <= 4 for t in tokens):
        return True  # a compound's first part: "bath" of "bathroom", "green" of "greenhouse"
    return len(word) >= 5 and word in "".join(tokens)


@functools.lru_cache(maxsize=4_096)
def _forms(word: str) -> frozenset[str]:
    return frozenset({stem(word), squash(singular(word)), *filter(None, [plural_stem(word)])})  # "partie": "parties"


@functools.lru_cache(maxsize=65_536)
def _tokens(text: str) -> tuple[str, ...]:
    """A text's words, with the numbers it spells out also in digits."""
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    return tuple(tokens + [_SPELLED[t] for t in tokens if t in _SPELLED])


# A number word's digits, for words that name one number only ("none" and "dozen" also say other things).
_SPELLED = {w: str(n) for w, n in NUMBER_WORDS.items() if w not in ("none", "dozen", "hundred")}


def _heads(tokens: Sequence[str], is_word: Callable[[str], bool] | None) -> list[str]:
    """The words of a text that name something by themselves: not one that begins a two-word name ("car" of "car
    park", "tiger" of "tiger lily")."""
    if is_word is None:
        return list(tokens)
    after = [*tokens[1:], ""][: len(tokens)]
    return [t for t, nxt in zip(tokens, after, strict=True) if not (nxt and is_word(f"{t} {nxt}"))]


class KindOf(Protocol):
    """Whether a word, in the sense the words written with it point to, names a kind of what a broader one names."""

    def __call__(self, word: str, broader: str, *, context: Iterable[str] = ()) -> bool: ...


def meaning_score(cosine: float) -> float:
    return float(min(1.0, max(0.0, (cosine - MEANING_FLOOR) / (MEANING_FULL - MEANING_FLOOR))))


def fused(words: float, meaning: float) -> float:
    """Either signal alone can ground; both together ground better than either."""
    return round(1.0 - (1.0 - words) * (1.0 - meaning), 4)


class MeaningCache:
    """Sentence vectors of records, kept across questions (records do not change once written)."""

    def __init__(self, embedder: TextEmbedder | None, limit: int = 50_000) -> None:
        self.embedder = embedder
        self.limit = limit
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()  # the query node answers questions concurrently

    def cosines(self, query: str, texts: Sequence[str]) -> list[float]:
        if self.embedder is None or not texts:
            return [0.0] * len(texts)
        with self._lock:
            missing = list(dict.fromkeys(t for t in (query, *texts) if t not in self._vectors))
            if missing:
                if len(self._vectors) + len(missing) > self.limit:
                    self._vectors.clear()
                for text, vector in zip(missing, self.embedder.embed_texts(missing), strict=True):
                    self._vectors[text] = vector
            vectors = np.stack([self._vectors[t] for t in texts])
            q = self._vectors[query]
        return [float(c) for c in vectors @ q]

    def fill(self, texts: Iterable[str], batch: int = 64) -> int:
        """Embeds the texts not held yet, in batches, up to the cache's limit: records read ahead of the questions
        that will compare them, so a question pays for its own words only.  Returns how many were embedded."""
        if self.embedder is None:
            return 0
        with self._lock:
            room = max(0, self.limit - len(self._vectors))
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))[:room]
        for at in range(0, len(missing), batch):
            chunk = missing[at : at + batch]
            vectors = self.embedder.embed_texts(chunk)  # outside the lock: a question waits for one batch at most
            with self._lock:
                self._vectors.update(zip(chunk, vectors, strict=True))
        return len(missing)


@dataclass(frozen=True)
class _Record:
    kind: str
    ref: str
    stamp: float
    end: float
    text: str
    pose: Pose | None
    score: float = 1.0  # a detector's or tagger's own confidence
    terms: tuple[str, ...] = ()  # the broader words a tag answers to, matched as its words
    frame: str = ""  # the stored frame a text or tag was found in ("moment/N"), which has its own time and pose
    names: tuple[str, ...] = ()  # a tag's other names for the same thing ("vacuum cleaner" of "vacuum")


class Grounder:
    """Grounds descriptions in one memory, as of one moment, over a window."""

    def __init__(
        self,
        store: MemoryView,
        as_of: float | None,
        window: tuple[float, float],
        meaning: MeaningCache,
        labels_for: Callable[[str], list[str]] | None = None,
        min_score: float = 0.5,
        is_word: Callable[[str], bool] | None = None,
        synonyms_of: Callable[[str], Sequence[str]] | None = None,
        kept: dict[tuple[str, float, float], Any] | None = None,
        kind_of: KindOf | None = None,
        set_apart: Callable[[str], str] | None = None,
        bears_words: Callable[[str], bool] | None = None,
        depicts: Callable[[str], bool] | None = None,
        names_of: Callable[[str], Sequence[str]] | None = None,
    ) -> None:
        """``kind_of(word, broader, context=...)``: whether a word, in the sense the words written with it point to,
        names a kind of what a broader word names ("sparrow", "bird").  ``set_apart``: a line read with the words
        text recognition ran together set apart ("NOPARKING" as "NO PARKING"), so that they are words to match.
        ``depicts(word)``: whether a noun names a picture or figure of something ("photo", "statue").
        ``names_of(label)``: a tag class's other names, which name it as its own label does."""
        self.store = store
        self.as_of = as_of
        self.lo, self.hi = window
        self.meaning = meaning
        self.labels_for = labels_for
        self.min_score = min_score
        self.is_word = is_word  # a dictionary's test for a word; without one, length decides
        self.synonyms_of = synonyms_of
        self.kind_of = kind_of
        self.set_apart = set_apart
        self.bears_words = bears_words or (lambda word: False)  # "the touchscreen": what was read on one names it
        self.depicts = depicts or (lambda word: False)
        self.names_of = names_of or (lambda label: ())
        self._synonyms: dict[str, Sequence[str]] = {}
        self._naming: list[str] = []
        self._bearer_parts: set[str] = set()  # words of a bearer's compound name ("sandwich" of "sandwich board")
        self._shown: list[str] = []  # the words of what a picture or a sign named shows ("fox" of "the fox poster")
        self._numbers: list[str] = []
        self._kept = {} if kept is None else kept  # records read, by kind and window: one question reads them once

    def _with_kinds(
        self, wanted: list[str], known: set[str], records: list[_Record]
    ) -> tuple[Synonyms, dict[str, dict[str, set[str]]]]:
        """The synonyms, with the records' words that name kinds of each wanted word no record holds; and, by record,
        those of them it holds meant in another sense ("the computer mouse" for "a rodent")."""
        kind_of = self.kind_of
        assert kind_of is not None
        # Each record's words, read in the sense the record's other words point to.
        texts = {r.text: _tokens(r.text) for r in records}
        heads = {
            (t, ctx) for ctx in texts.values() for t in _heads(ctx, self.is_word) if len(t) >= 3 and not t.isdigit()
        }
        extended = dict(self._synonyms)
        otherwise: dict[tuple[str, ...], dict[str, set[str]]] = {}  # record's words -> word asked -> kinds not meant
        for word in set(wanted) - known:
            meant = {(t, ctx): kind_of(t, word, context=ctx) for t, ctx in heads}
            kinds = sorted({t for (t, _), yes in meant.items() if yes})
            if kinds:
                extended[word] = (*extended.get(word, ()), *kinds)
            for (t, ctx), yes in meant.items():
                if not yes and t in kinds:
                    otherwise.setdefault(ctx, {}).setdefault(word, set()).add(t)
        return extended, {text: otherwise[ctx] for text, ctx in texts.items() if ctx in otherwise}

    def wordy(self, text: str, shortest: int = 4) -> bool:
        """Whether a record has words enough for its meaning to be read: two of three letters or more, or one
        dictionary word of ``shortest`` letters or more (a question's "spa" is a word; a reader's "CC" noise)."""
        words = [w for w in re.findall(r"[a-z]{3,}", text.lower())]
        if len(words) >= 2:
            return True
        return bool(words) and len(words[0]) >= shortest and (self.is_word is None or self.is_word(words[0]))

    def record_texts(self) -> list[str]:
        """The texts of the window's records whose meaning a description would be compared with, in the form
        compared (signs, sentences, captions and tag classes with words enough)."""
        records = (*self._records("text"), *self._records("transcript"), *self._records("caption"))
        texts = [r.text for r in records] + list(self._tag_classes())
        return [t.lower() for t in dict.fromkeys(texts) if self.wordy(t)]

    def ground(self, description: str, senses: Iterable[Sense] = tuple(Sense)) -> Grounding:
        # "rows twenty to thirty" meets "rows 20 to 30", and a record that spells them out (its tokens hold both)
        wanted = list(dict.fromkeys(_SPELLED.get(w, w) for w in terms(description)))
        if self.synonyms_of is not None:
            self._synonyms = {w: self.synonyms_of(w) for w in wanted}
        self._naming = naming_words(description)
        self._bearer_parts = self._parts_of_bearers(wanted)
        self._shown = shown_words(description, lambda word: bears_text(word) or self.depicts(word))
        self._numbers = identifiers(description)  # "room 3": no record without a 3 is it
        found: list[Grounded] = []
        for sense in dict.fromkeys(senses):
            if sense is Sense.READ:
                found += self._scored(Sense.READ, description, wanted, self._records("text"))
            elif sense is Sense.HEARD:
                found += self._scored(Sense.HEARD, description, wanted, self._records("transcript"))
            else:
                found += self._seen(description) + self._tags(description, wanted)
                captions = self._scored(Sense.SEEN, description, wanted, self._records("caption"))
                found += [replace(g, score=round(g.score * CAPTION_WEIGHT, 4)) for g in captions]
        found.sort(key=lambda g: (-g.score, g.stamp))
        return Grounding(description, found)

    def _parts_of_bearers(self, wanted: list[str]) -> set[str]:
        """The words that, with the bearer of words after them, make one name the dictionary knows ("sandwich"
        of "sandwich board", "price" of "price tag"): they say what bore the words, not what the words were."""
        if self.is_word is None:
            return set()
        return {
            a
            for a, b in itertools.pairwise(wanted)
            if self._bears(b) and (self.is_word(f"{a}{b}") or self.is_word(f"{a} {b}"))
        }

    # -- records of each kind ------------------------------------------------------------

    def _records(self, kind: str) -> list[_Record]:
        read = {"text": self._signs, "transcript": self._sentences, "caption": self._captions}[kind]
        return list(self._once(kind, read))

    def _tag_classes(self) -> dict[str, tuple[str, ...]]:
        return dict(
            self._once("tag classes", lambda: self.store.tag_classes(self.lo, self.hi, self.as_of, TAG_MIN_SCORE))
        )

    def _once(self, kind: str, read: Callable[[], Any]) -> Any:
        """What ``read`` gives for this window, read once per question."""
        key = (kind, self.lo, self.hi)
        if key not in self._kept:
            self._kept[key] = read()
        return self._kept[key]

    def _signs(self) -> list[_Record]:
        """What was read, a frame's lines taken together (a sign's words often span several lines)."""
        lines = self.store.texts_read(self.lo, self.hi, self.as_of, limit=50_000)
        set_apart = self.set_apart or (lambda text: text)
        by_frame: dict[int, list[TextLine]] = {}
        first: dict[int, tuple[float, Pose | None, int]] = {}
        for line in lines:
            by_frame.setdefault(line.moment_id, []).append(TextLine(line.text, line.score, line.box))
            first.setdefault(line.moment_id, (line.stamp, line.pose, line.id))
        return [
            _Record(
                "text",
                f"text/{first[mid][2]}",
                first[mid][0],
                first[mid][0],
                " / ".join(map(set_apart, rows(texts))),
                first[mid][1],
                frame=f"moment/{mid}",
            )
            for mid, texts in by_frame.items()
        ]

    def _sentences(self) -> list[_Record]:
        """What was heard, a message at a time: sentences with no pause between them taken together (a message's
        words often span the sentences a recogniser splits it into)."""
        found = self.store.transcripts(self.lo, self.hi, self.as_of)
        runs = [
            part
            for run in group_runs(found, lambda t: t.start, MESSAGE_GAP_S, end=lambda t: t.end)
            for part in _by_voice(run)
        ]
        return [
            _Record(
                "transcript", f"transcript/{run[0].id}", run[0].start, run[-1].end, " ".join(t.text for t in run), None
            )
            for run in runs
        ]

    def _captions(self) -> list[_Record]:
        events = self.store.events(self.lo, self.hi, self.as_of)
        # what an event's caption says was heard is the sentences' own record, never a sighting
        return [
            _Record("caption", f"event/{e.id}", e.start, e.end, seen, e.start_pose)
            for e in events
            if e.caption and e.status == "closed" and (seen := seen_part(e.caption))
        ]

    def _seen(self, description: str) -> list[Grounded]:
        """Detections of the labels the description names."""
        labels = self.labels_for(description) if self.labels_for is not None else []
        if not labels or self._numbers:  # a detector's label holds no number: it cannot be "room 3"
            return []
        # How much of the description a label stands for: "ball" of "the ball players" is half of it.
        wanted = terms(description)
        named = {w: set(self.labels_for(w)) for w in wanted} if self.labels_for is not None else {}
        naming = {n: set(self.labels_for(n)) for n in self._naming} if self.labels_for is not None else {}
        found: list[Grounded] = []
        sightings = [
            s for s in self.store.sightings(labels, self.as_of, self.min_score) if self.lo <= s.stamp <= self.hi
        ]
        for run in _runs(sightings, lambda s: s.stamp):
            best = max(run, key=lambda s: s.score)
            frames = len({s.moment_id for s in run})
            covered = sum(best.label in named.get(w, ()) or found_in(w, best.label) for w in wanted)
            names_it = any(best.label in naming.get(n, ()) or found_in(n, best.label) for n in self._naming)
            share = covered / len(wanted) if wanted else 1.0
            score = round(min(0.95, 0.6 + 0.35 * best.score) * (0.5 + 0.5 * share), 4)
            found.append(
                Grounded(
                    Sense.SEEN, "detection", f"moment/{best.moment_id}", run[0].stamp, run[-1].stamp,
                    best.label, score, 1.0, 0.0, best.pose, frames, {"label": best.label, "names_it": names_it},
                )
            )  # fmt: skip
        return found

    def _tags(self, description: str, wanted: list[str]) -> list[Grounded]:
        """Scene tags (a classifier's classes, with the broader words WordNet gives them), scored like any record;
        a tag on one frame below the score a detection needs is a passing guess and weighs little."""
        # The classes first, one record each: only the frames of those the description could match are read.
        classes = self._tag_classes()
        names = {label: tuple(self.names_of(label)) for label in classes}
        each = [_Record("tag", "", 0.0, 0.0, label, None, 1.0, terms, names=names[label])
                for label, terms in classes.items()]  # fmt: skip
        matched = [g.text for g in self._scored(Sense.SEEN, description, wanted, each) if g.score > 0]
        records = [
            _Record("tag", f"moment/{s.moment_id}", s.stamp, s.stamp, s.label, s.pose, s.score, classes[s.label],
                    f"moment/{s.moment_id}", names[s.label])
            for s in self.store.tag_frames(matched, self.lo, self.hi, self.as_of, TAG_MIN_SCORE)
        ]  # fmt: skip
        found = []
        for g in self._scored(Sense.SEEN, description, wanted, records):
            sure = g.count >= TAG_MIN_FRAMES or g.confidence >= self.min_score
            weight = (1.0 if sure else WEAK_TAG_WEIGHT) * (1.0 if g.words > 0 else TAG_MEANING_WEIGHT)
            found.append(replace(g, score=round(g.score * weight, 4)))
        return found

    # -- scoring -------------------------------------------------------------------------

    def _names_it(self, texts: Iterable[str], sense: Sense) -> bool:
        """Whether records name what the description is about, not only what it had or where it was.  A thing
        that bears words ("the departures screen") is named by what was read on it, whatever it is called."""
        naming = [n for n in self._naming if sense is not Sense.READ or not self._bears(n)]
        if self._naming and not naming:
            return True
        if sense is Sense.SEEN:  # a picture is seen as what it shows: a frame of "the fox poster" is one of a fox
            naming += self._shown
        return any(word_hit(n, text, self._synonyms) for n in naming for text in texts)

    def _bears(self, word: str) -> bool:
        return bears_text(word) or self.bears_words(word)

    def _scored(self, sense: Sense, description: str, wanted: list[str], records: list[_Record]) -> list[Grounded]:
        records = [r for r in records if holds_numbers(r.text, self._numbers)]
        if not records:
            return []
        if sense is Sense.READ:  # "the bakery's sandwich board": the words on it name the bakery, not a sandwich
            wanted = [w for w in wanted if w not in self._bearer_parts] or wanted
        # Words no record holds describe what bore the words read or heard ("the notice", "the voice"); a thing
        # seen is named by all of its words ("boiler house" is not "house").
        synonyms: Synonyms = self._synonyms
        unmeant: dict[str, dict[str, set[str]]] = {}  # by record, the kinds it holds meant otherwise
        kinds: dict[str, set[str]] = {}  # by wanted word, the words given for it as kinds of it
        known = (  # a picture is seen as what it shows: "poster" of "the fox poster" is not a word a frame holds
            known_words(wanted, (_words_of(r) for r in records), synonyms)
            if sense is not Sense.SEEN
            else set(wanted) - (set(self._naming) if self._shown else set())
        )
        if sense is not Sense.SEEN and self.kind_of is not None and set(wanted) - known:
            # A word no record holds may name what a record's word is a kind of ("bird" of "a pair of swans").
            synonyms, unmeant = self._with_kinds(wanted, known, records)
            kinds = {w: set(synonyms.get(w, ())) - set(self._synonyms.get(w, ())) for w in wanted}
            known = known_words(wanted, (_words_of(r) for r in records), synonyms)
        if sense is Sense.HEARD and set(wanted) - known:
            # ... or, heard, what the recogniser wrote for it ("sold pins" for "salt bins")
            synonyms = _with_sounds(wanted, known, records, synonyms)
            known = known_words(wanted, (_words_of(r) for r in records), synonyms)
        one_of_each = {r.text: r for r in records}  # a tag's label has the same broader words on every frame
        own = {t: _without(synonyms, unmeant[t]) for t in unmeant}  # a record's synonyms, less kinds meant otherwise
        words = {t: _record_words(wanted, r, known, own.get(t, synonyms)) for t, r in one_of_each.items()}
        # The records whose words meet the description only through a kind of one of its words ("BICYCLES" of "the
        # vehicle"): of the thing asked about, weaker evidence of a place or a source it names.
        without_kinds = _without(synonyms, kinds)
        by_kind = {t for t, w in words.items() if w and not _record_words(wanted, one_of_each[t], known, without_kinds)}
        distinct = list(dict.fromkeys(r.text for r in records))
        # Meaning for every distinct record where few; else for the best by words and the most recent.
        if len(distinct) > MEANING_CANDIDATES:
            by_words = sorted(distinct, key=lambda t: -words[t])[: MEANING_CANDIDATES // 2]
            distinct = list(dict.fromkeys([*by_words, *distinct[-MEANING_CANDIDATES // 2 :]]))
        # The meaning of an OCR fragment ("CC", "PANDUCALE"), or of a description without a word ("odom"), is noise.
        wordy = [t for t in distinct if self.wordy(t)] if self.wordy(description, shortest=3) else []
        cosines = dict(zip(wordy, self.meaning.cosines(description, [t.lower() for t in wordy]), strict=True))
        out: list[Grounded] = []
        head = _head_word(wanted, self.is_word) if sense is not Sense.SEEN else None
        # The frames of one sign read in one view are one thing, however the reader split or clipped its lines.
        named = same_signs(records) if sense is Sense.READ else {}
        by_text: dict[str, list[_Record]] = {}
        for record in records:
            text = named.get(record.text, record.text)
            by_text.setdefault(squash(text) or text, []).append(record)
        for group in by_text.values():
            for run in _runs(group, lambda r: r.stamp, end=lambda r: r.end):
                text = named.get(run[0].text, run[len(run) // 2].text)
                fuller = max(run, key=lambda r: words[r.text])  # a reading that meets more of the description
                if words[fuller.text] > words.get(text, 0.0):  # ("GROUP 7B" read on fewer frames than the title)
                    text = fuller.text
                w = max(words[r.text] for r in run)
                m = meaning_score(max(cosines.get(r.text, 0.0) for r in run))
                mid = run[len(run) // 2]
                shown = [r for r in run if r.text == text] or [mid]  # the frames whose lines are the text given
                frames = len({r.ref for r in run})
                data: dict[str, object] = {
                    "first_ref": run[0].frame or run[0].ref,
                    "last_ref": run[-1].frame or run[-1].ref,
                    **({"frame_ref": shown[len(shown) // 2].frame} if mid.frame else {}),
                    "names_it": self._names_it({_words_of(r) for r in run}, sense),
                    # ... by every reading that meets it at all (another reading of the sign may miss the word)
                    **({"by_kind": True} if all(r.text in by_kind for r in run if words[r.text]) else {}),
                    **(
                        {"head_unmet": head}
                        if head and not word_hit(head, _words_of(mid), own.get(mid.text, synonyms))
                        else {}
                    ),
                }
                out.append(
                    Grounded(
                        sense, mid.kind, mid.ref, run[0].stamp, run[-1].end, text, fused(w, m), w, m, mid.pose,
                        frames, data, max(r.score for r in run),
                    )
                )  # fmt: skip
        return out


def _by_voice(run: list[Transcript]) -> list[list[Transcript]]:
    """A run of sentences split where the voice changes (a reply is another message); sentences whose voice could
    not be told go with the one before."""
    parts: list[list[Transcript]] = []
    voice: int | str | None = None  # the voice of the part being gathered, once one is told
    for t in run:
        own = t.speaker_id or t.speaker or None
        if parts and (own is None or voice is None or own == voice):
            parts[-1].append(t)
            voice = voice or own
        else:
            parts.append([t])
            voice = own
    return parts


def _head_word(wanted: Sequence[str], is_noun: Callable[[str], bool] | None) -> str | None:
    """The word a description of several words turns on: its last noun that names no source ("a metal theft heard on
    the radio": "theft"; not "according" of "according to the notice"); None for a description of one word, which
    its meaning may ground."""
    words = [w for w in wanted if not (_SOURCE.fullmatch(w) or _BEARERS.search(w) or _CARRIED.fullmatch(w))]
    nouns = [w for w in words if is_noun is None or is_noun(w)]
    return nouns[-1] if len(words) > 1 and nouns else None


# What carries words heard or read, by its kind ("the message", "an announcement", "anything"), and numbers.
_CARRIED = re.compile(r"messages?|announcements?|calls?|remarks?|reminders?|news|words?|things?|anything|something|\d+")


# A sign's line shorter than this (squashed) is too little of it to tell one sign from another ("CC", "4").
SIGN_LINE_MIN = 3
# A view's readings that may hold others, the most frequent first (a view read for hours has many).
SIGN_READINGS_MAX = 60


def same_signs(records: Sequence[_Record]) -> dict[str, str]:
    """The name each frame's reading goes by: in one view (records no more than ``OCCASION_GAP_S`` apart), a
    reading whose every line is held in another's ("LEVEL / STAIR B" in "LEVEL 2 / STAIR B", "MARTAOKAFOR" in
    "MARTA OKAFOR / Facilities Manager"), or is one of its lines with a letter misread ("HIGH O6:12"), is the same
    sign, named by its most frequent reading."""
    names: dict[str, str] = {}
    for run in _runs(records, lambda r: r.stamp):
        counts: dict[str, int] = {}
        for record in run:
            counts[record.text] = counts.get(record.text, 0) + 1
        texts = sorted(counts, key=lambda t: (-counts[t], -len(t)))
        outers = set(texts[:SIGN_READINGS_MAX])
        parent = {t: t for t in texts}

        squashed = {t: squash(t) for t in texts}
        lines = {t: [squash(line) for line in t.split(" / ")] for t in texts}
        for inner, outer in itertools.permutations(texts, 2):
            if (
                outer in outers
                and all(len(line) >= SIGN_LINE_MIN for line in lines[inner])
                and all(line in squashed[outer] or _read_in(line, lines[outer]) for line in lines[inner])
            ):
                a, b = sorted(
                    (_root(parent, inner), _root(parent, outer)), key=texts.index
                )  # the more frequent names both
                parent[b] = a
        for text in texts:
            names.setdefault(text, _root(parent, text))
    return names


def _one_sign(a: Grounded, b: Grounded) -> bool:
    """Two readings of one sign in one view: read within an occasion's gap of each other, and every line of one
    is in the other, but for a letter or two the reader got wrong ("HIGH O6:12" of "HIGH 06:12") or a line one
    frame missed (the heading)."""
    if a.sense is not Sense.READ or b.sense is not Sense.READ:
        return False
    if b.stamp > a.end + OCCASION_GAP_S or a.stamp > b.end + OCCASION_GAP_S:
        return False
    inner, outer = sorted((a.text, b.text), key=len)
    theirs = [squash(line) for line in outer.split(" / ")]
    return all(
        len(line) >= SIGN_LINE_MIN and any(_one_line(line, other) for other in theirs)
        for line in (squash(line) for line in inner.split(" / "))
    )


def _read_in(line: str, others: list[str]) -> bool:
    """Whether a squashed line is one of ``others`` read again with a character or two taken for one of like
    shape ("o6" for "06", "ii" for "11"); another letter is another sign ("stairb" is not "staira")."""
    return any(len(line) == len(other) and _misread(line, other) for other in others)


def _misread(a: str, b: str) -> bool:
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return 0 < len(differ) <= max(1, len(a) // 8) and all(
        _LIKE_SHAPE.get(x) == _LIKE_SHAPE.get(y, y) for x, y in differ
    )


# Characters a text reader takes for one another, by their shape: each to a common key.
_LIKE_SHAPE = {"o": "0", "0": "0", "d": "0", "i": "1", "l": "1", "1": "1", "s": "5", "5": "5", "b": "8", "8": "8",
               "z": "2", "2": "2", "g": "6", "6": "6"}  # fmt: skip


def _one_line(a: str, b: str) -> bool:
    """Two squashed lines that are one read twice: alike but for a letter, and with the same numbers ("GATE 12"
    is not "GATE 13")."""
    if SequenceMatcher(None, a, b).ratio() < SAME_LINE:
        return False
    ours, theirs = _digits(a), _digits(b)
    return len(ours) == len(theirs) and all(x in y or y in x for x, y in zip(ours, theirs, strict=True))


def _digits(line: str) -> list[str]:
    """A squashed line's numbers, with the letters a reader takes for digits read as those ("o6" as "06"); one
    reading's may hold a digit more than another's ("f1l" of "f1"), never another digit."""
    return re.findall(r"\d+", line.translate(_AS_DIGITS))


_AS_DIGITS = str.maketrans("oil", "011")


# Two lines read in one view are one line read twice from this likeness on (a letter in ten misread).
SAME_LINE = 0.8


def _root(parent: dict[str, str], text: str) -> str:
    while parent[text] != text:
        text = parent[text]
    return text


# What ends the phrase that names a thing: the clause or preposition that says where it was or what it had.
_NAME_ENDS = re.compile(
    r"\b(?:with|on|in|at|near|by|beside|behind|under|above|below|from|that|which|who|where|when|while|next|"
    r"inside|outside|along|across|against|over|for)\b"
)


def naming_words(description: str) -> list[str]:
    """The words that name what a description is about: the last content word of its name ("table" of "the light
    table with the black parts"), and of what it is of ("box" and "biscuits" of "a box of biscuits")."""
    return [words[-1] for words in _name_parts(description)]


def shown_words(description: str, pictures: Callable[[str], bool]) -> list[str]:
    """The words before a name's last word where that word names a picture or a bearer of words ("fox" of "the fox
    poster", "harbour" of "a painting of the harbour" is left to the name it is of)."""
    return [w for words in _name_parts(description) if len(words) > 1 and pictures(words[-1]) for w in words[:-1]]


def _name_parts(description: str) -> list[list[str]]:
    """The content words of a description's name, and of what it is of, part by part ("box", "biscuits")."""
    phrase = _NAME_ENDS.split(description.lower(), maxsplit=1)[0]
    return [words for part in phrase.split(" of ") if (words := terms(part))]


def _record_words(wanted: Sequence[str], record: _Record, known: set[str], synonyms: Synonyms) -> float:
    """A record's word score; a tag matched only through the broader words it answers to ("goods" of a uniform)
    weighs less than one matched by its own name."""
    if not record.terms:
        return word_score(wanted, record.text, known, synonyms)
    own = max(_name_score(wanted, name, known, synonyms) for name in (record.text, *record.names))
    broader = max((_name_score(wanted, name, known, synonyms) for name in record.terms), default=0.0)
    return max(own, BROADER_WORD_WEIGHT * broader)


def _name_score(wanted: Sequence[str], name: str, known: set[str], synonyms: Synonyms) -> float:
    """How well a description names a class by one of its names: not at all where it meets only a word that
    qualifies the name's head ("tiger" of "tiger cat", "coffee" of "coffee mug" are other things)."""
    head = name.split()[-1] if name.split() else name
    if not any(word_hit(w, head, synonyms) for w in wanted):
        return 0.0
    return word_score(wanted, name, known, synonyms)


def _without(synonyms: Synonyms, dropped: Mapping[str, set[str]]) -> Synonyms:
    """The synonyms less some of the words given for each wanted word."""
    return {w: tuple(o for o in others if o not in dropped.get(w, ())) for w, others in synonyms.items()}


def _with_sounds(wanted: list[str], known: set[str], records: list[_Record], synonyms: Synonyms) -> Synonyms:
    """The synonyms, and for each wanted word no record holds the words heard that sound like it, in a run with
    its neighbours (``sounds.misheard_as``)."""
    extended = dict(synonyms)
    for text in dict.fromkeys(r.text for r in records):
        for word, heard in misheard_as(wanted, text).items():
            if word not in known and heard not in extended.get(word, ()):
                extended[word] = (*extended.get(word, ()), heard)
    return extended


def _words_of(record: _Record) -> str:
    return " ".join((record.text, *record.terms)) if record.terms else record.text


def _runs(items: Sequence[T], stamp: Callable[[T], float], end: Callable[[T], float] | None = None) -> list[list[T]]:
    """Time-ordered runs of records no more than ``OCCASION_GAP_S`` apart."""
    return group_runs(items, stamp, OCCASION_GAP_S, end)


# What bears words that are read, and what carries words heard: general English nouns and verbs.  The first such
# word in a question names its source ("the voice on the intercom", "the notice you saw", "what the label says").
_READ_WORDS = (
    r"read|reading|written|printed|painted|engraved|labell?ed|titled?|headline|stencill?ed|chalked|scrawled|etched"
    r"|embossed|inscribed|lettered|handwritten|hand-written|typed|spelt out|spelled out"
    # a thing that bears words, not the verb its name also is ("called to board", "asked to sign")
    r"|(?<!\bto )(?:sign|signs|signpost|signboard|notice|label|plate"
    r"|nameplate|plaque|placard|board|noticeboard|inscription|caption|writing|lettering)"
)
# Things that bear pictures as well as words: what they showed was seen as much as read ("the poster of a tiger").
_PICTURED_WORDS = r"(?<!\bto )(?:posters?|whiteboard|blackboard|screens?|display|banners?|stickers?|leaflets?|flyers?)"
# The nouns among them: things that bear words.
_BEARERS = re.compile(
    r"\b(?:signs?|signposts?|signboards?|notices?|labels?|plates?|nameplates?|plaques?|placards?|posters?|boards?"
    r"|whiteboards?|blackboards?|noticeboards?|banners?|stickers?|leaflets?|flyers?|inscriptions?|captions?)$"
)


def bears_text(head: str) -> bool:
    """Whether the thing a description names is one that bears words ("the orange poster", "a warning notice")."""
    return _BEARERS.search(head.lower().strip()) is not None


_HEARD_WORDS = (
    r"hear|heard|hearing|voice|voices|spoken|speaker|loudspeaker|announcement|announcements|announced|broadcast"
    r"|intercom|radio|talk|talked|spoke|speak"
    r"|requests?|requested|complaints?|complained|calls?|called out|paged|asked for|asking for|shouted|whispered"
    r"|(?:asked|asks|ask) (?:about|whether|if)"
)
# Verbs of saying that a sign does as well as a voice ("what the poster says"): heard where a person says it.
_SAID_WORDS = r"said|say|says|saying|told|tell you|mention|mentions|mentioned|(?<!the )(?<!a )report|reported|reports"
_SAYER = re.compile(
    r"\b(?:someone|anyone|somebody|anybody|nobody|no one|everyone|people|person|he|she|they|you|i|we|staff)\b"
    rf"(?:\s+(?:had|has|have|did|does|do|ever|also|just|already|not|never|once))?\s+(?:{_SAID_WORDS})\b"
)
_SEEN_WORDS = (
    r"see|saw|seen|spot|spotted|watch|watched|look(?:ed|ing)? (?:at|into|over|through)|notice|noticed|in view"
    r"|come across|came across|into view|into sight|in sight|catch sight|caught sight|glimpsed?|observed?"
)
# ... never a part of a word made with a hyphen ("the on-call nurse" names no call heard), but for the participle
# or noun that ends one ("hand-written", "loud-speaker").
_AFTER_HYPHEN = r"written|printed|painted|lettered|engraved|labell?ed|spoken|speakers?"
# A noun for a thing that bears words, after which a word of another source only qualifies it ("the call sheet",
# "the announcement board", "a voice log" are read).
_BEARER_HEAD = r"(?:boards?|signs?|notices?|sheets?|lists?|cards?|books?|logs?|plates?|posters?|slips?|forms?)"
_SOURCE = re.compile(
    rf"\b(?:(?<!-)|(?=(?:{_AFTER_HYPHEN})\b))(?:(?P<read>{_READ_WORDS})|(?P<pictured>{_PICTURED_WORDS})"
    rf"|(?P<heard>(?:{_HEARD_WORDS})\b(?! {_BEARER_HEAD}\b))|(?P<said>{_SAID_WORDS})|(?P<seen>{_SEEN_WORDS}))\b(?!-)"
)


def source_named(question: str, wordnet: wn.WordNet | None = None) -> list[Sense]:
    """The senses a question restricts its search to, by the first word naming a source: read or heard; seen
    restricts nothing (a sign is seen as much as read).  Empty where none is named: every kind competes.  A verb
    of saying names hearing where a person says it, else words read or heard ("what the notice says").  A thing
    that bears pictures as well as words ("the poster") names both, unless the question asks what it says.  With
    ``wordnet``, a person named by what they are ("the caller", "a visitor") says things as a pronoun does."""
    # The sentence that asks decides: one before it only sets the scene ("I need the night porter. Which ...?"),
    # unless the asking one leaves open what an earlier one said ("I heard it on the radio. What did it say?").
    asking, *before = reversed(sentences_of(without_aside(question))) if question.strip() else ("",)
    said = _senses_named(_asked_head_alone(without_asking(asking.lower())), wordnet)
    if len(said) == 1:
        return said
    for text in before:
        earlier = _senses_named(without_asking(text.lower()), wordnet)
        if len(earlier) == 1 and (not said or earlier[0] in said):
            return earlier
    # Something someone lost or is looking for, with no seeing named: known from what they told the robot.
    if not said and _SOUGHT.search(question.lower()) and not sight_named(question):
        return [Sense.HEARD]
    return said


# The thing a "which" or "what" question asks for, before its verb ("which intercom channel is ...").
_ASKED_HEAD = re.compile(
    r"^(?P<wh>(?:which|what)(?: (?:kind|type|sort) of)?) (?P<mod>(?:[a-z-]+ ){1,2}?)(?P<head>[a-z-]+)"
    r"(?= (?:is|was|were|are|did|do|does|has|have|had|should|must|can|could|would|will)\b)"
)


def _asked_head_alone(question: str) -> str:
    """A question with the words qualifying the thing it asks for left out: "the intercom channel" asked for names a
    channel, not the intercom as where the answer was heard; a message or a sign asked for keeps them."""
    asked = _ASKED_HEAD.match(question)
    if asked is None or _CARRIED.fullmatch(asked["head"]) or bears_text(asked["head"]):
        return question  # "which voice message", "what warning sign": the words say how it was met
    return f"{asked['wh']} {asked['head']}{question[asked.end() :]}"


# Something lost, missing or looked for ("what had gone missing", "the clerk is looking for something").
_SOUGHT = re.compile(
    r"\b(?:looking for|searching for|hunting for|asking after|(?:has|have|had) lost|lost (?:her|his|their|my|a|an|the)"
    r"|gone missing|went missing|goes missing|(?:is|was|are|were) missing|mislaid|misplaced|(?:can't|cannot|couldn't"
    r"|could not) find)\b"
)


def _senses_named(asked: str, wordnet: wn.WordNet | None = None) -> list[Sense]:
    for match in _SOURCE.finditer(asked):
        if match.group("read"):
            return [Sense.READ]
        if match.group("pictured"):  # what it says is read; what it had on it, seen as well
            later = [m for m in _SOURCE.finditer(asked, match.end()) if m.group("read") or m.group("said")]
            return [Sense.READ] if later else [Sense.READ, Sense.SEEN]
        if match.group("heard"):
            return [Sense.HEARD]
        if match.group("said"):
            spoken = _SAYER.search(asked) is not None or _person_says(asked, wordnet)
            return [Sense.HEARD] if spoken else [Sense.READ, Sense.HEARD]
    return []


# The one who says something, named by a noun: before the verb of saying ("the caller at the gate said"), or after
# the auxiliary that asks ("what did the announcer on the platform say").
_NOUN_SAYS = re.compile(
    rf"\b(?:the|a|an|that|this|some|one|another|any) (?:[a-z'-]+ )??(?P<n>[a-z-]+)(?:'s)?"
    rf"(?: (?:in|at|on|by|near|from|outside|inside) (?:the|a|an|this|that) [a-z' -]+?)?"
    rf"(?: (?:had|has|have|did|does|do|just|also|then|once|ever|not|never))* (?:{_SAID_WORDS}|asked|asks|ask)\b"
)


def _person_says(asked: str, wordnet: wn.WordNet | None) -> bool:
    """Whether the one a question says spoke is a person by WordNet's first sense of the noun ("the porter told
    you"), not a thing that bears words ("the brochure says")."""
    if wordnet is None:
        return False
    for match in _NOUN_SAYS.finditer(asked):
        senses = wordnet.senses(match["n"]) or wordnet.senses(singular(match["n"]))
        if senses and wordnet.lexfile(senses[0]) == wn.LEX_PERSON:
            return True
    return False


def sight_named(question: str) -> bool:
    """Whether the first word of a question that names how something was met names seeing it ("where were you
    while looking into the fuse box"): not what was heard."""
    first = next(_SOURCE.finditer(without_asking(question.lower())), None)
    return first is not None and first.group("seen") is not None


class ValueKind(str, Enum):
    """The kind of value a question asks to be read out of what was read or heard."""

    PERSON = "person"  # who: a name or a word for a person ("the plumber")
    NAME = "name"  # whose name: a person's own name
    OCCUPATION = "occupation"  # a job title
    NUMBER = "number"  # which number, floor, gate, code
    DURATION = "duration"  # how long something may or should last: "15 minutes", "30 days"
    REASON = "reason"  # why: the cause a sentence or a sign gives ("because the wind is too strong")


# Who may own a name in a question ("anyone's name", "the name of the caller").
_OWNERS = (
    r"anyone|anybody|someone|somebody|everyone|person|people|visitor|caller|guest|owner|occupant|tenant|man|woman"
    r"|speaker|employee|staff|worker"
)
_VALUE_KINDS = (
    (
        ValueKind.OCCUPATION,
        re.compile(
            r"\b(?:job|occupation|profession|role|position)(?! (?:numbers?|codes?|no|ids?|references?|refs?|digits?)\b) ?(?:title)?\b|\bjob title\b"
        ),
    ),
    (
        ValueKind.NAME,
        re.compile(
            rf"\bwhose names?\b|\b(?:{_OWNERS})'s names?\b|\bnames? of (?:the|a|an|that|this|any) (?:{_OWNERS})\b"
            r"|\b(?:any|a|some) (?:person's |people's )?names?\b|\bnames? of (?:whoever|whomever)\b|\bwhoever's\b"
            r"|\b(?:their|his|her) (?:full |first |last |sur)?names?\b"
        ),
    ),
    (ValueKind.PERSON, re.compile(r"^(?:who|whom|whose)\b")),
    (
        ValueKind.REASON,
        re.compile(r"^(?:why|how come|for what reason)\b|^what (?:is|was|'s|were|are) the (?:reason|cause)s?\b"),
    ),
    # How long a rule lets something last ("the longest anyone should stay", "how many days may it be kept"): what
    # may or should be, not what the robot did.
    (
        ValueKind.DURATION,
        re.compile(
            r"^(?=.*\b(?:can|may|might|should|must|allowed|permitted|supposed)\b)"
            r"(?=.*\b(?:time|stay|long|seconds|minutes|hours|days|weeks|months)\b)"
            r".*\b(?:longest|shortest|maximum|minimum|how many (?:seconds|minutes|hours|days|weeks|months))\b"
        ),
    ),
    (
        ValueKind.NUMBER,
        re.compile(
            # "which bay number", "what was the code on the door", "read me the number on the tag", "I need the
            # batch number"
            r"^(?:(?:what|which)(?: (?:is|was|are|were|'s))?|(?:please )?(?:read(?: me| out| off)*|tell me|give me"
            r"|i need|i want|i'd like|let me have|let me know)) (?:the |its |their |that |this )?(?:\w+ )?"
            r"(?:numbers?|codes?|digits?|temperatures?|weights?|heights?|prices?|costs?|fees?|speeds?|pressures?"
            r"|voltages?|percentages?|years?)\b|^how much\b|\b(?:any|a|some) numbers?\b(?! of)"
            # a price, a measure, or an hour of a timetable ("what does it cost", "how tall may a van be", "from
            # what time is the desk open"), not the moment something was met ("what time did you see it")
            r"|^what (?:does|do|did|will) (?:\w+ ){1,3}cost\b|^how (?:tall|high|wide|long|heavy|deep|far|low)"
            r" (?:can|may|must|should|is|are)\b|^(?:from |until |till |by )?what time (?:does|do|is|are|will|should"
            r"|must|can)\b"
            # a time a sign or a message gives, asked in the present or the future ("when is the last ferry"),
            # not the past moment something was met ("when was the van seen")
            r"|^when (?:is|are|does|do|will|should|must|can)\b(?!.*\b(?:you|robot|first|last|saw|see|seen|heard)\b)"
        ),
    ),
)
# A thing named for the value it bears ("the name plate", "a name tag", "the number plate").
_VALUE_BEARERS = (
    (ValueKind.NAME, re.compile(r"\bname ?(?:plates?|tags?|badges?|cards?|signs?|boards?|plaques?)\b")),
    (ValueKind.NUMBER, re.compile(r"\bnumber ?(?:plates?|tags?|signs?|boards?|plaques?)\b")),
)
# The titles said before a person's name.
PERSON_TITLES = ("mr", "mrs", "ms", "miss", "mister", "dr", "doctor", "professor", "prof")
_TITLE_WORD = rf"(?:{'|'.join(PERSON_TITLES)})"
_TITLE = re.compile(rf"\b{_TITLE_WORD}\b\.? [a-z]", re.IGNORECASE)
_NUMBER_WORDS = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|first|second|third|fourth|fifth)\b",
    re.IGNORECASE,
)


# An amount of time as a sign or a sentence gives it: a number, spelled out or not, and a unit of time.
_DURATION = re.compile(
    rf"\b(?:\d+(?:[.,]\d+)?|{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})\s*"
    r"(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)


def value_kind(clause: str, wordnet: wn.WordNet | None = None) -> ValueKind | None:
    """The kind of value a question asks for, by its question phrase ("whose name", "which number", "any
    name"); with ``wordnet``, the name of anyone a noun calls a person ("the dentist's name"); None for any other."""
    clause = clause.lower()
    kind = next((kind for kind, pattern in _VALUE_KINDS if pattern.search(clause)), None)
    if kind is None and wordnet is not None:
        owners = [w for m in _OWNED_NAME.finditer(clause) for w in (m.group(1) or m.group(2)).split()]
        if any(
            (senses := wordnet.senses(wordnet.base_form(o))) and wordnet.lexfile(senses[0]) == wn.LEX_PERSON
            for o in owners
        ):
            kind = ValueKind.NAME
    return kind


# Whose name is asked for by a noun ("the dentist's name", "the name of the caretaker", "the name of today's
# site foreman": a word of the noun phrase after "name of").
_OWNED_NAME = re.compile(
    r"\b([a-z]+)'s (?:full |first |last |sur)?names?\b(?! ?(?:plates?|tags?|badges?|cards?|signs?|boards?|plaques?)\b)"
    r"|\bnames? of (?:(?:the|a|an|that|this|[a-z]+'s) )?((?:(?!(?:the|a|an|of|on|in|at|to|who|that|which|by|for|with"
    r"|from|is|was|are|were|be|been|have|has|had|do|did|does|got|i|you|we|they|he|she|it)\b)[a-z]+(?: |$)){1,3})"
)


def value_borne(description: str) -> ValueKind | None:
    """The kind of value a thing is named for bearing ("the name plate"), if any."""
    description = description.lower()
    return next((kind for kind, pattern in _VALUE_BEARERS if pattern.search(description)), None)


def holds_value(
    kind: ValueKind, text: str, is_word: Callable[[str], bool] | None, is_person: Callable[[str], bool]
) -> bool:
    """Whether a record holds a value of the kind: a number; for an occupation, a word for a person that a title
    or sentence turns on; for a name, a title before a capitalised word or two capitalised words neither of which is
    a dictionary word; for a person, a name or any word for a person."""
    if kind is ValueKind.NUMBER:
        return _NUMBER_WORDS.search(text) is not None
    if kind is ValueKind.DURATION:
        return _DURATION.search(text) is not None
    if kind is ValueKind.REASON:
        return any(pattern.search(text) for pattern in _REASONS)
    if kind is ValueKind.OCCUPATION:
        return any(_names_a_person(line, is_person) for line in text.split(" / "))
    if kind is ValueKind.PERSON and any(is_person(w.lower()) for w in re.findall(r"[A-Za-z]+", text)):
        return True  # who someone is ("the plumber", "a visitor")
    if _TITLE.search(text):
        return True
    if is_word is None:
        return False
    # Two capitalised words on one line, neither a dictionary word nor words run together ("Ines Daliwal"; not
    # "KEEP OUT", "WI-FI ZONE", "EXITWAY DOOR").
    for line in text.split(" / "):
        raw = _SPACE_DROPPED.sub(". ", line).split()
        tokens = [t.strip(".,;:!?()\"'") for t in raw]
        pairs = zip(raw, itertools.pairwise(tokens), strict=False)  # a list ("Tue, Thu") is no one name
        if any(_name_part(a, is_word) and _name_part(b, is_word) for r, (a, b) in pairs if r[-1] not in ",;:/"):
            return True
        if _INITIALLED.search(line):  # "K. Drake", "J. BAKER": an initial before a capitalised word is a name
            return True
        # A duty and who has it ("Gritting: Ilse", "Ferry desk: Bruno"): one name after the colon will do.
        listed = _LISTED_NAME.search(line)
        if listed and _name_part(listed["name"], is_word):
            return True
    return False


# A full stop with no space after it between words ("DR.HALE"): the space text recognition dropped.
_SPACE_DROPPED = re.compile(r"(?<=[A-Za-z]{2})\.(?=[A-Za-z]{2})")
# An initial, then a capitalised word (not "No. 4", not "St. Anne" read as an initial).
_INITIALLED = re.compile(r"(?<![A-Za-z.])[A-Z]\.\s?[A-Z][A-Za-z'-]+")
# A line that gives a duty, then after a colon the capitalised word of who has it.
_LISTED_NAME = re.compile(r"[A-Za-z]:\s*(?P<name>[A-Z][a-z]+|[A-Z]{2,})\s*$")  # "Gritting: Ilse", "DUTY:IDRIS"


# A line of at most this many words is a title or a label, not a sentence.
TITLE_WORDS_MAX = 4


def value_spans(
    kind: ValueKind, text: str, is_word: Callable[[str], bool] | None, is_person: Callable[[str], bool]
) -> list[str]:
    """The parts of a record that hold the value: the lines of a sign that do, or out of a sentence the name
    ("Mr Novak"), the number, or the person it refers to ("the window cleaner")."""
    lines = [line for line in text.split(" / ") if holds_value(kind, line, is_word, is_person)]
    if kind is ValueKind.REASON:  # a sign's line as much as a sentence: "CLOSED FOR REPAIRS"
        return [m["r"].strip() for line in lines for pattern in _REASONS for m in pattern.finditer(line)] or lines
    if len(lines) != 1 or len(re.findall(r"[A-Za-z]+", lines[0])) <= TITLE_WORDS_MAX:
        return lines
    sentence = lines[0]
    if kind is ValueKind.NUMBER:  # a time of day whole ("20 past 3"), and the numbers outside one
        clocks = clock_spans(sentence)
        numbers = [m.span() for m in _NUMBER_WORDS.finditer(sentence)]
        numbers = [(a, b) for a, b in numbers if not any(c <= a and b <= d for c, d in clocks)]
        found = [sentence[a:b] for a, b in sorted(clocks + numbers)]
    elif kind is ValueKind.DURATION:
        found = [m.group(0) for m in _DURATION.finditer(sentence)]
    elif kind is ValueKind.NAME or (kind is ValueKind.PERSON and _TITLE.search(sentence)):
        found = [m.group(0) for m in _TITLED.finditer(sentence)]
    else:
        found = [_referred(m, is_person) for m in _DETERMINED.finditer(sentence)]
        found = [f for f in found if f]
    return found or lines


# A cause, as English gives one: after a word that introduces it ("because the footbridge is icy", "closed for
# cleaning"), before a word that draws a consequence from it ("the wind is too strong, so ..."), or in the sentence
# before one that says it was the reason ("The road is flooded. That's why ...").
_CLAUSE = r"[^.;:!?]+"
_REASONS = (
    re.compile(
        r"\b(?:because(?: of)?|due to|owing to|on account of|as a result of|thanks to|so that|in order to"
        rf"|(?:closed|shut|cancell?ed|delayed|suspended|postponed|stopped|off) for)\s+(?P<r>{_CLAUSE})",
        re.IGNORECASE,
    ),
    re.compile(rf"(?P<r>{_CLAUSE}),\s*(?:so|therefore|which is why|that's why|that is why)\b", re.IGNORECASE),
    re.compile(rf"(?P<r>{_CLAUSE})[.;!]\s*(?:that's|that is|this is|which is) why\b", re.IGNORECASE),
)


# A title and the capitalised words that follow it ("Dr Ines Daliwal").
_TITLED = re.compile(rf"\b(?i:{_TITLE_WORD})\b\.?(?: [A-Z][a-z]+)+")


def _names_a_person(line: str, is_person: Callable[[str], bool]) -> bool:
    """Whether a line says what someone is: a title whose head (last) word is a word for a person ("Facilities
    Manager", not "Guest Wi-Fi" or "Visitor Parking"), or a sentence that refers to one ("the cleaner will
    come")."""
    words = re.findall(r"[A-Za-z]+", line)
    if not words:
        return False
    if len(words) <= TITLE_WORDS_MAX:
        return is_person(words[-1].lower())
    return any(_referred(m, is_person) for m in _DETERMINED.finditer(line))


def _referred(match: re.Match[str], is_person: Callable[[str], bool]) -> str:
    """The person a determined phrase refers to ("our electrician", "the window cleaner"), or empty."""
    first, second = match.group(1), match.group(2)
    if is_person(first.lower()):
        return match.group(0)[: match.end(1) - match.start(0)]
    return match.group(0) if second and is_person(second.lower()) else ""


# A noun a sentence refers to with an article or possessive, and the word after it ("the window cleaner", "our
# plumber will").
_DETERMINED = re.compile(r"\b(?:the|a|an|our|your|my|their|his|her)\s+([a-z]+)(?:[\s-]+([a-z]+))?\b", re.IGNORECASE)


_NAME_PART = re.compile(r"[A-Z][a-z]+|[A-Z]{2,}")


def _name_part(token: str, is_word: Callable[[str], bool]) -> bool:
    word = token.lower()
    return _NAME_PART.fullmatch(token) is not None and not is_word(word) and not _run_together(word, is_word)


def _run_together(word: str, is_word: Callable[[str], bool], parts: int = 3) -> bool:
    """Whether a word is dictionary words of three letters or more run together ("serverroom")."""
    if parts == 1:
        return is_word(word)
    return any(
        is_word(word[:i]) and (is_word(word[i:]) or _run_together(word[i:], is_word, parts - 1))
        for i in range(3, len(word) - 2)
    )


def lists_on_a_sign(question: str) -> bool:
    """Whether a question counts what a sign lists ("how many rooms are listed", "how many prices are on the
    price list"), not things that stood by one ("how many bikes were by the notice")."""
    clause = interrogative(question)
    if _LISTING.search(clause):
        return True
    return any(bears_text(m["b"]) for m in _ON_BEARER.finditer(clause))


_LISTING = re.compile(r"\b(?:list|lists|listed|written|printed|posted|displayed|given|named|shown|show|shows)\b")
_ON_BEARER = re.compile(
    r"\b(?:on|in|upon) (?:the|a|an|that|this|its|their|your) (?P<b>[a-z' -]+?)(?=[?.,;]|$| \w+ing\b)"
)


def counted_phrase(question: str) -> str:
    """What a question counts, as it names it ("empty bays" of "how many empty bays does the board list")."""
    found = _COUNTED_PHRASE.search(interrogative(question))
    return "" if found is None or found["n"].split()[0] in NOT_COUNTED else found["n"]


_COUNTED_PHRASE = re.compile(
    r"\bhow many (?P<n>[a-z][a-z -]*?)(?: (?:are|were|is|was|did|does|do|have|has|had|can|could|will|would|appear"
    r"|listed|shown|written|printed|posted|displayed|given|named|on|in|upon|the|a|an|this|that|its|their|your)\b|$)"
)


# Words after "how many" that count no thing a sign lists: occasions, or a quantifier before the noun.
NOT_COUNTED = frozenset(("times", "occasions", "visits", "separate", "different", "distinct", "of", "more"))
