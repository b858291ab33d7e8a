"""Builds perception backends from configuration; a missing model is an error, never a silent fallback."""

from __future__ import annotations

from vidmem_ros.config import (
    AudioConfig,
    DetectorConfig,
    EmbedderConfig,
    FaceConfig,
    LexiconConfig,
    OcrConfig,
    SpeakerConfig,
    TaggerConfig,
    TextEmbedderConfig,
)
from vidmem_ros.perception.embedding import ImageEmbedder, TextEmbedder
from vidmem_ros.perception.types import (
    Detector,
    FaceEmbedder,
    OcrEngine,
    SpeakerEmbedder,
    SpeechRecognizer,
    Tagger,
    VoiceActivityDetector,
)


def build_detector(config: DetectorConfig) -> Detector | None:
    if config.backend == "none":
        return None
    if config.backend == "ssd_mobilenet_coco":
        from vidmem_ros.perception.ssd_mobilenet import SsdMobileNetDetector

        return SsdMobileNetDetector(config)
    if config.backend == "grounding_dino":
        from vidmem_ros.perception.grounding_dino import GroundingDinoDetector

        return GroundingDinoDetector.from_config(config)
    raise AssertionError(f"unhandled detector backend {config.backend}")  # config validation prevents this


def detector_vocabulary(config: DetectorConfig) -> tuple[str, ...]:
    """Labels the configured detector can report, known without loading its weights."""
    if config.backend == "ssd_mobilenet_coco":
        from vidmem_ros.perception.coco import COCO_LABELS

        return tuple(COCO_LABELS.values())
    if config.backend == "grounding_dino":
        from vidmem_ros.perception.grounding_dino import normalise_labels

        return normalise_labels(config.labels)
    return ()


def build_ocr(config: OcrConfig) -> OcrEngine | None:
    if config.backend == "none":
        return None
    if config.backend == "rapidocr":
        from vidmem_ros.perception.ocr import RapidOcrEngine

        return RapidOcrEngine(config)
    raise AssertionError(f"unhandled OCR backend {config.backend}")


def build_embedder(config: EmbedderConfig, tagger: TaggerConfig | None = None) -> ImageEmbedder | None:
    """``tagger`` locates the model of embedder.backend=tagger_features (default: the packaged one)."""
    if config.backend == "none":
        return None
    if config.backend == "color_layout":
        from vidmem_ros.perception.embedding import ColorLayoutEmbedder

        return ColorLayoutEmbedder()
    if config.backend in ("clip", "siglip"):
        return _clip_embedder(config)
    if config.backend == "tagger_features":
        from vidmem_ros.perception.tagger import TaggerFeatureEmbedder

        return TaggerFeatureEmbedder(tagger or TaggerConfig())
    raise AssertionError(f"unhandled embedder backend {config.backend}")


def _clip_embedder(config: EmbedderConfig) -> ImageEmbedder:
    from vidmem_ros.perception.hf_clip import ClipEmbedder

    encoder = None
    if config.engine_path:  # checked before minutes of loading weights
        from vidmem_ros.perception.tensorrt import TensorRtImageEncoder

        encoder = TensorRtImageEncoder(config)
    return ClipEmbedder.from_config(config, image_encoder=encoder)


def build_clip_text_embedder(config: EmbedderConfig, image_embedder: object | None = None) -> TextEmbedder | None:
    """The text side of a CLIP / SigLIP image embedder (one vector space); None for other image embedders.

    Pass the image embedder already built in this process to share its weights instead of loading them twice.
    """
    if config.backend not in ("clip", "siglip"):
        return None
    from vidmem_ros.perception.hf_clip import ClipEmbedder

    if isinstance(image_embedder, ClipEmbedder):
        return image_embedder
    embedder = _clip_embedder(config)
    assert isinstance(embedder, ClipEmbedder)
    return embedder


def build_vad(config: AudioConfig) -> VoiceActivityDetector | None:
    if config.vad == "none":
        return None
    if config.vad == "silero":
        from vidmem_ros.perception.speech import SileroVad

        return SileroVad(config)
    raise AssertionError(f"unhandled voice activity detector {config.vad}")


def build_asr(config: AudioConfig) -> SpeechRecognizer | None:
    if config.asr == "none":
        return None
    if config.asr == "faster_whisper":
        from vidmem_ros.perception.speech import WhisperRecognizer

        return WhisperRecognizer(config)
    raise AssertionError(f"unhandled speech recogniser {config.asr}")


def build_speaker_embedder(config: SpeakerConfig) -> SpeakerEmbedder | None:
    if config.backend == "none":
        return None
    from vidmem_ros.perception.speaker import ResemblyzerEmbedder, WavLmXVectorEmbedder

    if config.backend == "resemblyzer":
        return ResemblyzerEmbedder(config)
    if config.backend == "wavlm_xvector":
        return WavLmXVectorEmbedder(config)
    raise AssertionError(f"unhandled speaker embedder {config.backend}")


def build_face_embedder(config: FaceConfig) -> FaceEmbedder | None:
    if config.backend == "none":
        return None
    if config.backend == "dlib":
        from vidmem_ros.perception.face import DlibFaceEmbedder

        return DlibFaceEmbedder(config)
    raise AssertionError(f"unhandled face embedder {config.backend}")


def build_text_embedder(config: TextEmbedderConfig) -> TextEmbedder | None:
    if config.backend == "none":
        return None
    if config.backend == "minilm":
        from vidmem_ros.perception.text_embedding import MiniLmTextEmbedder

        return MiniLmTextEmbedder(config)
    raise AssertionError(f"unhandled text embedder backend {config.backend}")


def build_tagger(config: TaggerConfig, lexicon: LexiconConfig | None = None) -> Tagger | None:
    if config.backend == "none":
        return None
    if config.backend == "efficientnet_lite":
        from vidmem_ros.perception.tagger import EfficientNetLiteTagger

        return EfficientNetLiteTagger(config, lexicon=lexicon or LexiconConfig())
    raise AssertionError(f"unhandled tagger backend {config.backend}")
