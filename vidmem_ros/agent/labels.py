"""Mapping what a person asks about onto the labels a detector can report: the one label resolver.

A label names a WordNet synset (COCO's "couch" is "sofa, couch, lounge").  A
word asked about names the label when one of its senses is that synset (a
synonym), a broader one ("furniture", "vehicle", "animal"), or a narrower one
at most ``narrower_levels`` steps below ("woman" -> "person").  A word WordNet
does not tie to any label falls back to the text embedder's sense of meaning
(``perception.vocabulary.LabelMapper``), where the robot has one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from vidmem_ros.agent.readable import FUNCTION_WORDS
from vidmem_ros.config import LexiconConfig
from vidmem_ros.memo import BoundedMemo
from vidmem_ros.perception import wordnet as wn
from vidmem_ros.perception.coco import coco_supercategory
from vidmem_ros.perception.imagenet import NUM_CLASSES as IMAGENET_CLASSES
from vidmem_ros.perception.imagenet import class_names
from vidmem_ros.perception.vocabulary import LabelMapper

# Lexicographer files of things a camera can see (signs and lights are "communication"); a label is read as
# one of these, never as an act or a feeling.  COCO's super-categories narrow that down ("mouse" is
# electronic: the device, not the rodent), in order of preference.
_CONCRETE = (
    wn.LEX_ARTIFACT,
    wn.LEX_ANIMAL,
    wn.LEX_PERSON,
    wn.LEX_FOOD,
    wn.LEX_PLANT,
    wn.LEX_TOPS,
    wn.LEX_COMMUNICATION,
)
# What "what <kind> was it" may ask about: things, and places ("which country").
_KINDS = (*_CONCRETE, wn.LEX_LOCATION)
# Words title case leaves in lower case.
_FUNCTION_WORDS = frozenset(("a", "an", "the", "of", "and", "or", "for", "to", "in", "on", "at", "by", "with", "from"))
# A word's synonyms are read from this many of its most frequent senses.
SYNONYM_SENSES = 2
MEANT_CACHE = 16_384  # phrases whose labels are kept (a few hundred bytes each)
KIND_LEVELS = (
    4  # a word names a kind of a broader one at most this many steps below it ("sparrow" is a few below "bird")
)
# Living things sit under the ranks of a scientific taxonomy, which people do not count as steps ("donkey" is
# nine below "animal", through "equine" and "odd-toed ungulate"): their steps count this many times as far.
_LIVING = (wn.LEX_ANIMAL, wn.LEX_PLANT)
TAXONOMY_STEPS = 3
_NATURAL_KINDS = (wn.LEX_ANIMAL, wn.LEX_PERSON, wn.LEX_FOOD, wn.LEX_PLANT, wn.LEX_TOPS)
_MADE_THINGS = ((wn.LEX_ARTIFACT,), (wn.LEX_COMMUNICATION,))
_BY_SUPERCATEGORY: dict[str, tuple[tuple[int, ...], ...]] = {
    "person": ((wn.LEX_PERSON, wn.LEX_TOPS),),
    "animal": ((wn.LEX_ANIMAL, wn.LEX_TOPS),),
    "food": ((wn.LEX_FOOD,), (wn.LEX_PLANT, wn.LEX_TOPS)),
}


class LabelLexicon:
    """The detector labels a word or phrase names; without WordNet, the labels themselves only."""

    def __init__(
        self,
        vocabulary: Iterable[str],
        config: LexiconConfig | None = None,
        mapper: LabelMapper | None = None,
        model_classes: Sequence[tuple[str, ...]] = (),
    ) -> None:
        """``model_classes``: the classes another of the robot's models reports (the tagger's), by their synonyms."""
        self.config = config or LexiconConfig()
        self.mapper = mapper
        self.vocabulary = tuple(dict.fromkeys(vocabulary))
        self.wordnet = wn.load(self.config.wordnet_dir)
        self._synsets = {label: self._synset(label) for label in self.vocabulary} if self.wordnet else {}
        self._classes = frozenset(s for senses in self._class_senses(model_classes) for s in senses)
        # a class's other names, by the name it is stored under ("vacuum": "vacuum cleaner")
        self._class_names = {
            name: tuple(n for n in names if n.lower() != name.lower())
            for name, names in zip(class_names(list(model_classes)), model_classes, strict=True)
        }
        self._synonyms: dict[str, tuple[str, ...]] = {}
        # (words, the senses they may be read in) -> the labels they name, asked of again and again
        self._meant: BoundedMemo[tuple[str, frozenset[int] | None], tuple[str, ...]] = BoundedMemo(MEANT_CACHE)
        # (word, broader word, steps, as a value, the sense meant) -> whether it names a kind
        self._kinds: BoundedMemo[tuple[str, str, int, bool, int | None], bool] = BoundedMemo(MEANT_CACHE)
        # (word, the words written with it) -> the sense meant, where they tell its senses apart
        self._meant_in: BoundedMemo[tuple[str, frozenset[str]], int] = BoundedMemo(MEANT_CACHE)
        self._defined_by: BoundedMemo[int, frozenset[str]] = BoundedMemo(MEANT_CACHE)  # sense -> its words
        self._all_sense_words: BoundedMemo[str, frozenset[str]] = BoundedMemo(MEANT_CACHE)  # word -> all its senses'
        self._context_words: BoundedMemo[str, frozenset[str]] = BoundedMemo(MEANT_CACHE)  # a text -> its words
        self._bearers: BoundedMemo[str, bool] = BoundedMemo(MEANT_CACHE)
        self._depictions: BoundedMemo[str, bool] = BoundedMemo(MEANT_CACHE)

    def resolve(self, phrase: str) -> list[str]:
        """Labels that ``phrase`` refers to, tried on its whole and on ever shorter tails ("a red coffee mug" ->
        "coffee mug" -> "mug"); empty when the detector cannot see it."""
        vocab = set(self.vocabulary)
        within: frozenset[int] | None = None  # the senses a shorter tail may be read in
        for candidate in _tails(phrase):
            if candidate in vocab:
                return [candidate]
            labels = self._by_meaning(candidate, within)
            if labels:
                return labels
            if within is None and " " in candidate:
                within = self._kinds_of_compound(candidate)
        return []

    def _kinds_of_compound(self, words: str) -> frozenset[int] | None:
        """What a compound WordNet knows is, and every broader sense: its shorter tails are read only in these
        senses or in those that share a parent with one ("kitchen table": a table, as a dining table is; "skirting
        board": a moulding, never the dining table "board" also names).  None for words it lacks."""
        if self.wordnet is None:
            return None
        senses = [s for f in self._forms(words) for s in self.wordnet.senses(f) if self.wordnet.lexfile(s) in _CONCRETE]
        if not senses:
            return None
        return frozenset(senses).union(*(self.wordnet.ancestors(s) for s in senses))

    def named(self, phrase: str) -> list[str]:
        """The labels ``phrase`` names: through WordNet, else by the embedder's sense of its meaning ("kitty",
        "laptop computer"); empty when neither ties it to a label."""
        labels = self.resolve(phrase)
        if not labels and self.mapper is not None:
            labels = self.mapper.map([phrase]).mapped.get(phrase, [])
        return labels

    def category(self, word: str) -> list[int]:
        """The concrete senses of a word asked about as a kind of thing ("animal", "fruit", "vehicle"); none for a
        word too broad to narrow anything down ("thing", "object") or one WordNet lacks."""
        if self.wordnet is None:
            return []
        wordnet = self.wordnet
        senses = [s for form in self._forms(word.lower().strip()) for s in wordnet.senses(form)]
        return [s for s in senses if wordnet.lexfile(s) in _KINDS and wordnet.depth(s) >= self.config.min_depth]

    def kinds_named(self, text: str, category: list[int]) -> list[str]:
        """The words (and two-word names) of ``text`` that name a kind of ``category``: narrower, not the
        category itself ("PELICAN" on a label names an animal; "ANIMAL" does not name a kind of one)."""
        if self.wordnet is None or not category:
            return []
        wordnet = self.wordnet
        words = re.findall(r"[a-z][a-z'-]+", text.lower())
        names = [" ".join(words[i : i + 2]) for i in range(len(words) - 1)] + words
        # In a line written in sentence case, a capitalised word after its first is a name ("lead: Gareth Mills");
        # in one written in title case ("Beware of the Dog") or in capitals, none is.
        sentence_case = any(w not in _FUNCTION_WORDS for w in re.findall(r"(?:^|(?<=\s))[a-z][a-z'-]+", text))
        proper = set(re.findall(r"(?<=\s)[A-Z][a-z'-]+", text)) if sentence_case else set()
        names = [n for n in names if not any(w.capitalize() in proper for w in n.split())]
        found = []
        for name in names:
            senses = [s for f in self._forms(name) for s in wordnet.senses(f)]
            meant = self.sense_meant(name, words) if senses else None
            if meant is not None and meant != senses[0]:
                senses = [meant]  # the sense the sign's other words point to ("COMPUTER MOUSE": no rodent)
            if not senses or wordnet.lexfile(senses[0]) not in _KINDS:
                continue  # a word read is a thing's name only if that is what it most often means ("SAFETY" is not)
            for broad in category:  # a word in its most frequent sense of the category's kind ("machine": no car)
                kinds = _KINDS if wordnet.lexfile(broad) == wn.LEX_TOPS else (wordnet.lexfile(broad),)
                sense = next((s for s in senses if wordnet.lexfile(s) in kinds), None)
                if sense is not None and sense != broad and wordnet.is_a(sense, broad):
                    found.append(name)
                    break
        # A two-word name stands for its words ("sea lion", not also "lion").
        return [n for n in found if not any(n != other and n in other.split() for other in found)]

    def bears_words(self, word: str) -> bool:
        """Whether a noun names a thing whose words are read: a written message in its most frequent sense (a
        timetable, a tag, a notice) or, in any sense, a display (a touchscreen, a readout)."""
        return self._bearers.get(word.lower().strip(), lambda: self._bears_words(word.lower().strip()))

    def _bears_words(self, word: str) -> bool:
        return self.wordnet is not None and bears_words(self.wordnet, self._forms(word)[0])

    def depicts(self, word: str) -> bool:
        """Whether a noun names a picture or figure of something in one of its two most frequent senses (a photo,
        a painting, a drawing, a statue): in a frame it is seen as what it shows."""
        word = word.lower().strip()
        return self._depictions.get(word, lambda: self.wordnet is not None and depicts(self.wordnet, word))

    def synonyms(self, word: str) -> tuple[str, ...]:
        """Other words for a concrete thing a word names in one of its two most frequent senses ("cookie" for
        "biscuit", "couch" for "sofa"; a message only in its most frequent), each one whose own most frequent
        sense that is: "car" gives "automobile", not "machine"."""
        if self.wordnet is None:
            return ()
        found = self._synonyms.get(word)
        if found is None:
            found = self._synonyms[word] = self._synonyms_of(word)
        return found

    def _synonyms_of(self, word: str) -> tuple[str, ...]:
        assert self.wordnet is not None
        wordnet = self.wordnet
        form = self._forms(word.lower().strip())[0]
        # A form the dictionary gives for a word that does not begin as the word does (the singular of "people",
        # "mice") is met in a text only as this.
        out: list[str] = [form] if not word.lower().strip().startswith(form[:-1]) else []
        for rank, sense in enumerate(wordnet.senses(form)[:SYNONYM_SENSES]):
            if wordnet.is_proper(sense, form) or wordnet.lexfile(sense) not in _CONCRETE:
                continue
            if rank and wordnet.lexfile(sense) == wn.LEX_COMMUNICATION:
                continue  # a thing's word used of talk ("rubbish" for nonsense) is not the thing
            for lemma in wordnet.lemmas(sense):
                other = lemma.lower()
                if other != form and not lemma[:1].isupper() and wordnet.senses(other)[:1] == (sense,):
                    out.append(other)
                elif lemma.endswith(".") and sense in wordnet.senses(other):
                    out.append(other.rstrip("."))  # an abbreviation ("Dr." of physician), as a reader finds it
        return tuple(dict.fromkeys(out))

    def _by_meaning(self, words: str, within: frozenset[int] | None = None) -> list[str]:
        return list(self._meant.get((words, within), lambda: self._labels_meant(words, within)))

    def _labels_meant(self, words: str, within: frozenset[int] | None = None) -> tuple[str, ...]:
        if self.wordnet is None:
            return ()
        senses: dict[int, int] = {}  # sense -> its rank among the senses of its word form
        for form in self._forms(words):
            common = [s for s in self.wordnet.senses(form) if not self.wordnet.is_proper(s, form)]
            if within is not None:
                common = [s for s in common if s in within or within.intersection(self.wordnet.hypernyms(s))]
            # A word the robot's tagger names a class by is no person: "tiger" is the animal it reports, not the
            # fierce person WordNet lists first ("a ruler", "a pitcher", "a boxer").
            if any(s in self._classes and self.wordnet.lexfile(s) != wn.LEX_PERSON for s in common):
                common = [s for s in common if self.wordnet.lexfile(s) != wn.LEX_PERSON]
            for rank, sense in enumerate(common):
                if self.wordnet.lexfile(sense) in _CONCRETE:
                    senses.setdefault(sense, rank)
        return tuple(
            label for label, synset in self._synsets.items() if synset is not None and self._names(senses, synset)
        )

    def _names(self, senses: dict[int, int], label: int) -> bool:
        """Whether a word with these senses names the label: a synonym or broader word in any sense; a narrower
        word only in its most frequent concrete sense, and in a person sense only where that is its most
        frequent sense of all (a "mug" may insult a person but names none; an "amphibian" is an animal before it
        is an aircraft; a "teacup" is a cup, though WordNet lists its quantity sense first)."""
        assert self.wordnet is not None
        wordnet = self.wordnet
        literal = [s for s, rank in senses.items() if rank == 0 or wordnet.lexfile(s) != wn.LEX_PERSON]
        if literal and wordnet.is_a(literal[0], label, self.config.narrower_levels):
            return True
        for sense in senses:
            if sense == label or (wordnet.depth(sense) >= self.config.min_depth and wordnet.is_a(label, sense)):
                return True
        return False

    def kind_of(
        self,
        word: str,
        broader: str,
        levels: int = KIND_LEVELS,
        as_value: bool = False,
        context: Iterable[str] = (),
    ) -> bool:
        """Whether a word, in the sense meant (its most frequent, or the one the words written with it, ``context``,
        point to), names a kind of what ``broader`` names in one of its two most frequent senses ("sparrow" of
        "bird", "truck" of "vehicle"), at most ``levels`` steps below it; a sense too broad to narrow anything down
        ("thing", "entity") names no kind.  ``as_value``: whether it names a value a question asks for by
        ``broader``: the name of one counts too ("October" of "month", "Bergen" of "port"), and so does a kind of
        anything a phrase headed by it names ("Monday" is a "day of the week")."""
        meant = self.sense_meant(word, context)
        return self._kinds.get(
            (word, broader, levels, as_value, meant), lambda: self._kind_of(word, broader, levels, as_value, meant)
        )

    def _kind_of(self, word: str, broader: str, levels: int, as_value: bool, meant: int | None) -> bool:
        if self.wordnet is None or word == broader:
            return False
        wordnet = self.wordnet
        if meant is None or (not as_value and wordnet.is_proper(meant, word)):
            return False
        if as_value and _headed_by(wordnet, meant, wordnet.base_form(broader), levels):
            return True
        wide = [s for s in wordnet.senses(wordnet.base_form(broader))[:SYNONYM_SENSES]
                if wordnet.depth(s) >= self.config.min_depth]  # fmt: skip
        return any(
            s != m and wordnet.is_a(m, s, levels * (TAXONOMY_STEPS if wordnet.lexfile(m) in _LIVING else 1))
            for m in self._read_as(word, meant)
            for s in wide
        )

    def _read_as(self, word: str, meant: int) -> list[int]:
        """The senses a word may name a kind in: the one the words written with it point to; where they point to
        none but its most frequent, also its next most frequent concrete one, which the broader word asked for
        picks out ("apricot" the tree, or the fruit a question of "fruit" means)."""
        assert self.wordnet is not None
        senses = self.wordnet.senses(self.wordnet.base_form(word))[:SYNONYM_SENSES]
        if not senses or meant != senses[0]:
            return [meant]
        return [meant, *(s for s in senses[1:] if self.wordnet.lexfile(s) in _CONCRETE)]

    def sense_meant(self, word: str, context: Iterable[str] = ()) -> int | None:
        """The sense a word is meant in among the words written with it: its most frequent, unless another's
        definition and names share more of those words ("MOUSE" beside "COMPUTER" is the device, "CRICKET" beside
        "BAT" the game: a simplified Lesk).  None for a word WordNet lacks."""
        if self.wordnet is None:
            return None
        form = self.wordnet.base_form(word.lower())
        senses = self.wordnet.senses(form)
        if len(senses) < 2:
            return senses[0] if senses else None
        joined = " ".join(context)
        around = self._context_words.get(joined, lambda: self._defining(joined)) - {form}
        if not around & self._all_sense_words.get(form, lambda: frozenset().union(*map(self._sense_words, senses))):
            return senses[0]  # nothing written with it tells its senses apart
        return self._meant_in.get((form, around), lambda: self._lesk(form, senses, around))

    def _lesk(self, form: str, senses: Sequence[int], around: frozenset[str]) -> int:
        """The sense sharing most words with ``around``; the most frequent where none shares more than it, or
        where the one that does is defined by the word itself: the leaves of the basil, the fruit of the pumpkin
        plant are the thing its most frequent sense names, not another."""
        assert self.wordnet is not None
        shared = [len(around & self._sense_words(s)) for s in senses]
        best = max(range(len(senses)), key=lambda i: (shared[i], -i))
        definition = self.wordnet.gloss(senses[best]).split('"')[0]  # without the examples of its use
        if shared[best] <= shared[0] or form in self._defining(definition):
            return senses[0]
        return senses[best]

    def _sense_words(self, sense: int) -> frozenset[str]:
        wordnet = self.wordnet
        assert wordnet is not None
        return self._defined_by.get(
            sense, lambda: self._defining(" ".join((wordnet.gloss(sense), *wordnet.lemmas(sense))))
        )

    def _defining(self, text: str) -> frozenset[str]:
        """The dictionary forms of a text's words that can tell senses apart (three letters or more, no function
        word)."""
        assert self.wordnet is not None
        words = re.findall(r"[a-z]{3,}", text.lower())
        return frozenset(self.wordnet.base_form(w) for w in words if w not in FUNCTION_WORDS)

    def class_synonyms(self, label: str) -> tuple[str, ...]:
        """The other names of the tagger's class stored as ``label``: the thing itself, not a broader word."""
        return self._class_names.get(label, ())

    def classified(self, phrase: str) -> bool:
        """Whether another of the robot's models (the tagger) reports the thing a phrase names, or kinds of it
        ("penguin" by "king penguin"), though the detector has no label for it."""
        if self.wordnet is None or not self._classes:
            return False
        wordnet = self.wordnet
        for candidate in _tails(phrase):
            senses = [s for f in self._forms(candidate) for s in wordnet.senses(f) if wordnet.lexfile(s) in _CONCRETE]
            if senses:
                return any(c == s or wordnet.is_a(c, s) for s in senses for c in self._classes)
        return False

    def activity_named(self, phrase: str) -> str:
        """Whether a phrase ends in a noun one of whose commoner senses is an act, an event or a span of time ("this
        circuit", "your shift", "the survey"): what the robot is doing, not where it is.  "only" where none of
        those senses is a made thing or a location ("duty"), "some" where one is ("circuit"), else ""."""
        words = re.findall(r"[a-z]+", phrase.lower())
        if self.wordnet is None or not words:
            return ""
        kinds = {self.wordnet.lexfile(s) for s in self.wordnet.senses(self.wordnet.base_form(words[-1]))[:3]}
        if not kinds & {wn.LEX_ACT, wn.LEX_EVENT, wn.LEX_TIME}:
            return ""
        return "some" if kinds & {wn.LEX_ARTIFACT, wn.LEX_LOCATION} else "only"

    def _class_senses(self, model_classes: Sequence[tuple[str, ...]]) -> list[tuple[int, ...]]:
        if self.wordnet is None:
            return []
        ordered = len(model_classes) == IMAGENET_CLASSES  # ImageNet-1k lists its classes in WordNet order
        return wn.class_senses(self.wordnet, model_classes, ordered)

    def _forms(self, words: str) -> list[str]:
        """The dictionary form first ("men" -> "man", "cups" -> "cup"), then the words as written."""
        assert self.wordnet is not None
        base = self.wordnet.base_form(words)
        return list(dict.fromkeys((base, words) if self.wordnet.senses(base) else (words,)))

    def _synset(self, label: str) -> int | None:
        """The sense a label names: the most frequent one in the lexicographer files its category prefers. A
        label WordNet lacks ("potted plant") is read by its shorter tails ("plant"), natural kinds first, as a
        modifier rarely turns a made thing into a living one."""
        assert self.wordnet is not None
        category = coco_supercategory(label)
        preferences = _BY_SUPERCATEGORY.get(category or "", _MADE_THINGS) if category else (_CONCRETE,)
        for form in dict.fromkeys((label, singular(label))):
            found = wn.noun_synset(self.wordnet, form, preferences)
            if found is not None:
                return found
        words = label.split()
        for start in range(1, len(words)):
            found = wn.noun_synset(self.wordnet, " ".join(words[start:]), (_NATURAL_KINDS, *preferences))
            if found is not None:
                return found
        return None


def bears_words(wordnet: wn.WordNet, word: str) -> bool:
    """Whether a noun (in its dictionary form) names a thing whose words are read: a written message in its most
    frequent sense (a timetable, a tag, a notice) or, in any sense, a display (a touchscreen, a readout)."""
    senses = wordnet.senses(word)
    if not senses:
        return False
    if wordnet.lexfile(senses[0]) == wn.LEX_COMMUNICATION:
        return True
    displays = [d for d in wordnet.senses("display") if "video display" in wordnet.lemmas(d)]
    return any(wordnet.is_a(s, d) for s in senses for d in displays)


# What a picture or a figure is, in WordNet: a made representation, graphic or plastic art, visual communication.
_DEPICTIONS = (("representation", wn.LEX_ARTIFACT), ("graphic art", wn.LEX_ARTIFACT), ("plastic art", wn.LEX_ARTIFACT),
               ("visual communication", wn.LEX_COMMUNICATION))  # fmt: skip


def depicts(wordnet: wn.WordNet, word: str) -> bool:
    """Whether a noun names a picture or a figure of something in one of its two most frequent senses."""
    anchors = [s for lemma, lexfile in _DEPICTIONS for s in wordnet.senses(lemma) if wordnet.lexfile(s) == lexfile]
    senses = wordnet.senses(wordnet.base_form(word))[:SYNONYM_SENSES]
    return any(wordnet.is_a(s, a) for s in senses for a in anchors)


def _tails(phrase: str) -> list[str]:
    words = phrase.lower().split()
    candidates: list[str] = []
    for start in range(len(words)):
        tail = " ".join(words[start:])
        candidates += [tail, " ".join([*words[start:-1], singular(words[-1])])]
    return list(dict.fromkeys(candidates))


def singular(word: str) -> str:
    for suffix, repl in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("ses", "s"), ("xes", "x"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + repl
    return word


def _headed_by(wordnet: wn.WordNet, sense: int, head: str, levels: int) -> bool:
    """Whether a broader sense within ``levels`` steps is named by a phrase headed by ``head`` ("day of the week",
    "calendar month"): a word for that thing, though WordNet keeps it apart from the word alone."""
    frontier = set(wordnet.hypernyms(sense))
    for _ in range(levels):
        for broader in frontier:
            for lemma in wordnet.lemmas(broader):
                phrase = lemma.lower().replace("_", " ")
                named = phrase.split(" of ")[0].split()  # "day" of "day of the week", as of "calendar day"
                if phrase != head and named and named[-1] == head:
                    return True
        frontier = {p for o in frontier for p in wordnet.hypernyms(o)}
        if not frontier:
            return False
    return False
