"""A camera frame as it arrives, before it is decoded: decoding is deferred so cheap checks run first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vidmem_ros.imaging import compressed_to_rgb, ensure_rgb, raw_to_rgb


@dataclass(frozen=True)
class RawImage:
    data: bytes | memoryview | np.ndarray
    width: int
    height: int
    encoding: str
    step: int
    is_bigendian: bool = False

    def decode(self) -> np.ndarray:
        return raw_to_rgb(self.data, self.width, self.height, self.encoding, self.step, self.is_bigendian)


@dataclass(frozen=True)
class CompressedImage:
    data: bytes | memoryview | np.ndarray
    format: str = ""

    def decode(self) -> np.ndarray:
        return compressed_to_rgb(self.data, self.format)


@dataclass(frozen=True)
class DecodedImage:
    rgb: np.ndarray

    def decode(self) -> np.ndarray:
        return ensure_rgb(self.rgb)


@dataclass(frozen=True)
class FrameInput:
    stamp: float  # sensor time in seconds
    source: str  # topic or file it came from
    image: RawImage | CompressedImage | DecodedImage
