"""Grounding DINO through transformers: open-vocabulary detection of a configured list of labels.

The labels become one prompt ("cup . person . fire extinguisher .").  Boxes come
from the processor's post-processing, scaled to the pixels of the frame given.
Each box is then named by the configured label whose tokens it matches best
(the mean token probability over the label's span, as the original Grounding
DINO does with given phrases), so a reported label is always one that was
asked for, never a fragment like "extinguisher" or a merge like "cup person".
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from vidmem_ros.config import DetectorConfig
from vidmem_ros.errors import ConfigError
from vidmem_ros.perception.hf_clip import as_rgb, check_model_source, load_failure, resolve_device
from vidmem_ros.perception.types import Detection

log = logging.getLogger(__name__)

EXAMPLE_MODEL = "IDEA-Research/grounding-dino-tiny"


def normalise_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """Lower-case, single-spaced, unique labels; the model was trained on lower-case phrases split by ' . '."""
    clean: dict[str, None] = {}
    for label in labels:
        text = " ".join(str(label).lower().split())
        if not text or "." in text:
            raise ConfigError(f"detector.labels: {label!r} must be a non-empty phrase without '.'")
        clean.setdefault(text, None)
    if not clean:
        raise ConfigError("detector.labels is empty; grounding_dino needs the phrases to look for, e.g. [cup, person]")
    return tuple(clean)


def build_prompt(labels: Sequence[str]) -> str:
    return " . ".join(labels) + " ."


def label_spans(tokenizer: Any, labels: Sequence[str], max_tokens: int) -> list[list[int]]:
    """Token positions of each label in the tokenised prompt (from the fast tokenizer's character offsets)."""
    prompt = build_prompt(labels)
    encoded = tokenizer(prompt, return_offsets_mapping=True)
    offsets = encoded["offset_mapping"]
    spans = []
    begin = 0
    for label in labels:  # the prompt is build_prompt(labels): each label is followed by " . "
        end = begin + len(label)
        span = [i for i, (s, e) in enumerate(offsets) if e > s and s >= begin and e <= end]
        if not span:
            raise ConfigError(f"detector.labels: {label!r} gives no tokens with this model's tokenizer")
        if span[-1] >= max_tokens:
            raise ConfigError(
                f"detector.labels: the prompt is {len(offsets)} tokens but the model reads {max_tokens}; "
                f"labels from {label!r} on would be cut off, so list fewer labels"
            )
        spans.append(span)
        begin = end + 3
    return spans


def positive_map(spans: list[list[int]], width: int) -> torch.Tensor:
    """(labels, tokens) weights averaging the token probabilities over each label's span."""
    weights = torch.zeros(len(spans), width)
    for row, span in enumerate(spans):
        weights[row, span] = 1.0 / len(span)
    return weights


class GroundingDinoDetector:
    """Detector for the labels in ``detector.labels``; ``vocabulary`` is exactly those labels."""

    name = "grounding_dino"

    def __init__(
        self,
        model: Any,
        processor: Any,
        *,
        labels: Sequence[str],
        box_threshold: float = 0.35,
        text_threshold: float = 0.25,
        device: str = "cpu",
        batch_size: int = 4,
    ) -> None:
        for setting, value in (("box_threshold", box_threshold), ("text_threshold", text_threshold)):
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"detector.{setting}={value} must lie in 0..1")
        if batch_size < 1:
            raise ConfigError(f"grounding_dino batch_size={batch_size} must be at least 1")
        self._device, _ = resolve_device("detector", device, "float32")
        self._model = model.to(self._device).eval()
        self._processor = processor
        self._labels = normalise_labels(labels)
        self._box_threshold = box_threshold
        self._text_threshold = text_threshold
        self._batch_size = batch_size
        self.prompt = build_prompt(self._labels)
        max_tokens = int(model.config.max_text_len)
        spans = label_spans(processor.tokenizer, self._labels, max_tokens)
        self._positive_map = positive_map(spans, max_tokens)
        self._tokens = processor.tokenizer([self.prompt], return_tensors="pt", return_token_type_ids=True)

    @classmethod
    def from_config(cls, config: DetectorConfig) -> GroundingDinoDetector:
        check_model_source("detector.model", config.model, EXAMPLE_MODEL)
        normalise_labels(config.labels)  # a bad label list fails before minutes of loading
        resolve_device("detector", config.device, "float32")
        import transformers

        try:
            processor = transformers.AutoProcessor.from_pretrained(config.model)
            model = transformers.GroundingDinoForObjectDetection.from_pretrained(config.model)
        except (OSError, ValueError, ImportError) as exc:
            raise load_failure("detector.model", config.model, exc) from exc
        log.info("loaded grounding_dino %s on %s for %d labels", config.model, config.device, len(config.labels))
        return cls(
            model,
            processor,
            labels=config.labels,
            box_threshold=config.box_threshold,
            text_threshold=config.text_threshold,
            device=config.device,
        )

    @property
    def vocabulary(self) -> tuple[str, ...]:
        return self._labels

    def detect(self, rgb: np.ndarray) -> list[Detection]:
        return self.detect_batch([rgb])[0]

    def detect_batch(self, frames: Sequence[np.ndarray]) -> list[list[Detection]]:
        """Detections per frame; frames of one size run together, so no frame is padded by another."""
        images = [as_rgb(f) for f in frames]
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for index, image in enumerate(images):
            by_shape.setdefault(image.shape, []).append(index)
        results: list[list[Detection]] = [[] for _ in images]
        for indices in by_shape.values():
            for at in range(0, len(indices), self._batch_size):
                chunk = indices[at : at + self._batch_size]
                for index, found in zip(chunk, self._detect_same_size([images[i] for i in chunk]), strict=True):
                    results[index] = found
        return results

    @torch.inference_mode()
    def _detect_same_size(self, images: list[np.ndarray]) -> list[list[Detection]]:
        height, width = images[0].shape[:2]
        pixels = self._processor.image_processor(images=images, return_tensors="pt", input_data_format="channels_last")
        tokens = {k: v.expand(len(images), -1) for k, v in self._tokens.items()}
        inputs = {k: v.to(self._device) for k, v in {**pixels, **tokens}.items()}
        outputs = self._model(**inputs)
        processed = self._processor.post_process_grounded_object_detection(
            outputs,
            input_ids=inputs["input_ids"],
            threshold=self._box_threshold,
            text_threshold=self._text_threshold,
            target_sizes=[(height, width)] * len(images),
        )
        probs = outputs.logits.sigmoid().float().cpu()
        return [self._name_boxes(p, r, width, height) for p, r in zip(probs, processed, strict=True)]

    def _name_boxes(self, probs: torch.Tensor, processed: dict[str, Any], width: int, height: int) -> list[Detection]:
        """Give each box the requested label whose span it matches best; drop boxes no label reaches."""
        kept = probs.max(dim=-1).values > self._box_threshold  # the processor's own rule, to align its rows
        boxes = processed["boxes"].float().cpu().numpy()
        if int(kept.sum()) != len(boxes):
            raise RuntimeError("grounding_dino: post-processing kept a different set of boxes than expected")
        label_scores = probs[kept] @ self._positive_map.T  # (boxes, labels)
        found = []
        for box, scores in zip(boxes, label_scores, strict=True):
            best = int(scores.argmax())
            score = float(scores[best])
            x0, x1 = np.clip(box[[0, 2]], 0.0, float(width))
            y0, y1 = np.clip(box[[1, 3]], 0.0, float(height))
            if score < self._text_threshold or x1 <= x0 or y1 <= y0:
                continue
            found.append(Detection(self._labels[best], score, (float(x0), float(y0), float(x1), float(y1))))
        return sorted(found, key=lambda d: -d.score)
