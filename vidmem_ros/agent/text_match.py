"""Matching the words of a question against words read or written: containment ignoring spaces and case, the
longest shared run, and the share of a question's content words a text covers."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from vidmem_ros.agent.question import content_words


def squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def text_match(wanted: str, read: str) -> float:
    """How well words read match the words asked about: 1 when contained (spaces and case ignored)."""
    a, b = squash(wanted), squash(read)
    if not a or not b:
        return 0.0
    if a in b:
        return 1.0
    if len(b) >= 4 and b in a:
        return len(b) / len(a)
    best = SequenceMatcher(None, a, b).find_longest_match(0, len(a), 0, len(b)).size
    return float(best / len(a)) if best >= 4 else 0.0


def words_covered(query: str, text: str) -> float:
    """Share of the query's content words (or their stems) that appear in ``text``."""
    wanted = content_words(query)
    if not wanted:
        return 1.0
    have = squash(text)
    return sum(stem(w) in have for w in wanted) / len(wanted)


def stem(word: str) -> str:
    """What a word's forms share, to be found inside a text: "stay" of "staying" and "stays", "clos" of
    "closed"; never under four letters (shorter ones turn up inside unrelated words)."""
    if len(word) > 6 and word.endswith("ing"):
        base = word[:-3]
        base = base[:-1] if base[-1] == base[-2] else base  # "stopping" -> "stop"
        if len(base) >= 4:
            return base
    return word[: max(4, len(word) - 2)]
