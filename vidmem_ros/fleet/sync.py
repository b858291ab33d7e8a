"""Sending what a robot's store committed to the fleet store, without losing or doubling a record.

Each kind of record (moments, text read, speech, closed events) has a position in the robot's store: the highest
local id the fleet store acknowledged.  A round first applies the forgets logged since the last round (so nothing
forgotten is sent again), then sends each kind's rows past its position in batches, moving the position only
after the fleet store took the batch.  Sends are upserts by robot and local id: a batch sent twice (the process
killed after the send, before the position moved) is stored once.  While the fleet store cannot be reached, the
positions stay and the next round starts from them; local retention evicts nothing past the moments' position.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import ConfigError, FleetUnavailableError
from vidmem_ros.fleet.records import FleetMoment, FleetStore, FleetText, Forgotten
from vidmem_ros.memory.forget import FLEET_FORGET_LOG, logged_forgets
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.rows import pose_columns, pose_from, stored_vector
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.writes import document_rowid, set_meta
from vidmem_ros.perception.embedding import TextEmbedder

log = logging.getLogger(__name__)
KINDS = ("moments", "texts", "transcripts", "events")


@dataclass
class SyncReport:
    sent: dict[str, int] = field(default_factory=dict)
    forgets: int = 0
    error: str = ""  # why the round stopped early (the fleet store unreachable)


class FleetSync:
    """``connect`` opens the fleet store; it is called again after a round it failed in (a server back up)."""

    def __init__(
        self,
        store: SqliteStore,
        connect: Callable[[], FleetStore],
        robot: str,
        text_embedder: TextEmbedder,
        batch_size: int = 1000,
        keep_open: bool = True,
    ) -> None:
        self.store = store
        self.connect = connect
        self._fleet: FleetStore | None = None
        # False: let go of the fleet store after each round (an embedded store's file, which the query node
        # opens too, is held by one process at a time).
        self.keep_open = keep_open
        self.robot = robot
        self.text_embedder = text_embedder
        self.batch_size = batch_size
        self.reader = MemoryReader(store)

    def run_once(self) -> SyncReport:
        """One round: logged forgets, then every kind's new rows; stops at the first refusal, losing nothing."""
        report = SyncReport()
        try:
            report.forgets = self._apply_forgets()
            for kind in KINDS:
                report.sent[kind] = self._send(kind)
        except FleetUnavailableError as exc:
            report.error = str(exc)
            log.warning("fleet sync paused: %s", exc)
            self._fleet = None  # connect again next round
        if not self.keep_open:
            self.close()
        return report

    @property
    def fleet(self) -> FleetStore:
        if self._fleet is None:
            self._fleet = self.connect()
        return self._fleet

    def close(self, release: bool | None = None) -> None:
        """``release`` (default: when the sync does not keep the store open) lets go of an embedded store's file."""
        if self._fleet is not None:
            self._fleet.close(release=not self.keep_open if release is None else release)
            self._fleet = None

    def lag(self) -> dict[str, int]:
        """Rows of each kind committed here and not yet acknowledged by the fleet store."""
        with self.store.read() as db:
            return {kind: _pending_count(db, kind, self.store.synced_through(kind)) for kind in KINDS}

    # -- forgets -------------------------------------------------------------------------

    def _apply_forgets(self) -> int:
        entries = logged_forgets(self.store)
        for entry in entries:
            self.fleet.forget(self.robot, Forgotten(entry["spans"], entry["moments"], entry["events"]))
            # Events that lost some frames were re-summarised here: send their new text.
            with self.store.read() as db:
                events = _events(db, entry["resummarised"], self.store.synced_through("events"))
            self.fleet.upsert_texts(self._event_texts(events))
        if entries:
            done = max(e["seq"] for e in entries)
            with self.store.write() as db:
                left = [e for e in logged_forgets(self.store, db) if e["seq"] > done]
                set_meta(db, FLEET_FORGET_LOG, json.dumps(left))
        return len(entries)

    # -- sending -------------------------------------------------------------------------

    def _send(self, kind: str) -> int:
        sent = 0
        while True:
            position = self.store.synced_through(kind)
            with self.store.read() as db:
                rows = _pending(db, kind, position, self.batch_size)
            if not rows:
                return sent
            last = self._upload(kind, rows)
            with self.store.write() as db:
                set_meta(db, f"fleet_synced_{kind}", str(last))
            sent += len(rows)
            if len(rows) < self.batch_size:
                return sent

    def _upload(self, kind: str, rows: list[dict[str, Any]]) -> int:
        """Send one batch; the highest local id it covers."""
        if kind == "moments":
            self.fleet.upsert_moments(
                [
                    FleetMoment(self.robot, r["id"], r["stamp"], r["event_id"], r["pose"], r["labels"], r["vector"])
                    for r in rows
                    if r["vector"] is not None  # a frame kept without a visual vector still has its text sent
                ]
            )
        elif kind == "events":
            self.fleet.upsert_texts(self._event_texts(rows))
        else:
            vectors = self.text_embedder.embed_texts([r["text"] for r in rows])
            self.fleet.upsert_texts(
                [
                    FleetText(
                        self.robot,
                        "text" if kind == "texts" else "transcript",
                        r["id"],
                        r["stamp"],
                        r["end"],
                        r["pose"] if kind == "texts" else self.reader.pose_at(r["stamp"]),
                        r["text"],
                        vector,
                        moment_id=r.get("moment_id", -1),
                    )
                    for r, vector in zip(rows, vectors, strict=True)
                ]
            )
        return max(int(r["id"]) for r in rows)

    def _event_texts(self, events: Sequence[dict[str, Any]]) -> list[FleetText]:
        with_text = [e for e in events if e["text"].strip()]
        if not with_text:
            return []
        vectors = self.text_embedder.embed_texts([e["text"] for e in with_text])
        return [
            FleetText(self.robot, "event", e["id"], e["stamp"], e["end"], e["pose"], e["text"], vector)
            for e, vector in zip(with_text, vectors, strict=True)
        ]


def build_fleet_sync(
    config: VidmemConfig, store: SqliteStore, image_dim: int, keep_open: bool = True
) -> FleetSync | None:
    """The sync of ``store`` to the configured fleet store; None without one (``fleet.uri`` empty)."""
    if not config.fleet.uri:
        return None
    from vidmem_ros.fleet.milvus import fleet_connector, robot_id
    from vidmem_ros.perception.registry import build_text_embedder

    text_embedder = build_text_embedder(config.text_embedder)
    if text_embedder is None:
        raise ConfigError("fleet.uri needs a sentence embedder for the text it sends: set text_embedder.backend")
    if image_dim <= 0:
        raise ConfigError("fleet.uri needs an image embedder for the frames it sends: set embedder.backend")
    connect = fleet_connector(config.fleet, image_dim, text_embedder.dim)
    return FleetSync(store, connect, robot_id(config.fleet), text_embedder, config.fleet.batch_size, keep_open)


class SyncLoop:
    """Runs ``FleetSync.run_once`` every ``period_s`` on a thread of its own, and once more at ``stop``."""

    def __init__(self, sync: FleetSync, period_s: float, on_round: Callable[[SyncReport], None] | None = None) -> None:
        self.sync = sync
        self.period_s = period_s
        self.on_round = on_round
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="vidmem-fleet-sync", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self.period_s):
            self._round()

    def _round(self) -> None:
        try:
            report = self.sync.run_once()
        except Exception:  # a bug in one round must not end the sync; memory stays local meanwhile
            log.exception("fleet sync round failed")
            return
        if self.on_round is not None:
            self.on_round(report)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop after a last round, so what was committed before the stop is sent if the fleet store is up; then
        let go of the fleet store."""
        self._stopped.set()
        self._thread.join(timeout_s)
        self._round()
        self.sync.close()


# -- rows ------------------------------------------------------------------------------------


def _pending(db: sqlite3.Connection, kind: str, after: int, limit: int) -> list[dict[str, Any]]:
    if kind == "moments":
        return _moments(db, after, limit)
    if kind == "texts":
        rows = db.execute(
            f"SELECT t.id, t.stamp, t.text, t.moment_id, {pose_columns('m.')} "
            "FROM texts t JOIN moments m ON m.id = t.moment_id WHERE t.id > ? ORDER BY t.id LIMIT ?",
            (after, limit),
        ).fetchall()
        return [
            {"id": r[0], "stamp": r[1], "end": r[1], "text": r[2], "moment_id": r[3], "pose": pose_from(r[4:])}
            for r in rows
        ]
    if kind == "transcripts":
        rows = db.execute(
            "SELECT id, start, end, text FROM transcripts WHERE id > ? ORDER BY id LIMIT ?", (after, limit)
        ).fetchall()
        return [{"id": r[0], "stamp": r[1], "end": r[2], "text": r[3]} for r in rows]
    ids = [
        r[0]
        for r in db.execute(f"SELECT id FROM events WHERE id > ? AND {_CLOSED} ORDER BY id LIMIT ?", (after, limit))
    ]
    return _events(db, ids, None)


# Events once closed, in id order up to the first still open: its caption is not written yet.
_CLOSED = "id < COALESCE((SELECT MIN(id) FROM events WHERE status = 'open'), 9223372036854775807)"


def _pending_count(db: sqlite3.Connection, kind: str, after: int) -> int:
    """How many rows ``_pending`` has past ``after``, counted rather than read."""
    where = {
        "moments": "moments WHERE id > ?",
        "texts": "texts t JOIN moments m ON m.id = t.moment_id WHERE t.id > ?",
        "transcripts": "transcripts WHERE id > ?",
        "events": f"events WHERE id > ? AND {_CLOSED}",
    }[kind]
    return int(db.execute(f"SELECT COUNT(*) FROM {where}", (after,)).fetchone()[0])


def _moments(db: sqlite3.Connection, after: int, limit: int) -> list[dict[str, Any]]:
    rows = db.execute(
        f"SELECT m.id, m.stamp, COALESCE(m.event_id, -1), v.vector, {pose_columns('m.')} FROM moments m "
        "LEFT JOIN moment_vectors v ON v.moment_id = m.id WHERE m.id > ? ORDER BY m.id LIMIT ?",
        (after, limit),
    ).fetchall()
    labels: dict[int, set[str]] = {}
    if rows:
        for moment_id, label in db.execute(
            "SELECT moment_id, label FROM detections WHERE moment_id BETWEEN ? AND ?", (rows[0][0], rows[-1][0])
        ):
            labels.setdefault(int(moment_id), set()).add(str(label))
    return [
        {
            "id": int(r[0]),
            "stamp": float(r[1]),
            "event_id": int(r[2]),
            "vector": stored_vector(r[3]) if r[3] is not None else None,
            "pose": pose_from(r[4:]),
            "labels": tuple(sorted(labels.get(int(r[0]), ()))),
        }
        for r in rows
    ]


def _events(db: sqlite3.Connection, ids: Sequence[int], through: int | None) -> list[dict[str, Any]]:
    """Closed events among ``ids`` (at most ``through``, when given) with the text their document holds."""
    wanted = sorted({i for i in ids if through is None or i <= through})
    if not wanted:
        return []
    marks = ", ".join("?" * len(wanted))
    rows = db.execute(
        f"SELECT id, start, end, {pose_columns('start_')} FROM events WHERE status != 'open' AND id IN ({marks}) "
        "ORDER BY id",
        wanted,
    ).fetchall()
    rowids = [document_rowid("event", int(r[0])) for r in rows]
    texts = dict(
        db.execute(f"SELECT rowid, text FROM documents WHERE rowid IN ({', '.join('?' * len(rowids))})", rowids)
    )
    return [
        {
            "id": int(r[0]),
            "stamp": float(r[1]),
            "end": float(r[2]),
            "pose": pose_from(r[3:]),
            "text": str(texts.get(rowid, "")),
        }
        for r, rowid in zip(rows, rowids, strict=True)
    ]


def sync_store(config: VidmemConfig, store: SqliteStore, once: bool, out: TextIO) -> int:
    """``vidmem sync``: send a store to the fleet store (once, or every ``fleet.sync_period_s`` until Ctrl-C)."""
    from vidmem_ros.perception.registry import build_embedder

    embedder = build_embedder(config.embedder, config.tagger)
    sync = build_fleet_sync(config, store, embedder.dim if embedder is not None else 0)
    if sync is None:
        raise ConfigError("no fleet store to send to: set fleet.uri")
    try:
        while True:
            report = sync.run_once()
            sent = ", ".join(f"{n} {kind}" for kind, n in report.sent.items())
            print(f"sent {sent}; {report.forgets} forgets applied; lag {sync.lag()}", file=out)
            if report.error:
                print(f"paused: {report.error}", file=out)
            if once:
                return 1 if report.error else 0
            time.sleep(config.fleet.sync_period_s)
    except KeyboardInterrupt:
        return 0
    finally:
        sync.close()
