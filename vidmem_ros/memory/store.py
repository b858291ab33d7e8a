"""Durable memory store: SQLite in WAL mode.

One writer connection (the ingest engine) and a read-only connection per
reading thread (queries, possibly in another process).  WAL lets readers see
only committed data and never block the writer.  Each kept frame is committed
in its own transaction, so a killed process loses only frames still in flight.
The reads are in ``reads``, the statements a transaction runs in ``writes``, and
what a row means in ``rows``.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from vidmem_ros.errors import DiskFullError, StoreError
from vidmem_ros.memory import schema
from vidmem_ros.memory.integrity import DamagedStoreError, check_connection, is_sqlite_file, set_aside
from vidmem_ros.memory.reads import StoreReads
from vidmem_ros.memory.records import Moment, Pose, Transcript
from vidmem_ros.memory.writes import insert_moment, insert_pose_track, insert_transcript, set_meta

log = logging.getLogger(__name__)


# Opening a store another process is creating at that moment is tried again this often, this far apart.
SCHEMA_RACE_TRIES = 5
SCHEMA_RACE_WAIT_S = 0.2


class SqliteStore(StoreReads):
    """``check_s``: the time a writer may spend checking an existing file before it writes anything; a damaged
    file raises ``DamagedStoreError`` untouched (see ``integrity``)."""

    def __init__(self, path: str | Path, readonly: bool = False, timeout_s: float = 5.0, check_s: float = 10.0) -> None:
        self.path = Path(path).expanduser()
        self.readonly = readonly
        self.timeout_s = timeout_s
        self.check_s = check_s
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        for attempt in range(SCHEMA_RACE_TRIES):
            try:
                self._open(readonly)
                return
            except StoreError:
                self.close()
                raise
            except sqlite3.DatabaseError as exc:
                self.close()
                # Two nodes starting on one new file: the other's tables appeared under this connection's reads.
                if "schema has changed" in str(exc) and attempt + 1 < SCHEMA_RACE_TRIES:
                    time.sleep(SCHEMA_RACE_WAIT_S)
                    continue
                raise StoreError(f"cannot open memory store {self.path}: {exc}") from exc

    def _open(self, readonly: bool) -> None:
        if readonly:
            self._check_version(self._reader())
        else:
            self._writer = self._open_writer()

    def _open_writer(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the directory of memory store {self.path}: {exc.strerror}") from exc
        existing = self.path.is_file() and self.path.stat().st_size > 0
        if existing and not is_sqlite_file(self.path):
            raise StoreError(f"{self.path} is not a SQLite file; it was left as it is")
        db = sqlite3.connect(self.path, timeout=self.timeout_s, check_same_thread=False, isolation_level=None)
        self._track(db)
        if existing:
            self._check_sound(db)
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

    def _check_sound(self, db: sqlite3.Connection) -> None:
        found = check_connection(db, self.path, self.check_s)
        if not found.ok:
            raise DamagedStoreError(self.path, found)
        if found.unchecked:
            log.warning(
                "memory store %s: checked %d table(s) in %.1f s (store.check_s); left unchecked: %s",
                self.path,
                len(found.checked),
                found.seconds,
                ", ".join(found.unchecked),
            )

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

    def set_meta(self, key: str, value: str) -> None:
        with self.write() as db:
            set_meta(db, key, value)

    def bump_counter(self, name: str, by: int = 1) -> None:
        """Add to a durable counter shared by every process using this store."""
        with self.write() as db:
            db.execute(
                "INSERT INTO counters VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                (name, by),
            )

    def add_moment(self, moment: Moment) -> int:
        with self.write() as db:
            return insert_moment(db, moment)

    def add_transcript(self, transcript: Transcript) -> int:
        with self.write() as db:
            return insert_transcript(db, transcript)

    def add_pose_track(self, samples: Sequence[tuple[float, Pose]]) -> None:
        """Samples of the robot's path, in one transaction."""
        with self.write() as db:
            insert_pose_track(db, samples)

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


def open_writer_or_start_fresh(path: Path, check_s: float) -> SqliteStore:
    """The store at ``path`` for writing; a damaged one is set aside, with an error logged, and a fresh one
    started: the robot goes on remembering, and nothing is written into the damaged file."""
    try:
        return SqliteStore(path, check_s=check_s)
    except DamagedStoreError as exc:
        aside = set_aside(exc.path)
        log.error(
            "%s. It was set aside as %s and a fresh store started; `vidmem doctor --store %s --repair` "
            "recovers what is readable of it",
            exc,
            aside,
            aside,
        )
        return SqliteStore(path, check_s=check_s)


def store_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if "full" in text:
        return DiskFullError(f"memory store {path}: the disk is full ({text}); nothing already committed was lost")
    if "locked" in text or "busy" in text:
        return StoreError(f"memory store {path} is locked by another process ({text})")
    return StoreError(f"memory store {path}: {text}")
