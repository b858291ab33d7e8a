"""Audio chunks as they arrive (any rate, interleaved channels) to the 16 kHz mono float32 the speech models take.

``AudioChunkData`` mirrors ``msg/AudioChunk.msg`` without ROS types, so the node,
bag replay and tests share one validated conversion.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from scipy.signal import firwin, resample_poly

from vidmem_ros.errors import InputError

SAMPLE_RATE = 16_000  # what Silero VAD and Whisper take
MIN_SAMPLE_RATE = 4_000  # below this no speech survives; a smaller value is a broken header
MAX_SAMPLE_RATE = 384_000  # the highest rate audio interfaces offer
MAX_CHANNELS = 64
# Resampling ratios are kept to denominators up to this: an odd rate such as 44101 Hz
# would otherwise design a filter with hundreds of thousands of taps per chunk.
MAX_RATIO_TERM = 1_000
SAMPLE_WIDTH = {"S16LE": 2, "F32LE": 4}


@dataclass(frozen=True)
class AudioChunkData:
    """One chunk of an audio stream; ``stamp`` is the sensor time of its first sample (s)."""

    stamp: float
    sample_rate: int
    channels: int
    encoding: str  # "S16LE" or "F32LE", channels interleaved
    data: bytes

    @property
    def frames(self) -> int:
        """Samples per channel, assuming the chunk is valid."""
        width = SAMPLE_WIDTH.get(self.encoding.upper(), 0)
        return len(self.data) // (width * self.channels) if width and self.channels > 0 else 0

    @property
    def duration(self) -> float:
        return self.frames / self.sample_rate if self.sample_rate > 0 else 0.0


def to_mono_16k(chunk: AudioChunkData) -> np.ndarray:
    """Decode, average the channels and resample to 16 kHz; raises InputError naming what is wrong."""
    samples = decode(chunk)
    mono = samples.reshape(-1, chunk.channels).mean(axis=1, dtype=np.float32) if chunk.channels > 1 else samples
    return resample_to_16k(mono, chunk.sample_rate)


def decode(chunk: AudioChunkData) -> np.ndarray:
    """Interleaved float32 samples in [-1, 1] (for S16LE) after every header check."""
    encoding = chunk.encoding.strip().upper()
    width = SAMPLE_WIDTH.get(encoding)
    if width is None:
        raise InputError("unknown_encoding", f"encoding {chunk.encoding!r}; expected one of {', '.join(SAMPLE_WIDTH)}")
    if not MIN_SAMPLE_RATE <= chunk.sample_rate <= MAX_SAMPLE_RATE:
        raise InputError(
            "bad_sample_rate", f"sample_rate {chunk.sample_rate} Hz outside {MIN_SAMPLE_RATE}..{MAX_SAMPLE_RATE}"
        )
    if not 1 <= chunk.channels <= MAX_CHANNELS:
        raise InputError("bad_channels", f"channels {chunk.channels} outside 1..{MAX_CHANNELS}")
    if not chunk.data:
        raise InputError("empty", "the chunk holds no samples")
    frame_size = width * chunk.channels
    if len(chunk.data) % frame_size:
        raise InputError(
            "partial_frame",
            f"{len(chunk.data)} bytes is not a whole number of {frame_size}-byte frames "
            f"({chunk.channels} channel(s) of {encoding})",
        )
    if encoding == "S16LE":
        return np.frombuffer(chunk.data, dtype="<i2").astype(np.float32) / 32768.0
    samples = np.frombuffer(chunk.data, dtype="<f4").astype(np.float32)
    if not np.isfinite(samples).all():
        raise InputError("non_finite", f"{int((~np.isfinite(samples)).sum())} NaN or infinite samples")
    return samples


def resample_to_16k(mono: np.ndarray, sample_rate: int) -> np.ndarray:
    if sample_rate == SAMPLE_RATE:
        return np.ascontiguousarray(mono, dtype=np.float32)
    up, down = _ratio(sample_rate)
    # Pad with the local trend rather than zeros, so chunk edges do not click.
    out = resample_poly(mono, up, down, window=_lowpass(up, down), padtype="line")
    return np.asarray(out, dtype=np.float32)


def _ratio(sample_rate: int) -> tuple[int, int]:
    ratio = Fraction(SAMPLE_RATE, sample_rate)
    if max(ratio.numerator, ratio.denominator) > MAX_RATIO_TERM:
        ratio = ratio.limit_denominator(MAX_RATIO_TERM)
    return ratio.numerator, ratio.denominator


@lru_cache(maxsize=16)
def _lowpass(up: int, down: int) -> np.ndarray:
    """scipy's default resample_poly filter (Kaiser, beta 5), designed once per ratio instead of once per chunk."""
    max_rate = max(up, down)
    taps = firwin(2 * 10 * max_rate + 1, 1.0 / max_rate, window=("kaiser", 5.0))
    taps.setflags(write=False)  # shared between calls: resample_poly copies it before scaling
    return taps
