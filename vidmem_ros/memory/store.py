"""Durable memory store: SQLite in WAL mode.

One writer connection (the ingest engine) and a read-only connection per
reading thread (queries, possibly in another process).  WAL lets readers see
only committed data and never block the writer.  Each kept frame is committed
in its own transaction, so a killed process loses only frames still in flight.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from vidmem_ros.errors import StoreError
from vidmem_ros.memory import schema
from vidmem_ros.memory.records import (
    Edge,
    Event,
    Moment,
    Pose,
    SearchHit,
    Sighting,
    SuperEvent,
    TextLine,
    TextRead,
    Transcript,
)
from vidmem_ros.perception.types import Detection, Tag
from vidmem_ros.validation import QUATERNION_NORM_TOLERANCE


def pose_columns(prefix: str = "") -> str:
    """The pose columns as a select list, each with ``prefix`` ("m." of a joined table, "start_" of an event)."""
    return ", ".join(prefix + c for c in schema.POSE_COLUMNS)


POSE_SQL = pose_columns()
IN_VIEW_KEY = "in_view"  # meta: the frames in the ingesting engine's short-term buffer
FRAME_WALL_KEY = "last_frame_wall"  # meta: the wall time (Unix s) at which the newest frame was stored
_MOMENT_SQL = f"id, stamp, source, width, height, sharpness, quality, event_id, tier, {POSE_SQL}"


class SqliteStore:
    def __init__(self, path: str | Path, readonly: bool = False, timeout_s: float = 5.0) -> None:
        self.path = Path(path).expanduser()
        self.readonly = readonly
        self.timeout_s = timeout_s
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        try:
            if readonly:
                self._check_version(self._reader())
            else:
                self._writer = self._open_writer()
        except sqlite3.DatabaseError as exc:
            self.close()
            raise StoreError(f"cannot open memory store {self.path}: {exc}") from exc

    # -- connections -------------------------------------------------------------

    def _open_writer(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the directory of memory store {self.path}: {exc.strerror}") from exc
        db = sqlite3.connect(self.path, timeout=self.timeout_s, check_same_thread=False, isolation_level=None)
        self._track(db)
        self._check_is_store(db)
        if db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
            # Lets retention and forget hand freed pages back; only takes effect before the first table.
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(f"memory store {self.path} cannot use WAL journaling (got {mode})")
        # NORMAL is crash-safe in WAL mode: a killed process loses nothing committed.
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        schema.create_or_upgrade(db)
        self._check_version(db)
        return db

    def _reader(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            if not self.path.exists():
                raise StoreError(f"memory store {self.path} does not exist yet (has the ingest node run?)")
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=self.timeout_s, check_same_thread=False)
            db.execute("PRAGMA query_only = ON")
            self._track(db)
            self._local.db = db
        return db

    def _track(self, db: sqlite3.Connection) -> None:
        with self._connections_lock:
            self._connections.append(db)

    def _check_is_store(self, db: sqlite3.Connection) -> None:
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a readable SQLite file: {exc}") from exc

    def _check_version(self, db: sqlite3.Connection) -> None:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a vidmem memory store: {exc}") from exc
        if row is None or int(row[0]) != schema.SCHEMA_VERSION:
            version = row and row[0]
            raise StoreError(f"{self.path} has schema version {version}, this build reads {schema.SCHEMA_VERSION}")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One atomic transaction on the writer connection; nested calls join the outer one."""
        if self._writer is None:
            raise StoreError(f"memory store {self.path} is open read-only")
        with self._write_lock:
            outer = getattr(self._local, "writing", False)
            if outer:
                yield self._writer
                return
            self._local.writing = True
            try:
                self._writer.execute("BEGIN IMMEDIATE")
                try:
                    yield self._writer
                except BaseException:
                    if self._writer.in_transaction:  # SQLite rolls back by itself on some errors (disk full)
                        self._writer.execute("ROLLBACK")
                    raise
                try:
                    self._writer.execute("COMMIT")
                except sqlite3.Error:
                    if self._writer.in_transaction:
                        self._writer.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise _store_error(self.path, exc) from exc
            finally:
                self._local.writing = False

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection that sees committed data (and, inside ``write()``, that transaction's own rows)."""
        try:
            if getattr(self._local, "writing", False) and self._writer is not None:
                yield self._writer
            else:
                yield self._reader()
        except sqlite3.Error as exc:
            raise _store_error(self.path, exc) from exc

    # -- meta and counters ---------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        with self.read() as db:
            return get_meta(db, key)

    def set_meta(self, key: str, value: str) -> None:
        with self.write() as db:
            set_meta(db, key, value)

    def synced_through(self, kind: str) -> int:
        """The highest local id of ``kind`` (moments, texts, transcripts, events) the fleet store acknowledged."""
        value = self.get_meta(f"fleet_synced_{kind}")
        return int(value) if value and value.isdigit() else 0

    def in_view_ids(self) -> list[int]:
        """The ids of the frames in the ingesting engine's short-term buffer (see ``write_in_view``)."""
        return json_list(self.get_meta(IN_VIEW_KEY) or "[]", int)

    def last_frame_wall(self) -> float | None:
        """The wall time (Unix seconds) at which the newest frame was stored, if any frame was."""
        value = self.get_meta(FRAME_WALL_KEY)
        try:
            return float(value) if value else None
        except ValueError:
            return None

    def bump_counter(self, name: str, by: int = 1) -> None:
        """Add to a durable counter shared by every process using this store."""
        with self.write() as db:
            db.execute(
                "INSERT INTO counters VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                (name, by),
            )

    def counter(self, name: str) -> int:
        with self.read() as db:
            row = db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def counters(self, prefix: str = "") -> dict[str, int]:
        with self.read() as db:
            rows = db.execute("SELECT name, value FROM counters WHERE name LIKE ?", (prefix + "%",)).fetchall()
        return {str(name): int(value) for name, value in rows}

    # -- moments -------------------------------------------------------------------

    def add_moment(self, moment: Moment) -> int:
        with self.write() as db:
            return insert_moment(db, moment)

    def moment(self, moment_id: int, with_payload: bool = True) -> Moment | None:
        with self.read() as db:
            row = db.execute(f"SELECT {_MOMENT_SQL} FROM moments WHERE id = ?", (moment_id,)).fetchone()
            if row is None:
                return None
            moment = _moment_from(row)
            _attach_details(db, [moment], with_payload)
        return moment

    def moments(
        self, start: float, end: float, as_of: float | None = None, limit: int = 1000, with_payload: bool = False
    ) -> list[Moment]:
        """Moments with ``start <= stamp <= min(end, as_of)``, oldest first."""
        with self.read() as db:
            rows = db.execute(
                f"SELECT {_MOMENT_SQL} FROM moments WHERE stamp BETWEEN ? AND ? ORDER BY stamp LIMIT ?",
                (start, min(end, _upper(as_of)), limit),
            ).fetchall()
            found = [_moment_from(row) for row in rows]
            _attach_details(db, found, with_payload)
        return found

    def event_moments(self, event_id: int, with_payload: bool = False) -> list[Moment]:
        with self.read() as db:
            rows = db.execute(
                f"SELECT {_MOMENT_SQL} FROM moments WHERE event_id = ? ORDER BY stamp", (event_id,)
            ).fetchall()
            found = [_moment_from(row) for row in rows]
            _attach_details(db, found, with_payload)
        return found

    def sightings(self, labels: Sequence[str], as_of: float | None, min_score: float) -> list[Sighting]:
        """Every detection of any of ``labels`` at or above ``min_score``, oldest first, none after ``as_of``."""
        if not labels:
            return []
        marks = ", ".join("?" for _ in labels)
        pose = pose_columns("m.")
        sql = (
            f"SELECT d.moment_id, d.stamp, d.label, d.score, {pose} "
            f"FROM detections d JOIN moments m ON m.id = d.moment_id "
            f"WHERE d.label IN ({marks}) AND d.score >= ? AND d.stamp <= ? ORDER BY d.stamp, d.score DESC"
        )
        with self.read() as db:
            rows = db.execute(sql, (*labels, min_score, _upper(as_of))).fetchall()
        return [Sighting(r[0], r[1], r[2], r[3], pose_from(r[4:12])) for r in rows]

    def tag_sightings(self, word: str, as_of: float | None, min_score: float) -> list[Sighting]:
        """Frames whose scene tags answer to ``word`` (a class or one of its broader terms), oldest first, each
        named by the tag's class ("tabby" for "animal")."""
        pose = pose_columns("m.")
        sql = (
            f"SELECT t.moment_id, t.stamp, t.label, t.score, {pose} FROM tags t JOIN moments m ON m.id = t.moment_id "
            f"WHERE t.word = ? AND t.score >= ? AND t.stamp <= ? ORDER BY t.stamp, t.score DESC"
        )
        with self.read() as db:
            rows = db.execute(sql, (word.lower(), min_score, _upper(as_of))).fetchall()
        return [Sighting(r[0], r[1], r[2], r[3], pose_from(r[4:12])) for r in rows]

    def moment_count(self, as_of: float | None = None) -> int:
        with self.read() as db:
            return int(db.execute("SELECT COUNT(*) FROM moments WHERE stamp <= ?", (_upper(as_of),)).fetchone()[0])

    def event_count(self, status: str | None = None) -> int:
        """Events in the store, or only those with ``status`` (open, closed, quarantined)."""
        where, args = ("WHERE status = ?", (status,)) if status else ("", ())
        with self.read() as db:
            return int(db.execute(f"SELECT COUNT(*) FROM events {where}", args).fetchone()[0])

    def time_span(self, as_of: float | None = None) -> tuple[float, float] | None:
        with self.read() as db:
            row = db.execute("SELECT MIN(stamp), MAX(stamp) FROM moments WHERE stamp <= ?", (_upper(as_of),)).fetchone()
        return None if row[0] is None else (float(row[0]), float(row[1]))

    def vectors(self, table: str, after: int = -1) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(ids, vectors, stamps) with ids above ``after``, in chunks, from ``moment_vectors`` or ``event_vectors``."""
        key = _vector_key(table)
        last = after
        while True:
            with self.read() as db:
                rows = db.execute(
                    f"SELECT {key}, stamp, vector FROM {table} WHERE {key} > ? ORDER BY {key} LIMIT 20000", (last,)
                ).fetchall()
            if not rows:
                return
            last = int(rows[-1][0])
            ids = np.array([r[0] for r in rows], dtype=np.int64)
            stamps = np.array([r[1] for r in rows], dtype=np.float64)
            vectors = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
            yield ids, vectors, stamps

    # -- events and transcripts ------------------------------------------------------

    def event(self, event_id: int) -> Event | None:
        with self.read() as db:
            row = db.execute(f"SELECT {EVENT_SQL} FROM events WHERE id = ?", (event_id,)).fetchone()
        return None if row is None else event_from(row)

    def events(self, start: float = -np.inf, end: float = np.inf, as_of: float | None = None) -> list[Event]:
        """Events overlapping [start, end], oldest first.  With ``as_of``, only events closed by then."""
        visible = "end <= ? AND status = 'closed'" if as_of is not None else "? IS NULL"
        with self.read() as db:
            rows = db.execute(
                f"SELECT {EVENT_SQL} FROM events WHERE end >= ? AND start <= ? AND {visible} ORDER BY start",
                (start, end, as_of),
            ).fetchall()
        return [event_from(row) for row in rows]

    def add_transcript(self, transcript: Transcript) -> int:
        with self.write() as db:
            return insert_transcript(db, transcript)

    def transcripts(self, start: float, end: float, as_of: float | None = None) -> list[Transcript]:
        with self.read() as db:
            rows = db.execute(
                "SELECT id, start, end, text, speaker FROM transcripts WHERE end >= ? AND start <= ? AND end <= ? "
                "ORDER BY start",
                (start, end, _upper(as_of)),
            ).fetchall()
        return [Transcript(r[1], r[2], r[3], r[4], r[0]) for r in rows]

    def texts_read(self, start: float, end: float, as_of: float | None = None, limit: int = 500) -> list[TextRead]:
        """Lines of text read (OCR) with ``start <= stamp <= min(end, as_of)``, oldest first, with the robot's pose."""
        pose = pose_columns("m.")
        with self.read() as db:
            rows = db.execute(
                f"SELECT t.id, t.moment_id, t.stamp, t.text, t.score, {pose} FROM texts t "
                f"JOIN moments m ON m.id = t.moment_id WHERE t.stamp BETWEEN ? AND ? ORDER BY t.stamp LIMIT ?",
                (start, min(end, _upper(as_of)), limit),
            ).fetchall()
        return [TextRead(r[0], r[1], r[2], r[3], r[4], pose_from(r[5:13])) for r in rows]

    def text_lines(self, ids: Sequence[int]) -> list[TextRead]:
        """The lines of text read with these ids, oldest first, with the robot's pose."""
        if not ids:
            return []
        pose = pose_columns("m.")
        marks = ", ".join("?" for _ in ids)
        with self.read() as db:
            rows = db.execute(
                f"SELECT t.id, t.moment_id, t.stamp, t.text, t.score, {pose} FROM texts t "
                f"JOIN moments m ON m.id = t.moment_id WHERE t.id IN ({marks}) ORDER BY t.stamp, t.id",
                tuple(ids),
            ).fetchall()
        return [TextRead(r[0], r[1], r[2], r[3], r[4], pose_from(r[5:13])) for r in rows]

    def moment_vector(self, moment_id: int) -> np.ndarray | None:
        with self.read() as db:
            row = db.execute("SELECT vector FROM moment_vectors WHERE moment_id = ?", (moment_id,)).fetchone()
        return None if row is None else cell(row[0], stored_vector, None)

    def summary(self, key: str) -> tuple[float, float, str] | None:
        """A stored summary (the root's key is ``root``): start, end, text."""
        with self.read() as db:
            row = db.execute("SELECT start, end, text FROM summaries WHERE key = ?", (key,)).fetchone()
        return None if row is None else (cell(row[0], float, 0.0), cell(row[1], float, 0.0), cell(row[2], str, ""))

    def moments_near(
        self, x: float, y: float, radius: float, as_of: float | None = None, limit: int = 5000
    ) -> list[Moment]:
        """Moments whose pose lies within ``radius`` metres of (x, y), oldest first."""
        with self.read() as db:
            rows = db.execute(
                f"SELECT {_MOMENT_SQL} FROM moments WHERE px BETWEEN ? AND ? AND py BETWEEN ? AND ? AND stamp <= ? "
                "ORDER BY stamp LIMIT ?",
                (x - radius, x + radius, y - radius, y + radius, _upper(as_of), limit),
            ).fetchall()
        found = [_moment_from(row) for row in rows]
        return [m for m in found if m.pose is not None and math.hypot(m.pose.x - x, m.pose.y - y) <= radius]

    def super_events(self, as_of: float | None = None) -> list[SuperEvent]:
        """Periods of memory, oldest first; with ``as_of`` only those that began by then."""
        with self.read() as db:
            rows = db.execute(
                "SELECT id, start, end, event_count, summary FROM super_events WHERE start <= ? ORDER BY start",
                (_upper(as_of),),
            ).fetchall()
        return [
            SuperEvent(
                cell(r[0], int, 0),
                cell(r[1], float, 0.0),
                cell(r[2], float, 0.0),
                cell(r[3], int, 0),
                cell(r[4], str, ""),
            )
            for r in rows
        ]

    def edges(self, event_id: int, kinds: Sequence[str] = ()) -> list[Edge]:
        with self.read() as db:
            return edges_of(db, event_id, kinds)

    # -- search ----------------------------------------------------------------------

    def search_text(
        self, query: str, limit: int = 10, as_of: float | None = None, kinds: Sequence[str] = ()
    ) -> list[SearchHit]:
        """Full-text search over event documents, texts read and transcripts (BM25), plus detected labels."""
        words = [w.lower() for w in re.findall(r"\w+", query)]
        if not words or limit <= 0:
            return []
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in words)
        kind_filter = f"AND kind IN ({', '.join('?' for _ in kinds)})" if kinds else ""
        with self.read() as db:
            rows = db.execute(
                f"SELECT kind, ref, stamp, end_stamp, -bm25(documents), text FROM documents "
                f"WHERE documents MATCH ? AND end_stamp <= ? {kind_filter} ORDER BY bm25(documents) LIMIT ?",
                (match, _upper(as_of), *kinds, limit),
            ).fetchall()
            hits = [SearchHit(r[0], int(r[1]), float(r[2]), float(r[3]), float(r[4]), r[5]) for r in rows]
            if not kinds or "text" in kinds:
                found = {h.ref for h in hits if h.kind == "text"}
                hits += [h for h in _run_together_hits(db, words, as_of, limit) if h.ref not in found]
            if not kinds or "moment" in kinds:
                hits += _label_hits(db, words, as_of, limit)
        hits.sort(key=lambda h: -h.score)
        return hits[:limit]

    def search_place(
        self,
        x: float,
        y: float,
        radius: float,
        as_of: float | None = None,
        frame_id: str | None = None,
        limit: int = 50,
    ) -> list[SearchHit]:
        """Moments whose pose lies within ``radius`` metres of (x, y), nearest first, at most one per event."""
        frame_filter = "AND pose_frame = ?" if frame_id else ""
        args: tuple[Any, ...] = (x - radius, x + radius, y - radius, y + radius, _upper(as_of))
        with self.read() as db:
            rows = db.execute(
                f"SELECT {_MOMENT_SQL} FROM moments WHERE px BETWEEN ? AND ? AND py BETWEEN ? AND ? AND stamp <= ? "
                f"{frame_filter} ORDER BY stamp",
                args + ((frame_id,) if frame_id else ()),
            ).fetchall()
        best: dict[object, SearchHit] = {}
        for row in rows:
            m = _moment_from(row)
            if m.pose is None:  # a pose the file holds only in part
                continue
            assert m.id is not None
            distance = float(np.hypot(m.pose.x - x, m.pose.y - y))
            if distance > radius:
                continue
            key = m.event_id if m.event_id is not None else ("moment", m.id)
            hit = SearchHit("moment", m.id, m.stamp, m.stamp, 1.0 - distance / radius if radius else 1.0, "", m.pose)
            if key not in best or hit.score > best[key].score:
                best[key] = hit
        return sorted(best.values(), key=lambda h: -h.score)[:limit]

    # -- pose track ------------------------------------------------------------------

    def add_pose_track(self, samples: Sequence[tuple[float, Pose]]) -> None:
        """Samples of the robot's path, in one transaction."""
        with self.write() as db:
            insert_pose_track(db, samples)

    def pose_track(self, start: float, end: float, as_of: float | None = None) -> list[tuple[float, Pose]]:
        """The robot's path with ``start <= stamp <= min(end, as_of)``, oldest first, as (stamp, pose)."""
        with self.read() as db:
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'pose_track'").fetchone() is None:
                return []  # a store no build with a track has written yet (this process may only read it)
            rows = db.execute(
                f"SELECT stamp, {POSE_SQL} FROM pose_track WHERE stamp BETWEEN ? AND ? ORDER BY stamp",
                (start, min(end, _upper(as_of))),
            ).fetchall()
        track = [(cell(r[0], float, math.nan), pose_from(r[1:9])) for r in rows]
        return [(stamp, pose) for stamp, pose in track if pose is not None and math.isfinite(stamp)]

    # -- health ----------------------------------------------------------------------

    def disk_bytes(self) -> int:
        """Bytes the store occupies on disk: the database file plus its WAL and shared-memory files."""
        return sum(p.stat().st_size for p in store_files(self.path) if p.exists())

    def used_bytes(self) -> int:
        """Bytes on disk less the free pages SQLite will reuse: what the disk budget counts."""
        with self.read() as db:
            page_size = db.execute("PRAGMA page_size").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
        return max(0, self.disk_bytes() - int(free * page_size))

    def bound_wal(self, max_bytes: int) -> None:
        """Checkpoint the WAL automatically once it holds about ``max_bytes``, and cut its file back to that size."""
        if self._writer is None:
            return
        self._writer_pragma(f"wal_autocheckpoint = {max(1, max_bytes // int(self._writer_pragma('page_size')))}")
        self._writer_pragma(f"journal_size_limit = {max(0, max_bytes)}")

    def integrity_ok(self) -> bool:
        with self.read() as db:
            return bool(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok")

    def checkpoint(self, attempts: int = 20) -> bool:
        """Fold the WAL into the database file and give free pages back; False if readers kept it busy.

        The vacuum writes every page it moves to the WAL, so it goes a WAL's worth (``wal_autocheckpoint``
        pages) at a time, each folded in before the next: the files never grow on the way down."""
        if self._writer is None or not self._fold_wal(attempts):
            return False
        step = int(self._writer_pragma("wal_autocheckpoint")) or 1000
        before, free = -1, int(self._writer_pragma("freelist_count"))
        while free and free != before:  # none freed: a store made without auto_vacuum keeps its free pages
            # executescript steps the pragma to completion; execute() would free a single page.
            self._writer_pragma(f"incremental_vacuum({step})", script=True)
            if not self._fold_wal(attempts):
                return False
            before, free = free, int(self._writer_pragma("freelist_count"))
        return True

    def _fold_wal(self, attempts: int) -> bool:
        for attempt in range(attempts):
            with self._write_lock:
                # Retried here, not in SQLite's busy handler, which would wait timeout_s for each reader.
                self._writer_pragma("busy_timeout = 0")
                try:
                    busy = self._writer_pragma("wal_checkpoint(TRUNCATE)")
                finally:
                    self._writer_pragma(f"busy_timeout = {round(self.timeout_s * 1000)}")
            if not busy:
                return True
            time.sleep(0.05 * (attempt + 1))  # a reader holds an old snapshot; let it finish
        return False

    def _writer_pragma(self, pragma: str, script: bool = False) -> Any:
        """The first value a pragma on the writer connection returns (None for a script)."""
        assert self._writer is not None
        with self._write_lock:
            try:
                if script:
                    self._writer.executescript(f"PRAGMA {pragma};")
                    return None
                return self._writer.execute(f"PRAGMA {pragma}").fetchone()[0]
            except sqlite3.Error as exc:
                raise _store_error(self.path, exc) from exc

    def close(self) -> None:
        with self._connections_lock:
            for db in self._connections:
                with suppress(sqlite3.Error):
                    db.close()
            self._connections.clear()
        self._local = threading.local()
        self._writer = None


# -- row helpers shared by the memory modules ------------------------------------------

EVENT_SQL = (
    "id, start, end, status, reason, frame_count, caption, change, labels, texts, transcript, keyframes, super_id, "
    + pose_columns("start_")
    + ", "
    + pose_columns("end_")
    + ", path_m"
)


def event_from(row: Sequence[Any]) -> Event:
    return Event(
        id=cell(row[0], int, 0),
        start=cell(row[1], float, 0.0),
        end=cell(row[2], float, 0.0),
        status=cell(row[3], str, ""),
        reason=cell(row[4], str, ""),
        frame_count=cell(row[5], int, 0),
        caption=cell(row[6], str, ""),
        change=cell(row[7], str, ""),
        labels=json_list(row[8]),
        texts=json_list(row[9]),
        transcript=json_list(row[10]),
        keyframe_ids=json_list(row[11], int),
        super_id=cell(row[12], int, None),
        start_pose=pose_from(row[13:21]),
        end_pose=pose_from(row[21:29]),
        path_m=cell(row[29], float, 0.0),
    )


def insert_moment(db: sqlite3.Connection, moment: Moment) -> int:
    """Write a moment with its payload, vector, detections and texts read; returns its id."""
    cur = db.execute(
        "INSERT INTO moments (stamp, source, width, height, sharpness, quality, event_id, tier, "
        f"{POSE_SQL}) VALUES ({', '.join('?' * 16)})",
        (
            moment.stamp,
            moment.source,
            moment.width,
            moment.height,
            moment.sharpness,
            moment.quality,
            moment.event_id,
            moment.tier,
            *pose_values(moment.pose),
        ),
    )
    moment_id = int(cur.lastrowid or 0)
    if moment.jpeg is not None:
        db.execute("INSERT INTO payloads VALUES (?, ?)", (moment_id, moment.jpeg))
    if moment.embedding is not None:
        db.execute(
            "INSERT INTO moment_vectors VALUES (?, ?, ?)", (moment_id, moment.stamp, vector_blob(moment.embedding))
        )
    db.executemany(
        "INSERT INTO detections (moment_id, stamp, label, score, x0, y0, x1, y1) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(moment_id, moment.stamp, d.label, d.score, *d.box) for d in moment.detections],
    )
    db.executemany(
        "INSERT INTO tags (moment_id, stamp, label, word, score) VALUES (?, ?, ?, ?, ?)",
        [
            (moment_id, moment.stamp, tag.label, word, tag.score)
            for tag in moment.tags
            for word in dict.fromkeys((tag.label.lower(), *(t.lower() for t in tag.terms)))
        ],
    )
    moment.id = moment_id
    insert_texts(db, moment_id, moment.texts, moment.stamp)
    return moment_id


def insert_texts(db: sqlite3.Connection, moment_id: int, lines: Sequence[TextLine], stamp: float | None = None) -> None:
    """Text read in a moment, each line also a searchable document."""
    if stamp is None:
        stamp = float(db.execute("SELECT stamp FROM moments WHERE id = ?", (moment_id,)).fetchone()[0])
    for line in lines:
        cur = db.execute(
            "INSERT INTO texts (moment_id, stamp, text, score, x0, y0, x1, y1) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (moment_id, stamp, line.text, line.score, *line.box),
        )
        add_document(db, "text", int(cur.lastrowid or 0), stamp, stamp, line.text)


def get_meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))


def write_in_view(db: sqlite3.Connection, moment_ids: Sequence[int]) -> None:
    """Keep the short-term buffer's frames in the store, inside the frame's own transaction, so the query
    process, which does not share the engine's memory, can say what is in view now."""
    set_meta(db, IN_VIEW_KEY, json.dumps([int(i) for i in moment_ids]))
    set_meta(db, FRAME_WALL_KEY, repr(time.time()))  # how long a restarted process was down


def insert_transcript(db: sqlite3.Connection, transcript: Transcript) -> int:
    cur = db.execute(
        "INSERT INTO transcripts (start, end, text, speaker) VALUES (?, ?, ?, ?)",
        (transcript.start, transcript.end, transcript.text, transcript.speaker),
    )
    ref = int(cur.lastrowid or 0)
    add_document(db, "transcript", ref, transcript.start, transcript.end, transcript.text)
    return ref


# A document's rowid encodes (kind, ref), so it is replaced or removed by rowid:
# FTS5 has no index on its other columns, and a scan per write would grow with memory.
DOCUMENT_KINDS = {"event": 1, "text": 2, "transcript": 3, "super_event": 4}


def document_rowid(kind: str, ref: int) -> int:
    return ref * 8 + DOCUMENT_KINDS[kind]


def edges_of(db: sqlite3.Connection, event_id: int, kinds: Sequence[str] = ()) -> list[Edge]:
    kind_filter = f"AND kind IN ({', '.join('?' for _ in kinds)})" if kinds else ""
    rows = db.execute(
        f"SELECT src, dst, kind, confidence, origin, evidence FROM edges WHERE (src = ? OR dst = ?) {kind_filter} "
        "ORDER BY id",
        (event_id, event_id, *kinds),
    ).fetchall()
    return [Edge(*row) for row in rows]


def add_document(db: sqlite3.Connection, kind: str, ref: int, stamp: float, end_stamp: float, text: str) -> None:
    remove_document(db, kind, ref)
    if text.strip():
        db.execute(
            "INSERT INTO documents (rowid, text, kind, ref, stamp, end_stamp) VALUES (?, ?, ?, ?, ?, ?)",
            (document_rowid(kind, ref), text, kind, ref, stamp, end_stamp),
        )


def remove_document(db: sqlite3.Connection, kind: str, ref: int) -> None:
    db.execute("DELETE FROM documents WHERE rowid = ?", (document_rowid(kind, ref),))


def vector_blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


def pose_values(pose: Pose | None) -> tuple[object, ...]:
    """A pose's columns; a pose that is not finite is written as none (SQLite would store NaN as NULL)."""
    numbers = (pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw) if pose is not None else ()
    if pose is None or not pose.frame_id or not all(math.isfinite(v) for v in numbers):
        return (None,) * 8
    return (pose.frame_id, *numbers)


# -- reading rows: the file is never trusted --------------------------------------------------
# A store may hold what no reader expects: NaN written as NULL, a hand-edited field, a record of an
# older build.  Reading turns such a field into its empty value, never into an exception.

T = TypeVar("T")
# What converting a stored value can raise; RecursionError comes from absurdly nested JSON.
_UNREADABLE = (TypeError, ValueError, OverflowError, RecursionError)


def cell(value: object, convert: Callable[[Any], T], neutral: T) -> T:
    """A stored field as ``convert`` makes it, or ``neutral`` when it is NULL or ``convert`` cannot read it."""
    if value is None:
        return neutral
    try:
        return convert(value)
    except _UNREADABLE:
        return neutral


def json_list(value: object, item: type = str) -> list[Any]:
    """A stored JSON list with only its items of type ``item``; [] when the field is not a JSON list."""
    parsed = cell(value, json.loads, None)
    return [x for x in parsed if isinstance(x, item)] if isinstance(parsed, list) else []


def pose_from(values: Sequence[object]) -> Pose | None:
    """A stored pose, or None unless it has a frame id, seven finite numbers and a unit quaternion."""
    frame_id = values[0]
    if not isinstance(frame_id, str) or not frame_id.strip():
        return None
    numbers: tuple[float, ...] = cell(values[1:8], _floats, ())
    if len(numbers) != 7 or not all(map(math.isfinite, numbers)):
        return None
    x, y, z, qx, qy, qz, qw = numbers
    if abs(math.hypot(qx, qy, qz, qw) - 1.0) > QUATERNION_NORM_TOLERANCE:
        return None
    return Pose(frame_id, x, y, z, qx, qy, qz, qw)


def _floats(values: Sequence[Any]) -> tuple[float, ...]:
    return tuple(map(float, values))


def stored_vector(blob: bytes) -> np.ndarray:
    """A vector written by ``vector_blob``."""
    return np.frombuffer(blob, dtype=np.float32).copy()


def store_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def existing_vectors(db: sqlite3.Connection, table: str, ids: Sequence[int]) -> set[int]:
    key = _vector_key(table)
    marks = ", ".join("?" * len(ids))
    return {int(r[0]) for r in db.execute(f"SELECT {key} FROM {table} WHERE {key} IN ({marks})", tuple(ids))}


def _vector_key(table: str) -> str:
    if table not in ("moment_vectors", "event_vectors"):
        raise ValueError(f"no vector table {table!r}")
    return "moment_id" if table == "moment_vectors" else "event_id"


def _upper(as_of: float | None) -> float:
    return float("inf") if as_of is None else as_of


def _moment_from(row: Sequence[Any]) -> Moment:
    return Moment(
        id=cell(row[0], int, 0),
        stamp=cell(row[1], float, 0.0),
        source=cell(row[2], str, ""),
        width=cell(row[3], int, 0),
        height=cell(row[4], int, 0),
        sharpness=cell(row[5], float, 0.0),
        quality=cell(row[6], float, 0.0),
        event_id=cell(row[7], int, None),
        tier=cell(row[8], str, "recent"),
        pose=pose_from(row[9:17]),
        jpeg=None,
    )


def _attach_details(db: sqlite3.Connection, moments: list[Moment], with_payload: bool) -> None:
    """Fill detections, texts read and (optionally) the JPEG payload of moments read from rows."""
    by_id = {m.id: m for m in moments}
    if not by_id:
        return
    marks = ", ".join("?" for _ in by_id)
    ids = tuple(by_id)
    for mid, label, score, x0, y0, x1, y1 in db.execute(
        f"SELECT moment_id, label, score, x0, y0, x1, y1 FROM detections WHERE moment_id IN ({marks}) "
        "ORDER BY score DESC",
        ids,
    ):
        by_id[mid].detections.append(Detection(label, score, (x0, y0, x1, y1)))
    for mid, text, score, x0, y0, x1, y1 in db.execute(
        f"SELECT moment_id, text, score, x0, y0, x1, y1 FROM texts WHERE moment_id IN ({marks}) ORDER BY id", ids
    ):
        by_id[mid].texts.append(TextLine(text, score, (x0, y0, x1, y1)))
    tags: dict[tuple[int, str], list[str]] = {}
    scores: dict[tuple[int, str], float] = {}
    for mid, label, word, score in db.execute(
        f"SELECT moment_id, label, word, score FROM tags WHERE moment_id IN ({marks}) ORDER BY rowid", ids
    ):
        tags.setdefault((mid, label), [])
        scores[(mid, label)] = score
        if word != label.lower():
            tags[(mid, label)].append(word)
    for (mid, label), terms in tags.items():
        by_id[mid].tags.append(Tag(label, scores[(mid, label)], tuple(terms)))
    if with_payload:
        for mid, jpeg in db.execute(f"SELECT moment_id, jpeg FROM payloads WHERE moment_id IN ({marks})", ids):
            by_id[mid].jpeg = bytes(jpeg)


def _run_together_hits(db: sqlite3.Connection, words: list[str], as_of: float | None, limit: int) -> list[SearchHit]:
    """Text read with its spaces lost ("BOILERROOM2"), which word search cannot split: found by substring."""
    long_words = [w for w in words if len(w) >= 4]
    if not long_words:
        return []
    clause = " OR ".join("REPLACE(LOWER(text), ' ', '') LIKE ?" for _ in long_words)
    rows = db.execute(
        f"SELECT id, stamp, text FROM texts WHERE stamp <= ? AND ({clause}) ORDER BY stamp DESC LIMIT ?",
        (_upper(as_of), *(f"%{w}%" for w in long_words), limit),
    ).fetchall()
    hits = []
    for ref, stamp, text in rows:
        squashed = text.lower().replace(" ", "")
        share = sum(w in squashed for w in long_words) / len(long_words)
        hits.append(SearchHit("text", int(ref), float(stamp), float(stamp), share, text))
    return hits


def _label_hits(db: sqlite3.Connection, words: list[str], as_of: float | None, limit: int) -> list[SearchHit]:
    """Most recent moments where a detector reported one of the words as a label, or a tag answers to one (its
    text names the word: "looked like tabby, a cat")."""
    singles = {w for w in words} | {w[:-1] for w in words if w.endswith("s") and len(w) > 3}
    # Tag words may be phrases ("sea anemone", "house cat"): the query's runs of two and three words too.
    phrases = {" ".join(words[i : i + n]) for n in (2, 3) for i in range(len(words) - n + 1)}
    labels = sorted(singles | phrases)
    marks = ", ".join("?" for _ in labels)
    rows = db.execute(
        f"SELECT moment_id, MAX(stamp), label, MAX(score), 'detected' FROM detections "
        f"WHERE label IN ({marks}) AND stamp <= ? GROUP BY moment_id "
        f"UNION ALL SELECT moment_id, MAX(stamp), CASE WHEN MIN(word) = label THEN label "
        f"ELSE label || ', a ' || MIN(word) END, MAX(score), 'looked like' FROM tags "
        f"WHERE word IN ({marks}) AND stamp <= ? GROUP BY moment_id ORDER BY 2 DESC LIMIT ?",
        (*labels, _upper(as_of), *labels, _upper(as_of), limit * 2),
    ).fetchall()
    best: dict[int, SearchHit] = {}
    for mid, stamp, label, score, how in rows:  # a moment both detected and tagged counts once, at its best
        text = re.sub(r", a (?=[aeiou])", ", an ", f"{how} {label}", flags=re.IGNORECASE)
        hit = SearchHit("moment", int(mid), float(stamp), float(stamp), float(score), text)
        if mid not in best or hit.score > best[mid].score:
            best[mid] = hit
    return sorted(best.values(), key=lambda h: -h.stamp)[:limit]


def _store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if "full" in text:
        return StoreError(f"memory store {path}: the disk is full ({text}); nothing already committed was lost")
    if "locked" in text or "busy" in text:
        return StoreError(f"memory store {path} is locked by another process ({text})")
    return StoreError(f"memory store {path}: {text}")


def insert_pose_track(db: sqlite3.Connection, samples: Sequence[tuple[float, Pose]]) -> None:
    """Samples of the robot's path; a sample at a stamp already stored replaces it, one that is not finite is
    left out."""
    rows = [(stamp, *pose_values(pose)) for stamp, pose in samples if math.isfinite(stamp)]
    marks = ", ".join("?" * (1 + len(schema.POSE_COLUMNS)))
    db.executemany(
        f"INSERT OR REPLACE INTO pose_track (stamp, {POSE_SQL}) VALUES ({marks})",
        [row for row in rows if row[1] is not None],
    )
