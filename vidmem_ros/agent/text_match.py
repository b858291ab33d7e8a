"""Matching the words of a question against words read or written: containment ignoring spaces and case, the
longest shared run, and the share of a question's content words a text covers."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from difflib import SequenceMatcher

from vidmem_ros.agent.question import content_words
from vidmem_ros.spoken_numbers import NUMBER_WORDS, number_at, number_tokens


def squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def text_match(wanted: str, read: str) -> float:
    """How well words read match the words asked about: 1 when contained (spaces and case ignored); 0 where the
    words asked about name a number the words read do not ("ROOM 19" is not room 1)."""
    a, b = squash(wanted), squash(read)
    if not a or not b or not holds_numbers(read, re.findall(r"\d+", wanted)):
        return 0.0
    if a in b:
        return 1.0
    if len(b) >= 4 and b in a:
        return len(b) / len(a)
    best = SequenceMatcher(None, a, b).find_longest_match(0, len(a), 0, len(b)).size
    return float(best / len(a)) if best >= 4 else 0.0


# A reading this much like a sign's longest reading is that sign, clipped or misread at an edge.
SAME_SIGN = 0.8
# Fewer letters than this tell no sign from another.
SIGN_MIN_LETTERS = 4


def distinct_signs(readings: Sequence[str]) -> list[str]:
    """The different signs among readings, each named by its longest reading: a reading held in another, or
    matching it but for a letter or two at an edge ("UTHORIZED ..." of "AUTHORIZED ..."), is that one."""
    counts = Counter(readings)
    signs: list[str] = []
    # The longest first; among equals the most often read, then the one with its spaces ("FIRE EXIT").
    for reading in sorted(counts, key=lambda r: (-len(squash(r)), -counts[r], -len(r))):
        if len(squash(reading)) >= SIGN_MIN_LETTERS and all(text_match(reading, s) < SAME_SIGN for s in signs):
            signs.append(reading)
    return signs


def named_numbers(description: str) -> list[str]:
    """The numbers a description names a thing by, with the word that names it ("tank 14" of "the wine in tank
    14"), said in digits or in words ("tank fourteen")."""
    return [f"{word} {number}" for word, number in _named_by(number_tokens(description), _whole_number)]


def identifiers(description: str) -> list[str]:
    """The numbers a description names a thing by: those after a word ("room 3", "gate 12", "C-318"), not a count
    before one ("2 dogs", "the 3 boxes")."""
    tokens = re.findall(r"[a-z]+|\d+", description.lower())
    return [number for _, number in _named_by(tokens, lambda tokens, i: tokens[i] if tokens[i].isdigit() else None)]


def _named_by(tokens: Sequence[str], number: Callable[[Sequence[str], int], str | None]) -> list[tuple[str, str]]:
    """Each number (as ``number`` reads one starting at a token) with the word before it that names a thing by it;
    the second word of a number said in words ("twenty one") is named by no word."""
    named = []
    for i in range(1, len(tokens)):
        value, word = number(tokens, i), tokens[i - 1]
        if value is None or not word.isalpha() or word in _NOT_NAMING:
            continue
        if word in NUMBER_WORDS and not tokens[i].isdigit():
            continue
        named.append((word, value))
    return named


def _whole_number(tokens: Sequence[str], i: int) -> str | None:
    value, _ = number_at(tokens, i)  # "fourteen" as 14
    return str(int(value)) if value is not None and value == int(value) else None


# Words a number follows without naming a thing by it: determiners, quantities, times, verbs.
_NOT_NAMING = frozenset(
    re.findall(
        r"[a-z]+",
        """the a an these those all about around only just over under than of to at for by with and or in on from past
    until till after before every each any some saw see seen read heard last first next another other more less
    least most nearly almost roughly exactly beside besides near behind under above below between into onto inside
    outside across along through against toward towards opposite like per via without within is was were are be
    been am have has had do did does there here it its you your we our they their about""",
    )
)


def holds_numbers(text: str, numbers: Sequence[str]) -> bool:
    """Whether a text holds each number as a whole number ("LEVEL2" holds 2, "ROOM 19" does not hold 1)."""
    held = {n.lstrip("0") or "0" for n in re.findall(r"\d+", text)}
    return all((n.lstrip("0") or "0") in held for n in numbers)


def words_covered(query: str, text: str, forms: Mapping[str, str] | None = None) -> float:
    """Share of the query's content words (or their stems, or the other ``forms`` given for them: "buy" for
    "bought") that appear in ``text``."""
    wanted = content_words(query)
    if not wanted:
        return 1.0
    have = squash(text)
    forms = forms or {}
    return sum(_held(w, have) or (w in forms and _held(forms[w], have)) for w in wanted) / len(wanted)


def _held(word: str, squashed: str) -> bool:
    """Whether a word is in a squashed text in some form ("parties" in "party" as well as in "parties")."""
    if stem(word) in squashed:
        return True
    if word.endswith("ies"):
        return f"{word[:-3]}y" in squashed
    plural = plural_stem(word)
    return bool(plural) and plural in squashed  # "party" in "parties"


def plural_stem(word: str) -> str:
    """What the plural of a word ending in a consonant and "y" begins with ("partie" of "party"), else ""."""
    return f"{word[:-1]}ie" if re.search(r"[^aeiou]y$", word) else ""


def stem(word: str) -> str:
    """What a word's forms share, to be found inside a text: "stay" of "staying" and "stays", "clos" of
    "closed"; never under four letters (shorter ones turn up inside unrelated words), and never less than a word
    without an ending ("flood" is not "floor")."""
    if len(word) > 6 and word.endswith("ing"):
        base = word[:-3]
        base = base[:-1] if base[-1] == base[-2] else base  # "stopping" -> "stop"
        if len(base) >= 4:
            return base
    for ending, cut in _INFLECTIONS:
        if word.endswith(ending) and not word.endswith("ss"):
            base = word[: len(word) - cut]
            return base if len(base) >= 4 else word[:4]
    return word  # no ending to take off: the whole word ("flood" is not in "floor")


# Endings a word's other forms do not share, and how much of each to take off ("closed", "close": "clos"; "parties":
# "parti", never "part", which "partner" holds).
_INFLECTIONS = (("ies", 2), ("es", 2), ("ed", 2), ("s", 1), ("e", 1))
