"""Builds perception backends from configuration; a missing model is an error, never a silent fallback."""

from __future__ import annotations

from vidmem_ros.config import DetectorConfig, EmbedderConfig
from vidmem_ros.perception.embedding import ImageEmbedder
from vidmem_ros.perception.types import Detector


def build_detector(config: DetectorConfig) -> Detector | None:
    if config.backend == "none":
        return None
    if config.backend == "ssd_mobilenet_coco":
        from vidmem_ros.perception.ssd_mobilenet import SsdMobileNetDetector

        return SsdMobileNetDetector(config)
    raise AssertionError(f"unhandled detector backend {config.backend}")  # config validation prevents this


def detector_vocabulary(config: DetectorConfig) -> tuple[str, ...]:
    """Labels the configured detector can report, known without loading its weights."""
    if config.backend == "ssd_mobilenet_coco":
        from vidmem_ros.perception.coco import COCO_LABELS

        return tuple(COCO_LABELS.values())
    return ()


def build_embedder(config: EmbedderConfig) -> ImageEmbedder | None:
    if config.backend == "none":
        return None
    if config.backend == "color_layout":
        from vidmem_ros.perception.embedding import ColorLayoutEmbedder

        return ColorLayoutEmbedder()
    raise AssertionError(f"unhandled embedder backend {config.backend}")
