"""Open-vocabulary requests on a closed-set model: words a person uses mapped onto the labels it reports.

A request maps to the vocabulary labels whose sentence embeddings are close
to its own ("mug" -> cup, "sofa" -> couch); one no label is close to is
*uncovered* ("screwdriver" for a COCO detector), so a caller can say the
robot cannot look for it instead of answering "not seen".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from vidmem_ros.perception.embedding import TextEmbedder

# Tuned with all-MiniLM-L6-v2 on COCO's labels and the template below: synonyms scored 0.81-0.95
# (mug 0.81, sofa 0.90, motorbike 0.86, kitty 0.87, automobile 0.94, laptop computer 0.95), objects
# COCO lacks at most 0.66 (fire extinguisher -> fire hydrant 0.66, toolbox 0.55, screwdriver 0.52).
DEFAULT_THRESHOLD = 0.73
# A second label joins the best one when it is this close ("vehicle" -> car 0.93, truck 0.84;
# "bag" -> handbag 0.82, backpack 0.78) but not a near miss ("automobile" -> truck 0.76 vs car 0.94).
DEFAULT_MARGIN = 0.1
# The template lifts the scores of real synonyms more than those of near misses.
DEFAULT_TEMPLATE = "a photo of a {}"
_DETERMINERS = frozenset(
    ["a", "an", "the", "some", "any", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those"]
)


@dataclass(frozen=True)
class LabelMapping:
    mapped: dict[str, list[str]]  # request -> labels, best first
    uncovered: list[str]  # requests that no label is close enough to
    similarity: dict[str, float] = field(default_factory=dict)  # request -> best cosine similarity


class LabelMapper:
    """Maps requested words onto a fixed vocabulary by text-embedding cosine similarity.

    ``aliases`` gives labels more names (a tagger's "tabby" also answers to "cat"); a request
    matches a label through its closest name, and a name shared by several labels maps to all.
    """

    def __init__(
        self,
        text_embedder: TextEmbedder,
        vocabulary: Iterable[str],
        threshold: float = DEFAULT_THRESHOLD,
        margin: float = DEFAULT_MARGIN,
        template: str = DEFAULT_TEMPLATE,
        aliases: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self._embedder = text_embedder
        self._labels = list(dict.fromkeys(vocabulary))
        self._threshold = threshold
        self._margin = margin
        self._template = template
        self._names = _names(self._labels, aliases or {})  # name as a key -> indices of its labels
        self._members = list(self._names.values())
        self._vectors = self._embed(list(self._names))

    @property
    def vocabulary(self) -> tuple[str, ...]:
        return tuple(self._labels)

    def map(self, requested: list[str]) -> LabelMapping:
        mapped: dict[str, list[str]] = {}
        similarity: dict[str, float] = {}
        pending = []
        for request in dict.fromkeys(requested):
            key = label_key(request)
            if key in self._names:
                mapped[request], similarity[request] = [self._labels[i] for i in self._names[key]], 1.0
            elif key and self._labels:
                pending.append(request)
            else:
                similarity[request] = 0.0
        if pending:
            for request, row in zip(pending, self._embed(pending) @ self._vectors.T, strict=True):
                similarity[request] = float(row.max())
                if labels := self._close_labels(row):
                    mapped[request] = labels
        uncovered = [request for request in dict.fromkeys(requested) if request not in mapped]
        return LabelMapping(mapped, uncovered, similarity)

    def _close_labels(self, scores: np.ndarray) -> list[str]:
        """Labels of the closest name and of names nearly as close, but none broader than the closest."""
        best = int(np.argmax(scores))
        floor = max(self._threshold, float(scores[best]) - self._margin)
        widest = len(self._members[best])  # "automobile" is near "car" and "vehicle"; only cars are meant
        chosen: list[int] = []
        for name in np.argsort(-scores, kind="stable"):
            if scores[name] < floor:
                break
            if len(self._members[name]) <= widest:
                chosen += [label for label in self._members[name] if label not in chosen]
        return [self._labels[label] for label in chosen]

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._embedder.dim), np.float32)
        return self._embedder.embed_texts([self._template.format(label_key(text)) for text in texts])


def _names(labels: list[str], aliases: Mapping[str, Iterable[str]]) -> dict[str, list[int]]:
    names: dict[str, list[int]] = {}
    for index, label in enumerate(labels):
        for name in (label, *aliases.get(label, ())):
            members = names.setdefault(label_key(name), [])
            if index not in members:
                members.append(index)
    names.pop("", None)
    return names


def label_key(text: str) -> str:
    """Lower case, single spaces, no leading article or possessive ("My red Mug " -> "red mug")."""
    words = text.lower().split()
    while len(words) > 1 and words[0] in _DETERMINERS:
        words = words[1:]
    return " ".join(words)
