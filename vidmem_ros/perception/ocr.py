"""Reading text in frames (OCR), and a cheap cue that says which frames are worth reading.

OCR is the costliest model of the CPU profile (0.1-0.4 s for a 640x480 frame on two shared cores, against
40-60 ms for the detector), so where it runs decides the real-time factor.  ``text_likely`` looks for rows of glyph-like
blobs on a plain, high-contrast background in a small grey copy of the frame, in a few milliseconds, and
``ocr_wanted`` applies ``ocr.run_on`` with it.

``RapidOcrEngine`` runs PP-OCRv4 (DB text detector, angle classifier, SVTR-LCNet recogniser) through
rapidocr-onnxruntime, whose wheel carries the ONNX weights; nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from vidmem_ros.config import OcrConfig
from vidmem_ros.errors import InputError, ModelUnavailableError
from vidmem_ros.imaging import ensure_rgb
from vidmem_ros.perception.types import TextLine

RAPIDOCR_PACKAGE = "rapidocr_onnxruntime"
INSTALL_HINT = (
    "pip install -r requirements/perception.txt && pip install --no-deps -r requirements/no-deps.txt "
    "(onnxruntime, pyclipper, shapely, then rapidocr-onnxruntime==1.4.4 without its dependencies, which would add "
    "a second, GUI OpenCV), or set ocr.backend=none to run without OCR"
)
MIN_READABLE_SIDE = 8  # px; no glyph fits in less, and the detector network wants a few strides of input

# Text cue, tuned on signs rendered onto scikit-image photos (see test/test_ocr.py for the figures).
CUE_WIDTH = 320  # grey copy the cue works on; 14 px text at 640 px width is still 4-5 px tall here
CUE_WINDOW = 15  # local-mean window: a few glyph heights, so a glyph differs from its plate, not from itself
CUE_CONTRAST = 25  # grey levels a stroke must stand out from its surroundings
CUE_MIN_GLYPH, CUE_MAX_GLYPH = 4, 40  # glyph heights (px at CUE_WIDTH) the cue looks for
CUE_MAX_BLOBS = 600  # blobs looked at, in raster order; only heavy texture (gravel, foliage) has more at 320 px
CUE_MAX_ROWS = 16  # rows whose background is checked, longest first


class RapidOcrEngine:
    """PP-OCRv4 via rapidocr-onnxruntime; lines below ``ocr.min_score`` are dropped."""

    name = "rapidocr"

    def __init__(self, config: OcrConfig) -> None:
        RapidOCR = _import_rapidocr()
        self._max_side = config.max_side
        self._ocr = RapidOCR(
            text_score=config.min_score,
            max_side_len=config.max_side,
            det_limit_type="max",  # the default ("min", 736) upscales a 640x480 frame 1.5x: slower, no better
            det_limit_side_len=config.max_side,
            intra_op_num_threads=config.num_threads,
            inter_op_num_threads=1,
        )
        self.read(np.full((64, 64, 3), 255, np.uint8))  # warm-up: the first run allocates

    def read(self, rgb: np.ndarray) -> list[TextLine]:
        """Lines of text in reading order; boxes in pixels of ``rgb``.  Malformed frames raise InputError."""
        frame = _as_rgb(rgb)
        if min(frame.shape[:2]) < MIN_READABLE_SIDE:
            return []
        small, scale = _fit(frame, self._max_side)
        result, _ = self._ocr(np.ascontiguousarray(small[..., ::-1]))  # rapidocr takes arrays as BGR
        pieces = [_piece(row, scale) for row in result or [] if str(row[1]).strip()]
        return _join_pieces(pieces)


def _import_rapidocr() -> Any:
    missing = [m for m in (RAPIDOCR_PACKAGE, "onnxruntime", "pyclipper", "shapely") if not importlib.util.find_spec(m)]
    if missing:
        raise ModelUnavailableError(f"ocr.backend=rapidocr needs {', '.join(missing)}: {INSTALL_HINT}")
    _check_model_files()
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:  # a broken install: a compiled dependency that does not load
        raise ModelUnavailableError(f"ocr.backend=rapidocr cannot import {exc.name or exc}: {INSTALL_HINT}") from exc
    return RapidOCR


def _check_model_files() -> None:
    """The wheel's config.yaml names the ONNX files; a pruned or partial install lacks some of them."""
    spec = importlib.util.find_spec(RAPIDOCR_PACKAGE)
    package_dir = Path(next(iter(spec.submodule_search_locations or []))) if spec else None
    if package_dir is None or not (package_dir / "config.yaml").is_file():
        raise ModelUnavailableError(f"ocr.backend=rapidocr: {RAPIDOCR_PACKAGE} has no config.yaml; {INSTALL_HINT}")
    settings = yaml.safe_load((package_dir / "config.yaml").read_text())
    models = [package_dir / settings[stage]["model_path"] for stage in ("Det", "Cls", "Rec")]
    absent = [str(path) for path in models if not path.is_file()]
    if absent:
        raise ModelUnavailableError(
            f"ocr.backend=rapidocr lacks model files {', '.join(absent)}; reinstall: {INSTALL_HINT}"
        )


def _as_rgb(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray):
        raise InputError("bad_image", f"expected an RGB array, got {type(image).__name__}")
    return ensure_rgb(image)


def _fit(rgb: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """Downscale so the longer side is at most ``max_side``; returns the image and the factor applied."""
    height, width = rgb.shape[:2]
    scale = min(1.0, max_side / max(height, width))
    if scale == 1.0:
        return rgb, 1.0
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA), scale


class _Piece:
    """One detector box with its reading, in pixels of the caller's frame."""

    def __init__(self, quad: np.ndarray, text: str, score: float) -> None:
        self.quad, self.text, self.score = quad, text, score
        top = quad[1] - quad[0]
        self.direction = top / max(float(np.hypot(*top)), 1e-6)
        self.height = float(np.hypot(*(quad[3] - quad[0])) + np.hypot(*(quad[2] - quad[1]))) / 2
        self.centre = quad.mean(axis=0)

    def span(self, direction: np.ndarray) -> tuple[float, float]:
        along = self.quad @ direction
        return float(along.min()), float(along.max())


def _piece(row: Sequence[Any], scale: float) -> _Piece:
    quad = np.asarray(row[0], np.float64).reshape(4, 2) / scale
    return _Piece(quad, str(row[1]).strip(), float(row[2]))


def _same_line(a: _Piece, b: _Piece) -> bool:
    """The DB detector splits a line at wide word gaps (monospace, letter-spaced signs); glue those back."""
    height = min(a.height, b.height)
    if max(a.height, b.height) > 1.6 * height or float(a.direction @ b.direction) < 0.97:  # ~14 degrees
        return False
    normal = np.array([-a.direction[1], a.direction[0]])
    if abs(float((b.centre - a.centre) @ normal)) > 0.5 * height:
        return False
    (a0, a1), (b0, b1) = a.span(a.direction), b.span(a.direction)
    gap = max(a0, b0) - min(a1, b1)
    return -1.0 * height < gap < 2.0 * height  # overlaps happen: boxes of tilted words reach over each other


def _join_pieces(pieces: list[_Piece]) -> list[TextLine]:
    """Group detector boxes into lines, read each left to right, order lines top to bottom."""
    groups: list[list[_Piece]] = []
    for piece in pieces:
        joined = [g for g in groups if any(_same_line(piece, other) for other in g)]
        merged = [piece] + [p for g in joined for p in g]
        groups = [g for g in groups if all(g is not j for j in joined)] + [merged]
    lines = [_line(group) for group in groups]
    return sorted(lines, key=lambda line: (line.box[1], line.box[0]))


def _line(group: list[_Piece]) -> TextLine:
    direction = np.mean([p.direction for p in group], axis=0)
    ordered = sorted(group, key=lambda p: p.span(direction)[0])
    text = " ".join([ordered[0].text] + [_unrepeated(a, b, direction) for a, b in pairwise(ordered)])
    weights = [len(p.text) for p in ordered]
    score = float(np.average([p.score for p in ordered], weights=weights))
    corners = np.concatenate([p.quad for p in ordered])
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    return TextLine(text, score, (float(x0), float(y0), float(x1), float(y1)))


def _unrepeated(before: _Piece, after: _Piece, direction: np.ndarray) -> str:
    """``after``'s text without the characters it shares with the end of ``before`` where their boxes overlap."""
    start, end = before.span(direction)
    overlap = end - after.span(direction)[0]
    if overlap <= 0:
        return after.text
    pitch = (end - start) / max(len(before.text), 1)
    for k in range(min(len(before.text), len(after.text) - 1, int(overlap / pitch) + 1), 0, -1):
        if before.text[-k:].lower() == after.text[:k].lower():
            return after.text[k:].lstrip()
    return after.text


def ocr_wanted(config: OcrConfig, rgb: np.ndarray, keyframe: bool) -> bool:
    """Whether ``ocr.run_on`` asks for this kept frame to be read."""
    if config.backend == "none":
        return False
    if config.run_on == "every_frame":
        return True
    if config.run_on == "keyframes":
        return keyframe
    return text_likely(rgb) >= config.text_likely_threshold


def text_likely(rgb: np.ndarray) -> float:
    """How much a frame looks like it shows text, 0-1, in a few ms.

    1.0: a row of three or more glyph-sized blobs of one height on a plain background with strong contrast
    (a sign, a label, a screen).  0.5: two such blobs, or a longer row with weaker evidence.  Textures of
    similar blobs (gravel, coins, foliage) fail on the background test: between their blobs it is not plain.
    """
    grey = _cue_grey(rgb)
    if min(grey.shape) < CUE_MIN_GLYPH:
        return 0.0
    local = cv2.blur(grey, (CUE_WINDOW, CUE_WINDOW))
    _, dark = cv2.threshold(cv2.subtract(local, grey), CUE_CONTRAST, 255, cv2.THRESH_BINARY)  # dark on light
    _, light = cv2.threshold(cv2.subtract(grey, local), CUE_CONTRAST, 255, cv2.THRESH_BINARY)  # and the reverse
    return max(_row_score(grey, dark), _row_score(grey, light))


def _cue_grey(image: np.ndarray) -> np.ndarray:
    if isinstance(image, np.ndarray) and image.ndim == 2 and image.dtype == np.uint8 and image.size:
        grey = image
    else:
        grey = cv2.cvtColor(_as_rgb(image), cv2.COLOR_RGB2GRAY)
    height, width = grey.shape
    if width <= CUE_WIDTH:
        return grey
    return cv2.resize(grey, (CUE_WIDTH, max(1, round(height * CUE_WIDTH / width))), interpolation=cv2.INTER_AREA)


def _row_score(grey: np.ndarray, mask: np.ndarray) -> float:
    best = 0.0
    for row in _glyph_rows(_glyph_boxes(mask))[:CUE_MAX_ROWS]:
        count_term = min(1.0, (len(row) - 1) / 2)
        if count_term <= best:  # rows come longest first; the background term is at most 1
            break
        best = max(best, count_term * _plate_term(grey, row))
    return best


def _glyph_boxes(mask: np.ndarray) -> np.ndarray:
    """x, y, w, h of blobs shaped like glyphs: 4-40 px tall, not much wider than tall, not a thin speck."""
    _, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    _, _, w, h, area = stats[1:].T
    keep = (h >= CUE_MIN_GLYPH) & (h <= CUE_MAX_GLYPH) & (w <= 1.6 * h) & (area >= 0.12 * w * h)
    return stats[1:][keep][:CUE_MAX_BLOBS, :4].astype(np.float64)


def _glyph_rows(boxes: np.ndarray) -> list[np.ndarray]:
    """Chains of glyphs of similar height, side by side on one line, with gaps under a glyph height."""
    if len(boxes) < 2:
        return []
    boxes = boxes[np.argsort(boxes[:, 0], kind="stable")]
    left, right = _neighbour_pairs(boxes)
    x, y, w, h = boxes.T
    tall = np.maximum(h[left], h[right])
    gap = x[right] - (x + w)[left]
    linked = (
        (np.abs((y + h / 2)[left] - (y + h / 2)[right]) < 0.3 * tall)
        & (np.minimum(h[left], h[right]) > 0.6 * tall)
        & (gap >= -1)
        & (gap < 0.8 * tall)
    )
    left, right = left[linked], right[linked]
    if not len(left):
        return []
    nodes, pairs = np.unique(np.concatenate([left, right]), return_inverse=True)  # linked glyphs only
    roots = _union(pairs[: len(left)], pairs[len(left) :], len(nodes))
    _, label, size = np.unique(roots, return_inverse=True, return_counts=True)
    members = np.split(nodes[np.argsort(label, kind="stable")], np.cumsum(size)[:-1])
    return [boxes[members[r]] for r in np.argsort(-size, kind="stable")]


def _neighbour_pairs(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j), j right of i, whose left edges are close enough to be linked (boxes sorted by x).

    Only these pairs are tested, not all n x n: textured frames have hundreds of blobs.
    """
    x, w = boxes[:, 0], boxes[:, 2]
    first = np.searchsorted(x, x + w - 1, side="left")
    last = np.searchsorted(x, x + w + 0.8 * CUE_MAX_GLYPH, side="left")
    first = np.maximum(first, np.arange(len(x)) + 1)
    counts = np.maximum(last - first, 0)
    left = np.repeat(np.arange(len(x)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return left, np.repeat(first, counts) + offsets


def _union(left: np.ndarray, right: np.ndarray, count: int) -> np.ndarray:
    parent = list(range(count))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(left.tolist(), right.tolist(), strict=True):
        parent[find(i)] = find(j)
    return np.array([find(i) for i in range(count)])


def _plate_term(grey: np.ndarray, boxes: np.ndarray) -> float:
    """1 when the row's surroundings split into plain plate and ink far apart in grey level, else towards 0."""
    pad = 0.4 * float(boxes[:, 3].mean())
    x0, y0 = np.maximum(0, boxes[:, :2].min(axis=0) - pad).astype(int)
    x1, y1 = ((boxes[:, :2] + boxes[:, 2:]).max(axis=0) + pad).astype(int)
    patch = grey[y0:y1, x0:x1]
    threshold, _ = cv2.threshold(patch, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    low, high = patch[patch <= threshold], patch[patch > threshold]
    if not low.size or not high.size:
        return 0.0
    separation = float(high.mean()) - float(low.mean())
    plate = low if low.size > high.size else high
    plainness = float(plate.std()) / separation  # grain of the plate relative to the ink contrast
    return _ramp(0.25 - plainness, 0.1) * _ramp(separation - 40.0, 40.0)


def _ramp(value: float, width: float) -> float:
    return min(1.0, max(0.0, value / width))
