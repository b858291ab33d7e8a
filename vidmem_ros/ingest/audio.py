"""The audio pipeline: audio chunks in, transcripts with sensor-time stamps out.

Per chunk (in stamp order, on the caller's thread, cheap): validate and convert
to 16 kHz mono, run the streaming VAD over it, keep a rolling buffer from the
start of the open speech segment, so speech that crosses chunk boundaries stays
whole.  A segment that ended (silence of ``min_silence_ms``) or grew to
``max_segment_s`` is padded, cut out of the buffer and queued for recognition,
which runs on a worker thread behind a queue bounded in seconds of audio.  A
jump in chunk stamps flushes the open segment and starts the stream over.
Every drop is counted by reason.  No rclpy here: the node converts messages to
``AudioChunkData`` and passes ``engine.add_transcript`` as the sink.
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from vidmem_ros.config import AudioConfig, IngestConfig, VidmemConfig
from vidmem_ros.errors import InputError
from vidmem_ros.memory.records import Transcript
from vidmem_ros.perception.audio import SAMPLE_RATE, AudioChunkData, to_mono_16k
from vidmem_ros.perception.types import SpeakerEmbedder, SpeechRecognizer, SpeechSegment, VoiceActivityDetector
from vidmem_ros.validation import StreamClock, ThrottledLog

log = logging.getLogger(__name__)

QUIET_FRAME = 320  # 20 ms: resolution at which a long segment looks for a pause to cut at
QUIET_SEARCH_S = 3.0  # how far back from the limit a forced cut may move to find that pause


class TranscriptSink(Protocol):
    def add_transcript(self, transcript: Transcript) -> object: ...


Sink = Callable[[Transcript], object]


@dataclass(frozen=True)
class AudioStatsSnapshot:
    chunks: int  # received, valid or not
    audio_s: float  # accepted audio
    segments: int  # speech pieces queued for recognition
    transcripts: int  # passed to the sink
    speech_s: float  # audio recognised
    asr_s: float  # wall time spent recognising it
    pending_s: float  # audio waiting for recognition now
    dropped: dict[str, int] = field(default_factory=dict)  # chunks and segments, by reason
    restarts: dict[str, int] = field(default_factory=dict)  # stream restarts, by reason
    unvoiced: dict[str, int] = field(default_factory=dict)  # transcripts kept without a speaker vector, by reason
    voice_s: float = 0.0  # wall time spent on speaker vectors

    @property
    def real_time_factor(self) -> float:
        return self.asr_s / self.speech_s if self.speech_s else 0.0


@dataclass
class _Job:
    audio: np.ndarray  # padded speech, 16 kHz mono
    start: float  # stamp of audio[0]
    onset: float  # stamp where speech was detected (after the lead padding)
    offset: float  # stamp where it stopped (before the tail padding)


class _AlwaysSpeech:
    """The VAD used with ``audio.vad: none``: everything is speech, cut every max_segment_s."""

    name = "none"

    def __init__(self) -> None:
        self._position = 0

    @property
    def position(self) -> int:
        return self._position

    @property
    def speech_start(self) -> int | None:
        return 0

    def push(self, audio: np.ndarray) -> list[SpeechSegment]:
        self._position += len(audio)
        return []

    def flush(self) -> list[SpeechSegment]:
        return [SpeechSegment(0, self._position)] if self._position else []

    def reset(self) -> None:
        self._position = 0


class AudioPipeline:
    def __init__(
        self,
        config: VidmemConfig | AudioConfig,
        sink: Sink | TranscriptSink,
        vad: VoiceActivityDetector | None = None,
        asr: SpeechRecognizer | None = None,
        background: bool = True,
        speaker: SpeakerEmbedder | None = None,
        lossless: bool = False,
    ) -> None:
        """``vad``/``asr``/``speaker`` default to the configured backends (a speaker model only with a whole
        ``VidmemConfig``); ``background=False`` recognises inline (tests).  ``lossless`` (replay) makes ``push``
        wait for the recogniser when ``audio.max_pending_s`` of speech is queued, where a live stream drops the
        oldest: a bag can wait, a robot's microphone cannot."""
        self._lossless = lossless
        self.config = config.audio if isinstance(config, VidmemConfig) else config
        ingest = config.ingest if isinstance(config, VidmemConfig) else IngestConfig()
        self._clock = StreamClock(ingest.max_stamp_jump_s)  # a chunk stamped years ahead is refused
        self._warnings = ThrottledLog(log)
        self._sink: Sink = sink if callable(sink) else sink.add_transcript
        self._vad, self._asr = self._backends(vad, asr)
        self._speaker = speaker or self._speaker_backend(config)
        self._unvoiced: Counter[str] = Counter()
        self._pad = self.config.speech_pad_ms * SAMPLE_RATE // 1000
        # The padded piece must still fit in max_segment_s (and so in Whisper's 30 s window).
        self._max_piece = max(int(self.config.max_segment_s * SAMPLE_RATE) - 2 * self._pad, SAMPLE_RATE // 2)
        self._lock = threading.Lock()  # one chunk at a time, whatever the executor
        self._expected: float | None = None  # stamp the next chunk should carry
        self._reset_stream()
        self._counts: Counter[str] = Counter()
        self._dropped: Counter[str] = Counter()
        # Chunks refused as a jump in stamps, while it may still prove real (see StreamClock.jumped_with).
        self._refused: deque[tuple[AudioChunkData, str]] = deque(maxlen=256)
        self._restarts: Counter[str] = Counter()
        self._times = {"audio": 0.0, "speech": 0.0, "asr": 0.0, "voice": 0.0}
        self._jobs: deque[_Job] = deque()
        self._pending = 0  # samples in _jobs
        self._busy = False
        self._stopping = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        if background and self.config.enabled:
            self._thread = threading.Thread(target=self._run, name="vidmem-audio", daemon=True)
            self._thread.start()

    def _backends(
        self, vad: VoiceActivityDetector | None, asr: SpeechRecognizer | None
    ) -> tuple[VoiceActivityDetector, SpeechRecognizer | None]:
        if not self.config.enabled:  # nothing is loaded for a disabled stream
            return vad or _AlwaysSpeech(), asr
        from vidmem_ros.perception.registry import build_asr, build_vad

        vad = vad or build_vad(self.config) or _AlwaysSpeech()
        return vad, asr or build_asr(self.config)

    def _speaker_backend(self, config: VidmemConfig | AudioConfig) -> SpeakerEmbedder | None:
        if not isinstance(config, VidmemConfig) or not self.config.enabled or self.config.asr == "none":
            return None
        from vidmem_ros.perception.registry import build_speaker_embedder

        return build_speaker_embedder(config.speaker)

    # ----------------------------------------------------------------- input

    def push(self, chunk: AudioChunkData) -> bool:
        """Take the next chunk of the stream; False when it was dropped (the reason is counted)."""
        with self._lock:
            self._count("chunks")
            if not self.config.enabled:
                return self._drop("disabled")
            reason = self._clock.admit(chunk.stamp)
            if reason:
                self._warnings.warning(reason, f"dropped an audio chunk stamped {chunk.stamp!r}: {reason}")
                self._refused.append((chunk, reason))
                return self._drop(reason)
            self._take_back(self._clock.jumped_with)
            self._refused.clear()
            return self._take(chunk)

    def _take_back(self, stamps: tuple[float, ...]) -> None:
        """The stream really jumped: the chunks refused while that was not yet clear are speech too."""
        for chunk, reason in list(self._refused):
            if chunk.stamp in stamps:
                with self._cond:
                    self._dropped[reason] -= 1  # not lost after all
                    if not self._dropped[reason]:
                        del self._dropped[reason]
                self._take(chunk)

    def _take(self, chunk: AudioChunkData) -> bool:
        """Add an admitted chunk to the stream (with ``_lock`` held)."""
        try:
            audio = to_mono_16k(chunk)
        except InputError as exc:
            self._warnings.warning(exc.reason, f"dropped audio chunk at {chunk.stamp:.3f}: {exc}")
            return self._drop(exc.reason)
        self._follow_clock(chunk.stamp)
        self._append(chunk.stamp, audio)
        for segment in self._vad.push(audio):
            self._segment_ended(segment)
        self._split_long()
        self._trim()
        self._expected = chunk.stamp + chunk.duration
        self._add_time("audio", chunk.duration)
        return True

    def flush(self) -> None:
        """End of the stream (shutdown, end of a bag): recognise the speech still open."""
        with self._lock:
            self._close_stream()

    def wait_idle(self, timeout_s: float) -> bool:
        """Block until every queued segment was recognised and passed on."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._jobs and not self._busy, timeout_s)

    def close(self, timeout_s: float = 30.0) -> None:
        """Flush, let the worker finish what is queued (up to ``timeout_s``), stop it."""
        self.flush()
        self.wait_idle(timeout_s)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def stats(self) -> AudioStatsSnapshot:
        with self._cond:
            return AudioStatsSnapshot(
                chunks=self._counts["chunks"],
                audio_s=self._times["audio"],
                segments=self._counts["segments"],
                transcripts=self._counts["transcripts"],
                speech_s=self._times["speech"],
                asr_s=self._times["asr"],
                pending_s=self._pending / SAMPLE_RATE,
                dropped=dict(self._dropped),
                restarts=dict(self._restarts),
                unvoiced=dict(self._unvoiced),
                voice_s=self._times["voice"],
            )

    # ---------------------------------------------------------------- stream

    def _reset_stream(self) -> None:
        self._vad.reset()
        self._buffer = np.zeros(0, np.float32)
        self._buffer_start = 0  # sample index (since the restart) of _buffer[0]
        self._fed = 0
        self._anchor_index: list[int] = []  # first sample of each buffered chunk...
        self._anchor_stamp: list[float] = []  # ...and its stamp: times follow the sensor clock, not a sample count
        self._cut = -1  # where a forced split left the open segment
        self._expected = None

    def _follow_clock(self, stamp: float) -> None:
        if self._expected is None:
            return
        jump = stamp - self._expected
        if abs(jump) > self.config.max_gap_s:
            reason = "gap" if jump > 0 else "backwards"
            log.info("audio stamps jumped %+.3f s (%s): flushing and restarting the stream", jump, reason)
            self._close_stream()
            with self._cond:
                self._restarts[reason] += 1

    def _close_stream(self) -> None:
        for segment in self._vad.flush():
            self._segment_ended(segment)
        self._reset_stream()

    def _append(self, stamp: float, audio: np.ndarray) -> None:
        self._anchor_index.append(self._fed)
        self._anchor_stamp.append(stamp)
        self._buffer = np.concatenate([self._buffer, audio])
        self._fed += len(audio)

    def _stamp_at(self, index: int) -> float:
        at = max(bisect.bisect_right(self._anchor_index, index) - 1, 0)
        return self._anchor_stamp[at] + (index - self._anchor_index[at]) / SAMPLE_RATE

    def _segment_ended(self, segment: SpeechSegment) -> None:
        start = self._split(max(segment.start, self._cut), segment.end)  # before _cut it was already sent
        if segment.end > start:
            self._queue_piece(start, segment.end, closed=True)
        self._cut = -1

    def _split_long(self) -> None:
        start = self._vad.speech_start
        if start is not None:
            self._split(max(start, self._cut), self._vad.position)

    def _split(self, start: int, end: int) -> int:
        """Send speech in [start, end) in parts while it is too long for one, each cut at the quietest 20 ms
        near the limit; returns where the rest begins."""
        search = int(QUIET_SEARCH_S * SAMPLE_RATE)
        while end - start > self._max_piece:
            limit = start + self._max_piece
            cut = self._quiet_point(max(start + self._max_piece // 2, limit - search), limit)
            self._queue_piece(start, cut, closed=False)
            self._cut = start = cut
        return start

    def _quiet_point(self, lo: int, hi: int) -> int:
        region = self._buffer[lo - self._buffer_start : hi - self._buffer_start]
        frames = len(region) // QUIET_FRAME
        if frames < 2:
            return hi
        energy = np.square(region[: frames * QUIET_FRAME].reshape(frames, QUIET_FRAME)).mean(axis=1)
        return lo + int(np.argmin(energy)) * QUIET_FRAME + QUIET_FRAME // 2

    def _trim(self) -> None:
        """Forget audio no future piece can need: all before the open segment (or now), less the lead padding."""
        start = self._vad.speech_start
        keep = (max(start, self._cut) if start is not None else self._vad.position) - self._pad
        drop = keep - self._buffer_start
        if drop <= 0:
            return
        self._buffer = self._buffer[drop:]
        self._buffer_start = keep
        first = max(bisect.bisect_right(self._anchor_index, keep) - 1, 0)  # the chunk holding `keep` stays
        del self._anchor_index[:first], self._anchor_stamp[:first]

    def _queue_piece(self, start: int, end: int, closed: bool) -> None:
        """Pad the speech from the buffer (not across a forced cut) and queue it for recognition."""
        lead = 0 if start == self._cut else self._pad
        tail = self._pad if closed else 0
        lo = max(start - lead, self._buffer_start)
        hi = min(end + tail, self._fed)
        audio = self._buffer[lo - self._buffer_start : hi - self._buffer_start].copy()
        job = _Job(audio, self._stamp_at(lo), self._stamp_at(start), self._stamp_at(end))
        self._count("segments")
        if self._asr is None:
            return  # audio.asr: none, speech is only counted
        if self._thread is None:
            self._recognise(job)
        else:
            self._enqueue(job)

    # ----------------------------------------------------------- recognition

    def _enqueue(self, job: _Job) -> None:
        limit = int(self.config.max_pending_s * SAMPLE_RATE)
        with self._cond:
            if self._lossless and self._thread is not None:
                self._cond.wait_for(lambda: not self._jobs or self._stopping or self._pending + len(job.audio) <= limit)
            while self._jobs and self._pending + len(job.audio) > limit:
                old = self._jobs.popleft()  # the newest speech is the most useful to a robot
                self._pending -= len(old.audio)
                self._dropped["asr_behind"] += 1
                log.warning("speech recognition fell behind: dropped %.1f s of speech", len(old.audio) / SAMPLE_RATE)
            self._jobs.append(job)
            self._pending += len(job.audio)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._jobs or self._stopping)
                if self._stopping and not self._jobs:
                    return
                job = self._jobs.popleft()
                self._pending -= len(job.audio)
                self._busy = True
            try:
                self._recognise(job)
            except Exception:  # a bug on one segment must not stop transcription
                log.exception("internal error while recognising speech at %.3f", job.start)
                self._drop("internal_error")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _recognise(self, job: _Job) -> None:
        assert self._asr is not None
        began = time.perf_counter()
        try:
            utterance = self._asr.transcribe(job.audio)
        except Exception as exc:
            log.error("speech recognition failed on %.1f s at %.3f: %s", len(job.audio) / SAMPLE_RATE, job.start, exc)
            self._drop("asr_error")
            return
        self._add_time("asr", time.perf_counter() - began)
        self._add_time("speech", len(job.audio) / SAMPLE_RATE)
        if utterance is None:
            self._drop("no_text")  # noise the VAD took for speech, or words the recogniser could not read
            return
        # Take the tighter of the two estimates at each end: Whisper tends to start the first
        # word at the start of the audio, padding included; the VAD reacts a window late.
        start = max(job.start + utterance.start, job.onset)
        end = min(job.start + utterance.end, job.offset)
        if end <= start:
            start, end = job.onset, job.offset
        self._deliver(Transcript(start=start, end=end, text=utterance.text, voice=self._voice(job)))

    def _voice(self, job: _Job) -> np.ndarray | None:
        """The speaker vector of the speech in ``job`` (padding left out); None, with the reason counted, when the
        segment cannot carry one: the words are kept all the same."""
        if self._speaker is None:
            return None
        lo = max(round((job.onset - job.start) * SAMPLE_RATE), 0)
        hi = max(round((job.offset - job.start) * SAMPLE_RATE), lo)
        began = time.perf_counter()
        try:
            return self._speaker.embed(job.audio[lo:hi])
        except InputError as exc:
            reason = exc.reason
        except Exception as exc:  # a model failure costs the voice, never the words
            log.error("speaker vector failed at %.3f: %s", job.start, exc)
            reason = "speaker_error"
        finally:
            self._add_time("voice", time.perf_counter() - began)
        with self._cond:
            self._unvoiced[reason] += 1
        return None

    def _deliver(self, transcript: Transcript) -> None:
        try:
            self._sink(transcript)
        except Exception as exc:  # a failing store must not stop the stream
            log.error("could not store a transcript at %.3f: %s", transcript.start, exc)
            self._drop("sink_error")
            return
        self._count("transcripts")

    # -------------------------------------------------------------- counters

    def _count(self, name: str) -> None:
        with self._cond:
            self._counts[name] += 1

    def _add_time(self, name: str, seconds: float) -> None:
        with self._cond:
            self._times[name] += seconds

    def _drop(self, reason: str) -> bool:
        with self._cond:
            self._dropped[reason] += 1
        return False
