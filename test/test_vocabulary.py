"""Open-vocabulary requests mapped onto closed label sets with the packaged MiniLM text embedder."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # two shared cores: keep library thread pools small

import pytest
import torch

from vidmem_ros.config import LexiconConfig, TextEmbedderConfig
from vidmem_ros.perception import wordnet
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.imagenet import class_names, class_terms, read_labels
from vidmem_ros.perception.registry import build_text_embedder
from vidmem_ros.perception.ssd_mobilenet import packaged_model_dir
from vidmem_ros.perception.tagger import LABELS_FILE
from vidmem_ros.perception.vocabulary import DEFAULT_THRESHOLD, LabelMapper, label_key

WORDNET_DIR = LexiconConfig().wordnet_dir

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def text_embedder() -> TextEmbedder:
    built = build_text_embedder(TextEmbedderConfig())
    assert built is not None
    return built


@pytest.fixture(scope="module")
def coco(text_embedder: TextEmbedder) -> LabelMapper:
    return LabelMapper(text_embedder, COCO_LABELS.values())


# Similarities measured with the default template: mug 0.81, sofa 0.90, motorbike 0.86, kitty 0.87,
# automobile 0.94, laptop computer 0.95, "my red mug" 0.74.
@pytest.mark.parametrize(
    ("request_", "label"),
    [
        ("mug", "cup"),
        ("sofa", "couch"),
        ("motorbike", "motorcycle"),
        ("kitty", "cat"),
        ("automobile", "car"),
        ("laptop computer", "laptop"),
        ("giraffe", "giraffe"),
        ("Giraffe ", "giraffe"),
        ("My red Mug", "cup"),
        ("cars", "car"),
    ],
)
def test_synonyms_map_onto_coco_labels(coco: LabelMapper, request_: str, label: str) -> None:
    result = coco.map([request_])
    assert result.mapped == {request_: [label]} and result.uncovered == []
    assert result.similarity[request_] >= DEFAULT_THRESHOLD


# Closest COCO labels measured: fire hydrant 0.66, knife 0.55, keyboard 0.52.
@pytest.mark.parametrize("request_", ["screwdriver", "fire extinguisher", "toolbox"])
def test_objects_coco_lacks_are_uncovered(coco: LabelMapper, request_: str) -> None:
    result = coco.map([request_])
    assert result.mapped == {} and result.uncovered == [request_]
    assert result.similarity[request_] < DEFAULT_THRESHOLD - 0.05  # a clear margin, not a coin toss


def test_a_broad_word_maps_to_every_close_label(coco: LabelMapper) -> None:
    result = coco.map(["bag", "automobile"])
    assert result.mapped["bag"] == ["handbag", "backpack"]  # 0.82 and 0.78
    assert result.mapped["automobile"] == ["car"]  # truck is 0.76: too far below car's 0.94


def test_one_call_handles_mixed_duplicate_and_empty_requests(coco: LabelMapper) -> None:
    result = coco.map(["sofa", "toolbox", "sofa", "", "   ", "person"])
    assert result.mapped == {"sofa": ["couch"], "person": ["person"]}
    assert result.uncovered == ["toolbox", "", "   "]
    assert coco.map([]).mapped == {} and coco.map([]).uncovered == []


def test_an_empty_vocabulary_covers_nothing(text_embedder: TextEmbedder) -> None:
    result = LabelMapper(text_embedder, []).map(["cat", "mug"])
    assert result.mapped == {} and result.uncovered == ["cat", "mug"]


def test_aliases_reach_fine_grained_imagenet_classes(text_embedder: TextEmbedder) -> None:
    """The aliases are WordNet's synonyms and broader words of each class: a person's "cat" or "furniture"."""
    model_dir = packaged_model_dir()
    assert model_dir is not None
    classes = read_labels(model_dir / LABELS_FILE)
    chosen = [*range(151, 156), *range(281, 286), 436, 504, 665, 670, 784, 817, 831, 967, 968]
    names, terms = class_names(classes), class_terms(classes, wordnet.load(WORDNET_DIR))
    mapper = LabelMapper(text_embedder, [names[i] for i in chosen], aliases={names[i]: terms[i] for i in chosen})
    asked = ["feline", "kitty", "sofa", "motorbike", "automobile", "java", "giraffe", "furniture", "mammal", "canine"]
    result = mapper.map(asked)
    cats = ["tabby", "tiger cat", "Persian cat", "Siamese cat", "Egyptian cat"]
    dogs = [names[i] for i in range(151, 156)]
    assert result.mapped["feline"] == cats and result.mapped["kitty"] == cats
    assert result.mapped["sofa"] == ["studio couch"] and result.mapped["furniture"] == ["studio couch"]
    assert result.mapped["motorbike"] == ["moped"]  # a motor scooter is no motorbike in WordNet
    assert result.mapped["automobile"] == ["beach wagon", "sports car"]  # "car", not the broader "vehicle"
    assert result.mapped["java"] == ["espresso"] and result.uncovered == ["giraffe"]
    assert result.mapped["canine"] == dogs and sorted(result.mapped["mammal"]) == sorted(dogs + cats)


def test_without_wordnet_classes_keep_their_own_synonyms_only() -> None:
    model_dir = packaged_model_dir()
    assert model_dir is not None
    classes = read_labels(model_dir / LABELS_FILE)
    bare, widened = class_terms(classes), class_terms(classes, wordnet.load(WORDNET_DIR))
    assert all(set(b) <= set(w) for b, w in zip(bare, widened, strict=True))
    assert "feline" not in bare[281] and "feline" in widened[281]  # tabby
    assert wordnet.load("/no/such/dir") is None


def test_label_key_drops_case_spacing_and_leading_determiners() -> None:
    assert label_key("  My  red Mug ") == "red mug"
    assert label_key("the") == "the" and label_key("") == ""
    assert label_key("a cup of tea") == "cup of tea"
