"""Ingesting a bag in-process with the ingest node's own pipeline, as fast as it runs, stoppable at any bag time.

The evaluator advances the bag to each question's time, asks, and goes on; so
memory holds exactly what the robot had seen and heard by then.  Speech is
recognised on the audio pipeline's own thread, as on the robot, so Whisper and
the camera's models share the cores; a pause (``advance_to`` with ``settle``)
waits until every utterance that had ended and been closed by silence before it
is recognised, and none after is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from vidmem_ros.config import VidmemConfig
from vidmem_ros.ingest.audio import AudioPipeline
from vidmem_ros.ingest.bag_reader import BagRecord, BagStream
from vidmem_ros.ingest.worker import IngestPipeline

# Recognising the speech queued behind a pause takes seconds; this long means the recogniser is stuck.
SETTLE_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class IngestFigures:
    bag_s: float  # bag time ingested
    wall_s: float  # time spent ingesting it
    frames: int
    kept: int
    audio_chunks: int
    transcripts: int

    @property
    def real_time_factor(self) -> float:
        """Bag seconds per wall second: above 1 is faster than the robot recorded it."""
        return self.bag_s / self.wall_s if self.wall_s > 0 else 0.0


class BagIngest:
    def __init__(self, config: VidmemConfig, stream: BagStream, pipeline: IngestPipeline) -> None:
        self.stream = stream
        self.pipeline = pipeline
        self.audio = AudioPipeline(config, pipeline.engine, lossless=True) if config.audio.enabled else None
        self._records = iter(stream)
        self._next: BagRecord | None = None
        self._done = False
        self.t = 0.0  # bag time reached
        self._wall = 0.0
        self._chunks = 0

    def advance_to(self, t: float, settle: bool = True) -> None:
        """Ingest every message recorded up to ``t`` seconds after the bag's first message; with ``settle``, wait
        until the speech that ended by then is recognised (a step between two pauses need not)."""
        started = time.perf_counter()
        while not self._done:
            record = self._next or next(self._records, None)
            self._next = None
            if record is None:
                self._done = True
                break
            if record.t > t:
                self._next = record
                break
            self._feed(record)
        self.t = max(self.t, t if not self._done else self.stream.duration_s)
        if settle:
            self._settle()
        self._wall += time.perf_counter() - started

    def finish(self) -> None:
        """The rest of the bag, then close what is still open (last speech, last event)."""
        self.advance_to(float("inf"))
        started = time.perf_counter()
        if self.audio is not None:
            self.audio.close(SETTLE_TIMEOUT_S)  # the speech still open recognised, the thread stopped
        self.pipeline.finish()
        self._wall += time.perf_counter() - started

    def _settle(self) -> None:
        if self.audio is not None and not self.audio.wait_idle(SETTLE_TIMEOUT_S):
            raise TimeoutError(f"speech recognition did not catch up with the bag within {SETTLE_TIMEOUT_S:g} s")

    @property
    def exhausted(self) -> bool:
        return self._done

    def figures(self) -> IngestFigures:
        stats = self.pipeline.stats.snapshot()
        transcripts = self.audio.stats().transcripts if self.audio is not None else 0
        bag_s = min(self.t, self.stream.duration_s)
        return IngestFigures(bag_s, self._wall, stats.received, stats.kept, self._chunks, transcripts)

    def _feed(self, record: BagRecord) -> None:
        if record.pose is not None:
            self.pipeline.add_pose(*record.pose)
        elif record.frame is not None:
            self.pipeline.ingest(record.frame)
        elif record.audio is not None and self.audio is not None:
            self._chunks += 1
            self.audio.push(record.audio)
