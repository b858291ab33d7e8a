"""Image embedders: one vector per frame for segmentation, de-duplication and image-similarity search."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import cv2
import numpy as np


@runtime_checkable
class ImageEmbedder(Protocol):
    """Maps an RGB frame to an L2-normalised float32 vector of fixed length ``dim``."""

    name: str
    dim: int

    def embed(self, rgb: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class TextEmbedder(Protocol):
    """Maps texts to L2-normalised float32 vectors (one row per text)."""

    name: str
    dim: int

    def embed_texts(self, texts: list[str]) -> np.ndarray: ...


class ColorLayoutEmbedder:
    """A model-free visual feature: a coarse colour layout plus a hue-saturation-value histogram.

    It tells places and views apart (what segmentation and "have I been here"
    need) at well under a millisecond per frame, and needs no weights.  It
    knows nothing of semantics: text-to-image search needs a learned embedder.
    """

    name = "color_layout_v1"
    _GRID = 8
    _HSV_BINS = (8, 4, 4)
    dim = _GRID * _GRID * 3 + int(np.prod(_HSV_BINS))

    def embed(self, rgb: np.ndarray) -> np.ndarray:
        small = cv2.resize(rgb, (64, 64), interpolation=cv2.INTER_AREA)
        lab = cv2.cvtColor(small, cv2.COLOR_RGB2LAB)
        layout = cv2.resize(lab, (self._GRID, self._GRID), interpolation=cv2.INTER_AREA).astype(np.float32)
        layout = (layout - layout.mean(axis=(0, 1))).reshape(-1)  # layout, not overall brightness
        parts = [_unit(layout), colour_histogram(small, self._HSV_BINS)]
        return _unit(np.concatenate(parts).astype(np.float32))


def colour_histogram(rgb: np.ndarray, bins: tuple[int, int, int] = (8, 4, 4)) -> np.ndarray:
    """Unit-length HSV histogram: what an object looks like, whatever its position in the crop.

    Used as the appearance of a detected object when entities are unified,
    where a layout feature would split one object seen from two framings.
    """
    small = rgb if max(rgb.shape[:2]) <= 64 else cv2.resize(rgb, (64, 64), interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(np.ascontiguousarray(small), cv2.COLOR_RGB2HSV)
    hist = cv2.calcHist([hsv], [0, 1, 2], None, list(bins), [0, 180, 0, 256, 0, 256]).reshape(-1)
    return _unit(np.sqrt(hist).astype(np.float32))  # square root tames a dominant colour


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
