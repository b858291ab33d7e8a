"""Starting and stopping nodes: one or several in a process, clean exits, clear start-up errors."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Sequence

import rclpy
from rclpy.executors import Executor, ExternalShutdownException, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node

from vidmem_ros.errors import VidmemError


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


def run_nodes(factories: Sequence[Callable[[], Node]], args: Sequence[str] | None = None) -> int:
    """Create the nodes and spin each on its own executor thread until shut down; return an exit code."""
    rclpy.init(args=list(args) if args is not None else None)
    nodes: list[Node] = []
    try:
        try:
            for factory in factories:
                nodes.append(factory())
        except VidmemError as exc:
            print(f"vidmem_ros: cannot start: {exc}", file=sys.stderr)
            return 2
        threads = [threading.Thread(target=_spin, args=(node,), name=node.get_name(), daemon=True) for node in nodes]
        for thread in threads:
            thread.start()
        with contextlib.suppress(KeyboardInterrupt):
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.5)
        return 0
    finally:
        for node in reversed(nodes):
            close = getattr(node, "close", None)
            if close:
                close()
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()


def _spin(node: Node) -> None:
    executor = executor_for(node)
    executor.add_node(node)
    with contextlib.suppress(KeyboardInterrupt, ExternalShutdownException):
        executor.spin()
