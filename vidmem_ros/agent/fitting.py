"""The offline planner's own arguments fitted to each tool's limits.

A question may name a thing in 117 characters where a tool takes 80: that is
no reason to fail the question.  Phrases keep their last words (an English noun
phrase ends in its head noun: "the big old blue cup"), prose keeps its start.
"""

from __future__ import annotations

from typing import Any

from annotated_types import MaxLen
from pydantic import BaseModel

ELLIPSIS = "…"


def fit_to_schema(model: type[BaseModel], args: dict[str, Any], prose: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``args`` with every string and list cut to its field's max_length; fields in ``prose`` keep their start."""
    fitted = dict(args)
    for name, value in args.items():
        info = model.model_fields.get(name)
        limit = next((m.max_length for m in info.metadata if isinstance(m, MaxLen)), None) if info else None
        if limit is None or not isinstance(value, str | list) or len(value) <= limit:
            continue
        if isinstance(value, list):
            fitted[name] = value[:limit]
        else:
            fitted[name] = shorten_prose(value, limit) if name in prose else shorten_phrase(value, limit)
    return fitted


def shorten_phrase(phrase: str, limit: int) -> str:
    """Repeated words dropped, then the last whole words that fit."""
    words = list(dict.fromkeys(phrase.split()))
    kept: list[str] = []
    for word in reversed(words):
        if len(" ".join([word, *kept])) > limit:
            break
        kept.insert(0, word)
    return " ".join(kept) if kept else phrase[-limit:]


def shorten_prose(text: str, limit: int) -> str:
    """The start of the text, cut at a word boundary, with an ellipsis."""
    cut = text[: limit - len(ELLIPSIS)]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + ELLIPSIS
