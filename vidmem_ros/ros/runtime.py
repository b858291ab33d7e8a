"""Starting and stopping nodes: one or several in a process, clean exits, clear start-up errors."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import Executor, ExternalShutdownException, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from rclpy.task import Future

from vidmem_ros.config import PARENT_ENV
from vidmem_ros.errors import VidmemError
from vidmem_ros.validation import ThrottledLog


class _RosLogHandler(logging.Handler):
    """Sends the library's log records to a node's ROS logger."""

    def __init__(self, node: Node) -> None:
        super().__init__()
        self._logger = node.get_logger()

    def emit(self, record: logging.LogRecord) -> None:
        message = self.format(record)
        if record.levelno >= logging.ERROR:
            self._logger.error(message)
        elif record.levelno >= logging.WARNING:
            self._logger.warning(message)
        elif record.levelno >= logging.INFO:
            self._logger.info(message)
        else:
            self._logger.debug(message)


def bridge_logging(node: Node) -> None:
    library = logging.getLogger("vidmem_ros")
    if not any(isinstance(h, _RosLogHandler) for h in library.handlers):
        library.addHandler(_RosLogHandler(node))
        library.setLevel(logging.INFO)
        library.propagate = False


def executor_for(node: Node) -> Executor:
    """A node that serves concurrent requests says so with ``concurrent_callbacks = True``.

    Everything else gets a single-threaded executor: rclpy's multi-threaded one
    costs enough per callback that a 40 Hz camera topic loses about half its
    messages (measured on the sample patrol), while a single thread takes all.
    """
    if getattr(node, "concurrent_callbacks", False):
        return MultiThreadedExecutor(num_threads=4)
    return SingleThreadedExecutor()


def declare_autostart(node: Node) -> None:
    node.declare_parameter(
        "autostart",
        True,
        ParameterDescriptor(
            description="Configure and activate at start; false leaves the node unconfigured for a lifecycle manager",
            read_only=True,
        ),
    )


def autostart(node: LifecycleNode) -> VidmemError | None:
    """Take a lifecycle node through configure and activate, as its ``autostart`` parameter asks; the error
    that stopped it, if a transition failed."""
    if not node.get_parameter("autostart").value:
        node.get_logger().info("unconfigured; waiting for a lifecycle manager (autostart is false)")
        return None
    for transition in (node.trigger_configure, node.trigger_activate):
        if transition() != TransitionCallbackReturn.SUCCESS:
            failure = getattr(node, "startup_failure", None)
            return failure or VidmemError(f"{node.get_name()} did not come up ({transition.__name__})")
    return None


def run_nodes(factories: Sequence[Callable[[], Node]], args: Sequence[str] | None = None) -> int:
    """Create the nodes, bring lifecycle nodes up (``autostart``), and spin each on its own thread until Ctrl-C
    or SIGTERM; return an exit code.

    rclpy's own signal handlers would shut ROS down the moment the signal came, before the nodes close, so
    what a node says as it closes (the ingest node's last event) would meet invalid publishers.  Here the
    signal only interrupts this thread: the executors stop, each node closes while ROS is still up, then
    ROS shuts down.
    """
    rclpy.init(args=list(args) if args is not None else None, signal_handler_options=SignalHandlerOptions.NO)
    _interrupt_on_signals()
    stop_with_parent()
    nodes: list[Node] = []
    spinners: list[Spinner] = []
    try:
        try:
            for factory in factories:
                nodes.append(factory())
                failure = autostart(nodes[-1]) if isinstance(nodes[-1], LifecycleNode) else None
                if failure is not None:
                    raise failure
        except VidmemError as exc:
            print(f"vidmem_ros: cannot start: {exc}", file=sys.stderr)
            return 2
        for node in nodes:
            spinners.append(Spinner(node))
        while any(spinner.thread.is_alive() for spinner in spinners):
            failure = next((f for f in (getattr(n, "startup_failure", None) for n in nodes) if f), None)
            if failure is not None:  # a node that finishes starting on a thread of its own could not
                print(f"vidmem_ros: cannot start: {failure}", file=sys.stderr)
                return 2
            spinners[0].thread.join(0.5)
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        for spinner in spinners:
            spinner.stop()
        for node in reversed(nodes):
            close = getattr(node, "close", None)
            if close:
                close()
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()


log = logging.getLogger(__name__)
# After a failed callback, a pause before spinning on, so a failure that repeats cannot take a whole core.
CALLBACK_FAILURE_PAUSE_S = 0.01


class Spinner:
    """A node's executor (see ``executor_for``) spinning on a thread of its own until ``stop``."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.executor = executor_for(node)
        self.executor.add_node(node)
        self._stopped: Future = Future()
        self._failures = ThrottledLog(log)
        self.thread = threading.Thread(target=self._spin, name=node.get_name(), daemon=True)
        self.thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Let the callback under way finish and take no more; the ROS context stays up."""
        if not self._stopped.done():
            self._stopped.set_result(None)  # wakes the executor
        self.thread.join(timeout_s)
        self.executor.shutdown(timeout_sec=0)

    def _spin(self) -> None:
        """Spin until stopped.  A callback that raises is logged (throttled) and spinning goes on: one bug in one
        callback must not stop a node, and with it memory."""
        while not self._stopped.done() and self.node.context.ok():
            try:
                self.executor.spin_until_future_complete(self._stopped)
            except ExternalShutdownException:
                return
            except Exception as exc:
                name = type(exc).__name__
                self._failures.warning(name, f"a callback of {self.node.get_name()} failed ({exc!r}); the node goes on")
                time.sleep(CALLBACK_FAILURE_PAUSE_S)


PARENT_POLL_S = 1.0


def stop_with_parent(environ: dict[str, str] | None = None) -> threading.Thread | None:
    """Watch the process named in ``VIDMEM_STOP_WITH_PARENT``; when it is gone (this process is handed to another
    parent), stop as SIGTERM would, closing memory cleanly.  A launcher killed with SIGKILL would otherwise leave
    its nodes running, each holding its models, with nobody left to stop them."""
    value = (environ if environ is not None else os.environ).get(PARENT_ENV, "")
    if not value.isdigit():
        return None
    parent = int(value)
    thread = threading.Thread(target=_watch_parent, args=(parent,), name="stop-with-parent", daemon=True)
    thread.start()
    return thread


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    log.warning("the process that started this node (pid %d) is gone; stopping", parent)
    os.kill(os.getpid(), signal.SIGTERM)


def _interrupt_on_signals() -> None:
    """Ctrl-C and SIGTERM raise KeyboardInterrupt in the main thread (also where the parent ignored SIGINT)."""
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.default_int_handler)
