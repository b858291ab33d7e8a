"""``vidmem bench fleet``: the fleet store on embedded Milvus Lite at fleet scale.

Ten robots patrol their own routes through shared places; each frame's vector is its place's look plus the
variation of the view (a low-rank part: where the robot stands and looks) and sensor noise, so neighbours are
frames of one place, as with real embeddings, not uniform random directions.  It prints the insert rate,
recall@10 against exact search within the same filter, p50 / p95 search latency with robot and time filters,
and the sync's throughput and lag from a robot's own store through the real sync path.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_ros.config import FleetConfig, load_config
from vidmem_ros.fleet.milvus import MilvusFleetStore
from vidmem_ros.fleet.records import FleetMoment, FleetScope
from vidmem_ros.fleet.sync import FleetSync
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.rows import vector_blob
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.embedding import ColorLayoutEmbedder
from vidmem_ros.perception.registry import build_text_embedder

K = 10
EPOCH = 1_780_000_000.0
FRAME_S = 2.0  # a kept frame every two seconds of each robot's time


@dataclass(frozen=True)
class Fleet:
    robots: list[str]
    robot_of: np.ndarray  # per moment: index into robots
    stamps: np.ndarray
    vectors: np.ndarray  # float32, L2-normalised


def patrols(moments: int, robots: int, dim: int, seed: int, places: int = 2000, view_rank: int = 16) -> Fleet:
    """``moments`` frames of ``robots`` robots, each walking its own route through shared places."""
    rng = np.random.default_rng(seed)
    looks = rng.normal(size=(places, dim)).astype(np.float32)
    views = rng.normal(size=(view_rank, dim)).astype(np.float32) / np.sqrt(view_rank)
    per_robot = moments // robots
    robot_of = np.repeat(np.arange(robots), per_robot)
    stamps = np.tile(EPOCH + FRAME_S * np.arange(per_robot), robots)
    vectors = np.empty((per_robot * robots, dim), np.float32)
    for r in range(robots):
        route = rng.choice(places, size=max(2, places // 4), replace=False)
        stay = rng.integers(5, 60, size=per_robot)  # frames spent at each stop
        stops = np.repeat(route[np.arange(len(stay)) % len(route)], stay)[:per_robot]
        rows = slice(r * per_robot, (r + 1) * per_robot)
        block = looks[stops] + 0.6 * rng.normal(size=(per_robot, view_rank)).astype(np.float32) @ views
        block += 0.15 * rng.normal(size=block.shape).astype(np.float32)
        vectors[rows] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return Fleet([f"robot-{r:02d}" for r in range(robots)], robot_of, stamps, vectors)


def insert(fleet_store: MilvusFleetStore, fleet: Fleet, batch: int) -> float:
    """Seconds to upsert and flush every moment, ``batch`` at a time."""
    start = time.perf_counter()
    for lo in range(0, len(fleet.stamps), batch):
        hi = min(lo + batch, len(fleet.stamps))
        fleet_store.upsert_moments(
            [
                FleetMoment(
                    fleet.robots[fleet.robot_of[i]],
                    int(i),
                    float(fleet.stamps[i]),
                    -1,
                    Pose("map", float(i % 97), float(i % 89)),
                    (),
                    fleet.vectors[i],
                )
                for i in range(lo, hi)
            ]
        )
    return time.perf_counter() - start


def search(fleet_store: MilvusFleetStore, fleet: Fleet, queries: int, seed: int) -> dict[str, dict[str, float]]:
    """Latency and recall@10 per filter: one robot; one robot and a quarter of its time; every robot and as_of."""
    rng = np.random.default_rng([seed, 7])
    span = float(fleet.stamps.max() - fleet.stamps.min())
    results: dict[str, dict[str, float]] = {}
    for name in ("robot", "robot + window", "as_of"):
        latencies, recalls = [], []
        for _ in range(queries):
            i = int(rng.integers(len(fleet.stamps)))
            query = fleet.vectors[i] + 0.05 * np.asarray(rng.normal(size=(fleet.vectors.shape[1],)), np.float32)
            query /= np.linalg.norm(query)
            robot = int(fleet.robot_of[i])
            mask = np.ones(len(fleet.stamps), bool)
            scope = FleetScope()
            if name.startswith("robot"):
                mask &= fleet.robot_of == robot
                scope = FleetScope(robots=[fleet.robots[robot]])
            if name == "robot + window":
                lo = float(fleet.stamps[i]) - span / 8
                mask &= (fleet.stamps >= lo) & (fleet.stamps <= lo + span / 4)
                scope = FleetScope(robots=[fleet.robots[robot]], start=lo, end=lo + span / 4)
            if name == "as_of":
                as_of = float(fleet.stamps.min()) + span / 2
                mask &= fleet.stamps <= as_of
                scope = FleetScope(as_of=as_of)
            candidates = np.flatnonzero(mask)
            exact = set(candidates[np.argsort(-(fleet.vectors[candidates] @ query))[:K]].tolist())
            t = time.perf_counter()
            hits = fleet_store.search_images(query, K, scope)
            latencies.append((time.perf_counter() - t) * 1e3)
            recalls.append(len(exact & {h.local_id for h in hits}) / max(1, min(K, len(candidates))))
        results[name] = {
            "p50_ms": float(np.percentile(latencies, 50)),
            "p95_ms": float(np.percentile(latencies, 95)),
            "recall_at_10": float(np.mean(recalls)),
            "n": queries,
        }
    return results


def sync_rate(dim: int, moments: int, directory: Path) -> dict[str, float]:
    """A robot's store of ``moments`` frames sent through the real sync: rows a second, and the lag of a new batch
    (committed, then acknowledged by the next round)."""
    store = SqliteStore(directory / "robot.db")
    rng = np.random.default_rng(3)
    add_frames(store, moments, dim, rng, EPOCH)
    text = build_text_embedder(load_config().text_embedder)
    assert text is not None
    fleet = MilvusFleetStore(str(directory / "sync-fleet.db"), dim, text.dim)
    sync = FleetSync(store, lambda: fleet, "robot-sync", text, batch_size=FleetConfig().batch_size)
    start = time.perf_counter()
    sync.run_once()
    sent_s = time.perf_counter() - start
    add_frames(store, 100, dim, rng, EPOCH + moments)
    start = time.perf_counter()
    sync.run_once()
    lag_s = time.perf_counter() - start
    fleet.close(release=True)
    store.close()
    return {"rows_per_s": moments / sent_s, "new_batch_lag_s": lag_s, "moments": moments}


def add_frames(store: SqliteStore, count: int, dim: int, rng: np.random.Generator, start: float) -> None:
    """``count`` frames a second apart from ``start``, each with a random unit image vector (a robot's store with
    many frames to send, without running the perception that made them)."""
    with store.write() as db:
        for i in range(count):
            cur = db.execute(
                "INSERT INTO moments (stamp, source, width, height, sharpness) VALUES (?, '/cam', 640, 480, 1.0)",
                (start + i,),
            )
            vector = rng.normal(size=dim).astype(np.float32)
            db.execute(
                "INSERT INTO moment_vectors VALUES (?, ?, ?)",
                (cur.lastrowid, start + i, vector_blob(vector / np.linalg.norm(vector))),
            )


def run_fleet_bench(
    sizes: Sequence[int], robots: int, queries: int, batch: int, sync_moments: int, json_path: Path | None, seed: int
) -> int:
    dim = ColorLayoutEmbedder().dim
    config = FleetConfig()
    report: dict[str, Any] = {
        "settings": {
            "robots": robots,
            "dim": dim,
            "batch": batch,
            "index": "HNSW",
            "M": config.hnsw_m,
            "efConstruction": config.hnsw_ef_construction,
            "ef": config.hnsw_ef_search,
            "metric": "COSINE",
        },
        "sizes": {},
    }
    print(
        f"fleet store on Milvus Lite: {robots} robots, {dim}-d frame vectors, HNSW M={config.hnsw_m} "
        f"efConstruction={config.hnsw_ef_construction} ef={config.hnsw_ef_search}, batches of {batch}"
    )
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="vidmem-fleet-", ignore_cleanup_errors=True) as tmp:
            fleet = patrols(size, robots, dim, seed)
            store = MilvusFleetStore(
                str(Path(tmp) / "fleet.db"),
                dim,
                384,
                hnsw_m=config.hnsw_m,
                ef_construction=config.hnsw_ef_construction,
                ef_search=config.hnsw_ef_search,
            )
            insert_s = insert(store, fleet, batch)
            found = search(store, fleet, queries, seed)
            store.close(release=True)  # the embedded server stops writing into the directory about to go
        report["sizes"][size] = {"insert_rows_per_s": size / insert_s, "insert_s": insert_s, "search": found}
        print(f"{size:>9,} moments: inserted in {insert_s:.1f} s ({size / insert_s:,.0f} rows/s)")
        for name, row in found.items():
            print(
                f"    {name:<15} p50 {row['p50_ms']:7.1f} ms  p95 {row['p95_ms']:7.1f} ms  "
                f"recall@10 {row['recall_at_10']:.3f}  (n={row['n']})"
            )
    with tempfile.TemporaryDirectory(prefix="vidmem-sync-", ignore_cleanup_errors=True) as tmp:
        report["sync"] = sync_rate(dim, sync_moments, Path(tmp))
    s = report["sync"]
    print(
        f"sync from a robot's store: {s['moments']:,} frames at {s['rows_per_s']:,.0f} rows/s; "
        f"a new batch of 100 acknowledged {s['new_batch_lag_s']:.2f} s after its round began"
    )
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=2))
    return 0
