"""The developer commands: ``vidmem demo``, ``make-bag`` and ``bench``, added to the robot's ``vidmem`` command.

The ``vidmem`` script that ``pip install`` puts on the path runs this; a colcon install ships only
``python -m vidmem_ros.command``, without them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vidmem_ros.command.main import Handler, SubParsers
from vidmem_ros.command.main import main as robot_main

DEFAULT_DATA = Path("data")


def main(argv: list[str] | None = None) -> int:
    return robot_main(argv, extensions=(add_commands,))


def add_commands(sub: SubParsers) -> dict[str, Handler]:
    demo = sub.add_parser("demo", help="replay the sample patrol through the real nodes and ask it questions")
    demo.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where the sample bag and demo memory go")
    demo.add_argument("--rate", type=float, default=3.0, help="replay speed factor")

    bag = sub.add_parser(
        "make-bag", help="write the ten-minute sample patrol rosbag2 (MCAP) and its question set (OUT.questions.jsonl)"
    )
    bag.add_argument("out", type=Path)
    bag.add_argument("--camera-hz", type=float, default=10.0)
    bag.add_argument("--raw", action="store_true", help="sensor_msgs/Image instead of CompressedImage")
    bag.add_argument("--short", action="store_true", help="the 148 s patrol without signs or speech (fast tests)")
    bag.add_argument(
        "--who",
        action="store_true",
        help="the 128 s patrol in which five espeak-ng voices talk, and its twenty 'who' questions",
    )
    bag.add_argument(
        "--faces",
        action="store_true",
        help="with --who: packaged faces in its frames too (some seen without speaking, some heard unseen, one at "
        "several places) and questions about people seen (ask them with vidmem eval --set face.backend=dlib); "
        "with --short, its first ten lines over two rooms (78 s)",
    )

    bench = sub.add_parser("bench", help="benchmarks that print figures (they never assert timings)")
    targets = bench.add_subparsers(dest="target", required=True)
    memory = targets.add_parser(
        "memory", help="simulate hours of robot time through the memory layer only (gates, engine, retention)"
    )
    memory.add_argument("--hours", type=float, default=8.0, help="robot (sensor) time to simulate")
    memory.add_argument("--camera-hz", type=float, default=10.0, help="camera frame rate of the simulated robot")
    memory.add_argument("--places", type=int, default=40, help="distinct places the robot visits")
    memory.add_argument("--max-disk-mb", type=float, default=None, help="retention.max_disk_mb (default: the config's)")
    memory.add_argument(
        "--search-sizes",
        type=_sizes,
        default=[10_000, 100_000, 1_000_000],
        metavar="N,N,...",
        help="vector counts for the index search benchmark (empty: skip it)",
    )
    memory.add_argument(
        "--store", type=Path, default=None, help="keep the memory here (a new file; default: a temp dir)"
    )
    memory.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")
    memory.add_argument("--seed", type=int, default=0)
    memory.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 0.25 h of robot time, search at 10k only (overrides --hours and --search-sizes)",
    )
    perception = targets.add_parser(
        "perception",
        help="per-model latency and the whole cpu profile's cost per sampled frame (real-time ratio at 1 FPS)",
    )
    perception.add_argument("--runs", type=int, default=30, help="timed calls per model, after 2 warm-up calls")
    perception.add_argument("--camera-hz", type=float, default=5.0, help="camera rate of the sample patrol")
    perception.add_argument(
        "--sign-share", type=float, default=0.2, help="share of the patrol's room time with a sign in view"
    )
    perception.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")
    perception.add_argument("--seed", type=int, default=0)
    perception.add_argument(
        "--quick", action="store_true", help="smoke run: 5 runs per model, two rooms of the patrol, two sentences"
    )

    evb = targets.add_parser(
        "eval", help="the evaluator on the sample patrol with both baselines: real-time factor, latency, accuracy"
    )
    evb.add_argument("--camera-hz", type=float, default=10.0, help="camera rate of the sample patrol")
    evb.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the scores as JSON")
    evb.add_argument("--keep", type=Path, default=None, metavar="DIR", help="keep the bag, answers and memories here")
    evb.add_argument(
        "--set",
        nargs=2,
        action="append",
        default=[],
        type=Path,
        metavar=("BAG", "QUESTIONS"),
        help="also score this bag and question set (with answers), e.g. a development set; repeatable",
    )
    query = targets.add_parser(
        "query", help="offline-planner latency and LLM-planner tokens per turn on memories of hours of robot time"
    )
    query.add_argument("--hours", type=_rates, default=[1.0, 8.0], metavar="H,H,...", help="memory sizes in hours")
    query.add_argument("--camera-hz", type=float, default=2.0, help="camera rate of the simulated robot")
    query.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")
    query.add_argument("--quick", action="store_true", help="smoke run: a 0.25 h memory only")
    query.add_argument(
        "--dense", action="store_true", help="keep every frame at the working rate (no blur, static or duplicate gate)"
    )
    ros = targets.add_parser(
        "ros",
        help="the real nodes over DDS: publish-to-queryable latency, query round trip, camera rate steps "
        "(run under scripts/run_isolated.sh)",
    )
    ros.add_argument("--latency-runs", type=int, default=10, help="photos timed from publish to queryable")
    ros.add_argument("--rtt-calls", type=int, default=50, help="trivial queries timed for the round trip")
    ros.add_argument(
        "--rates",
        type=_rates,
        default=[5.0, 10.0, 20.0, 30.0, 60.0, 120.0],
        metavar="HZ,HZ,...",
        help="camera rate steps",
    )
    ros.add_argument("--step-s", type=float, default=10.0, help="seconds of camera at each rate")
    ros.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")
    ros.add_argument("--quick", action="store_true", help="smoke run: 3 photos, 10 queries, 5 and 30 Hz for 5 s")
    reading = targets.add_parser(
        "parser",
        help="question-reading latency with the rules, the packaged language model and both, and the query side's "
        "memory with the model loaded",
    )
    reading.add_argument("--limit", type=int, default=0, help="read only this many questions (0: all)")
    reading.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")
    answers = targets.add_parser(
        "answers",
        help="answer latency end to end with the rules alone and with the default parser, on the sample patrol or "
        "a store kept by vidmem eval",
    )
    answers.add_argument("--store", type=Path, default=None, metavar="DB", help="a kept store (default: the patrol)")
    answers.add_argument("--questions", type=Path, default=None, metavar="JSONL", help="its questions (id, ask_at)")
    answers.add_argument("--bag-start", type=float, default=None, help="the recording's start (default: first frame)")
    answers.add_argument(
        "--parsers", default="rules,default", help="query.parser values to time, comma-separated ('default': as set)"
    )
    answers.add_argument("--limit", type=int, default=0, help="answer only this many questions (0: all)")
    answers.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")
    faults = targets.add_parser(
        "faults",
        help="the real nodes over DDS under faults: kill -9 rounds, a flood of malformed messages, concurrent "
        "clients; first, in process, a looped bag, a clock set back, a damaged and a truncated store and a full "
        "disk (run under scripts/run_isolated.sh)",
    )
    faults.add_argument("--rounds", type=int, default=5, help="kill -9 rounds of the ingest node")
    faults.add_argument("--camera-hz", type=float, default=10.0, help="rate of the camera stream")
    faults.add_argument(
        "--sample-fps", type=float, default=None, help="ingest.sample_fps of the node (default: the cpu profile's)"
    )
    faults.add_argument("--flood-rate", type=float, default=500.0, help="malformed messages per second")
    faults.add_argument("--flood-s", type=float, default=10.0, help="seconds of flood")
    faults.add_argument("--clients", type=int, default=8, help="concurrent query clients")
    faults.add_argument("--questions", type=int, default=10, help="questions each client asks")
    faults.add_argument("--seed", type=int, default=0, help="seeds the moments of the kills")
    faults.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")
    faults.add_argument(
        "--quick", action="store_true", help="smoke run: 1 round, 3 s of flood at 100/s, 2 clients x 3 questions"
    )

    fleet = targets.add_parser(
        "fleet",
        help="the fleet store on embedded Milvus Lite: insert rate, recall@10 and p50 / p95 search latency with "
        "robot and time filters at each size, and the sync's throughput and lag",
    )
    fleet.add_argument(
        "--sizes", type=_sizes, default=[100_000], help="moments in the fleet store, e.g. 100000,1000000"
    )
    fleet.add_argument("--robots", type=int, default=10, help="robots the moments are shared among")
    fleet.add_argument("--queries", type=int, default=200, help="queries per filter")
    fleet.add_argument("--batch", type=int, default=10_000, help="moments per upsert (each flushed)")
    fleet.add_argument("--sync-moments", type=int, default=20_000, help="frames of the robot store the sync sends")
    fleet.add_argument("--seed", type=int, default=0)
    fleet.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")

    identity = targets.add_parser(
        "identity",
        help="who spoke: speaker clustering purity, voices found against the truth and the cost per second of audio "
        "on a conversation of espeak-ng voices, with the figures the thresholds are calibrated from",
    )
    identity.add_argument("--asr", action="store_true", help="also run the recording through VAD and Whisper")
    identity.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the figures as JSON")

    return {"demo": _demo, "make-bag": _make_bag, "bench": _bench}


def _demo(args: argparse.Namespace) -> int:
    from vidmem_dev.demo import run_demo

    return run_demo(args.data, args.rate)


def _make_bag(args: argparse.Namespace) -> int:
    from vidmem_dev.sample_bag import PATROL, SHORT_PATROL, questions_path
    from vidmem_dev.sample_patrol import write_sample_bag

    if args.who and args.faces:
        from vidmem_dev.who_faces import write_who_faces_bag

        bag = write_who_faces_bag(args.out, camera_hz=args.camera_hz, short=args.short)
        print(bag)
        print(questions_path(bag))
        return 0
    if args.who:
        from vidmem_dev.who_questions import write_who_bag

        bag = write_who_bag(args.out, camera_hz=args.camera_hz)
        print(bag)
        print(questions_path(bag))
        return 0
    scenario = SHORT_PATROL if args.short else PATROL
    bag = write_sample_bag(args.out, camera_hz=args.camera_hz, raw=args.raw, scenario=scenario)
    print(bag)
    print(questions_path(bag))
    return 0


def _sizes(text: str) -> list[int]:
    try:
        return [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _rates(text: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated rates in Hz, got {text!r}") from None


def _bench(args: argparse.Namespace) -> int:
    from vidmem_dev.bench_memory import run_memory_bench

    if args.target == "eval":
        from vidmem_dev.bench_eval import run_eval_bench

        return run_eval_bench(args.camera_hz, args.json, args.keep, [tuple(pair) for pair in args.set])
    if args.target == "identity":
        from vidmem_dev.bench_identity import run_identity_bench

        return run_identity_bench(args.asr, args.json)
    if args.target == "answers":
        from vidmem_dev.bench_answers import run_answers_bench

        parsers = tuple(p.strip() for p in args.parsers.split(",") if p.strip())
        return run_answers_bench(args.store, args.questions, args.bag_start, parsers, args.json, args.limit)
    if args.target == "parser":
        from vidmem_dev.bench_parser import run_parser_bench

        return run_parser_bench(args.json, args.limit)
    if args.target == "fleet":
        from vidmem_dev.bench_fleet import run_fleet_bench

        return run_fleet_bench(
            args.sizes, args.robots, args.queries, args.batch, args.sync_moments, args.json, args.seed
        )
    if args.target == "query":
        from vidmem_dev.bench_query import run_query_bench

        run_query_bench([0.25] if args.quick else args.hours, args.camera_hz, args.json, args.dense)
        return 0
    if args.target == "memory":
        run_memory_bench(
            hours=args.hours,
            camera_hz=args.camera_hz,
            places=args.places,
            max_disk_mb=args.max_disk_mb,
            search_sizes=args.search_sizes,
            store=args.store,
            json_path=args.json,
            seed=args.seed,
            quick=args.quick,
        )
    elif args.target == "perception":
        from vidmem_dev.bench_perception import run_perception_bench

        run_perception_bench(
            runs=args.runs,
            camera_hz=args.camera_hz,
            sign_share=args.sign_share,
            json_path=args.json,
            seed=args.seed,
            quick=args.quick,
        )
    elif args.target == "ros":
        from vidmem_dev.bench_ros import run_ros_bench

        run_ros_bench(
            latency_runs=args.latency_runs,
            rtt_calls=args.rtt_calls,
            rates=args.rates,
            step_s=args.step_s,
            json_path=args.json,
            quick=args.quick,
        )
    elif args.target == "faults":
        from vidmem_dev.bench_faults import Settings, run_faults_bench

        fields = ("rounds", "camera_hz", "sample_fps", "flood_rate", "flood_s", "clients", "questions", "seed")
        chosen = {name: getattr(args, name) for name in fields}
        run_faults_bench(Settings.quick(**chosen) if args.quick else Settings(**chosen), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
