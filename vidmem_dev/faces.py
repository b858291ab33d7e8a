"""Faces from photos that ship in packages, and a camera stream in which they are seen.

scikit-image's wheel holds one colour photo with a face (``astronaut``) and ``lfw_subset``: 100 face thumbnails
(25x25 grey) from Labeled Faces in the Wild, whose people it does not name.  A person here is one source photo:
the astronaut, and thumbnails that dlib's descriptor puts farther apart than its own different-person line (indices
below, chosen by that rule, the first in order).  So a stream tells apart photos seen again under camera changes
(scale, rotation, brightness, mirror, place in the frame), not one person's different photos.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

# lfw_subset faces whose dlib descriptors are mutually more than 0.10 apart (cosine of unit vectors) and 0.09 from
# the astronaut's: taken, in index order, as four different people.
LFW_PEOPLE = (0, 1, 5, 6)
PORTRAIT_PX = 112
BACKGROUNDS = ("coffee", "brick", "rocket", "chelsea")
FRAME_SIZE = (480, 320)


@lru_cache(maxsize=1)
def portraits() -> dict[str, np.ndarray]:
    """Person name -> an RGB head-and-shoulders photo about 112 px wide."""
    from skimage import data

    astronaut = data.astronaut()[60:200, 160:290]
    found = {"astronaut": cv2.resize(astronaut, (PORTRAIT_PX, PORTRAIT_PX * 140 // 130), interpolation=cv2.INTER_AREA)}
    faces = data.lfw_subset()
    for index in LFW_PEOPLE:
        grey = (np.clip(faces[index], 0.0, 1.0) * 255).astype(np.uint8)
        big = cv2.resize(grey, (PORTRAIT_PX, PORTRAIT_PX), interpolation=cv2.INTER_CUBIC)
        # An unsharp mask gives the 4.5x enlargement back some of the edges a camera's face has (face.min_sharpness).
        big = cv2.addWeighted(big, 2.0, cv2.GaussianBlur(big, (0, 0), 2.0), -1.0, 0)
        found[f"lfw{index}"] = cv2.cvtColor(big, cv2.COLOR_GRAY2RGB)
    return found


def background(name: str) -> np.ndarray:
    from skimage import data

    image = getattr(data, name)()
    image = np.stack([image] * 3, axis=-1) if image.ndim == 2 else image[..., :3]
    return cv2.resize(image, FRAME_SIZE, interpolation=cv2.INTER_AREA)


def seen(portrait: np.ndarray, place: np.ndarray, seed: int) -> np.ndarray:
    """``portrait`` in ``place`` as a moving camera might see it: scaled 0.9-1.3x, turned up to 8 degrees,
    0.8-1.2x as bright, mirrored half the time, anywhere in the frame."""
    rng = np.random.default_rng(seed)
    image = cv2.resize(portrait, None, fx=rng.uniform(0.9, 1.3), fy=rng.uniform(0.9, 1.3))
    if rng.random() < 0.5:
        image = np.ascontiguousarray(image[:, ::-1])
    turn = cv2.getRotationMatrix2D((image.shape[1] / 2, image.shape[0] / 2), rng.uniform(-8, 8), 1.0)
    image = cv2.warpAffine(image, turn, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REFLECT)
    image = np.clip(image * rng.uniform(0.8, 1.2), 0, 255).astype(np.uint8)
    frame = place.copy()
    y = int(rng.integers(10, frame.shape[0] - image.shape[0] - 10))
    x = int(rng.integers(10, frame.shape[1] - image.shape[1] - 10))
    frame[y : y + image.shape[0], x : x + image.shape[1]] = image
    return frame


@dataclass(frozen=True)
class Shot:
    stamp: float
    person: str  # "" where nobody is in view
    place: str
    frame: np.ndarray


def stream(visits: list[tuple[str, str, int]], period_s: float = 1.0, seed: int = 0) -> list[Shot]:
    """Frames of ``(person, place, frames)`` visits in turn ("" for nobody), ``period_s`` apart."""
    photos = portraits()
    shots: list[Shot] = []
    for number, (person, place, frames) in enumerate(visits):
        scene = background(place)
        for k in range(frames):
            stamp = len(shots) * period_s
            frame = seen(photos[person], scene, seed + 1000 * number + k) if person else scene
            shots.append(Shot(stamp, person, place, frame))
    return shots


# Five people: each seen at one place, the astronaut at two, and a stretch with nobody in view.
PATROL = [
    ("astronaut", "coffee", 6),
    ("lfw0", "brick", 6),
    ("", "chelsea", 4),
    ("lfw1", "coffee", 6),
    ("lfw5", "rocket", 6),
    ("astronaut", "chelsea", 6),
    ("lfw6", "coffee", 6),
    ("lfw0", "brick", 4),
]
