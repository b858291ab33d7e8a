"""Real photos that ship inside scikit-image's wheel: the imagery of the sample bag, benchmarks and tests."""

from __future__ import annotations

import cv2
import numpy as np


def photo(name: str, size: tuple[int, int] | None = None) -> np.ndarray:
    """``skimage.data.<name>()`` as a contiguous RGB uint8 frame (the left image of stereo pairs, grey made RGB),
    resized to ``size`` (width, height) when given."""
    import skimage.data

    image = getattr(skimage.data, name)()
    if isinstance(image, tuple):  # stereo pairs
        image = image[0]
    image = np.asarray(image)
    if image.dtype != np.uint8:
        image = (np.clip(image.astype(np.float64), 0.0, 1.0) * 255).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    image = np.ascontiguousarray(image[..., :3])
    if size is not None:
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return image
