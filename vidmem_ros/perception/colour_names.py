"""Basic colour terms of image regions: which share of a region's pixels a colour word names.

The eleven basic colour terms of English (black, white, grey, red, orange, yellow, green, blue, purple, pink,
brown) partition hue, saturation and value; each pixel gets one.  A question's colour word ("the green folder",
"the orange poster") is then checked against where the words were read in the frame.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

BASIC_COLOURS = ("black", "white", "grey", "red", "orange", "yellow", "green", "blue", "purple", "pink", "brown")
_SPELLINGS = {"gray": "grey", "violet": "purple"}
# OpenCV's hue runs 0-179; the upper bound of each hue band, red wrapping round at the top.
_HUES = ((10, "red"), (22, "orange"), (35, "yellow"), (85, "green"), (130, "blue"), (150, "purple"), (165, "pink"))
DARK_V = 45  # darker than this, any hue looks black
GREY_S = 45  # less saturated than this, a pixel is white, grey or black
WHITE_V = 170
BROWN_V = 140  # an orange or red darker than this is brown
PINK_S, PINK_V = 140, 150  # a red less saturated and lighter than these is pink


def colour_named(text: str) -> str | None:
    """The first basic colour term among the words of ``text`` ("the green folder" -> "green")."""
    for word in re.findall(r"[a-z]+", text.lower()):
        colour = _SPELLINGS.get(word, word)
        if colour in BASIC_COLOURS:
            return colour
    return None


def colour_shares(rgb: np.ndarray) -> dict[str, float]:
    """The share of an RGB region's pixels each basic colour term names (the shares sum to 1)."""
    if rgb.size == 0:
        return dict.fromkeys(BASIC_COLOURS, 0.0)
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb, dtype=np.uint8), cv2.COLOR_RGB2HSV).reshape(-1, 3).astype(np.int32)
    h, s, v = hsv[:, 0], hsv[:, 1], hsv[:, 2]
    code = {name: k for k, name in enumerate(BASIC_COLOURS)}  # one small integer per pixel, counted at the end
    names = np.full(h.shape, code["grey"], dtype=np.int8)
    chromatic = (v >= DARK_V) & (s >= GREY_S)
    names[v < DARK_V] = code["black"]
    names[(v >= DARK_V) & (s < GREY_S) & (v >= WHITE_V)] = code["white"]
    lower = 0
    for upper, name in _HUES:
        names[chromatic & (h >= lower) & (h < upper)] = code[name]
        lower = upper
    names[chromatic & (h >= lower)] = code["red"]
    warm = (names == code["orange"]) | (names == code["red"])
    names[chromatic & warm & (v < BROWN_V)] = code["brown"]
    names[chromatic & (names == code["red"]) & (s < PINK_S) & (v >= PINK_V)] = code["pink"]  # a pale, light red
    counts = np.bincount(names.astype(np.int64), minlength=len(BASIC_COLOURS))
    return {colour: float(counts[k]) / len(names) for k, colour in enumerate(BASIC_COLOURS)}
