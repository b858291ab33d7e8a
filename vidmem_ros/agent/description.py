"""What a description of a thing says about it: the words naming it and how many of it there were.

People describe what they saw in a noun phrase that may go on to place it ("books on a shelf"), say what it
was doing ("three children flying a kite", "a man holding a cup") or qualify it ("the dog that barked").  The
thing itself is the phrase before any of that, and a number in front of it ("two people", "a pair of
dogs") asks for frames showing at least that many.
"""

from __future__ import annotations

import re

# Cardinal numbers as words, for "two people" (a number written in digits is read as such).
CARDINALS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a pair of": 2,
    "a couple of": 2,
    "a dozen": 12,
}
# Prepositions that place a thing (not "with": "children playing with a kite" are about the kite too).
_PREPOSITION = re.compile(r"\b(?:on|in|at|near|by|under|over|behind|beside|next to|of|from|inside|outside)\b")
# What a thing had with it or on it ("the car with its lights on", "a man with a dog"): not the thing.
_WITH = re.compile(r"\b(?:with|without)\b")
# A relative clause says more about the thing named before it.
_RELATIVE = re.compile(r"\b(?:that|who|which|whose|where)\b")
# Words that open a noun phrase or place one: an -ing word before one of them is a verb ("children flying a
# kite"), while one before a noun is a modifier ("a sleeping cat", "the ceiling fan").
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "his",
        "her",
        "their",
        "its",
        "my",
        "our",
        "your",
        "some",
        "any",
        "each",
        "every",
        "one",
        "two",
        "three",
        "four",
        "with",
        "on",
        "in",
        "at",
        "near",
        "by",
        "under",
        "over",
        "behind",
        "beside",
        "of",
        "from",
        "into",
        "onto",
        "to",
        "up",
        "down",
        "around",
        "across",
        "through",
    ]
)
_OPENERS = frozenset(["a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every"])


def head_words(phrase: str) -> str:
    """The words a description is about: before any phrase that places it ("books" of "books on a shelf"), any
    relative clause, and any participle saying what the thing did ("three children" of "three children flying a
    kite")."""
    rest = without_count(phrase.strip())
    number = phrase.strip()[: len(phrase.strip()) - len(rest)]  # "a pair of" is not a phrase placing the thing
    head = _PREPOSITION.split(rest, maxsplit=1)[0]
    head = _RELATIVE.split(head, maxsplit=1)[0]
    # ... after the participle, whose own object "with" may open ("people playing with a ball")
    head = _WITH.split(_before_participle(head), maxsplit=1)[0]
    return (number + head.strip()).strip() or phrase.strip()


def description_rest(phrase: str) -> str:
    """What a description says beyond the thing it names ("flying a kite" of "three children flying a kite"),
    leaving out phrases that place it (a shelf that books were on is not seen with them in every frame)."""
    rest = after_head(phrase)
    return "" if not rest or _PREPOSITION.match(rest) else rest


def after_head(phrase: str) -> str:
    """Everything a description says after the thing it names: "at the front desk" of "the person at the front
    desk", "flying a kite" of "children flying a kite"."""
    head = head_words(phrase)
    return phrase.strip()[len(head) :].strip() if phrase.strip().startswith(head) else ""


def held_in(phrase: str) -> list[str]:
    """What a participle before the thing says it was in or on, as the noun it was made from: "cage" of "a caged
    parrot", "box" of "a boxed kettle", "jar" of "jarred honey".  A model that missed the thing may have named
    that instead.  Every spelling the -ed may have come from is given (a search for one that is no word finds
    nothing)."""
    words = head_words(phrase).lower().split()
    found: list[str] = []
    for word in words[:-1]:
        if len(word) > 4 and word.endswith("ed"):
            stem = word[:-2]
            found += [stem, stem + "e"] + ([stem[:-1]] if stem[-1] == stem[-2] else [])
    return found


def wanted_count(phrase: str) -> int:
    """How many of the thing a description asks to see at once: 2 for "two people", 1 without a number."""
    return _count_prefix(head_words(phrase).split())[0]


def without_count(phrase: str) -> str:
    """The description with any leading number dropped ("two people" -> "people")."""
    words = phrase.split()
    size = _count_prefix(words)[1]
    return " ".join(words[size:]) or phrase if size else phrase


def _count_prefix(words: list[str]) -> tuple[int, int]:
    """The number a description opens with and how many of its words say it: (2, 3) for "a pair of swans",
    (4, 1) for "4 trucks", (1, 0) without one."""
    for size in (3, 2, 1):
        if len(words) >= size and " ".join(words[:size]).lower() in CARDINALS:
            return CARDINALS[" ".join(words[:size]).lower()], size
    if words and words[0].isdigit():
        return max(1, min(int(words[0]), 100)), 1
    return 1, 0


def _before_participle(phrase: str) -> str:
    words = phrase.split()
    for i in range(1, len(words)):
        word, before = words[i].lower(), words[i - 1].lower()
        if not word.endswith("ing") or len(word) <= 5 or before in _OPENERS:
            continue
        # Only before a function word: at the end of a phrase the -ing word is as often a noun ("the old building").
        if i + 1 < len(words) and words[i + 1].lower() in _FUNCTION_WORDS:
            return " ".join(words[:i])
    return phrase
