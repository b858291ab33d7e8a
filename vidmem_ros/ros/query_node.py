"""Query node: answers questions about memory through the ``query`` service."""

from __future__ import annotations

import json
import sys

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from vidmem_ros.agent.offline import OfflineAnswerer
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.registry import detector_vocabulary
from vidmem_ros.ros.convert import fill_response, to_seconds
from vidmem_ros.ros.params import declare_config, watch_runtime_changes
from vidmem_ros.ros.runtime import bridge_logging, run_nodes
from vidmem_ros.srv import Query


class QueryNode(Node):
    concurrent_callbacks = True  # questions are answered in parallel

    def __init__(self, **kwargs: object) -> None:
        super().__init__("vidmem_query", **kwargs)  # type: ignore[arg-type]
        bridge_logging(self)
        self.config = declare_config(self)
        cfg = self.config
        # Read-write: the store's counters are bumped here, and later issues add forget.
        self.store = SqliteStore(cfg.store_path())
        self.answerer = OfflineAnswerer(
            self.store, detector_vocabulary(cfg.detector), cfg.query, cfg.detector.min_score
        )
        watch_runtime_changes(self, cfg)
        self.create_service(Query, "query", self._on_query, callback_group=ReentrantCallbackGroup())
        self.get_logger().info(f"answering questions on {self.resolve_service_name('query')} from {cfg.store_path()}")

    def _on_query(self, request: Query.Request, response: Query.Response) -> Query.Response:
        as_of = to_seconds(request.as_of) or None
        answer = self.answerer.answer(request.question, as_of)
        if "rejected" in answer.trace:
            self.store.bump_counter("rejected_queries")
            self.get_logger().warning(f"refused a question: {answer.error}")
        answer.trace.update({"max_turns": request.max_turns, "timeout_s": request.timeout_s})
        return fill_response(response, answer, json.dumps(answer.trace, default=str))

    def close(self) -> None:
        self.store.close()


def main(args: list[str] | None = None) -> int:
    return run_nodes([QueryNode], args if args is not None else sys.argv)


if __name__ == "__main__":
    sys.exit(main())
