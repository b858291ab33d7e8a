"""The gpu profile's backends on the CPU: tiny randomly initialised CLIP, SigLIP and Grounding DINO models
built here (no hub, no weights), and the VLM captioner against a scripted local chat-completions server."""

from __future__ import annotations

import base64
import importlib.util
import json
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest
import torch
import transformers
from chat_server import ChatServer, Delay
from chat_server import text as reply_text

from vidmem_ros.config import CaptionerConfig, DetectorConfig, EmbedderConfig, load_config, profile_path
from vidmem_ros.errors import ConfigError, InputError, ModelUnavailableError
from vidmem_ros.memory.captioner_backends import build_captioner
from vidmem_ros.memory.captions import ComposedCaptioner, EventFacts
from vidmem_ros.memory.records import Event, Moment
from vidmem_ros.memory.vlm_captioner import OpenAiVlmCaptioner, VlmCaptionError, parse_reply
from vidmem_ros.perception.embedding import ImageEmbedder, TextEmbedder
from vidmem_ros.perception.grounding_dino import GroundingDinoDetector, label_spans
from vidmem_ros.perception.hf_clip import ClipEmbedder, resolve_device
from vidmem_ros.perception.registry import (
    build_clip_text_embedder,
    build_detector,
    build_embedder,
    detector_vocabulary,
)
from vidmem_ros.perception.tensorrt import TensorRtImageEncoder, export_vision_onnx, trtexec_command
from vidmem_ros.perception.types import Detector

torch.set_num_threads(1)
transformers.logging.set_verbosity_error()  # the Pil-backend notices are expected here (no torchvision)

LABELS = ["cup", "person", "fire extinguisher"]
WORDS = ["a", "photo", "of", "cup", "person", "fire", "extinguisher", "dog", "cat", "on", "the", "table"]


def bert_vocab() -> dict[str, int]:
    """BERT's special ids where Grounding DINO hard-codes them ([CLS] 101, [SEP] 102, '.' 1012, '?' 1029)."""
    special = {0: "[PAD]", 100: "[UNK]", 101: "[CLS]", 102: "[SEP]", 103: "[MASK]", 1012: ".", 1029: "?"}
    vocab = {special.get(i, f"[unused{i}]"): i for i in range(1030)}
    for word in WORDS:
        vocab.setdefault(word, len(vocab))
    return vocab


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return transformers.BertTokenizer(vocab=bert_vocab())


def tiny_dual(family: str, tokenizer: Any) -> tuple[Any, Any]:
    torch.manual_seed(0)
    model: Any
    images: Any
    processor: Any
    vision = dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, image_size=32)
    text = dict(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        max_position_embeddings=16,
        bos_token_id=101,
        eos_token_id=102,
        pad_token_id=0,
    )
    if family == "clip":
        model = transformers.CLIPModel(
            transformers.CLIPConfig(text_config=text, vision_config={**vision, "patch_size": 8}, projection_dim=8)
        )
        crop = {"height": 32, "width": 32}
        images = transformers.CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size=crop)
        processor = transformers.CLIPProcessor(image_processor=images, tokenizer=tokenizer)
    else:
        model = transformers.SiglipModel(
            transformers.SiglipConfig(text_config=text, vision_config={**vision, "patch_size": 8})
        )
        images = transformers.SiglipImageProcessorPil(size={"height": 32, "width": 32})
        processor = transformers.SiglipProcessor(image_processor=images, tokenizer=tokenizer)
    return model, processor


@pytest.fixture(scope="module", params=["clip", "siglip"])
def embedder(request: pytest.FixtureRequest, tokenizer: Any) -> ClipEmbedder:
    model, processor = tiny_dual(request.param, tokenizer)
    return ClipEmbedder(model, processor, family=request.param, batch_size=2)


def tiny_grounding_dino(tokenizer: Any, max_text_len: int = 32) -> tuple[Any, Any]:
    torch.manual_seed(0)
    swin: dict[str, Any] = dict(window_size=7, embed_dim=8, depths=[1] * 4, num_heads=[1] * 4, out_indices=[2, 3, 4])
    text = dict(
        model_type="bert",
        vocab_size=len(tokenizer),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=8,
        max_position_embeddings=64,
    )
    config = transformers.GroundingDinoConfig(
        d_model=32,  # GroupNorm(32, d_model) inside
        encoder_layers=1,
        decoder_layers=2,  # one decoder layer breaks the tied box heads
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=16,
        decoder_ffn_dim=16,
        num_queries=30,
        num_feature_levels=4,
        encoder_n_points=2,
        decoder_n_points=2,
        backbone_config=transformers.SwinConfig(**swin),
        max_text_len=max_text_len,
        text_config=text,
    )
    model = transformers.GroundingDinoForObjectDetection(config).eval()
    images = transformers.GroundingDinoImageProcessorPil(size={"shortest_edge": 80, "longest_edge": 128})
    return model, transformers.GroundingDinoProcessor(image_processor=images, tokenizer=tokenizer)


@pytest.fixture(scope="module")
def dino_parts(tokenizer: Any) -> tuple[Any, Any]:
    return tiny_grounding_dino(tokenizer)


def frames(*shapes: tuple[int, int], seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in shapes]


# --- CLIP / SigLIP ----------------------------------------------------------------------------------------------


def test_embedder_serves_both_protocols_with_unit_vectors(embedder: ClipEmbedder) -> None:
    assert isinstance(embedder, ImageEmbedder) and isinstance(embedder, TextEmbedder)
    image = embedder.embed(frames((48, 64))[0])
    texts = embedder.embed_texts(["a cup", "a person on the table", "fire extinguisher"])
    assert image.shape == (embedder.dim,) and image.dtype == np.float32
    assert texts.shape == (3, embedder.dim) and texts.dtype == np.float32
    assert np.allclose(np.linalg.norm(texts, axis=1), 1.0, atol=1e-5)
    assert abs(float(np.linalg.norm(image)) - 1.0) < 1e-5
    assert embedder.embed_texts([]).shape == (0, embedder.dim)


def test_batches_equal_one_by_one(embedder: ClipEmbedder) -> None:
    shots = frames((48, 64), (32, 32), (100, 40), (48, 64), (60, 60))  # odd count, batch_size 2, mixed sizes
    batched = embedder.embed_batch(shots)
    single = np.stack([embedder.embed(f) for f in shots])
    assert batched.shape == (5, embedder.dim)
    assert np.allclose(batched, single, atol=1e-5)
    words = ["a cup", "a photo of a dog on the table", "cat"]
    assert np.allclose(
        embedder.embed_texts(words), np.concatenate([embedder.embed_texts([w]) for w in words]), atol=1e-5
    )


def test_preprocessing_is_the_model_processor(embedder: ClipEmbedder) -> None:
    """A uniform colour comes out resized to the model's input and normalised with its mean and std."""
    colour = np.array([200, 100, 50], np.uint8)
    pixels = embedder.pixel_values([np.broadcast_to(colour, (48, 80, 3)).copy()])
    images = embedder._processor.image_processor
    expected = (colour / 255.0 - np.array(images.image_mean)) / np.array(images.image_std)
    assert pixels.shape == (1, 3, 32, 32)
    assert np.allclose(pixels[0].mean(dim=(1, 2)).numpy(), expected, atol=0.02)


def test_bad_frames_are_input_errors(embedder: ClipEmbedder) -> None:
    with pytest.raises(InputError, match="bad_image"):
        embedder.embed(np.zeros((8, 8), np.uint8))
    with pytest.raises(InputError, match="bad_image"):
        embedder.embed(np.zeros((8, 8, 3), np.float32))


def test_device_and_dtype_are_validated(tokenizer: Any) -> None:
    with pytest.raises(ConfigError, match=r"embedder\.device='gpu'"):
        resolve_device("embedder", "gpu", "float32")
    with pytest.raises(ConfigError, match=r"detector\.dtype='float64'"):
        resolve_device("detector", "cpu", "float64")
    with pytest.raises(ConfigError, match=r"embedder\.dtype=float16 needs a CUDA device"):
        resolve_device("embedder", "cpu", "float16")
    assert resolve_device("embedder", "cpu", "bfloat16") == (torch.device("cpu"), torch.bfloat16)
    if not torch.cuda.is_available():
        with pytest.raises(ModelUnavailableError, match=r"embedder\.device=cuda:1 but torch sees no CUDA"):
            resolve_device("embedder", "cuda:1", "float16")
    model, processor = tiny_dual("clip", tokenizer)
    with pytest.raises(ConfigError, match=r"embedder\.dtype=float16"):
        ClipEmbedder(model, processor, family="clip", dtype="float16")
    with pytest.raises(ConfigError, match="CLIP family"):
        ClipEmbedder(model, processor, family="blip")
    with pytest.raises(ConfigError, match=r"embedder\.device"):
        load_config(overrides={"embedder.device": "gpu0"})
    with pytest.raises(ConfigError, match=r"embedder\.dtype"):
        load_config(overrides={"embedder.dtype": "float64"})


def test_loads_from_a_local_directory_and_checks_the_family(tmp_path: Path, tokenizer: Any) -> None:
    model, processor = tiny_dual("siglip", tokenizer)
    model.save_pretrained(tmp_path / "siglip")
    processor.save_pretrained(tmp_path / "siglip")
    config = EmbedderConfig(backend="siglip", model=str(tmp_path / "siglip"))
    loaded = build_embedder(config)
    assert isinstance(loaded, ClipEmbedder) and loaded.name == f"siglip:{tmp_path / 'siglip'}"
    direct = ClipEmbedder(model, processor, family="siglip")
    shot = frames((40, 50))[0]
    assert np.allclose(loaded.embed(shot), direct.embed(shot), atol=1e-5)
    assert build_clip_text_embedder(config, loaded) is loaded  # one model, one vector space
    assert build_clip_text_embedder(EmbedderConfig(backend="color_layout")) is None
    with pytest.raises(ConfigError, match=r"embedder\.backend=clip but embedder\.model=.* is a 'siglip' model"):
        build_embedder(EmbedderConfig(backend="clip", model=str(tmp_path / "siglip")))


def test_missing_models_name_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match=r"embedder\.model=/nonexistent/clip is not a directory"):
        build_embedder(EmbedderConfig(backend="clip", model="/nonexistent/clip"))
    with pytest.raises(ModelUnavailableError, match=r"embedder\.model is empty"):
        build_embedder(EmbedderConfig(backend="siglip"))
    with pytest.raises(ModelUnavailableError, match=r"detector\.model=\./no/such/dino is not a directory"):
        build_detector(DetectorConfig(backend="grounding_dino", model="./no/such/dino", labels=["cup"]))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelUnavailableError, match=r"embedder\.model=.*could not be loaded"):
        build_embedder(EmbedderConfig(backend="clip", model=str(empty)))


def test_tensorrt_engine_path_errors_name_the_setting(tmp_path: Path) -> None:
    missing = EmbedderConfig(backend="clip", model="/nonexistent/clip", engine_path=str(tmp_path / "vision.plan"))
    with pytest.raises(ModelUnavailableError, match=r"embedder\.engine_path=.*not a file.*export_onnx_trt\.py"):
        build_embedder(missing)  # the engine is checked before any weights load
    (tmp_path / "vision.plan").write_bytes(b"not an engine")
    with pytest.raises(ModelUnavailableError, match=r"embedder\.engine_path is set but embedder\.device=cpu"):
        TensorRtImageEncoder(missing)
    if not torch.cuda.is_available():
        on_cuda = missing.model_copy(update={"device": "cuda"})
        with pytest.raises(ModelUnavailableError, match=r"CUDA available: False"):
            TensorRtImageEncoder(on_cuda)


def test_gpu_profile_fails_clearly_without_a_gpu() -> None:
    config = load_config(profile_path("gpu"))
    assert config.embedder.backend == "clip" and config.detector.backend == "grounding_dino"
    assert "fire extinguisher" in detector_vocabulary(config.detector)
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU; the check is for machines without one")
    with pytest.raises(ModelUnavailableError, match=r"embedder\.device=cuda"):
        build_embedder(config.embedder)
    with pytest.raises(ModelUnavailableError, match=r"detector\.device=cuda"):
        build_detector(config.detector)


# --- Grounding DINO ---------------------------------------------------------------------------------------------


def test_prompt_and_label_spans(dino_parts: tuple[Any, Any], tokenizer: Any) -> None:
    model, processor = dino_parts
    detector = GroundingDinoDetector(model, processor, labels=[" Cup", "person", "Fire  Extinguisher", "cup"])
    assert isinstance(detector, Detector)
    assert detector.vocabulary == tuple(LABELS)
    assert detector.prompt == "cup . person . fire extinguisher ."
    ids = tokenizer(detector.prompt)["input_ids"]
    spans = label_spans(tokenizer, LABELS, 32)
    assert [tokenizer.decode([ids[i] for i in span]) for span in spans] == LABELS
    for bad in (["cup.holder"], [], ["  "]):
        with pytest.raises(ConfigError, match=r"detector\.labels"):
            GroundingDinoDetector(model, processor, labels=bad)
    with pytest.raises(ConfigError, match=r"detector\.labels: the prompt is \d+ tokens but the model reads 32"):
        GroundingDinoDetector(model, processor, labels=[f"cat {w}" for w in WORDS])
    with pytest.raises(ConfigError, match=r"detector\.box_threshold"):
        GroundingDinoDetector(model, processor, labels=LABELS, box_threshold=1.5)


def test_boxes_are_pixel_corners_inside_the_frame(dino_parts: tuple[Any, Any]) -> None:
    model, processor = dino_parts
    detector = GroundingDinoDetector(model, processor, labels=LABELS, box_threshold=0.0, text_threshold=0.0)
    frame = frames((48, 80))[0]
    found = detector.detect(frame)
    assert found, "thresholds of 0 keep every query"
    for det in found:
        x0, y0, x1, y1 = det.box
        assert 0 <= x0 < x1 <= 80 and 0 <= y0 < y1 <= 48
        assert det.label in LABELS and 0.0 <= det.score <= 1.0
    assert [d.score for d in found] == sorted((d.score for d in found), reverse=True)
    # the same boxes computed by hand from the model's normalised (cx, cy, w, h): scaled to this frame's pixels
    inputs = processor.image_processor(images=[frame], return_tensors="pt", input_data_format="channels_last")
    tokens = processor.tokenizer([detector.prompt], return_tensors="pt", return_token_type_ids=True)
    with torch.inference_mode():
        cx, cy, w, h = model(**inputs, **tokens).pred_boxes[0].T.numpy()
    corners = np.stack([(cx - w / 2) * 80, (cy - h / 2) * 48, (cx + w / 2) * 80, (cy + h / 2) * 48], axis=1)
    corners = np.clip(corners, 0, [80, 48, 80, 48])
    for det in found:
        assert np.abs(corners - np.array(det.box)).max(axis=1).min() < 1e-3


def test_batch_equals_one_by_one(dino_parts: tuple[Any, Any]) -> None:
    model, processor = dino_parts
    detector = GroundingDinoDetector(model, processor, labels=LABELS, box_threshold=0.2, text_threshold=0.1)
    shots = frames((48, 80), (64, 64), (48, 80), (48, 80), (70, 50), seed=3)
    batched = detector.detect_batch(shots)
    assert len(batched) == len(shots) and sum(map(len, batched)) > len(shots)
    for frame, got in zip(shots, batched, strict=True):
        alone = detector.detect(frame)
        assert [d.label for d in got] == [d.label for d in alone]
        assert np.allclose([d.box for d in got], [d.box for d in alone], atol=1e-3)
        assert np.allclose([d.score for d in got], [d.score for d in alone], atol=1e-5)


class ScriptedDino(torch.nn.Module):
    """Stands in for the model: fixed token logits per query, so the label mapping can be checked exactly."""

    def __init__(self, logits: torch.Tensor, boxes: torch.Tensor) -> None:
        super().__init__()
        self.config = SimpleNamespace(max_text_len=logits.shape[-1])
        self.logits, self.boxes = logits, boxes

    def forward(self, **inputs: torch.Tensor) -> SimpleNamespace:
        n = inputs["pixel_values"].shape[0]
        return SimpleNamespace(logits=self.logits.expand(n, -1, -1), pred_boxes=self.boxes.expand(n, -1, -1))


def test_labels_map_back_to_the_requested_phrases(dino_parts: tuple[Any, Any], tokenizer: Any) -> None:
    _, processor = dino_parts
    (cup,), (person,), (fire, extinguisher) = label_spans(tokenizer, LABELS, 32)
    dot = 2  # "cup . person ...": [CLS] cup . -> the first '.'
    logits = torch.full((1, 5, 32), -10.0)
    logits[0, 0, [fire, extinguisher]] = 5.0  # both words of the phrase
    logits[0, 1, extinguisher] = 5.0  # only its last word: still the whole requested label
    logits[0, 2, [cup, dot]] = 5.0  # the label plus punctuation
    logits[0, 3, [cup, person]] = torch.tensor([1.0, 4.0])  # spread over two labels: the stronger one wins
    logits[0, 4, dot] = 5.0  # punctuation only: a box, but no label reaches text_threshold
    boxes = torch.tensor([[[0.5, 0.5, 0.2, 0.4]] * 5])
    detector = GroundingDinoDetector(
        ScriptedDino(logits, boxes), processor, labels=LABELS, box_threshold=0.3, text_threshold=0.25
    )
    found = detector.detect(frames((100, 200))[0])
    assert sorted(d.label for d in found) == ["cup", "fire extinguisher", "fire extinguisher", "person"]
    assert all(d.box == pytest.approx((80.0, 30.0, 120.0, 70.0)) for d in found)
    assert detector_vocabulary(DetectorConfig(backend="grounding_dino", labels=["Cup", "fire extinguisher"])) == (
        "cup",
        "fire extinguisher",
    )


# --- VLM captioner ----------------------------------------------------------------------------------------------


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer(models=("tiny-vlm",))
    yield server
    server.close()


def replies(*items: Any) -> list[Any]:
    """The VLM's replies, in order: a dict is sent as its JSON, a str as it is, ``HANG`` as no reply at all."""
    return [Delay(10.0) if r is HANG else reply_text(r if isinstance(r, str) else json.dumps(r)) for r in items]


HANG = object()


VALID: dict[str, Any] = {
    "caption": "A person holds a red cup next to a table.",
    "change": "a person appeared",
    "relations": [{"kind": "enables", "confidence": 0.6, "evidence": "the cup was placed on the table before"}],
}


def jpeg(seed: int) -> bytes:
    ok, data = cv2.imencode(".jpg", frames((24, 32), seed=seed)[0])
    assert ok
    return data.tobytes()


def event_facts(count: int = 5) -> EventFacts:
    moments = [
        Moment(stamp=1000.0 + i, source="/camera", width=32, height=24, jpeg=jpeg(i), quality=float(i % 3), id=i + 1)
        for i in range(count)
    ]
    moments.append(Moment(stamp=1010.0, source="/camera", width=32, height=24, jpeg=None, quality=99.0, id=99))
    return EventFacts(1000.0, 1010.0, ["person", "cup"], ["EXIT"], ["hello robot"], moments)


def previous_event() -> Event:
    return Event(
        id=1, start=900.0, end=990.0, status="closed", reason="start", caption="An empty table.", labels=["table"]
    )


def captioner(url: str, tmp_path: Path, **settings: Any) -> OpenAiVlmCaptioner:
    key = tmp_path / "key"
    key.write_text("sk-secret-123\n")
    values = {"url": url, "model": "tiny-vlm", "api_key_file": str(key), "timeout_s": 5.0, "max_images": 3}
    return OpenAiVlmCaptioner(CaptionerConfig(backend="openai_vlm", **{**values, **settings}))


def test_valid_reply_with_keyframes_and_grounded_prompt(
    chat: ChatServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    chat.script = replies(VALID)
    facts = event_facts()
    with caplog.at_level(logging.DEBUG):
        caption = captioner(chat.url, tmp_path).caption_strict(facts, previous_event())
    assert caption.text == VALID["caption"] and caption.change == "a person appeared"
    assert [(r.kind, r.confidence) for r in caption.relations] == [("enables", 0.6)]
    (request,) = chat.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-secret-123"
    assert "sk-secret-123" not in caplog.text
    body = request["body"]
    assert body["model"] == "tiny-vlm" and body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    assert "Describe only what the images and the listed facts show" in system["content"]
    text, *images = user["content"]
    assert "person, cup" in text["text"] and '"EXIT"' in text["text"] and "An empty table." in text["text"]
    urls = [part["image_url"]["url"] for part in images]
    assert len(urls) == 3 and all(u.startswith("data:image/jpeg;base64,") for u in urls)
    sent = [base64.b64decode(u.split(",", 1)[1]) for u in urls]
    stored = {m.jpeg for m in facts.moments if m.jpeg}
    assert all(s in stored for s in sent)
    decoded = [cv2.imdecode(np.frombuffer(s, np.uint8), cv2.IMREAD_COLOR) for s in sent]
    assert all(d is not None and d.shape == (24, 32, 3) for d in decoded)


def test_malformed_reply_is_repaired_once(chat: ChatServer, tmp_path: Path) -> None:
    chat.script = replies('{"caption": "A person with a cup", "change": ', "```json\n" + json.dumps(VALID) + "\n```")
    caption = captioner(chat.url, tmp_path).caption_strict(event_facts(), None)
    assert caption.text == VALID["caption"]
    first, second = chat.requests
    repair = second["body"]["messages"]
    assert repair[:2] == first["body"]["messages"]
    assert repair[2] == {"role": "assistant", "content": '{"caption": "A person with a cup", "change": '}
    assert repair[3]["role"] == "user" and "Your reply is not valid" in repair[3]["content"]


def test_extra_keys_are_rejected_and_repaired(chat: ChatServer, tmp_path: Path) -> None:
    chat.script = replies({**VALID, "mood": "cheerful"}, VALID)
    caption = captioner(chat.url, tmp_path).caption_strict(event_facts(), None)
    assert caption.text == VALID["caption"]
    assert "mood" in chat.requests[1]["body"]["messages"][3]["content"]
    whole = {**VALID, "relations": [{**VALID["relations"][0], "confidence": 1}]}
    assert parse_reply(json.dumps(whole)).relations[0].confidence == 1.0  # a JSON integer is a number too
    for bad in (
        {**VALID, "relations": [{**VALID["relations"][0], "kind": "correlates"}]},
        {**VALID, "relations": [{**VALID["relations"][0], "confidence": 1.5}]},
        {**VALID, "relations": [{**VALID["relations"][0], "source": "x"}]},
        {"caption": "", "change": ""},
        {"caption": 3, "change": "x"},
    ):
        with pytest.raises(ValueError):
            parse_reply(json.dumps(bad))


def test_invalid_twice_fails_clearly_and_falls_back(
    chat: ChatServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    chat.script = replies("not json", {**VALID, "extra": 1})
    vlm = captioner(chat.url, tmp_path)
    with pytest.raises(VlmCaptionError, match=r"replied twice with an invalid caption.*extra"):
        vlm.caption_strict(event_facts(), None)
    chat.script = replies("not json", "still not json")
    with caplog.at_level(logging.WARNING):
        caption = vlm.caption(event_facts(), None)
    assert caption == ComposedCaptioner().caption(event_facts(), None)
    assert vlm.failures == 1 and "VLM caption failed" in caplog.text
    assert len(chat.bodies) == 4  # one repair each, never more


def test_server_down_or_silent_fails_within_the_timeout(chat: ChatServer, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    with pytest.raises(VlmCaptionError, match="cannot reach"):
        captioner(dead, tmp_path).caption_strict(event_facts(), None)
    with pytest.raises(ModelUnavailableError, match=r"captioner\.url=.* does not answer"):
        captioner(dead, tmp_path).check()
    chat.script = replies(HANG)
    started = time.monotonic()
    with pytest.raises(VlmCaptionError, match="timed out"):
        captioner(chat.url, tmp_path, timeout_s=0.5).caption_strict(event_facts(), None)
    assert time.monotonic() - started < 2.0


def test_captioner_settings_and_start_up(chat: ChatServer, tmp_path: Path) -> None:
    captioner(chat.url, tmp_path).check()  # the server lists the model
    assert isinstance(build_captioner(CaptionerConfig()), ComposedCaptioner)
    built = build_captioner(
        CaptionerConfig(backend="openai_vlm", url=chat.url, model="tiny-vlm", api_key_file="", max_images=0)
    )
    chat.script = replies(VALID)
    assert built.caption(event_facts(), None).text == VALID["caption"]
    (post,) = (r for r in chat.requests if r["body"] is not None)
    assert len(post["body"]["messages"][1]["content"]) == 1  # max_images 0: text only
    assert "Authorization" not in post["headers"]
    with pytest.raises(ModelUnavailableError, match=r"captioner\.api_key_file=.*missing-key"):
        OpenAiVlmCaptioner(CaptionerConfig(backend="openai_vlm", model="m", api_key_file=str(tmp_path / "missing-key")))
    with pytest.raises(ModelUnavailableError, match=r"captioner\.model is empty"):
        OpenAiVlmCaptioner(CaptionerConfig(backend="openai_vlm"))


# --- ONNX / TensorRT --------------------------------------------------------------------------------------------


def test_trtexec_flags() -> None:
    command = trtexec_command(Path("/e/vision.onnx"), Path("/e/vision.plan"), 224, 16)
    assert command == [
        "trtexec",
        "--onnx=/e/vision.onnx",
        "--saveEngine=/e/vision.plan",
        "--minShapes=pixel_values:1x3x224x224",
        "--optShapes=pixel_values:16x3x224x224",
        "--maxShapes=pixel_values:16x3x224x224",
        "--fp16",
    ]
    assert "--fp16" not in trtexec_command(Path("a"), Path("b"), 224, 4, fp16=False)


def test_onnx_export_of_the_vision_tower_matches_torch(tmp_path: Path, tokenizer: Any) -> None:
    pytest.importorskip("onnx", reason="torch.onnx.export needs the onnx package, which is not installed here")
    ort = pytest.importorskip("onnxruntime")
    model, _ = tiny_dual("clip", tokenizer)
    path = export_vision_onnx(model, tmp_path / "vision.onnx", image_size=32)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    pixels = torch.randn(3, 3, 32, 32)  # another batch size than the export's example: the axis is dynamic
    (got,) = session.run(None, {"pixel_values": pixels.numpy()})
    with torch.inference_mode():
        expected = model.get_image_features(pixel_values=pixels).pooler_output.numpy()
    assert got.shape == expected.shape and np.abs(got - expected).max() < 1e-4


def test_export_script_exports_then_calls_trtexec(tmp_path: Path, tokenizer: Any) -> None:
    pytest.importorskip("onnx", reason="torch.onnx.export needs the onnx package, which is not installed here")
    model, _ = tiny_dual("clip", tokenizer)
    model.save_pretrained(tmp_path / "clip")
    fake = tmp_path / "trtexec"  # records its arguments and writes the engine file, as trtexec would
    fake.write_text(
        f'#!/bin/sh\necho "$@" > {tmp_path}/args\nfor a; do case $a in --saveEngine=*) touch "${{a#*=}}";; esac; done\n'
    )
    fake.chmod(0o755)
    spec = importlib.util.spec_from_file_location(
        "export_onnx_trt", Path(__file__).parents[1] / "scripts/export_onnx_trt.py"
    )
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "engine"
    assert (
        script.main(
            ["--model", str(tmp_path / "clip"), "--out-dir", str(out), "--max-batch", "4", "--trtexec", str(fake)]
        )
        == 0
    )
    assert (out / "vision.onnx").is_file() and (out / "vision.plan").is_file()
    args = (tmp_path / "args").read_text().split()
    assert "--fp16" in args and "--maxShapes=pixel_values:4x3x32x32" in args
