"""CLIP and SigLIP through transformers: image and text vectors in one space, so words find frames.

Robots load a model by hub id or local directory (``embedder.model``); tests
inject a small randomly initialised model and processor through the
constructor.  When ``embedder.engine_path`` names a TensorRT engine, images go
through it and only the text tower runs in torch.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from vidmem_ros.config import EmbedderConfig
from vidmem_ros.errors import ConfigError, InputError, ModelUnavailableError

log = logging.getLogger(__name__)

FAMILIES = ("clip", "siglip")
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
_DEVICE = re.compile(r"^(cpu|cuda(:\d+)?)$")

ImageEncoder = Callable[[torch.Tensor], torch.Tensor]  # pixel values -> projected image features


def resolve_device(section: str, device: str, dtype: str) -> tuple[torch.device, torch.dtype]:
    """Check a device/dtype pair before any weights move; ``section`` names the settings in errors."""
    if not _DEVICE.match(device):
        raise ConfigError(f"{section}.device={device!r} is not one of cpu, cuda, cuda:N")
    if dtype not in DTYPES:
        raise ConfigError(f"{section}.dtype={dtype!r} is not one of {', '.join(DTYPES)}")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ModelUnavailableError(
                f"{section}.device={device} but torch sees no CUDA device; install a CUDA build of torch "
                f"on a GPU machine, or set {section}.device: cpu and {section}.dtype: float32"
            )
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise ModelUnavailableError(
                f"{section}.device={device} but only {torch.cuda.device_count()} CUDA device(s) exist; "
                f"set {section}.device to cuda:0..cuda:{torch.cuda.device_count() - 1}"
            )
    elif dtype == "float16":  # many CPU kernels lack float16, and the rest are slower than float32
        raise ConfigError(f"{section}.dtype=float16 needs a CUDA device; on cpu use float32 (or bfloat16)")
    return torch.device(device), DTYPES[dtype]


def check_model_source(setting: str, source: str, example: str) -> None:
    """Fail early and clearly on an empty setting or a local path that does not exist."""
    if not source:
        raise ModelUnavailableError(f"{setting} is empty; set it to a hub id such as {example} or a local directory")
    looks_local = source.startswith(("/", ".", "~")) or source.count("/") > 1
    if looks_local and not Path(source).expanduser().is_dir():
        raise ModelUnavailableError(
            f"{setting}={source} is not a directory; download the model on a connected machine "
            f"(huggingface-cli download {example} --local-dir DIR), copy DIR to the robot and set {setting} to it"
        )


def load_failure(setting: str, source: str, exc: Exception) -> ModelUnavailableError:
    return ModelUnavailableError(
        f"{setting}={source} could not be loaded ({type(exc).__name__}: {exc}); offline, point {setting} at a "
        "local directory holding config.json, the weights and the processor files, or set HF_HOME to a "
        "cache that holds the model"
    )


def as_rgb(rgb: np.ndarray) -> np.ndarray:
    if not isinstance(rgb, np.ndarray) or rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        detail = f"shape {getattr(rgb, 'shape', None)}, dtype {getattr(rgb, 'dtype', None)}"
        raise InputError("bad_image", f"expected an HxWx3 uint8 RGB array, got {detail}")
    if rgb.shape[0] < 2 or rgb.shape[1] < 2:
        raise InputError("bad_size", f"image of {rgb.shape[1]}x{rgb.shape[0]} pixels is too small to embed")
    return np.ascontiguousarray(rgb)


def pooled(output: Any) -> torch.Tensor:
    """transformers 5 returns a model output whose pooler_output is projected; older versions a tensor."""
    return output if isinstance(output, torch.Tensor) else output.pooler_output


def unit_rows(features: torch.Tensor) -> np.ndarray:
    vectors = features.float().cpu().numpy()
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


class ClipEmbedder:
    """ImageEmbedder and TextEmbedder of a CLIP or SigLIP model; one instance serves both roles."""

    def __init__(
        self,
        model: Any,
        processor: Any,
        *,
        family: str,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 8,
        name: str | None = None,
        image_encoder: ImageEncoder | None = None,
    ) -> None:
        if family not in FAMILIES:
            raise ConfigError(f"embedder.backend={family!r} is not a CLIP family; choose one of {', '.join(FAMILIES)}")
        if batch_size < 1:
            raise ConfigError(f"embedder.batch_size={batch_size} must be at least 1")
        self.family = family
        self._device, self._dtype = resolve_device("embedder", device, dtype)
        self._model = model.to(device=self._device, dtype=self._dtype).eval()
        self._processor = processor
        self._batch_size = batch_size
        self._image_encoder = image_encoder
        self._max_text = int(model.config.text_config.max_position_embeddings)
        self.name = name or f"{family}:{getattr(model.config, '_name_or_path', '') or 'custom'}"
        self.dim = self.embed(np.zeros((32, 32, 3), np.uint8)).shape[0]  # warm-up; also proves the pipeline runs
        text_dim = self.embed_texts(["a photo"]).shape[1]
        if text_dim != self.dim:
            raise ModelUnavailableError(
                f"{self.name} gives {self.dim}-d image and {text_dim}-d text vectors; embedder.model must be a "
                "dual-encoder checkpoint with a shared projection (CLIPModel or SiglipModel)"
            )

    @classmethod
    def from_config(cls, config: EmbedderConfig, image_encoder: ImageEncoder | None = None) -> ClipEmbedder:
        """Load by hub id or local directory; every failure names the setting to change."""
        family = config.backend
        example = "openai/clip-vit-base-patch32" if family == "clip" else "google/siglip-base-patch16-224"
        check_model_source("embedder.model", config.model, example)
        device, dtype = resolve_device("embedder", config.device, config.dtype)
        source = str(Path(config.model).expanduser()) if Path(config.model).expanduser().is_dir() else config.model
        import transformers

        try:
            model_type = transformers.AutoConfig.from_pretrained(source).model_type
        except (OSError, ValueError) as exc:
            raise load_failure("embedder.model", config.model, exc) from exc
        if model_type != family:
            raise ConfigError(
                f"embedder.backend={family} but embedder.model={config.model} is a {model_type!r} model; "
                f"set embedder.backend to match or pick a {family} checkpoint"
            )
        model_class = transformers.CLIPModel if family == "clip" else transformers.SiglipModel
        try:
            processor = transformers.AutoProcessor.from_pretrained(source)
            model = model_class.from_pretrained(source, dtype=dtype)
        except (OSError, ValueError, ImportError) as exc:
            raise load_failure("embedder.model", config.model, exc) from exc
        log.info("loaded %s %s on %s (%s)", family, config.model, device, config.dtype)
        return cls(
            model,
            processor,
            family=family,
            device=config.device,
            dtype=config.dtype,
            batch_size=config.batch_size,
            name=f"{family}:{config.model}",
            image_encoder=image_encoder,
        )

    def embed(self, rgb: np.ndarray) -> np.ndarray:
        return self.embed_batch([rgb])[0]

    def embed_batch(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """One L2-normalised float32 row per frame, run ``batch_size`` frames at a time."""
        images = [as_rgb(f) for f in frames]
        if not images:
            return np.zeros((0, getattr(self, "dim", 0)), np.float32)
        rows = [self._embed_images(images[i : i + self._batch_size]) for i in range(0, len(images), self._batch_size)]
        return np.concatenate(rows)

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        rows = [self._embed_texts(texts[i : i + self._batch_size]) for i in range(0, len(texts), self._batch_size)]
        return np.concatenate(rows)

    def pixel_values(self, images: list[np.ndarray]) -> torch.Tensor:
        """The model's own preprocessing (resize, crop, rescale, normalise): what it was trained on."""
        batch = self._processor.image_processor(images=images, return_tensors="pt", input_data_format="channels_last")
        return batch["pixel_values"]

    @torch.inference_mode()
    def _embed_images(self, images: list[np.ndarray]) -> np.ndarray:
        pixels = self.pixel_values(images)
        if self._image_encoder is not None:
            return unit_rows(self._image_encoder(pixels))
        pixels = pixels.to(device=self._device, dtype=self._dtype)
        return unit_rows(pooled(self._model.get_image_features(pixel_values=pixels)))

    @torch.inference_mode()
    def _embed_texts(self, texts: list[str]) -> np.ndarray:
        if self.family == "siglip":
            # SigLIP was trained on texts padded to full length, without an attention mask
            tokens = self._processor.tokenizer(
                texts, padding="max_length", truncation=True, max_length=self._max_text, return_tensors="pt"
            )
            inputs = {"input_ids": tokens["input_ids"]}
        else:
            tokens = self._processor.tokenizer(
                texts, padding=True, truncation=True, max_length=self._max_text, return_tensors="pt"
            )
            inputs = {"input_ids": tokens["input_ids"], "attention_mask": tokens["attention_mask"]}
        inputs = {k: v.to(self._device) for k, v in inputs.items()}
        return unit_rows(pooled(self._model.get_text_features(**inputs)))
