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
