"""Query node: answers questions, searches, summarises and forgets memory through services.

Every service runs in a reentrant group on a multi-threaded executor, so a long
question never holds up a search or a forget; each reading thread gets its own
read-only store connection, so none of them holds up ingestion either.
"""

from __future__ import annotations

import json
import sys
from typing import TypeVar

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from vidmem_ros.agent.reasoner import Reasoner, build_reasoner
from vidmem_ros.errors import InputError, VidmemError
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import ComposedCaptioner
from vidmem_ros.memory.forget import forget
from vidmem_ros.memory.reader import Place
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.ros.convert import event_msg, fill_response, hit_evidence, time_range, to_seconds
from vidmem_ros.ros.params import declare_config, watch_runtime_changes
from vidmem_ros.ros.runtime import bridge_logging, run_nodes
from vidmem_ros.srv import Forget, Query, SearchMemory, Summarize

ResponseT = TypeVar("ResponseT", SearchMemory.Response, Summarize.Response, Forget.Response)


class QueryNode(Node):
    concurrent_callbacks = True  # questions are answered in parallel

    def __init__(self, **kwargs: object) -> None:
        super().__init__("vidmem_query", **kwargs)  # type: ignore[arg-type]
        bridge_logging(self)
        self.config = declare_config(self)
        cfg = self.config
        # Read-write: refused questions are counted and forget removes memory from here.
        self.store = SqliteStore(cfg.store_path())
        self.reasoner: Reasoner = build_reasoner(cfg, self.store)
        self.reader = self.reasoner.reader  # the services read memory as the reasoner's tools do
        watch_runtime_changes(self, cfg)
        self.archive = EventArchive(self.store, cfg, ComposedCaptioner())
        group = ReentrantCallbackGroup()
        self.create_service(Query, "query", self._on_query, callback_group=group)
        self.create_service(SearchMemory, "search_memory", self._on_search, callback_group=group)
        self.create_service(Summarize, "summarize", self._on_summarize, callback_group=group)
        self.create_service(Forget, "forget", self._on_forget, callback_group=group)
        self.get_logger().info(f"answering questions on {self.resolve_service_name('query')} from {cfg.store_path()}")

    def _on_query(self, request: Query.Request, response: Query.Response) -> Query.Response:
        as_of = to_seconds(request.as_of) or None
        answer = self.reasoner.answer(request.question, as_of, request.max_turns, float(request.timeout_s))
        if "rejected" in answer.trace:
            self.store.bump_counter("rejected_queries")
            self.get_logger().warning(f"refused a question: {answer.error}")
        return fill_response(response, answer, json.dumps(answer.trace, default=str))

    def _on_search(self, request: SearchMemory.Request, response: SearchMemory.Response) -> SearchMemory.Response:
        start, end = time_range(request.start, request.end)
        place = Place(request.x, request.y, request.radius) if request.use_place else None
        try:
            if place is not None and not place.radius > 0:
                raise InputError("bad_place", f"radius must be positive, got {request.radius}")
            hits = self.reader.search(
                request.text,
                start,
                end,
                place,
                to_seconds(request.as_of) or None,
                request.max_results or 10,
            )
        except VidmemError as exc:
            return refused(response, exc)
        response.results = [hit_evidence(hit) for hit in hits]
        response.success = True
        return response

    def _on_summarize(self, request: Summarize.Request, response: Summarize.Response) -> Summarize.Response:
        start, end = time_range(request.start, request.end)
        try:
            summary = self.reader.summary(start, end, to_seconds(request.as_of) or None)
        except VidmemError as exc:
            return refused(response, exc)
        response.summary = summary.text
        response.events = [event_msg(e) for e in summary.events]
        response.success = True
        return response

    def _on_forget(self, request: Forget.Request, response: Forget.Response) -> Forget.Response:
        start, end = time_range(request.start, request.end)
        try:
            report = forget(self.archive, start, end, list(request.moment_ids), list(request.event_ids))
        except VidmemError as exc:
            return refused(response, exc)
        self.get_logger().info(
            f"forgot {len(report.moments)} moments, {len(report.events)} events, {report.transcripts} transcripts"
        )
        response.moments_removed = len(report.moments)
        response.events_removed = len(report.events)
        response.transcripts_removed = report.transcripts
        response.compacted = report.compacted
        response.success = True
        return response

    def close(self) -> None:
        self.store.close()


def refused(response: ResponseT, exc: VidmemError) -> ResponseT:
    """A request that could not be served: success false and the error, nothing half-filled."""
    response.success, response.error = False, str(exc)  # type: ignore[attr-defined]
    return response


def main(args: list[str] | None = None) -> int:
    return run_nodes([QueryNode], args if args is not None else sys.argv)


if __name__ == "__main__":
    sys.exit(main())
