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

from vidmem_ros.tools import cli
from vidmem_ros.tools.sample_bag import (
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
    write_sample_bag,
)
from vidmem_ros.tools.sample_questions import (
    QUESTION_TYPES,
    READ_SLACK_S,
    TRAP_OBJECTS,
    TRAP_SIGNS,
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
        assert q["question"].endswith("?")
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
    for phrasing in ("Did you see a cat?", "Have you seen a motorcycle?", "When did you first see a cup?"):
        assert phrasing in {q["question"] for q in questions}


def test_ground_truth_follows_from_the_scenario(questions: list[dict[str, Any]]) -> None:
    """Re-derive the answers a second way, from the visits, sign sightings and utterances as of ask_at."""
    visits = timeline(PATROL)
    sightings = sign_sightings(PATROL)
    lines = spoken(PATROL)

    def seen(label: str, at: float) -> list[tuple[float, float]]:
        return [(v.start, min(v.end, at)) for v in visits if label in v.room.objects and v.start < at]

    checked: Counter[str] = Counter()
    for q in questions:
        text, at, answer = q["question"], q["ask_at"], q["answer"]
        if m := re.fullmatch(r"(?:Did you see|Have you seen) an? (\w+)\?", text):
            assert answer == bool(seen(m[1], at)), q
            if not answer and m[1] not in TRAP_OBJECTS:  # an online trap: the thing shows up later
                assert any(v.start > at for v in visits if m[1] in v.room.objects), q
        elif m := re.fullmatch(r"When did you (first|last) see an? (\w+)\?", text):
            visits_seen = seen(m[2], at)
            assert answer == (visits_seen[0][0] if m[1] == "first" else visits_seen[-1][1]), q
        elif m := re.fullmatch(r"How many times did you see an? (\w+)\?", text):
            assert answer == len(seen(m[1], at)), q
        elif m := re.fullmatch(r"(?:How long|For how long) did you see (?:the|an?) (\w+)\?", text):
            assert answer == pytest.approx(sum(b - a for a, b in seen(m[1], at))), q
            assert q["tolerance"] >= max(5.0, 0.24 * answer)
        elif m := re.fullmatch(r"Did you see the (\w+) before or after the (\w+)\?", text):
            assert answer == ("before" if seen(m[1], at)[0][0] < seen(m[2], at)[0][0] else "after"), q
        elif m := re.fullmatch(r"Where did you see the (\w+)\?", text):
            start, end = seen(m[1], at)[-1]
            assert _covers(visits, q, start, end), q
        elif m := re.fullmatch(r"Did you see a sign that said '(.+)'\?", text):
            assert answer == any(s.text == m[1] and s.start < at for s in sightings), q
        elif m := re.fullmatch(r"(?:When did you read|When did you see the sign that said) '(.+)'\?", text):
            (only,) = [s for s in sightings if s.text == m[1] and s.start < at]  # asked while read just once
            slack = READ_SLACK_S  # OCR reads a sign a little before and after its lettering is whole in view
            low, high = answer - q["tolerance"], answer + q["tolerance"]
            assert low <= only.start - slack + 1e-6 and only.end + slack <= high + 1e-6, q
        elif m := re.fullmatch(r"Where did you read '(.+)'\?", text):
            last = [s for s in sightings if s.text == m[1] and s.start < at][-1]
            room = visits[last.visit]
            assert _covers(
                visits, q, max(last.start - READ_SLACK_S, room.start), min(last.end + READ_SLACK_S, room.end, at)
            )
        elif m := re.fullmatch(
            r"(?:Did anyone say|When did someone say|Where were you when someone said) '(.+)'\?", text
        ):
            said = [line for line in lines if m[1] in line.text.lower() and line.end <= at]
            if q["type"] == "binary":
                assert answer == bool(said), q
            elif q["type"] == "time":
                assert answer == pytest.approx(said[0].start), q
            else:
                assert _covers(visits, q, said[0].start, said[0].end), q
        elif m := re.fullmatch(r"Did you hear anyone mention (.+)\?", text):
            assert answer == any(line.utterance.about == m[1] and line.end <= at for line in lines), q
        elif m := re.fullmatch(r"What did someone say about (.+)\?", text):
            (line,) = [line for line in lines if line.utterance.about == m[1] and line.end <= at]
            assert all(a in line.text.lower() or a.isdigit() for a in q["accept"]), q
        elif m := re.fullmatch(r"What did you see (after|before) the (\w+)\?", text):
            first = next(i for i, v in enumerate(visits) if m[2] in v.room.objects)
            step = 1 if m[1] == "after" else -1
            others = [v for v in visits[first + step :: step] if v.room.objects and m[2] not in v.room.objects]
            assert others and others[0].start < at and answer in others[0].room.objects, q
        elif text == "What did you read?":
            read = [s for s in sightings if s.start < at]
            assert {s.text for s in read} == {answer}, q
        elif m := re.fullmatch(r"What text did you read after you saw the (\w+)\?", text):
            after = [s for s in sightings if s.start >= seen(m[1], at)[0][1] and s.start < at]
            assert after and after[0].text == answer, q
        else:
            raise AssertionError(f"no check for {text!r}")
        checked[q["type"]] += 1
    assert set(checked) == set(QUESTION_TYPES)


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
    from vidmem_ros.audio_pipeline import AudioPipeline
    from vidmem_ros.config import AudioConfig
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
    args = argparse.Namespace(out=tmp_path / "short", camera_hz=1.0, raw=False, short=True)
    assert cli._make_bag(args) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / "short"), str(tmp_path / "short.questions.jsonl")]
    with Reader(tmp_path / "short") as reader:
        assert {c.topic for c in reader.connections} == {CAMERA_TOPIC, ODOM_TOPIC}
        assert reader.duration * 1e-9 == pytest.approx(duration(SHORT_PATROL), abs=0.01)
    assert load_questions(tmp_path / "short.questions.jsonl") == patrol_questions(SHORT_PATROL)
