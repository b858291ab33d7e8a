"""The ``vidmem`` command."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vidmem_ros.command.launcher import NodeOptions

Handler = Callable[[argparse.Namespace], int]
SubParsers = argparse._SubParsersAction  # the type argparse gives ``add_subparsers``'s result
# Adds subcommands to the parser; returns the handler of each (how the developer tooling adds its commands).
Extension = Callable[[SubParsers], dict[str, Handler]]


def main(argv: list[str] | None = None, extensions: Sequence[Extension] = ()) -> int:
    """The ``vidmem`` command a robot runs (``python -m vidmem_ros.command``), with ``extensions``' subcommands."""
    parser = argparse.ArgumentParser(prog="vidmem", description="Long-term visual memory for ROS 2 robots.")
    sub = parser.add_subparsers(dest="command", required=True)

    for add in (
        _add_replay_parser,
        _add_up_parser,
        _add_ask_parser,
        _add_eval_parser,
        _add_report_parser,
        _add_params_parser,
        _add_doctor_parser,
        _add_sync_parser,
    ):
        add(sub)

    handlers: dict[str, Handler] = dict(_COMMANDS)
    for extend in extensions:
        handlers.update(extend(sub))
    args = parser.parse_args(argv)
    from vidmem_ros.command.launcher import use_package_dds_profile

    use_package_dds_profile(os.environ)  # type: ignore[arg-type]  # before any command starts DDS
    return int(handlers[args.command](args))


def _add_up_parser(sub: SubParsers) -> None:
    """``vidmem up``: the nodes, in one process or each in its own."""
    up = sub.add_parser("up", help="start the ingest and query nodes")
    up.add_argument("--store", required=True)
    up.add_argument("--config", default="", help="YAML settings file")
    up.add_argument("--profile", default="cpu", choices=("cpu", "gpu"))
    up.add_argument("--camera", default="/camera/image_raw")
    up.add_argument(
        "--transport", default="", choices=("", "raw", "compressed", "both"), help="camera transport (default raw)"
    )
    up.add_argument("--odom", default="/odom")
    up.add_argument("--pose", default="", help="PoseStamped topic (with --pose-source pose)")
    up.add_argument(
        "--pose-with-covariance", default="", help="e.g. /amcl_pose (with --pose-source pose_with_covariance)"
    )
    up.add_argument("--pose-source", default="", choices=("", "odom", "pose", "pose_with_covariance"))
    up.add_argument("--audio", default="", help="vidmem_ros/AudioChunk topic")
    up.add_argument("--namespace", default="")
    up.add_argument("--separate", action="store_true", help="run each node as its own process (default: one process)")


def _add_ask_parser(sub: SubParsers) -> None:
    """``vidmem ask``: one question to a running memory."""
    ask = sub.add_parser("ask", help="ask a running vidmem a question")
    ask.add_argument("question")
    ask.add_argument("--namespace", default="")
    ask.add_argument("--timeout", type=float, default=30.0)
    ask.add_argument("--fleet", action="store_true", help="ask the fleet store (every robot) instead of this robot")
    ask.add_argument("--robot", action="append", default=[], help="with --fleet: only this robot (repeat for several)")


def _add_eval_parser(sub: SubParsers) -> None:
    """``vidmem eval``: a bag's questions answered online and scored."""
    ev = sub.add_parser(
        "eval", help="answer a bag's questions online (each as of its ask_at), score them, compare baselines"
    )
    ev.add_argument("--bag", type=Path, required=True, help="rosbag2 directory or file (MCAP or sqlite3)")
    ev.add_argument("--questions", type=Path, required=True, help="questions JSONL")
    ev.add_argument("--out", type=Path, required=True, help="answers JSONL to write")
    ev.add_argument("--config", default="", help="YAML settings file (default: the cpu profile)")
    ev.add_argument(
        "--set",
        action="append",
        default=[],
        dest="settings",
        metavar="KEY=VALUE",
        help="a setting over the file's, by its dotted name, the value read as YAML (e.g. face.backend=dlib); "
        "repeatable",
    )
    ev.add_argument(
        "--baseline",
        action="append",
        default=[],
        choices=("uniform", "fixed30", "rules"),
        help="also run a baseline: uniform (1 FPS, one embedding lookup, no agent), fixed30 (30 s segments) or "
        "rules (this system reading questions without the language model)",
    )
    ev.add_argument("--image-topic", default="/camera/image_raw", help="sensor_msgs/Image topic in the bag")
    ev.add_argument(
        "--compressed-topic", default="/camera/image_raw/compressed", help="sensor_msgs/CompressedImage topic"
    )
    ev.add_argument("--audio-topic", default="/audio", help="vidmem_ros/AudioChunk topic")
    ev.add_argument("--odom-topic", default="/odom", help="Odometry, PoseStamped or PoseWithCovarianceStamped topic")
    ev.add_argument("--report", type=Path, default=None, metavar="HTML", help="also write the HTML report")
    ev.add_argument("--json", type=Path, default=None, metavar="PATH", help="scores JSON (default: OUT.scores.json)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.add_argument(
        "--loops",
        type=int,
        default=1,
        help="play the bag this many times into one memory, as ros2 bag play --loop does (each play a run of "
        "memory); the questions are asked during the last play",
    )


def _add_report_parser(sub: SubParsers) -> None:
    """``vidmem report``: scores and the HTML report from answers files."""
    report = sub.add_parser("report", help="score answers to a bag's questions and write a self-contained HTML report")
    report.add_argument("--store", type=Path, required=True, help="the memory store the answers came from")
    report.add_argument("--questions", type=Path, required=True, help="questions JSONL (with ground truth)")
    report.add_argument(
        "--answers", type=Path, action="append", required=True, help="answers JSONL; repeat to compare systems"
    )
    report.add_argument("--out", type=Path, required=True, help="HTML file to write")
    report.add_argument(
        "--bag-start",
        type=float,
        default=None,
        help="sensor time (s) of the bag's first message; default: the answers header's meta.bag_start",
    )
    report.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the scores as JSON")
    report.add_argument("--max-thumbnails", type=int, default=200, help="keyframe images in the report at most")


def _add_params_parser(sub: SubParsers) -> None:
    """``vidmem params``: the settings as a ROS 2 parameter file."""
    from vidmem_ros.config import PROFILES

    params = sub.add_parser("params", help="print the settings as a ROS 2 parameter file (--params-file)")
    params.add_argument("--profile", choices=PROFILES, default="cpu", help="the profile to print (default cpu)")
    params.add_argument("--config", type=Path, default=None, help="a settings YAML file instead of a profile")
    params.add_argument("--node", default="/**", help="the node name the parameters are for (default: every node)")


def _add_doctor_parser(sub: SubParsers) -> None:
    """``vidmem doctor``: check (and repair) a store."""
    doctor = sub.add_parser(
        "doctor",
        help="check a memory store and report bad records; --repair fixes what it can (run it with the node stopped)",
    )
    doctor.add_argument("--store", type=Path, required=True, help="the memory store (SQLite file)")
    doctor.add_argument(
        "--repair",
        action="store_true",
        help="fix what can be fixed, keeping the rest: invalid poses, unreadable lists, open and quarantined events",
    )
    doctor.add_argument(
        "--config", default="", help="YAML settings file whose captioner closes events (default: the cpu profile)"
    )


def _add_sync_parser(sub: SubParsers) -> None:
    """``vidmem sync``: a store sent to the fleet store, outside the ingest node."""
    sync = sub.add_parser(
        "sync",
        help="send a memory store to the fleet store (fleet.uri) and apply its forgets there; the ingest node "
        "does this itself while it runs",
    )
    sync.add_argument("--store", type=Path, required=True, help="the memory store (SQLite file)")
    sync.add_argument("--config", default="", help="YAML settings file with the fleet section (default: cpu)")
    sync.add_argument("--uri", default="", help="fleet store URI, overriding fleet.uri")
    sync.add_argument("--robot", default="", help="this robot's name in the fleet, overriding fleet.robot_id")
    sync.add_argument("--once", action="store_true", help="one round, then exit (status 1 if it was cut off)")


def _add_replay_parser(sub: SubParsers) -> None:
    play = sub.add_parser(
        "replay",
        help="play a rosbag2 into live topics, like ros2 bag play",
        description="Play a rosbag2 (MCAP or sqlite3) into live topics, like ros2 bag play; "
        "a progress bar goes to stderr when it is a terminal. Put BAG first: --topics and --clock take "
        "optional or several values.",
    )
    play.add_argument("bag", type=Path, metavar="BAG", help="rosbag2 directory, or a .mcap/.db3 file")
    play.add_argument("--rate", type=_at_least_zero, default=1.0, help="speed factor; 0 plays as fast as possible")
    play.add_argument(
        "--start-offset",
        type=_at_least_zero,
        default=0.0,
        metavar="SECONDS",
        help="start this many seconds after the bag's first message (each loop starts there too)",
    )
    play.add_argument(
        "--loop", action="store_true", help="play again and again until Ctrl-C; /clock keeps increasing across loops"
    )
    play.add_argument("--topics", nargs="+", default=None, metavar="TOPIC", help="play only these bag topics")
    play.add_argument(
        "--remap",
        action="append",
        type=_remap_rule,
        default=[],
        metavar="FROM:=TO",
        help="publish bag topic FROM on TO (repeatable; /clock:=TO moves the clock)",
    )
    play.add_argument(
        "--clock",
        type=_above_zero,
        nargs="?",
        const=100.0,
        default=None,
        metavar="HZ",
        help="publish rosgraph_msgs/Clock on /clock from the bag time at HZ (default 100), for use_sim_time nodes",
    )
    play.add_argument(
        "--delay", type=_at_least_zero, default=0.0, metavar="SECONDS", help="wait before playing, for subscribers"
    )
    play.add_argument("--progress", action="store_true", help="show the progress bar even when stderr is no terminal")
    play.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _replay(args: argparse.Namespace) -> int:
    from vidmem_ros.command.replay import run_cli

    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop ends the play as Ctrl-C does
    return run_cli(args)


def _remap_rule(text: str) -> tuple[str, str]:
    source, sep, target = text.partition(":=")
    if not (sep and source.strip() and target.strip()):
        raise argparse.ArgumentTypeError(f"expected FROM:=TO, got {text!r}")
    return source.strip(), target.strip()


def _at_least_zero(text: str) -> float:
    value = _number(text)
    if not 0 <= value < float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def _above_zero(text: str) -> float:
    value = _number(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _up(args: argparse.Namespace) -> int:
    from vidmem_ros.command.launcher import NodeOptions, ros_args
    from vidmem_ros.ros.ingest_node import IngestNode
    from vidmem_ros.ros.query_node import QueryNode
    from vidmem_ros.ros.runtime import run_nodes

    options = NodeOptions(
        store=args.store,
        config_file=args.config,
        profile=args.profile,
        camera=args.camera,
        transport=args.transport,
        odom=args.odom,
        pose=args.pose,
        pose_with_covariance=args.pose_with_covariance,
        audio=args.audio,
        namespace=args.namespace,
        params={"ingest.pose_source": args.pose_source} if args.pose_source else {},
    )
    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop is a clean shutdown, as Ctrl-C is
    if args.separate:
        return _run_separately(options)
    return run_nodes([IngestNode, QueryNode], ["vidmem", *ros_args(options)])


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run_separately(options: NodeOptions) -> int:
    """Each node in its own process, sharing the store; stops both when either exits or on Ctrl-C."""
    import time

    from vidmem_ros.command.launcher import start_node, stop_processes

    procs = [start_node(which, options, os.environ) for which in ("ingest", "query")]
    try:
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
    except KeyboardInterrupt:
        stop_processes(procs)
        return 0  # asked to stop
    stop_processes(procs)
    return max(abs(p.returncode or 0) for p in procs)  # a node stopped on its own: pass its exit code on


def _ask(args: argparse.Namespace) -> int:
    import rclpy

    from vidmem_ros.ros.client import MemoryClient

    rclpy.init()
    node = rclpy.create_node("vidmem_ask")
    try:
        client = MemoryClient(node, args.namespace)
        if not client.wait_for_service(args.timeout):
            print("no vidmem query service is running", file=sys.stderr)
            return 1
        scope = "fleet" if args.fleet or args.robot else ""
        response = client.ask(args.question, timeout_s=args.timeout, scope=scope, robots=args.robot)
    finally:
        node.destroy_node()
        rclpy.shutdown()
    if not response.success:
        print(f"error: {response.error}", file=sys.stderr)
        return 1
    print(f"{response.answer}  [confidence {response.confidence:.2f}]")
    for e in response.evidence:
        robot = f"{e.robot} " if e.robot else ""
        print(f"  {robot}{e.kind} {e.ref} {e.stamp.sec}.{e.stamp.nanosec:09d}: {e.text}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from vidmem_ros.config import load_config, setting_overrides
    from vidmem_ros.errors import ConfigError
    from vidmem_ros.evaluation.command import run_eval
    from vidmem_ros.ingest.bag_reader import BagTopics

    try:
        config = load_config(args.config or None, overrides=setting_overrides(args.settings))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    topics = BagTopics(args.image_topic, args.compressed_topic, args.audio_topic, args.odom_topic)
    return run_eval(
        args.bag,
        args.questions,
        args.out,
        config,
        topics=topics,
        baselines=list(dict.fromkeys(args.baseline)),
        report=args.report,
        json_path=args.json,
        quiet=args.quiet,
        loops=args.loops,
    )


def _report(args: argparse.Namespace) -> int:
    from vidmem_ros.evaluation.command import run_report

    return run_report(
        args.store, args.questions, args.answers, args.out, args.bag_start, args.json, args.max_thumbnails
    )


def _doctor(args: argparse.Namespace) -> int:
    from vidmem_ros.config import load_config
    from vidmem_ros.errors import ConfigError
    from vidmem_ros.memory.doctor import run_doctor

    try:
        config = load_config(args.config or None)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return run_doctor(args.store, args.repair, config, sys.stdout)


def _sync(args: argparse.Namespace) -> int:
    from vidmem_ros.config import load_config
    from vidmem_ros.errors import VidmemError
    from vidmem_ros.fleet.sync import sync_store
    from vidmem_ros.memory.store import SqliteStore

    if not args.store.is_file():
        print(f"error: no memory store at {args.store}", file=sys.stderr)
        return 2
    overrides = {"fleet.uri": args.uri} if args.uri else {}
    if args.robot:
        overrides["fleet.robot_id"] = args.robot
    try:
        config = load_config(args.config or None, overrides=overrides)
        store = SqliteStore(args.store)
    except VidmemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return sync_store(config, store, args.once, sys.stdout)
    except VidmemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _params(args: argparse.Namespace) -> int:
    """Print a settings file as a ROS 2 parameter file, for ``--params-file`` and launch files."""
    import yaml

    from vidmem_ros.config import load_config, profile_path, ros_parameters
    from vidmem_ros.errors import ConfigError

    try:
        config = load_config(args.config or profile_path(args.profile))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    source = args.config or f"the {args.profile} profile"
    print(PARAMS_HEADER.format(source=source, profile=args.profile), end="")
    print(yaml.safe_dump(ros_parameters(config, args.node), sort_keys=False), end="")
    return 0


PARAMS_HEADER = (
    "# vidmem_ros settings of {source} as a ROS 2 parameter file (written by `vidmem params --profile {profile}`).\n"
    "# Pass it with --ros-args --params-file, or as the launch file's params_file argument; edit a copy.\n"
)


_COMMANDS = {
    "sync": _sync,
    "replay": _replay,
    "up": _up,
    "ask": _ask,
    "report": _report,
    "eval": _eval,
    "doctor": _doctor,
    "params": _params,
}

if __name__ == "__main__":
    sys.exit(main())
