"""In-RAM vector index over L2-normalised embeddings, keyed by store row ids, filterable by sensor time.

A cache rebuilt from SQLite at start-up, so it keeps nothing on disk.  Cosine similarity is the inner
product of normalised vectors.  Up to ``IndexConfig.exact_limit`` vectors the search is exact (a flat
scan); past it the index is rebuilt once as HNSW.

FAISS sees only dense *slots* (0..n-1, in insertion order), never the row ids: that keeps the time and
tombstone filter a plain bitmap over slots (``IDSelectorBitmap``), however sparse or large the row ids
are.  Numpy arrays map slot -> id, stamp and liveness; a dict maps id -> slot.

HNSW cannot delete, so a removed or replaced vector only becomes a tombstone that the selector hides;
once tombstones pass 10% of the slots the index is rebuilt without them (either kind, for one rule).
A rebuild that leaves at most 80% of ``exact_limit`` live vectors goes back to exact; otherwise a
shrunken index stays approximate, so that churn around the limit cannot make it flap between kinds.

A filtered HNSW walk can be drawn into a region the filter hides (the nearest vectors all after
``as_of``) and come back with poor hits.  It is asked for a full efSearch of results; coming up short
is the sign of that, and the search falls back to an exact scan of the selection: always correct, but
~80 ms at a million vectors (2 cores), so such queries miss the latency a graph walk gets (~1-3 ms).

Locking: one RLock guards what searches read; a second lock serialises writers, so that a rebuild
(minutes for HNSW at a million vectors) runs outside the RLock and searches keep using the old index
until the new one is swapped in.  FAISS releases the GIL while it works.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import faiss
import numpy as np

from vidmem_ros.config import IndexConfig

EXACT = "exact"
APPROXIMATE = "approximate"
# FAISS's default; the index config has no field for it (see bench_index for its effect on build time).
HNSW_EF_CONSTRUCTION = 40
TOMBSTONE_FRACTION = 0.10
# A rebuild returns to exact only this far below the limit (hysteresis against flapping).
BACK_TO_EXACT_FRACTION = 0.8
# Selections up to this size are scanned exactly even when the index is HNSW: at 384 dimensions on 2
# cores that takes ~1.2 ms against ~0.6 ms for a graph walk, and a filtered walk over few selected
# vectors loses recall.
FLAT_SCAN_MAX = 20_000
# HNSW visits roughly this many vectors per result wanted; past selection/this a flat scan is cheaper.
HNSW_VISITS_PER_RESULT = 64
# FAISS's flat scan of one query is faster through its selector path (200k x 384, 2 cores: 10.6 vs
# 16 ms, and 10.5 vs 48 ms while another process loads the CPUs), so an unfiltered scan selects all.
_SELECT_ALL = faiss.IDSelectorAll()
_REBUILD_CHUNK = 65_536
_DICT_ENTRY_BYTES = 100  # two boxed ints (28 B each) plus the hash-table slot and index


@dataclass(frozen=True)
class VectorHit:
    id: int
    score: float
    stamp: float


class VectorIndex:
    def __init__(self, dim: int, config: IndexConfig, *, ef_construction: int = HNSW_EF_CONSTRUCTION) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int | np.integer) or dim <= 0:
            raise ValueError(f"vector dimension must be a positive integer, got {dim!r}")
        if ef_construction < 1:
            raise ValueError(f"ef_construction must be positive, got {ef_construction}")
        self.dim = int(dim)
        self._config = config
        self._ef_construction = ef_construction
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._approximate = False
        self._index: Any = self._new_index(approximate=False)  # IndexFlatIP or IndexHNSWFlat
        self._n = 0  # slots used, live or not
        self._ids = np.empty(0, dtype=np.int64)
        self._stamps = np.empty(0, dtype=np.float64)
        self._alive = np.empty(0, dtype=bool)
        self._slot_of: dict[int, int] = {}
        self._tombstones = 0

    # -- reading -----------------------------------------------------------------

    def __len__(self) -> int:
        with self._lock:
            return len(self._slot_of)

    def __contains__(self, id: object) -> bool:
        if not isinstance(id, int | np.integer) or isinstance(id, bool):
            return False
        with self._lock:
            return int(id) in self._slot_of

    @property
    def kind(self) -> str:
        with self._lock:
            return APPROXIMATE if self._approximate else EXACT

    def memory_bytes(self) -> int:
        """Estimate: vectors, HNSW links, slot arrays and the id dict."""
        with self._lock:
            total = self._index.ntotal * self.dim * 4
            if self._approximate:
                hnsw = self._index.hnsw
                total += hnsw.neighbors.size() * 4 + hnsw.levels.size() * 4 + hnsw.offsets.size() * 8
            total += self._ids.nbytes + self._stamps.nbytes + self._alive.nbytes
            total += sys.getsizeof(self._slot_of) + len(self._slot_of) * _DICT_ENTRY_BYTES
            return total

    def search(
        self,
        query: np.ndarray,
        k: int,
        as_of: float | None = None,
        since: float | None = None,
        allowed: Callable[[int], bool] | None = None,
    ) -> list[VectorHit]:
        """The ``k`` most similar vectors, best first, none stamped after ``as_of`` or before ``since``.

        ``allowed`` is called (under the index lock) on candidate ids; rejected ones are skipped and the
        search widened until ``k`` are found or every vector in the time window has been considered.
        """
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k <= 0:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        q = self._as_query(query)
        upper = _bound(as_of, "as_of")
        lower = _bound(since, "since")
        if upper is not None and lower is not None and lower > upper:
            return []
        with self._lock:
            mask, count = self._select(upper, lower)
            if count == 0:
                return []
            # Keep the bitmap referenced for as long as FAISS holds a pointer into it.
            bitmap = None if mask is None else np.packbits(mask, bitorder="little")
            selector = None if bitmap is None else faiss.IDSelectorBitmap(self._n, faiss.swig_ptr(bitmap))
            fetch = int(k)
            while True:
                fetch = min(fetch, count)
                scores, slots = self._search_slots(q, fetch, selector, count)
                ids = self._ids[slots]
                stamps = self._stamps[slots]
                hits = [
                    VectorHit(int(i), float(s), float(t))
                    for i, s, t in zip(ids.tolist(), scores.tolist(), stamps.tolist(), strict=True)
                    if allowed is None or allowed(i)
                ]
                if len(hits) >= k or fetch >= count:
                    return hits[:k]
                fetch *= 2

    def _select(self, upper: float | None, lower: float | None) -> tuple[np.ndarray | None, int]:
        """Mask of the slots a search may return and its count; None when every slot qualifies."""
        n = self._n
        if upper is None and lower is None and self._tombstones == 0:
            return None, n
        mask = self._alive[:n].copy()
        stamps = self._stamps[:n]
        if upper is not None:
            mask &= stamps <= upper
        if lower is not None:
            mask &= stamps >= lower
        count = int(np.count_nonzero(mask))
        return (None if count == n else mask), count

    def _search_slots(self, q: np.ndarray, fetch: int, selector: Any, count: int) -> tuple[np.ndarray, np.ndarray]:
        if self._approximate and count > max(FLAT_SCAN_MAX, fetch * HNSW_VISITS_PER_RESULT):
            # Ask for a full ef of results: an unhindered walk meets far more selected vectors than that, so
            # coming up short means the filter hid the region the walk was drawn into (e.g. the nearest
            # vectors all lie after as_of), and what it found may be far from the true top-k.
            walk = max(self._config.hnsw_ef_search, fetch)
            params = faiss.SearchParametersHNSW(efSearch=walk)  # type: ignore[attr-defined]  # missing from the stub
            if selector is not None:
                params.sel = selector
            scores, slots = self._index.search(q, walk, params=params)
            found = slots[0] >= 0
            if int(np.count_nonzero(found)) >= min(walk, count):
                return scores[0][found][:fetch], slots[0][found][:fetch]
            # Fall back to an exact scan of the selection.
        flat = self._flat(self._index)
        params_flat = faiss.SearchParameters()
        params_flat.sel = _SELECT_ALL if selector is None else selector
        scores, slots = flat.search(q, fetch, params=params_flat)
        found = slots[0] >= 0
        return scores[0][found], slots[0][found]

    # -- writing -----------------------------------------------------------------

    def add(
        self,
        ids: Sequence[int] | np.ndarray,
        vectors: np.ndarray,
        stamps: Sequence[float] | np.ndarray,
    ) -> None:
        """Add vectors (normalised here); an id already present has its vector and stamp replaced."""
        id_arr = _as_ids(ids)
        n = id_arr.size
        vecs = self._as_vectors(vectors, n)
        stamp_arr = np.asarray(stamps, dtype=np.float64).reshape(-1)
        if stamp_arr.size != n:
            raise ValueError(f"got {n} ids but {stamp_arr.size} stamps")
        if not np.isfinite(stamp_arr).all():
            raise ValueError("stamps must be finite numbers")
        if n == 0:
            return
        # Within one batch the last occurrence of an id wins, as if added one by one.
        _, last = np.unique(id_arr[::-1], return_index=True)
        if last.size != n:
            keep = np.sort(n - 1 - last)
            id_arr, vecs, stamp_arr = id_arr[keep], vecs[keep], stamp_arr[keep]
        with self._write_lock:
            with self._lock:
                replaced = sum(1 for i in id_arr.tolist() if i in self._slot_of)
                live_after = len(self._slot_of) + id_arr.size - replaced
                switch = not self._approximate and live_after > self._config.exact_limit
                if not switch:
                    self._append(id_arr, vecs, stamp_arr)
            if switch:
                self._rebuild(approximate=True, extra=(id_arr, vecs, stamp_arr))
            else:
                self._maybe_compact()

    def remove(self, ids: Iterable[int]) -> int:
        """Forget these ids; returns how many were present."""
        wanted = [int(i) for i in ids]
        with self._write_lock:
            with self._lock:
                slots = [self._slot_of.pop(i) for i in wanted if i in self._slot_of]
                self._alive[slots] = False
                self._tombstones += len(slots)
            self._maybe_compact()
        return len(slots)

    def _append(self, ids: np.ndarray, vecs: np.ndarray, stamps: np.ndarray) -> None:
        """Caller holds both locks."""
        old = [self._slot_of[i] for i in ids.tolist() if i in self._slot_of]
        if old:
            self._alive[old] = False
            self._tombstones += len(old)
        start, end = self._n, self._n + ids.size
        self._reserve(end)
        self._index.add(vecs)
        self._ids[start:end] = ids
        self._stamps[start:end] = stamps
        self._alive[start:end] = True
        self._slot_of.update(zip(ids.tolist(), range(start, end), strict=True))
        self._n = end

    def _reserve(self, size: int) -> None:
        if size <= self._ids.size:
            return
        capacity = max(size, 2 * self._ids.size, 1024)
        for name in ("_ids", "_stamps", "_alive"):
            old = getattr(self, name)
            grown = np.zeros(capacity, dtype=old.dtype)
            grown[: self._n] = old[: self._n]
            setattr(self, name, grown)

    def _maybe_compact(self) -> None:
        """Caller holds the write lock."""
        if self._tombstones == 0 or self._tombstones <= TOMBSTONE_FRACTION * self._n:
            return
        live = self._n - self._tombstones
        approximate = self._approximate and live > BACK_TO_EXACT_FRACTION * self._config.exact_limit
        self._rebuild(approximate=approximate)

    def _rebuild(self, approximate: bool, extra: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
        """Build a fresh index from the live vectors (plus ``extra``) and swap it in.

        Caller holds the write lock, so nothing mutates the current index while it is read here without
        the RLock; searches go on against it until the swap.
        """
        keep = np.flatnonzero(self._alive[: self._n])
        if extra is not None and keep.size:
            keep = keep[~np.isin(self._ids[keep], extra[0])]  # those ids are being replaced
        index = self._new_index(approximate)
        old = self._vectors(self._index)
        for start in range(0, keep.size, _REBUILD_CHUNK):
            index.add(np.ascontiguousarray(old[keep[start : start + _REBUILD_CHUNK]]))
        ids = self._ids[keep]
        stamps = self._stamps[keep]
        if extra is not None:
            index.add(extra[1])
            ids = np.concatenate([ids, extra[0]])
            stamps = np.concatenate([stamps, extra[2]])
        n = ids.size
        slot_of = dict(zip(ids.tolist(), range(n), strict=True))
        alive = np.ones(n, dtype=bool)
        with self._lock:
            self._index, self._approximate = index, approximate
            self._ids, self._stamps, self._alive = ids, stamps, alive
            self._slot_of, self._n, self._tombstones = slot_of, n, 0

    def _new_index(self, approximate: bool) -> Any:
        if not approximate:
            return faiss.IndexFlatIP(self.dim)
        index = faiss.IndexHNSWFlat(self.dim, self._config.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self._ef_construction
        index.hnsw.efSearch = self._config.hnsw_ef_search
        return index

    @staticmethod
    def _flat(index: Any) -> Any:
        """The flat store of vectors: the index itself when exact, the HNSW's storage otherwise."""
        if isinstance(index, faiss.IndexHNSW):
            return faiss.downcast_index(index.storage)
        return index

    def _vectors(self, index: Any) -> np.ndarray:
        """Zero-copy view of the stored vectors; valid only until the index next grows."""
        flat = self._flat(index)
        n = flat.ntotal
        if n == 0:
            return np.empty((0, self.dim), dtype=np.float32)
        return faiss.rev_swig_ptr(flat.get_xb(), n * self.dim).reshape(n, self.dim)

    # -- validation --------------------------------------------------------------

    def _as_vectors(self, vectors: np.ndarray, n: int) -> np.ndarray:
        arr = np.asarray(vectors)
        if arr.dtype.kind not in "fiu":
            raise ValueError(f"vectors must be a numeric array, got dtype {arr.dtype}")
        if arr.ndim == 1 and n == 1:
            arr = arr.reshape(1, -1)
        if arr.ndim != 2 or arr.shape[1] != self.dim:
            raise ValueError(f"vectors must have shape (n, {self.dim}), got {arr.shape}")
        if arr.shape[0] != n:
            raise ValueError(f"got {n} ids but {arr.shape[0]} vectors")
        return _normalised(np.array(arr, dtype=np.float32, order="C"), "vector")

    def _as_query(self, query: np.ndarray) -> np.ndarray:
        arr = np.asarray(query)
        if arr.dtype.kind not in "fiu":
            raise ValueError(f"query must be a numeric array, got dtype {arr.dtype}")
        if arr.size != self.dim or arr.ndim not in (1, 2):
            raise ValueError(
                f"query must have {self.dim} dimensions (shape ({self.dim},) or (1, {self.dim})), got {arr.shape}"
            )
        return _normalised(np.array(arr, dtype=np.float32, order="C").reshape(1, self.dim), "query")


def _as_ids(ids: Sequence[int] | np.ndarray) -> np.ndarray:
    arr = np.asarray(ids)
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"ids must be a 1-D sequence of integers, got dtype {arr.dtype} and shape {arr.shape}")
    if arr.dtype.kind == "u" and arr.max() > np.iinfo(np.int64).max:
        raise ValueError("ids must fit in a signed 64-bit integer")
    return arr.astype(np.int64, copy=False)


def _normalised(arr: np.ndarray, what: str) -> np.ndarray:
    """L2-normalise rows in place; NaN, infinite (also after the cast to float32) and zero rows are refused."""
    finite = np.isfinite(arr).all(axis=1)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise ValueError(f"{what} rows {bad[:5].tolist()} contain NaN or infinite values")
    norms = np.linalg.norm(arr.astype(np.float64), axis=1)  # float64: squares of large float32 values overflow
    if not (norms > 0).all():
        bad = np.flatnonzero(~(norms > 0))
        raise ValueError(f"{what} rows {bad[:5].tolist()} have zero length and no direction")
    arr /= norms[:, None]
    return arr


def _bound(value: float | None, name: str) -> float | None:
    if value is None:
        return None
    bound = float(value)
    if math.isnan(bound):
        raise ValueError(f"{name} must be a number, got NaN")
    return bound
