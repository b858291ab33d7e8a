"""Plays a rosbag2 (MCAP or sqlite3) into live topics, like ``ros2 bag play``, for installs without rosbag2.

Messages are published as the serialized bytes stored in the bag: nothing is
decoded, so any message type whose Python module is importable can be played.
The same bytes also mean header stamps are never rewritten, not even on a loop;
only ``/clock`` (with ``clock_hz``) is shifted by the played span on each loop, so
that it keeps increasing for nodes with ``use_sim_time``.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosbags.interfaces import Connection, QosDurability, QosReliability
from rosbags.rosbag2 import Reader

from vidmem_ros.errors import ConfigError, InputError, VidmemError
from vidmem_ros.progress import ProgressBar, ProgressSink

CLOCK_TOPIC = "/clock"
_ACK_TIMEOUT_S = 2.0  # at most this long for subscribers to acknowledge the last messages
_MAX_SLEEP_S = 0.1  # wake at least this often while waiting, so Ctrl-C and the progress bar stay responsive


@dataclass
class ReplayResult:
    published: Counter[str] = field(default_factory=Counter)  # per output (remapped) topic, over all loops
    skipped_topics: dict[str, str] = field(default_factory=dict)  # bag topic -> why it was not played
    missing_topics: list[str] = field(default_factory=list)  # asked for (topics, remap) but not in the bag
    first_stamp_ns: int = 0  # bag time of the first and last message played (not shifted by loops)
    last_stamp_ns: int = 0
    loops: int = 0  # complete plays
    bag_s: float = 0.0  # bag time covered, over all loops
    clock_messages: int = 0
    wall_s: float = 0.0


class ReplayInterrupted(KeyboardInterrupt):
    """Ctrl-C during a replay; carries what was played so far."""

    def __init__(self, result: ReplayResult) -> None:
        super().__init__()
        self.result = result


def message_class(msgtype: str) -> type:
    """``sensor_msgs/msg/Image`` -> the rclpy message class."""
    package, kind, name = msgtype.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), name)  # type: ignore[no-any-return]


def replay(
    node: Node,
    bag: str | Path,
    rate: float = 1.0,
    remap: Mapping[str, str] | None = None,
    topics: Collection[str] | None = None,
    on_message: Callable[[str, int], None] | None = None,
    *,
    start_offset: float = 0.0,
    loop: bool = False,
    max_loops: int | None = None,
    clock_hz: float | None = None,
    delay: float = 0.0,
    progress: ProgressSink | None = None,
) -> ReplayResult:
    """Publish the messages of ``bag`` at their recorded pace times ``rate`` (0: as fast as possible).

    ``start_offset``: seconds after the bag's first message to start at (each loop starts there too).
    ``loop``: play again until interrupted; ``max_loops`` stops after that many plays (and implies loop).
    ``topics``: bag topics to play (None: all); ``remap``: bag topic -> topic to publish it on.
    ``clock_hz``: also publish rosgraph_msgs/Clock on /clock from the bag time at that rate.
    ``delay``: seconds to wait after advertising the topics, so that subscribers can connect.
    ``progress``: told the bag seconds to play (None when endless) and those played so far.
    Raises InputError for an unreadable bag (naming the file and how many messages were played),
    ConfigError for options out of range, ReplayInterrupted on Ctrl-C.
    """
    plays = max_loops if max_loops is not None else (None if loop else 1)
    _check_options(rate, start_offset, plays, clock_hz, delay)
    remap = {_absolute(k): _absolute(v) for k, v in (remap or {}).items()}
    topics = None if topics is None else {_absolute(t) for t in topics}
    reader = _open(Path(bag))
    try:
        return _play(
            node,
            reader,
            Path(bag),
            _Options(rate, remap, topics, start_offset, plays, clock_hz, delay),
            on_message,
            progress,
        )
    finally:
        reader.close()


@dataclass(frozen=True)
class _Options:
    rate: float
    remap: Mapping[str, str]
    topics: Collection[str] | None
    start_offset: float
    plays: int | None  # None: until interrupted
    clock_hz: float | None
    delay: float


def _check_options(rate: float, start_offset: float, plays: int | None, clock_hz: float | None, delay: float) -> None:
    if not rate >= 0:  # also refuses nan
        raise ConfigError(f"rate must be >= 0 (0 plays as fast as possible), got {rate}")
    if not (0 <= start_offset < math.inf and 0 <= delay < math.inf):  # also refuses nan
        raise ConfigError(f"start offset and delay must be >= 0 seconds, got {start_offset} and {delay}")
    if plays is not None and plays < 1:
        raise ConfigError(f"max_loops must be >= 1, got {plays}")
    if clock_hz is not None and not 0 < clock_hz < math.inf:
        raise ConfigError(f"clock rate must be > 0 Hz, got {clock_hz}")


def _absolute(topic: str) -> str:
    """The replay node lives in the root namespace, so a relative name resolves to ``/name``."""
    return topic if topic.startswith("/") else f"/{topic}"


def _open(bag: Path) -> Reader:
    if not bag.exists():
        raise InputError("bad_bag", f"no bag at {bag}")
    try:
        reader = Reader(bag)
        reader.open()
    except Exception as exc:  # rosbags raises several types for unreadable bags
        raise InputError(
            "bad_bag", f"cannot open bag {_storage_name(bag)}: {exc}{_hint(bag)}; no messages were played"
        ) from exc
    return reader


def _storage_name(bag: Path) -> str:
    """The storage file itself when a bag directory holds just one, else the bag's path."""
    if bag.is_dir():
        files = sorted(p for p in bag.iterdir() if p.suffix in (".mcap", ".db3"))
        if len(files) == 1:
            return str(files[0])
    return str(bag)


def _hint(bag: Path) -> str:
    mcap = bag.suffix == ".mcap" or (bag.is_dir() and any(bag.glob("*.mcap")))
    return " (truncated or corrupt? `mcap recover` from the mcap CLI can salvage what was written)" if mcap else ""


def _play(
    node: Node,
    reader: Reader,
    bag: Path,
    opts: _Options,
    on_message: Callable[[str, int], None] | None,
    progress: ProgressSink | None,
) -> ReplayResult:
    result = ReplayResult()
    if not reader.message_count:
        return result
    window = _window(reader, opts.start_offset)
    publishers = _advertise(node, reader, opts, result)
    unique = list({id(p): p for _, p in publishers.values()}.values())
    clock = _ClockPublisher(node, opts.remap.get(CLOCK_TOPIC, CLOCK_TOPIC), opts.clock_hz) if opts.clock_hz else None
    try:
        if publishers:
            _play_window(reader, bag, window, opts, publishers, clock, on_message, progress, result)
            _wait_acked(unique, _ACK_TIMEOUT_S)
        return result
    finally:
        for publisher in [*unique, *([clock.publisher] if clock else [])]:
            node.destroy_publisher(publisher)


def _play_window(
    reader: Reader,
    bag: Path,
    window: _Window,
    opts: _Options,
    publishers: dict[int, tuple[str, Publisher]],
    clock: _ClockPublisher | None,
    on_message: Callable[[str, int], None] | None,
    progress: ProgressSink | None,
    result: ReplayResult,
) -> None:
    pacer = _Pacer(opts.rate, window.start_ns, clock, progress)
    try:
        time.sleep(opts.delay)  # before the clocks start: the pace and the bar count from the first message
        if progress:
            progress.start(window.period_ns * 1e-9 * opts.plays if opts.plays is not None else None)
        pacer.wall0 = time.monotonic()
        _loops(reader, bag, window, opts.plays, publishers, pacer, on_message, result)
    except KeyboardInterrupt:
        raise ReplayInterrupted(result) from None
    finally:
        result.wall_s = time.monotonic() - pacer.wall0
        result.bag_s = (pacer.position_ns - window.start_ns) * 1e-9
        result.clock_messages = clock.count if clock else 0
        if progress:
            progress.finish()


def _wait_acked(publishers: list[Publisher], timeout_s: float) -> None:
    """Give reliable subscribers a moment to take the last messages before the publishers go away."""
    deadline = time.monotonic() + timeout_s
    for publisher in publishers:
        publisher.wait_for_all_acked(Duration(seconds=max(deadline - time.monotonic(), 0.0)))


def _advertise(node: Node, reader: Reader, opts: _Options, result: ReplayResult) -> dict[int, tuple[str, Publisher]]:
    """A publisher per bag connection to play (shared by connections of one topic and type)."""
    in_bag = {c.topic for c in reader.connections}
    asked = set(opts.topics or ()) | (set(opts.remap) - {CLOCK_TOPIC})
    result.missing_topics = sorted(asked - in_bag)
    shared: dict[tuple[str, str], Publisher] = {}
    publishers: dict[int, tuple[str, Publisher]] = {}
    for conn in reader.connections:
        if opts.topics is not None and conn.topic not in opts.topics:
            continue
        try:
            cls = message_class(conn.msgtype)
        except (ImportError, AttributeError, ValueError) as exc:
            result.skipped_topics[conn.topic] = f"message type {conn.msgtype} is not installed ({exc})"
            continue
        out = opts.remap.get(conn.topic, conn.topic)
        if (out, conn.msgtype) not in shared:
            shared[out, conn.msgtype] = node.create_publisher(cls, out, recorded_qos(conn))
        publishers[conn.id] = (out, shared[out, conn.msgtype])
    return publishers


def recorded_qos(conn: Connection) -> QoSProfile:
    """The QoS to replay a topic with, from what its publishers offered when it was recorded (as ros2 bag play
    does): latched (transient local) where every one was, so /tf_static reaches nodes that start later; best
    effort where every one was; reliable and volatile otherwise, and for bags that recorded no QoS."""
    offered = list(getattr(conn.ext, "offered_qos_profiles", None) or [])
    latched = bool(offered) and all(q.durability == QosDurability.TRANSIENT_LOCAL for q in offered)
    best_effort = bool(offered) and all(q.reliability == QosReliability.BEST_EFFORT for q in offered)
    return QoSProfile(
        depth=100,
        reliability=ReliabilityPolicy.BEST_EFFORT if best_effort else ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE,
    )


@dataclass(frozen=True)
class _Window:
    start_ns: int  # bag time each play starts at: the first message plus the start offset
    end_ns: int  # just after the bag's last message

    @property
    def period_ns(self) -> int:
        """Bag time one play covers, and so what /clock is shifted by on each loop (> 0: it keeps increasing)."""
        return self.end_ns - self.start_ns


def _window(reader: Reader, start_offset: float) -> _Window:
    start_ns = reader.start_time + round(start_offset * 1e9)
    if start_ns >= reader.end_time:
        raise ConfigError(
            f"start offset {start_offset:g} s is past the end of the bag ({reader.duration * 1e-9:.1f} s long)"
        )
    return _Window(start_ns, reader.end_time)


def _loops(
    reader: Reader,
    bag: Path,
    window: _Window,
    plays: int | None,
    publishers: dict[int, tuple[str, Publisher]],
    pacer: _Pacer,
    on_message: Callable[[str, int], None] | None,
    result: ReplayResult,
) -> None:
    chosen = [c for c in reader.connections if c.id in publishers]
    while plays is None or result.loops < plays:
        shift = result.loops * window.period_ns
        played = sum(result.published.values())
        for conn, stamp_ns, raw in _messages(reader, bag, chosen, window.start_ns, result):
            pacer.wait_for(stamp_ns + shift)
            topic, publisher = publishers[conn.id]
            publisher.publish(bytes(raw))
            result.published[topic] += 1
            result.first_stamp_ns = result.first_stamp_ns or stamp_ns
            result.last_stamp_ns = stamp_ns
            if on_message:
                on_message(topic, stamp_ns)
        pacer.wait_for(window.end_ns - 1 + shift)  # a loop lasts the whole bag, as ros2 bag play's does
        result.loops += 1
        if sum(result.published.values()) == played:
            return  # nothing in the window to play: do not loop on emptiness


def _messages(
    reader: Reader, bag: Path, chosen: list[Connection], start_ns: int, result: ReplayResult
) -> Iterator[tuple[Connection, int, bytes]]:
    """The bag's messages from ``start_ns``; a read error names the file and how far the replay got."""
    messages = reader.messages(connections=chosen, start=start_ns)
    while True:
        try:
            item = next(messages)
        except StopIteration:
            return
        except Exception as exc:  # rosbags raises several types for damaged files
            played = sum(result.published.values())
            raise InputError(
                "bad_bag", f"cannot read bag {_storage_name(bag)}: {exc}{_hint(bag)}; {played} messages were played"
            ) from exc
        yield item


class _ClockPublisher:
    """rosgraph_msgs/Clock at ``hz`` wall rate, with the QoS of rclpy's /clock subscription (best effort)."""

    def __init__(self, node: Node, topic: str, hz: float) -> None:
        from rosgraph_msgs.msg import Clock

        self._cls = Clock
        self.publisher = node.create_publisher(
            Clock, topic, QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
        )
        self.period = 1.0 / hz
        self.next_wall = 0.0
        self.count = 0

    def tick(self, now: float, stamp_ns: int) -> None:
        if now < self.next_wall:
            return
        # Keep the cadence, but after a stall (a slow publish) start afresh rather than burst to catch up.
        self.next_wall = self.next_wall + self.period if now - self.next_wall < self.period else now + self.period
        msg = self._cls()
        msg.clock.sec, msg.clock.nanosec = divmod(stamp_ns, 1_000_000_000)
        self.publisher.publish(msg)
        self.count += 1


class _Pacer:
    """Maps bag time (shifted by loops) to wall time at ``rate``; keeps /clock and progress moving while it waits."""

    def __init__(
        self, rate: float, start_ns: int, clock: _ClockPublisher | None, progress: ProgressSink | None
    ) -> None:
        self.rate, self.start_ns, self.clock, self.progress = rate, start_ns, clock, progress
        self.wall0 = time.monotonic()
        self.position_ns = start_ns  # playback time: never past the next message, never backwards

    def wait_for(self, stamp_ns: int) -> None:
        due = self.wall0 + (stamp_ns - self.start_ns) * 1e-9 / self.rate if self.rate > 0 else 0.0
        while True:
            now = time.monotonic()
            self._tick(now, stamp_ns)
            if now >= due:
                return
            wake = min(due, self.clock.next_wall if self.clock else due, now + _MAX_SLEEP_S)
            time.sleep(max(wake - now, 0.0))

    def _tick(self, now: float, next_ns: int) -> None:
        at = next_ns if self.rate <= 0 else min(next_ns, self.start_ns + round((now - self.wall0) * self.rate * 1e9))
        self.position_ns = max(self.position_ns, at)
        if self.clock:
            self.clock.tick(now, self.position_ns)
        if self.progress:
            self.progress.update((self.position_ns - self.start_ns) * 1e-9)


def run_cli(args: argparse.Namespace) -> int:
    """``vidmem replay``: play with a progress bar, then say what went where; errors in one line, no traceback."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    bar = ProgressBar(label="replay", force=args.progress, quiet=args.quiet)
    # Not sys.argv: rcl would take our FROM:=TO remaps for global ones.  No rclpy signal handlers: theirs
    # shut the context down under the publishers; Python's turn Ctrl-C into a clean ReplayInterrupted.
    rclpy.init(args=[], signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node("vidmem_replay")
    code = 0
    try:
        result = replay(
            node,
            args.bag,
            rate=args.rate,
            remap=dict(args.remap),
            topics=args.topics,
            start_offset=args.start_offset,
            loop=args.loop,
            clock_hz=args.clock,
            delay=args.delay,
            progress=bar,
        )
    except VidmemError as exc:
        print(f"vidmem replay: {exc}", file=sys.stderr)
        return 1
    except ReplayInterrupted as stop:
        result, code = stop.result, 0 if args.loop else 130  # Ctrl-C is how a loop ends
    except KeyboardInterrupt:  # before anything was played
        return 130
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    _print_summary(result)
    return code


def _print_summary(result: ReplayResult) -> None:
    for topic, reason in result.skipped_topics.items():
        print(f"skipped {topic}: {reason}", file=sys.stderr)
    for topic in result.missing_topics:
        print(f"no topic {topic} in the bag", file=sys.stderr)
    for topic, count in sorted(result.published.items()):
        print(f"{topic}: {count} messages")
    speed = f" ({result.bag_s / result.wall_s:.1f}x)" if result.wall_s > 0 else ""
    clock = f", {result.clock_messages} /clock messages" if result.clock_messages else ""
    print(f"played {result.bag_s:.1f} s of bag time in {result.wall_s:.1f} s{speed}, {result.loops} loop(s){clock}")
