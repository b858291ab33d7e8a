"""Forget: remove everything the memory holds about a time range or about chosen moments and events, or
about a person (``forget_person`` by voice, ``forget_face`` by face, ``forget_ref`` by either: the voice, the
face linked to it, and their speech only if asked).

Frames, vectors, detections, texts read, transcripts, the pose track, documents
and graph references go in one transaction; events that only partly overlap are
re-summarised from what remains; the summaries above are rebuilt; then freed
pages are zeroed and handed back, so nothing forgotten stays findable or on disk.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vidmem_ros.errors import InputError
from vidmem_ros.memory import faces, hierarchy, speakers
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.links import relink
from vidmem_ros.memory.rows import json_list
from vidmem_ros.memory.runs import clock_spans, runs_in
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.writes import get_meta, remove_document, set_meta

# With a fleet store configured, each forget is logged here (meta, JSON) until the fleet sync has applied it there
# too: a forget issued while the fleet store is unreachable is applied when it returns.
FLEET_FORGET_LOG = "fleet_forget_log"


@dataclass
class ForgetReport:
    moments: list[int] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    transcripts: int = 0
    compacted: bool = False  # freed pages zeroed and the WAL truncated (False: a reader kept it busy)


def forget(
    archive: EventArchive,
    start: float | None = None,
    end: float | None = None,
    moment_ids: Sequence[int] = (),
    event_ids: Sequence[int] = (),
    robot_clock: bool = False,
) -> ForgetReport:
    """``start`` and ``end`` are memory time, or with ``robot_clock`` the robot's clock (a service caller's): then
    the window is forgotten in every run that went through it (``runs.clock_spans``), since each pass recorded
    those clock times."""
    if (start is None) != (end is None):
        raise InputError("bad_forget", "a time range needs both a start and an end")
    if start is not None and end is not None and end < start:
        raise InputError("bad_forget", f"the range ends ({end}) before it starts ({start})")
    if start is None and not moment_ids and not event_ids:
        raise InputError("bad_forget", "say what to forget: a time range, moment ids or event ids")
    store = archive.store
    report = ForgetReport()
    with store.write() as db:
        db.execute("PRAGMA secure_delete = ON")  # freed pages are zeroed, not merely unlinked
        moments = set(moment_ids)
        events = set(event_ids)
        windows = _windows(db, start, end, robot_clock)
        for window in windows:
            moments |= _ids(db, "SELECT id FROM moments WHERE stamp BETWEEN ? AND ?", window)
            events |= _ids(db, "SELECT id FROM events WHERE start >= ? AND end <= ?", window)
        spans = list(windows)
        for event_id in events:
            moments |= _ids(db, "SELECT id FROM moments WHERE event_id = ?", (event_id,))
            spans += db.execute("SELECT start, end FROM events WHERE id = ?", (event_id,)).fetchall()
        heard = set()
        for span in spans:
            count, ended_in = _forget_transcripts(db, *span)
            report.transcripts += count
            heard |= ended_in
            db.execute("DELETE FROM pose_track WHERE stamp BETWEEN ? AND ?", span)  # where the robot went then
        touched = _ids_in(
            db, "SELECT DISTINCT event_id FROM moments WHERE id IN ({}) AND event_id IS NOT NULL", moments
        )
        _forget_moments(db, moments)
        if moments:
            faces.refresh(db)  # a face is what its remaining sightings make it; one with none left is gone
        supers = _ids_in(
            db, "SELECT DISTINCT super_id FROM events WHERE id IN ({}) AND super_id IS NOT NULL", touched | events
        )
        followers = _ids_in(db, _FOLLOWER_SQL, touched | events) - events
        for event_id in sorted(touched | events):
            _forget_or_resummarise(db, archive, event_id)
        for event_id in sorted(followers | heard):  # their "what changed", links or speech named what is gone
            archive.resummarise(db, event_id)
        for window in windows:
            _forget_folded_periods(db, *window)
        for super_id in supers:
            hierarchy.refresh_super_event(db, super_id)
        hierarchy.refresh_root(db)
        _refresh_entities(db)
        relink(db)  # the voices and faces left are what the links stand on
        db.execute("INSERT INTO documents (documents) VALUES ('optimize')")  # merge away deleted index entries
        db.execute(
            "INSERT INTO meta VALUES ('forget_generation', '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        report.moments = sorted(moments)
        report.events = sorted(events)
        if archive.config.fleet.uri:
            resummarised = sorted((touched | followers | heard) - events)
            _log_for_fleet(db, spans, report.moments, report.events, resummarised)
        db.execute("PRAGMA secure_delete = OFF")
    report.compacted = store.checkpoint()
    return report


def _windows(
    db: sqlite3.Connection, start: float | None, end: float | None, robot_clock: bool
) -> list[tuple[float, float]]:
    """The memory-time spans of a time range (none without one)."""
    if start is None or end is None:
        return []
    return clock_spans(runs_in(db), start, end) if robot_clock else [(start, end)]


@dataclass
class PersonForgetReport:
    voices: list[int] = field(default_factory=list)  # the speaker rows removed: the person's and those merged in
    unlinked: int = 0  # transcripts kept without a speaker (their speaker vectors removed)
    transcripts: int = 0  # transcripts removed (with ``with_speech``)
    events: list[int] = field(default_factory=list)  # events re-summarised because they quoted removed speech
    faces: list[int] = field(default_factory=list)  # the face rows removed: the person's and those merged in
    sightings: int = 0  # face sightings removed with their descriptors and crops (the frames stay)
    compacted: bool = False


FaceForgetReport = PersonForgetReport


def forget_person(archive: EventArchive, speaker_id: int, with_speech: bool = False) -> PersonForgetReport:
    """Forget the person ``speaker/<speaker_id>``: the voice (its centroid, any name heard, the voices merged into
    it) and the speaker vector of everything it said, so it can no longer be matched or told apart; what it said
    stays, anonymous, unless ``with_speech``, which removes the sentences too.  The face linked to the voice
    (``links``) is the same person and goes as ``forget_face`` takes it.  The same voice heard again later is a new
    person.  InputError if no such person is in memory."""
    return _forget(archive, f"speaker/{speaker_id}", with_speech)


def forget_face(archive: EventArchive, face_id: int, with_speech: bool = False) -> PersonForgetReport:
    """Forget the person seen as ``face/<face_id>``: the face's centroid, every sighting's descriptor and crop, and
    the faces merged into it, so it can no longer be matched; the frames stay.  The voice linked to the face is the
    same person and goes as ``forget_person`` takes it.  The same face seen again later is a new person.
    InputError if no such face is in memory."""
    return _forget(archive, f"face/{face_id}", with_speech)


def forget_ref(archive: EventArchive, ref: str, with_speech: bool = False) -> PersonForgetReport:
    """Forget the person ``speaker/N`` or ``face/N`` names (a service's request); InputError for anything else."""
    kind, _, number = ref.strip().partition("/")
    if kind not in ("speaker", "face") or not number.isdigit():
        raise InputError("bad_forget", f"a person is speaker/N or face/N, not {ref!r}")
    return _forget(archive, f"{kind}/{int(number)}", with_speech)


def _forget(archive: EventArchive, ref: str, with_speech: bool) -> PersonForgetReport:
    store = archive.store
    report = PersonForgetReport()
    with store.write() as db:
        db.execute("PRAGMA secure_delete = ON")
        voice, face = _person_ids(db, ref)
        if voice is not None:
            _forget_voice(db, archive, voice, with_speech, report)
        if face is not None:
            _forget_face(db, face, report)
        relink(db)
        db.execute(
            "INSERT INTO meta VALUES ('forget_generation', '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )  # the ingesting engine drops its cache of voices and faces
        db.execute("PRAGMA secure_delete = OFF")
    report.compacted = store.checkpoint()
    return report


def _person_ids(db: sqlite3.Connection, ref: str) -> tuple[int | None, int | None]:
    """The live voice and face of the person ``ref`` names (one of them None where no link is); InputError if
    memory holds no such identity."""
    kind, number = ref.split("/")
    table = "speakers" if kind == "speaker" else "faces"
    row = db.execute(f"SELECT merged_into FROM {table} WHERE id = ?", (int(number),)).fetchone()
    if row is None:
        raise InputError("unknown_person", f"{ref} is not in memory")
    live = int(row[0]) if row[0] is not None else int(number)  # one merged into another is that other person
    mine, other = ("speaker_id", "face_id") if kind == "speaker" else ("face_id", "speaker_id")
    linked = db.execute(f"SELECT {other} FROM person_links WHERE {mine} = ?", (live,)).fetchone()
    partner = int(linked[0]) if linked else None
    return (live, partner) if kind == "speaker" else (partner, live)


def _forget_voice(
    db: sqlite3.Connection, archive: EventArchive, speaker_id: int, with_speech: bool, report: PersonForgetReport
) -> None:
    report.voices = sorted(_ids(db, "SELECT id FROM speakers WHERE id = ? OR merged_into = ?",
                                (speaker_id, speaker_id)))  # fmt: skip
    said = db.execute("SELECT id, end FROM transcripts WHERE speaker_id = ?", (speaker_id,)).fetchall()
    quoted: set[int] = set()
    for ref, ended in said:
        db.execute("DELETE FROM transcript_voices WHERE transcript_id = ?", (ref,))
        if with_speech:
            quoted |= _ids(db, "SELECT id FROM events WHERE start <= ? AND end >= ?", (ended, ended))
            remove_document(db, "transcript", ref)
            db.execute("DELETE FROM transcripts WHERE id = ?", (ref,))
    speakers.retire(db, [speaker_id])
    report.transcripts = len(said) if with_speech else 0
    report.unlinked = 0 if with_speech else len(said)
    for event_id in sorted(quoted):  # their speech is gone from what the events say they heard
        archive.resummarise(db, event_id)
    report.events = sorted(quoted)


def _forget_face(db: sqlite3.Connection, face_id: int, report: PersonForgetReport) -> None:
    report.faces = sorted(_ids(db, "SELECT id FROM faces WHERE id = ? OR merged_into = ?", (face_id, face_id)))
    report.sightings = db.execute("SELECT COUNT(*) FROM face_sightings WHERE face_id = ?", (face_id,)).fetchone()[0]
    faces.retire(db, [face_id])


def _log_for_fleet(
    db: sqlite3.Connection,
    spans: Sequence[tuple[float, float]],
    moments: Sequence[int],
    events: Sequence[int],
    resummarised: Sequence[int],
) -> None:
    entries = _read_log(db)
    seq = max((e["seq"] for e in entries), default=0) + 1
    entry = {
        "seq": seq,
        "spans": [[float(a), float(b)] for a, b in spans],
        "moments": list(moments),
        "events": list(events),
        "resummarised": list(resummarised),
    }
    set_meta(db, FLEET_FORGET_LOG, json.dumps([*entries, entry]))


def logged_forgets(store: SqliteStore, db: sqlite3.Connection | None = None) -> list[dict[str, Any]]:
    """The forgets the fleet store has not been told of yet, oldest first (inside ``db``'s transaction if given)."""
    if db is not None:
        return _read_log(db)
    with store.read() as reading:
        return _read_log(reading)


def _read_log(db: sqlite3.Connection) -> list[dict[str, Any]]:
    return [e for e in json_list(get_meta(db, FLEET_FORGET_LOG) or "[]", dict) if isinstance(e.get("seq"), int)]


def _refresh_entities(db: sqlite3.Connection) -> None:
    """Entities keep only what remains: counts and times recomputed; a prototype that averaged forgotten
    appearances is cleared, so the entity stays in the record but no longer attracts new sightings."""
    db.execute("DELETE FROM entities WHERE id NOT IN (SELECT DISTINCT entity_id FROM entity_sightings)")
    db.execute(
        "UPDATE entities SET prototype = CASE WHEN sightings != (SELECT COUNT(*) FROM entity_sightings s "
        "WHERE s.entity_id = entities.id) THEN NULL ELSE prototype END"
    )
    db.execute(
        "UPDATE entities SET sightings = (SELECT COUNT(*) FROM entity_sightings s WHERE s.entity_id = entities.id), "
        "first_stamp = (SELECT MIN(stamp) FROM entity_sightings s WHERE s.entity_id = entities.id), "
        "last_stamp = (SELECT MAX(stamp) FROM entity_sightings s WHERE s.entity_id = entities.id)"
    )


def _forget_moments(db: sqlite3.Connection, moments: set[int]) -> None:
    for chunk in _chunks(sorted(moments)):
        marks = ", ".join("?" * len(chunk))
        for (text_id,) in db.execute(f"SELECT id FROM texts WHERE moment_id IN ({marks})", chunk).fetchall():
            remove_document(db, "text", text_id)
        # Cascades remove payloads, vectors, detections, texts read and entity sightings.
        db.execute(f"DELETE FROM moments WHERE id IN ({marks})", chunk)


def _forget_folded_periods(db: sqlite3.Connection, start: float, end: float) -> None:
    """Periods inside the range whose events were all folded into them (consolidate.py): their summary is all
    that is left of that time, and it goes too."""
    rows = db.execute(
        "SELECT s.id FROM super_events s JOIN folded_periods f ON f.super_id = s.id WHERE s.start >= ? AND s.end <= ? "
        "AND NOT EXISTS (SELECT 1 FROM events e WHERE e.super_id = s.id)",
        (start, end),
    ).fetchall()
    for (super_id,) in rows:
        remove_document(db, "super_event", super_id)
        db.execute("DELETE FROM super_events WHERE id = ?", (super_id,))  # cascades its folded labels


def _forget_transcripts(db: sqlite3.Connection, start: float, end: float) -> tuple[int, set[int]]:
    """Remove speech overlapping the span; returns how much, and the events whose text quoted it."""
    rows = db.execute("SELECT id, end FROM transcripts WHERE start <= ? AND end >= ?", (end, start)).fetchall()
    quoted: set[int] = set()
    for ref, ended in rows:
        quoted |= _ids(db, "SELECT id FROM events WHERE start <= ? AND end >= ?", (ended, ended))
        remove_document(db, "transcript", ref)
        db.execute("DELETE FROM transcript_voices WHERE transcript_id = ?", (ref,))
        db.execute("DELETE FROM transcripts WHERE id = ?", (ref,))
    if rows:
        speakers.refresh(db)  # a voice is what its remaining speech makes it; one with none left is gone
    return len(rows), quoted


def _forget_or_resummarise(db: sqlite3.Connection, archive: EventArchive, event_id: int) -> None:
    row = db.execute("SELECT labels FROM events WHERE id = ?", (event_id,)).fetchone()
    if row is None:
        return
    left = db.execute("SELECT COUNT(*) FROM moments WHERE event_id = ?", (event_id,)).fetchone()[0]
    if left == 0:
        hierarchy.count_event_labels(db, json_list(row[0]), by=-1)
        remove_document(db, "event", event_id)
        db.execute("DELETE FROM events WHERE id = ?", (event_id,))  # cascades edges and caption vectors
        return
    archive.resummarise(db, event_id)


# The event that starts right after each of a set of events.
_FOLLOWER_SQL = (
    "SELECT (SELECT n.id FROM events n WHERE n.start > e.start ORDER BY n.start LIMIT 1) "
    "FROM events e WHERE e.id IN ({})"
)


def _ids(db: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> set[int]:
    return {int(r[0]) for r in db.execute(sql, args)}


def _ids_in(db: sqlite3.Connection, sql: str, ids: set[int]) -> set[int]:
    found: set[int] = set()
    for chunk in _chunks(sorted(ids)):
        rows = db.execute(sql.format(", ".join("?" * len(chunk))), chunk)
        found |= {int(r[0]) for r in rows if r[0] is not None}
    return found


def _chunks(ids: list[int], size: int = 500) -> list[list[int]]:
    return [ids[i : i + size] for i in range(0, len(ids), size)]
