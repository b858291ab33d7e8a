"""``vidmem bench ros``: the real ingest and query nodes, as processes over DDS, measured from outside.

Three parts, all printed (nothing is asserted):

1. End-to-end latency: one 640x480 rgb8 photo published on the camera topic with a unique stamp
   (photos spaced ``LATENCY_SPACING_S`` apart in sensor time, so each passes the rate gate and starts
   a new scene), then ``search_memory`` for its label polled until a hit carries that stamp.  The time
   from ``publish`` to the first such answer, p50/p95 over ``--latency-runs`` photos.
2. Service round trip: ``query`` with a question memory cannot answer ("Did you see a giraffe?"),
   p50/p95 over ``--rtt-calls`` calls, so the figure is DDS plus the node's parsing, not model work.
3. Camera rate steps: 640x480 rgb8 at each of ``--rates`` for ``--step-s`` seconds, the photo changing
   every second (every sampled frame is new, so the models run once a second: the worst case for the
   gates).  Per step: the rate the publisher achieved, frames the node received, the largest
   ``queue_depth`` in memory_stats (published once a second, so a sample, not a true maximum) and the
   ``queue_full`` drops; a step is within capacity when the queue never fills and nothing is dropped.

Run it where DDS may use loopback, as ``scripts/run_isolated.sh vidmem bench ros``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_dev.bench_nodes import (
    PacedStream,
    frame_drops,
    image_msg,
    percentiles,
    progress,
    wait_until_up,
)
from vidmem_dev.sample_images import photo as sample_photo
from vidmem_ros.command.launcher import NodeOptions, loopback_env, start_node, stop_processes

NAMESPACE = "/vidmem_bench"
CAMERA = "/vidmem_bench_cam/image_raw"
T0 = 1_770_000_000.0
FRAME = (640, 480)
# Photo and the label the cpu profile's detector gives it (as the ROS node tests rely on).
LABELLED = (("chelsea", "cat"), ("coffee", "cup"), ("stereo_motorcycle", "motorcycle"), ("astronaut", "person"))
STEP_PHOTOS = ("coffee", "chelsea", "astronaut", "stereo_motorcycle", "brick", "camera", "rocket", "hubble_deep_field")
LATENCY_SPACING_S = 10.0  # sensor time between latency photos: past the rate gate and the 8 s event minimum
# Sensor time between camera steps: a pause, well inside ingest.max_stamp_jump_s, so no frame is refused as a jump.
STEP_GAP_S = 5.0
LATENCY_TIMEOUT_S = 30.0
DEFAULT_RATES = (5.0, 10.0, 20.0, 30.0, 60.0, 120.0)


@dataclass
class StepResult:
    rate_hz: float
    achieved_hz: float
    published: int
    received: int
    kept: int
    queue_max: int
    queue_capacity: int
    queue_full: int
    other_drops: dict[str, int] = field(default_factory=dict)

    @property
    def within_capacity(self) -> bool:
        return self.queue_full == 0 and self.queue_max < self.queue_capacity


def photo(name: str, size: tuple[int, int] = FRAME) -> np.ndarray:
    return sample_photo(name, size)


def run_ros_bench(
    latency_runs: int = 10,
    rtt_calls: int = 50,
    rates: Sequence[float] = DEFAULT_RATES,
    step_s: float = 10.0,
    json_path: Path | None = None,
    quick: bool = False,
) -> dict[str, Any]:
    if quick:
        latency_runs, rtt_calls, rates, step_s = 3, 10, (5.0, 30.0), 5.0
    env = loopback_env()
    os.environ.update(env)  # before rclpy starts DDS in this process
    import rclpy
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image
    from vidmem_ros.msg import MemoryStats

    from vidmem_ros.ros.client import MemoryClient

    workdir = Path(tempfile.mkdtemp(prefix="vidmem-bench-ros-"))
    options = NodeOptions(store=str(workdir / "memory.db"), camera=CAMERA, namespace=NAMESPACE)
    progress(f"starting the ingest and query nodes (logs in {workdir}) ...")
    started = time.monotonic()
    procs = [start_node(w, options, env, str(workdir / f"{w}.log")) for w in ("ingest", "query")]
    rclpy.init()
    node = rclpy.create_node("vidmem_bench_ros")
    figures: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_start": os.getloadavg()}}
    try:
        client = MemoryClient(node, NAMESPACE)
        camera_pub = node.create_publisher(Image, CAMERA, qos_profile_sensor_data)
        history: list[tuple[float, Any]] = []
        node.create_subscription(
            MemoryStats, f"{NAMESPACE}/memory_stats", lambda m: history.append((time.monotonic(), m)), 10
        )
        wait_until_up(node, client, [camera_pub], procs, workdir)
        figures["startup_s"] = time.monotonic() - started

        # 1. publish -> queryable
        progress(f"end-to-end latency over {latency_runs} photos ...")
        latencies: list[float] = []
        misses = 0
        for i in range(latency_runs):
            name, label = LABELLED[i % len(LABELLED)]
            msg = image_msg(photo(name))
            stamp = T0 + i * LATENCY_SPACING_S
            found = _publish_until_found(client, camera_pub, msg, stamp, label)
            if found is None:
                misses += 1
            else:
                latencies.append(found)
        figures["latency"] = {**percentiles(latencies), "missed": misses, "timeout_s": LATENCY_TIMEOUT_S}

        # 2. a trivial question's round trip
        progress(f"query round trip over {rtt_calls} calls ...")
        rtts = []
        for _ in range(rtt_calls):
            t = time.perf_counter()
            response = client.ask("Did you see a giraffe?", timeout_s=10.0)
            rtts.append(time.perf_counter() - t)
        figures["query_rtt"] = {**percentiles(rtts), "answer": response.answer}

        # 3. camera rate steps
        step_msgs = [image_msg(photo(n)) for n in STEP_PHOTOS]
        stamp0 = T0 + latency_runs * LATENCY_SPACING_S + STEP_GAP_S
        steps: list[StepResult] = []
        for rate in rates:
            progress(f"camera at {rate:g} Hz for {step_s:g} s ...")
            before = client.wait_until_idle(None, timeout_s=60, settle_s=1.0)
            if before is None:
                raise RuntimeError("ingestion did not drain between steps")
            camera = PacedStream(_photo_per_second(camera_pub, step_msgs, rate), rate, stamp0, step_s, "bench-camera")
            t_start = time.monotonic()
            camera.start()
            while camera.is_alive():
                rclpy.spin_once(node, timeout_sec=0.1)
            camera.join()
            t_end = time.monotonic()
            after = client.wait_until_idle(before.frames_received + camera.published, timeout_s=60, settle_s=2.0)
            if after is None:
                raise RuntimeError("ingestion did not drain after a step")
            during = [m for t, m in history if t_start <= t <= t_end + 1.0]
            old, new = frame_drops(before), frame_drops(after)
            delta = {r: n - old.get(r, 0) for r, n in new.items() if n - old.get(r, 0)}
            steps.append(
                StepResult(
                    rate_hz=rate,
                    achieved_hz=(camera.published - 1) / camera.wall_s,
                    published=camera.published,
                    received=after.frames_received - before.frames_received,
                    kept=after.frames_kept - before.frames_kept,
                    queue_max=max((m.queue_depth for m in during), default=0),
                    queue_capacity=after.queue_capacity,
                    queue_full=delta.pop("queue_full", 0),
                    other_drops=delta,
                )
            )
            stamp0 += step_s + STEP_GAP_S
        figures["steps"] = [{**s.__dict__, "within_capacity": s.within_capacity} for s in steps]
        ok = [s.rate_hz for s in steps if s.within_capacity]
        figures["max_rate_without_queue_growth_hz"] = max(ok) if ok else None
        final = client.wait_for_stats(lambda s: True, 5)
        figures["ingest_rss_mb"] = final.ram_bytes / 2**20 if final is not None else None
        figures["nodes_alive"] = all(p.poll() is None for p in procs)
        figures["machine"]["load_end"] = os.getloadavg()
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)
        shutil.rmtree(workdir, ignore_errors=True)
    print(format_figures(figures))
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2, default=str))
    return figures


def _photo_per_second(publisher: Any, msgs: list[Any], rate_hz: float) -> Callable[[int, float], None]:
    """Publishes message ``i`` of a stream at ``rate_hz``: a new photo every second of sensor time."""
    from vidmem_ros.ros.convert import to_time

    def publish(i: int, stamp: float) -> None:
        msg = msgs[int(i / rate_hz) % len(msgs)]
        msg.header.stamp = to_time(stamp)
        publisher.publish(msg)

    return publish


def _publish_until_found(client: Any, publisher: Any, msg: Any, stamp: float, label: str) -> float | None:
    """Seconds from publishing ``msg`` at ``stamp`` to a ``search_memory`` hit for ``label`` at that stamp."""
    from vidmem_ros.ros.convert import to_seconds, to_time

    msg.header.stamp = to_time(stamp)
    t = time.perf_counter()
    publisher.publish(msg)
    deadline = t + LATENCY_TIMEOUT_S
    while time.perf_counter() < deadline:
        found = client.search(label, start=stamp - 0.5, end=stamp + 0.5, timeout_s=10.0)
        if any(abs(to_seconds(r.stamp) - stamp) < 1e-3 for r in found.results):
            return time.perf_counter() - t
        time.sleep(0.01)
    return None


def _ms(row: dict[str, float]) -> str:
    return f"p50 {row['p50'] * 1e3:7.1f} ms   p95 {row['p95'] * 1e3:7.1f} ms   max {row['max'] * 1e3:7.1f} ms   (n={row['n']})"


def format_figures(f: dict[str, Any]) -> str:
    m = f["machine"]
    lines = [
        f"vidmem bench ros: {m['cpus']} CPUs, load {_load(m['load_start'])} at start, "
        f"{_load(m.get('load_end', (math.nan,) * 3))} at end; nodes up in {f['startup_s']:.1f} s",
        "",
        "1. publish -> queryable (640x480 rgb8, search_memory polled)",
        f"   {_ms(f['latency'])}   missed {f['latency']['missed']} (timeout {f['latency']['timeout_s']:.0f} s)",
        "2. query service round trip ('Did you see a giraffe?')",
        f"   {_ms(f['query_rtt'])}",
        f"   answer: {f['query_rtt']['answer']!r}",
        "3. camera rate steps (640x480 rgb8, new photo every second)",
        "   asked Hz  achieved Hz  published  received  kept  queue max/cap  queue_full  other drops",
    ]
    for s in f["steps"]:
        others = ", ".join(f"{r} {n}" for r, n in sorted(s["other_drops"].items())) or "-"
        lines.append(
            f"   {s['rate_hz']:8.0f}  {s['achieved_hz']:11.1f}  {s['published']:9d}  {s['received']:8d}  {s['kept']:4d}"
            f"  {s['queue_max']:6d}/{s['queue_capacity']:<6d}  {s['queue_full']:10d}  {others}"
        )
    best = f["max_rate_without_queue_growth_hz"]
    lines.append(
        f"   highest rate with no queue_full drop and the queue below capacity: "
        f"{'none' if best is None else f'{best:g} Hz'}"
    )
    lines.append(f"ingest node RSS at the end: {f['ingest_rss_mb']:.0f} MB; nodes alive: {f['nodes_alive']}")
    return "\n".join(lines)


def _load(values: Sequence[float]) -> str:
    return "/".join(f"{v:.2f}" for v in values)
