"""VectorIndex against numpy brute force, with real FAISS, in both its exact and approximate kinds."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from vidmem_ros.config import IndexConfig
from vidmem_ros.memory import vector_index
from vidmem_ros.memory.vector_index import VectorIndex

DIM = 64
N = 5_000
K = 10
Data = tuple[np.ndarray, np.ndarray, np.ndarray]


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def data() -> Data:
    rng = np.random.default_rng(1)
    ids = rng.permutation(np.arange(10, 10 + 3 * N, 3))  # sparse, unordered row ids
    vectors = unit(rng.standard_normal((N, DIM)))
    stamps = rng.uniform(1.7e9, 1.7e9 + 1e4, N)  # epoch-like: needs float64, not monotonic in id
    return ids, vectors, stamps


@pytest.fixture(scope="module")
def small(data: Data) -> Data:
    """Just past the approximate limit of 2,000: HNSW builds stay cheap in the tests that mutate."""
    ids, vectors, stamps = data
    return ids[:2_500], vectors[:2_500], stamps[:2_500]


@pytest.fixture(scope="module")
def shared_approximate(data: Data) -> VectorIndex:
    """Built once for the tests that only search it."""
    return build(data, "approximate")


@pytest.fixture
def force_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make approximate searches walk the HNSW graph instead of scanning small selections exactly."""
    monkeypatch.setattr(vector_index, "FLAT_SCAN_MAX", 0)
    monkeypatch.setattr(vector_index, "HNSW_VISITS_PER_RESULT", 0)


def build(data: Data, kind: str) -> VectorIndex:
    limit = IndexConfig().exact_limit if kind == "exact" else 2_000
    index = VectorIndex(DIM, IndexConfig(exact_limit=limit))
    ids, vectors, stamps = data
    index.add(ids, vectors, stamps)
    assert index.kind == kind
    return index


def brute_top_k(data: Data, query: np.ndarray, k: int, keep: np.ndarray | None = None) -> list[int]:
    ids, vectors, _ = data
    scores = vectors @ unit(query)
    if keep is not None:
        scores = np.where(keep, scores, -np.inf)
    order = np.argsort(-scores)[:k]
    return [int(ids[i]) for i in order if np.isfinite(scores[i])]


def test_exact_search_returns_true_top_k(data: Data) -> None:
    index = build(data, "exact")
    rng = np.random.default_rng(2)
    for query in rng.standard_normal((30, DIM)):
        hits = index.search(query, K)
        assert [h.id for h in hits] == brute_top_k(data, query, K)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        np.testing.assert_allclose(scores[0], float(data[1][data[0] == hits[0].id][0] @ unit(query)), atol=1e-5)


def test_approximate_recall_at_10(data: Data, shared_approximate: VectorIndex, force_graph: None) -> None:
    index = shared_approximate
    rng = np.random.default_rng(3)
    queries = rng.standard_normal((100, DIM))
    recall = np.mean([len({h.id for h in index.search(q, K)} & set(brute_top_k(data, q, K))) / K for q in queries])
    print(f"HNSW recall@10 on {N} x {DIM} random vectors: {recall:.3f}")
    assert recall >= 0.95


@pytest.mark.parametrize("kind", ["exact", "approximate"])
def test_time_window_never_leaks(small: Data, kind: str, force_graph: None) -> None:
    data = small
    ids, _, stamps = data
    index = build(data, kind)
    rng = np.random.default_rng(4)
    query = unit(rng.standard_normal(DIM))
    as_of = float(np.quantile(stamps, 0.5))
    # The 200 nearest vectors of all are near-copies of the query, stamped after as_of.
    future_ids = np.arange(10**9, 10**9 + 200)
    near = unit(query + 0.05 * rng.standard_normal((200, DIM)))
    index.add(future_ids, near, rng.uniform(as_of + 1.0, as_of + 100.0, 200))
    assert {h.id for h in index.search(query, K)} <= set(future_ids.tolist())

    past = stamps <= as_of
    hits = index.search(query, K, as_of=as_of)
    assert len(hits) == K and all(h.stamp <= as_of for h in hits)
    if kind == "exact":
        assert [h.id for h in hits] == brute_top_k(data, query, K, past)
    else:
        assert len({h.id for h in hits} & set(brute_top_k(data, query, K, past))) >= 8

    since = float(np.quantile(stamps, 0.3))
    window = past & (stamps >= since)
    hits = index.search(query, K, as_of=as_of, since=since)
    assert all(since <= h.stamp <= as_of for h in hits) and len(hits) == K
    if kind == "exact":
        assert [h.id for h in hits] == brute_top_k(data, query, K, window)

    # A window holding fewer than k vectors returns exactly those, far as they are.
    lo, hi = np.sort(stamps)[[100, 104]]
    hits = index.search(query, K, as_of=float(hi), since=float(lo))
    assert sorted(h.id for h in hits) == sorted(ids[(stamps >= lo) & (stamps <= hi)].tolist())
    assert index.search(query, K, as_of=float(stamps.min()) - 1.0) == []
    assert index.search(query, K, as_of=as_of, since=as_of + 1.0) == []


@pytest.mark.parametrize("kind", ["exact", "approximate"])
def test_allowed_filter_widens_until_k(data: Data, kind: str, shared_approximate: VectorIndex) -> None:
    ids, _, _ = data
    index = shared_approximate if kind == "approximate" else build(data, kind)
    query = np.random.default_rng(5).standard_normal(DIM)
    allowed_ids = set(ids[::50].tolist())  # 2% pass: needs several widenings
    allowed: Callable[[int], bool] = allowed_ids.__contains__
    hits = index.search(query, K, allowed=allowed)
    assert len(hits) == K and {h.id for h in hits} <= allowed_ids
    assert [h.id for h in hits] == brute_top_k(data, query, K, np.isin(ids, list(allowed_ids)))
    assert index.search(query, K, allowed=lambda _: False) == []


@pytest.mark.parametrize("kind", ["exact", "approximate"])
def test_remove_makes_ids_unfindable(small: Data, kind: str, force_graph: None) -> None:
    ids, vectors, _ = small
    index = build(small, kind)
    few = ids[:50]  # under 10%: stay as tombstones
    assert index.remove([*few.tolist(), -5, -5]) == 50
    assert len(index) == ids.size - 50 and few[0] not in index and ids[60] in index
    for i in range(50):
        assert few[i] not in {h.id for h in index.search(vectors[i], K)}
    many = ids[50:400]  # past 10%: rebuilt without them
    assert index.remove(many) == many.size
    assert index.remove(many) == 0
    assert index.kind == kind and len(index) == ids.size - 400
    for i in range(50, 400, 7):
        hits = index.search(vectors[i], K)
        assert ids[i] not in {h.id for h in hits} and len(hits) == K
    assert index.search(vectors[2_000], 1)[0].id == ids[2_000]


def test_large_removal_returns_to_exact(small: Data) -> None:
    ids, vectors, _ = small
    index = build(small, "approximate")
    index.remove(ids[1_000:])
    assert index.kind == "exact" and len(index) == 1_000
    assert index.search(vectors[3], 1)[0].id == ids[3]


@pytest.mark.parametrize("kind", ["exact", "approximate"])
def test_readd_replaces_vector_and_stamp(small: Data, kind: str, force_graph: None) -> None:
    ids, vectors, _ = small
    index = build(small, kind)
    target = int(ids[7])
    new = unit(np.random.default_rng(6).standard_normal(DIM))
    index.add([target], new[None, :], [1.0])
    assert len(index) == ids.size and target in index
    hit = index.search(new, 1)[0]
    assert hit.id == target and hit.score == pytest.approx(1.0, abs=1e-5) and hit.stamp == 1.0
    old_hits = index.search(vectors[7], K)
    assert all(h.id != target or h.score < 0.9 for h in old_hits)
    assert [h.id for h in index.search(new, 1, as_of=0.5)] != [target]
    # Within one batch the last occurrence wins.
    a, b = unit(np.random.default_rng(7).standard_normal((2, DIM)))
    index.add([5, 5], np.stack([a, b]), [2.0, 3.0])
    hit = index.search(b, 1)[0]
    assert (hit.id, hit.stamp) == (5, 3.0) and len(index) == ids.size + 1


def test_switches_to_approximate_past_the_limit() -> None:
    rng = np.random.default_rng(8)
    index = VectorIndex(DIM, IndexConfig(exact_limit=100))
    index.add(np.arange(100), unit(rng.standard_normal((100, DIM))), np.arange(100.0))
    assert index.kind == "exact"
    small = index.memory_bytes()
    index.add([100], unit(rng.standard_normal((1, DIM))), [100.0])
    assert index.kind == "approximate" and len(index) == 101
    assert index.memory_bytes() > small > 100 * DIM * 4
    index.add([101], unit(rng.standard_normal((1, DIM))), [101.0])  # incremental add to the graph
    assert len(index) == 102 and 101 in index


def test_bad_input_raises() -> None:
    index = VectorIndex(DIM, IndexConfig())
    good = unit(np.random.default_rng(9).standard_normal((2, DIM)))
    with pytest.raises(ValueError, match="shape"):
        index.add([1, 2], good[:, :32], [0.0, 1.0])
    nan = good.copy()
    nan[1, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        index.add([1, 2], nan, [0.0, 1.0])
    with pytest.raises(ValueError, match="zero length"):
        index.add([1, 2], np.zeros((2, DIM)), [0.0, 1.0])
    with pytest.raises(ValueError, match="stamps"):
        index.add([1, 2], good, [0.0])
    with pytest.raises(ValueError, match="stamps"):
        index.add([1, 2], good, [0.0, np.nan])
    with pytest.raises(ValueError, match="ids"):
        index.add([1.5, 2.5], good, [0.0, 1.0])
    assert len(index) == 0  # nothing half-added
    index.add([1, 2], good, [0.0, 1.0])
    with pytest.raises(ValueError, match="dimensions"):
        index.search(good[0, :10], K)
    with pytest.raises(ValueError, match="NaN"):
        index.search(nan[1], K)
    for k in (0, -1):
        with pytest.raises(ValueError, match="k must be"):
            index.search(good[0], k)
    with pytest.raises(ValueError, match="as_of"):
        index.search(good[0], K, as_of=float("nan"))
    with pytest.raises(ValueError, match="dimension"):
        VectorIndex(0, IndexConfig())


def test_empty_index_and_unnormalised_input() -> None:
    index = VectorIndex(4, IndexConfig())
    assert index.search(np.ones(4), 3) == [] and len(index) == 0
    index.add(np.array([3], dtype=np.uint32), np.array([[0.0, 0.0, 5.0, 0.0]]), [1.0])  # float64, unnormalised
    hit = index.search(np.array([[0, 0, 2, 0]]), 3)[0]  # int query, 2-D
    assert hit.id == 3 and hit.score == pytest.approx(1.0)


def test_concurrent_reads_and_writes() -> None:
    dim = 16
    rng = np.random.default_rng(10)
    index = VectorIndex(dim, IndexConfig(exact_limit=800))
    index.add(np.arange(500), unit(rng.standard_normal((500, dim))), rng.uniform(0, 1, 500))
    errors: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        queries = unit(np.random.default_rng(11).standard_normal((20, dim)))
        try:
            while not done.is_set():
                for q in queries:
                    hits = index.search(q, K, as_of=0.5)
                    assert len(hits) == K and all(h.stamp <= 0.5 for h in hits)
                    time.sleep(0.001)  # a tight loop would starve the writer of the (unfair) lock
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for start in range(500, 1_500, 100):  # crosses the limit and compacts while readers run
        index.add(np.arange(start, start + 100), unit(rng.standard_normal((100, dim))), rng.uniform(0, 1, 100))
        index.remove(range(start - 500, start - 450))
    done.set()
    for t in threads:
        t.join()
    assert not errors
    assert index.kind == "approximate" and len(index) == 1_500 - 10 * 50
