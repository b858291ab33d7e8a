"""Memories whose clock went back: frames played at 1 Hz through the real engine, and a store of two runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.memory.captions import EventCaptioner
from vidmem_ros.memory.engine import MemoryEngine, PerceivedFrame
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.types import Detection

T0 = 1_780_000_000.0
HOUR = 3600.0


def config(path: Path) -> VidmemConfig:
    return load_config(overrides={"store.path": str(path), "query.parser": "rules"})


def play(engine: MemoryEngine, start: float, seconds: int, seen: dict[str, range]) -> None:
    """``seconds`` frames at 1 Hz from sensor stamp ``start``; ``seen[label]``: the seconds that label is in view
    (the view changes with what is seen, so segmentation has something to cut on)."""
    for i in range(seconds):
        labels = [label for label, when in seen.items() if i in when]
        grey = np.full((32, 32), 40 + 50 * len(labels) + (i // 20) * 7, np.uint8)
        engine.observe(
            PerceivedFrame(
                stamp=start + i,
                source="/cam",
                width=64,
                height=48,
                jpeg=b"\xff\xd8jpeg",
                grey=grey,
                detections=[Detection(label, 0.9, (0.0, 0.0, 20.0, 20.0)) for label in labels],
            )
        )


def two_runs(path: Path, captioner: EventCaptioner | None = None) -> tuple[SqliteStore, float]:
    """A store whose clock was set back an hour after two minutes: run 1 from T0, run 2 from ``corrected``."""
    store = SqliteStore(path)
    engine = MemoryEngine(store, config(path), captioner=captioner)
    play(engine, T0, 120, {"cup": range(40, 50), "laptop": range(90, 120)})
    corrected = T0 + 120 - HOUR
    play(engine, corrected, 120, {"cup": range(20, 30), "dog": range(80, 120)})
    engine.finish()
    return store, corrected
