"""Identities clustered online from unit vectors, kept in the store: voices (``speakers``) and faces (``faces``).

Each observation's vector joins the identity whose centroid is nearest if it is within ``match_distance`` (cosine
distance) and nearer by ``margin`` than the second nearest; otherwise it founds a new identity.  An identity whose
centroid comes within ``merge_distance`` of another's (each with ``merge_min_segments`` observations) is merged
into the older: its observations move over and its row points at the survivor.  Ids are rows of the kind's table,
written in the caller's transaction, so they are stable across restarts, and an id removed is never given again.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vidmem_ros.errors import InputError
from vidmem_ros.memory.rows import stored_vector, vector_blob
from vidmem_ros.memory.writes import get_meta, set_meta

log = logging.getLogger(__name__)


class Thresholds(Protocol):
    """The clustering settings (``speaker`` and ``face`` sections)."""

    match_distance: float
    margin: float
    merge_distance: float
    merge_min_segments: int


@dataclass(frozen=True)
class Kind:
    """Where one kind of identity lives: its table, the observations that point at it, and their vectors."""

    noun: str  # "voice", "face": for messages
    table: str  # identity rows (id, centroid, segments, first_stamp, last_stamp, name, name_ref, merged_into)
    members: str  # observation rows
    column: str  # the members' column holding their identity's id
    vectors_sql: str  # (stamp, vector) of each observation still held by identity ?
    # The highest id ever removed (meta): ``speaker/N`` or ``face/N`` in an answer already given, a log or the fleet
    # never comes to mean someone else after a person was forgotten.
    retired_key: str


@dataclass
class Identity:
    id: int
    total: np.ndarray  # sum of its observations' unit vectors
    segments: int  # observations: speech segments, face sightings
    first: float
    last: float
    name: str = ""

    @property
    def centroid(self) -> np.ndarray:
        return self.total / max(float(np.linalg.norm(self.total)), 1e-12)


@dataclass(frozen=True)
class Assignment:
    identity_id: int
    distance: float  # to the identity's centroid before it joined (0 for a new one)
    new: bool
    merged: tuple[int, ...] = ()  # identities found to be this one and merged into it


class Clusters:
    """The identities of one kind in memory, cached from the store; every change is written in the caller's
    transaction."""

    def __init__(self, kind: Kind, thresholds: Thresholds) -> None:
        self.kind = kind
        self.config = thresholds
        self._cache: dict[int, Identity] | None = None

    def invalidate(self) -> None:
        """Forget the cache (a rolled-back transaction, a forget): the next call reads the store again."""
        self._cache = None

    def identities(self, db: sqlite3.Connection) -> dict[int, Identity]:
        if self._cache is None:
            self._cache = load(db, self.kind)
        return self._cache

    def place(
        self, db: sqlite3.Connection, vector: np.ndarray, stamp: float, track: tuple[int, float] | None = None
    ) -> tuple[Identity, np.ndarray, float, bool]:
        """The identity ``vector`` joins, the checked unit vector, its distance to that identity before it joined,
        and whether it is new (distance 0); InputError for a vector none can hold.  ``track`` (an identity and a
        distance) is the identity of the same thing a moment before: joined within that looser distance."""
        known = self.identities(db)
        vector = checked_vector(vector, next((v.total.shape[0] for v in known.values()), None), self.kind.noun)
        if track is not None and track[0] in known:
            distance = 1.0 - float(known[track[0]].centroid @ vector)
            if distance <= track[1]:
                return self._joined(known[track[0]], vector, stamp), vector, distance, False
        ranked = sorted((1.0 - float(v.centroid @ vector), v.id) for v in known.values())
        distance = ranked[0][0] if ranked else np.inf
        runner_up = ranked[1][0] if len(ranked) > 1 else np.inf
        if distance <= self.config.match_distance and runner_up - distance >= self.config.margin:
            return self._joined(known[ranked[0][1]], vector, stamp), vector, distance, False
        return self._found(db, vector, stamp), vector, 0.0, True

    @staticmethod
    def _joined(chosen: Identity, vector: np.ndarray, stamp: float) -> Identity:
        chosen.total = chosen.total + vector
        chosen.segments += 1
        chosen.first, chosen.last = min(chosen.first, stamp), max(chosen.last, stamp)
        return chosen

    def settle(self, db: sqlite3.Connection, chosen: Identity) -> list[int]:
        """Save ``chosen`` and merge it with every identity its centroid came close to; [survivor, merged...] or
        [] if none."""
        save(db, self.kind, chosen)
        known = self.identities(db)
        gone: list[int] = []
        while True:
            other = self._twin(chosen, known)
            if other is None:
                break
            keep, drop = (chosen, other) if chosen.id < other.id else (other, chosen)
            merge(db, self.kind, keep, drop)
            del known[drop.id]
            gone.append(drop.id)
            chosen = keep
        return [chosen.id, *gone] if gone else []

    def _found(self, db: sqlite3.Connection, vector: np.ndarray, stamp: float) -> Identity:
        ref = next_id(db, self.kind)
        db.execute(
            f"INSERT INTO {self.kind.table} (id, centroid, segments, first_stamp, last_stamp) VALUES (?, ?, 1, ?, ?)",
            (ref, vector_blob(vector), stamp, stamp),
        )
        found = Identity(ref, vector.astype(np.float32), 1, stamp, stamp)
        self.identities(db)[found.id] = found
        return found

    def _twin(self, chosen: Identity, known: dict[int, Identity]) -> Identity | None:
        need = self.config.merge_min_segments
        if chosen.segments < need:
            return None
        near = [
            (1.0 - float(chosen.centroid @ v.centroid), v.id)
            for v in known.values()
            if v.id != chosen.id and v.segments >= need
        ]
        close = min(near, default=None)
        return known[close[1]] if close is not None and close[0] <= self.config.merge_distance else None


def merge(db: sqlite3.Connection, kind: Kind, keep: Identity, drop: Identity) -> None:
    """``drop`` is ``keep``: its observations, times and name (if ``keep`` has none) move to ``keep``."""
    keep.total = keep.total + drop.total
    keep.segments += drop.segments
    keep.first, keep.last = min(keep.first, drop.first), max(keep.last, drop.last)
    if not keep.name and drop.name:
        keep.name = drop.name
        db.execute(f"UPDATE {kind.table} SET name = ?, name_ref = (SELECT name_ref FROM {kind.table} WHERE id = ?) "
                   "WHERE id = ?", (drop.name, drop.id, keep.id))  # fmt: skip
    db.execute(f"UPDATE {kind.members} SET {kind.column} = ? WHERE {kind.column} = ?", (keep.id, drop.id))
    db.execute(f"UPDATE {kind.table} SET merged_into = ? WHERE id = ? OR merged_into = ?", (keep.id, drop.id, drop.id))
    save(db, kind, keep)
    log.info("%s %d proved to be %s %d: merged (%d observations)", kind.noun, drop.id, kind.noun, keep.id,
             keep.segments)  # fmt: skip


def save(db: sqlite3.Connection, kind: Kind, identity: Identity) -> None:
    db.execute(
        f"UPDATE {kind.table} SET centroid = ?, segments = ?, first_stamp = ?, last_stamp = ? WHERE id = ?",
        (vector_blob(identity.total), identity.segments, identity.first, identity.last, identity.id),
    )


def next_id(db: sqlite3.Connection, kind: Kind) -> int:
    highest = db.execute(f"SELECT MAX(id) FROM {kind.table}").fetchone()[0] or 0
    return max(int(highest), int(get_meta(db, kind.retired_key) or 0)) + 1


def retire(db: sqlite3.Connection, kind: Kind, ids: list[int]) -> None:
    """Remove these identities' rows (and those merged into them) for good; their ids are never given again."""
    for ref in ids:
        sql = f"SELECT MAX(id) FROM {kind.table} WHERE id = ? OR merged_into = ?"
        gone = db.execute(sql, (ref, ref)).fetchone()[0]
        set_meta(db, kind.retired_key, str(max(int(get_meta(db, kind.retired_key) or 0), int(gone or ref))))
        db.execute(f"DELETE FROM {kind.table} WHERE id = ? OR merged_into = ?", (ref, ref))
        db.execute(f"UPDATE {kind.members} SET {kind.column} = NULL WHERE {kind.column} = ?", (ref,))


def load(db: sqlite3.Connection, kind: Kind) -> dict[int, Identity]:
    """The live identities; a row whose centroid cannot be read is left out (and logged), the rest still load."""
    found: dict[int, Identity] = {}
    rows = db.execute(
        f"SELECT id, centroid, segments, first_stamp, last_stamp, name FROM {kind.table} WHERE merged_into IS NULL"
    )
    for ref, blob, segments, first, last, name in rows:
        try:
            total = checked_vector(stored_vector(blob), None, kind.noun, normalise=False)
        except (InputError, TypeError, ValueError) as exc:
            log.warning("%s %s has an unreadable centroid and is left out: %s", kind.noun, ref, exc)
            continue
        found[int(ref)] = Identity(int(ref), total, int(segments), float(first), float(last), str(name or ""))
    dims = {v.total.shape[0] for v in found.values()}
    if len(dims) > 1:  # the model changed: only the newest model's identities can be matched
        newest = found[max(found)].total.shape[0]
        found = {k: v for k, v in found.items() if v.total.shape[0] == newest}
    return found


def refresh(db: sqlite3.Connection, kind: Kind) -> int:
    """After observations were forgotten: each identity rebuilt from those it has left, one with none removed
    (with its vector and any name it had).  Returns the identities removed."""
    removed = 0
    for (ref,) in db.execute(f"SELECT id FROM {kind.table} WHERE merged_into IS NULL").fetchall():
        rows = db.execute(kind.vectors_sql, (ref,)).fetchall()
        vectors = [stored_vector(blob) for _, blob in rows if blob is not None]
        vectors = [v for v in vectors if v.shape == vectors[0].shape and np.isfinite(v).all()] if vectors else []
        if not vectors:
            retire(db, kind, [ref])
            removed += 1
            continue
        stamps = [float(stamp) for stamp, _ in rows]
        db.execute(
            f"UPDATE {kind.table} SET centroid = ?, segments = ?, first_stamp = ?, last_stamp = ? WHERE id = ?",
            (vector_blob(np.sum(vectors, axis=0)), len(vectors), min(stamps), max(stamps), ref),
        )
    return removed


def checked_vector(vector: np.ndarray, dim: int | None, noun: str, normalise: bool = True) -> np.ndarray:
    """A finite, non-zero float32 vector of ``dim`` (any, if None), unit length if ``normalise``."""
    vector = np.asarray(vector, dtype=np.float32).ravel()
    if vector.size == 0 or not np.isfinite(vector).all():
        raise InputError("bad_embedding", f"the {noun} vector is empty or not finite")
    if dim is not None and vector.size != dim:
        raise InputError("bad_embedding", f"a {vector.size}-d {noun} vector; those in memory are {dim}-d")
    norm = float(np.linalg.norm(vector))
    if norm < 1e-6:
        raise InputError("bad_embedding", f"the {noun} vector is zero")
    return vector / norm if normalise else vector
