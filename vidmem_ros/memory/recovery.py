"""Recovery of a damaged store into a new file, in-process (``vidmem doctor --repair``).

SQLite's own ``.recover`` needs the command-line tool, which fails on some builds even on a healthy file.
This copies, table by table, every row Python's ``sqlite3`` can still read into a fresh store of the current
schema: a range scan by rowid that meets a damaged page skips forward past it (a few probes, halving the
distance) and goes on.  Rows left pointing at what was lost (a detection of a moment never recovered) are
dropped, so the new file passes the integrity check.  The damaged file is opened read-only and never written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from vidmem_ros.errors import StoreError
from vidmem_ros.memory.store import SqliteStore

# The full-text table is rebuilt from its content rows; its index tables are SQLite's to make.
_FTS = "documents"
_FTS_COLUMNS = ("text", "kind", "ref", "stamp", "end_stamp")
_BATCH = 1000
_MAX_ROWID = 2**63 - 1


@dataclass
class Recovery:
    copied: dict[str, int] = field(default_factory=dict)  # table -> rows copied
    damaged: dict[str, int] = field(default_factory=dict)  # table -> stretches of rows skipped as unreadable
    unreadable: list[str] = field(default_factory=list)  # tables that could not be read at all
    dropped: dict[str, int] = field(default_factory=dict)  # table -> rows dropped as pointing at what was lost
    integrity: str = ""


def recover(source: Path, target: Path) -> Recovery:
    """Copy what is readable of ``source`` into a new store at ``target`` (which must not exist)."""
    if target.exists():
        raise StoreError(f"{target} exists already; move it away or name another file")
    old = _open_damaged(source)
    try:
        SqliteStore(target).close()  # the current schema, in a fresh file
        new = sqlite3.connect(target, isolation_level=None)
        try:
            new.execute("PRAGMA foreign_keys = OFF")  # what was lost is sorted out at the end
            report = Recovery()
            for table, columns in _tables(new):
                _copy_table(old, new, table, columns, report)
            _copy_documents(old, new, report)
            _drop_dangling(new, report)
            report.integrity = str(new.execute("PRAGMA integrity_check").fetchone()[0])
        finally:
            new.close()
    finally:
        old.close()
    return report


def _open_damaged(source: Path) -> sqlite3.Connection:
    """Read-only; without its WAL's shared memory (a read-only directory, a lost file) the WAL is left out."""
    for query in ("mode=ro", "immutable=1"):
        try:
            db = sqlite3.connect(f"file:{source}?{query}", uri=True)
            db.execute("PRAGMA query_only = ON")
            # Reads a file shorter than its header says (cut off) as far as it goes, instead of refusing it.
            db.execute("PRAGMA writable_schema = ON")
            db.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
            return db
        except sqlite3.DatabaseError as exc:
            error = exc
    raise StoreError(f"{source} cannot be read at all: {error}")


def _tables(new: sqlite3.Connection) -> list[tuple[str, list[str]]]:
    names = [
        str(r[0])
        for r in new.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name != ? AND name NOT LIKE ? AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY rowid",
            (_FTS, f"{_FTS}_%"),
        )
    ]
    return [(name, [str(r[1]) for r in new.execute(f'PRAGMA table_info("{name}")')]) for name in names]


def _copy_table(
    old: sqlite3.Connection, new: sqlite3.Connection, table: str, columns: list[str], report: Recovery
) -> None:
    try:
        have = {str(r[1]) for r in old.execute(f'PRAGMA table_info("{table}")')}
    except sqlite3.DatabaseError:
        report.unreadable.append(table)
        return
    common = [c for c in columns if c in have]
    if not common:
        return  # a table the damaged store's build did not have yet
    # The new file's schema version is the one its rows now follow.
    where = "key != 'schema_version'" if table == "meta" else "1"
    rows = _readable_rows(old, table, ", ".join(f'"{c}"' for c in common), report, where)
    insert = f'INSERT OR IGNORE INTO "{table}" ({", ".join(common)}) VALUES ({", ".join("?" * len(common))})'
    copied = 0
    new.execute("BEGIN")
    for row in rows:
        new.execute(insert, row)
        copied += 1
    new.execute("COMMIT")
    report.copied[table] = copied


def _readable_rows(
    old: sqlite3.Connection, table: str, columns: str, report: Recovery, where: str = "1"
) -> Iterator[tuple[object, ...]]:
    """The rows of ``table`` in rowid order, skipping the stretches a damaged page makes unreadable."""
    scan = f'SELECT rowid, {columns} FROM "{table}" WHERE rowid >= ? AND {where} ORDER BY rowid'
    start: int | None = -_MAX_ROWID - 1
    while start is not None:
        try:
            for rowid, *values in old.execute(scan, (start,)):
                start = int(rowid) + 1
                yield tuple(values)
            return
        except sqlite3.DatabaseError:
            report.damaged[table] = report.damaged.get(table, 0) + 1
            start = _resume_after(old, scan, start)


def _reads_from(old: sqlite3.Connection, scan: str, start: int) -> bool:
    """Whether a scan from ``start`` reads its first row in full (or finds none)."""
    try:
        old.execute(scan + " LIMIT 1", (start,)).fetchall()
        return True
    except sqlite3.DatabaseError:
        return False


def _resume_after(old: sqlite3.Connection, scan: str, failed: int) -> int | None:
    """The lowest rowid above ``failed`` from which the scan reads again: steps doubling past the damage, then
    halving back towards it; None when nothing after it can be read.  Always above ``failed``, so a scan
    that keeps failing still ends."""
    step = 1
    while not _reads_from(old, scan, failed + step):
        step *= 2
        if failed + step > _MAX_ROWID:
            return None
    low, high = failed, failed + step  # the scan fails from low and reads from high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if _reads_from(old, scan, middle) else (middle, high)
    return high


def _copy_documents(old: sqlite3.Connection, new: sqlite3.Connection, report: Recovery) -> None:
    """Full-text documents from their content rows (the index is rebuilt as they are inserted)."""
    content = f"{_FTS}_content"
    try:
        width = len(old.execute(f'PRAGMA table_info("{content}")').fetchall()) - 1
    except sqlite3.DatabaseError:
        width = 0
    if width < len(_FTS_COLUMNS):
        report.unreadable.append(_FTS)
        return
    columns = ", ".join(f"c{i}" for i in range(len(_FTS_COLUMNS)))
    insert = f"INSERT INTO {_FTS} (rowid, {', '.join(_FTS_COLUMNS)}) VALUES (?, {', '.join('?' * width)})"
    copied = 0
    new.execute("BEGIN")
    for row in _readable_rows(old, content, f"id, {columns}", report):
        new.execute(insert, row)
        copied += 1
    new.execute("COMMIT")
    report.copied[_FTS] = copied


def _drop_dangling(new: sqlite3.Connection, report: Recovery) -> None:
    """Rows that point at a row not recovered: a nullable link is cleared, any other row dropped."""
    new.execute("BEGIN")
    for table, rowid, _parent, fkid in new.execute("PRAGMA foreign_key_check").fetchall():
        link = [r for r in new.execute(f'PRAGMA foreign_key_list("{table}")') if r[0] == fkid]
        column = str(link[0][3]) if link else ""
        # table_info: (cid, name, type, notnull, default, pk); a primary key cannot be cleared either.
        nullable = column and not any(
            r[1] == column and (r[3] or r[5]) for r in new.execute(f'PRAGMA table_info("{table}")')
        )
        if nullable:
            new.execute(f'UPDATE "{table}" SET "{column}" = NULL WHERE rowid = ?', (rowid,))
        else:
            new.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
            report.dropped[table] = report.dropped.get(table, 0) + 1
    new.execute("COMMIT")
