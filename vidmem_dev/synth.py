"""Synthetic sensor data shared by the sample patrol, the benchmarks and the tests: sign plates and speech.

Signs are text plates drawn with PIL in the DejaVu fonts (``fonts-dejavu-core``); speech is
``espeak-ng`` output (``-w``), 16-bit mono at espeak's native 22050 Hz, resampled where asked.
Both system packages are installed by the Makefile's ``setup`` target.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from math import gcd
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
# (plate, ink) colours: white on black, black on yellow, white on green
PLATES: tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...] = (
    ((255, 255, 255), (20, 20, 20)),
    ((250, 210, 0), (0, 0, 0)),
    ((0, 110, 60), (255, 255, 255)),
)
ESPEAK_RATE = 22_050  # what espeak-ng writes


# -- signs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedSign:
    text: str
    image: np.ndarray
    plate: tuple[int, int, int, int]  # x0, y0, x1, y1 of the sign in the image


def plate_colours(text: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The (plate, ink) colours a text gets when none are asked for."""
    return PLATES[len(text) % len(PLATES)]


def sign_plate(
    text: str,
    font: str = "DejaVuSans-Bold.ttf",
    size: int = 40,
    angle: float = 0.0,
    colours: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None,
    blur: float = 0.0,
) -> np.ndarray:
    """An RGBA plate with ``text`` in ``font`` at ``size`` px, padded by half the size, tilted by ``angle``
    degrees (the corners made transparent) and blurred by ``blur`` (Gaussian sigma, px)."""
    plate = _plate(text, font, size, angle, colours)
    if blur > 0:
        plate = plate.filter(ImageFilter.GaussianBlur(blur))
    return np.asarray(plate.convert("RGBA"))


def _plate(
    text: str,
    font: str,
    size: int,
    angle: float,
    colours: tuple[tuple[int, int, int], tuple[int, int, int]] | None,
) -> Image.Image:
    try:
        face = ImageFont.truetype(str(FONT_DIR / font), size)
    except OSError as exc:
        raise FileNotFoundError(f"font {FONT_DIR / font} is missing (`make setup` installs fonts-dejavu-core)") from exc
    x0, y0, x1, y1 = (round(v) for v in face.getbbox(text))
    pad = size // 2
    background, ink = colours or plate_colours(text)
    plate = Image.new("RGBA", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), (*background, 255))
    ImageDraw.Draw(plate).text((pad - x0, pad - y0), text, font=face, fill=(*ink, 255))
    return plate.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)


def paste(image: np.ndarray, plate: np.ndarray, left: int, top: int) -> np.ndarray:
    """``plate`` (RGBA) alpha-blended onto a copy of the RGB ``image`` with its top-left corner at (left, top);
    what falls outside the image is cut off."""
    out = image.astype(np.float32)
    ph, pw = plate.shape[:2]
    ih, iw = image.shape[:2]
    x0, y0, x1, y1 = max(left, 0), max(top, 0), min(left + pw, iw), min(top + ph, ih)
    if x0 < x1 and y0 < y1:
        piece = plate[y0 - top : y1 - top, x0 - left : x1 - left].astype(np.float32)
        alpha = piece[..., 3:4] / 255.0
        out[y0:y1, x0:x1] = out[y0:y1, x0:x1] * (1 - alpha) + piece[..., :3] * alpha
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def render_sign(
    base: np.ndarray, text: str, font: str, size: int, angle: float, where: tuple[float, float]
) -> RenderedSign:
    """A plate with the text, tilted, composited onto the photo at ``where`` (0-1 of the free space),
    then the whole frame blurred (sigma 1), as a camera a little out of focus sees it."""
    plate = _plate(text, font, size, angle, None)
    frame = Image.fromarray(base)
    left = int(where[0] * (frame.width - plate.width))
    top = int(where[1] * (frame.height - plate.height))
    frame.paste(plate, (left, top), plate)
    blurred = np.asarray(frame.filter(ImageFilter.GaussianBlur(1.0)))
    return RenderedSign(text, blurred, (left, top, left + plate.width, top + plate.height))


# -- speech --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Speech:
    text: str
    rate: int
    pcm: np.ndarray  # int16 mono at ``rate``

    @property
    def seconds(self) -> float:
        return len(self.pcm) / self.rate

    def audible(self, threshold: float = 0.02) -> tuple[float, float]:
        """Seconds from the clip's start to its first and last sample above ``threshold`` (espeak pads a little)."""
        loud = np.flatnonzero(np.abs(self.pcm.astype(np.float32)) > threshold * 32768)
        if not len(loud):
            return (0.0, 0.0)
        return (loud[0] / self.rate, (loud[-1] + 1) / self.rate)


class SpeechUnavailableError(RuntimeError):
    """espeak-ng is not installed."""


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def speak(
    text: str, voice: str | None = "en-us", wpm: int | None = 160, rate: int | None = None, pitch: int | None = None
) -> Speech:
    """``text`` spoken by espeak-ng as int16 mono; ``rate`` resamples it (default: espeak's own 22050 Hz).
    ``voice=None`` / ``wpm=None`` / ``pitch=None`` (0-99) leave espeak's defaults."""
    if not espeak_available():
        raise SpeechUnavailableError(
            "espeak-ng is needed to synthesise speech (`make setup`, or apt install espeak-ng)"
        )
    command = ["espeak-ng"]
    if voice:
        command += ["-v", voice]
    if wpm:
        command += ["-s", str(wpm)]
    if pitch is not None:
        command += ["-p", str(pitch)]
    with tempfile.TemporaryDirectory(prefix="vidmem-espeak-") as folder:
        path = Path(folder) / "speech.wav"
        subprocess.run([*command, "-w", str(path), text], check=True, capture_output=True)
        with wave.open(str(path)) as wav:
            if wav.getsampwidth() != 2:
                raise SpeechUnavailableError(f"espeak-ng wrote {wav.getsampwidth() * 8}-bit audio; expected 16-bit")
            native = wav.getframerate()
            pcm = np.frombuffer(wav.readframes(wav.getnframes()), "<i2").reshape(-1, wav.getnchannels())[:, 0]
    pcm = np.ascontiguousarray(pcm, dtype=np.int16)
    if rate is not None and rate != native:
        return Speech(text, rate, resample_int16(pcm, native, rate))
    return Speech(text, native, pcm)


def synthesise(
    texts: list[str] | tuple[str, ...], voice: str | None = "en-us", wpm: int | None = 160, rate: int | None = None
) -> list[Speech]:
    """Each text spoken by espeak-ng (see ``speak``)."""
    return [speak(text, voice, wpm, rate) for text in texts]


def resample_int16(pcm: np.ndarray, rate: int, to: int) -> np.ndarray:
    """int16 mono resampled from ``rate`` to ``to`` Hz (polyphase, scipy's default Kaiser filter)."""
    from scipy.signal import resample_poly

    g = gcd(rate, to)
    out = resample_poly(pcm.astype(np.float32), to // g, rate // g)
    return np.clip(np.round(out), -32768, 32767).astype(np.int16)
