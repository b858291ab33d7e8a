"""The online evaluator on real bags with the real models: nothing is faked.

A small patrol is written with ``write_bag``: a corridor (brick, nothing to see), then a living room
with a cat and a "WET FLOOR" sign.  Questions asked before the cat and the sign appear must be answered from
the past only, though both are in the bag later.  Ground truth comes from the scenario's data (``timeline``,
``sign_sightings``), never from the system's answers.  Bad input (a broken questions file, a bag without the
camera topic, a camera topic of the wrong type, a truncated MCAP) is reported with a message naming the
line or topic, and whatever can still be evaluated is.
"""

from __future__ import annotations

import io
import json
import math
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer

from vidmem_dev.sample_bag import (
    START_STAMP,
    Camera,
    Room,
    Sign,
    duration,
    sign_sightings,
    timeline,
    typestore,
    write_bag,
)
from vidmem_ros.command.main import main
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.evaluation.answers import AnswerFile, AnswerLine, read_answers
from vidmem_ros.evaluation.command import run_eval
from vidmem_ros.evaluation.evaluator import EvalRun, evaluate
from vidmem_ros.evaluation.questions import GroundTruth, QuestionSet, parse_questions
from vidmem_ros.evaluation.scoring import contains_phrase, parse_yes_no, score_answer
from vidmem_ros.ingest.bag import BagIngest
from vidmem_ros.ingest.bag_reader import BagStream, BagTopics
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.records import Event
from vidmem_ros.memory.store import SqliteStore

SIGN = Sign("WET FLOOR", 170, 400, size=44, colours=1)
SCENARIO: tuple[Room, ...] = (
    Room("corridor", "brick", 18.0, (0.0, 0.0), (6.0, 0.0), ()),
    Room("living room", "chelsea", 12.0, (7.0, 0.0), (10.0, 3.0), ("cat",), signs=(SIGN,)),
)
VISITS = timeline(SCENARIO)
END = duration(SCENARIO)
EARLY = 10.0  # before the cat and the sign
MID = VISITS[1].start + 6.0  # in the living room, with six more seconds of cat still to come
TIME_TOLERANCE = 5.0
SYSTEMS = ("vidmem", "uniform", "fixed30")
OTHER_CAMERA = "/front/image_raw/compressed"
CAMERA_HZ = 2.0


# -- ground truth from the scenario ---------------------------------------------------------


def seen(label: str, at: float) -> bool:
    return any(v.start < at for v in VISITS if label in v.room.objects)


def read(text: str, at: float) -> bool:
    return any(s.start < at for s in sign_sightings(SCENARIO) if s.text == text)


def first_seen(label: str) -> float:
    return min(v.start for v in VISITS if label in v.room.objects)


def last_seen(label: str, at: float) -> float:
    return max(min(v.end, at) for v in VISITS if label in v.room.objects and v.start < at)


def _questions() -> list[dict[str, Any]]:
    sign_question = f"Did you see a sign that said '{SIGN.text}'?"
    return [
        {"id": "cat-early", "ask_at": EARLY, "question": "Did you see a cat?", "answer": seen("cat", EARLY)},
        {"id": "sign-early", "ask_at": EARLY, "question": sign_question, "answer": read(SIGN.text, EARLY)},
        {"id": "read-early", "ask_at": EARLY, "question": "What did you read?"},  # asked, not scored
        {
            "id": "cat-last-mid",
            "ask_at": MID,
            "question": "When did you last see the cat?",
            "type": "time",
            "answer": last_seen("cat", MID),
            "tolerance": TIME_TOLERANCE,
        },
        {"id": "cat-end", "ask_at": END, "question": "Did you see a cat?", "answer": seen("cat", END)},
        {"id": "sign-end", "ask_at": END, "question": sign_question, "answer": read(SIGN.text, END)},
        {
            "id": "cat-first-end",
            "ask_at": END,
            "question": "When did you first see the cat?",
            "type": "time",
            "answer": first_seen("cat"),
            "tolerance": TIME_TOLERANCE,
        },
    ]


QUESTIONS = _questions()
ASK_AT = {q["id"]: float(q["ask_at"]) for q in QUESTIONS}


def _config(tmp: Path) -> VidmemConfig:
    return load_config(overrides={"store.path": str(tmp / "unused.db")})


def _question_set(questions: Iterable[dict[str, Any]]) -> QuestionSet:
    parsed = parse_questions([json.dumps(q) for q in questions], "test")
    assert not parsed.problems
    return parsed


def _by_system(answers: AnswerFile) -> dict[str, dict[str, AnswerLine]]:
    grouped: dict[str, dict[str, AnswerLine]] = {}
    for line in answers.answers:
        grouped.setdefault(line.system, {})[line.id] = line
    return grouped


def _assert_nothing_after(answer: AnswerLine, ask_at: float) -> None:
    """The online guarantee: neither the answer's moment nor any evidence lies after the question's time."""
    late = [e for e in answer.evidence if e.time is not None and e.time > ask_at + 1e-6]
    assert not late, f"{answer.system}/{answer.id} asked at {ask_at} s cites later evidence: {late}"
    assert answer.time is None or answer.time <= ask_at + 1e-6, f"{answer.system}/{answer.id}: time {answer.time}"


# -- bags ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bag(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert VISITS[0].end > EARLY  # asked before the camera even swings towards the living room
    assert VISITS[1].start < MID < VISITS[1].end
    assert read(SIGN.text, END) and not read(SIGN.text, EARLY)
    return write_bag(tmp_path_factory.mktemp("bags") / "cat_late", camera_hz=CAMERA_HZ, scenario=SCENARIO)


Message = tuple[str, str, float, Any]  # topic, message type, seconds from the start, message


def _write_bag(path: Path, messages: Iterable[Message]) -> Path:
    """A rosbag2 (MCAP) with exactly these messages."""
    ts = typestore()
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        connections: dict[str, Any] = {}
        for topic, msgtype, t, msg in sorted(messages, key=lambda m: m[2]):
            if topic not in connections:
                connections[topic] = writer.add_connection(topic, msgtype, typestore=ts)
            writer.write(connections[topic], round((START_STAMP + t) * 1e9), ts.serialize_cdr(msg, msgtype))
    return path


def _header(t: float) -> Any:
    ts = typestore()
    seconds = START_STAMP + t
    stamp = ts.types["builtin_interfaces/msg/Time"](sec=int(seconds), nanosec=round((seconds - int(seconds)) * 1e9))
    return ts.types["std_msgs/msg/Header"](stamp=stamp, frame_id="camera")


def _pose(t: float) -> Message:
    ts = typestore()
    geometry = ts.types
    pose = geometry["geometry_msgs/msg/Pose"](
        position=geometry["geometry_msgs/msg/Point"](x=0.1 * t, y=0.0, z=0.0),
        orientation=geometry["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0),
    )
    msgtype = "geometry_msgs/msg/PoseStamped"
    return "/odom", msgtype, t, ts.types[msgtype](header=_header(t), pose=pose)


def _jpeg(topic: str, t: float, rgb: np.ndarray) -> Message:
    ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    assert ok
    msgtype = "sensor_msgs/msg/CompressedImage"
    msg = typestore().types[msgtype](header=_header(t), format="rgb8; jpeg compressed bgr8", data=jpeg.reshape(-1))
    return topic, msgtype, t, msg


def _raw(topic: str, t: float, rgb: np.ndarray) -> Message:
    h, w = rgb.shape[:2]
    msgtype = "sensor_msgs/msg/Image"
    msg = typestore().types[msgtype](
        header=_header(t),
        height=h,
        width=w,
        encoding="rgb8",
        is_bigendian=0,
        step=w * 3,
        data=np.ascontiguousarray(rgb).reshape(-1),
    )
    return topic, msgtype, t, msg


def _string(topic: str, t: float) -> Message:
    msgtype = "std_msgs/msg/String"
    return topic, msgtype, t, typestore().types[msgtype](data=f"not an image {t:.1f}")


CAT_ROOM: tuple[Room, ...] = (Room("living room", "chelsea", 6.0, (0.0, 0.0), (2.0, 0.0), ("cat",)),)


def _cat_bag(path: Path, camera: Callable[[float, np.ndarray], list[Message]]) -> Path:
    """Six seconds of the cat room: odometry, and whatever ``camera`` makes of each rendered frame."""
    render = Camera(CAT_ROOM)
    times = [i / CAMERA_HZ for i in range(int(duration(CAT_ROOM) * CAMERA_HZ) + 1)]
    messages = [_pose(t) for t in times]
    for t in times:
        messages += camera(t, render.frame(t))
    return _write_bag(path, messages)


CAT_QUESTIONS = [{"id": "cat", "ask_at": duration(CAT_ROOM), "question": "Did you see a cat?", "answer": True}]


# -- runs ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def online(bag: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalRun, AnswerFile, Path]:
    """The system and both baselines over the bag, each question asked as of its time."""
    out = tmp_path_factory.mktemp("online") / "answers.jsonl"
    run = evaluate(bag, _question_set(QUESTIONS), out, _config(out.parent), baselines=["uniform", "fixed30"])
    return run, read_answers(out), out


BAD_JSON_LINE = len(QUESTIONS) + 1
DUPLICATE_LINE = len(QUESTIONS) + 2
LATE_AT = END + 100.0


@pytest.fixture(scope="module")
def cli_run(bag: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, str, Path, Path]:
    """``run_eval`` (the body of ``vidmem eval``) on a questions file with ground truth and three bad lines."""
    tmp = tmp_path_factory.mktemp("cli")
    questions = tmp / "questions.jsonl"
    lines = [json.dumps(q) for q in QUESTIONS]
    lines.append('{"id": "broken", "ask_at": 3.0, "question": "Did you see')  # BAD_JSON_LINE
    lines.append(json.dumps({"id": "cat-end", "ask_at": 1.0, "question": "Did you see a giraffe?", "answer": False}))
    lines.append(json.dumps({"id": "late", "ask_at": LATE_AT, "question": "Did you see a cat?", "answer": True}))
    questions.write_text("\n".join(lines) + "\n")
    out = tmp / "answers.jsonl"
    stdout, stderr = io.StringIO(), io.StringIO()
    rc = run_eval(bag, questions, out, _config(tmp), quiet=True, stdout=stdout, stderr=stderr)
    return rc, stdout.getvalue(), stderr.getvalue(), questions, out


# -- 1. the online guarantee ------------------------------------------------------------


def test_early_questions_are_answered_from_the_past_only(online: tuple[EvalRun, AnswerFile, Path]) -> None:
    run, answers, _ = online
    grouped = _by_system(answers)
    assert set(grouped) == set(SYSTEMS)
    truth = _question_set(QUESTIONS).truth
    for system, lines in grouped.items():
        for qid in ("cat-early", "sign-early"):
            said = parse_yes_no(lines[qid].answer)
            assert said is False, f"{system} at {EARLY} s, before the {qid[:-6]} appeared: {lines[qid].answer!r}"
            assert score_answer(truth[qid], lines[qid]).correct
        read_early = lines["read-early"]
        assert not contains_phrase(read_early.answer, SIGN.text), f"{system} read the sign early: {read_early.answer}"
        assert not any(contains_phrase(e.text, "floor") for e in read_early.evidence)
    # ... though the cat and the sign are in the bag, and in every store once the bag was played to its end
    cat_from = first_seen("cat")
    for system_run in run.systems:
        store = SqliteStore(system_run.store, readonly=True)
        try:
            cats = store.sightings(["cat"], None, 0.3)
            moments = store.moments(-math.inf, math.inf, limit=10_000)
        finally:
            store.close()
        assert cats, f"{system_run.system} never stored a cat"
        assert min(c.stamp for c in cats) - run.bag_start > EARLY
        assert min(c.stamp for c in cats) - run.bag_start >= cat_from - 2.5  # the blurred swing in at the earliest
        assert any(contains_phrase(" ".join(t.text for t in m.texts), SIGN.text) for m in moments), system_run.system


def test_a_pause_leaves_nothing_later_in_the_store(bag: Path, tmp_path: Path) -> None:
    """The first of the two guards, on its own: ingestion paused at a question holds only the past, so the
    guarantee does not rest on every tool's ``as_of`` filter alone."""
    config = _config(tmp_path)
    store = SqliteStore(tmp_path / "memory.db")
    try:
        pipeline = IngestPipeline.from_config(config, store)
        with BagStream(bag) as stream:
            ingest = BagIngest(config, stream, pipeline)
            for at in (EARLY, MID):
                ingest.advance_to(at)
                assert ingest.t == at and not ingest.exhausted
                span = store.time_span()
                assert span is not None
                assert at - 1.5 <= span[1] - stream.start_s <= at + 1e-6, (at, span[1] - stream.start_s)
                cats = store.sightings(["cat"], None, 0.3)
                assert bool(cats) == seen("cat", at), (at, [c.stamp - stream.start_s for c in cats])
    finally:
        store.close()


def test_no_answer_cites_anything_after_its_question(online: tuple[EvalRun, AnswerFile, Path]) -> None:
    run, answers, _ = online
    assert len(answers.answers) == len(SYSTEMS) * len(QUESTIONS)
    for line in answers.answers:
        _assert_nothing_after(line, ASK_AT[line.id])
    for system_run in run.systems:
        assert [a.id for a in system_run.answers] == [
            q["id"] for q in sorted(QUESTIONS, key=lambda q: float(q["ask_at"]))
        ]


def test_the_system_answers_the_late_questions_from_the_whole_bag(online: tuple[EvalRun, AnswerFile, Path]) -> None:
    _, answers, _ = online
    truth = _question_set(QUESTIONS).truth
    vidmem = _by_system(answers)["vidmem"]
    for qid in ("cat-end", "sign-end", "cat-last-mid", "cat-first-end"):
        score = score_answer(truth[qid], vidmem[qid])
        assert score.correct, f"{qid}: {vidmem[qid].answer!r} ({score.reason})"
    # asked mid-visit, "last seen" is the question's moment, never the rest of the visit still to come
    mid = vidmem["cat-last-mid"]
    assert mid.time is not None and MID - TIME_TOLERANCE <= mid.time <= MID
    assert any(e.time is not None and e.time >= first_seen("cat") - 2.5 for e in mid.evidence)


# -- 2. scoring through run_eval and the CLI ----------------------------------------------


def test_run_eval_prints_the_score_table_and_writes_scores(cli_run: tuple[int, str, str, Path, Path]) -> None:
    rc, stdout, stderr, _, out = cli_run
    assert rc == 0, stderr
    assert "Traceback" not in stderr
    table = stdout[stdout.index("overall") :]
    for kind in ("binary", "time"):
        assert f"  {kind}" in table, stdout
    assert "vidmem" in stdout and f"answers: {out}" in stdout
    assert "1 question(s) without ground truth" in stdout  # read-early
    scores_path = out.with_suffix(".scores.json")
    assert f"scores: {scores_path}" in stdout
    scores = json.loads(scores_path.read_text())
    (summary,) = scores["summary"]["systems"]
    assert summary["system"] == "vidmem"
    assert set(summary["by_type"]) == {"binary", "time"}
    scored = {s["id"]: s for s in scores["scores"]}
    truth = {q["id"] for q in QUESTIONS if "answer" in q} | {"late"}
    assert set(scored) == truth
    assert summary["overall"]["n"] == len(truth)
    for qid in ("cat-early", "sign-early", "cat-end", "late"):
        assert scored[qid]["correct"], scored[qid]

    lines = [json.loads(line) for line in out.read_text().splitlines()]
    meta = lines[0]["meta"]
    assert meta["bag_start"] == pytest.approx(START_STAMP)
    assert meta["bag_duration_s"] == pytest.approx(END, abs=0.01)
    assert meta["system"] == "vidmem"
    ids = [line["id"] for line in lines[1:]]
    assert sorted(ids) == sorted([q["id"] for q in QUESTIONS] + ["late"])  # one line per valid question


def test_eval_help_lists_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for flag in (
        "--bag",
        "--questions",
        "--out",
        "--config",
        "--baseline",
        "--image-topic",
        "--compressed-topic",
        "--audio-topic",
        "--odom-topic",
        "--report",
        "--json",
        "--quiet",
        "--loops",
    ):
        assert flag in text, flag
    assert "uniform" in text and "fixed30" in text


# -- 3. bad input -------------------------------------------------------------------------


def test_a_broken_questions_file_is_reported_and_the_rest_evaluated(
    cli_run: tuple[int, str, str, Path, Path],
) -> None:
    rc, _, stderr, questions, out = cli_run
    assert rc == 0
    warnings = [line for line in stderr.splitlines() if line.startswith("warning: ")]
    assert any(f"{questions}:{BAD_JSON_LINE}: not valid JSON" in w for w in warnings), stderr
    first = 1 + [q["id"] for q in QUESTIONS].index("cat-end")
    assert any(
        f"{questions}:{DUPLICATE_LINE}: duplicate id 'cat-end' (first on line {first})" in w for w in warnings
    ), stderr
    assert any("'late'" in w and f"{LATE_AT:.1f}" in w and "asked at the end" in w for w in warnings), stderr
    answers = {a.id: a for a in read_answers(out).answers}
    assert "broken" not in answers
    # the first cat-end was asked (a cat, seen), not the duplicate (a giraffe, at 1 s)
    assert parse_yes_no(answers["cat-end"].answer) is True, answers["cat-end"].answer
    late = answers["late"]
    assert parse_yes_no(late.answer) is True, late.answer
    _assert_nothing_after(late, END)
    assert any(e.time is not None and e.time > VISITS[1].start for e in late.evidence)  # asked at the end


def test_a_questions_file_without_a_valid_line_is_an_error(bag: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": "x", "ask_at": 1.0\n\n{"id": "", "ask_at": -1, "question": "?"}\n[1, 2]\n')
    out = tmp_path / "answers.jsonl"
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run_eval(bag, questions, out, _config(tmp_path), quiet=True, stdout=stdout, stderr=stderr) == 1
    text = stderr.getvalue()
    assert f"error: {questions} holds no valid question" in text
    for number in (1, 3, 4):
        assert f"{questions}:{number}:" in text, text
    assert "Traceback" not in text
    assert not out.exists()


def test_a_bag_without_the_camera_topic_is_reported_and_evaluated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bag = _cat_bag(tmp_path / "other_camera", lambda t, rgb: [_jpeg(OTHER_CAMERA, t, rgb)])
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in CAT_QUESTIONS))
    out = tmp_path / "default.jsonl"
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run_eval(bag, questions, out, _config(tmp_path), quiet=True, stdout=stdout, stderr=stderr) == 0
    warnings = [line for line in stderr.getvalue().splitlines() if line.startswith("warning: ")]
    camera = [w for w in warnings if "no camera topic" in w]
    assert camera, stderr.getvalue()
    assert "/camera/image_raw" in camera[0] and "/camera/image_raw/compressed" in camera[0]
    assert not any("no pose topic" in w for w in warnings)  # /odom is there and was used
    (answer,) = read_answers(out).answers
    assert parse_yes_no(answer.answer) is False, answer.answer  # the cat is on a topic nobody asked for
    assert not answer.evidence

    # the same bag, told where the camera is, through the CLI: the cat is seen
    named = tmp_path / "named.jsonl"
    argv = ["eval", "--bag", str(bag), "--questions", str(questions), "--out", str(named), "--quiet"]
    assert main([*argv, "--compressed-topic", OTHER_CAMERA]) == 0
    captured = capsys.readouterr()
    assert "no camera topic" not in captured.err
    assert "1/1 100.0%" in captured.out, captured.out
    (answer,) = read_answers(named).answers
    assert parse_yes_no(answer.answer) is True, answer.answer


def test_a_camera_topic_of_the_wrong_type_is_reported_and_the_rest_evaluated(tmp_path: Path) -> None:
    compressed = BagTopics().compressed
    bag = _cat_bag(
        tmp_path / "wrong_type",
        lambda t, rgb: [_string(compressed, t), _raw(BagTopics().image, t, rgb)],
    )
    questions = _question_set(CAT_QUESTIONS)
    out = tmp_path / "answers.jsonl"
    run = evaluate(bag, questions, out, _config(tmp_path))
    wrong = [p for p in run.problems if compressed in p]
    assert len(wrong) == 1, run.problems
    assert "std_msgs/msg/String" in wrong[0] and "sensor_msgs/msg/CompressedImage" in wrong[0]
    assert not any("no camera topic" in p or "no pose topic" in p for p in run.problems), run.problems
    (system,) = run.systems
    assert system.figures is not None
    assert system.figures.frames == int(duration(CAT_ROOM) * CAMERA_HZ) + 1  # every raw frame, no string
    (answer,) = system.answers
    assert score_answer(GroundTruth(id="cat", type="binary", answer=True), answer).correct, answer.answer


def test_a_truncated_mcap_is_a_clear_error(bag: Path, tmp_path: Path) -> None:
    """rosbags cannot open an MCAP without its footer (the summary it indexes by): exit 1, the bag named."""
    cut = tmp_path / "cut"
    shutil.copytree(bag, cut)
    (mcap,) = cut.glob("*.mcap")
    data = mcap.read_bytes()
    mcap.write_bytes(data[: len(data) // 2])
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    for target in (cut, mcap):
        out = tmp_path / f"{target.name}.jsonl"
        stdout, stderr = io.StringIO(), io.StringIO()
        rc = run_eval(target, questions, out, _config(tmp_path), quiet=True, stdout=stdout, stderr=stderr)
        text = stderr.getvalue()
        assert rc == 1, text
        assert text.startswith("error: ") and str(target) in text and "cannot open" in text, text
        assert "Traceback" not in text
        assert not out.exists()
        assert stdout.getvalue() == ""


# -- 4. baselines -------------------------------------------------------------------------


def test_baselines_answer_every_question_tagged_with_their_system(
    online: tuple[EvalRun, AnswerFile, Path],
) -> None:
    run, answers, out = online
    assert [s.system for s in run.systems] == list(SYSTEMS)
    assert answers.meta.bag_start == pytest.approx(START_STAMP)
    out_lines = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert all(line.get("system") in SYSTEMS for line in out_lines)
    grouped = _by_system(answers)
    for system in SYSTEMS:
        assert set(grouped[system]) == set(ASK_AT), system
        assert not any(a.error for a in grouped[system].values()), system


def test_the_uniform_baseline_keeps_a_frame_a_second_and_fixed30_cuts_30_s_events(
    online: tuple[EvalRun, AnswerFile, Path],
) -> None:
    run, _, _ = online
    systems = {s.system: s for s in run.systems}
    stamps: dict[str, list[float]] = {}
    events: dict[str, list[Event]] = {}
    for name, system_run in systems.items():
        store = SqliteStore(system_run.store, readonly=True)
        try:
            stamps[name] = [m.stamp - run.bag_start for m in store.moments(-math.inf, math.inf, limit=10_000)]
            events[name] = store.events()
        finally:
            store.close()
    uniform = stamps["uniform"]
    assert len(uniform) == math.floor(END) + 1  # the camera runs at 2 Hz; one frame a second, none gated out
    assert np.allclose(np.diff(uniform), 1.0, atol=0.05)
    figures = systems["uniform"].figures
    assert figures is not None
    assert figures.frames == int(END * CAMERA_HZ) + 1
    assert figures.kept == len(uniform)
    vidmem = systems["vidmem"].figures
    assert vidmem is not None and vidmem.kept <= figures.kept  # the full system's gates drop the blurred swing
    assert set(stamps["vidmem"]) <= set(uniform)
    fixed = events["fixed30"]
    assert all(e.end - e.start <= 30.0 + 1e-6 for e in fixed)
    assert all(e.reason in ("start", "max_duration") for e in fixed), [e.reason for e in fixed]
    assert len(fixed) == math.ceil(END / 30.0)
    assert len(events["vidmem"]) > len(fixed)  # the scene change into the living room cuts an event


def test_a_looped_bag_is_one_run_per_play_and_is_asked_during_the_last(bag: Path, tmp_path: Path) -> None:
    """Three plays of the bag into one memory, as ``ros2 bag play --loop`` gives: the stamps go back at each play,
    so each is a run; the questions, asked during the last play, count one occasion per play and read times back
    on the bag's clock."""
    questions = [
        {"id": "count", "ask_at": END, "question": "How many times did you see a cat?"},
        {"id": "last", "ask_at": END, "question": "When did you last see a cat?"},
    ]
    out = tmp_path / "looped.jsonl"
    run = evaluate(bag, _question_set(questions), out, _config(tmp_path), loops=3)
    store = SqliteStore(run.systems[0].store, readonly=True)
    assert [r.id for r in store.runs()] == [1, 2, 3]
    store.close()
    answers = {a.id: a for a in run.systems[0].answers}
    assert answers["count"].value == 3, answers["count"].answer
    last = answers["last"]
    assert last.time is not None and VISITS[1].start - TIME_TOLERANCE <= last.time <= END + TIME_TOLERANCE
    assert "run 3" in last.answer, last.answer
