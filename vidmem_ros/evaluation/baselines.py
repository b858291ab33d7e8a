"""Baselines the evaluator runs beside the full system, on the same bag and questions.

- ``uniform``: every frame at 1 FPS is kept (no gates), and a question is
  answered by one embedding lookup with no agent: the question's sentence
  embedding against each stored frame's description (what was detected and
  read there) and each transcript line; the best match is the answer.
- ``fixed30``: the full system with fixed 30 s segments instead of event
  segmentation (the EventMemAgent ablation).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from vidmem_ros.agent.answer import Answer, EvidenceItem
from vidmem_ros.config import VidmemConfig
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.runs import memory_as_of
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.embedding import TextEmbedder

BASELINES = ("uniform", "fixed30", "rules")
# Cosine similarity of sentence embeddings above which the lookup says "yes, seen".
MATCH_SIMILARITY = 0.45


def baseline_config(config: VidmemConfig, name: str) -> VidmemConfig:
    """The configuration a baseline ingests with."""
    if name == "uniform":
        ingest = config.ingest.model_copy(
            update={
                "sample_fps": 1.0,
                "blur_min_laplacian_var": 0.0,
                "static_max_mean_diff": 0.0,
                "static_keepalive_s": 0.0,
                "duplicate_min_ssim": 1.0,
            }
        )
        return config.model_copy(update={"ingest": ingest})
    if name == "fixed30":
        segment = config.segment.model_copy(
            update={
                "signals": ["histogram"],
                "histogram_min_correlation": -1.0,
                "min_event_s": 30.0,
                "max_event_s": 30.0,
            }
        )
        return config.model_copy(update={"segment": segment})
    if name == "rules":  # the same system reading questions without a language model
        return config.model_copy(update={"query": config.query.model_copy(update={"parser": "rules"})})
    raise ValueError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")


@dataclass(frozen=True)
class _Item:
    ref: str
    kind: str
    stamp: float
    text: str
    pose: Pose | None


class SingleShotRetriever:
    """Answers with the single best embedding match among frame descriptions and transcripts; no agent."""

    def __init__(self, store: SqliteStore, embedder: TextEmbedder, min_score: float) -> None:
        self.store = store
        self.embedder = embedder
        self.min_score = min_score
        self._vectors: dict[
            tuple[str, str], np.ndarray
        ] = {}  # by ref and text: stored frames do not change between questions

    def answer(self, question: str, as_of: float | None = None) -> Answer:
        """``as_of`` on the robot's clock, as the reasoner takes it; the stamps answered are memory time."""
        started = time.monotonic()
        items = self._items(memory_as_of(self.store.runs(), as_of))
        if not items:
            return Answer(True, "I have no memory yet.", 0.0, trace={"planner": "single_shot"})
        new = [i for i in items if (i.ref, i.text) not in self._vectors]
        if new:
            for i, v in zip(new, self.embedder.embed_texts([i.text for i in new]), strict=True):
                self._vectors[(i.ref, i.text)] = v
        query = self.embedder.embed_texts([question])[0]
        scores = np.stack([self._vectors[(i.ref, i.text)] for i in items]) @ query
        best = int(np.argmax(scores))
        item, score = items[best], float(scores[best])
        seen = score >= MATCH_SIMILARITY
        text = f"{'Yes' if seen else 'No'}; the closest memory is {item.kind} {item.ref}: {item.text}."
        evidence = [EvidenceItem(item.kind, item.ref, item.stamp, item.stamp, item.text, score, item.pose)]
        trace = {"planner": "single_shot", "similarity": round(score, 3), "elapsed_s": time.monotonic() - started}
        return Answer(True, text, round(max(0.0, score), 3), item.stamp, item.pose, evidence, trace)

    def _items(self, as_of: float | None) -> list[_Item]:
        upper = math.inf if as_of is None else as_of
        items = []
        for m in self.store.moments(-math.inf, upper, limit=100_000):
            labels = sorted({d.label for d in m.detections if d.score >= self.min_score})
            words = labels + [t.text for t in m.texts]
            if words:
                items.append(_Item(f"moment/{m.id}", "frame", m.stamp, "saw " + ", ".join(words), m.pose))
        for t in self.store.transcripts(-math.inf, upper, as_of):
            items.append(_Item(f"transcript/{t.id}", "transcript", t.start, f"heard: {t.text}", None))
        return items
