"""Search latency, recall and build cost of VectorIndex on random unit vectors.

Random Gaussian directions in 384 dimensions are the worst case for HNSW (every similarity is near
zero, no neighbourhood structure), so recall on them is a floor, far below what real embeddings get.
``intrinsic_dim`` draws the vectors from a random linear subspace of that dimension instead, which
is closer to real embeddings.  Vectors are generated in chunks and regenerated from the seed for the
ground truth, so only the index itself holds them all.

    python -m vidmem_ros.memory.bench_index --sizes 10000 100000 --m 32 --ef-search 64
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Iterator, Sequence

import numpy as np

from vidmem_ros.config import IndexConfig
from vidmem_ros.memory.vector_index import HNSW_EF_CONSTRUCTION, VectorIndex

K = 10
_CHUNK = 100_000
_WARMUP = 5

Row = dict[str, float | int | str]


def bench_search(
    sizes: Sequence[int] = (10_000, 100_000, 1_000_000),
    dim: int = 384,
    queries: int = 200,
    config: IndexConfig | None = None,
    seed: int = 0,
    *,
    ef_construction: int = HNSW_EF_CONSTRUCTION,
    intrinsic_dim: int | None = None,
    ef_search_sweep: Sequence[int] = (),
) -> list[Row]:
    """Rows per size, efSearch and filter ("none", or an as_of hiding half the vectors); latencies per query in ms.

    ``ef_search_sweep`` re-measures an approximate index at other efSearch values without rebuilding it.
    ``build_s`` times the adds alone (not the data generation); ``build_cpu_s`` is the CPU time they took
    on all threads, which other load on the machine inflates less than the wall time.
    """
    base = config or IndexConfig()
    rows: list[Row] = []
    for size in sizes:
        cfg = base.model_copy()  # the sweep changes efSearch on this copy, which the index reads per search
        index = VectorIndex(dim, cfg, ef_construction=ef_construction)
        build_s = build_cpu_s = 0.0
        for ids, vectors, stamps in _chunks(size, dim, seed, intrinsic_dim):
            wall, cpu = time.perf_counter(), time.process_time()
            index.add(ids, vectors, stamps)
            build_s += time.perf_counter() - wall
            build_cpu_s += time.process_time() - cpu
        qs = _draw(np.random.default_rng([seed, size, 1]), queries, dim, seed, intrinsic_dim)
        as_of = float(size) / 2.0  # stamps are uniform on [0, size)
        filters = (("none", None), ("as_of half", as_of))
        truths = {label: _true_top_k(qs, size, dim, seed, intrinsic_dim, bound) for label, bound in filters}
        sweep = [base.hnsw_ef_search, *(ef for ef in ef_search_sweep if ef != base.hnsw_ef_search)]
        for ef in sweep if index.kind == "approximate" else sweep[:1]:
            cfg.hnsw_ef_search = ef
            for label, bound in filters:
                latencies, found = _time_queries(index, qs, bound)
                truth = truths[label].tolist()
                recall = np.mean([len(set(f) & set(t)) / K for f, t in zip(found, truth, strict=True)])
                rows.append(
                    {
                        "size": size,
                        "data": f"rank {intrinsic_dim}" if intrinsic_dim else "random",
                        "kind": index.kind,
                        "filter": label,
                        "p50_ms": round(float(np.percentile(latencies, 50)), 3),
                        "p95_ms": round(float(np.percentile(latencies, 95)), 3),
                        "recall@10": round(float(recall), 4),
                        "build_s": round(build_s, 1),
                        "build_cpu_s": round(build_cpu_s, 1),
                        "memory_mb": round(index.memory_bytes() / 2**20, 1),
                        "hnsw_m": cfg.hnsw_m,
                        "ef_construction": ef_construction,
                        "ef_search": ef,
                    }
                )
        del index  # free before the next size is built
        gc.collect()
    return rows


def _time_queries(index: VectorIndex, qs: np.ndarray, as_of: float | None) -> tuple[np.ndarray, list[list[int]]]:
    for q in qs[:_WARMUP]:
        index.search(q, K, as_of=as_of)
    latencies = np.empty(len(qs))
    found: list[list[int]] = []
    for i, q in enumerate(qs):
        start = time.perf_counter()
        hits = index.search(q, K, as_of=as_of)
        latencies[i] = (time.perf_counter() - start) * 1e3
        found.append([h.id for h in hits])
    return latencies, found


def format_rows(rows: Sequence[Row]) -> str:
    """The rows as an aligned text table."""
    if not rows:
        return ""
    columns = list(rows[0])
    cells = [[str(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(c), *(len(line[i]) for line in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(line, widths, strict=True)) for line in cells]
    return "\n".join(lines)


def _chunks(
    size: int, dim: int, seed: int, intrinsic_dim: int | None
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Deterministic (ids, unit vectors, stamps) in chunks; stamps are random, so not monotonic in id."""
    for start in range(0, size, _CHUNK):
        n = min(_CHUNK, size - start)
        rng = np.random.default_rng([seed, size, start])
        vectors = _draw(rng, n, dim, seed, intrinsic_dim)
        stamps = rng.uniform(0.0, float(size), n)
        yield np.arange(start, start + n, dtype=np.int64), vectors, stamps


def _draw(rng: np.random.Generator, n: int, dim: int, seed: int, intrinsic_dim: int | None) -> np.ndarray:
    if not intrinsic_dim:
        return _unit(rng.standard_normal((n, dim), dtype=np.float32))
    basis = np.random.default_rng([seed, intrinsic_dim]).standard_normal((intrinsic_dim, dim), dtype=np.float32)
    return _unit(rng.standard_normal((n, intrinsic_dim), dtype=np.float32) @ basis)


def _true_top_k(
    qs: np.ndarray, size: int, dim: int, seed: int, intrinsic_dim: int | None, as_of: float | None
) -> np.ndarray:
    """Brute-force top-K ids, recomputed chunk by chunk."""
    best_scores = np.full((len(qs), K), -np.inf, dtype=np.float32)
    best_ids = np.full((len(qs), K), -1, dtype=np.int64)
    for ids, vectors, stamps in _chunks(size, dim, seed, intrinsic_dim):
        scores = qs @ vectors.T
        if as_of is not None:
            scores[:, stamps > as_of] = -np.inf
        all_scores = np.concatenate([best_scores, scores], axis=1)
        all_ids = np.concatenate([best_ids, np.broadcast_to(ids, scores.shape)], axis=1)
        top = np.argpartition(-all_scores, K - 1, axis=1)[:, :K]
        best_scores = np.take_along_axis(all_scores, top, axis=1)
        best_ids = np.take_along_axis(all_ids, top, axis=1)
    return best_ids


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--exact-limit", type=int, default=IndexConfig().exact_limit)
    parser.add_argument("--m", type=int, default=IndexConfig().hnsw_m)
    parser.add_argument("--ef-search", type=int, default=IndexConfig().hnsw_ef_search)
    parser.add_argument("--ef-construction", type=int, default=HNSW_EF_CONSTRUCTION)
    parser.add_argument("--ef-search-sweep", type=int, nargs="*", default=[], help="more efSearch values to time")
    parser.add_argument("--intrinsic-dim", type=int, default=0, help="0: isotropic random vectors")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = IndexConfig(exact_limit=args.exact_limit, hnsw_m=args.m, hnsw_ef_search=args.ef_search)
    rows = bench_search(
        args.sizes,
        args.dim,
        args.queries,
        config,
        args.seed,
        ef_construction=args.ef_construction,
        intrinsic_dim=args.intrinsic_dim or None,
        ef_search_sweep=args.ef_search_sweep,
    )
    print(format_rows(rows))


if __name__ == "__main__":
    main()
