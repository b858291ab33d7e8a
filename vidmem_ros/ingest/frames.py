"""A camera frame as it arrives, before it is decoded: decoding is deferred so cheap checks run first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vidmem_ros.imaging import compressed_to_rgb, ensure_rgb, raw_to_rgb, subsample_factor


@dataclass(frozen=True)
class RawImage:
    data: bytes | memoryview | np.ndarray
    width: int
    height: int
    encoding: str
    step: int
    is_bigendian: bool = False

    def decode(self, max_pixels: int | None = None) -> np.ndarray:
        return raw_to_rgb(self.data, self.width, self.height, self.encoding, self.step, self.is_bigendian, max_pixels)

    @property
    def pixels(self) -> int:
        return self.width * self.height


@dataclass(frozen=True)
class CompressedImage:
    data: bytes | memoryview | np.ndarray
    format: str = ""

    def decode(self, max_pixels: int | None = None) -> np.ndarray:
        return compressed_to_rgb(self.data, self.format, max_pixels)


@dataclass(frozen=True)
class DecodedImage:
    rgb: np.ndarray

    def decode(self, max_pixels: int | None = None) -> np.ndarray:
        """Already decoded: downscaled when larger than ``max_pixels``."""
        rgb = ensure_rgb(self.rgb)
        k = subsample_factor(rgb.shape[1], rgb.shape[0], max_pixels)
        return rgb if k == 1 else np.ascontiguousarray(rgb[::k, ::k])


@dataclass(frozen=True)
class FrameInput:
    stamp: float  # sensor time in seconds
    source: str  # topic or file it came from
    image: RawImage | CompressedImage | DecodedImage
