"""Backend-neutral results of perception models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Detection:
    label: str
    score: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the analysed frame


@runtime_checkable
class Detector(Protocol):
    """Finds objects in an RGB frame."""

    name: str

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """Labels this detector can report."""
        ...

    def detect(self, rgb: np.ndarray) -> list[Detection]: ...


@dataclass(frozen=True)
class TextLine:
    """A line of text read in a frame (OCR)."""

    text: str
    score: float
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)


@runtime_checkable
class OcrEngine(Protocol):
    """Reads lines of text in an RGB frame; boxes are axis-aligned, in pixels of the frame it was given."""

    name: str

    def read(self, rgb: np.ndarray) -> list[TextLine]: ...


@dataclass(frozen=True)
class Tag:
    """A class a whole-frame classifier sees in a frame; ``terms`` are synonyms and everyday words for it."""

    label: str
    score: float
    terms: tuple[str, ...] = ()  # e.g. "tabby" -> ("tabby cat", "cat", "pet", "animal")


@runtime_checkable
class Tagger(Protocol):
    """Names what a whole RGB frame shows, from a closed set of classes and without boxes."""

    name: str

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """Labels this tagger can report."""
        ...

    def tag(self, rgb: np.ndarray) -> list[Tag]: ...


@dataclass(frozen=True)
class SpeechSegment:
    """Speech found by a voice activity detector, as 16 kHz sample indices since its last reset."""

    start: int
    end: int  # one past the last sample


@dataclass(frozen=True)
class Utterance:
    """Text recognised in a stretch of audio; times in seconds from the start of that audio."""

    text: str
    start: float
    end: float


@runtime_checkable
class VoiceActivityDetector(Protocol):
    """Finds speech in a stream of 16 kHz mono float32 audio fed in pieces of any length."""

    name: str

    @property
    def position(self) -> int:
        """Samples analysed since the last reset."""
        ...

    @property
    def speech_start(self) -> int | None:
        """Start of the speech segment still open, None in silence."""
        ...

    def push(self, audio: np.ndarray) -> list[SpeechSegment]:
        """Analyse more audio; returns the segments that ended within it."""
        ...

    def flush(self) -> list[SpeechSegment]:
        """End of the stream: close an open segment at ``position``."""
        ...

    def reset(self) -> None: ...


@runtime_checkable
class SpeechRecognizer(Protocol):
    """Turns one speech segment (16 kHz mono float32) into text."""

    name: str

    def transcribe(self, audio: np.ndarray) -> Utterance | None: ...


@runtime_checkable
class SpeakerEmbedder(Protocol):
    """Turns one speech segment (16 kHz mono float32) into a unit vector that is near for one voice and far for
    two; refuses a segment that cannot carry one (silent, clipped, too short) with an ``InputError``."""

    name: str
    dim: int

    def embed(self, audio: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class FaceSeen:
    """A face found in a frame and embedded: its box, its unit descriptor, how sharp it was, a small crop (JPEG)."""

    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the analysed frame
    vector: np.ndarray
    sharpness: float
    crop: bytes = b""


@runtime_checkable
class FaceEmbedder(Protocol):
    """Finds faces in an RGB frame and embeds each one that is large and sharp enough; ``refused`` names, per
    call of ``faces``, why the others were not embedded."""

    name: str
    dim: int

    def faces(self, rgb: np.ndarray) -> tuple[list[FaceSeen], list[str]]: ...
