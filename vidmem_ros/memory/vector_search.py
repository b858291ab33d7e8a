"""Similarity search over vectors kept in SQLite, through an in-RAM FAISS index rebuilt from it.

SQLite is the truth; the index is a cache.  The writer's process adds and
removes vectors as it writes them.  Another process (the query node) catches
up before each search by reading rows it has not seen, rebuilds after a
forget, and drops hits whose vectors retention has since deleted.  A store holding
vectors of two sizes (the embedder was changed) is searched over those the size of
the newest; the others are counted and named in the log, not indexed.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from vidmem_ros.config import IndexConfig
from vidmem_ros.memory.reads import existing_vectors
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.vector_index import VectorHit, VectorIndex

log = logging.getLogger(__name__)


class VectorSearch:
    def __init__(self, store: SqliteStore, table: str, config: IndexConfig) -> None:
        self.store = store
        self.table = table
        self.config = config
        self._lock = threading.Lock()
        self._index: VectorIndex | None = None
        self._last_id = -1
        self._generation: str | None = None

    @property
    def dim(self) -> int | None:
        return None if self._index is None else self._index.dim

    def __len__(self) -> int:
        return 0 if self._index is None else len(self._index)

    def memory_bytes(self) -> int:
        return 0 if self._index is None else self._index.memory_bytes()

    def sync(self) -> None:
        """Catch up with rows written since the last call (by any process); rebuild after a forget."""
        with self._lock:
            generation = self.store.get_meta("forget_generation")
            if generation != self._generation:
                self._index, self._last_id, self._generation = None, -1, generation
            self._load(self._index.dim if self._index is not None else self._newest_dim())

    def _load(self, dim: int | None) -> None:
        for ids, vectors, stamps in self.store.vectors(self.table, after=self._last_id, dim=dim):
            self._add(ids, vectors, stamps)

    def _newest_dim(self) -> int | None:
        dim, others = self.store.vector_sizes(self.table)
        if others:
            log.warning(
                "%s: %d vector(s) are not of the newest vectors' size (%d values; an earlier embedder made them): "
                "they are left out of similarity search",
                self.table,
                others,
                dim,
            )
        return dim

    def add(self, vector_id: int, vector: np.ndarray, stamp: float) -> None:
        """Index a vector this process just committed."""
        with self._lock:
            if self._index is not None and vector.shape != (self._index.dim,):
                # The embedder changed: the newest vectors' size wins, as at start; the index is rebuilt over them.
                self._index, self._last_id = None, -1
                self._load(int(vector.shape[0]))
                return
            self._add(np.array([vector_id], dtype=np.int64), vector[None, :], np.array([stamp]))

    def remove(self, ids: list[int]) -> None:
        with self._lock:
            if self._index is not None and ids:
                self._index.remove(ids)

    def search(self, query: np.ndarray, k: int, as_of: float | None = None) -> list[VectorHit]:
        """The ``k`` nearest vectors still in the store, none stamped after ``as_of``."""
        with self._lock:
            index = self._index
        if index is None or len(index) == 0:
            return []
        if query.shape != (index.dim,):
            raise ValueError(f"query vector has shape {query.shape}; this memory's vectors have {index.dim} values")
        while True:
            hits = index.search(query, k * 2, as_of=as_of)
            with self.store.read() as db:
                alive = existing_vectors(db, self.table, [h.id for h in hits]) if hits else set()
            gone = [h.id for h in hits if h.id not in alive]
            if gone:  # deleted by retention in another process since we indexed them
                index.remove(gone)
            if not gone or len(hits) - len(gone) >= k:
                return [h for h in hits if h.id in alive][:k]

    def _add(self, ids: np.ndarray, vectors: np.ndarray, stamps: np.ndarray) -> None:
        if self._index is None:
            self._index = VectorIndex(int(vectors.shape[1]), self.config)
        self._index.add(ids, vectors, stamps)
        self._last_id = max(self._last_id, int(ids.max()))
