"""Integrity at start: a time-bounded check of a store's file before anything writes to it.

SQLite's ``quick_check`` reads every page of the file (a 4 GB store took 56 s from a cold disk here, 1.4 s
from the page cache), so it runs table by table under a deadline: the header first (a truncated file is seen
without reading it), then the tables of records, which answers need, then the frame payloads and vectors,
the bulk of the file.  Whatever the deadline leaves unchecked is named.  A damaged store is not written: the
ingest side sets it aside (``set_aside``) and starts a fresh one; the query side waits for that and answers
from the fresh store, or, with no ingest node to set it aside, reads the damaged one read-only (every
question that touches a damaged page fails); ``vidmem doctor --repair`` copies what is readable into a new
file (``recovery.py``).
"""

from __future__ import annotations

import sqlite3
import struct
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from vidmem_ros.errors import StoreError

SQLITE_MAGIC = b"SQLite format 3\x00"
# Checked last, in this order: they hold the bulk of the file, and answers need them least.
BULK_TABLES = ("moment_vectors", "payloads")

# What the name of a store set aside as damaged adds to the store's own ("memory.db.damaged-<UTC time>").
DAMAGED_MARK = ".damaged-"


class DamagedStoreError(StoreError):
    """The store's file is damaged; nothing was written to it."""

    def __init__(self, path: Path, soundness: Soundness) -> None:
        super().__init__(f"memory store {path} is damaged: {'; '.join(soundness.problems[:3])}")
        self.path = path
        self.soundness = soundness


@dataclass
class Soundness:
    problems: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # tables whose b-trees were checked
    unchecked: list[str] = field(default_factory=list)  # tables the deadline left unchecked
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def is_sqlite_file(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC


def header_problems(path: Path) -> list[str]:
    """What the file's first 100 bytes and its length say: a truncated file is seen without reading it."""
    with path.open("rb") as f:
        header = f.read(100)
    if len(header) < 100:
        return [f"the file is {len(header)} bytes long, shorter than a database header"]
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return [f"the header gives an invalid page size {page_size}"]
    pages, counter, valid_for = struct.unpack(">I", header[28:32])[0], header[24:28], header[92:96]
    size = path.stat().st_size
    # The header's page count is current only where its change counter matches (SQLite's own rule); a WAL can
    # make the database larger than the file, never smaller.
    if counter == valid_for and size < pages * page_size:
        return [f"the file is truncated: {size} bytes where its header counts {pages} pages of {page_size} bytes"]
    return []


def check_connection(db: sqlite3.Connection, path: Path, budget_s: float) -> Soundness:
    """``quick_check`` of each table of ``db`` (records first, bulk last) until ``budget_s`` runs out."""
    started = time.monotonic()
    found = Soundness(problems=header_problems(path))
    if found.problems:
        return found
    try:
        names = [str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.DatabaseError as exc:
        found.problems.append(f"its schema cannot be read ({exc})")
        return found
    tables = [n for n in names if n not in BULK_TABLES] + [n for n in BULK_TABLES if n in names]
    timer = threading.Timer(max(0.0, budget_s), db.interrupt)  # quick_check runs as one step: only this stops it
    timer.start()
    try:
        for i, table in enumerate(tables):
            if time.monotonic() - started >= budget_s:  # an interrupt between two checks would be lost
                found.unchecked = tables[i:]
                break
            try:
                rows = [str(r[0]) for r in db.execute(f'PRAGMA quick_check("{table}")')]
            except sqlite3.OperationalError as exc:
                if "interrupt" not in str(exc):
                    raise
                found.unchecked = tables[i:]
                break
            except sqlite3.DatabaseError as exc:
                rows = [str(exc)]
            if rows != ["ok"]:
                found.problems += [f"table {table}: {line}" for line in rows[:5]]
            found.checked.append(table)
    except sqlite3.DatabaseError as exc:
        found.problems.append(str(exc))
    finally:
        timer.cancel()
    found.seconds = time.monotonic() - started
    return found


def file_id(path: Path) -> tuple[int, int] | None:
    """What tells one file at ``path`` from another put there later (None when there is none)."""
    try:
        st = path.stat()
    except OSError:  # none there, or no directory to hold one: opening the store says why
        return None
    return st.st_dev, st.st_ino


def wait_until_replaced(path: Path, damaged: tuple[int, int] | None, timeout_s: float) -> bool:
    """Wait up to ``timeout_s`` for another process (the ingest node) to set the damaged file aside."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if file_id(path) != damaged:
            return True
        time.sleep(0.25)
    return file_id(path) != damaged


def set_aside(path: Path) -> Path:
    """Rename a damaged store's files (database, WAL, shared memory) out of the way; returns the database's new
    name.  Nothing in them is changed: ``vidmem doctor --repair`` can still recover from them."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}{DAMAGED_MARK}{stamp}")
    try:
        # The WAL first: one left behind beside a fresh database would be replayed into it.
        for suffix in ("-wal", "-shm", ""):
            part = path.with_name(path.name + suffix)
            if part.exists():
                part.rename(target.with_name(target.name + suffix))
    except OSError as exc:
        raise StoreError(f"memory store {path} is damaged and could not be set aside: {exc.strerror}") from exc
    return target
