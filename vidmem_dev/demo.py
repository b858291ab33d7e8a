"""The main job on its built-in default: replay the sample patrol through the real nodes and question it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from vidmem_dev.sample_bag import (
    AUDIO_TOPIC,
    CAMERA_TOPIC,
    PATROL,
    START_STAMP,
    questions_path,
)
from vidmem_dev.sample_patrol import write_sample_bag
from vidmem_ros.command.launcher import NodeOptions, deep_subscription, loopback_env, start_node, stop_processes
from vidmem_ros.evaluation.answers import AnswerLine, AnswersMeta, Evidence, write_answers
from vidmem_ros.evaluation.questions import load_questions
from vidmem_ros.evaluation.report import write_report
from vidmem_ros.evaluation.scoring import format_summary, score_all, summarise
from vidmem_ros.ingest.messages import to_seconds
from vidmem_ros.progress import ProgressBar

# Printed in full, one per kind of question; all of the patrol's questions are asked and scored.
SHOWN = (
    "binary-did-you-see-a-cat",
    "time-when-did-you-last-see-a-cup",
    "position-where-did-you-see-the-motorcycle",
    "count-how-many-times-did-you-see-a-person",
    "text-what-did-someone-say-about-the-delivery",
    "binary-did-you-see-a-sign-that-said-fire-exit-at320",
    "binary-did-you-see-a-giraffe",
)
DEMO_CAMERA_HZ = 5.0  # five times the 1 FPS working rate is plenty, and halves what the replay must push


def run_demo(data_dir: Path, rate: float = 3.0) -> int:
    import rclpy

    from vidmem_ros.command.replay import replay
    from vidmem_ros.ros.client import MemoryClient

    bag = data_dir / "sample_patrol"
    if bag.exists() and not questions_path(bag).exists():  # written by an older demo: the 150 s patrol
        print(f"replacing the older, shorter sample patrol in {bag} ...", flush=True)
        shutil.rmtree(bag)
    if not bag.exists():
        print(f"building the ten-minute sample patrol bag in {bag} (a minute or two) ...", flush=True)
        write_sample_bag(bag, camera_hz=DEMO_CAMERA_HZ, scenario=PATROL)
    store = data_dir / "demo" / "memory.db"
    shutil.rmtree(store.parent, ignore_errors=True)
    store.parent.mkdir(parents=True)
    env = loopback_env()
    camera = CAMERA_TOPIC.removesuffix("/compressed")  # the sample patrol records JPEG frames
    replayed = {**deep_subscription(CAMERA_TOPIC), **deep_subscription(AUDIO_TOPIC)}  # the replay loses nothing
    options = NodeOptions(store=str(store), camera=camera, transport="compressed", audio=AUDIO_TOPIC, params=replayed)
    logs = store.parent
    nodes = [start_node(w, options, env, str(logs / f"{w}.log")) for w in ("ingest", "query")]
    os.environ.update(env)
    rclpy.init()
    node = rclpy.create_node("vidmem_demo")
    try:
        client = MemoryClient(node)
        if not _wait_started(client, nodes, 60.0):
            print(f"the nodes did not come up; see {logs}/*.log")
            return 1
        print(f"replaying {bag} at {rate}x through the ingest node (camera, /audio, /odom) ...", flush=True)
        result = replay(node, bag, rate=rate, progress=ProgressBar(label="replay "))
        frames = result.published[CAMERA_TOPIC]
        stats = client.wait_until_idle(frames, timeout_s=180.0)
        if stats is None:
            print("ingestion did not finish; see the node logs in", logs)
            return 1
        time.sleep(3.0)  # the last words heard are still being recognised
        bag_s = (result.last_stamp_ns - result.first_stamp_ns) * 1e-9
        drops = ", ".join(f"{r} {c}" for r, c in zip(stats.drop_reasons, stats.drop_counts, strict=True))
        print(
            f"\n{frames} frames over {bag_s:.0f} s of patrol replayed in {result.wall_s:.1f} s; "
            f"the ingest node received {stats.frames_received}, kept {stats.frames_kept} ({drops}), "
            f"{stats.events} events\n"
        )
        return _question(client, bag, store)
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(nodes)


def _question(client: Any, bag: Path, store: Path) -> int:
    """Ask every question of the patrol through the query service, each as of its ask_at; score; report."""
    questions = load_questions(questions_path(bag))
    lines = []
    for q in questions.questions:
        started = time.perf_counter()
        response = client.ask(q.question, as_of=START_STAMP + q.ask_at)
        lines.append(_answer_line(q.id, response, time.perf_counter() - started))
        if q.id in SHOWN:
            _print_answer(q.question, q.ask_at, response)
    answers = store.parent / "answers.jsonl"
    write_answers(answers, lines, AnswersMeta(bag_start=START_STAMP, system="vidmem", bag=str(bag)))
    scores = score_all(questions.truth, {"vidmem": {a.id: a for a in lines}})
    print(format_summary(summarise(scores)))
    report = store.parent / "report.html"
    write_report(
        report,
        store,
        questions.questions,
        {"vidmem": {a.id: a for a in lines}},
        scores,
        START_STAMP,
        truth=questions.truth,
    )
    print(f"\nall {len(lines)} answers: {answers}\nreport (open in a browser): {report}")
    return 0


def _answer_line(qid: str, r: Any, latency: float) -> AnswerLine:
    if not r.success:
        return AnswerLine(id=qid, latency_s=latency, error=r.error, system="vidmem")
    value = json.loads(r.trace or "{}").get("value")
    evidence = [
        Evidence(kind=e.kind, ref=e.ref, time=round(to_seconds(e.stamp) - START_STAMP, 3), text=e.text, score=e.score)
        for e in r.evidence
    ]
    p = r.answer_pose.pose.position
    return AnswerLine(
        id=qid,
        answer=r.answer,
        confidence=r.confidence,
        latency_s=round(latency, 4),
        evidence=evidence,
        time=round(to_seconds(r.answer_stamp) - START_STAMP, 3) if r.has_answer_stamp else None,
        position=(round(p.x, 3), round(p.y, 3)) if r.has_answer_pose else None,
        value=value,
        system="vidmem",
    )


def _wait_started(client: object, nodes: list[subprocess.Popen[bytes]], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in nodes):
            return False
        if client.wait_for_service(0.5) and client.wait_for_stats(lambda s: True, 0.5) is not None:  # type: ignore[attr-defined]
            return True
    return False


def _print_answer(text: str, ask_at: float, r: Any) -> None:
    print(f"Q: {text}  (asked as of {ask_at:.0f} s into the patrol)")
    if not r.success:
        print(f"   error: {r.error}\n")
        return
    print(f"A: {r.answer}  [confidence {r.confidence:.2f}]")
    for e in r.evidence[:3]:
        where = f" at x={e.pose.pose.position.x:.1f}, y={e.pose.pose.position.y:.1f}" if e.has_pose else ""
        print(f"   evidence: {e.kind} {e.ref} at {to_seconds(e.stamp) - START_STAMP:.1f} s: {e.text[:80]}{where}")
    print()
