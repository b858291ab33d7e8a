"""``vidmem bench faults``: the real ingest and query nodes under faults, measured from outside.

The nodes run as processes (cpu profile, a temporary store, DDS on loopback) while a camera streams the
sample patrol's rooms (640x480 rgb8, the camera panning, no stops) at ``--camera-hz`` with odometry at every
frame's stamp.  Everything is read from the topics (``memory_stats``, ``query``) and from the store; nothing
is asserted, every figure is printed, and the last line of output is all of them as JSON.

1. Concurrent clients: ``--clients`` threads, each with its own ``query`` client, ask ``--questions``
   questions each, all at once, while the camera streams: answered and failed (an error, ``success=false``
   or no answer within 30 s) and the latency of the answered ones.
2. Flood: malformed messages of every subscribed type, round robin, at ``--flood-rate`` for ``--flood-s``,
   stamped with the camera stream's clock as they are sent (frames stamped in 2038 excepted), among the
   camera's valid frames and odometry.  The camera pauses and ingestion drains before and after, so the
   ``memory_stats`` counters differ by exactly what the flood window brought: frames received, kept and
   dropped by reason (a frame received and neither kept nor dropped is *unaccounted*; one sent and never
   received was lost in transport), audio chunks and poses dropped by reason against those sent, the node's
   RSS, and whether it kept publishing ``memory_stats`` and answering a question a second.
3. ``kill -9`` rounds: after a random delay (``--seed``) the ingest process is killed, the store is checked
   (``PRAGMA integrity_check``) and a new ingest process starts on it while the camera streams on.

   - *loss window*: the kept frames that memory lost, in seconds of stream.  The rate gate keeps one frame
     a working interval (1 / ``ingest.sample_fps``) on a grid that runs on from the last kept frame, within
     the gate's tolerance, so the frames it had accepted past the newest moment committed to the store
     (read after the kill) are the grid slots up to the newest frame published before the kill: the loss
     window is their count times the interval.  (It assumes the content gates keep the panning camera's
     frames; the quiet window's kept / expected shows how far that holds.)  ``head - committed`` is the raw
     stream time between that newest frame and the newest committed moment.
   - *restart*: seconds from the new process's start to its first ``memory_stats`` message and to the first
     new moment committed to the store.
   - *during the restart*: frames published from the kill to that first new moment, and of them how many
     memory kept (moments stamped in that window, counted once ingestion has drained) against the working
     rate's expectation (the window's stream seconds times ``sample_fps``).

4. Clock faults (``bench_clock``, in-process before the nodes start): a bag looped three times and a live clock
   set an hour back, through the real intake, engine and reasoner: the frames kept and refused at each jump,
   the runs memory made of them, where memory begins, and the answers to "how many times", "last", "first" and
   "in the last minute".
5. Store faults (``bench_store_faults``, in-process before the nodes start): a store filled through the real
   engine, then damaged (4 KB of random bytes over a page of records) or cut to half, opened as the ingest node
   opens its store: how long the open and the check took, that the damaged file was set aside and its bytes never
   changed (by the open nor by ``vidmem doctor --repair``), what the repair recovered against what the store held,
   and the planted sign and sighting answered from the recovered file; and a full disk (SQLite's page cap, as the
   tests make one): the frames kept before it filled and refused after, how many log lines named it, the answers
   from what was kept, and the frames kept once space is freed.

Run it where DDS may use loopback, as ``scripts/run_isolated.sh vidmem bench faults``.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_dev.bench_clock import clock_faults, clock_lines
from vidmem_dev.bench_nodes import (
    PacedStream,
    drops,
    frame_drops,
    image_msg,
    percentiles,
    progress,
    wait_until_up,
)
from vidmem_dev.bench_store_faults import store_faults, store_lines
from vidmem_ros.command.launcher import NodeOptions, loopback_env, start_node, stop_processes
from vidmem_ros.ingest.gates import RATE_TOLERANCE

NAMESPACE = "/vidmem_faults"
CAMERA = "/vidmem_faults_cam/image_raw"
ODOM = "/vidmem_faults_odom"
AUDIO = "/vidmem_faults_audio"
T0 = 1_775_000_000.0
YEAR_2038 = 2_147_483_647.0  # the last second of a signed 32-bit time_t
QUESTIONS = (
    "Did you see a cup?",
    "When did you last see a cat?",
    "Where did you see a person?",
    "How many times did you see a motorcycle?",
    "What did you see?",
)
ANSWER_TIMEOUT_S = 30.0
RESTART_TIMEOUT_S = 120.0
STOP_GRACE_S = 30.0  # for the nodes to shut down cleanly at the end
KILL_DELAY_S = (1.0, 4.0)  # a round kills this long (uniform) after the node is back
SETTLE_S = 1.0  # stream time let run after a pause before a measured window


@dataclass
class Settings:
    rounds: int = 5
    camera_hz: float = 10.0
    sample_fps: float | None = None  # None: the cpu profile's ingest.sample_fps
    flood_rate: float = 500.0
    flood_s: float = 10.0
    clients: int = 8
    questions: int = 10
    seed: int = 0

    @classmethod
    def quick(cls, **overrides: Any) -> Settings:
        """A smoke run: one kill round, a short slow flood, two clients."""
        return replace(cls(**overrides), rounds=1, flood_rate=100.0, flood_s=3.0, clients=2, questions=3)


@dataclass
class KillRound:
    delay_s: float
    alive_before_kill: bool
    queue_depth_before_kill: int | None
    head_stamp: float  # newest frame published before the kill
    committed_stamp: float  # newest moment in the store after it
    loss_window_s: float
    lost_frames: int
    head_minus_committed_s: float
    integrity_ok: bool
    down_s: float  # kill to the new process's start (the store check)
    to_stats_s: float | None
    to_first_moment_s: float | None
    window: tuple[float, float]  # stamps (after the kill, up to the first new moment]
    published_during: int
    kept_during: int | None = None
    expected_during: float = 0.0

    @property
    def restarted(self) -> bool:
        return self.to_first_moment_s is not None


@dataclass(frozen=True)
class Malformed:
    """One kind of bad message: the publisher it goes out on and the message, restamped as it is sent."""

    name: str
    topic: str  # image, compressed, audio or odom
    msg: Any
    stamp: float | None = None  # a fixed stamp; None: the camera stream's clock when sent


def run_faults_bench(settings: Settings, json_path: Path | None = None) -> dict[str, Any]:
    env = loopback_env()
    os.environ.update(env)  # before rclpy starts DDS in this process
    import rclpy

    from vidmem_ros.config import load_config

    fps = settings.sample_fps or load_config().ingest.sample_fps
    workdir = Path(tempfile.mkdtemp(prefix="vidmem-bench-faults-"))
    options = NodeOptions(
        store=str(workdir / "memory.db"),
        camera=CAMERA,
        transport="both",  # malformed frames of either kind
        odom=ODOM,
        audio=AUDIO,
        namespace=NAMESPACE,
        params={"ingest.sample_fps": fps},
    )
    progress(f"starting the ingest and query nodes (logs in {workdir}) ...")
    rclpy.init()
    bench: FaultBench | None = None
    figures: dict[str, Any] = {
        "settings": {**asdict(settings), "sample_fps": fps},
        "machine": {"cpus": os.cpu_count(), "load_start": os.getloadavg()},
    }
    progress("clock faults: a bag looped 3 times, a clock set 1 h back ...")
    figures["clock"] = clock_faults(workdir / "clock")
    progress("store faults: a damaged store, a truncated store, a full disk ...")
    figures["store"] = store_faults(workdir / "store")
    try:
        bench = FaultBench(settings, fps, options, env, workdir)
        figures["startup_s"] = bench.start()
        bench.quiet(max(settings.flood_s, 3.0))
        progress(f"{settings.clients} clients x {settings.questions} questions while ingesting ...")
        figures["clients"] = bench.clients()
        progress(f"flood: {settings.flood_rate:g} malformed messages/s for {settings.flood_s:g} s ...")
        figures["flood"] = bench.flood()
        rounds = [bench.kill_round(i) for i in range(settings.rounds)]
        figures.update(bench.finish(rounds))
        figures["machine"]["load_end"] = os.getloadavg()
    finally:
        if bench is not None:
            bench.close()
        rclpy.shutdown()
    shutil.rmtree(workdir, ignore_errors=True)
    print(format_figures(figures))
    print(json.dumps(figures, default=_plain))
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2, default=_plain))
    return figures


class FaultBench:
    """The nodes, the camera and the store, and one method per measured phase."""

    def __init__(
        self, settings: Settings, fps: float, options: NodeOptions, env: dict[str, str], workdir: Path
    ) -> None:
        import rclpy
        from vidmem_ros.msg import MemoryStats

        from vidmem_ros.ros.client import MemoryClient

        self.settings, self.fps, self.options, self.env, self.workdir = settings, fps, options, env, workdir
        self.rng = random.Random(settings.seed)
        self.procs = {w: start_node(w, options, env, str(workdir / f"{w}.log")) for w in ("ingest", "query")}
        self.started = time.monotonic()
        self.node = rclpy.create_node("vidmem_bench_faults")
        self.client = MemoryClient(self.node, NAMESPACE)
        self.history: list[tuple[float, Any]] = []  # (arrival, memory_stats)
        self.node.create_subscription(
            MemoryStats, f"{NAMESPACE}/memory_stats", lambda m: self.history.append((time.monotonic(), m)), 10
        )
        self.publishers = sensor_publishers(self.node)
        self.camera = RobotCamera(self.publishers, settings.camera_hz)
        self.store: Any = None
        self.windows: dict[str, tuple[float, float]] = {}

    # -- phases ------------------------------------------------------------------------

    def start(self) -> float:
        """Seconds until the nodes serve and the first moment is committed."""
        from vidmem_ros.memory.store import SqliteStore

        publishers, procs = list(self.publishers.values()), list(self.procs.values())
        wait_until_up(self.node, self.client, publishers, procs, self.workdir)
        self.store = SqliteStore(self.options.store, readonly=True)
        self.camera.stream.start()
        if self._spin_until(lambda: self._newest() > -math.inf, RESTART_TIMEOUT_S) is None:
            raise RuntimeError(f"no moment was committed; see {self.workdir}/ingest.log")
        return time.monotonic() - self.started

    def quiet(self, seconds: float) -> None:
        """The camera alone, for comparison with the windows of the other phases."""
        self.windows["quiet"] = self._window(lambda: self._spin_for(seconds))

    def clients(self) -> dict[str, Any]:
        import rclpy
        from rclpy.executors import MultiThreadedExecutor
        from vidmem_ros.srv import Query

        s = self.settings
        node = rclpy.create_node("vidmem_bench_clients")
        executor = MultiThreadedExecutor()
        executor.add_node(node)
        spinner = threading.Thread(target=executor.spin, name="bench-clients", daemon=True)
        spinner.start()
        try:
            services = [node.create_client(Query, f"{NAMESPACE}/query") for _ in range(s.clients)]
            for service in services:
                service.wait_for_service(timeout_sec=ANSWER_TIMEOUT_S)
            results: list[tuple[bool, float]] = []
            lock = threading.Lock()

            def ask_all(service: Any, offset: int) -> None:
                for q in range(s.questions):
                    outcome = _call(service, Query.Request(question=QUESTIONS[(offset + q) % len(QUESTIONS)]))
                    with lock:
                        results.append(outcome)

            threads = [threading.Thread(target=ask_all, args=(c, i)) for i, c in enumerate(services)]
            start = time.monotonic()
            _run_all(threads)
            wall_s = time.monotonic() - start
        finally:
            executor.shutdown()
            spinner.join()
            node.destroy_node()
        return _answered(results) | {"wall_s": wall_s}

    def flood(self) -> dict[str, Any]:
        before = self._pause_and_drain()
        published = self.camera.stream.published
        self.camera.stream.resume()
        self._spin_for(SETTLE_S)
        kinds = malformed_messages()
        flood = Flood(self.camera, self.publishers, kinds, self.settings.flood_rate, self.settings.flood_s)
        t0 = time.monotonic()
        questions: list[tuple[bool, float]] = []
        self.windows["flood"] = self._window(lambda: self._ask_while(flood, questions))
        t1 = time.monotonic()
        self._spin_for(SETTLE_S)
        after = self._pause_and_drain()
        valid = self.camera.stream.published - published
        self.camera.stream.resume()
        figures = {
            "sent": dict(flood.sent),
            "malformed": sum(flood.sent.values()),
            "rate_achieved": flood.stream.published / flood.stream.wall_s if flood.stream.wall_s else 0.0,
            "valid_frames": valid,
            "questions": _answered(questions),
            "stats_messages": self._stats_during(t0, t1),
            "ingest_alive": self.procs["ingest"].poll() is None,
        }
        if before is None or after is None:
            return figures | {"error": f"the ingest node stopped publishing memory_stats; see {self.workdir}"}
        peak = max((m.ram_bytes for t, m in self.history if t0 <= t <= t1), default=0)
        rss = {"before": before.ram_bytes, "after": after.ram_bytes, "peak": peak}
        accounting = _flood_accounting(before, after, kinds, flood.sent, valid)
        return figures | accounting | {"rss_mb": {k: v / 2**20 for k, v in rss.items()}}

    def kill_round(self, index: int) -> KillRound:
        delay = self.rng.uniform(*KILL_DELAY_S)
        progress(f"kill -9 round {index + 1}/{self.settings.rounds}: killing the ingest node in {delay:.1f} s ...")
        self._spin_for(delay)
        ingest = self.procs["ingest"]
        alive = ingest.poll() is None
        stats = self.client.stats()
        head, published = self.camera.stream.last_stamp, self.camera.stream.published
        ingest.kill()
        killed = time.monotonic()
        ingest.wait()
        committed = self._newest()
        intact = self.store.integrity_ok()
        started_wall, started = time.time(), time.monotonic()
        self.procs["ingest"] = start_node("ingest", self.options, self.env, str(self.workdir / f"ingest.{index}.log"))
        to_stats, to_moment = self._wait_restart(started_wall, started, committed)
        lost = max(0, math.floor((head - committed) * self.fps + RATE_TOLERANCE)) if committed > -math.inf else 0
        return KillRound(
            delay_s=delay,
            alive_before_kill=alive,
            queue_depth_before_kill=stats.queue_depth if stats is not None else None,
            head_stamp=head,
            committed_stamp=committed,
            loss_window_s=lost / self.fps,
            lost_frames=lost,
            head_minus_committed_s=head - committed,
            integrity_ok=intact,
            down_s=started - killed,
            to_stats_s=to_stats,
            to_first_moment_s=to_moment,
            window=(head, self.camera.stream.last_stamp),
            published_during=self.camera.stream.published - published,
        )

    def finish(self, rounds: list[KillRound]) -> dict[str, Any]:
        """Stop the camera, let ingestion drain, count what each window kept, stop the nodes, check the store."""
        progress("draining and stopping the nodes ...")
        self.camera.stream.stop()
        drained = self.client.wait_until_idle(None, timeout_s=60, settle_s=2.0)
        last_published = self.camera.stream.last_stamp
        for r in rounds:
            r.kept_during, r.expected_during = self._kept(r.window)
        windows = {
            name: dict(zip(("kept", "expected"), self._kept(w), strict=True)) for name, w in self.windows.items()
        }
        # A node closes its open event on SIGINT (caption, links, commit): on a loaded machine that takes longer
        # than a launcher's usual grace, and a kill here would be the bench's doing, not the node's.
        stop_processes(list(self.procs.values()), grace_s=STOP_GRACE_S)
        newest = self._newest()
        return {
            "kills": [asdict(r) | {"restarted": r.restarted} for r in rounds],
            "kill_summary": _kill_summary(rounds),
            "windows": windows,
            "end": {
                "drained": drained is not None,
                "integrity_ok": self.store.integrity_ok(),
                "moments": self.store.moment_count(),
                "events": self.store.event_count(),
                "quarantined_events": self.store.event_count("quarantined"),
                "stored_after_last_frame": newest > last_published + 1e-6,
                "exit_codes": {w: p.returncode for w, p in self.procs.items()},
            },
        }

    def close(self) -> None:
        self.camera.stream.stop()
        if self.store is not None:
            self.store.close()
        self.node.destroy_node()
        stop_processes(list(self.procs.values()))

    # -- helpers -------------------------------------------------------------------------

    def _window(self, run: Callable[[], object]) -> tuple[float, float]:
        """The stamps (first, last] of the camera frames published while ``run`` runs."""
        first = self.camera.stream.last_stamp
        run()
        return first, self.camera.stream.last_stamp

    def _kept(self, window: tuple[float, float]) -> tuple[int, float]:
        """Moments stamped in the window (first, last], and the working rate's expectation for it."""
        first, last = window
        kept = len(self.store.moments(first + 1e-6, last, limit=1_000_000))
        return kept, (last - first) * self.fps

    def _newest(self) -> float:
        span = self.store.time_span()
        return -math.inf if span is None else span[1]

    def _spin_for(self, seconds: float) -> None:
        self._spin_until(lambda: False, seconds)

    def _spin_until(self, done: Callable[[], bool], timeout_s: float) -> float | None:
        """Spin the bench node until ``done()``; the seconds it took, or None at the timeout."""
        import rclpy

        start = time.monotonic()
        while time.monotonic() - start < timeout_s:
            if done():
                return time.monotonic() - start
            rclpy.spin_once(self.node, timeout_sec=0.05)
        return None

    def _wait_restart(self, started_wall: float, started: float, committed: float) -> tuple[float | None, float | None]:
        """Seconds from the new ingest process's start to its first memory_stats and its first new moment."""
        from vidmem_ros.ros.convert import to_seconds

        marks: dict[str, float] = {}

        def back() -> bool:
            stats = self.client.stats()
            if "stats" not in marks and stats is not None and to_seconds(stats.header.stamp) >= started_wall:
                marks["stats"] = time.monotonic() - started
            if "moment" not in marks and self._newest() > committed:
                marks["moment"] = time.monotonic() - started
            return len(marks) == 2 or self.procs["ingest"].poll() is not None

        self._spin_until(back, RESTART_TIMEOUT_S)
        return marks.get("stats"), marks.get("moment")

    def _pause_and_drain(self) -> Any:
        """Pause the camera and wait until the ingest node has taken in and processed everything sent."""
        self.camera.stream.pause()
        return self.client.wait_until_idle(None, timeout_s=60, settle_s=2.0)

    def _ask_while(self, flood: Flood, answers: list[tuple[bool, float]]) -> None:
        """Run the flood, asking a question a second until it ends."""
        flood.stream.start()
        while flood.stream.is_alive():
            t = time.monotonic()
            try:
                response = self.client.ask(QUESTIONS[len(answers) % len(QUESTIONS)], timeout_s=ANSWER_TIMEOUT_S)
                answers.append((bool(response.success), time.monotonic() - t))
            except TimeoutError:
                answers.append((False, time.monotonic() - t))
            self._spin_until(lambda: not flood.stream.is_alive(), max(0.0, 1.0 - (time.monotonic() - t)))
        flood.stream.join()

    def _stats_during(self, t0: float, t1: float) -> dict[str, Any]:
        arrivals = [t0] + [t for t, _ in self.history if t0 <= t <= t1] + [t1]
        return {"count": len(arrivals) - 2, "longest_gap_s": max(b - a for a, b in pairwise(arrivals))}


def sensor_publishers(node: Any) -> dict[str, Any]:
    """A publisher on every topic the ingest node subscribes to, by the name ``Malformed.topic`` uses."""
    from nav_msgs.msg import Odometry
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import CompressedImage, Image
    from vidmem_ros.msg import AudioChunk

    return {
        "image": node.create_publisher(Image, CAMERA, qos_profile_sensor_data),
        "compressed": node.create_publisher(CompressedImage, CAMERA + "/compressed", qos_profile_sensor_data),
        "audio": node.create_publisher(AudioChunk, AUDIO, qos_profile_sensor_data),
        "odom": node.create_publisher(Odometry, ODOM, 50),
    }


class RobotCamera:
    """The sample patrol's camera panning through its rooms (stops taken out), odometry at each frame's stamp."""

    def __init__(self, publishers: dict[str, Any], rate_hz: float) -> None:
        from vidmem_dev.sample_bag import SHORT_PATROL, Camera, duration

        rooms = tuple(replace(room, stop_s=None) for room in SHORT_PATROL)
        self.view, self.loop_s = Camera(rooms), duration(rooms)
        self.image, self.odom = publishers["image"], publishers["odom"]
        self.stream = PacedStream(self._publish, rate_hz, T0, name="bench-camera")

    def _publish(self, i: int, stamp: float) -> None:
        from vidmem_ros.ros.convert import to_time

        t = (stamp - T0) % self.loop_s
        msg = image_msg(self.view.frame(t))
        msg.header.stamp = to_time(stamp)
        self.image.publish(msg)
        x, y, yaw = self.view.pose(t)
        self.odom.publish(odometry(stamp, x, y, math.sin(yaw / 2), math.cos(yaw / 2)))


class Flood:
    """Sends ``kinds`` round robin at ``rate_hz`` for ``duration_s``, each stamped with the camera stream's time
    of sending (as a faulty driver on the same clock would), so they compete with the valid frames for the gates."""

    def __init__(
        self,
        camera: RobotCamera,
        publishers: dict[str, Any],
        kinds: Sequence[Malformed],
        rate_hz: float,
        duration_s: float,
    ) -> None:
        self.camera, self.publishers, self.kinds = camera, publishers, kinds
        self.sent: Counter[str] = Counter()
        self.stream = PacedStream(self._publish, rate_hz, 0.0, duration_s, name="bench-flood")

    def _publish(self, i: int, _: float) -> None:
        from vidmem_ros.ros.convert import to_time

        kind = self.kinds[i % len(self.kinds)]
        kind.msg.header.stamp = to_time(kind.stamp if kind.stamp is not None else self.camera.stream.clock())
        self.publishers[kind.topic].publish(kind.msg)
        self.sent[kind.name] += 1


def malformed_messages() -> list[Malformed]:
    """One message of each kind of bad input the nodes subscribe to."""
    from sensor_msgs.msg import CompressedImage, Image
    from vidmem_ros.msg import AudioChunk

    from vidmem_dev.sample_images import photo

    rng = np.random.default_rng(0)
    small = rng.integers(0, 256, 64 * 48 * 3, dtype=np.uint8).tobytes()

    def image(width: int, height: int, encoding: str, step: int, data: bytes) -> Image:
        return Image(width=width, height=height, encoding=encoding, step=step, data=data)

    def audio(rate: int, channels: int, encoding: str, size: int) -> AudioChunk:
        return AudioChunk(sample_rate=rate, channels=channels, encoding=encoding, data=bytes(size))

    return [
        Malformed("image_wrong_step", "image", image(64, 48, "rgb8", 64 * 3 - 1, small)),
        Malformed("image_unknown_encoding", "image", image(64, 48, "yuv_bogus", 64 * 3, small)),
        Malformed("image_truncated", "image", image(640, 480, "rgb8", 640 * 3, small[:1000])),
        Malformed("image_zero_size", "image", image(0, 0, "rgb8", 0, b"")),
        Malformed("image_huge_size", "image", image(100_000, 100_000, "rgb8", 300_000, small[:64])),
        Malformed("image_2038", "image", image_msg(photo("coffee", (160, 120))), stamp=YEAR_2038),
        Malformed("compressed_random_bytes", "compressed", CompressedImage(format="jpeg", data=small[:4096])),
        Malformed("compressed_empty", "compressed", CompressedImage(format="png", data=b"")),
        Malformed("audio_zero_rate", "audio", audio(0, 1, "S16LE", 3200)),
        Malformed("audio_absurd_rate", "audio", audio(4_000_000_000, 1, "S16LE", 3200)),
        Malformed("audio_odd_bytes", "audio", audio(16_000, 1, "S16LE", 3201)),
        Malformed("audio_no_channels", "audio", audio(16_000, 0, "S16LE", 3200)),
        Malformed("audio_unknown_encoding", "audio", audio(16_000, 1, "MP3", 3200)),
        Malformed("odom_nan_position", "odom", odometry(0.0, math.nan, 0.0, 0.0, 1.0)),
        Malformed("odom_inf_orientation", "odom", odometry(0.0, 1.0, 0.0, 0.0, math.inf)),
        Malformed("odom_zero_quaternion", "odom", odometry(0.0, 1.0, 0.0, 0.0, 0.0)),
        Malformed("odom_no_frame_id", "odom", odometry(0.0, 1.0, 0.0, 0.0, 1.0, frame_id="")),
    ]


def odometry(stamp: float, x: float, y: float, qz: float, qw: float, frame_id: str = "map") -> Any:
    from nav_msgs.msg import Odometry

    from vidmem_ros.ros.convert import to_time

    msg = Odometry()
    msg.header.stamp, msg.header.frame_id = to_time(stamp), frame_id
    msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
    msg.pose.pose.orientation.z, msg.pose.pose.orientation.w = qz, qw
    return msg


def format_figures(f: dict[str, Any]) -> str:
    s, m = f["settings"], f["machine"]
    lines = [
        f"vidmem bench faults: {m['cpus']} CPUs, load {_load(m['load_start'])} at start, "
        f"{_load(m.get('load_end', (math.nan,) * 3))} at end; camera {s['camera_hz']:g} Hz (sample patrol rooms, "
        f"640x480 rgb8, odometry), working rate {s['sample_fps']:g} fps; first moment {f['startup_s']:.1f} s "
        "after the nodes' start",
        "",
        _clients_lines(f),
        *_flood_lines(f),
        *_kill_lines(f),
        _end_line(f["end"]),
        *clock_lines(f["clock"]),
        *store_lines(f["store"]),
    ]
    return "\n".join(lines)


def _clients_lines(f: dict[str, Any]) -> str:
    s, c = f["settings"], f["clients"]
    return (
        f"1. {s['clients']} clients x {s['questions']} questions on query at once while ingesting: answered "
        f"{c['answered']} of {c['asked']}, failed {c['failed']} in {c['wall_s']:.1f} s; {_ms(c['latency'])}"
    )


def _flood_lines(f: dict[str, Any]) -> list[str]:
    s, fl = f["settings"], f["flood"]
    lines = [
        f"2. flood: {fl['malformed']} malformed messages of {len(fl['sent'])} kinds at {fl['rate_achieved']:.0f}/s "
        f"(asked {s['flood_rate']:g}/s) for {s['flood_s']:g} s, among {fl['valid_frames']} valid frames",
    ]
    if "error" in fl:
        return [*lines, f"   {fl['error']}"]
    fr, au, po, rss, q, st = fl["frames"], fl["audio"], fl["poses"], fl["rss_mb"], fl["questions"], fl["stats_messages"]
    return [
        *lines,
        f"   frames: sent {fr['sent']}, received {fr['received']} (lost in transport {fr['lost_in_transport']}), "
        f"kept {fr['kept']}, unaccounted {fr['unaccounted']}; dropped: {_reasons(fr['dropped'])}",
        f"   audio: sent {au['sent']}, uncounted {au['uncounted']}; dropped: {_reasons(au['dropped'])}",
        f"   poses: sent {po['sent']}, uncounted {po['uncounted']}; refused: {_reasons(po['refused'])}",
        f"   valid frames kept during the flood: {_kept(f['windows']['flood'])} (camera alone: "
        f"{_kept(f['windows']['quiet'])})",
        f"   ingest RSS: {rss['before']:.0f} MB before, {rss['after']:.0f} MB after, peak {rss['peak']:.0f} MB",
        f"   kept answering: {q['answered']} of {q['asked']} questions ({_ms(q['latency'])}); {st['count']} "
        f"memory_stats messages, longest gap {st['longest_gap_s']:.1f} s; ingest alive: {fl['ingest_alive']}",
    ]


def _kill_lines(f: dict[str, Any]) -> list[str]:
    s, k = f["settings"], f["kill_summary"]
    lines = [
        f"3. kill -9 of the ingest node, {k['rounds']} rounds (seed {s['seed']}), restarted on the same store: "
        f"restarted {k['restarted']}, integrity ok {k['integrity_ok']}",
        "   round  killed after  loss window  head-committed  integrity  restart: to stats  to 1st moment"
        "  during restart: kept/expected/published",
    ]
    for i, r in enumerate(f["kills"], start=1):
        lines.append(
            f"   {i:5d}  {r['delay_s']:10.1f} s  {r['loss_window_s']:9.1f} s  {r['head_minus_committed_s']:12.1f} s"
            f"  {'ok' if r['integrity_ok'] else 'FAILED':>9}  {_s(r['to_stats_s']):>17}  {_s(r['to_first_moment_s']):>13}"
            f"  {r['kept_during']}/{r['expected_during']:.1f}/{r['published_during']}"
        )
    for key, label in (
        ("loss_window_s", "loss window, s"),
        ("to_stats_s", "restart to memory_stats, s"),
        ("to_first_moment_s", "restart to the first new moment, s"),
        ("kept_during_restart", "frames kept during the restart"),
        ("expected_during_restart", "  expected at the working rate"),
    ):
        v = k[key]
        lines.append(f"   {label:36s} min {_s(v['min'])}  median {_s(v['median'])}  max {_s(v['max'])}")
    return lines


def _end_line(e: dict[str, Any]) -> str:
    codes = ", ".join(f"{w} {c}" for w, c in e["exit_codes"].items())
    return (
        f"end: integrity {'ok' if e['integrity_ok'] else 'FAILED'}; {e['moments']} moments, {e['events']} events "
        f"({e['quarantined_events']} quarantined); stored after the last frame: {e['stored_after_last_frame']}; "
        f"drained: {e['drained']}; exit codes on SIGINT: {codes}"
    )


def _kept(window: dict[str, float]) -> str:
    return f"{window['kept']} of {window['expected']:.1f} expected"


def _reasons(counts: dict[str, int]) -> str:
    return ", ".join(f"{r} {n}" for r, n in counts.items()) or "-"


def _ms(row: dict[str, float]) -> str:
    return f"p50 {row['p50'] * 1e3:.0f} ms, p95 {row['p95'] * 1e3:.0f} ms, max {row['max'] * 1e3:.0f} ms"


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _load(values: Sequence[float]) -> str:
    return "/".join(f"{v:.2f}" for v in values)


def _flood_accounting(
    before: Any, after: Any, kinds: Sequence[Malformed], sent: Counter[str], valid_frames: int
) -> dict[str, Any]:
    """What the counters say the flood window brought, per input stream, against what was sent."""
    by_topic: Counter[str] = Counter()
    for kind in kinds:
        by_topic["frames" if kind.topic in ("image", "compressed") else kind.topic] += sent[kind.name]
    received = after.frames_received - before.frames_received
    kept = after.frames_kept - before.frames_kept
    frame_delta = _delta(frame_drops(before), frame_drops(after))
    all_delta = _delta(drops(before), drops(after))
    audio = {r: n for r, n in all_delta.items() if r.startswith("audio_")}
    poses = {r: n for r, n in all_delta.items() if r.startswith("pose_")}
    return {
        "frames": {
            "sent": by_topic["frames"] + valid_frames,
            "received": received,
            "lost_in_transport": by_topic["frames"] + valid_frames - received,
            "kept": kept,
            "dropped": frame_delta,
            "unaccounted": received - kept - sum(frame_delta.values()),
        },
        "audio": {"sent": by_topic["audio"], "dropped": audio, "uncounted": by_topic["audio"] - sum(audio.values())},
        "poses": {"sent": by_topic["odom"], "refused": poses, "uncounted": by_topic["odom"] - sum(poses.values())},
    }


def _delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {r: n - before.get(r, 0) for r, n in sorted(after.items()) if n - before.get(r, 0)}


def _kill_summary(rounds: Sequence[KillRound]) -> dict[str, Any]:
    def spread(values: Sequence[float | None]) -> dict[str, float | None]:
        known = [v for v in values if v is not None]
        if not known:
            return {"min": None, "median": None, "max": None}
        return {"min": min(known), "median": statistics.median(known), "max": max(known)}

    return {
        "rounds": len(rounds),
        "restarted": sum(r.restarted for r in rounds),
        "integrity_ok": sum(r.integrity_ok for r in rounds),
        "loss_window_s": spread([r.loss_window_s for r in rounds]),
        "head_minus_committed_s": spread([r.head_minus_committed_s for r in rounds]),
        "to_stats_s": spread([r.to_stats_s for r in rounds]),
        "to_first_moment_s": spread([r.to_first_moment_s for r in rounds]),
        "kept_during_restart": spread([r.kept_during for r in rounds]),
        "expected_during_restart": spread([r.expected_during for r in rounds]),
        "published_during_restart": spread([r.published_during for r in rounds]),
    }


def _call(service: Any, request: Any) -> tuple[bool, float]:
    """(answered, seconds) of one query from a client thread."""
    t = time.monotonic()
    try:
        response = service.call(request, timeout_sec=ANSWER_TIMEOUT_S)
    except Exception:  # any failure of the call counts as not answered
        response = None
    return response is not None and bool(response.success), time.monotonic() - t


def _run_all(threads: Sequence[threading.Thread]) -> None:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _answered(outcomes: Sequence[tuple[bool, float]]) -> dict[str, Any]:
    latencies = [t for ok, t in outcomes if ok]
    failed = len(outcomes) - len(latencies)
    return {"asked": len(outcomes), "answered": len(latencies), "failed": failed, "latency": percentiles(latencies)}


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return str(value)
