"""Questions asked indirectly, as the direct question inside them.

"Tell me where you heard about the delivery", "I'd like to know if there was a fox on your route", "could you
check whether anyone mentioned the boiler": a request or a wish to know wraps an embedded question, whose subject
and verb stand in the order of a statement.  Every reader of a question knows the direct form ("where did you hear
about the delivery?", "was there a fox on your route?"), so the embedded question is said that way before
anything reads it: the request is dropped, an auxiliary goes before the subject, and a past or present verb
becomes "did" / "does" with the verb's dictionary form (from the WordNet the caller reads words with; without
it, the regular past only).  What a question
quotes keeps its case.
"""

from __future__ import annotations

import re

from vidmem_ros.perception.wordnet import WordNet

_WH = r"(?:where|when|what|which|who|whom|whose|why|how|whether|if)\b"
# A request or a wish to know, before the embedded question.
_LEAD_IN = re.compile(
    r"^(?:please,? )?(?:"
    r"(?:can|could|would|will) you (?:please )?(?:tell|show|remind|let) me(?: know)?"
    r"|(?:can|could|would|will) you (?:please )?(?:check|find out|say|see|work out|confirm)"
    r"|(?:(?:can|could|would|will) you (?:please )?)?count(?: up)?(?: for me)?"
    r"|(?:please )?(?:tell|show|remind) me|let me know|find out|check"
    r"|i(?:'d| would) (?:like|love) to know|i (?:want|need|wish) to know|i(?:'m| am) wondering|i wonder"
    r"|do you (?:happen to )?(?:know|remember|recall)|(?:(?:do you have|have you got|have you) )?any idea"
    r"|(?:at )?what (?:time|hour) (?:was it|was that|did it happen)|what was the time"  # "... when you set off"
    rf")[,:]?\s+(?={_WH})",
    re.IGNORECASE,
)
_AUXILIARIES = frozenset(
    re.findall(r"\w+", "was were is are am had has have did does do can could will would should shall might may must")
)
_SUBJECT = (
    r"you|the robot|it|we|they|he|she|there|some(?:one|body)|any(?:one|body)|every(?:one|body)|no(?:one|body)"
    r"|(?:the|a|an|that|this|those|these|your|its|any|some|our) [\w'-]+(?: [\w'-]+){0,3}?"
)
# Adverbs that stand between a subject and its verb ("when you first saw it").
_ADVERBS = r"first|last|ever|already|just|actually|really|still|most recently|again|also|finally|previously|earlier"
# The embedded question: its question phrase (with the words it asks of: "how many spoken messages"), its
# subject, its first verb and the rest.
_EMBEDDED = re.compile(
    r"^(?P<wh>whether|if|(?:at |in |on |for )?(?:what|which|whose)(?: [\w'-]+){0,5}?|where|when|why|who|whom"
    r"|how(?: (?:long|many|much|often|far|soon|come))?(?: [\w'-]+){0,5}?)"
    rf"\s+(?P<subject>{_SUBJECT})\s+(?P<adverb>(?:{_ADVERBS})\s+)?(?P<verb>[\w']+)(?P<rest>\b.*)$",
    re.IGNORECASE,
)
# "Do you remember seeing a fox": whether it happened.
_RECALLED = re.compile(r"^(?:do you (?:remember|recall)|can you remember)\s+(?P<verb>\w+ing)\b", re.IGNORECASE)


def direct_question(question: str, wordnet: WordNet | None = None) -> str:
    """The question in its direct form where it was asked indirectly; otherwise the question as asked."""
    text = question.strip()
    recalled = _RECALLED.match(text)
    if recalled:
        return f"did you {_base(recalled['verb'], wordnet)}{text[recalled.end() :]}"
    lead = _LEAD_IN.match(text)
    if lead is None:
        return question
    embedded = text[lead.end() :]
    match = _EMBEDDED.match(embedded)
    if match is None:
        return _asked(embedded)  # the question word is its subject ("what was said"): in the order of asking
    wh, subject, verb, rest = match["wh"], match["subject"], match["verb"], match["rest"]
    adverb = match["adverb"] or ""
    asked = "" if wh.lower() in ("whether", "if") else f"{wh} "
    if verb.lower() in _AUXILIARIES:
        return _asked(f"{asked}{verb} {subject} {adverb}{rest.lstrip()}")
    base = _base(verb, wordnet)
    if base == verb.lower() and not (wordnet is not None and wordnet.is_verb(base)):
        return _asked(embedded)  # no verb after the subject: the clause as it was
    does = "does" if _present(verb, base) else "did"
    return _asked(f"{asked}{does} {subject} {adverb}{base}{rest}")


def _asked(clause: str) -> str:
    return clause.rstrip(" .!?") + "?"


def _present(verb: str, base: str) -> bool:
    """Whether a verb is its present tense ("starts", "goes", "carries"), not a past form."""
    lower, base = verb.lower(), base.lower()
    return lower != base and (lower in (base + "s", base + "es") or (lower.endswith("ies") and base.endswith("y")))


def _base(verb: str, wordnet: WordNet | None) -> str:
    lower = verb.lower()
    if wordnet is not None:
        return wordnet.verb_base(lower)
    return lower[:-2] if lower.endswith("ed") and len(lower) > 4 else lower  # the regular past only
