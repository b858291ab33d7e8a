"""Words that text recognition ran together, set apart again for reading out.

OCR of a small or tightly set sign often drops the spaces: "FARE2.40", "askAtTheDesk", "PLATFORMCLOSED",
"Keepyourticketwithyou".  A quoted value reads better and matches the words a person uses once they are apart: a
space goes where the case turns from lower to upper, between a run of letters and a number, and between
dictionary words run together (the split that covers the whole run with the fewest, longest words).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

# The closed classes of English, which no noun or verb dictionary lists: they join the words of a sign.
FUNCTION_WORDS = frozenset((
    "a", "an", "the", "and", "or", "but", "nor", "if", "then", "than", "so", "as", "at", "by", "for", "from", "in",
    "into", "of", "off", "on", "onto", "out", "over", "to", "up", "with", "within", "without", "via", "per",
    "about", "above", "after", "against", "along", "among", "around", "before", "behind", "below", "beneath",
    "beside", "besides", "between", "beyond", "during", "except", "inside", "near", "outside", "past", "since",
    "through", "throughout", "till", "until", "under", "upon", "toward", "towards", "i", "me", "my", "we", "us",
    "our", "you", "your", "he", "him", "his", "she", "her", "it", "its", "they", "them", "their", "this", "that",
    "these", "those", "who", "whom", "whose", "which", "what", "when", "where", "why", "how", "all", "any", "each",
    "every", "no", "not", "some", "such", "only", "own", "same", "too", "very", "can", "will", "just", "should",
    "now", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "have", "has", "had",
    "may", "might", "must", "shall", "would", "could", "please",
))  # fmt: skip
# Below this many letters a run is left as it is: short words run together are rare, and short names common.
MIN_RUN = 7
_CASE_TURN = re.compile(r"(?<=[A-Za-z][a-z])(?=[A-Z])")  # not "iPhone"
# Only words in capitals are set apart from a number: in lower case, letters and digits together are more often a
# password or a code ("heron4417") than a sign's words run together ("FARE2.40", "MONDAY08:00").
_LETTERS_THEN_NUMBER = re.compile(r"(?<=[A-Z]{2})(?=\d)|(?<=[A-Za-z]{2})(?=\d{1,2}:\d{2}\b)")  # or a clock time
_NUMBER_THEN_LETTERS = re.compile(r"(?<=\d)(?=[A-Z]{2})")
# A unit of measure in lower case, written against its number ("2.3m", "3.5t", "30mph"): set apart, as spoken.
_NUMBER_THEN_UNIT = re.compile(r"(?<=\d)(?=(?:mm|cm|km|m|kg|g|t|ml|l|s|min|mins|h|hr|hrs|kw|kwh|mph|kph)\b)")
# A pound sign read as the letter f before an amount of money ("Tea f1.90"): no word is spelt that way.
_POUND_AS_F = re.compile(r"(?<![A-Za-z0-9])f(?=\d{1,4}[.,]\d{2}(?!\d))")
# A zero before a word is the letter O misread ("0konjo"): no number starts a word that way.
_LEADING_ZERO = re.compile(r"(?<![\w.:,])0(?=[A-Za-z]{3})")


@functools.lru_cache(maxsize=16_384)  # a sign is grounded again by every question that reads it
def readable(text: str, senses: Callable[[str], int]) -> str:
    """``text`` with the words OCR ran together set apart; words it holds apart stay as they are.  ``senses``:
    how many senses the dictionary gives a word (0 for none), which tells a common word from a rare one."""
    text = _LEADING_ZERO.sub("O", text)  # a word that starts with it is most often a name, capitalised
    text = _POUND_AS_F.sub("£", text)
    text = _MISREAD.sub(lambda m: _as_letters(m[0], senses), text)
    text = _NUMBER_THEN_LETTERS.sub(" ", _LETTERS_THEN_NUMBER.sub(" ", _CASE_TURN.sub(" ", text)))
    text = _NUMBER_THEN_UNIT.sub(" ", text)
    out, at, before = [], 0, ""
    for m in re.finditer(r"[A-Za-z]+", text):
        before = before if text[at : m.start()].strip(" .") == "" else ""  # a name goes on only in its own phrase
        named = before.lower() in _TITLES or (before[:1].isupper() and len(before) >= 3 and not senses(before.lower()))
        word = m[0] if named else _apart(m[0], senses)  # a surname stays whole
        out += [text[at : m.start()], word]
        at, before = m.end(), word.split()[-1]
    return "".join([*out, text[at:]])


# Words that come before a name.
_TITLES = frozenset(("dr", "mr", "mrs", "ms", "miss", "prof", "professor", "doctor", "sir", "dame", "rev"))


# Digits OCR reads for letters of like shape, inside a run of letters ("B0ATH0USE" for "BOATHOUSE").
_MISREAD = re.compile(r"[A-Za-z015]*[A-Za-z][015]+[A-Za-z][A-Za-z015]*")
_LETTER_FOR = str.maketrans("015", "OIS")


def _as_letters(run: str, senses: Callable[[str], int]) -> str:
    """A run with digits read for letters, where the letters make a dictionary word (or words run together)."""
    letters = run.translate(_LETTER_FOR)
    letters = letters if sum(c.isupper() for c in run) > sum(c.islower() for c in run) else letters.lower()
    lower = letters.lower()
    known = senses(lower) > 0 or _split(lower, _commonness(senses)) is not None
    return letters if known else run


def _apart(run: str, senses: Callable[[str], int]) -> str:
    """A run of letters as the dictionary words it is made of, in its own case; the run itself where it is one
    word, too short, or not wholly made of words."""
    lower = run.lower()
    if len(run) < MIN_RUN or senses(lower):
        return run
    pieces = _split(lower, _commonness(senses))
    # A run in capitals is a sign's words; another may be a name or a word the dictionary lacks ("Shoeshine"),
    # which splits into two words by chance far more often than into a phrase of three.
    if pieces is None or len(pieces) < (2 if run.isupper() else 3):
        return run
    if len(pieces[0]) == 1 or len(pieces[-1]) == 1:  # "ARABICA" is no "ARABIC A": "a" joins words, never ends one
        return run
    return " ".join(_in_case_of(run, pieces))


def words_of_run(run: str, senses: Callable[[str], int]) -> list[str]:
    """The dictionary words a run of letters could be made of, however few, in its own case ("Mondayclosed":
    "Monday", "closed"), for a reader that has other evidence it is words, not a name; [] where it is none."""
    pieces = _split(run.lower(), _commonness(senses)) if len(run) >= MIN_RUN else None
    return _in_case_of(run, pieces) if pieces else []


def _in_case_of(run: str, pieces: list[str]) -> list[str]:
    """The pieces a run of letters was split into, as the run writes them."""
    out, at = [], 0
    for piece in pieces:
        out.append(run[at : at + len(piece)])
        at += len(piece)
    return out


# A word this common or more counts as common as any: rank splits by their pieces' commonness up to it.
COMMON_SENSES = 5


@functools.lru_cache(maxsize=4)  # one per dictionary: its cache of words outlives a call
def _commonness(senses: Callable[[str], int]) -> Callable[[str], int]:
    @functools.lru_cache(maxsize=4096)
    def common(word: str) -> int:
        if word in FUNCTION_WORDS:
            return COMMON_SENSES
        return min(senses(word), COMMON_SENSES) if len(word) >= 3 else 0

    return common


def _split(run: str, common: Callable[[str], int]) -> list[str] | None:
    """The split of ``run`` into known words with the fewest pieces, the commonest of those ("a number", not "an
    umber"; "tickets now", not "ticket snow"); None if there is none."""
    best: list[list[str] | None] = [[]] + [None] * len(run)
    for end in range(1, len(run) + 1):
        for start in range(max(0, end - 24), end):
            head = best[start]
            if head is not None and common(run[start:end]):
                candidate = [*head, run[start:end]]
                current = best[end]
                if current is None or _rank(candidate, common) < _rank(current, common):
                    best[end] = candidate
    return best[len(run)]


def _rank(pieces: list[str], common: Callable[[str], int]) -> tuple[int, int, int]:
    """Fewest pieces, then the commonest, then the longest first word ("tickets now", not "ticket snow")."""
    return len(pieces), -sum(common(p) for p in pieces), -len(pieces[0])
