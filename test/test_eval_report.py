"""The evaluation report on a memory built from real photos by the real detector, rendered by headless Chromium."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from planner_memory import T0, ingest_photos
from rendered_page import Dom, render

from vidmem_ros.command.main import main as vidmem
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.evaluation.answers import AnswerLine, AnswersMeta, Evidence, by_system, read_answers, write_answers
from vidmem_ros.evaluation.questions import load_questions
from vidmem_ros.evaluation.report import write_report
from vidmem_ros.evaluation.scoring import score_all
from vidmem_ros.imaging import jpeg_to_rgb
from vidmem_ros.memory.records import Transcript
from vidmem_ros.memory.store import SqliteStore

HOSTILE_SIGN = "<script>alert(1)</script>"
HOSTILE_SPEECH = "<img src=x onerror=alert(2)> meet at the dock"


@pytest.fixture
def memory(tmp_path: Path, detector, photos) -> tuple[Path, dict[str, int]]:  # type: ignore[no-untyped-def]
    """A store from five photos on a straight path; returns its path and the moment id of each photo's first frame."""
    config: VidmemConfig = load_config(
        overrides={"store.path": str(tmp_path / "memory.db"), "ocr.run_on": "every_frame"}
    )
    store = SqliteStore(config.store_path())
    pipeline, moments = ingest_photos(config, store, detector, photos, HOSTILE_SIGN)
    pipeline.engine.add_transcript(Transcript(T0 + 38.0, T0 + 40.0, HOSTILE_SPEECH, "visitor"))
    store.close()
    return config.store_path(), moments


def write_inputs(tmp_path: Path, moments: dict[str, int]) -> tuple[Path, list[Path]]:
    questions = tmp_path / "questions.jsonl"
    rows = [
        {"id": "cat", "ask_at": 45, "question": "Did you see a cat?", "type": "binary", "answer": True},
        {"id": "mug", "ask_at": 45, "question": "When did you first see a mug?", "type": "time", "answer": 10},
        {"id": "where", "ask_at": 45, "question": "Where was the cat?", "type": "position", "answer": [2.0, 0.5]},
        {"id": "sign", "ask_at": 45, "question": "What did the sign say?", "accept": [HOSTILE_SIGN]},
        {"id": "open", "ask_at": 45, "question": "What is <b>this</b>?"},
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n{broken\n")
    cat = Evidence(kind="frame", ref=f"moment/{moments['chelsea']}", time=20.0, text="cat 0.95", score=0.95)
    mug = Evidence(kind="frame", ref=f"moment/{moments['coffee']}", time=10.0, text="cup 0.9", score=0.9)
    vidmem_answers = [
        AnswerLine(id="cat", answer="Yes, I saw a cat.", confidence=0.95, latency_s=0.3, evidence=[cat], value=True),
        AnswerLine(id="mug", answer="10 s in", confidence=0.9, latency_s=0.2, evidence=[mug], time=10.0),
        AnswerLine(id="where", answer="by the door", confidence=0.8, position=(2.2, 0.4), evidence=[cat]),
        AnswerLine(id="sign", answer=f"It said {HOSTILE_SIGN}", confidence=0.7),
        AnswerLine(id="open", answer="no idea"),
    ]
    baseline = [
        AnswerLine(id="cat", answer="I have not seen a cat.", confidence=0.2),
        AnswerLine(id="mug", answer="", error="model <crashed>"),
    ]
    paths = [tmp_path / "vidmem.jsonl", tmp_path / "baseline.jsonl"]
    write_answers(paths[0], vidmem_answers, AnswersMeta(bag_start=T0, system="vidmem", bag="photos"))
    write_answers(paths[1], baseline, AnswersMeta(bag_start=T0, system="baseline_fixed30"))
    return questions, paths


def decode_image(uri: str) -> np.ndarray:
    assert uri.startswith("data:image/jpeg;base64,")
    return jpeg_to_rgb(base64.b64decode(uri.split(",", 1)[1], validate=True))


def test_report_renders_events_answers_and_escaped_text(tmp_path: Path, memory: tuple[Path, dict[str, int]]) -> None:
    store_path, moments = memory
    questions_path, answer_paths = write_inputs(tmp_path, moments)
    out = tmp_path / "report" / "report.html"
    code = vidmem(
        ["report", "--store", str(store_path), "--questions", str(questions_path), "--out", str(out)]
        + [arg for p in answer_paths for arg in ("--answers", str(p))]
        + ["--json", str(tmp_path / "s.json")]
    )
    assert code == 0
    raw = out.read_text()
    assert "http://" not in raw and "https://" not in raw  # self-contained: nothing to fetch
    dom = Dom(render(out, tmp_path / "chromium-profile"))
    text = "".join(dom.text)

    store = SqliteStore(store_path, readonly=True)
    events = store.events()
    store.close()
    assert events and all(any(a.get("id") == f"event-{e.id}" for _, a in dom.elements) for e in events)
    assert len(dom.with_class("event-marker")) == len(events) and dom.tags("polyline")

    keyframes = dom.with_class("kf")
    assert len(keyframes) == sum(len(e.keyframe_ids) for e in events)
    for img in keyframes + dom.with_class("ev"):
        thumb = decode_image(img["src"])
        assert 0 < thumb.shape[1] <= 160
    assert {img["title"] for img in dom.with_class("ev")} == {
        f"moment/{moments['chelsea']}",
        f"moment/{moments['coffee']}",
    }

    results = [m["data-result"] for m in dom.with_class("mark")]
    # vidmem: cat, mug, where, sign pass, open unscored; baseline: cat fails, mug failed, where/sign missing, open unscored
    assert sorted(results) == sorted(["pass"] * 4 + ["unscored"] * 2 + ["fail"] * 4)
    assert "error: model <crashed>" in text and "no answer" in text

    # Untrusted text is shown as text: the only script is the page's own, no img but the thumbnails.
    assert HOSTILE_SIGN in text and HOSTILE_SPEECH in text and "What is <b>this</b>?" in text
    assert len(dom.tags("script")) == 1 and "alert" not in dom.tags("script")[0].get("src", "")
    assert all(img["src"].startswith("data:image/jpeg;base64,") for img in dom.tags("img"))
    assert "questions.jsonl:6: not valid JSON" in text  # problems in the input are shown

    summary = json.loads((tmp_path / "s.json").read_text())["summary"]
    assert [s["system"] for s in summary["systems"]] == ["vidmem", "baseline_fixed30"]


def test_report_caps_thumbnails_and_says_so(tmp_path: Path, memory: tuple[Path, dict[str, int]]) -> None:
    store_path, moments = memory
    questions_path, answer_paths = write_inputs(tmp_path, moments)
    question_set = load_questions(questions_path)
    grouped, _ = by_system([read_answers(p) for p in answer_paths])
    out = tmp_path / "small.html"
    stats = write_report(
        out, store_path, question_set.questions, grouped, score_all(question_set.truth, grouped), T0, max_thumbnails=1
    )
    raw = out.read_text()
    assert stats.keyframe_images == 1 and stats.keyframes_left_out >= 1
    assert raw.count("class='kf'") == 1 and f"{stats.keyframes_left_out} keyframe image(s) left out" in raw
    assert stats.evidence_images == 1 and "evidence image(s) left out" in raw
