"""Starting and stopping nodes: one or several in a process, clean exits, clear start-up errors."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Sequence

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
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


def run_nodes(factories: Sequence[Callable[[], Node]], args: Sequence[str] | None = None) -> int:
    """Create the nodes, spin them on one multi-threaded executor until shut down; return an exit code."""
    rclpy.init(args=list(args) if args is not None else None)
    nodes: list[Node] = []
    try:
        try:
            for factory in factories:
                nodes.append(factory())
        except VidmemError as exc:
            print(f"vidmem_ros: cannot start: {exc}", file=sys.stderr)
            return 2
        executor = MultiThreadedExecutor(num_threads=max(4, 2 * len(nodes)))
        for node in nodes:
            executor.add_node(node)
        with contextlib.suppress(KeyboardInterrupt, ExternalShutdownException):
            executor.spin()
        return 0
    finally:
        for node in reversed(nodes):
            close = getattr(node, "close", None)
            if close:
                close()
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
