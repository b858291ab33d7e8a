"""The memory engine: kept frames in, events, short-term view, long-term archive, retention out.

Per kept frame: segment (no look-ahead), then in one transaction close the
previous event if a boundary fired, open the next, write the moment, grow
the event, link its detections to entities and keep the short-term view (the
frames in view now, which the query side reads from the store); then update
the vector index, and run retention when it is due.  Everything here
is plain Python over SQLite: the node, the evaluator and the tests share it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import InputError, StoreError, VidmemError
from vidmem_ros.imaging import jpeg_to_rgb
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import Caption, ComposedCaptioner, EventCaptioner
from vidmem_ros.memory.entities import EntityUnifier
from vidmem_ros.memory.faces import FaceClusters, add_faces
from vidmem_ros.memory.links import relink
from vidmem_ros.memory.records import Event, Moment, Pose, Transcript
from vidmem_ros.memory.retention import Retention, RetentionReport
from vidmem_ros.memory.runs import RunClock
from vidmem_ros.memory.segmentation import EventSegmenter
from vidmem_ros.memory.short_term import ShortTermMemory
from vidmem_ros.memory.speakers import VoiceClusters
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.vector_search import VectorSearch
from vidmem_ros.memory.writes import insert_moment, insert_texts, insert_transcript, write_in_view
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.types import Detection, FaceSeen, Tag, TextLine

log = logging.getLogger(__name__)


@dataclass
class PerceivedFrame:
    """A frame that passed the gates, with everything perception made of it."""

    stamp: float
    source: str
    width: int
    height: int
    jpeg: bytes
    grey: np.ndarray  # small grey copy, for segmentation
    sharpness: float = 0.0
    quality: float = 0.0
    embedding: np.ndarray | None = None
    detections: list[Detection] = field(default_factory=list)
    crop_embeddings: list[np.ndarray | None] = field(default_factory=list)  # one per detection
    texts: list[TextLine] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)
    pose: Pose | None = None
    faces: list[FaceSeen] = field(default_factory=list)  # embedded faces (face.backend)


class MemoryEngine:
    def __init__(
        self,
        store: SqliteStore,
        config: VidmemConfig,
        captioner: EventCaptioner | None = None,
        text_embedder: TextEmbedder | None = None,
        keyframe_reader: Callable[[np.ndarray], list[TextLine]] | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.keyframe_reader = keyframe_reader  # OCR run on each event's keyframes as it closes
        self.archive = EventArchive(store, config, captioner or ComposedCaptioner(), text_embedder)
        self.segmenter = EventSegmenter(config.segment)
        self.short_term: ShortTermMemory[int] = ShortTermMemory.from_config(config.short_term)  # moment ids in view
        self.entities = EntityUnifier(config.archive)
        self.voices = VoiceClusters(config.speaker)  # who spoke: transcripts' speaker vectors clustered
        self.faces = FaceClusters(config.face)  # who was seen: face descriptors clustered
        synced = (lambda: store.synced_through("moments")) if config.fleet.uri else None
        self.retention = Retention(store, config.retention, synced)
        self.images = VectorSearch(store, "moment_vectors", config.index)
        self.counts: Counter[str] = Counter()
        self._lock = threading.RLock()
        self._event_id: int | None = None
        self.listeners: list[Callable[[Event], None]] = []  # told of each archived event, after it is committed
        self.recovered_events = self.archive.recover()
        self._forget_generation = store.get_meta("forget_generation")
        self.images.sync()
        with store.read() as db:
            self.runs = RunClock.load(db)  # memory's own time: the run in progress
        self.latest_stamp = settled_latest_stamp(store, config.ingest.max_stamp_jump_s)  # memory time
        self._next_retention = -np.inf

    # -- writing -------------------------------------------------------------------

    def observe(self, obs: PerceivedFrame) -> Moment:
        """Commit one kept frame; raises StoreError (with nothing half-written) if the store refuses it."""
        with self._lock:
            self._follow_forgets()
            placed = self.runs.place(obs.stamp)  # memory time (see ``runs``): a clock gone back starts a run
            if placed.new:
                self.segmenter.reset()  # a new run is a hard boundary
            reason = self.segmenter.observe(placed.time, obs.grey, obs.embedding)
            if placed.new and self._event_id is not None:
                reason = "new_run"
            moment = Moment(
                stamp=placed.time,
                source=obs.source,
                width=obs.width,
                height=obs.height,
                jpeg=obs.jpeg,
                sharpness=obs.sharpness,
                quality=obs.quality,
                detections=list(obs.detections),
                texts=list(obs.texts),
                tags=list(obs.tags),
                pose=obs.pose,
                embedding=obs.embedding,
            )
            before, run_before = self._event_id, self.runs.current
            closed: Event | None = None
            # Keyframe OCR and the caption come first, outside the transaction: either may take seconds.
            closing = self._event_id if reason else None
            read, caption = self._prepare_close(closing) if closing is not None else ({}, None)
            try:
                with self.store.write() as db:
                    if closing is not None:
                        for moment_id, lines in read.items():
                            insert_texts(db, moment_id, lines)
                        # An event that cannot be closed is quarantined; ingestion goes on with a new one.
                        closed = self.archive.close_or_quarantine(db, closing, caption)
                        self.counts["events_closed" if closed else "events_quarantined"] += 1
                    self.runs.commit(db, placed)
                    if reason or self._event_id is None:
                        self._event_id = self.archive.open(db, placed.time, reason or "start", placed.run.id)
                    moment.event_id = self._event_id
                    insert_moment(db, moment, placed.run.id)
                    self.archive.extend(db, self._event_id, moment)
                    self.entities.observe(db, moment, obs.crop_embeddings)
                    assert moment.id is not None
                    self._add_faces(db, moment.id, moment.stamp, obs.faces)
                    evicted = self.short_term.add(moment.stamp, moment.id, new_event=bool(reason))
                    write_in_view(db, self.short_term.items())
            except BaseException:
                # The transaction rolled back: the old event is still open.  The segmenter already
                # moved on, so start over: the next frame opens a new event rather than silently
                # joining a boundary that was never written.
                self._event_id, self.runs.current = before, run_before
                self.entities.invalidate()
                self.faces.invalidate()
                self.segmenter.reset()
                self.short_term.discard(lambda held: held == moment.id)
                raise
            assert moment.id is not None and moment.event_id is not None
            if closed is not None:
                self._announce(closed)
            if moment.embedding is not None:
                self.images.add(moment.id, moment.embedding, moment.stamp)
            self.counts["short_term_evicted_events"] += len(evicted)
            self.latest_stamp = max(self.latest_stamp, moment.stamp)
            self._maybe_run_retention()
            return moment

    def finish(self) -> Event | None:
        """Close the open event (at shutdown), so its document and summaries are written."""
        with self._lock:
            if self._event_id is None:
                return None
            with self.store.write() as db:
                event = self.archive.close_or_quarantine(db, self._event_id)
            self._event_id = None
            self.segmenter.reset()
            self.short_term.flush()
            if event is not None:
                self._announce(event)
            return event

    def _prepare_close(self, event_id: int) -> tuple[dict[int, list[TextLine]], Caption | None]:
        """Keyframe OCR and a caption for an event about to close; both may take seconds, so outside the write.

        If the event's data defeats them, the close itself captions it again, and quarantines it if that fails.
        """
        try:
            read = self._read_keyframes(event_id)
            return read, self.archive.draft_caption(event_id, read)
        except StoreError:
            raise
        except Exception as exc:
            log.warning(
                "event %d: keyframes or caption could not be prepared: %s: %s", event_id, type(exc).__name__, exc
            )
            return {}, None

    def _read_keyframes(self, event_id: int) -> dict[int, list[TextLine]]:
        if self.keyframe_reader is None:
            return {}
        read = {}
        for moment in self.archive.keyframes(event_id):
            assert moment.id is not None
            if moment.jpeg is not None and not moment.texts:
                try:
                    read[moment.id] = self.keyframe_reader(jpeg_to_rgb(moment.jpeg))
                except VidmemError as exc:  # a frame OCR cannot read is not a reason to lose the event
                    log.warning("keyframe %d was not read: %s", moment.id, exc)
        return read

    def _announce(self, event: Event) -> None:
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:  # a failing subscriber must not stop ingestion
                log.exception("event listener failed on event %d", event.id)

    def add_transcript(self, transcript: Transcript) -> int:
        """Store speech heard, in the run in progress (``transcript`` is on the sensor clock), with the voice that
        said it when it carries a speaker vector.  A vector no voice can hold is refused (logged, counted) and
        the words are kept without a speaker."""
        with self._lock:
            self._follow_forgets()
            try:
                with self.store.write() as db:
                    run_id, start, _ = self.runs.within(transcript.start)
                    heard = replace(transcript, start=start, end=start + (transcript.end - transcript.start))
                    ref = insert_transcript(db, heard, run_id)
                    self.archive.attach_transcript(db, heard)
                    if transcript.voice is not None and self.config.speaker.backend != "none":
                        self._assign_voice(db, ref, heard)
                    return ref
            except BaseException:
                self.voices.invalidate()  # the voices' cache may hold what was rolled back
                raise

    def _assign_voice(self, db: sqlite3.Connection, ref: int, heard: Transcript) -> None:
        assert heard.voice is not None
        try:
            assignment = self.voices.assign(db, ref, heard.voice, heard.start, heard.text)
        except InputError as exc:
            log.warning("transcript %d is kept without a speaker: %s", ref, exc)
            self.counts[f"voice_refused_{exc.reason}"] += 1
            return
        self.counts["voices_new" if assignment.new else "voices_matched"] += 1
        self.counts["voices_merged"] += len(assignment.merged)
        relink(db)  # the faces in view while it was said may make this voice someone seen

    def _add_faces(self, db: sqlite3.Connection, moment_id: int, stamp: float, faces: list[FaceSeen]) -> None:
        if not faces or self.config.face.backend == "none":
            return
        done, refused = add_faces(db, self.faces, moment_id, stamp, faces)
        for reason in refused:
            log.warning("a face on frame %d is kept without an identity: %s", moment_id, reason)
            self.counts[f"face_refused_{reason}"] += 1
        self.counts["faces_new"] += sum(a.new for a in done)
        self.counts["faces_matched"] += sum(not a.new for a in done)
        self.counts["faces_merged"] += sum(len(a.merged) for a in done)

    def add_pose_track(self, samples: Sequence[tuple[float, Pose]]) -> None:
        """Samples of the robot's path (sensor clock) in the run in progress; a sample from a clock the frames
        have not followed back yet is left out (the track restarts with the run)."""
        with self._lock:
            placed = [(t, pose) for stamp, pose in samples for _, t, behind in [self.runs.within(stamp)] if not behind]
            if placed:
                self.store.add_pose_track(placed)

    @property
    def latest_sensor_stamp(self) -> float:
        """The newest stamp of memory on the sensor clock (the run in progress): what intake's clock is seeded
        with after a restart; -inf for an empty memory."""
        run = self.runs.current
        return self.latest_stamp - (run.offset if run is not None else 0.0)

    def _follow_forgets(self) -> None:
        """Memory was forgotten (``memory.forget``, from this process or another, e.g. the query node's forget
        service): drop what the caches still hold of it."""
        generation = self.store.get_meta("forget_generation")
        if generation == self._forget_generation:
            return
        self._forget_generation = generation
        self.entities.invalidate()
        self.voices.invalidate()
        self.faces.invalidate()
        self.images.sync()
        if self._event_id is not None and self.store.event(self._event_id) is None:
            self._event_id = None  # the open event was forgotten whole: the next frame starts one
            self.segmenter.reset()
        gone = {i for i in self.short_term.items() if self.store.moment(i, with_payload=False) is None}
        self.short_term.discard(lambda held: held in gone)

    def run_retention(self, now: float | None = None) -> RetentionReport:
        with self._lock:
            report = self.retention.run(self.latest_stamp if now is None else now, self.images.memory_bytes)
            self.images.remove(report.removed_ids)
            return report

    def _maybe_run_retention(self) -> None:
        """A full pass once per period of sensor time; between passes, the disk budget's cheap check."""
        period = self.config.retention.period_s
        try:
            # Due once the clock reaches the next pass, or if it went back (a replayed bag) past the last one.
            if not self.latest_stamp < self._next_retention <= self.latest_stamp + period:
                self._next_retention = self.latest_stamp + period
                self.run_retention()
            else:
                self.images.remove(self.retention.hold_disk_budget().removed_ids)
        except StoreError as exc:  # retention can wait for the next frame; this one is already safe
            log.error("retention pass failed: %s", exc)


def settled_latest_stamp(store: SqliteStore, max_jump_s: float, agreeing: int = 3) -> float:
    """The newest stamp that others agree with: a lone frame stamped far ahead of the rest (written before
    intake refused such stamps) must not make every older frame look aged."""
    with store.read() as db:
        stamps = [float(r[0]) for r in db.execute("SELECT stamp FROM moments ORDER BY stamp DESC LIMIT 32")]
    for stamp in stamps:
        if sum(1 for s in stamps if stamp - max_jump_s <= s <= stamp) >= min(agreeing, len(stamps)):
            return stamp
    return stamps[0] if stamps else -np.inf
