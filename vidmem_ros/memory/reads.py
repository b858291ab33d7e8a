"""Every read of the store, as methods ``SqliteStore`` inherits: moments by id, time and place, events, text read
and heard, the robot's path, meta values and counters, and full-text and place search.  Each opens the
connection ``read()`` gives: a reader that sees committed data, or the writer inside the caller's transaction.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from vidmem_ros.memory.links import links_as_of
from vidmem_ros.memory.records import (
    Edge,
    Event,
    FaceSighting,
    Moment,
    Pose,
    SearchHit,
    Sighting,
    SuperEvent,
    TextLine,
    TextRead,
    Transcript,
)
from vidmem_ros.memory.rows import (
    EVENT_SQL,
    MOMENT_SQL,
    POSE_SQL,
    cell,
    event_from,
    json_list,
    moment_from,
    pose_columns,
    pose_from,
    stored_vector,
)
from vidmem_ros.memory.runs import RUN_SQL, Run, run_from
from vidmem_ros.memory.writes import FRAME_WALL_KEY, IN_VIEW_KEY, get_meta
from vidmem_ros.perception.types import Detection, Tag


class StoreReads:
    """The reads; the class that mixes them in supplies ``read()``."""

    def read(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    # -- meta and counters ---------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        with self.read() as db:
            return get_meta(db, key)

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

    def counter(self, name: str) -> int:
        with self.read() as db:
            row = db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def counters(self, prefix: str = "") -> dict[str, int]:
        with self.read() as db:
            rows = db.execute("SELECT name, value FROM counters WHERE name LIKE ?", (prefix + "%",)).fetchall()
        return {str(name): int(value) for name, value in rows}

    def runs(self, as_of: float | None = None) -> list[Run]:
        """The runs of the robot's clock (``memory.runs``) begun by memory time ``as_of``, oldest first."""
        with self.read() as db:
            rows = db.execute(f"SELECT {RUN_SQL} FROM runs ORDER BY id").fetchall()
        runs = [run_from(row) for row in rows]
        return [r for r in runs if as_of is None or r.start <= as_of] or runs[:1]

    # -- moments -------------------------------------------------------------------

    def moment(self, moment_id: int, with_payload: bool = True) -> Moment | None:
        with self.read() as db:
            row = db.execute(f"SELECT {MOMENT_SQL} FROM moments WHERE id = ?", (moment_id,)).fetchone()
            if row is None:
                return None
            moment = moment_from(row)
            _attach_details(db, [moment], with_payload)
        return moment

    def moments(
        self,
        start: float,
        end: float,
        as_of: float | None = None,
        limit: int = 1000,
        with_payload: bool = False,
        with_tags: bool = True,
    ) -> list[Moment]:
        """Moments with ``start <= stamp <= min(end, as_of)``, oldest first; without their scene tags where the
        caller reads those separately (``tag_counts``), as a tag answers to many words, each a row."""
        with self.read() as db:
            rows = db.execute(
                f"SELECT {MOMENT_SQL} FROM moments WHERE stamp BETWEEN ? AND ? ORDER BY stamp LIMIT ?",
                (start, min(end, _upper(as_of)), limit),
            ).fetchall()
            found = [moment_from(row) for row in rows]
            _attach_details(db, found, with_payload, with_tags)
        return found

    def event_moments(self, event_id: int, with_payload: bool = False) -> list[Moment]:
        with self.read() as db:
            rows = db.execute(
                f"SELECT {MOMENT_SQL} FROM moments WHERE event_id = ? ORDER BY stamp", (event_id,)
            ).fetchall()
            found = [moment_from(row) for row in rows]
            _attach_details(db, found, with_payload)
        return found

    def event_views(self, event_id: int) -> list[tuple[int, float, frozenset[str]]]:
        """(moment id, stamp, its scene tags' classes) for each of an event's moments, oldest first: how long
        a view lasted is read from these alone."""
        with self.read() as db:
            rows = db.execute(
                "SELECT DISTINCT m.id, m.stamp, t.label FROM moments m LEFT JOIN tags t ON t.moment_id = m.id "
                "WHERE m.event_id = ? ORDER BY m.stamp, m.id",
                (event_id,),
            ).fetchall()
        views: dict[int, tuple[float, set[str]]] = {}
        for mid, stamp, label in rows:
            labels = views.setdefault(mid, (stamp, set()))[1]
            if label is not None:
                labels.add(label)
        return [(mid, stamp, frozenset(labels)) for mid, (stamp, labels) in views.items()]

    def moments_near(
        self, x: float, y: float, radius: float, as_of: float | None = None, limit: int = 5000
    ) -> list[Moment]:
        """Moments whose pose lies within ``radius`` metres of (x, y), oldest first."""
        with self.read() as db:
            rows = db.execute(
                f"SELECT {MOMENT_SQL} FROM moments WHERE px BETWEEN ? AND ? AND py BETWEEN ? AND ? AND stamp <= ? "
                "ORDER BY stamp LIMIT ?",
                (x - radius, x + radius, y - radius, y + radius, _upper(as_of), limit),
            ).fetchall()
        found = [moment_from(row) for row in rows]
        return [m for m in found if m.pose is not None and math.hypot(m.pose.x - x, m.pose.y - y) <= radius]

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

    def tag_classes(
        self, start: float, end: float, as_of: float | None, min_score: float
    ) -> dict[str, tuple[str, ...]]:
        """The scene tags' classes in ``[start, min(end, as_of)]`` at ``min_score`` or above, in the order first
        stored, each with the broader words it answers to: what a question is matched against before any frame
        is read."""
        sql = (
            "SELECT label, word FROM tags WHERE stamp BETWEEN ? AND ? AND score >= ? "
            "GROUP BY label, word ORDER BY MIN(rowid)"
        )
        classes: dict[str, list[str]] = {}
        with self.read() as db:
            for label, word in db.execute(sql, (start, min(end, _upper(as_of)), min_score)):
                words = classes.setdefault(label, [])
                if word != label.lower():
                    words.append(word)
        return {label: tuple(words) for label, words in classes.items()}

    def tag_counts(self, start: float, end: float, as_of: float | None = None) -> list[tuple[str, int]]:
        """Each scene tag's class in ``[start, min(end, as_of)]`` and the number of frames it was on, the most
        frequent first (the first stored first among equals)."""
        sql = (
            "SELECT label, COUNT(DISTINCT moment_id) AS frames FROM tags WHERE stamp BETWEEN ? AND ? "
            "GROUP BY label ORDER BY frames DESC, MIN(rowid)"
        )
        with self.read() as db:
            return [(str(r[0]), int(r[1])) for r in db.execute(sql, (start, min(end, _upper(as_of))))]

    def tag_frames(
        self, labels: Sequence[str], start: float, end: float, as_of: float | None, min_score: float
    ) -> list[Sighting]:
        """Frames in ``[start, min(end, as_of)]`` tagged with one of ``labels`` at ``min_score`` or above, oldest
        first: one row per frame and class (read through the class's own word)."""
        if not labels:
            return []
        own = {label.lower(): label for label in labels}
        marks = ", ".join("?" * len(own))
        pose = pose_columns("m.")
        sql = (
            f"SELECT t.moment_id, t.stamp, t.label, t.score, t.word, {pose} FROM tags t "
            f"JOIN moments m ON m.id = t.moment_id "
            f"WHERE t.word IN ({marks}) AND t.stamp BETWEEN ? AND ? AND t.score >= ? ORDER BY t.stamp, t.rowid"
        )
        with self.read() as db:
            rows = db.execute(sql, (*own, start, min(end, _upper(as_of)), min_score)).fetchall()
        return [Sighting(r[0], r[1], r[2], r[3], pose_from(r[5:13])) for r in rows if own.get(r[4]) == r[2]]

    def moment_count(self, as_of: float | None = None) -> int:
        with self.read() as db:
            return int(db.execute("SELECT COUNT(*) FROM moments WHERE stamp <= ?", (_upper(as_of),)).fetchone()[0])

    def time_span(self, as_of: float | None = None) -> tuple[float, float] | None:
        with self.read() as db:
            row = db.execute("SELECT MIN(stamp), MAX(stamp) FROM moments WHERE stamp <= ?", (_upper(as_of),)).fetchone()
        return None if row[0] is None else (float(row[0]), float(row[1]))

    def written_through(self) -> float | None:
        """The latest stamp of any frame, sentence, event or pose written: it moves whenever memory grows."""
        with self.read() as db:
            row = db.execute(
                "SELECT MAX(x) FROM (SELECT MAX(stamp) AS x FROM moments UNION ALL SELECT MAX(start) FROM transcripts "
                "UNION ALL SELECT MAX(end) FROM events UNION ALL SELECT MAX(stamp) FROM pose_track)"
            ).fetchone()
        return None if row[0] is None else float(row[0])

    def moment_vector(self, moment_id: int) -> np.ndarray | None:
        with self.read() as db:
            row = db.execute("SELECT vector FROM moment_vectors WHERE moment_id = ?", (moment_id,)).fetchone()
        return None if row is None else cell(row[0], stored_vector, None)

    def vectors(
        self, table: str, after: int = -1, dim: int | None = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(ids, vectors, stamps) with ids above ``after``, in chunks, from ``moment_vectors`` or ``event_vectors``;
        with ``dim``, only vectors of that many values."""
        key = _vector_key(table)
        last = after
        size = "" if dim is None else f"AND LENGTH(vector) = {int(dim) * 4}"
        while True:
            with self.read() as db:
                rows = db.execute(
                    f"SELECT {key}, stamp, vector FROM {table} WHERE {key} > ? {size} ORDER BY {key} LIMIT 20000",
                    (last,),
                ).fetchall()
            if not rows:
                return
            last = int(rows[-1][0])
            ids = np.array([r[0] for r in rows], dtype=np.int64)
            stamps = np.array([r[1] for r in rows], dtype=np.float64)
            vectors = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
            yield ids, vectors, stamps

    def vector_sizes(self, table: str) -> tuple[int | None, int]:
        """The number of values of the newest vector in ``table``, and how many vectors have another size (made by
        an embedder the configuration no longer names)."""
        key = _vector_key(table)
        with self.read() as db:
            row = db.execute(f"SELECT LENGTH(vector) FROM {table} ORDER BY {key} DESC LIMIT 1").fetchone()
            if row is None:
                return None, 0
            others = db.execute(f"SELECT COUNT(*) FROM {table} WHERE LENGTH(vector) != ?", (row[0],)).fetchone()[0]
        return int(row[0]) // 4, int(others)

    # -- events, text read and heard, the path -----------------------------------------

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

    def event_count(self, status: str | None = None) -> int:
        """Events in the store, or only those with ``status`` (open, closed, quarantined)."""
        where, args = ("WHERE status = ?", (status,)) if status else ("", ())
        with self.read() as db:
            return int(db.execute(f"SELECT COUNT(*) FROM events {where}", args).fetchone()[0])

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

    def summary(self, key: str) -> tuple[float, float, str] | None:
        """A stored summary (the root's key is ``root``): start, end, text."""
        with self.read() as db:
            row = db.execute("SELECT start, end, text FROM summaries WHERE key = ?", (key,)).fetchone()
        return None if row is None else (cell(row[0], float, 0.0), cell(row[1], float, 0.0), cell(row[2], str, ""))

    def edges(self, event_id: int, kinds: Sequence[str] = ()) -> list[Edge]:
        with self.read() as db:
            return edges_of(db, event_id, kinds)

    def transcripts(self, start: float, end: float, as_of: float | None = None) -> list[Transcript]:
        with self.read() as db:
            rows = db.execute(
                "SELECT id, start, end, text, speaker, speaker_id FROM transcripts WHERE end >= ? AND start <= ? AND end <= ? "
                "ORDER BY start",
                (start, end, _upper(as_of)),
            ).fetchall()
        return [Transcript(r[1], r[2], r[3], r[4], r[0], r[5]) for r in rows]

    def texts_read(self, start: float, end: float, as_of: float | None = None, limit: int = 500) -> list[TextRead]:
        """Lines of text read (OCR) with ``start <= stamp <= min(end, as_of)``, oldest first, with the robot's pose."""
        pose = pose_columns("m.")
        with self.read() as db:
            rows = db.execute(
                f"SELECT t.id, t.moment_id, t.stamp, t.text, t.score, {pose}, t.x0, t.y0, t.x1, t.y1 FROM texts t "
                f"JOIN moments m ON m.id = t.moment_id WHERE t.stamp BETWEEN ? AND ? ORDER BY t.stamp LIMIT ?",
                (start, min(end, _upper(as_of)), limit),
            ).fetchall()
        return [TextRead(r[0], r[1], r[2], r[3], r[4], pose_from(r[5:13]), (r[13], r[14], r[15], r[16])) for r in rows]

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

    def face_sightings(self, start: float, end: float, as_of: float | None = None) -> list[FaceSighting]:
        """Faces seen with ``start <= stamp <= min(end, as_of)`` that still have an identity, oldest first."""
        pose = pose_columns("m.")
        with self.read() as db:
            rows = db.execute(
                f"SELECT f.id, f.moment_id, f.stamp, f.x0, f.y0, f.x1, f.y1, f.face_id, {pose} FROM face_sightings f "
                "JOIN moments m ON m.id = f.moment_id WHERE f.stamp BETWEEN ? AND ? AND f.face_id IS NOT NULL "
                "ORDER BY f.stamp, f.id",
                (start, min(end, _upper(as_of))),
            ).fetchall()
        return [FaceSighting(r[0], r[1], r[2], (r[3], r[4], r[5], r[6]), r[7], pose_from(r[8:16])) for r in rows]

    def person_links(self, as_of: float | None = None) -> list[tuple[int, int, float]]:
        """(speaker id, face id, confidence) of each voice and face found to be one person (``links``) on the
        evidence heard and seen by ``as_of``."""
        with self.read() as db:
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'person_links'").fetchone() is None:
                return []  # a store no build with links has written yet (this process may only read it)
            return [(k.speaker_id, k.face_id, k.confidence) for k in links_as_of(db, as_of)]

    def texts_below_faces(self, sighting_ids: Sequence[int]) -> list[tuple[int, TextRead]]:
        """(sighting id, text) for lines read on a face's own frame just below it, as a badge on a chest or a plate
        beside a door sits: overlapping the face's columns widened by one face width, from its lower half down to
        three face heights under it."""
        if not sighting_ids:
            return []
        pose = pose_columns("m.")
        marks = ", ".join("?" for _ in sighting_ids)
        with self.read() as db:
            rows = db.execute(
                f"SELECT f.id, t.id, t.moment_id, t.stamp, t.text, t.score, {pose} FROM face_sightings f "
                "JOIN texts t ON t.moment_id = f.moment_id JOIN moments m ON m.id = f.moment_id "
                f"WHERE f.id IN ({marks}) AND t.x1 >= f.x0 - (f.x1 - f.x0) AND t.x0 <= f.x1 + (f.x1 - f.x0) "
                "AND t.y0 >= (f.y0 + f.y1) / 2 AND t.y0 <= f.y1 + 3 * (f.y1 - f.y0) ORDER BY f.stamp, t.id",
                tuple(sighting_ids),
            ).fetchall()
        return [(r[0], TextRead(r[1], r[2], r[3], r[4], r[5], pose_from(r[6:14]))) for r in rows]

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
                f"SELECT {MOMENT_SQL} FROM moments WHERE px BETWEEN ? AND ? AND py BETWEEN ? AND ? AND stamp <= ? "
                f"{frame_filter} ORDER BY stamp",
                args + ((frame_id,) if frame_id else ()),
            ).fetchall()
        best: dict[object, SearchHit] = {}
        for row in rows:
            m = moment_from(row)
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


def edges_of(db: sqlite3.Connection, event_id: int, kinds: Sequence[str] = ()) -> list[Edge]:
    kind_filter = f"AND kind IN ({', '.join('?' for _ in kinds)})" if kinds else ""
    rows = db.execute(
        f"SELECT src, dst, kind, confidence, origin, evidence FROM edges WHERE (src = ? OR dst = ?) {kind_filter} "
        "ORDER BY id",
        (event_id, event_id, *kinds),
    ).fetchall()
    return [Edge(*row) for row in rows]


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


def _attach_details(db: sqlite3.Connection, moments: list[Moment], with_payload: bool, with_tags: bool = True) -> None:
    """Fill detections, texts read, (optionally) scene tags and the JPEG payload of moments read from rows."""
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
    if with_tags:
        _attach_tags(db, by_id, marks)
    if with_payload:
        for mid, jpeg in db.execute(f"SELECT moment_id, jpeg FROM payloads WHERE moment_id IN ({marks})", ids):
            by_id[mid].jpeg = bytes(jpeg)


def _attach_tags(db: sqlite3.Connection, by_id: dict[int | None, Moment], marks: str) -> None:
    tags: dict[tuple[int, str], list[str]] = {}
    scores: dict[tuple[int, str], float] = {}
    for mid, label, word, score in db.execute(
        f"SELECT moment_id, label, word, score FROM tags WHERE moment_id IN ({marks}) ORDER BY rowid", tuple(by_id)
    ):
        tags.setdefault((mid, label), [])
        scores[(mid, label)] = score
        if word != label.lower():
            tags[(mid, label)].append(word)
    for (mid, label), terms in tags.items():
        by_id[mid].tags.append(Tag(label, scores[(mid, label)], tuple(terms)))


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
