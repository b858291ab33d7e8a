"""Audio: chunk conversion, Silero VAD and Whisper base on real (espeak-ng) speech streamed in chunks."""

from __future__ import annotations

import itertools
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # two shared cores: keep library thread pools small

import re
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy.signal import resample_poly

from vidmem_dev.synth import espeak_available, speak
from vidmem_ros.config import AudioConfig
from vidmem_ros.errors import InputError, ModelUnavailableError
from vidmem_ros.ingest.audio import AudioPipeline
from vidmem_ros.memory.records import Transcript
from vidmem_ros.perception.audio import AudioChunkData, to_mono_16k
from vidmem_ros.perception.speech import SileroVad, WhisperRecognizer, join_packaged_whisper, whisper_model_dir
from vidmem_ros.perception.types import Utterance

SENTENCES = (
    "The delivery arrived at the side entrance",
    "Please bring the red box to the kitchen",
    "The printer on the second floor needs more toner",
    "Someone left a blue cup on the kitchen table",
    "The robot is waiting near the front door",
)
ESPEAK_RATE = 22_050
LEAD_S, PAUSE_S, TAIL_S = 1.0, 1.3, 1.5  # silences around the sentences
CHUNK_S = 0.5
T0 = 1_700_000_000.0  # sensor time of the first sample


@dataclass(frozen=True)
class Stream:
    """A recording of all sentences at 22050 Hz, with where each sentence is audible (s from its start)."""

    samples: np.ndarray  # float32 mono
    spans: list[tuple[float, float]]


@pytest.fixture(scope="module")
def stream() -> Stream:
    if not espeak_available():
        pytest.fail("espeak-ng is missing; `make setup` installs it (apt-get install espeak-ng)")
    rng = np.random.default_rng(7)
    parts = [np.zeros(int(LEAD_S * ESPEAK_RATE), np.float32)]
    spans = []
    for i, sentence in enumerate(SENTENCES):
        spoken = speak(sentence, voice=None, wpm=None)  # espeak-ng's default voice and speed
        assert spoken.rate == ESPEAK_RATE
        speech = spoken.pcm.astype(np.float32) / 32768.0
        loud = np.flatnonzero(np.abs(speech) > 0.02)  # espeak pads its output with a little silence
        offset = sum(len(p) for p in parts)
        spans.append(((offset + loud[0]) / ESPEAK_RATE, (offset + loud[-1]) / ESPEAK_RATE))
        parts += [speech, np.zeros(int((PAUSE_S if i < len(SENTENCES) - 1 else TAIL_S) * ESPEAK_RATE), np.float32)]
    samples = np.concatenate(parts)
    samples += rng.normal(0.0, 0.003, len(samples)).astype(np.float32)  # a quiet room, not digital silence
    return Stream(samples, spans)


def s16_mono_chunks(samples: np.ndarray) -> list[AudioChunkData]:
    step = int(CHUNK_S * ESPEAK_RATE)
    pcm = np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2")
    return [
        AudioChunkData(T0 + i * CHUNK_S, ESPEAK_RATE, 1, "S16LE", pcm[i * step : (i + 1) * step].tobytes())
        for i in range(-(-len(pcm) // step))
    ]


def f32_stereo_48k_chunks(samples: np.ndarray) -> list[AudioChunkData]:
    mono = resample_poly(samples, 320, 147).astype(np.float32)  # 22050 -> 48000 Hz
    rng = np.random.default_rng(11)
    right = 0.7 * mono + rng.normal(0.0, 0.002, len(mono)).astype(np.float32)  # channels differ, as real ones do
    interleaved = np.stack([mono, right], axis=1).astype("<f4")
    step = int(CHUNK_S * 48_000)
    return [
        AudioChunkData(T0 + i * CHUNK_S, 48_000, 2, "F32LE", interleaved[i * step : (i + 1) * step].tobytes())
        for i in range(-(-len(interleaved) // step))
    ]


BAD_CHUNKS = {
    "non_finite": AudioChunkData(T0, 16_000, 1, "F32LE", np.array([0.1, np.nan, 0.2, np.inf], "<f4").tobytes()),
    "empty": AudioChunkData(T0, 16_000, 1, "S16LE", b""),
    "bad_sample_rate": AudioChunkData(T0, 0, 1, "S16LE", b"\x00\x01" * 100),
    "partial_frame": AudioChunkData(T0, 16_000, 1, "S16LE", b"\x00" * 101),
    "unknown_encoding": AudioChunkData(T0, 16_000, 1, "U8", b"\x80" * 100),
    "bad_channels": AudioChunkData(T0, 16_000, 0, "S16LE", b"\x00" * 100),
}


@pytest.mark.parametrize("reason", sorted(BAD_CHUNKS))
def test_bad_chunks_are_refused_with_a_reason(reason: str) -> None:
    with pytest.raises(InputError) as caught:
        to_mono_16k(BAD_CHUNKS[reason])
    assert caught.value.reason == reason


def test_odd_byte_counts_and_absurd_rates_are_refused() -> None:
    stereo_s16 = AudioChunkData(T0, 44_100, 2, "S16LE", b"\x00" * 6)  # 1.5 frames of 4 bytes
    with pytest.raises(InputError, match="partial_frame"):
        to_mono_16k(stereo_s16)
    with pytest.raises(InputError, match="bad_sample_rate"):
        to_mono_16k(AudioChunkData(T0, 10_000_000, 1, "S16LE", b"\x00" * 100))


def test_channels_are_averaged_and_any_rate_resampled_to_16k() -> None:
    t = np.arange(44_100) / 44_100
    tone = 0.5 * np.sin(2 * np.pi * 1000 * t)
    interleaved = np.stack([tone, np.zeros_like(tone)], axis=1).astype("<f4")
    mono = to_mono_16k(AudioChunkData(T0, 44_100, 2, "F32LE", interleaved.tobytes()))
    assert mono.dtype == np.float32 and len(mono) == 16_000
    spectrum = np.abs(np.fft.rfft(mono[1000:-1000]))
    assert abs(np.argmax(spectrum) * 16_000 / len(mono[1000:-1000]) - 1000) < 5  # still a 1 kHz tone
    assert np.abs(mono[1000:-1000]).max() == pytest.approx(0.25, abs=0.01)  # half of it: averaged with silence
    s16 = np.array([16384, -32768], "<i2").tobytes()
    assert to_mono_16k(AudioChunkData(T0, 16_000, 1, "s16le", s16)).tolist() == [0.5, -1.0]


@pytest.fixture(scope="module")
def audio_config() -> AudioConfig:
    return AudioConfig(cpu_threads=2)


@pytest.fixture(scope="module")
def recognizer(audio_config: AudioConfig) -> WhisperRecognizer:
    return WhisperRecognizer(audio_config)


def words(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9' ]+", " ", text.lower()).split()


def word_errors(reference: list[str], hypothesis: list[str]) -> int:
    """Levenshtein distance over words: substitutions + deletions + insertions."""
    row = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        prev, row[0] = row[0], i
        for j, hyp in enumerate(hypothesis, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ref != hyp))
    return row[-1]


def test_speech_streamed_in_chunks_is_transcribed_with_sensor_stamps(
    stream: Stream, audio_config: AudioConfig, recognizer: WhisperRecognizer
) -> None:
    formats = {"22050 Hz S16LE mono": s16_mono_chunks, "48 kHz F32LE stereo": f32_stereo_48k_chunks}
    reference = [w for s in SENTENCES for w in words(s)]
    errors = total = 0
    for name, make_chunks in formats.items():
        got: list[Transcript] = []
        pipeline = AudioPipeline(audio_config, got.append, SileroVad(audio_config), recognizer)
        for i, chunk in enumerate(make_chunks(stream.samples)):
            assert pipeline.push(chunk)
            if i == 6:  # in the middle of the first sentence: bad chunks are dropped, the stream goes on
                for bad in BAD_CHUNKS.values():
                    assert not pipeline.push(bad)
        pipeline.close()
        stats = pipeline.stats()
        assert stats.dropped == dict.fromkeys(BAD_CHUNKS, 1) and stats.restarts == {}
        hypothesis = [w for t in got for w in words(t.text)]
        errors += word_errors(reference, hypothesis)
        total += len(reference)
        print(f"{name}: {[t.text for t in got]}; WER {word_errors(reference, hypothesis) / len(reference):.3f}")
        print(f"{name}: ASR real-time factor {stats.real_time_factor:.2f} over {stats.speech_s:.1f} s of speech")
        assert len(got) == len(SENTENCES), [t.text for t in got]
        for transcript, (start, end) in zip(got, stream.spans, strict=True):
            print(f"  stamp error start {transcript.start - T0 - start:+.2f} s, end {transcript.end - T0 - end:+.2f} s")
            assert transcript.start - T0 == pytest.approx(start, abs=0.5)
            assert transcript.end - T0 == pytest.approx(end, abs=0.5)
    print(f"overall WER {errors / total:.3f}")
    assert errors / total <= 0.10


class FakeRecognizer:
    """Says how much audio it was given; can be held to simulate a slow model."""

    name = "fake"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.release.set()
        self.lengths: list[float] = []

    def transcribe(self, audio: np.ndarray) -> Utterance | None:
        self.release.wait(30)
        self.lengths.append(len(audio) / 16_000)
        return Utterance(f"piece {len(self.lengths)}", 0.0, len(audio) / 16_000)


def test_stamp_jumps_flush_the_open_speech_and_restart(stream: Stream, audio_config: AudioConfig) -> None:
    got: list[Transcript] = []
    pipeline = AudioPipeline(audio_config, got.append, SileroVad(audio_config), FakeRecognizer(), background=False)
    chunks = s16_mono_chunks(stream.samples)
    first_speech = next(i for i, c in enumerate(chunks) if c.stamp + CHUNK_S > T0 + stream.spans[0][0] + 1.0)
    for chunk in chunks[: first_speech + 1]:
        pipeline.push(chunk)
    assert not got  # the first sentence is still being spoken
    later = AudioChunkData(chunks[first_speech].stamp + 8.0, ESPEAK_RATE, 1, "S16LE", chunks[0].data)
    pipeline.push(later)
    assert len(got) == 1 and got[0].end <= chunks[first_speech].stamp + CHUNK_S  # flushed, stamped before the gap
    pipeline.push(AudioChunkData(later.stamp - 5.0, ESPEAK_RATE, 1, "S16LE", chunks[0].data))
    assert pipeline.stats().restarts == {"gap": 1, "backwards": 1}
    # After the restart stamps follow the new clock.
    restart = later.stamp - 5.0 + CHUNK_S
    for i, chunk in enumerate(chunks[1:], 1):
        pipeline.push(AudioChunkData(restart + (i - 1) * CHUNK_S, ESPEAK_RATE, 1, "S16LE", chunk.data))
    pipeline.flush()
    assert len(got) == 1 + len(SENTENCES)
    assert got[1].start == pytest.approx(restart - CHUNK_S + stream.spans[0][0], abs=0.5)


def test_a_far_jump_is_believed_once_confirmed_and_the_chunks_held_meanwhile_are_kept(
    stream: Stream, audio_config: AudioConfig
) -> None:
    got: list[Transcript] = []
    pipeline = AudioPipeline(audio_config, got.append, SileroVad(audio_config), FakeRecognizer(), background=False)
    chunks = s16_mono_chunks(stream.samples)
    pipeline.push(chunks[0])
    gap = 3_600.0  # the recording resumes an hour later, its speech starting at once
    taken = [pipeline.push(AudioChunkData(c.stamp + gap, ESPEAK_RATE, 1, "S16LE", c.data)) for c in chunks[1:]]
    assert taken[:2] == [False, False] and all(taken[2:])  # not believed until a second of stamps agrees
    pipeline.flush()
    assert pipeline.stats().dropped == {}  # but nothing was lost once it was
    assert len(got) == len(SENTENCES)
    assert got[0].start == pytest.approx(T0 + gap + stream.spans[0][0], abs=0.5)


def test_long_speech_is_cut_to_max_segment_and_slow_recognition_drops_oldest(
    stream: Stream, audio_config: AudioConfig
) -> None:
    config = audio_config.model_copy(update={"max_segment_s": 4.0, "max_pending_s": 6.0})
    talk = np.concatenate([stream.samples[int(s * ESPEAK_RATE) : int(e * ESPEAK_RATE)] for s, e in stream.spans])
    asr = FakeRecognizer()
    asr.release.clear()  # the recogniser is stuck: speech piles up
    got: list[Transcript] = []
    pipeline = AudioPipeline(config, got.append, SileroVad(config), asr)
    for chunk in s16_mono_chunks(np.concatenate([talk, talk])):
        pipeline.push(chunk)
    pipeline.flush()
    stats = pipeline.stats()
    assert stats.dropped.get("asr_behind", 0) >= 1 and stats.pending_s <= 6.0 + 4.0
    asr.release.set()
    pipeline.close()
    stats = pipeline.stats()
    assert max(asr.lengths) <= 4.0 + 1e-6  # padding included
    assert stats.transcripts + stats.dropped["asr_behind"] == stats.segments >= 5
    assert all(a.end <= b.start for a, b in itertools.pairwise(got))  # pieces never overlap


@pytest.mark.parametrize("lossless", [False, True])
def test_a_replay_waits_for_the_recogniser_where_a_live_stream_drops_the_oldest_speech(
    stream: Stream, audio_config: AudioConfig, recognizer: WhisperRecognizer, lossless: bool
) -> None:
    """Chunks pushed far faster than real time (a bag replayed) queue more speech than ``max_pending_s``."""
    config = audio_config.model_copy(update={"max_segment_s": 4.0, "max_pending_s": 4.0})
    got: list[Transcript] = []
    pipeline = AudioPipeline(config, got.append, SileroVad(config), recognizer, lossless=lossless)
    for chunk in s16_mono_chunks(stream.samples):
        pipeline.push(chunk)
    pipeline.close()
    stats = pipeline.stats()
    if lossless:
        assert stats.dropped == {} and stats.transcripts == stats.segments == len(got) >= len(SENTENCES)
        heard = " ".join(t.text.lower() for t in got)
        assert "delivery" in heard and "robot" in heard  # the first sentence and the last
    else:
        assert stats.dropped.get("asr_behind", 0) >= 1
        assert stats.transcripts + stats.dropped["asr_behind"] == stats.segments


def test_missing_whisper_files_name_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match=r"audio\.model_dir"):
        whisper_model_dir(AudioConfig(model_dir=str(tmp_path)))


def test_packaged_whisper_is_joined_once_and_rebuilt_when_incomplete(tmp_path: Path) -> None:
    target = join_packaged_whisper(tmp_path / "whisper-base")
    model = target / "model.bin"
    first = model.stat().st_mtime_ns
    assert join_packaged_whisper(target) == target and model.stat().st_mtime_ns == first
    with open(model, "r+b") as handle:  # an interrupted copy by some other means
        handle.truncate(1000)
    join_packaged_whisper(target)
    assert model.stat().st_size > 100_000_000
    assert [p.name for p in tmp_path.iterdir()] == ["whisper-base"]  # no scratch directories left behind
