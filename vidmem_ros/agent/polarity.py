"""Whether words read or heard say the opposite of what a question asks about them.

"Is the pool open on Mondays?" of a sign that reads "CLOSED MONDAYS" is answered no: the sign holds a word of
opposite meaning to one the question asks with.  "Are bikes allowed inside?" of "NO BIKES" is answered no too:
the sign negates a word the question asks with.  Words of like meaning ("shut" for "closed") count as said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vidmem_ros.perception.opposites import Opposites
from vidmem_ros.perception.wordnet import WordNet

# Words that negate what follows them, and how many words on they reach.
_NEGATORS = frozenset((
    "no", "not", "never", "nobody", "none", "nothing", "cannot", "can't", "don't", "doesn't", "isn't", "aren't",
    "wasn't", "weren't", "won't", "mustn't", "shouldn't", "didn't", "dont", "cant", "wont",
))  # fmt: skip
_NEGATION_REACH = 2
# Words too common, or too bound to their sentence, to carry the opposition ("in" against "out").
_MIN_LETTERS = 3


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z']*", text.lower())


def negates(text: str) -> bool:
    """Whether a text holds a word that negates ("isn't it open", "a no-smoking sign")."""
    return any(w in _NEGATORS or w.endswith("n't") for w in _words(text))


def _forms(wordnet: WordNet, word: str) -> set[str]:
    """A word as written and in its dictionary forms, as verb and as noun."""
    return {word, wordnet.verb_base(word), wordnet.base_form(word)}


def said_alike(wordnet: WordNet, opposites: Opposites, wanted: str, text: str) -> bool:
    """Whether ``text`` says ``wanted`` in some form or by a word of like meaning ("shut" for "closed")."""
    said = {form for word in _words(text) for form in _forms(wordnet, word)}
    return bool(_forms(wordnet, wanted) & said) or bool(opposites.alike(wanted) & said)


def contradiction(wordnet: WordNet, opposites: Opposites, wanted: Sequence[str], text: str) -> tuple[str, str] | None:
    """(the word asked with, what ``text`` says instead) where ``text`` holds the opposite of a word asked with,
    or negates one; None where it says nothing against them."""
    words = _words(text)
    forms = [_forms(wordnet, w) for w in words]
    said = set().union(*forms) if forms else set()
    asked = [w for w in wanted if len(w) >= _MIN_LETTERS and w not in _NEGATORS]
    for word in asked:
        if _forms(wordnet, word) & said:
            continue
        against = opposites.opposed(word)
        if against & said:
            return word, next(w for w, f in zip(words, forms, strict=True) if f & against)
    for word in asked:  # "NO DOGS": a word asked with, said only after a negation
        mine = _forms(wordnet, word)
        places = [i for i, f in enumerate(forms) if f & mine]
        negated = [i for i in places if any(w in _NEGATORS for w in words[max(0, i - _NEGATION_REACH) : i])]
        if places and len(negated) == len(places):
            i = negated[0]
            start = max(j for j in range(max(0, i - _NEGATION_REACH), i) if words[j] in _NEGATORS)
            return word, " ".join(words[start : i + 1])
    return None
