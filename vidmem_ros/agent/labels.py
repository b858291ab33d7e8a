"""Mapping what a person asks about onto the labels a detector can report."""

from __future__ import annotations

from collections.abc import Iterable

# Everyday words for COCO classes.  Each key maps to one detector label.
SYNONYMS: dict[str, str] = {
    "people": "person",
    "man": "person",
    "men": "person",
    "woman": "person",
    "women": "person",
    "human": "person",
    "someone": "person",
    "somebody": "person",
    "anyone": "person",
    "anybody": "person",
    "child": "person",
    "kid": "person",
    "pedestrian": "person",
    "astronaut": "person",
    "worker": "person",
    "mug": "cup",
    "coffee cup": "cup",
    "coffee": "cup",
    "teacup": "cup",
    "tea cup": "cup",
    "kitten": "cat",
    "kitty": "cat",
    "puppy": "dog",
    "motorbike": "motorcycle",
    "scooter": "motorcycle",
    "bike": "bicycle",
    "plane": "airplane",
    "aeroplane": "airplane",
    "sofa": "couch",
    "television": "tv",
    "monitor": "tv",
    "tv monitor": "tv",
    "phone": "cell phone",
    "mobile phone": "cell phone",
    "smartphone": "cell phone",
    "cellphone": "cell phone",
    "plant": "potted plant",
    "table": "dining table",
    "fridge": "refrigerator",
    "doughnut": "donut",
    "hair dryer": "hair drier",
    "ball": "sports ball",
    "glass": "wine glass",
    "bag": "handbag",
    "purse": "handbag",
    "luggage": "suitcase",
    "automobile": "car",
    "lorry": "truck",
}


def singular(word: str) -> str:
    for suffix, repl in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("ses", "s"), ("xes", "x"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + repl
    return word


def resolve_labels(phrase: str, vocabulary: Iterable[str]) -> list[str]:
    """Detector labels that ``phrase`` refers to; empty when the detector cannot see it."""
    vocab = set(vocabulary)
    words = phrase.lower().split()
    candidates = []
    # Whole phrase first, then ever shorter tails ("a red coffee mug" -> "coffee mug" -> "mug").
    for start in range(len(words)):
        tail = " ".join(words[start:])
        candidates += [tail, " ".join([*words[start:-1], singular(words[-1])])]
    for candidate in candidates:
        if candidate in vocab:
            return [candidate]
        mapped = SYNONYMS.get(candidate)
        if mapped in vocab:
            return [mapped]
    return []
