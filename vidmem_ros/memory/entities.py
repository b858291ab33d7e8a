"""Entities: recurring things unified across events into prototypes (MM-Mem's symbolic layer).

Each detection is matched to the entities of its label by the cosine similarity
of its crop's embedding to their prototypes: close enough joins (and nudges
the prototype), otherwise a new entity starts.  "The red mug" and "the blue
mug" then stay apart while every sighting of either links back to its moment
and event.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from vidmem_ros.config import ArchiveConfig
from vidmem_ros.memory.records import Entity, Moment
from vidmem_ros.memory.rows import cell, stored_vector, vector_blob

# Beyond this many entities of one label, new sightings join the nearest one:
# RAM stays bounded even when a label is everywhere.
MAX_ENTITIES_PER_LABEL = 256


class EntityUnifier:
    def __init__(self, config: ArchiveConfig) -> None:
        self.config = config
        self._protos: dict[str, list[tuple[int, np.ndarray | None, int]]] | None = None

    def observe(self, db: sqlite3.Connection, moment: Moment, crops: list[np.ndarray | None]) -> list[int]:
        """Link each confident detection of a committed moment to an entity; returns the entity ids."""
        assert moment.id is not None
        protos = self._load(db)
        linked = []
        padded = list(crops) + [None] * (len(moment.detections) - len(crops))
        for det, vector in zip(moment.detections, padded[: len(moment.detections)], strict=True):
            if det.score < self.config.label_min_score:
                continue
            entity_id = self._match(db, protos.setdefault(det.label, []), det.label, moment.stamp, vector)
            db.execute(
                "INSERT INTO entity_sightings VALUES (?, ?, ?, ?, ?)",
                (entity_id, moment.id, moment.event_id, moment.stamp, det.score),
            )
            db.execute(
                "UPDATE entities SET sightings = sightings + 1, first_stamp = MIN(first_stamp, ?), "
                "last_stamp = MAX(last_stamp, ?) WHERE id = ?",
                (moment.stamp, moment.stamp, entity_id),
            )
            linked.append(entity_id)
        return linked

    def invalidate(self) -> None:
        """Drop the cached prototypes (after a forget or a rollback)."""
        self._protos = None

    def _match(
        self,
        db: sqlite3.Connection,
        candidates: list[tuple[int, np.ndarray | None, int]],
        label: str,
        stamp: float,
        vector: np.ndarray | None,
    ) -> int:
        best, best_sim = -1, -2.0
        for i, (_, proto, _) in enumerate(candidates):
            if proto is None and vector is None:
                sim = 1.0  # label-only entities: one per label
            elif proto is None or vector is None or proto.shape != vector.shape:
                sim = -1.0  # no prototype (cleared by a forget), or one of another embedder: attracts nothing new
            else:
                sim = float(np.dot(proto, vector))
            if sim > best_sim:
                best, best_sim = i, sim
        full = len(candidates) >= MAX_ENTITIES_PER_LABEL
        if best >= 0 and (best_sim >= self.config.entity_min_similarity or full):
            entity_id, proto, count = candidates[best]
            if proto is not None and vector is not None:
                merged = proto * count + vector
                proto = merged / max(float(np.linalg.norm(merged)), 1e-12)
                db.execute("UPDATE entities SET prototype = ? WHERE id = ?", (vector_blob(proto), entity_id))
            candidates[best] = (entity_id, proto, count + 1)
            return entity_id
        cur = db.execute(
            "INSERT INTO entities (label, prototype, first_stamp, last_stamp) VALUES (?, ?, ?, ?)",
            (label, None if vector is None else vector_blob(vector), stamp, stamp),
        )
        entity_id = int(cur.lastrowid or 0)
        candidates.append((entity_id, vector, 1))
        return entity_id

    def _load(self, db: sqlite3.Connection) -> dict[str, list[tuple[int, np.ndarray | None, int]]]:
        if self._protos is None:
            self._protos = {}
            for entity_id, label, blob, count in db.execute("SELECT id, label, prototype, sightings FROM entities"):
                proto = cell(blob, stored_vector, None)
                self._protos.setdefault(cell(label, str, ""), []).append((int(entity_id), proto, cell(count, int, 0)))
        return self._protos


def entities(db: sqlite3.Connection, label: str | None = None, as_of: float | None = None) -> list[Entity]:
    """Entities (optionally of one label) with their sightings counted up to ``as_of``."""
    upper = float("inf") if as_of is None else as_of
    rows = db.execute(
        "SELECT e.id, e.label, COUNT(s.moment_id), MIN(s.stamp), MAX(s.stamp) FROM entities e "
        "JOIN entity_sightings s ON s.entity_id = e.id WHERE s.stamp <= ? AND (? IS NULL OR e.label = ?) "
        "GROUP BY e.id ORDER BY MIN(s.stamp)",
        (upper, label, label),
    ).fetchall()
    return [
        Entity(int(r[0]), cell(r[1], str, ""), cell(r[2], int, 0), cell(r[3], float, 0.0), cell(r[4], float, 0.0))
        for r in rows
    ]
