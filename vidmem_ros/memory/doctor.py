"""``vidmem doctor``: check a memory store, report its bad records, and repair what can be repaired.

Reading never fails on a bad record (it reads as "no pose", an empty list, an
empty text), but the record stays bad until it is repaired, and an event that
could not be closed stays quarantined.  The check is read-only.  The repair
keeps everything it can: an invalid pose is cleared (the event's track is
recomputed from its moments), an unreadable list keeps its readable items, a
moment stamped with no real time (it can be found at no time) is forgotten,
then open and quarantined events are closed, each in its own transaction.

A file that is itself damaged is not repaired in place: ``--repair`` copies what is readable of it into a new
file beside it (``recovery.py``), in-process, and leaves the damaged one as it was.

Run ``--repair`` with the ingest node stopped: the node keeps its open event
and caches in memory, and would not see the repair.  On Linux the repair
refuses to start while another process holds the store open for writing.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import VidmemError
from vidmem_ros.memory.archive import QUARANTINE_COUNTER, QUARANTINED, EventArchive, write_pose_track
from vidmem_ros.memory.captioner_backends import build_captioner
from vidmem_ros.memory.captions import ComposedCaptioner, EventCaptioner
from vidmem_ros.memory.forget import forget
from vidmem_ros.memory.integrity import DAMAGED_MARK, DamagedStoreError
from vidmem_ros.memory.recovery import recover
from vidmem_ros.memory.rows import POSE_SQL, cell, json_list, pose_columns, pose_from
from vidmem_ros.memory.schema import POSE_COLUMNS
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.registry import build_text_embedder

# Each kind of bad record, in the order the report lists them.
PROBLEMS = {
    "moment_stamp": "moments stamped with no real time",
    "moment_pose": "moments with an invalid or partial pose",
    "event_stamp": "events spanning no real time",
    "event_pose": "events with an invalid or partial start or end pose",
    "event_json": "events with an unreadable list (labels, texts, transcript, keyframes)",
    "open_event": "events left open (a run that was killed or is still running)",
    "quarantined_event": "quarantined events (they could not be closed)",
}
_JSON_FIELDS = (("labels", str), ("texts", str), ("transcript", str), ("keyframes", int))
_START_POSE = pose_columns("start_")
_END_POSE = pose_columns("end_")
_EXAMPLES = 5
_CHUNK = 500  # ids per statement, below SQLite's limit on bound values


@dataclass
class Checkup:
    schema_version: str
    moments: int
    events: int
    ever_quarantined: int
    integrity: list[str]  # what SQLite's integrity check found; empty when the file is sound
    problems: dict[str, list[int]] = field(default_factory=dict)  # kind -> ids of the bad records

    @property
    def problem_count(self) -> int:
        return len(self.integrity) + sum(len(ids) for ids in self.problems.values())


def check(store: SqliteStore) -> Checkup:
    """Everything wrong with the store's file and records (read-only)."""
    with store.read() as db:
        integrity = [str(r[0]) for r in db.execute("PRAGMA integrity_check(20)")]
        problems: dict[str, list[int]] = {kind: [] for kind in PROBLEMS}
        for mid, stamp, *pose in db.execute(f"SELECT id, stamp, {POSE_SQL} FROM moments ORDER BY id"):
            if not _real_time(stamp):
                problems["moment_stamp"].append(mid)
            if _broken_pose(pose):
                problems["moment_pose"].append(mid)
        fields = ", ".join(name for name, _ in _JSON_FIELDS)
        rows = db.execute(
            f"SELECT id, start, end, status, {fields}, {_START_POSE}, {_END_POSE} FROM events ORDER BY id"
        )
        for eid, start, end, status, *rest in rows:
            texts, poses = rest[: len(_JSON_FIELDS)], rest[len(_JSON_FIELDS) :]
            if not (_real_time(start) and _real_time(end)):
                problems["event_stamp"].append(eid)
            if _broken_pose(poses[:8]) or _broken_pose(poses[8:]):
                problems["event_pose"].append(eid)
            if any(_broken_list(value, item) for value, (_, item) in zip(texts, _JSON_FIELDS, strict=True)):
                problems["event_json"].append(eid)
            if status in ("open", QUARANTINED):
                problems["open_event" if status == "open" else "quarantined_event"].append(eid)
    return Checkup(
        schema_version=store.get_meta("schema_version") or "?",
        moments=store.moment_count(),
        events=store.event_count(),
        ever_quarantined=store.counter(QUARANTINE_COUNTER),
        integrity=[] if integrity == ["ok"] else integrity,
        problems={kind: ids for kind, ids in problems.items() if ids},
    )


def repair(store: SqliteStore, found: Checkup, archive: Callable[[], EventArchive]) -> list[str]:
    """Fix the records ``found`` holds, each step in its own transaction; returns what was done.

    ``archive`` builds the event archive (captioner, text embedder) only when events must be re-summarised.
    """
    done = []
    bad = found.problems
    if bad.get("event_json"):
        with store.write() as db:
            for eid in bad["event_json"]:
                _repair_lists(db, eid)
        done.append(f"kept the readable items of the lists of {len(bad['event_json'])} event(s)")
    if bad.get("moment_pose"):
        blank = ", ".join(f"{c} = NULL" for c in POSE_COLUMNS)
        with store.write() as db:
            for chunk in _chunks(bad["moment_pose"]):
                db.execute(f"UPDATE moments SET {blank} WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
        done.append(f"cleared the invalid pose of {len(bad['moment_pose'])} moment(s)")
    if bad.get("moment_stamp"):
        report = forget(archive(), moment_ids=bad["moment_stamp"])
        done.append(f"forgot {len(report.moments)} moment(s) stamped with no real time")
    if bad.get("event_pose"):
        with store.write() as db:
            for eid in bad["event_pose"]:  # one forgotten above is simply not there to update
                write_pose_track(db, eid, store.event_moments(eid))
        done.append(f"recomputed the start and end pose of {len(bad['event_pose'])} event(s) from their moments")
    done += _respan_closed_events(store, archive)
    if bad.get("quarantined_event"):
        tried, closed = archive().retry_quarantined()
        done.append(f"closed {closed} of {tried} quarantined event(s)")
    if bad.get("open_event"):
        archive().recover()
        done.append(f"closed the {len(bad['open_event'])} open event(s), quarantining any that could not be closed")
    return done


def run_doctor(path: Path, fix: bool, config: VidmemConfig, out: TextIO) -> int:
    """Check (and with ``fix`` repair) a store, print the report; 0 when no problem remains, 1 when some do,
    2 when the store cannot be opened or the repair must not start."""
    say = _printer(out)
    if not path.is_file():
        say(f"no memory store at {path}")
        return 2
    writers = other_writers(path)
    if fix and writers:
        say(f"refusing to repair {path}: process(es) {', '.join(map(str, writers))} hold it open for writing;")
        say("stop the ingest node (or whatever writes it) and run the repair again")
        return 2
    try:
        store = SqliteStore(path, readonly=not fix)
    except DamagedStoreError as exc:  # found by the check a writer makes before it writes
        say(f"file integrity: DAMAGED ({exc})")
        return recover_into_new_file(path, say)
    except VidmemError as exc:
        say(f"cannot open the memory store: {exc}")
        if not fix:
            say(f"`vidmem doctor --store {path} --repair` copies what is readable of a damaged file into a new one")
        return 2
    try:
        found = check(store)
        _report(found, path, writers, say)
        if fix and found.integrity:
            store.close()
            return recover_into_new_file(path, say)
        if fix and found.problem_count:
            done = repair(store, found, _lazy_archive(store, config, say))
            say("repaired:")
            for line in done:
                say(f"  {line}")
            found = check(store)
            _report_problems(found, say)
        say(_verdict(found, fix, path))
        return 1 if found.problem_count else 0
    except VidmemError as exc:
        say(f"cannot read the memory store: {exc}")
        return 2
    finally:
        store.close()


def recover_into_new_file(path: Path, say: Callable[[str], None]) -> int:
    """Copy what is readable of a damaged store into ``NAME.recovered.db`` beside it; 1 (the store at ``path``
    is still damaged), or 2 when nothing could be recovered."""
    store_name, _, when = path.name.partition(DAMAGED_MARK)  # a store the ingest node set aside names its damage
    base = Path(store_name)
    target = path.with_name(f"{base.stem}.recovered{'-' + when if when else ''}{base.suffix or '.db'}")
    say(f"the file itself is damaged: copying what is readable into {target}; {path} is left as it is")
    try:
        done = recover(path, target)
    except VidmemError as exc:
        say(f"cannot recover: {exc}")
        return 2
    for table, rows in done.copied.items():
        skipped = done.damaged.get(table, 0)
        dropped = done.dropped.get(table, 0)
        notes = [f"{skipped} unreadable stretch(es) skipped"] * bool(skipped)
        notes += [f"{dropped} dropped as pointing at rows lost"] * bool(dropped)
        say(f"  {table}: {rows} row(s){' (' + '; '.join(notes) + ')' if notes else ''}")
    if done.unreadable:
        say(f"  unreadable: {', '.join(done.unreadable)}")
    say(f"  integrity of {target}: {done.integrity}")
    if when:  # the store's own name holds the fresh store the ingest node began after the damage
        live = path.with_name(store_name)
        say(
            f"{live} now holds the fresh store begun after the damage; to answer from the recovered memory instead, "
            f"with the nodes stopped, move {live} to another name (it keeps what came after) and move {target} to {live}"
        )
    else:
        say(f"to use it, with the nodes stopped: move {path} to another name, then move {target} to {path}")
    return 1


def other_writers(path: Path) -> list[int]:
    """Other processes holding the store's database file open for writing (read from /proc; [] without it)."""
    target = str(path.expanduser().resolve())
    found = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        pid = int(fd_dir.parent.name)
        if pid == os.getpid():
            continue
        try:
            fds = [fd.name for fd in fd_dir.iterdir() if os.readlink(fd) == target]
            if any(_open_for_writing(pid, fd) for fd in fds):
                found.append(pid)
        except OSError:  # gone, or another user's process
            continue
    return sorted(found)


def _open_for_writing(pid: int, fd: str) -> bool:
    for line in Path(f"/proc/{pid}/fdinfo/{fd}").read_text().splitlines():
        if line.startswith("flags:"):
            return (int(line.split()[1], 8) & os.O_ACCMODE) in (os.O_WRONLY, os.O_RDWR)
    return False


def _real_time(stamp: object) -> bool:
    return math.isfinite(cell(stamp, float, math.nan))


def _broken_pose(values: list[Any]) -> bool:
    """Some of a pose is stored, but it does not read as a pose."""
    return any(v is not None for v in values) and pose_from(values) is None


def _broken_list(value: object, item: type) -> bool:
    return json_list(value, item) != cell(value, json.loads, None)


def _repair_lists(db: sqlite3.Connection, event_id: int) -> None:
    names = [name for name, _ in _JSON_FIELDS]
    row = db.execute(f"SELECT {', '.join(names)} FROM events WHERE id = ?", (event_id,)).fetchone()
    fixed = [json.dumps(json_list(value, item)) for value, (_, item) in zip(row, _JSON_FIELDS, strict=True)]
    db.execute(f"UPDATE events SET {', '.join(n + ' = ?' for n in names)} WHERE id = ?", (*fixed, event_id))


def _respan_closed_events(store: SqliteStore, archive: Callable[[], EventArchive]) -> list[str]:
    """Closed events whose span is still not real time: re-summarised from their moments, or forgotten if empty."""
    with store.read() as db:
        rows = db.execute(
            "SELECT id, start, end, (SELECT COUNT(*) FROM moments m WHERE m.event_id = e.id) FROM events e "
            "WHERE status = 'closed'"
        ).fetchall()
    unspanned = [(int(eid), count) for eid, start, end, count in rows if not (_real_time(start) and _real_time(end))]
    empty = [eid for eid, count in unspanned if count == 0]
    spanned = [eid for eid, count in unspanned if count]
    done = []
    if spanned:
        archiver = archive()  # built (models loaded) before the write transaction starts
        with store.write() as db:
            for eid in spanned:
                archiver.resummarise(db, eid, keep_caption=True)
        done.append(f"re-summarised {len(spanned)} closed event(s) from their moments to give them a real span")
    if empty:
        forget(archive(), event_ids=empty)
        done.append(f"forgot {len(empty)} closed event(s) with no moments and no real span")
    return done


def _lazy_archive(store: SqliteStore, config: VidmemConfig, say: Callable[[str], None]) -> Callable[[], EventArchive]:
    """The archive that closes events as the ingest node would (the configuration's captioner and text
    embedder), built on first use: most repairs need no model."""
    built: list[EventArchive] = []

    def get() -> EventArchive:
        if not built:
            built.append(EventArchive(store, config, _captioner(config, say), _text_embedder(config, say)))
        return built[0]

    return get


def _captioner(config: VidmemConfig, say: Callable[[str], None]) -> EventCaptioner:
    try:
        return build_captioner(config.captioner)
    except VidmemError as exc:
        say(f"note: events are captioned from perception only: {exc}")
        return ComposedCaptioner()


def _text_embedder(config: VidmemConfig, say: Callable[[str], None]) -> TextEmbedder | None:
    try:
        return build_text_embedder(config.text_embedder)
    except VidmemError as exc:
        say(f"note: events closed now get no caption vector: {exc}")
        return None


def _report(found: Checkup, path: Path, writers: list[int], say: Callable[[str], None]) -> None:
    say(f"memory store {path}")
    say(f"  schema version {found.schema_version}; {found.moments} moment(s), {found.events} event(s)")
    say(f"  events quarantined since the store was made: {found.ever_quarantined}")
    if writers:
        say(f"  note: process(es) {', '.join(map(str, writers))} are writing it; their current event is open")
    say(f"  file integrity: {'ok' if not found.integrity else 'DAMAGED'}")
    _report_problems(found, say)


def _report_problems(found: Checkup, say: Callable[[str], None]) -> None:
    for line in found.integrity:
        say(f"  integrity: {line}")
    for kind, ids in found.problems.items():
        examples = ", ".join(map(str, ids[:_EXAMPLES])) + (", ..." if len(ids) > _EXAMPLES else "")
        say(f"  {PROBLEMS[kind]}: {len(ids)} (ids {examples})")


def _verdict(found: Checkup, fixed: bool, path: Path) -> str:
    if not found.problem_count:
        return "no problems found" if not fixed else "no problems remain"
    hint = "" if fixed else f"; `vidmem doctor --store {path} --repair` (with the node stopped) repairs what it can"
    return f"{found.problem_count} problem(s) remain{hint}"


def _chunks(ids: list[int]) -> Iterator[tuple[int, ...]]:
    for i in range(0, len(ids), _CHUNK):
        yield tuple(ids[i : i + _CHUNK])


def _printer(out: TextIO) -> Callable[[str], None]:
    return lambda line: print(line, file=out, flush=True)
