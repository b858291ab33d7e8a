"""Parsing a plain-language question into an intent and a target."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from vidmem_ros.errors import InputError


class Intent(str, Enum):
    DID = "did"  # did you see X?
    FIRST = "first"  # when did you first see X?
    LAST = "last"  # when did you last see X?
    WHERE = "where"  # where did you see X?


@dataclass(frozen=True)
class ParsedQuestion:
    text: str
    intent: Intent
    target: str


_SEE = r"(?:see|seen|saw|spot|spotted|notice|noticed|observe|observed|encounter|encountered)"
_PATTERNS: list[tuple[Intent, re.Pattern[str]]] = [
    (Intent.FIRST, re.compile(rf"^when (?:did|have) you first {_SEE} (?P<t>.+)$")),
    (Intent.FIRST, re.compile(rf"^when was the first time you {_SEE} (?P<t>.+)$")),
    (Intent.LAST, re.compile(rf"^when (?:did|have) you (?:last|most recently) {_SEE} (?P<t>.+)$")),
    (Intent.LAST, re.compile(rf"^when was the last time you {_SEE} (?P<t>.+)$")),
    (Intent.LAST, re.compile(rf"^when did you {_SEE} (?P<t>.+)$")),
    (Intent.WHERE, re.compile(rf"^where (?:did|have) you (?:last |first )?{_SEE} (?P<t>.+)$")),
    (Intent.WHERE, re.compile(r"^where (?:is|was|were|are) (?P<t>.+)$")),
    (Intent.DID, re.compile(rf"^(?:did|have) you (?:ever |already )?{_SEE} (?P<t>.+)$")),
    (Intent.DID, re.compile(r"^(?:is|was|were|are) there (?P<t>.+)$")),
]
_FILLER = re.compile(r"^(?:any|an|a|the|some|one|my|your)\s+")
_TRAILING = re.compile(r"\s+(?:anywhere|at all|today|ever|so far|before|yet|here|there)$")


def validate_question(text: str, max_chars: int) -> str:
    stripped = text.strip()
    if not stripped:
        raise InputError("empty_question", "the question is empty")
    if len(stripped) > max_chars:
        raise InputError("question_too_long", f"the question has {len(stripped)} characters; the limit is {max_chars}")
    return stripped


def parse_question(text: str) -> ParsedQuestion | None:
    """Return the intent and target of a supported question, or None."""
    normal = re.sub(r"\s+", " ", text.lower()).strip().rstrip("?.! ")
    for intent, pattern in _PATTERNS:
        match = pattern.match(normal)
        if match:
            target = _clean_target(match.group("t"))
            if target:
                return ParsedQuestion(text, intent, target)
    return None


def _clean_target(target: str) -> str:
    previous = None
    while previous != target:
        previous = target
        target = _TRAILING.sub("", _FILLER.sub("", target.strip())).strip()
    return target
