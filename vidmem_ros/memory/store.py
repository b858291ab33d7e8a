"""Durable memory store: SQLite in WAL mode.

One writer connection (the ingest pipeline) and any number of readers (queries,
possibly in another process).  WAL lets readers see only committed data and
never block the writer.  Every moment is committed as it is written, so a
killed process loses only frames still in flight.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from vidmem_ros.errors import StoreError
from vidmem_ros.memory.records import Moment, Pose, Sighting
from vidmem_ros.perception.types import Detection

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS moments (
    id INTEGER PRIMARY KEY,
    stamp REAL NOT NULL,
    source TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    sharpness REAL NOT NULL,
    jpeg BLOB,
    pose_frame TEXT, px REAL, py REAL, pz REAL, qx REAL, qy REAL, qz REAL, qw REAL
);
CREATE INDEX IF NOT EXISTS moments_stamp ON moments (stamp);
CREATE TABLE IF NOT EXISTS detections (
    id INTEGER PRIMARY KEY,
    moment_id INTEGER NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    stamp REAL NOT NULL,
    label TEXT NOT NULL,
    score REAL NOT NULL,
    x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS detections_label_stamp ON detections (label, stamp);
CREATE INDEX IF NOT EXISTS detections_moment ON detections (moment_id);
"""

_POSE_COLUMNS = "pose_frame, px, py, pz, qx, qy, qz, qw"


class MemoryStore(Protocol):
    """What the pipeline and the agent need from a store; a server-backed engine can implement it too."""

    def add_moment(self, moment: Moment) -> int: ...

    def moment(self, moment_id: int) -> Moment | None: ...

    def sightings(self, labels: Sequence[str], as_of: float | None, min_score: float) -> list[Sighting]: ...

    def moment_count(self, as_of: float | None = None) -> int: ...

    def time_span(self, as_of: float | None = None) -> tuple[float, float] | None: ...

    def disk_bytes(self) -> int: ...

    def bump_counter(self, name: str) -> None: ...

    def counter(self, name: str) -> int: ...

    def close(self) -> None: ...


class SqliteStore:
    def __init__(self, path: str | Path, readonly: bool = False, timeout_s: float = 5.0) -> None:
        self.path = Path(path).expanduser()
        self.readonly = readonly
        self._lock = threading.Lock()
        try:
            self._db = self._connect(timeout_s)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open memory store {self.path}: {exc}") from exc

    def _connect(self, timeout_s: float) -> sqlite3.Connection:
        if self.readonly:
            if not self.path.exists():
                raise StoreError(f"memory store {self.path} does not exist yet (has the ingest node run?)")
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=timeout_s, check_same_thread=False)
            db.execute("PRAGMA query_only = ON")
            self._check_version(db)
            return db
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=timeout_s, check_same_thread=False)
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(f"memory store {self.path} cannot use WAL journaling (got {mode})")
        # NORMAL is crash-safe in WAL mode: a killed process loses nothing committed.
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        with db:
            db.executescript(_SCHEMA)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        self._check_version(db)
        return db

    def _check_version(self, db: sqlite3.Connection) -> None:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a vidmem memory store: {exc}") from exc
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {row and row[0]}, this build reads {SCHEMA_VERSION}")

    @contextmanager
    def _cursor(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.OperationalError as exc:
                raise StoreError(f"memory store {self.path}: {exc}") from exc

    # -- writing -----------------------------------------------------------------

    def add_moment(self, moment: Moment) -> int:
        if self.readonly:
            raise StoreError(f"memory store {self.path} is open read-only")
        pose = _pose_values(moment.pose)
        with self._cursor() as db, db:
            cur = db.execute(
                f"INSERT INTO moments (stamp, source, width, height, sharpness, jpeg, {_POSE_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (moment.stamp, moment.source, moment.width, moment.height, moment.sharpness, moment.jpeg, *pose),
            )
            moment_id = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT INTO detections (moment_id, stamp, label, score, x0, y0, x1, y1) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(moment_id, moment.stamp, d.label, d.score, *d.box) for d in moment.detections],
            )
        moment.id = moment_id
        return moment_id

    def bump_counter(self, name: str) -> None:
        """Add one to a durable counter shared by every process using this store."""
        with self._cursor() as db, db:
            db.execute("INSERT INTO counters VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1", (name,))

    # -- reading -----------------------------------------------------------------

    def moment(self, moment_id: int) -> Moment | None:
        with self._cursor() as db:
            row = db.execute(
                f"SELECT id, stamp, source, width, height, sharpness, jpeg, {_POSE_COLUMNS} FROM moments WHERE id = ?",
                (moment_id,),
            ).fetchone()
            if row is None:
                return None
            dets = db.execute(
                "SELECT label, score, x0, y0, x1, y1 FROM detections WHERE moment_id = ? ORDER BY score DESC",
                (moment_id,),
            ).fetchall()
        return Moment(
            id=row[0],
            stamp=row[1],
            source=row[2],
            width=row[3],
            height=row[4],
            sharpness=row[5],
            jpeg=row[6],
            pose=_pose_from(row[7:15]),
            detections=[Detection(label, score, (x0, y0, x1, y1)) for label, score, x0, y0, x1, y1 in dets],
        )

    def sightings(self, labels: Sequence[str], as_of: float | None, min_score: float) -> list[Sighting]:
        """Every detection of any of ``labels`` at or above ``min_score``, oldest first, none after ``as_of``."""
        if not labels:
            return []
        marks = ", ".join("?" for _ in labels)
        sql = (
            f"SELECT d.moment_id, d.stamp, d.label, d.score, {', '.join('m.' + c.strip() for c in _POSE_COLUMNS.split(','))} "
            f"FROM detections d JOIN moments m ON m.id = d.moment_id "
            f"WHERE d.label IN ({marks}) AND d.score >= ? AND d.stamp <= ? ORDER BY d.stamp, d.score DESC"
        )
        with self._cursor() as db:
            rows = db.execute(sql, (*labels, min_score, _upper(as_of))).fetchall()
        return [Sighting(r[0], r[1], r[2], r[3], _pose_from(r[4:12])) for r in rows]

    def moment_count(self, as_of: float | None = None) -> int:
        with self._cursor() as db:
            return int(db.execute("SELECT COUNT(*) FROM moments WHERE stamp <= ?", (_upper(as_of),)).fetchone()[0])

    def time_span(self, as_of: float | None = None) -> tuple[float, float] | None:
        with self._cursor() as db:
            row = db.execute("SELECT MIN(stamp), MAX(stamp) FROM moments WHERE stamp <= ?", (_upper(as_of),)).fetchone()
        return None if row[0] is None else (float(row[0]), float(row[1]))

    def counter(self, name: str) -> int:
        with self._cursor() as db:
            row = db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in _store_files(self.path) if p.exists())

    def integrity_ok(self) -> bool:
        with self._cursor() as db:
            return bool(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok")

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _upper(as_of: float | None) -> float:
    return float("inf") if as_of is None else as_of


def _store_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _pose_values(pose: Pose | None) -> tuple[object, ...]:
    if pose is None:
        return (None,) * 8
    return (pose.frame_id, pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw)


def _pose_from(values: Sequence[object]) -> Pose | None:
    if values[0] is None:
        return None
    frame_id, *numbers = values
    x, y, z, qx, qy, qz, qw = (float(v) for v in numbers)  # type: ignore[arg-type]
    return Pose(str(frame_id), x, y, z, qx, qy, qz, qw)
