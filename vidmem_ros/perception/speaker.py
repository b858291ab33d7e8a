"""Speaker embeddings of speech segments: who is speaking, as a unit vector per segment.

``resemblyzer`` ships its pretrained speaker encoder (a 3-layer LSTM over 40 mel bands, 17 MB) inside its
wheel.  Its own module imports librosa and webrtcvad (with numba and a C build behind them) for a mel filter
bank and a silence trimmer, so the package is installed without its dependencies and only its weight file is
read: the network is rebuilt here in torch and its front end in numpy, with librosa's parameters (25 ms Hann
windows every 10 ms, power spectrum, Slaney mel filters) and the encoder's own partial-utterance averaging.
``wavlm_xvector`` runs a transformers x-vector model (a GPU robot); one setting (``speaker.backend``) chooses.

Every segment is checked before it is embedded: silent, clipped or too little voiced audio is refused with a
reason (``InputError``), since such a vector would land anywhere and join or found a voice by chance.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_ros.config import SpeakerConfig
from vidmem_ros.errors import InputError, ModelUnavailableError
from vidmem_ros.packaged_model import package_dir
from vidmem_ros.perception.audio import SAMPLE_RATE

RESEMBLYZER_PIP = "pip install --no-deps resemblyzer==0.1.4"
# The encoder's hyper-parameters (resemblyzer/hparams.py).
MEL_WINDOW = 400  # 25 ms at 16 kHz
MEL_HOP = 160  # 10 ms
MEL_BANDS = 40
PARTIAL_FRAMES = 160  # 1.6 s per partial utterance
PARTIALS_PER_S = 1.3
MIN_COVERAGE = 0.75  # a last partial shorter than this share of PARTIAL_FRAMES is dropped
TARGET_DBFS = -30.0  # quieter speech is raised to this level before embedding (never lowered)
HIDDEN = 256

# Segment checks.
LEVEL_FRAME = 480  # 30 ms, the resolution of the voiced-audio measure
SILENT_DBFS = -55.0  # a segment whose loudest 30 ms is below this holds no voice
VOICED_BELOW_PEAK_DB = 30.0  # a 30 ms frame within this of the segment's loudest is voiced
CLIP_LEVEL = 0.99
MAX_CLIPPED = 0.01  # a segment with more samples than this share at full scale is clipped


def check_segment(audio: np.ndarray, min_speech_s: float) -> float:
    """Seconds of voiced audio in a 16 kHz segment; raises InputError (silent, clipped, too_short, non_finite)."""
    if not np.isfinite(audio).all():
        raise InputError("non_finite", "the segment holds NaN or infinite samples")
    frames = len(audio) // LEVEL_FRAME
    if frames == 0:
        raise InputError("too_short", f"{len(audio) / SAMPLE_RATE:.2f} s of audio")
    energy = np.square(audio[: frames * LEVEL_FRAME].reshape(frames, LEVEL_FRAME), dtype=np.float64).mean(axis=1)
    level = 10 * np.log10(np.maximum(energy, 1e-12))
    if level.max() < SILENT_DBFS:
        raise InputError("silent", f"loudest 30 ms at {level.max():.0f} dBFS")
    clipped = float(np.mean(np.abs(audio) >= CLIP_LEVEL))
    if clipped > MAX_CLIPPED:
        raise InputError("clipped", f"{clipped:.1%} of samples at full scale")
    voiced = float(np.sum(level >= level.max() - VOICED_BELOW_PEAK_DB)) * LEVEL_FRAME / SAMPLE_RATE
    if voiced < min_speech_s:
        raise InputError("too_short", f"{voiced:.2f} s of voiced audio, fewer than speaker.min_speech_s")
    return voiced


@lru_cache(maxsize=1)
def mel_filters() -> np.ndarray:
    """librosa.filters.mel(sr=16000, n_fft=400, n_mels=40): Slaney mel scale, Slaney area normalisation."""
    fft_freqs = np.fft.rfftfreq(MEL_WINDOW, 1.0 / SAMPLE_RATE)
    mels = np.linspace(_hz_to_mel(0.0), _hz_to_mel(SAMPLE_RATE / 2), MEL_BANDS + 2)
    hz = _mel_to_hz(mels)
    gaps = np.diff(hz)
    ramps = hz[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / gaps[:-1, None]
    upper = ramps[2:] / gaps[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (hz[2:] - hz[:-2]))[:, None]
    return weights.astype(np.float32)


_F_SP = 200.0 / 3  # Slaney: linear below 1 kHz, 200/3 Hz per mel...
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOG_STEP = np.log(6.4) / 27.0  # ...logarithmic above


def _hz_to_mel(hz: float) -> float:
    return hz / _F_SP if hz < _MIN_LOG_HZ else _MIN_LOG_MEL + float(np.log(hz / _MIN_LOG_HZ)) / _LOG_STEP


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    linear = _F_SP * mels
    log = _MIN_LOG_HZ * np.exp(_LOG_STEP * (mels - _MIN_LOG_MEL))
    return np.where(mels >= _MIN_LOG_MEL, log, linear)


def mel_spectrogram(audio: np.ndarray) -> np.ndarray:
    """(frames, 40) mel power spectrogram, as librosa.feature.melspectrogram (centred frames, zero padding)."""
    padded = np.pad(np.asarray(audio, np.float32), MEL_WINDOW // 2)
    count = 1 + (len(padded) - MEL_WINDOW) // MEL_HOP
    index = np.arange(MEL_WINDOW)[None, :] + MEL_HOP * np.arange(count)[:, None]
    window = np.hanning(MEL_WINDOW + 1)[:-1].astype(np.float32)  # periodic Hann, as scipy's get_window
    power = np.abs(np.fft.rfft(padded[index] * window, axis=1)) ** 2
    return (power.astype(np.float32) @ mel_filters().T).astype(np.float32)


def partial_slices(samples: int) -> list[slice]:
    """Mel-frame ranges of the 1.6 s partial utterances the encoder averages (VoiceEncoder.compute_partial_slices)."""
    frames = int(np.ceil((samples + 1) / MEL_HOP))
    step = int(np.round(SAMPLE_RATE / PARTIALS_PER_S / MEL_HOP))
    starts = range(0, max(1, frames - PARTIAL_FRAMES + step + 1), step)
    slices = [slice(i, i + PARTIAL_FRAMES) for i in starts]
    last = slices[-1]
    coverage = (samples - last.start * MEL_HOP) / (PARTIAL_FRAMES * MEL_HOP)
    if coverage < MIN_COVERAGE and len(slices) > 1:
        slices.pop()
    return slices


def raised_to_target(audio: np.ndarray) -> np.ndarray:
    """Quiet speech raised to -30 dBFS (the level the encoder was trained on); louder speech left as it is."""
    rms = float(np.sqrt(np.mean(np.square(audio, dtype=np.float64))))
    change_db = TARGET_DBFS - 20 * np.log10(max(rms, 1e-9))
    return audio if change_db <= 0 else (audio * 10 ** (change_db / 20)).astype(np.float32)


class ResemblyzerEmbedder:
    """Resemblyzer's GE2E speaker encoder: 256-d unit vectors, mean of the partial utterances' embeddings.

    The LSTM runs in numpy, one thread: a segment's few 1.6 s partials are too small a batch to gain from
    torch's threads, which on a loaded 2-core machine cost a hundred times more than they save (1.6 s against
    14 ms per second of speech, measured), and torch's thread count is the whole process's to set."""

    name = "resemblyzer"
    dim = HIDDEN

    def __init__(self, config: SpeakerConfig) -> None:
        state = _load_state(_resemblyzer_weights(config))
        try:
            self._layers = [
                (
                    state[f"lstm.weight_ih_l{n}"].T.copy(),
                    state[f"lstm.weight_hh_l{n}"].T.copy(),
                    state[f"lstm.bias_ih_l{n}"] + state[f"lstm.bias_hh_l{n}"],
                )
                for n in range(3)
            ]
            self._linear = (state["linear.weight"].T.copy(), state["linear.bias"])
        except KeyError as exc:
            raise ModelUnavailableError(f"speaker.model: the checkpoint lacks {exc} of the speaker encoder") from exc
        self.min_speech_s = config.min_speech_s

    def embed(self, audio: np.ndarray) -> np.ndarray:
        """The speaker vector of one 16 kHz mono segment; InputError when the segment cannot carry one."""
        check_segment(audio, self.min_speech_s)
        return self.embed_checked(raised_to_target(np.asarray(audio, np.float32)))

    def embed_checked(self, audio: np.ndarray) -> np.ndarray:
        slices = partial_slices(len(audio))
        need = slices[-1].stop * MEL_HOP
        if need > len(audio):
            audio = np.pad(audio, (0, need - len(audio)))
        mel = mel_spectrogram(audio)
        hidden = self._last_hidden(np.stack([mel[s] for s in slices]))
        weight, bias = self._linear
        raw = np.maximum(hidden @ weight + bias, 0.0)
        partials = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
        return unit(partials.mean(axis=0))

    def _last_hidden(self, batch: np.ndarray) -> np.ndarray:
        """The top layer's last hidden state for (partials, frames, bands): torch.nn.LSTM's gates i, f, g, o."""
        sequence = batch
        h = np.zeros((len(batch), HIDDEN), np.float32)
        for w_ih, w_hh, bias in self._layers:
            inputs = sequence @ w_ih + bias  # every step's input term at once
            h = np.zeros((len(batch), HIDDEN), np.float32)
            c = np.zeros_like(h)
            outputs = np.empty((len(batch), inputs.shape[1], HIDDEN), np.float32)
            for t in range(inputs.shape[1]):
                gates = inputs[:, t] + h @ w_hh
                i, f, g, o = np.split(gates, 4, axis=1)
                c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
                h = _sigmoid(o) * np.tanh(c)
                outputs[:, t] = h
            sequence = outputs
        return h


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)  # no overflow warning for large negative x


def _load_state(path: Path) -> dict[str, np.ndarray]:
    """The encoder's weights as float32 arrays (torch only reads the checkpoint; it never runs the model)."""
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)["model_state"]
    except (OSError, RuntimeError, KeyError, EOFError, TypeError) as exc:
        raise ModelUnavailableError(f"speaker.model: cannot load the speaker encoder {path} ({exc})") from exc
    return {key: value.numpy().astype(np.float32) for key, value in state.items()}


def _resemblyzer_weights(config: SpeakerConfig) -> Path:
    if config.model:
        path = Path(config.model).expanduser()
        if not path.is_file():
            raise ModelUnavailableError(f"speaker.model={path} is not a file; leave it empty for the packaged encoder")
        return path
    package = package_dir("resemblyzer")
    packaged = package / "pretrained.pt" if package else None
    if packaged is None or not packaged.is_file():
        raise ModelUnavailableError(
            f"speaker.backend=resemblyzer needs its packaged encoder ({RESEMBLYZER_PIP}); "
            "or set speaker.backend=none to store speech without speaker identity"
        )
    return packaged


class WavLmXVectorEmbedder:
    """A transformers WavLMForXVector model (e.g. microsoft/wavlm-base-plus-sv) on a GPU robot."""

    name = "wavlm_xvector"

    def __init__(self, config: SpeakerConfig, model: Any = None, extractor: Any = None) -> None:
        """``model`` / ``extractor`` already built (tests build small random ones) replace loading ``config.model``."""
        if model is None:
            model, extractor = _load_xvector(config)
        self._model = model.to(config.device).eval()
        self._extractor = extractor
        self._device = config.device
        self.dim = int(model.config.xvector_output_dim)
        self.min_speech_s = config.min_speech_s
        self._lock = threading.Lock()

    def embed(self, audio: np.ndarray) -> np.ndarray:
        import torch

        check_segment(audio, self.min_speech_s)
        inputs = self._extractor(np.asarray(audio, np.float32), sampling_rate=SAMPLE_RATE, return_tensors="pt")
        with self._lock, torch.inference_mode():
            out = self._model(**{k: v.to(self._device) for k, v in inputs.items()})
        return unit(out.embeddings[0].float().cpu().numpy())


def _load_xvector(config: SpeakerConfig) -> tuple[Any, Any]:
    if not config.model:
        raise ModelUnavailableError(
            "speaker.backend=wavlm_xvector needs speaker.model (a local WavLMForXVector directory, or a hub id with "
            "speaker.allow_download); or speaker.backend=resemblyzer for the packaged CPU encoder"
        )
    try:
        from transformers import AutoFeatureExtractor, WavLMForXVector

        local = not config.allow_download
        model = WavLMForXVector.from_pretrained(config.model, local_files_only=local)
        extractor = AutoFeatureExtractor.from_pretrained(config.model, local_files_only=local)
    except (OSError, ValueError, ImportError) as exc:
        raise ModelUnavailableError(f"speaker.model={config.model!r} cannot be loaded: {exc}") from exc
    return model, extractor


def unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    if not np.isfinite(norm) or norm == 0.0:
        raise InputError("bad_embedding", "the speaker vector is zero or not finite")
    return (np.asarray(vector, np.float64) / norm).astype(np.float32)
