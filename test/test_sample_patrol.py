"""The ten-minute sample patrol: the bag reads back, its question set is sound, its signs and speech are readable.

The bag is written once for the module at 2 Hz (the rendering, signs, speech and question set are the same at
any camera rate); the OCR and the recogniser run on a few of its frames and utterances, not all of them.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # two shared cores: keep library thread pools small

import argparse
import itertools
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from rosbags.rosbag2 import Reader

from vidmem_dev import command as cli
from vidmem_dev.sample_bag import (
    AUDIO_CHUNK_MSG,
    AUDIO_RATE,
    AUDIO_TOPIC,
    CAMERA_TOPIC,
    ODOM_TOPIC,
    PATROL,
    SCENARIO,
    SHORT_PATROL,
    START_STAMP,
    duration,
    pose_at,
    questions_path,
    sign_sightings,
    spoken,
    timeline,
    typestore,
)
from vidmem_dev.sample_patrol import write_sample_bag
from vidmem_dev.sample_questions import (
    QUESTION_TYPES,
    READ_SLACK_S,
    TRAP_OBJECTS,
    TRAP_SIGNS,
    WORDINGS,
    load_questions,
    patrol_questions,
)

CAMERA_HZ = 2.0
FIELDS = {"id", "ask_at", "question", "type", "answer", "accept", "tolerance"}
END = duration(PATROL)


@pytest.fixture(scope="module")
def bag(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample_bag(tmp_path_factory.mktemp("patrol") / "patrol", camera_hz=CAMERA_HZ, scenario=PATROL)


@pytest.fixture(scope="module")
def messages(bag: Path) -> dict[str, list[tuple[int, Any]]]:
    """Log time (ns) and decoded message of every message, by topic."""
    ts = typestore()
    out: dict[str, list[tuple[int, Any]]] = {}
    with Reader(bag) as reader:
        assert {c.topic: c.msgtype for c in reader.connections} == {
            CAMERA_TOPIC: "sensor_msgs/msg/CompressedImage",
            ODOM_TOPIC: "nav_msgs/msg/Odometry",
            AUDIO_TOPIC: "vidmem_ros/msg/AudioChunk",
        }
        for conn, stamp, raw in reader.messages():
            out.setdefault(conn.topic, []).append((stamp, ts.deserialize_cdr(raw, conn.msgtype)))
    return out


@pytest.fixture(scope="module")
def questions(bag: Path) -> list[dict[str, Any]]:
    return load_questions(questions_path(bag))


def seconds(stamp: Any) -> float:
    return float(stamp.sec + stamp.nanosec * 1e-9 - START_STAMP)


def test_the_short_patrol_is_still_the_one_the_fast_tests_know() -> None:
    assert SCENARIO is SHORT_PATROL
    assert [(v.start, v.end) for v in timeline()] == [
        (0.0, 14.0),
        (16.0, 38.0),
        (40.0, 62.0),
        (64.0, 92.0),
        (94.0, 114.0),
        (116.0, 132.0),
        (134.0, 148.0),
    ]
    assert all(not room.signs and not room.speech for room in SHORT_PATROL)


def test_the_patrol_is_ten_minutes_with_revisits_stops_signs_and_speech() -> None:
    visits = timeline(PATROL)
    assert 570.0 <= END <= 630.0
    assert all(b.start - a.end >= 2.0 for a, b in itertools.pairwise(visits)), "a blurred move between"
    rooms = Counter(v.room.name for v in visits)
    assert max(rooms.values()) >= 2 and sum(n >= 2 for n in rooms.values()) >= 4
    assert any(v.room.stop_s for v in visits)
    assert min(v.room.seconds for v in visits if v.room.objects) >= 30.0  # long enough for "how long" questions
    sightings = sign_sightings(PATROL)
    texts = {s.text for v in visits for s in v.room.signs}
    assert len(texts) >= 4 and {s.text for s in sightings} == texts
    for text in texts:
        assert max(s.end - s.start for s in sightings if s.text == text) >= 5.0, f"{text} is never long in view"
    lines = spoken(PATROL)
    assert len(lines) >= 6
    for a, b in itertools.pairwise(lines):
        assert a.end < b.start
    for line in lines:
        visit = visits[line.visit]
        assert visit.start <= line.start and line.end <= visit.end, line.text


def test_the_bag_reads_back_with_camera_odometry_and_audio(
    bag: Path, messages: dict[str, list[tuple[int, Any]]]
) -> None:
    assert questions_path(bag).is_file() and questions_path(bag).parent == bag.parent
    assert not list(bag.glob("*.jsonl")), "the question set sits beside the bag, not inside it"
    stamps = [t for topic in messages.values() for t, _ in topic]
    assert (max(stamps) - min(stamps)) * 1e-9 == pytest.approx(END, abs=0.11)
    assert min(stamps) == round(START_STAMP * 1e9)
    camera, odom, audio = messages[CAMERA_TOPIC], messages[ODOM_TOPIC], messages[AUDIO_TOPIC]
    assert len(camera) == int(END * CAMERA_HZ) + 1 and len(odom) == int(END * 10) + 1
    assert len(audio) == math.ceil(round(END * AUDIO_RATE) / 1600)
    for log_ns, msg in camera[:: len(camera) // 20]:
        assert seconds(msg.header.stamp) == pytest.approx(log_ns * 1e-9 - START_STAMP, abs=1e-6)
        rgb = cv2.imdecode(np.asarray(msg.data), cv2.IMREAD_COLOR)
        assert rgb.shape == (480, 640, 3)
    # Audio: contiguous 100 ms chunks of 16 kHz S16LE mono, stamped with their first sample.
    expected = 0.0
    for log_ns, msg in audio:
        assert (msg.sample_rate, msg.channels, msg.encoding) == (AUDIO_RATE, 1, "S16LE")
        t = seconds(msg.header.stamp)
        assert t == pytest.approx(expected, abs=1e-6) and t == pytest.approx(log_ns * 1e-9 - START_STAMP, abs=1e-6)
        expected = t + len(msg.data) / 2 / AUDIO_RATE
    assert expected == pytest.approx(END, abs=1e-6)
    pcm = np.concatenate([np.frombuffer(bytes(m.data), "<i2") for _, m in audio]).astype(np.float32)
    for line in spoken(PATROL):  # loud while someone speaks, quiet room tone between
        speech = pcm[int(line.start * AUDIO_RATE) : int((line.start + 2.0) * AUDIO_RATE)]
        before = pcm[int((line.start - 3.0) * AUDIO_RATE) : int((line.start - 0.5) * AUDIO_RATE)]
        assert np.sqrt(np.mean(speech**2)) > 30 * np.sqrt(np.mean(before**2)), line.text
    # Odometry follows the scenario's poses.
    visits = timeline(PATROL)
    for _, msg in odom[::97]:
        x, y, _ = pose_at(visits, seconds(msg.header.stamp))
        p = msg.pose.pose.position
        assert (p.x, p.y) == pytest.approx((x, y), abs=1e-6)


def test_the_audio_message_definition_is_the_packages() -> None:
    assert (Path(__file__).parents[1] / "msg" / "AudioChunk.msg").read_text() == AUDIO_CHUNK_MSG


def test_question_lines_are_well_formed(bag: Path, questions: list[dict[str, Any]]) -> None:
    from vidmem_ros.evaluation.questions import load_questions as evaluator_loads

    assert questions == patrol_questions(PATROL), "the file holds what the scenario gives"
    loaded = evaluator_loads(questions_path(bag))  # what `vidmem eval` reads
    assert loaded.problems == [] and len(loaded.truth) == len(questions)
    assert len(questions) >= 40
    assert len({q["id"] for q in questions}) == len(questions)
    types = Counter(q["type"] for q in questions)
    assert set(types) == set(QUESTION_TYPES), types
    answers = {
        "binary": bool,
        "time": float,
        "duration": float,
        "count": int,
        "order": str,
        "text": str,
        "position": list,
    }
    for q in questions:
        assert set(q) == FIELDS, q
        assert 0.0 < q["ask_at"] <= END, q
        assert q["question"].endswith(("?", ".")), q  # a question, or a request ("Tell me when ...")
        assert isinstance(q["answer"], answers[q["type"]]) and not (
            q["type"] != "binary" and isinstance(q["answer"], bool)
        ), q
        assert isinstance(q["accept"], list) and all(isinstance(a, str) and a for a in q["accept"]), q
        assert isinstance(q["tolerance"], int | float) and q["tolerance"] >= 0, q
        if q["type"] in ("text", "order", "binary"):
            assert q["accept"], q
        if q["type"] == "position":
            assert len(q["answer"]) == 2 and q["tolerance"] >= 2.5
        if q["type"] == "time":
            assert 0.0 <= q["answer"] <= q["ask_at"] and q["tolerance"] >= 5.0
    mid = [q for q in questions if q["ask_at"] < END]
    assert 10 <= len(mid) < len(questions) / 2
    traps = [q for q in questions if q["type"] == "binary" and q["answer"] is False]
    assert any(trap in q["question"] for q in traps for trap in TRAP_OBJECTS)
    assert any(trap in q["question"] for q in traps for trap in TRAP_SIGNS)
    assert any("mention" in q["question"] or "say" in q["question"] for q in traps)
    assert any(q["ask_at"] < END for q in traps), "online traps: asked before the thing appears"
    for phrasing in ("Did you see a cat?", "Have you seen a motorcycle?"):
        assert phrasing in {q["question"] for q in questions}


# What each placeholder of a wording matches; in an order question {a} is a bare label, elsewhere "a/an label".
_FIELDS = {
    "a": r"an? (?P<label>\w+)",
    "label": r"(?P<label>\w+)",
    "b": r"(?P<b>\w+)",
    "text": r"(?P<text>.+)",
    "phrase": r"(?P<text>.+)",
    "about": r"(?P<text>.+)",
    "word": r"(?P<word>after|before)",
}


def _wording(text: str) -> tuple[str, int, dict[str, str]]:
    """Which kind of question ``text`` is, in which of its wordings, and the label, text or words it asks about."""
    for kind, bank in WORDINGS.items():
        fields = _FIELDS | ({"a": r"(?P<label>\w+)"} if kind == "order" else {})
        for index, template in enumerate(bank):
            pattern = re.escape(template)
            for name, regex in fields.items():
                pattern = pattern.replace(re.escape("{" + name + "}"), regex)
            if m := re.fullmatch(pattern, text):
                return kind, index, m.groupdict()
    if text == "What did you read?":
        return "read", 0, {}
    raise AssertionError(f"no check for {text!r}")


def test_ground_truth_follows_from_the_scenario(questions: list[dict[str, Any]]) -> None:
    """Re-derive the answers a second way, from the visits, sign sightings and utterances as of ask_at."""
    visits = timeline(PATROL)
    sightings = sign_sightings(PATROL)
    lines = spoken(PATROL)

    def seen(label: str, at: float) -> list[tuple[float, float]]:
        return [(v.start, min(v.end, at)) for v in visits if label in v.room.objects and v.start < at]

    checked: Counter[str] = Counter()
    wordings: dict[str, set[int]] = {}
    for q in questions:
        text, at, answer = q["question"], q["ask_at"], q["answer"]
        kind, index, f = _wording(text)
        wordings.setdefault(kind, set()).add(index)
        label = f.get("label", "")
        if kind == "seen":
            assert answer == bool(seen(label, at)), q
            if not answer and label not in TRAP_OBJECTS:  # an online trap: the thing shows up later
                assert any(v.start > at for v in visits if label in v.room.objects), q
        elif kind in ("first", "last"):
            visits_seen = seen(label, at)
            assert answer == (visits_seen[0][0] if kind == "first" else visits_seen[-1][1]), q
        elif kind == "count":
            assert answer == len(seen(label, at)), q
        elif kind == "how_long":
            assert answer == pytest.approx(sum(b - a for a, b in seen(label, at))), q
            assert q["tolerance"] >= max(5.0, 0.24 * answer)
        elif kind == "order":
            assert answer == ("before" if seen(label, at)[0][0] < seen(f["b"], at)[0][0] else "after"), q
        elif kind == "where":
            start, end = seen(label, at)[-1]
            assert _covers(visits, q, start, end), q
        elif kind == "sign":
            assert answer == any(s.text == f["text"] and s.start < at for s in sightings), q
        elif kind == "when_read":
            (only,) = [s for s in sightings if s.text == f["text"] and s.start < at]  # asked while read just once
            slack = READ_SLACK_S  # OCR reads a sign a little before and after its lettering is whole in view
            low, high = answer - q["tolerance"], answer + q["tolerance"]
            assert low <= only.start - slack + 1e-6 and only.end + slack <= high + 1e-6, q
        elif kind == "where_read":
            last = [s for s in sightings if s.text == f["text"] and s.start < at][-1]
            room = visits[last.visit]
            assert _covers(
                visits, q, max(last.start - READ_SLACK_S, room.start), min(last.end + READ_SLACK_S, room.end, at)
            )
        elif kind in ("said", "when_said", "where_said"):
            said = [line for line in lines if f["text"] in line.text.lower() and line.end <= at]
            if kind == "said":
                assert answer == bool(said), q
            elif kind == "when_said":
                assert answer == pytest.approx(said[0].start), q
            else:
                assert _covers(visits, q, said[0].start, said[0].end), q
        elif kind == "mentioned":
            assert answer == any(line.utterance.about == f["text"] and line.end <= at for line in lines), q
        elif kind == "said_about":
            (line,) = [line for line in lines if line.utterance.about == f["text"] and line.end <= at]
            assert all(a in line.text.lower() or a.isdigit() for a in q["accept"]), q
        elif kind == "neighbour":
            first = next(i for i, v in enumerate(visits) if label in v.room.objects)
            step = 1 if f["word"] == "after" else -1
            others = [v for v in visits[first + step :: step] if v.room.objects and label not in v.room.objects]
            assert others and others[0].start < at and answer in others[0].room.objects, q
        elif kind == "read":
            read = [s for s in sightings if s.start < at]
            assert {s.text for s in read} == {answer}, q
        else:
            assert kind == "read_after", kind
            after = [s for s in sightings if s.start >= seen(label, at)[0][1] and s.start < at]
            assert after and after[0].text == answer, q
        checked[q["type"]] += 1
    assert set(checked) == set(QUESTION_TYPES)
    # the wordings vary: every kind of question asked three times or more comes in several wordings
    asked = Counter(_wording(q["question"])[0] for q in questions)
    assert all(len(wordings[kind]) >= 2 for kind, n in asked.items() if n >= 3 and len(WORDINGS.get(kind, ())) > 1)


def _covers(visits: list[Any], q: dict[str, Any], start: float, end: float) -> bool:
    """The answer is within tolerance of every pose the robot had from start to end."""
    x, y = q["answer"]
    for k in range(21):
        px, py, _ = pose_at(visits, start + (end - start) * k / 20)
        if math.hypot(px - x, py - y) > q["tolerance"] + 1e-6:
            return False
    return True


def test_ocr_reads_every_sign_in_the_bag(messages: dict[str, list[tuple[int, Any]]]) -> None:
    from vidmem_ros.config import load_config
    from vidmem_ros.perception.registry import build_ocr

    engine = build_ocr(load_config().ocr)
    assert engine is not None
    frames = [(seconds(msg.header.stamp), msg) for _, msg in messages[CAMERA_TOPIC]]
    found: dict[str, str] = {}
    tried = 0
    for sighting in sign_sightings(PATROL):
        if sighting.text in found:
            continue
        inside = [(t, m) for t, m in frames if sighting.start + 0.5 <= t <= sighting.end - 0.5]
        for t, msg in inside[len(inside) // 3 :: max(len(inside) // 3, 1)][:2]:
            bgr = cv2.imdecode(np.asarray(msg.data), cv2.IMREAD_COLOR)  # the bag's JPEG, quality 85
            read = [line.text for line in engine.read(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))]
            tried += 1
            print(f"  {t:6.1f} s, {sighting.text!r} in view: read {read}")
            if any(" ".join(r.split()).upper() == sighting.text for r in read):
                found[sighting.text] = f"{t:.1f} s"
                break
    print(f"read {len(found)} signs exactly in {tried} frames: {found}")
    assert set(found) == {s.text for s in sign_sightings(PATROL)}


def test_the_recogniser_hears_what_was_said(messages: dict[str, list[tuple[int, Any]]]) -> None:
    from vidmem_ros.config import AudioConfig
    from vidmem_ros.ingest.audio import AudioPipeline
    from vidmem_ros.memory.records import Transcript
    from vidmem_ros.perception.audio import AudioChunkData

    lines = spoken(PATROL)
    picked = [lines[1], lines[3], lines[5]]  # the delivery, the plants, the electrician
    heard: list[Transcript] = []
    pipeline = AudioPipeline(AudioConfig(cpu_threads=2), heard.append, background=False)
    for line in picked:  # a few seconds of the bag's audio around each (a jump in stamps restarts the stream)
        for _, msg in messages[AUDIO_TOPIC]:
            t = seconds(msg.header.stamp)
            if line.start - 1.5 <= t < line.end + 1.0:
                chunk = AudioChunkData(START_STAMP + t, msg.sample_rate, msg.channels, msg.encoding, bytes(msg.data))
                pipeline.push(chunk)  # the first chunks after a jump wait until the stream confirms it
        pipeline.flush()
    assert not pipeline.stats().dropped, "a real jump in stamps loses no audio"
    pipeline.close()
    texts = [(t.start - START_STAMP, t.text) for t in heard]
    print(f"heard: {texts}")
    understood = 0
    for line in picked:
        near = [text.lower() for start, text in texts if abs(start - line.start) < 1.0]
        key = line.utterance.answers
        if any(any(a in text for a in key) and line.utterance.about.split()[-1] in text for text in near):
            understood += 1
    assert understood >= 2, texts


def test_make_bag_writes_the_short_patrol_and_its_questions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(out=tmp_path / "short", camera_hz=1.0, raw=False, short=True, who=False)
    assert cli._make_bag(args) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / "short"), str(tmp_path / "short.questions.jsonl")]
    with Reader(tmp_path / "short") as reader:
        assert {c.topic for c in reader.connections} == {CAMERA_TOPIC, ODOM_TOPIC}
        assert reader.duration * 1e-9 == pytest.approx(duration(SHORT_PATROL), abs=0.01)
    assert load_questions(tmp_path / "short.questions.jsonl") == patrol_questions(SHORT_PATROL)
