"""Words that sound alike: what speech recognition may have written for a word that was said.

A recogniser that mishears writes a word of like sound ("sold pins" for "salt bins"), so a question that names
what was said may find none of its words in the transcript.  A key of each word's consonant sounds, in the manner
of Metaphone (voiced and voiceless pairs merged, vowels dropped), finds them: a run of question words whose keys
match, in order, a run of words heard stands for what was said.  A run of two or more words is asked for, or a
single long word with a long key, since short keys match too much by chance.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

# Spellings of one sound, tried in order (digraphs before their letters).
_SPELLINGS = (
    ("^kn", "n"), ("^gn", "n"), ("^pn", "n"), ("^wr", "r"), ("^ps", "s"), ("^wh", "w"),
    ("tch", "S"), ("sch", "sk"), ("ght", "t"), ("ph", "f"), ("ck", "k"), ("sh", "S"), ("ch", "S"), ("th", "0"),
    ("dg", "j"), ("gh", ""), ("c(?=[eiy])", "s"), ("g(?=[eiy])", "j"), ("q", "k"), ("x", "ks"), ("c", "k"),
)  # fmt: skip
# Voiced and voiceless consonants of one place sound alike through a recogniser: one letter for each pair.
_PAIRS = str.maketrans({"b": "p", "d": "t", "g": "k", "v": "f", "z": "s", "j": "S"})
# A single word matches another only with a key this long, and this many letters.
SINGLE_KEY = 4
SINGLE_LETTERS = 6
# ... or, spelled, this much alike over at least this many letters (one or two letters of eight differ).
SPELLED_ALIKE = 0.85
SPELLED_LETTERS = 7


@functools.lru_cache(maxsize=16_384)
def sound_key(word: str) -> str:
    """The consonant sounds of a word, each once where repeated: "drawer" and "door" are both "tr" ("S" is the
    sound of "sh", "ch" and "j"; "0" that of "th")."""
    key = re.sub(r"[^a-z]", "", word.lower())
    if not key:
        return ""
    for spelling, sound in _SPELLINGS:
        key = re.sub(spelling, sound, key)
    first, rest = key[:1], key[1:]
    key = (first if first not in "aeiouy" else "a") + re.sub(r"[aeiouyhw]", "", rest)
    key = key.translate(_PAIRS)
    return re.sub(r"(.)\1+", r"\1", key)


def misheard_as(wanted: Sequence[str], heard: str) -> dict[str, str]:
    """The words of ``heard`` a recogniser may have written for words of ``wanted`` not in it: for each run of two
    or more wanted words whose keys match a run of words heard in order, and for each long word whose long key
    matches a long word heard."""
    words = re.findall(r"[a-z]+", heard.lower())
    keys = [sound_key(w) for w in words]
    found: dict[str, str] = {}
    for start in range(len(wanted) - 1):
        pair = [sound_key(wanted[start]), sound_key(wanted[start + 1])]
        if not all(len(k) >= 2 for k in pair):
            continue
        for at in range(len(words) - 1):
            near = [_near(a, b) for a, b in zip(pair, keys[at : at + 2], strict=True)]
            if all(near) and words[at : at + 2] != list(wanted[start : start + 2]):
                found.setdefault(wanted[start], words[at])
                found.setdefault(wanted[start + 1], words[at + 1])
    for word in wanted:
        key = sound_key(word)
        if word in found or len(key) < SINGLE_KEY or len(word) < SINGLE_LETTERS:
            continue
        match = next((w for w, k in zip(words, keys, strict=True) if k == key and len(w) >= SINGLE_LETTERS), None)
        # ... or one spelled nearly alike, as a name is written from its sound ("Sandqvist" as "Sandquist")
        match = match or next((w for w in words if _spelled_alike(word, w)), None)
        if match is not None and match != word:
            found[word] = match
    return found


def _spelled_alike(a: str, b: str) -> bool:
    return min(len(a), len(b)) >= SPELLED_LETTERS and SequenceMatcher(None, a, b).ratio() >= SPELLED_ALIKE


def _near(a: str, b: str) -> bool:
    """Keys alike but for one sound added or lost at either end ("mlpr" of "Melbury", "mlprs" of "mulberries")."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 2 and len(long) == len(short) + 1 and (long.startswith(short) or long.endswith(short))
