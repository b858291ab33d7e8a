"""Real stores filled through the memory engine and damaged the way the field did it (4 KB of random bytes over a
page of records, or the file cut to half), for the store-integrity and damaged-store node tests and for
``vidmem bench faults``."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import numpy as np

from vidmem_ros.config import VidmemConfig
from vidmem_ros.memory.engine import MemoryEngine, PerceivedFrame
from vidmem_ros.memory.records import Pose, Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.types import Detection, TextLine

T0 = 1_700_000_000.0


def fill(path: Path, frames: int = 400, seed: int = 0, signs: Mapping[int, str] = MappingProxyType({})) -> None:
    """Frames at 1 Hz through the engine: payloads of 6-12 KB, detections, a sign, speech; events close as the
    view changes every 20 frames.  Closed cleanly, the WAL folded in.  ``signs``: more text read, by frame."""
    rng = np.random.default_rng(seed)
    config = VidmemConfig()
    config.retention.max_disk_mb = 0
    store = SqliteStore(path)
    engine = MemoryEngine(store, config)
    for i in range(frames):
        grey = np.full((32, 32), (i // 20) * 37 % 256, np.uint8)
        label = ("cup", "chair", "dog", "laptop")[(i // 20) % 4]
        read = [f"ROOM {i // 20}"] * (i % 20 == 5) + ([signs[i]] if i in signs else [])
        engine.observe(
            PerceivedFrame(
                stamp=T0 + i,
                source="/cam",
                width=64,
                height=48,
                jpeg=rng.bytes(int(rng.integers(6000, 12000))),
                grey=grey,
                detections=[Detection(label, 0.9, (0.0, 0.0, 10.0, 10.0))],
                texts=[TextLine(text, 0.9, (0.0, 0.0, 5.0, 5.0)) for text in read],
                pose=Pose("map", float(i % 20), 0.0),
                embedding=rng.standard_normal(16).astype(np.float32),
            )
        )
        if i % 50 == 10:
            engine.add_transcript(Transcript(T0 + i, T0 + i + 2, f"message number {i}"))
    engine.finish()
    store.checkpoint()
    store.close()


def digest(path: Path) -> str:
    """The database file's bytes (a reader may add an empty WAL and its shared-memory index beside it)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scribble_mid_file(path: Path, seed: int = 0) -> None:
    """4 KB of random bytes in the middle of the file, over a page of records (where the field's landed: a page
    inside a frame's image is damage no check without checksums can see)."""
    db = sqlite3.connect(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    record_pages = [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'moments' AND pagetype = 'leaf'")]
    db.close()
    middle = min(record_pages, key=lambda p: abs(p - pages // 2))
    with path.open("r+b") as f:
        f.seek((middle - 1) * page_size)
        f.write(random.Random(seed).randbytes(4096))


def cut_to_half(path: Path) -> None:
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size // 2)
