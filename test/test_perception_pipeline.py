"""The whole cpu profile in the ingest pipeline: detector, tagger, text cue and OCR, captions, search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vidmem_dev.sample_images import photo as sample_photo
from vidmem_dev.synth import render_sign
from vidmem_ros.config import load_config
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.store import SqliteStore

T0 = 2_000_000.0


def patrol(tmp_path: Path, **overrides: object) -> IngestPipeline:
    config = load_config(overrides={"store.path": str(tmp_path / "m.db"), **overrides})
    pipeline = IngestPipeline.from_config(config, SqliteStore(config.store_path()))
    sign = render_sign(photo("brick"), "BOILER ROOM 4", "DejaVuSans-Bold.ttf", 44, 0.0, (0.5, 0.4)).image
    for i, frame in enumerate([photo("coffee"), photo("coffee"), sign, sign, photo("chelsea"), photo("chelsea")]):
        shifted = frame if i % 2 == 0 else frame[4:, 6:]  # a little camera motion, not a duplicate
        pipeline.ingest(FrameInput(T0 + 5 * i, "/cam", DecodedImage(shifted.copy())))
    pipeline.finish()
    return pipeline


def photo(name: str) -> np.ndarray:
    return sample_photo(name, (640, 480))  # the OCR tests' frame size


def test_the_cpu_profile_tags_reads_and_captions_what_it_saw(tmp_path: Path) -> None:
    pipeline = patrol(tmp_path)
    store = pipeline.store
    assert pipeline.ocr is not None and pipeline.tagger is not None
    assert 0 < pipeline.ocr_runs < 6, "OCR runs only where the text cue fires"
    boiler = store.search_text("boiler room")
    assert boiler and boiler[0].kind in ("text", "event") and T0 + 10 <= boiler[0].stamp <= T0 + 15
    coffee = store.moment(store.moments(T0, T0 + 1)[0].id)  # type: ignore[arg-type]
    assert coffee is not None and any(t.label == "espresso" for t in coffee.tags)
    espresso = store.search_text("espresso")
    assert espresso and espresso[0].stamp <= T0 + 5
    captions = " ".join(e.caption for e in store.events())
    assert "BOILERROOM4" in captions.upper().replace(" ", "") and "cat" in captions
    assert store.search_text("boiler", as_of=T0 + 9) == []


def test_keyframe_ocr_reads_only_keyframes_when_events_close(tmp_path: Path) -> None:
    pipeline = patrol(tmp_path, **{"ocr.run_on": "keyframes"})
    assert pipeline.ocr_runs == 0
    with pipeline.store.read() as db:
        read = db.execute("SELECT DISTINCT m.keyframe FROM texts t JOIN moments m ON m.id = t.moment_id").fetchall()
    assert read == [(1,)], "text is read from keyframes only"
    events = pipeline.store.events()
    assert any("BOILERROOM4" in "".join(e.texts).replace(" ", "").upper() for e in events)
    found = pipeline.store.search_text("boiler room")  # even where OCR ran the words together
    assert found and found[0].kind == "text" and "BOILER" in found[0].text.upper()


def test_a_missing_model_is_a_start_up_error_naming_the_setting(tmp_path: Path) -> None:
    from vidmem_ros.errors import ModelUnavailableError

    with pytest.raises(ModelUnavailableError, match=r"detector\.model_dir"):
        patrol(tmp_path, **{"detector.model_dir": str(tmp_path / "nowhere")})
