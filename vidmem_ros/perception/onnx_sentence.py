"""A sentence-transformers model run by onnxruntime: exported once into the cache, checked, then loaded without torch.

A question's short phrases are embedded one call at a time while it is answered; for MiniLM on two
cores torch spends about 9 ms a call where onnxruntime spends about 3. The transformer
is exported from the loaded model, its mean-pooled and normalised output is compared with
sentence-transformers' own on probe sentences, and only a copy that matches is kept: a model with
another pooling, or an exporter that fails, leaves the caller on torch.
"""

from __future__ import annotations

import hashlib
import json
import logging
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vidmem_ros.errors import ModelUnavailableError
from vidmem_ros.packaged_model import cache_dir, publish_dir

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

EXPORT_VERSION = 1
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "export.json"  # written last: a directory without it is incomplete
PROBES = (
    "a mug",
    "the spare keys are in the top drawer of the teak bureau",
    "Please keep this door closed at all times, it is alarmed after 8 pm.",
)
BATCH = 32
TOLERANCE = 1e-4  # largest difference allowed between the two runtimes' unit vectors


class OnnxExportError(RuntimeError):
    """The model could not be exported, or its export does not reproduce sentence-transformers."""


class OnnxSentenceEncoder:
    """Mean-pooled, unit-length sentence vectors from an exported transformer."""

    def __init__(self, directory: Path, num_threads: int) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        meta = json.loads((directory / META_FILE).read_text())
        self._inputs: list[str] = list(meta["inputs"])
        self._tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
        self._tokenizer.enable_truncation(int(meta["max_length"]))
        self._tokenizer.enable_padding(pad_id=int(meta["pad_id"]), pad_token=str(meta["pad_token"]))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = num_threads
        self._session = onnxruntime.InferenceSession(
            str(directory / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        """Texts of like length batched together, as sentence-transformers does, so little is padding."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.empty((len(texts), 0), np.float32)
        for first in range(0, len(order), BATCH):
            chunk = order[first : first + BATCH]
            pooled = self._encode_batch([texts[i] for i in chunk])
            if not vectors.shape[1]:
                vectors = np.empty((len(texts), pooled.shape[1]), np.float32)
            vectors[chunk] = pooled
        return vectors

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        mask = np.array([e.attention_mask for e in encodings], np.int64)
        columns = {
            "input_ids": np.array([e.ids for e in encodings], np.int64),
            "attention_mask": mask,
            "token_type_ids": np.array([e.type_ids for e in encodings], np.int64),
        }
        hidden = self._session.run(None, {name: columns[name] for name in self._inputs})[0]
        return _mean_unit(hidden, mask)


def load_or_export(
    source: str, local: bool, load: Callable[[], SentenceTransformer], num_threads: int
) -> OnnxSentenceEncoder:
    """The cached export of ``source``, made first from the model ``load()`` gives where there is none.

    Raises ``OnnxExportError`` when no export that matches sentence-transformers can be had.
    """
    target = export_dir(source, local)
    if not (target / META_FILE).is_file():
        model = load()
        try:
            publish_dir(target, lambda scratch: _export(model, scratch), _is_complete, _CACHE_HINT)
        except ModelUnavailableError as exc:  # the cache cannot be written
            raise OnnxExportError(str(exc)) from exc
    try:
        return OnnxSentenceEncoder(target, num_threads)
    except ImportError as exc:  # no onnxruntime here: the cache is sound, keep it
        raise OnnxExportError(f"onnxruntime cannot be imported ({exc})") from exc
    except Exception as exc:  # a damaged cache raises whatever its parser meets; export again next start
        (target / META_FILE).unlink(missing_ok=True)
        raise OnnxExportError(f"the cached export in {target} could not be loaded ({exc})") from exc


def export_dir(source: str, local: bool) -> Path:
    """One cache directory per model and version of its files, so a changed model is exported again."""
    digest = hashlib.sha256(f"{EXPORT_VERSION}\n{source}".encode())
    if local:
        for path in sorted(Path(source).rglob("*")):
            if path.is_file():
                stat = path.stat()
                digest.update(f"\n{path.relative_to(source)} {stat.st_size} {stat.st_mtime_ns}".encode())
    name = Path(source).name or "model"
    return cache_dir("text-embedder-onnx") / f"{name}-{digest.hexdigest()[:16]}"


def _export(model: SentenceTransformer, scratch: Path) -> None:
    import torch

    tokenizer = model.tokenizer
    if not getattr(tokenizer, "is_fast", False):
        raise OnnxExportError("the model's tokenizer has no fast (tokenizer.json) form")
    sample = tokenizer(list(PROBES[:1]), return_tensors="pt")
    inputs = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in sample]
    axes = {name: {0: "batch", 1: "tokens"} for name in [*inputs, "hidden"]}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # the exporter warns about every traced shape computation
        try:
            torch.onnx.export(
                _last_hidden(model[0].auto_model, inputs),
                tuple(sample[name] for name in inputs),
                str(scratch / MODEL_FILE),
                input_names=inputs,
                output_names=["hidden"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        except Exception as exc:  # the exporter raises many kinds of errors on models it cannot trace
            raise OnnxExportError(f"the transformer could not be exported ({type(exc).__name__}: {exc})") from exc
    tokenizer.backend_tokenizer.save(str(scratch / TOKENIZER_FILE))
    meta = {
        "version": EXPORT_VERSION,
        "inputs": inputs,
        "max_length": int(model.max_seq_length or 512),
        "pad_id": int(tokenizer.pad_token_id or 0),
        "pad_token": str(tokenizer.pad_token or "[PAD]"),
    }
    (scratch / META_FILE).write_text(json.dumps(meta))
    _check(model, scratch)


def _check(model: SentenceTransformer, scratch: Path) -> None:
    """Refuse an export whose vectors differ from sentence-transformers' (another pooling, a bad trace)."""
    expected = model.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    try:
        got = OnnxSentenceEncoder(scratch, num_threads=1).encode(list(PROBES))
    except Exception as exc:  # onnxruntime or tokenizers refusing the export: torch embeds instead
        raise OnnxExportError(f"the export could not be run ({type(exc).__name__}: {exc})") from exc
    error = float(np.abs(np.asarray(expected, np.float32) - got).max())
    if error > TOLERANCE:
        raise OnnxExportError(f"the export's vectors differ from sentence-transformers' by up to {error:.3g}")


def _is_complete(target: Path) -> bool:
    return (target / META_FILE).is_file() and (target / MODEL_FILE).is_file()


def _mean_unit(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def _last_hidden(transformer: Any, names: list[str]) -> Any:
    """The transformer's token states, its inputs taken by position as the exporter passes them."""
    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, *tensors: Any) -> Any:
            return self.transformer(**dict(zip(names, tensors, strict=True))).last_hidden_state

    return LastHidden().eval()


_CACHE_HINT = "text_embedder.runtime=torch needs no cache"
