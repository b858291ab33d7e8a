"""The ingest pipeline: frames in, gated, analysed and written to the store.

``IngestPipeline`` is synchronous and used directly by the evaluator and tests;
``IngestWorker`` runs it on a thread behind a bounded queue for live topics, so
a slow model never blocks a subscription callback and memory never grows with
the input rate.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Iterator

import numpy as np

from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import DiskFullError, InputError, StoreError
from vidmem_ros.imaging import rgb_to_jpeg
from vidmem_ros.ingest.frames import DecodedImage, FrameInput, RawImage
from vidmem_ros.ingest.gates import RATE_TOLERANCE, RETRY_FRACTION, FrameGate
from vidmem_ros.ingest.poses import PoseBuffer, PoseTrack
from vidmem_ros.ingest.stats import IngestStats
from vidmem_ros.memory.captions import EventCaptioner
from vidmem_ros.memory.engine import MemoryEngine, PerceivedFrame
from vidmem_ros.memory.records import Moment, Pose
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.embedding import ImageEmbedder, TextEmbedder, colour_histogram
from vidmem_ros.perception.ocr import ocr_wanted
from vidmem_ros.perception.types import Detection, Detector, FaceEmbedder, FaceSeen, OcrEngine, Tagger, TextLine
from vidmem_ros.validation import CLOCK_RESET_S, StreamClock, ThrottledLog, checked_pose

log = logging.getLogger(__name__)

# Detection boxes smaller than this (pixels per side) are too small to embed for entity matching.
MIN_CROP_PX = 16


class IngestPipeline:
    def __init__(
        self,
        config: VidmemConfig,
        store: SqliteStore,
        detector: Detector | None,
        embedder: ImageEmbedder | None = None,
        *,
        tagger: Tagger | None = None,
        ocr: OcrEngine | None = None,
        captioner: EventCaptioner | None = None,
        text_embedder: TextEmbedder | None = None,
        face_embedder: FaceEmbedder | None = None,
    ) -> None:
        self.config = config
        self.face_embedder = face_embedder
        self.store = store
        self.detector = detector
        self.embedder = embedder
        self.tagger = tagger
        self.ocr = ocr
        keyframe_reader = ocr.read if ocr is not None and config.ocr.run_on == "keyframes" else None
        self.engine = MemoryEngine(store, config, captioner, text_embedder, keyframe_reader)
        self.stats = IngestStats()
        self.poses = PoseBuffer()
        self.gate = FrameGate(config.ingest)
        self.ocr_runs = 0
        self._last_stamp: float | None = None
        # Memory's own latest stamp seeds the frame clock, so a restart is not fooled by a bad first stamp; the time
        # since memory was last written is time the robot's clock moved on while this process was down.
        known = self.engine.latest_sensor_stamp if np.isfinite(self.engine.latest_stamp) else None
        self.frame_clock = StreamClock(config.ingest.max_stamp_jump_s, now=known, idle_s=_since_written(store))
        self.pose_clock = StreamClock(config.ingest.max_stamp_jump_s)
        self.warnings = ThrottledLog(log)
        self.last_store_error: str | None = None  # why the store refused the last frame, while it refuses them
        # The path, downsampled, kept in the store on memory's time.
        self.track = PoseTrack(store, config.ingest, self.warnings, self.engine.add_pose_track)

    @classmethod
    def from_config(cls, config: VidmemConfig, store: SqliteStore) -> IngestPipeline:
        """Every model the configuration names, loaded once; a missing one is a start-up error naming its setting."""
        from vidmem_ros.memory.captioner_backends import build_captioner
        from vidmem_ros.perception import registry

        pipeline = cls(
            config,
            store,
            registry.build_detector(config.detector),
            registry.build_embedder(config.embedder, config.tagger),
            tagger=registry.build_tagger(config.tagger, config.lexicon),
            ocr=registry.build_ocr(config.ocr),
            captioner=build_captioner(config.captioner),
            text_embedder=registry.build_text_embedder(config.text_embedder),
            face_embedder=registry.build_face_embedder(config.face),
        )
        pipeline.warm_up()
        return pipeline

    def warm_up(self) -> None:
        """Run every model once, so the first real frame is not the one that pays for lazy initialisation."""
        frame = np.random.default_rng(0).integers(0, 255, (240, 320, 3), dtype=np.uint8)
        if self.detector is not None:
            self.detector.detect(frame)
        if self.tagger is not None:
            self.tagger.tag(frame)
        if self.embedder is not None:
            self.embedder.embed(frame)
        if self.ocr is not None:
            self.ocr.read(frame)
        if self.face_embedder is not None:
            self.face_embedder.faces(frame)

    def ingest(self, frame: FrameInput) -> Moment | None:
        """Count a newly arrived frame and, if its stamp is believable, process it."""
        self.stats.received()
        if not self.admit(frame):
            return None
        return self.process(frame)

    def admit(self, frame: FrameInput) -> bool:
        """Refuse (and count) a frame whose stamp is not finite or far ahead of the stream."""
        reason = self.frame_clock.admit(frame.stamp)
        if reason:
            self.stats.dropped(reason)
            self.warnings.warning(reason, f"refused a frame from {frame.source} stamped {frame.stamp!r}: {reason}")
        return not reason

    def add_pose(self, stamp: float, pose: Pose) -> bool:
        """Take a pose sample if it is a real pose at a believable stamp; refusals are counted by reason."""
        reason = self.pose_clock.admit(stamp)
        if not reason:
            try:
                pose = checked_pose(pose)
            except InputError as exc:
                reason = exc.reason
                self.warnings.warning(f"pose_{reason}", f"refused a pose stamped {stamp!r}: {exc.detail}")
        else:
            self.warnings.warning(f"pose_{reason}", f"refused a pose stamped {stamp!r}: {reason}")
        if reason:
            self.stats.dropped_input("pose", reason)
            return False
        self.poses.add(stamp, pose)
        self.track.add(stamp, pose)
        return True

    def process(self, frame: FrameInput) -> Moment | None:
        if not self.config.ingest.enabled:
            return self._drop("disabled")
        self._watch_clock(frame.stamp)
        reason = self.gate.check_time(frame.stamp)
        if reason:
            return self._drop(reason)
        try:
            rgb = frame.image.decode(self.config.ingest.max_pixels)
        except InputError as exc:
            self.warnings.warning(exc.reason, f"dropped frame from {frame.source} at {frame.stamp:.3f}: {exc}")
            return self._drop(exc.reason)
        verdict = self.gate.check_image(frame.stamp, rgb)
        if not verdict.keep:
            return self._drop(verdict.reason)
        cfg = self.config.ingest
        assert verdict.grey is not None
        detections = self.detector.detect(rgb) if self.detector else []
        perceived = PerceivedFrame(
            stamp=frame.stamp,
            source=frame.source,
            width=int(rgb.shape[1]),
            height=int(rgb.shape[0]),
            jpeg=rgb_to_jpeg(rgb, cfg.jpeg_quality, cfg.store_max_width),
            grey=verdict.grey,
            sharpness=verdict.sharpness,
            quality=verdict.quality,
            embedding=self.embedder.embed(rgb) if self.embedder else None,
            detections=detections,
            tags=self.tagger.tag(rgb) if self.tagger else [],
            texts=self._read(rgb),
            crop_embeddings=[self._embed_crop(rgb, d) for d in detections],
            pose=self.poses.at(frame.stamp, cfg.pose_max_age_s, cfg.pose_wait_s),
            faces=self._faces(rgb),
        )
        try:
            moment = self.engine.observe(perceived)
        except StoreError as exc:
            # Named once, then once per period with a count: a full disk refuses every frame.
            self.last_store_error = "the disk is full" if isinstance(exc, DiskFullError) else str(exc)
            self.warnings.error("store_error", f"could not store frame at {frame.stamp:.3f}: {exc}")
            return self._drop("store_error")
        self.last_store_error = None
        self.stats.kept()
        return moment

    def finish(self) -> None:
        """Close the open event so everything seen so far is archived, pose track included (call at shutdown)."""
        self.track.flush()
        try:
            self.engine.finish()
        except DiskFullError:
            log.warning(
                "the last event stays open: the disk is full; its frames are stored and the next start closes it"
            )
        except StoreError as exc:
            log.error("could not close the last event: %s", exc)

    def _faces(self, rgb: np.ndarray) -> list[FaceSeen]:
        """The faces on a kept frame that are large and sharp enough to embed; the others are counted."""
        if self.face_embedder is None:
            return []
        seen, refused = self.face_embedder.faces(rgb)
        for reason in refused:
            self.engine.counts[f"face_refused_{reason}"] += 1
        return seen

    def _read(self, rgb: np.ndarray) -> list[TextLine]:
        """OCR where it pays: frames the cheap text cue flags (default), or every frame; keyframes are read at close."""
        cfg = self.config.ocr
        if self.ocr is None or cfg.run_on == "keyframes" or not ocr_wanted(cfg, rgb, keyframe=False):
            return []
        lines = self.ocr.read(rgb)
        self.ocr_runs += 1
        return lines

    def _embed_crop(self, rgb: np.ndarray, detection: Detection) -> np.ndarray | None:
        """Appearance of a detected object, so entities of one label can be told apart."""
        if detection.score < self.config.archive.label_min_score:
            return None
        x0, y0, x1, y1 = (round(v) for v in detection.box)
        x0, y0 = max(0, x0), max(0, y0)
        crop = rgb[y0 : max(y0, y1), x0 : max(x0, x1)]
        if min(crop.shape[:2]) < MIN_CROP_PX:
            return None
        return colour_histogram(crop)

    def _watch_clock(self, stamp: float) -> None:
        last = self._last_stamp
        if last is not None and last - stamp > CLOCK_RESET_S:
            log.warning("sensor clock jumped back %.1f s (source restarted?); restarting the frame gate", last - stamp)
            self.gate.reset()
        self._last_stamp = stamp

    def _drop(self, reason: str) -> Moment | None:
        """Count a dropped frame; returns None so callers can `return self._drop(...)`."""
        self.stats.dropped(reason)
        return None


class IngestWorker:
    """Runs a pipeline on its own thread behind a bounded queue that drops the oldest frame when full.

    The queue is bounded in count and in stream time (``ingest.queue_max_age_s``, counted in frames at the
    working rate): under overload the worker falls behind by at most that much, which is all a killed process
    can lose.
    """

    def __init__(self, pipeline: IngestPipeline, capacity: int) -> None:
        self.pipeline = pipeline
        self.capacity = capacity
        self._queue: deque[FrameInput] = deque()
        self._backlog: deque[FrameInput] = deque()  # frames held while the models loaded (see ``backlog``)
        self._holding_backlog = False
        self._cond = threading.Condition()
        self._busy = False
        self._peak = 0
        self._last_admitted: float | None = None
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="vidmem-ingest", daemon=True)
        self._thread.start()

    def submit(self, frame: FrameInput) -> None:
        self.pipeline.stats.received()
        if not self.pipeline.admit(frame):
            return
        if self._over_rate(frame.stamp):
            self.pipeline.stats.dropped("rate")
            return
        small = self._shrink(frame)
        if small is None:
            return
        cfg = self.pipeline.config.ingest
        # Stale by arrival order, not by stamp gap: a frame is dropped for age once more frames wait behind it
        # than the working rate keeps in queue_max_age_s.  Frames a few seconds apart (a sparse camera, a bag
        # played fast) are each a frame at the working rate, not a second of stream gone by.
        most = math.ceil(cfg.queue_max_age_s * cfg.sample_fps) + 1
        with self._cond:
            if self._holding_backlog:
                self._backlog.append(small)
                self._cond.notify()
                return
            if len(self._queue) >= self.capacity:
                self._queue.popleft()
                self.pipeline.stats.dropped("queue_full")
            while not self._backlog and len(self._queue) >= most:
                self._queue.popleft()
                self.pipeline.stats.dropped("queue_stale")
            self._queue.append(small)
            self._peak = max(self._peak, self._waiting + int(self._busy))
            self._cond.notify()

    @contextlib.contextmanager
    def backlog(self) -> Iterator[None]:
        """Frames submitted inside this block (those held while the models loaded) are a backlog: worked
        through first, in order, and never dropped for age or room; while it lasts, live frames are bounded by
        count only."""
        with self._cond:
            self._holding_backlog = True
        try:
            yield
        finally:
            with self._cond:
                self._holding_backlog = False

    def _over_rate(self, stamp: float) -> bool:
        """Admit at most four frames per working interval (the gate retries a quarter interval after a rejected
        frame), judged from stamps alone: a fast camera never fills the queue with frames the gate would drop,
        nor pushes out the frame that would have been kept."""
        cfg = self.pipeline.config.ingest
        if not cfg.enabled:
            return False  # counted as "disabled" by the pipeline
        last = self._last_admitted
        if last is not None and last <= stamp < last + RETRY_FRACTION * (1 - RATE_TOLERANCE) / cfg.sample_fps:
            return True
        self._last_admitted = stamp
        return False

    def _shrink(self, frame: FrameInput) -> FrameInput | None:
        """Decode an oversized raw frame now, at a bounded size, so the queue never holds its full buffer."""
        limit = self.pipeline.config.ingest.max_pixels
        if not isinstance(frame.image, RawImage) or frame.image.pixels <= limit:
            return frame
        try:
            return FrameInput(frame.stamp, frame.source, DecodedImage(frame.image.decode(limit)))
        except InputError as exc:
            self.pipeline.warnings.warning(exc.reason, f"dropped frame from {frame.source}: {exc}")
            self.pipeline.stats.dropped(exc.reason)
            return None

    def take_peak_depth(self) -> int:
        """The most frames waiting or in process at once since the previous call."""
        with self._cond:
            peak, self._peak = max(self._peak, self._waiting + int(self._busy)), 0
            return peak

    @property
    def depth(self) -> int:
        """Frames waiting or being processed."""
        with self._cond:
            return self._waiting + int(self._busy)

    @property
    def _waiting(self) -> int:
        return len(self._queue) + len(self._backlog)

    def wait_idle(self, timeout_s: float) -> bool:
        """Block until the queue is empty and no frame is being processed."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._waiting and not self._busy, timeout_s)

    def stop(self, timeout_s: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._waiting or self._stopping)
                if self._stopping:
                    return
                frame = (self._backlog or self._queue).popleft()
                self._busy = True
            try:
                self.pipeline.process(frame)
            except Exception:  # a bug on one frame must not stop ingestion
                log.exception("internal error while processing a frame at %.3f", frame.stamp)
                self.pipeline.stats.dropped("internal_error")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()


def _since_written(store: SqliteStore) -> float:
    """Wall seconds since memory last stored a frame (0 for a new memory)."""
    written = store.last_frame_wall()
    return 0.0 if written is None else max(0.0, time.time() - written)
