"""The main job on its built-in default: replay the sample patrol through the real nodes and question it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from vidmem_ros.tools.launcher import NodeOptions, loopback_env, start_node, stop_processes
from vidmem_ros.tools.sample_bag import CAMERA_TOPIC, PATROL, START_STAMP, questions_path, write_sample_bag


@dataclass(frozen=True)
class DemoQuestion:
    text: str
    ask_at: float | None = None  # seconds into the patrol; None asks after it ended


QUESTIONS = (
    DemoQuestion("Did you see a cat?"),
    DemoQuestion("When did you first see a cup?"),
    DemoQuestion("When did you last see a coffee mug?"),
    DemoQuestion("Where did you see the motorcycle?"),
    DemoQuestion("Did you see a giraffe?"),
    DemoQuestion("Have you seen a motorcycle?", ask_at=60.0),
)


def run_demo(data_dir: Path, rate: float = 4.0) -> int:
    import rclpy

    from vidmem_ros.ros.client import MemoryClient
    from vidmem_ros.tools.replay import replay

    bag = data_dir / "sample_patrol"
    if bag.exists() and not questions_path(bag).exists():  # written by an older demo: the 148 s patrol
        print(f"replacing the older, shorter sample patrol in {bag} ...", flush=True)
        shutil.rmtree(bag)
    if not bag.exists():
        print(f"building the ten-minute sample patrol bag in {bag} (a minute or two) ...", flush=True)
        write_sample_bag(bag, scenario=PATROL)
    store = data_dir / "demo" / "memory.db"
    shutil.rmtree(store.parent, ignore_errors=True)
    store.parent.mkdir(parents=True)
    env = loopback_env()
    options = NodeOptions(store=str(store), camera=CAMERA_TOPIC.removesuffix("/compressed"))
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
        print(f"replaying {bag} at {rate}x through the ingest node ...", flush=True)
        result = replay(node, bag, rate=rate)
        frames = result.published[CAMERA_TOPIC]
        stats = client.wait_until_idle(frames, timeout_s=120.0)
        if stats is None:
            print("ingestion did not finish; see the node logs in", logs)
            return 1
        bag_s = (result.last_stamp_ns - result.first_stamp_ns) * 1e-9
        drops = ", ".join(f"{r} {c}" for r, c in zip(stats.drop_reasons, stats.drop_counts, strict=True))
        print(
            f"\n{frames} frames over {bag_s:.0f} s of patrol replayed in {result.wall_s:.1f} s; "
            f"the ingest node received {stats.frames_received}, kept {stats.frames_kept} ({drops})\n"
        )
        for question in QUESTIONS:
            as_of = START_STAMP + question.ask_at if question.ask_at is not None else None
            response = client.ask(question.text, as_of=as_of)
            _print_answer(question, response)
        return 0
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(nodes)


def _wait_started(client: object, nodes: list[subprocess.Popen[bytes]], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in nodes):
            return False
        if client.wait_for_service(0.5) and client.wait_for_stats(lambda s: True, 0.5) is not None:  # type: ignore[attr-defined]
            return True
    return False


def _print_answer(question: DemoQuestion, response: object) -> None:
    r = response
    when = f" (asked as of {question.ask_at:.0f} s into the patrol)" if question.ask_at is not None else ""
    print(f"Q: {question.text}{when}")
    if not r.success:  # type: ignore[attr-defined]
        print(f"   error: {r.error}\n")  # type: ignore[attr-defined]
        return
    print(f"A: {r.answer}  [confidence {r.confidence:.2f}]")  # type: ignore[attr-defined]
    for e in r.evidence:  # type: ignore[attr-defined]
        t = e.stamp.sec + e.stamp.nanosec * 1e-9 - START_STAMP
        where = f" at x={e.pose.pose.position.x:.1f}, y={e.pose.pose.position.y:.1f}" if e.has_pose else ""
        print(f"   evidence: {e.kind} {e.ref} at {t:.1f} s into the patrol: {e.text}{where}")
    print()
