"""WordNet 3.0 nouns, read straight from the database files (Debian/Ubuntu ``wordnet-base``).

Models name things by their own label sets: ImageNet by fine-grained WordNet
leaves ("tabby", "espresso"), COCO by everyday words ("cup", "potted plant").
People ask with synonyms and broader words ("a cat", "coffee", "an animal").
WordNet links both: a synset lists its synonyms (lemmas) and points to its
hypernyms (the broader synsets).  Only the noun files are read: ``index.noun``
(lemma -> synsets, most frequent sense first) once, and ``data.noun`` (one
line per synset, at its byte offset) on demand through a memory map.
"""

from __future__ import annotations

import functools
import mmap
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from vidmem_ros.memo import BoundedMemo

# Lexicographer files of the noun synsets (WordNet's lexnames, fixed by the format).
LEX_ACT, LEX_EVENT, LEX_TIME = 4, 11, 28  # acts and activities, events, time periods
LEX_TOPS, LEX_ANIMAL, LEX_ARTIFACT, LEX_COMMUNICATION, LEX_FOOD, LEX_LOCATION, LEX_PERSON, LEX_PLANT = (
    3, 5, 6, 10, 13, 15, 18, 20,
)  # fmt: skip

_HYPERNYM_POINTERS = (b"@", b"@i")  # hypernym and instance hypernym
# morphy's detachment rules for nouns (WordNet's morphy(7WN)), plus "ies" -> "y".
_NOUN_SUFFIXES = (
    ("ies", "y"),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("s", ""),
)

# morphy's detachment rules for verbs, in its order.
_VERB_SUFFIXES = (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""))
# English plurals formed from another word, which noun.exc leaves out because WordNet lists them as nouns of their own.
_SUPPLETIVE = {"people": "person"}


# Answers kept of the questions asked of the dictionary, at most this many of each kind.
MEMO_LIMIT = 200_000


class WordNet:
    """Noun synsets by byte offset: their lemmas, lexicographer file and hypernyms."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        data = directory / "data.noun"
        with data.open("rb") as handle:
            self._data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self._index = _read_index(directory / "index.noun")
        self._exceptions = _read_exceptions(directory / "noun.exc")
        self._verbs: tuple[frozenset[str], dict[str, str]] | None = None  # read on first use
        self._lock = threading.Lock()
        self._synsets: dict[int, tuple[int, tuple[str, ...], tuple[int, ...]]] = {}
        self._depths: dict[int, int] = {}
        # Asked of the same words again and again by every question; a word's answers never change.
        self._bases: BoundedMemo[str, str] = BoundedMemo(MEMO_LIMIT)
        self._is_a: BoundedMemo[tuple[int, int, int], bool] = BoundedMemo(MEMO_LIMIT)

    def senses(self, lemma: str) -> tuple[int, ...]:
        """Synset offsets of a noun, most frequent sense first; empty for a word WordNet lacks."""
        return self._index.get(_key(lemma), ())

    def base_form(self, word: str) -> str:
        """A noun's dictionary form, as WordNet's morphy finds it: its list of irregular plurals ("children" ->
        "child"), then its suffix rules ("women" -> "woman", "boxes" -> "box"); the word itself if none is a
        noun."""
        return self._bases.get(word, lambda: self._base_form(word))

    def _base_form(self, word: str) -> str:
        irregular = self._exceptions.get(_key(word)) or _SUPPLETIVE.get(_key(word))
        if irregular:
            return irregular
        for suffix, ending in _NOUN_SUFFIXES:
            if word.endswith(suffix) and len(word) > len(suffix):
                candidate = word[: len(word) - len(suffix)] + ending
                if self.senses(candidate):
                    return candidate
        return word

    def verb_base(self, word: str) -> str:
        """A verb's dictionary form, as morphy finds it: verb.exc's irregular forms ("bought" -> "buy", "left" ->
        "leave"), then its suffix rules ("stays" -> "stay", "closed" -> "close"); the word itself if none is a
        verb."""
        verbs, _ = self._verb_tables()
        key = _key(word)
        if irregular := self.irregular_verb(word):
            return irregular
        for suffix, ending in _VERB_SUFFIXES:
            if key.endswith(suffix) and len(key) > len(suffix) + 1:
                candidate = key[: len(key) - len(suffix)] + ending
                if candidate in verbs:
                    return candidate
        return word

    def irregular_verb(self, word: str) -> str:
        """The base form of an irregular verb form ("made" -> "make"), or "" for any other word."""
        _, irregular = self._verb_tables()
        return irregular.get(_key(word), "")

    def is_verb(self, word: str) -> bool:
        """Whether a word is a form of a verb WordNet lists ("read", "heard", "passes")."""
        verbs, _ = self._verb_tables()
        return _key(word) in verbs or self.verb_base(word) != word

    def _verb_tables(self) -> tuple[frozenset[str], dict[str, str]]:
        with self._lock:
            if self._verbs is None:
                index = self.directory / "index.verb"
                lemmas = frozenset(_read_index(index)) if index.is_file() else frozenset()
                self._verbs = (lemmas, _read_exceptions(self.directory / "verb.exc"))
            return self._verbs

    def is_proper(self, offset: int, lemma: str) -> bool:
        """Whether ``lemma`` names an individual in this synset ("Ball" the actress, not "ball")."""
        return any(name[:1].isupper() for name in self.lemmas(offset) if _key(name) == _key(lemma))

    def lemmas(self, offset: int) -> tuple[str, ...]:
        return self._synset(offset)[1]

    def gloss(self, offset: int) -> str:
        """A synset's definition and examples, as written after its pointers."""
        with self._lock:
            end = self._data.find(b"\n", offset)
            line = self._data[offset : end if end >= 0 else len(self._data)]
        return line.split(b" | ", 1)[-1].decode("utf-8", "replace").strip() if b" | " in line else ""

    def lexfile(self, offset: int) -> int:
        return self._synset(offset)[0]

    def hypernyms(self, offset: int) -> tuple[int, ...]:
        return self._synset(offset)[2]

    def depth(self, offset: int) -> int:
        """Length of the shortest hypernym path to the root ("entity" is 0, "animal" 6)."""
        if offset not in self._depths:
            parents = self.hypernyms(offset)
            self._depths[offset] = 1 + min(self.depth(p) for p in parents) if parents else 0
        return self._depths[offset]

    def ancestors(self, offset: int, min_depth: int = 0) -> list[int]:
        """Every broader synset, nearest first, leaving out those nearer the root than ``min_depth``."""
        seen: dict[int, None] = {}
        frontier = list(self.hypernyms(offset))
        while frontier:
            level = [p for p in frontier if p not in seen]
            seen.update(dict.fromkeys(level))
            frontier = [grand for p in level for grand in self.hypernyms(p)]
        return [p for p in seen if self.depth(p) >= min_depth]

    def is_a(self, offset: int, broader: int, max_levels: int = 64) -> bool:
        """Whether ``broader`` is ``offset`` or one of its hypernyms within ``max_levels`` steps."""
        return self._is_a.get((offset, broader, max_levels), lambda: self._within(offset, broader, max_levels))

    def _within(self, offset: int, broader: int, max_levels: int) -> bool:
        frontier = {offset}
        for _ in range(max_levels + 1):
            if broader in frontier:
                return True
            frontier = {p for o in frontier for p in self.hypernyms(o)}
            if not frontier:
                return False
        return False

    def _synset(self, offset: int) -> tuple[int, tuple[str, ...], tuple[int, ...]]:
        cached = self._synsets.get(offset)
        if cached is None:
            with self._lock:
                end = self._data.find(b"\n", offset)
                line = self._data[offset : end if end >= 0 else len(self._data)]
            cached = self._synsets[offset] = _parse_synset(offset, line)
        return cached


@functools.lru_cache(maxsize=4)
def load(directory: str) -> WordNet | None:
    """The WordNet noun database in ``directory``, shared per process; None where it is not installed."""
    path = Path(directory).expanduser() if directory else None
    if path is None or not (path / "data.noun").is_file() or not (path / "index.noun").is_file():
        return None
    return WordNet(path)


def broader_words(wordnet: WordNet, senses: Sequence[int], min_depth: int) -> list[str]:
    """Lemmas of the broader synsets, nearest first, as people write them; where a name has several possible
    senses, only the words true of all of them."""
    if not senses:
        return []
    common = set.intersection(*(set(wordnet.ancestors(offset, min_depth)) for offset in senses))
    words = [
        lemma
        for parent in wordnet.ancestors(senses[0], min_depth)
        if parent in common
        for lemma in wordnet.lemmas(parent)
    ]
    return list(dict.fromkeys(words))


def class_senses(
    wordnet: WordNet, classes: Sequence[tuple[str, ...]], ordered_by_offset: bool = False
) -> list[tuple[int, ...]]:
    """The possible synsets of each class of a label set whose names are WordNet synonyms, found by them.

    ImageNet-1k orders its classes by WordNet id, that is by synset offset
    (``ordered_by_offset``), so a name used twice ("crane" the bird and the
    machine) keeps only the senses that lie between its neighbours' offsets.
    """
    exact = [_senses(wordnet, names) for names in classes]
    if not ordered_by_offset:
        return exact
    unique = [senses[0] if len(senses) == 1 else None for senses in exact]
    found = []
    for index, senses in enumerate(exact):
        after = next((o for o in reversed(unique[:index]) if o is not None), -1)
        before = next((o for o in unique[index + 1 :] if o is not None), None)
        found.append(tuple(o for o in senses if after < o and (before is None or o < before)) or senses)
    return found


def noun_synset(wordnet: WordNet, phrase: str, preferences: Sequence[Iterable[int]]) -> int | None:
    """The most frequent sense of a noun phrase in the first group of lexicographer files that has one."""
    for group in preferences:
        allowed = set(group)
        for offset in wordnet.senses(phrase):
            if wordnet.lexfile(offset) in allowed and not wordnet.is_proper(offset, phrase):
                return offset
    return None


def _senses(wordnet: WordNet, names: Sequence[str]) -> tuple[int, ...]:
    """Synsets whose lemmas are exactly ``names``, in order, any case."""
    if not names:
        return ()
    wanted = tuple(_key(name) for name in names)
    return tuple(o for o in wordnet.senses(names[0]) if tuple(_key(n) for n in wordnet.lemmas(o)) == wanted)


def _key(lemma: str) -> str:
    return lemma.strip().lower().replace(" ", "_")


def _read_index(path: Path) -> dict[str, tuple[int, ...]]:
    """lemma -> synset offsets from index.noun: ``lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt
    offsets...``."""
    index: dict[str, tuple[int, ...]] = {}
    with path.open("rb") as handle:
        for raw in handle:
            if raw.startswith(b" "):
                continue  # the licence header
            fields = raw.split()
            count = int(fields[2])
            index[fields[0].decode("utf-8", "replace")] = tuple(int(f) for f in fields[len(fields) - count :])
    return index


def _read_exceptions(path: Path) -> dict[str, str]:
    """Irregular inflections from noun.exc (``inflected base``); a missing file means none."""
    if not path.is_file():
        return {}
    pairs = (line.split() for line in path.read_text(encoding="utf-8", errors="replace").splitlines())
    return {fields[0]: fields[1].replace("_", " ") for fields in pairs if len(fields) >= 2}


def _parse_synset(offset: int, line: bytes) -> tuple[int, tuple[str, ...], tuple[int, ...]]:
    """``offset lex_filenum ss_type w_cnt word lex_id ... p_cnt pointer... | gloss`` (w_cnt in hex)."""
    fields = line.split(b" | ", 1)[0].split()
    if not fields or int(fields[0]) != offset:
        raise ValueError(f"data.noun has no synset at byte {offset}")
    lexfile, count = int(fields[1]), int(fields[3], 16)
    lemmas = tuple(_as_written(fields[4 + 2 * i]) for i in range(count))
    at = 4 + 2 * count
    pointers = int(fields[at])
    parents = tuple(
        int(fields[at + 2 + 4 * i])
        for i in range(pointers)
        if fields[at + 1 + 4 * i] in _HYPERNYM_POINTERS and fields[at + 3 + 4 * i] == b"n"
    )
    return lexfile, lemmas, parents


def _as_written(raw: bytes) -> str:
    lemma = raw.decode("utf-8", "replace").replace("_", " ")
    # Adjective-like markers such as "(p)" only occur in adjective files; keep a stray one out anyway.
    return lemma.split("(")[0].strip() if lemma.endswith(")") else lemma
