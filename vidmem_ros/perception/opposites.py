"""Words of like and opposite meaning, from WordNet 3.0's adjectives and verbs (``data.adj``, ``data.verb``).

A sign that says "CLOSED" answers "is it open?" with no; one that says "shut" answers "was it closed?" with yes.
WordNet links both: an adjective or verb synset lists its synonyms, and its antonym pointers ("!") name the
synset of opposite meaning; a satellite adjective ("ajar") points ("&") to the head of its cluster ("open"),
whose antonym it shares.  Words formed with a negative prefix ("unlocked", "disallowed") are the opposite of the
word they are formed from, where WordNet knows both.
"""

from __future__ import annotations

import functools
import mmap
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vidmem_ros.perception.wordnet import WordNet

# The senses of a word looked at: its most frequent few, so that a rare sense ("open" as exposed) does not make
# everyday words opposites.
SENSES = 3
_NEGATIVE_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")
_ANTONYM, _SIMILAR = b"!", b"&"


@dataclass(frozen=True)
class _Synset:
    satellite: bool
    lemmas: tuple[str, ...]
    antonyms: tuple[int, ...]  # synsets of opposite meaning
    similar: tuple[int, ...]  # for a satellite, the head of its cluster


class _PartOfSpeech:
    """One part of speech's index and data file, synsets read on demand at their byte offsets."""

    def __init__(self, directory: Path, name: str) -> None:
        self._index: dict[str, tuple[int, ...]] = {}
        self._data: mmap.mmap | None = None
        self._lock = threading.Lock()
        self._cache: dict[int, _Synset] = {}
        index, data = directory / f"index.{name}", directory / f"data.{name}"
        if not index.is_file() or not data.is_file():
            return
        with index.open("rb") as handle:
            for raw in handle:
                if not raw.startswith(b" "):  # the licence header is indented
                    fields = raw.split()
                    count = int(fields[2])
                    self._index[fields[0].decode("utf-8", "replace")] = tuple(int(f) for f in fields[-count:])
        with data.open("rb") as handle:
            self._data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)

    def senses(self, lemma: str) -> tuple[int, ...]:
        return self._index.get(lemma, ())[:SENSES]

    def count(self, lemma: str) -> int:
        return len(self._index.get(lemma, ()))

    def synset(self, offset: int) -> _Synset:
        cached = self._cache.get(offset)
        if cached is None and self._data is not None:
            with self._lock:
                end = self._data.find(b"\n", offset)
                line = self._data[offset : end if end >= 0 else len(self._data)]
            cached = self._cache[offset] = _parse(line)
        return cached or _Synset(False, (), (), ())


def _parse(line: bytes) -> _Synset:
    """``offset lex_filenum ss_type w_cnt word lex_id ... p_cnt [symbol offset pos source/target]... | gloss``."""
    fields = line.split(b" | ", 1)[0].split()
    count = int(fields[3], 16)
    lemmas = tuple(fields[4 + 2 * i].decode("utf-8", "replace").split("(")[0].lower() for i in range(count))
    at = 4 + 2 * count
    pointers = [fields[at + 1 + 4 * i : at + 5 + 4 * i] for i in range(int(fields[at]))]
    return _Synset(
        fields[2] == b"s",
        lemmas,
        tuple(int(p[1]) for p in pointers if p[0] == _ANTONYM),
        tuple(int(p[1]) for p in pointers if p[0] == _SIMILAR),
    )


class Opposites:
    """Like and opposite words of adjectives and verbs, each given in its dictionary form or as written."""

    def __init__(self, wordnet: WordNet) -> None:
        self._wordnet = wordnet
        self._parts = (_PartOfSpeech(wordnet.directory, "adj"), _PartOfSpeech(wordnet.directory, "verb"))

    def _forms(self, word: str) -> tuple[str, str]:
        key = word.lower().strip().replace(" ", "_")
        return key, self._wordnet.verb_base(key)

    def _synsets(self, word: str) -> list[tuple[_PartOfSpeech, _Synset]]:
        adjective, verb = self._parts
        adj_form, verb_form = self._forms(word)
        found = [(adjective, adjective.synset(o)) for o in adjective.senses(adj_form)]
        return found + [(verb, verb.synset(o)) for o in verb.senses(verb_form)]

    def alike(self, word: str) -> frozenset[str]:
        """The word's synonyms among its commoner adjective and verb senses ("shut" for "closed")."""
        return frozenset(lemma for _, synset in self._synsets(word) for lemma in synset.lemmas) | {word.lower()}

    def opposed(self, word: str) -> frozenset[str]:
        """Words of opposite meaning: the antonyms of its commoner senses (of its cluster's head, for a
        satellite), with their synonyms; and the word it negates by a prefix, or that negates it."""
        found: set[str] = set()
        for part, synset in self._synsets(word):
            heads = [synset] + [part.synset(h) for h in synset.similar if synset.satellite]
            for head in heads:
                for antonym in head.antonyms:
                    found.update(part.synset(antonym).lemmas)
        return frozenset(found | self._prefixed(word))

    def adjective_senses(self, word: str) -> int:
        """How many senses WordNet gives a word as an adjective (0 for none)."""
        return self._parts[0].count(word.lower().strip().replace(" ", "_"))

    def _prefixed(self, word: str) -> set[str]:
        """ "unlocked" and "locked", "disallowed" and "allowed": a negative prefix on a word WordNet knows."""
        key = word.lower()
        found = {key[len(p) :] for p in _NEGATIVE_PREFIXES if key.startswith(p) and self._known(key[len(p) :])}
        found |= {p + key for p in _NEGATIVE_PREFIXES if self._known(p + key)}
        return found

    def _known(self, word: str) -> bool:
        adjective, verb = self._parts
        adj_form, verb_form = self._forms(word)
        return len(word) > 2 and bool(adjective.senses(adj_form) or verb.senses(verb_form))


@functools.lru_cache(maxsize=4)
def opposites_of(wordnet: WordNet) -> Opposites:
    """One reader per WordNet, shared per process (its index is read once)."""
    return Opposites(wordnet)


@functools.lru_cache(maxsize=4)  # one counter per WordNet, so what is cached by it stays cached
def dictionary_senses(wordnet: WordNet) -> Callable[[str], int]:
    """How many senses WordNet gives a word as a noun, an adjective or (counted as two) a verb: 0 for a word it
    lacks, more for a commoner one."""
    adjectives = opposites_of(wordnet)

    def senses(word: str) -> int:
        verb = 2 if wordnet.is_verb(word) else 0
        return len(wordnet.senses(wordnet.base_form(word))) + verb + adjectives.adjective_senses(word)

    return senses
