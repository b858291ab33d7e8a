"""How well identities were told apart: purity and coverage against the truth, and the distances thresholds are
calibrated from (voices and faces alike)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scores:
    segments: int
    speakers: int
    voices: int
    purity: float
    coverage: float


def score(truth: list[str], found: list[int | None]) -> Scores:
    """Purity and coverage of voices ``found`` (None: no voice) against the true speaker of each segment."""
    pairs = [(t, f) for t, f in zip(truth, found, strict=True) if f is not None]
    by_voice: dict[int, Counter[str]] = {}
    by_person: dict[str, Counter[int]] = {}
    for person, voice in pairs:
        by_voice.setdefault(voice, Counter())[person] += 1
        by_person.setdefault(person, Counter())[voice] += 1
    n = max(len(truth), 1)
    purity = sum(c.most_common(1)[0][1] for c in by_voice.values()) / n
    coverage = sum(c.most_common(1)[0][1] for c in by_person.values()) / n
    return Scores(len(truth), len(set(truth)), len(by_voice), purity, coverage)


def calibration(truth: list[str], vectors: np.ndarray) -> dict[str, float]:
    """Leave-one-out cosine distance of each segment to its own speaker's centroid, and to the nearest other's."""
    people = sorted(set(truth))
    sums = {p: vectors[[t == p for t in truth]].sum(axis=0) for p in people}
    own, other = [], []
    for vector, person in zip(vectors, truth, strict=True):
        rest = sums[person] - vector
        if np.linalg.norm(rest) > 0:
            own.append(1 - float(vector @ rest) / float(np.linalg.norm(rest)))
        other.append(min(1 - float(vector @ sums[p]) / float(np.linalg.norm(sums[p])) for p in people if p != person))
    return {
        "own_p95": float(np.percentile(own, 95)),
        "own_max": float(max(own)),
        "other_p5": float(np.percentile(other, 5)),
        "other_min": float(min(other)),
        "between": float((max(own) + min(other)) / 2),
    }
