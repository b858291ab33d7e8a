"""Long-term event archive: events open at a boundary, grow with every kept frame, and are closed into documents.

An event row exists from its first frame on and is updated in the same
transaction as each moment, so a killed process leaves open events that the
next start closes from their committed moments: nothing is lost but the
frames in flight.  An event whose records cannot be closed (bad data, not a
store that refuses writes) is quarantined: marked, logged and counted, so that
ingestion and start-up go on without it; ``vidmem doctor`` repairs and retries it.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import sqlite3
from dataclasses import replace

import numpy as np

from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import StoreError
from vidmem_ros.memory import graph, hierarchy
from vidmem_ros.memory.captions import Caption, EventCaptioner, EventFacts, event_labels, event_tags, event_texts
from vidmem_ros.memory.faces import keep_keyframe_crops
from vidmem_ros.memory.links import relink
from vidmem_ros.memory.records import Edge, Event, Moment, Transcript
from vidmem_ros.memory.rows import EVENT_SQL, event_from, json_list, pose_from, pose_values, vector_blob
from vidmem_ros.memory.runs import runs_in
from vidmem_ros.memory.schema import POSE_COLUMNS as _POSE_COLS
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.writes import add_document
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.types import TextLine

log = logging.getLogger(__name__)

QUARANTINED = "quarantined"  # the status of an event that could not be closed
QUARANTINE_COUNTER = "quarantined_events"  # durable: how many events were ever quarantined
_EVENT_POSES_SQL = ", ".join([f"start_{c}" for c in _POSE_COLS] + [f"end_{c}" for c in _POSE_COLS])


class EventArchive:
    def __init__(
        self,
        store: SqliteStore,
        config: VidmemConfig,
        captioner: EventCaptioner,
        text_embedder: TextEmbedder | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.captioner = captioner
        self.text_embedder = text_embedder

    def open(self, db: sqlite3.Connection, stamp: float, reason: str, run_id: int = 1) -> int:
        cur = db.execute(
            "INSERT INTO events (start, end, status, reason, run_id) VALUES (?, ?, 'open', ?, ?)",
            (stamp, stamp, reason, run_id),
        )
        return int(cur.lastrowid or 0)

    def extend(self, db: sqlite3.Connection, event_id: int, moment: Moment) -> None:
        """Grow an open event by one committed moment, tracking where the robot went."""
        row = db.execute(f"SELECT {_EVENT_POSES_SQL} FROM events WHERE id = ?", (event_id,)).fetchone()
        start, end = pose_from(row[:8]), pose_from(row[8:])
        step = 0.0
        pose = moment.pose
        if pose is not None and end is not None:
            step = math.dist((end.x, end.y, end.z), (pose.x, pose.y, pose.z))
        sets = "end = MAX(end, ?), frame_count = frame_count + 1, path_m = path_m + ?"
        args: list[object] = [moment.stamp, step]
        if pose is not None:
            sets += ", " + ", ".join(f"end_{c} = ?" for c in _POSE_COLS)
            args += pose_values(pose)
            if start is None:
                sets += ", " + ", ".join(f"start_{c} = ?" for c in _POSE_COLS)
                args += pose_values(pose)
        db.execute(f"UPDATE events SET {sets} WHERE id = ?", (*args, event_id))

    def close(self, db: sqlite3.Connection, event_id: int, caption: Caption | None = None) -> Event:
        """Turn an open event into its archived form: keyframes, caption, change, document, edges, tiers above."""
        event, caption, previous = self.summarise(db, event_id, caption=caption)
        if not (math.isfinite(event.start) and math.isfinite(event.end)):
            # Archived, it would overlap every span asked about and age nothing; quarantined, a repair can fix it.
            raise ValueError(f"event {event_id} has a moment with no real time (spans {event.start} to {event.end})")
        if previous is not None:
            graph.connect(
                db, Edge(previous.id, event_id, "before", 1.0, "auto", f"gap {event.start - previous.end:.1f} s")
            )
            for rel in caption.relations:
                graph.connect(
                    db, Edge(previous.id, event_id, rel.kind, rel.confidence, self.captioner.name, rel.evidence)
                )
        hierarchy.count_event_labels(db, event.labels)
        hierarchy.attach_to_super_event(db, event, self.config.archive, self.config.segment)
        return event

    def close_or_quarantine(
        self, db: sqlite3.Connection, event_id: int, caption: Caption | None = None
    ) -> Event | None:
        """Close an event, or quarantine it when its records cannot be closed; None then.

        Only the event's own writes are undone (a savepoint), so the caller's transaction goes on.
        A store that refuses the write (full disk, lock, corrupt file) still raises.
        """
        db.execute("SAVEPOINT closing")
        try:
            event = self.close(db, event_id, caption)
        except Exception as exc:
            if _refused_by_store(exc) or not db.in_transaction:
                raise
            db.execute("ROLLBACK TO closing")
            db.execute("RELEASE closing")
            self._quarantine(db, event_id, exc)
            return None
        db.execute("RELEASE closing")
        return event

    def _quarantine(self, db: sqlite3.Connection, event_id: int, exc: Exception) -> None:
        """Mark, log and count an event that cannot be closed; once, however often it is retried."""
        marked = db.execute(
            "UPDATE events SET status = ? WHERE id = ? AND status != ?", (QUARANTINED, event_id, QUARANTINED)
        ).rowcount
        if marked:
            self.store.bump_counter(QUARANTINE_COUNTER)
            log.error(
                "event %d could not be closed and is quarantined; memory goes on without it "
                "(`vidmem doctor --store %s --repair` retries it): %s: %s",
                event_id,
                self.store.path,
                type(exc).__name__,
                exc,
                exc_info=exc,
            )
        else:
            log.warning(
                "event %d (quarantined already, or gone) still cannot be closed: %s: %s",
                event_id,
                type(exc).__name__,
                exc,
            )

    def resummarise(self, db: sqlite3.Connection, event_id: int, keep_caption: bool = False) -> Event | None:
        """Rewrite a closed event after its moments changed (forget, repair), keeping counters and tiers right."""
        row = db.execute("SELECT labels, status, super_id, caption FROM events WHERE id = ?", (event_id,)).fetchone()
        if row is None or row[1] != "closed":
            return None
        hierarchy.count_event_labels(db, json_list(row[0]), by=-1)
        event, _, previous = self.summarise(db, event_id, caption_text=row[3] if keep_caption else None)
        hierarchy.count_event_labels(db, event.labels)
        if previous is not None:
            gap = f"gap {event.start - previous.end:.1f} s"
            graph.connect(db, Edge(previous.id, event_id, "before", 1.0, "auto", gap))
        if row[2] is not None:
            hierarchy.refresh_super_event(db, row[2])
        hierarchy.refresh_root(db)
        return event

    def draft_caption(self, event_id: int, read: dict[int, list[TextLine]] | None = None) -> Caption:
        """Caption an event from committed data, outside any write transaction: a VLM may take seconds.

        ``read`` holds text just read from keyframes, not committed yet, so the caption can quote it.
        """
        with self.store.read() as db:
            _, moments, previous, facts = self._facts(db, event_id)
        if read:
            for moment in moments:
                moment.texts.extend(read.get(moment.id or -1, []))
            facts = replace(facts, texts=event_texts(moments))
        return self.captioner.caption(facts, previous)

    def keyframes(self, event_id: int) -> list[Moment]:
        """The moments ``close`` will choose as keyframes, with payloads, from committed data."""
        moments = self.store.event_moments(event_id)  # without payloads: only the chosen few are loaded
        with self.store.read() as db:
            imaged = with_image(db, event_id)
        count = self.config.archive.keyframes_per_event
        chosen = (self.store.moment(k) for k in choose_keyframes(moments, count, imaged))
        return [m for m in chosen if m is not None]

    def summarise(
        self, db: sqlite3.Connection, event_id: int, caption_text: str | None = None, caption: Caption | None = None
    ) -> tuple[Event, Caption, Event | None]:
        """(Re)write an event's caption, labels, texts, keyframes and document from its moments."""
        event, moments, previous, facts = self._facts(db, event_id)
        if caption is None:
            caption = self.captioner.caption(facts, previous)
        if caption_text:  # words a planner or captioner gave this event through a patch
            caption = Caption(caption_text, caption.change, caption.relations)
        keyframes = choose_keyframes(moments, self.config.archive.keyframes_per_event, with_image(db, event_id))
        write_pose_track(db, event_id, moments)
        db.execute("UPDATE moments SET keyframe = 0 WHERE event_id = ?", (event_id,))
        db.executemany("UPDATE moments SET keyframe = 1 WHERE id = ?", [(k,) for k in keyframes])
        keep_keyframe_crops(db, event_id)
        relink(db)  # the faces on its frames are evidence of who spoke then
        db.execute(
            "UPDATE events SET status = 'closed', start = ?, end = ?, caption = ?, change = ?, labels = ?, texts = ?, "
            "transcript = ?, keyframes = ?, frame_count = ? WHERE id = ?",
            (
                event.start,
                event.end,
                caption.text,
                caption.change,
                json.dumps(facts.labels),
                json.dumps(facts.texts),
                json.dumps(facts.transcript),
                json.dumps(keyframes),
                len(moments),
                event_id,
            ),
        )
        event = event_from(db.execute(f"SELECT {EVENT_SQL} FROM events WHERE id = ?", (event_id,)).fetchone())
        add_document(db, "event", event_id, event.start, event.end, event_document(event))
        self._embed_caption(db, event)
        return event, caption, previous

    def _facts(self, db: sqlite3.Connection, event_id: int) -> tuple[Event, list[Moment], Event | None, EventFacts]:
        event = event_from(db.execute(f"SELECT {EVENT_SQL} FROM events WHERE id = ?", (event_id,)).fetchone())
        moments = self.store.event_moments(event_id)
        if moments:
            event.start, event.end = moments[0].stamp, moments[-1].stamp
        previous_row = db.execute(
            f"SELECT {EVENT_SQL} FROM events WHERE status = 'closed' AND start < ? AND id != ? "
            "ORDER BY start DESC LIMIT 1",
            (event.start, event_id),
        ).fetchone()
        previous = event_from(previous_row) if previous_row else None
        facts = EventFacts(
            start=event.start,
            end=event.end,
            labels=event_labels(moments, self.config.archive.label_min_score),
            texts=event_texts(moments),
            transcript=[t.text for t in _transcripts(db, event.start, event.end)],
            moments=moments,
            tags=event_tags(moments, self.config.archive.tag_min_score),
            runs=runs_in(db),
        )
        return event, moments, previous, facts

    def recover(self) -> int:
        """Close events left open by a process that was killed; returns how many were open.

        Each closes in its own transaction: one that cannot be closed is quarantined, the others close.
        """
        open_ids, closed = self._close_all("open")
        if open_ids:
            log.warning("closed %d of %d event(s) left open by an earlier run", closed, len(open_ids))
        return len(open_ids)

    def retry_quarantined(self) -> tuple[int, int]:
        """Try again to close quarantined events (after a repair); returns (tried, closed)."""
        ids, closed = self._close_all(QUARANTINED)
        return len(ids), closed

    def _close_all(self, status: str) -> tuple[list[int], int]:
        """Close every event with ``status`` (dropping those without moments); the ids, and how many closed."""
        with self.store.read() as db:
            ids = [int(r[0]) for r in db.execute("SELECT id FROM events WHERE status = ? ORDER BY start", (status,))]
        closed = 0
        for event_id in ids:
            with self.store.write() as db:
                if db.execute("SELECT COUNT(*) FROM moments WHERE event_id = ?", (event_id,)).fetchone()[0] == 0:
                    db.execute("DELETE FROM events WHERE id = ?", (event_id,))
                elif self.close_or_quarantine(db, event_id) is not None:
                    closed += 1
        return ids, closed

    def attach_transcript(self, db: sqlite3.Connection, transcript: Transcript) -> None:
        """Add late speech to the closed event it ended in (an open event picks it up when it closes)."""
        rows = db.execute(
            f"SELECT {EVENT_SQL} FROM events WHERE status = 'closed' AND start <= ? AND end >= ?",
            (transcript.end, transcript.end),
        ).fetchall()
        for row in rows:
            event = event_from(row)
            event.transcript.append(transcript.text)
            db.execute("UPDATE events SET transcript = ? WHERE id = ?", (json.dumps(event.transcript), event.id))
            add_document(db, "event", event.id, event.start, event.end, event_document(event))

    def _embed_caption(self, db: sqlite3.Connection, event: Event) -> None:
        if self.text_embedder is None or not event.caption:
            return
        vector = self.text_embedder.embed_texts([event.caption])[0]
        db.execute("INSERT OR REPLACE INTO event_vectors VALUES (?, ?, ?)", (event.id, event.end, vector_blob(vector)))


def write_pose_track(db: sqlite3.Connection, event_id: int, moments: list[Moment]) -> None:
    """Start and end pose and distance travelled, from the moments the event holds now."""
    poses = [m.pose for m in moments if m.pose is not None]
    path = sum(math.dist((a.x, a.y, a.z), (b.x, b.y, b.z)) for a, b in itertools.pairwise(poses))
    start = pose_values(poses[0] if poses else None)
    end = pose_values(poses[-1] if poses else None)
    sets = ", ".join([f"start_{c} = ?" for c in _POSE_COLS] + [f"end_{c} = ?" for c in _POSE_COLS])
    db.execute(f"UPDATE events SET {sets}, path_m = ? WHERE id = ?", (*start, *end, path, event_id))


def _refused_by_store(exc: Exception) -> bool:
    """Whether closing failed because the store refused a write, not because of the event's data.

    A constraint a bad value broke is the data's fault; any other SQLite error (disk full, locked,
    corrupt) is the store's.
    """
    if isinstance(exc, sqlite3.IntegrityError | sqlite3.DataError):
        return False
    return isinstance(exc, StoreError | sqlite3.Error)


def with_image(db: sqlite3.Connection, event_id: int) -> set[int]:
    """The event's moments whose image (payload) retention has kept."""
    rows = db.execute(
        "SELECT p.moment_id FROM payloads p JOIN moments m ON m.id = p.moment_id WHERE m.event_id = ?", (event_id,)
    )
    return {int(r[0]) for r in rows}


def choose_keyframes(moments: list[Moment], count: int, imaged: set[int] | None = None) -> list[int]:
    """The best-quality moment of each of ``count`` equal stretches of the event, so keyframes spread in time;
    within a stretch a moment whose image is kept (``imaged``) comes before any whose image is gone."""
    if not moments:
        return []
    chunks = np.array_split(np.arange(len(moments)), min(count, len(moments)))
    chosen = []
    for chunk in chunks:
        best = max((moments[i] for i in chunk), key=lambda m: (imaged is None or m.id in imaged, m.quality))
        assert best.id is not None
        chosen.append(best.id)
    return chosen


def event_document(event: Event) -> str:
    """The text the event is found by: its caption, what changed, labels, texts and speech."""
    parts = [event.caption, event.change, " ".join(event.labels), " ".join(event.texts), " ".join(event.transcript)]
    return "\n".join(p for p in parts if p)


def _transcripts(db: sqlite3.Connection, start: float, end: float) -> list[Transcript]:
    """Speech that ended during the event: what outlasts it belongs to a later one (and to a later ``as_of``)."""
    rows = db.execute(
        "SELECT id, start, end, text, speaker, speaker_id FROM transcripts WHERE end BETWEEN ? AND ? ORDER BY start",
        (start, end),
    ).fetchall()
    return [Transcript(r[1], r[2], r[3], r[4], r[0], r[5]) for r in rows]
