"""Questions the robot was asked, as against anything said to it.

"Did a visitor ask you about the footbridge?" is answered by a sentence heard that asks something, not by an announcement
that names the footbridge: "Is the footbridge open again?" is evidence, "The footbridge is shut" is not.  A question put to
the robot is known by its question mark (the recogniser punctuates speech) or, without one, by the words it opens
with.  A request ("asked you to move the boxes", "asked for a wheelchair") is not a question: it is said as one
only sometimes.
"""

from __future__ import annotations

import re

# Someone asked something: "asked (you) about / whether / which ...", "enquired about", "wanted to know if".
_ASKED_SOMETHING = re.compile(
    r"\b(?:ask|asks|asked|asking|enquire|enquires|enquired|enquiring|inquire|inquires|inquired|inquiring"
    r"|wanted to know|wants to know|wondered)"
    r"(?: (?:you|me|us|the robot|it|him|her|them))?"
    r"(?: (?:about|after|whether|if|what|which|where|when|who|whom|whose|why|how|something|anything)\b"
    r"| a question\b)"
)
# What was asked, called so: "the visitor's question", "a question about parking", "any enquiries".
_A_QUESTION = re.compile(r"(?<!\bin )\b(?:questions?|enquir(?:y|ies)|inquir(?:y|ies))\b")  # not "the room in question"
# The words a question opens with, where the recogniser gave it no question mark.
_OPENS_A_QUESTION = re.compile(
    r"^(?:(?:excuse me|sorry|hello|hi|hey|robot|please)\W+)*"
    r"(?:(?:do|does|did|is|are|was|were|can|could|will|would|should|shall|may|have|has|had)"
    r" (?:you|i|we|they|it|there|the|this|that|he|she|anyone|anybody|someone)"
    r"|(?:what|which|where|when|who|whom|whose|why|how)\b)",
    re.IGNORECASE,
)


def speaks_of_asking(question: str) -> bool:
    """Whether a question is about something the robot was asked ("has anyone asked you about the footbridge", "when
    did you hear the courier's question"): then only sentences that ask something answer it."""
    lower = question.lower()
    return _ASKED_SOMETHING.search(lower) is not None or _A_QUESTION.search(lower) is not None


def asks_something(sentence: str) -> bool:
    """Whether a sentence heard asks something: it has a question mark, or one of its parts opens as a question
    does."""
    if "?" in sentence:
        return True
    return any(_OPENS_A_QUESTION.match(part.strip()) for part in re.split(r"[.!;]", sentence) if part.strip())
