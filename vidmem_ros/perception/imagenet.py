"""ImageNet-1k class names and the broader words people ask with.

ImageNet's classes are WordNet leaves ("tabby", "espresso", "moped"); a person
asks for "a cat", "coffee" or "a motorbike".  Those words are the lemmas of the
classes' WordNet hypernyms (``perception/wordnet.py``).
"""

from __future__ import annotations

from pathlib import Path

from vidmem_ros.perception.wordnet import WordNet, broader_words, class_senses

NUM_CLASSES = 1000

# Names used instead of the first synonym where two classes share it.
_RENAMED = {134: "crane bird", 639: "tank suit"}


def read_labels(path: Path) -> list[tuple[str, ...]]:
    """Synonyms of each class, one line per class ("tabby, tabby cat")."""
    classes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            classes.append(tuple(name.strip() for name in line.split(",") if name.strip()))
    return classes


def class_names(classes: list[tuple[str, ...]]) -> list[str]:
    """One unique display name per class: its first synonym, renamed where ImageNet repeats one."""
    renamed = _RENAMED if len(classes) == NUM_CLASSES else {}
    return [renamed.get(i, names[0] if names else f"class {i}") for i, names in enumerate(classes)]


def class_terms(
    classes: list[tuple[str, ...]], wordnet: WordNet | None = None, min_depth: int = 4
) -> list[tuple[str, ...]]:
    """Per class: its other synonyms, then the lemmas of its WordNet hypernyms (nearest first) down to
    ``min_depth`` steps from WordNet's root; without WordNet, the synonyms alone."""
    names = class_names(classes)
    ordered = len(classes) == NUM_CLASSES  # ImageNet-1k, in WordNet id order
    senses = class_senses(wordnet, classes, ordered) if wordnet is not None else [() for _ in classes]
    terms = []
    for index, synonyms in enumerate(classes):
        broader = broader_words(wordnet, senses[index], min_depth) if wordnet is not None else []
        words = [word for word in (*synonyms, *broader) if word.lower() != names[index].lower()]
        terms.append(tuple(dict.fromkeys(words)))  # ordered, without repeats
    return terms
