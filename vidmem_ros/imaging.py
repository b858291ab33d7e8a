"""Raw and compressed camera images to RGB arrays, and back to JPEG, without cv_bridge.

Everything inside the library is an RGB ``uint8`` array of shape (height, width, 3).
"""

from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
import PIL.Image

from vidmem_ros.errors import InputError

MAX_SIDE = 16384


@dataclass(frozen=True)
class _Layout:
    channels: int
    dtype: str
    to_rgb: int | None  # cv2 colour conversion code; None when already RGB


_LAYOUTS = {
    "rgb8": _Layout(3, "u1", None),
    "bgr8": _Layout(3, "u1", cv2.COLOR_BGR2RGB),
    "rgba8": _Layout(4, "u1", cv2.COLOR_RGBA2RGB),
    "bgra8": _Layout(4, "u1", cv2.COLOR_BGRA2RGB),
    "mono8": _Layout(1, "u1", cv2.COLOR_GRAY2RGB),
    "8uc1": _Layout(1, "u1", cv2.COLOR_GRAY2RGB),
    "8uc3": _Layout(3, "u1", cv2.COLOR_BGR2RGB),
    "mono16": _Layout(1, "u2", cv2.COLOR_GRAY2RGB),
    "16uc1": _Layout(1, "u2", cv2.COLOR_GRAY2RGB),
}

SUPPORTED_ENCODINGS = tuple(sorted(_LAYOUTS))


def raw_to_rgb(
    data: bytes | bytearray | memoryview | np.ndarray,
    width: int,
    height: int,
    encoding: str,
    step: int,
    is_bigendian: bool = False,
    max_pixels: int | None = None,
) -> np.ndarray:
    """Convert the fields of a sensor_msgs/Image to an RGB array.

    Rows may be padded (``step`` larger than ``width * bytes per pixel``); 16-bit
    data may be big- or little-endian and is reduced to its high byte.  Above
    ``max_pixels`` every k-th row and column is taken straight from the buffer,
    so a huge frame is never copied at full size.
    """
    layout, buffer = _raw_layout(data, width, height, encoding, step)
    item = np.dtype(layout.dtype).itemsize
    k = subsample_factor(width, height, max_pixels)
    pixel_bytes = layout.channels * item
    rows = np.lib.stride_tricks.as_strided(
        buffer, shape=(len(range(0, height, k)), width, pixel_bytes), strides=(step * k, pixel_bytes, 1)
    )
    dtype = np.dtype(layout.dtype).newbyteorder(">" if is_bigendian else "<")
    pixels = np.ascontiguousarray(rows[:, ::k]).view(dtype).reshape(rows.shape[0], -1, layout.channels)
    if item == 2:
        pixels = np.right_shift(pixels, 8).astype(np.uint8)
    if layout.to_rgb is None:
        return np.ascontiguousarray(pixels)
    return cv2.cvtColor(pixels, layout.to_rgb)


def check_raw_layout(
    data: bytes | bytearray | memoryview | np.ndarray, width: int, height: int, encoding: str, step: int
) -> None:
    """Raise InputError when the fields of a sensor_msgs/Image cannot describe an image (cheap: no pixel is read)."""
    _raw_layout(data, width, height, encoding, step)


def _raw_layout(
    data: bytes | bytearray | memoryview | np.ndarray, width: int, height: int, encoding: str, step: int
) -> tuple[_Layout, np.ndarray]:
    layout = _LAYOUTS.get(encoding.lower())
    if layout is None:
        raise InputError(
            "bad_encoding", f"unsupported encoding {encoding!r}; supported: {', '.join(SUPPORTED_ENCODINGS)}"
        )
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise InputError("bad_size", f"image size {width}x{height} is outside 1..{MAX_SIDE}")
    item = np.dtype(layout.dtype).itemsize
    row_bytes = width * layout.channels * item
    if step < row_bytes:
        raise InputError("bad_step", f"step {step} is smaller than width*pixel size {row_bytes} for {encoding}")
    buffer = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8).ravel()
    if buffer.size < step * (height - 1) + row_bytes:
        raise InputError("truncated", f"{buffer.size} bytes of data for {height} rows of step {step}")
    return layout, buffer


# The signatures that open the image files OpenCV decodes (their published magic numbers).
_IMAGE_SIGNATURES = (
    b"\xff\xd8\xff",  # JPEG
    b"\x89PNG\r\n\x1a\n",  # PNG
    b"BM",  # BMP
    b"II*\x00",  # TIFF, little-endian
    b"MM\x00*",  # TIFF, big-endian
    b"GIF87a",
    b"GIF89a",
    b"\x00\x00\x00\x0cjP  \r\n\x87\n",  # JPEG 2000 file
    b"\xffO\xffQ",  # JPEG 2000 codestream
    b"\x59\xa6\x6a\x95",  # Sun raster
    b"v/1\x01",  # OpenEXR
    b"#?RADIANCE",
    b"#?RGBE",
)


def check_compressed(data: bytes | bytearray | memoryview | np.ndarray, fmt: str = "") -> None:
    """Raise InputError for a payload that cannot be an image: empty, or opening with no image signature
    (cheap: the first bytes only).  Depth images in compressedDepth carry a header first and are let through."""
    head = (
        bytes(memoryview(data)[:16]) if not isinstance(data, np.ndarray) else data.view(np.uint8).ravel()[:16].tobytes()
    )
    if not head:
        raise InputError("decode_error", f"empty compressed image (format {fmt!r})")
    if "compresseddepth" in fmt.lower().replace(" ", ""):
        return
    netpbm = head[:1] == b"P" and head[1:2] in b"1234567" and len(head) > 2
    webp = head[:4] == b"RIFF" and head[8:12] == b"WEBP"
    pfm = head[:2] in (b"PF", b"Pf")
    if not (netpbm or webp or pfm or head.startswith(_IMAGE_SIGNATURES)):
        raise InputError("decode_error", f"compressed image (format {fmt!r}) opens with no image signature")


def compressed_to_rgb(
    data: bytes | bytearray | memoryview | np.ndarray, fmt: str = "", max_pixels: int | None = None
) -> np.ndarray:
    """Decode a sensor_msgs/CompressedImage payload (JPEG, PNG, ...) to an RGB array.

    Above ``max_pixels`` (read from the header) the image is decoded at a
    reduced size; one that claims over 64 times that is refused undecoded.
    """
    buffer = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8).ravel()
    if buffer.size == 0:
        raise InputError("decode_error", f"empty compressed image (format {fmt!r})")
    flags = cv2.IMREAD_UNCHANGED
    size = _header_size(buffer) if max_pixels else None
    if size is not None and max_pixels:
        k = subsample_factor(*size, max_pixels)
        if k > _MAX_REDUCTION:
            raise InputError("oversized", f"compressed image claims {size[0]}x{size[1]} pixels")
        if k > 1:
            flags = _REDUCED_READS[next(f for f in sorted(_REDUCED_READS) if f >= k)]
    try:
        decoded = cv2.imdecode(buffer, flags)
    except cv2.error as exc:  # e.g. a header claiming more pixels than OpenCV will allocate
        raise InputError("decode_error", f"compressed image (format {fmt!r}) does not decode: {exc.msg}") from exc
    if decoded is None:
        raise InputError("decode_error", f"compressed image of {buffer.size} bytes (format {fmt!r}) does not decode")
    if decoded.dtype == np.uint16:
        decoded = np.right_shift(decoded, 8).astype(np.uint8)
    if decoded.ndim == 2:
        return cv2.cvtColor(decoded, cv2.COLOR_GRAY2RGB)
    code = cv2.COLOR_BGRA2RGB if decoded.shape[2] == 4 else cv2.COLOR_BGR2RGB
    return cv2.cvtColor(decoded, code)


# Decoding at 1/2, 1/4 or 1/8 of the size (JPEG decodes straight to it); beyond 8 the frame is refused.
_REDUCED_READS = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
_MAX_REDUCTION = 8


def subsample_factor(width: int, height: int, max_pixels: int | None) -> int:
    """The smallest whole k such that taking every k-th row and column fits ``max_pixels``."""
    if not max_pixels or width * height <= max_pixels:
        return 1
    k = max(2, math.ceil(math.sqrt(width * height / max_pixels)))
    while math.ceil(width / k) * math.ceil(height / k) > max_pixels:
        k += 1
    return k


def _header_size(buffer: np.ndarray) -> tuple[int, int] | None:
    """Width and height from the image header alone, without decoding; None when unreadable."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PIL.Image.DecompressionBombWarning)  # the caller decides on size
            with PIL.Image.open(io.BytesIO(buffer.tobytes())) as image:
                width, height = image.size
    except PIL.Image.DecompressionBombError as exc:  # Pillow's own ceiling, about 179 million pixels
        raise InputError("oversized", f"compressed image is too large to decode: {exc}") from exc
    except (OSError, ValueError):
        return None
    return int(width), int(height)


def rgb_to_jpeg(rgb: np.ndarray, quality: int = 90, max_width: int | None = None) -> bytes:
    """Encode an RGB array as JPEG, first downscaling it to ``max_width`` when wider."""
    image = resize_to_width(rgb, max_width) if max_width else rgb
    ok, encoded = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise InputError("encode_error", f"JPEG encoding of a {image.shape} image failed")
    return encoded.tobytes()


def jpeg_to_rgb(payload: bytes) -> np.ndarray:
    return compressed_to_rgb(payload, "jpeg")


def resize_to_width(rgb: np.ndarray, width: int | None) -> np.ndarray:
    if not width or rgb.shape[1] <= width:
        return rgb
    height = max(1, round(rgb.shape[0] * width / rgb.shape[1]))
    return cv2.resize(rgb, (width, height), interpolation=cv2.INTER_AREA)


def ensure_rgb(image: np.ndarray) -> np.ndarray:
    """Accept an already decoded array (grey, RGB or RGBA, 8-bit) as an RGB frame."""
    if image.dtype != np.uint8:
        raise InputError("bad_image", f"decoded frames must be 8-bit, got {image.dtype}")
    if image.size == 0:
        raise InputError("bad_image", f"decoded frame has shape {image.shape}; it holds no pixels")
    if image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 1):
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_RGBA2RGB)
    if image.ndim != 3 or image.shape[2] != 3:
        raise InputError("bad_image", f"decoded frame has shape {image.shape}; expected (height, width, 3)")
    return image
