"""Query node: answers questions, searches, summarises and forgets memory through services.

Every service runs in a reentrant group on a multi-threaded executor, so a long
question never holds up a search or a forget; each reading thread gets its own
read-only store connection, so none of them holds up ingestion either.

A lifecycle node: configure opens the store and builds the reasoner; activate offers the services and
deactivate withdraws them; cleanup closes the store and drops the reasoner with any model it loaded.  With
``autostart`` (the default) it goes straight to active.
"""

from __future__ import annotations

import sys
from typing import TypeVar

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.service import Service
from rclpy.timer import Timer

from vidmem_ros.agent.reasoner import Reasoner, build_reasoner
from vidmem_ros.errors import InputError, VidmemError
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import ComposedCaptioner
from vidmem_ros.memory.forget import forget, forget_ref
from vidmem_ros.memory.integrity import DamagedStoreError, file_id, wait_until_replaced
from vidmem_ros.memory.reader import MemoryReader, Place
from vidmem_ros.memory.runs import clock_spans, memory_as_of
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.ros.convert import event_msg, fill_response, hit_evidence, time_range, to_seconds
from vidmem_ros.ros.memory_node import MemoryNode
from vidmem_ros.ros.runtime import run_nodes
from vidmem_ros.srv import Forget, Query, SearchMemory, Summarize

# Beyond the ingest node's own check of a damaged store, how long this node waits for it to set the file aside.
REPLACE_WAIT_S = 10.0

ResponseT = TypeVar("ResponseT", SearchMemory.Response, Summarize.Response, Forget.Response)


class QueryNode(MemoryNode):
    concurrent_callbacks = True  # questions are answered in parallel

    def __init__(self, **kwargs: object) -> None:
        super().__init__("vidmem_query", **kwargs)
        self._offered: list[Service] = []  # not _services: rclpy keeps its own list by that name
        self._reasoner: Reasoner | None = None
        self._archive: EventArchive | None = None
        self._read_ahead: Timer | None = None

    @property
    def reasoner(self) -> Reasoner:
        assert self._reasoner is not None, "the reasoner exists from configure to cleanup"
        return self._reasoner

    @property
    def reader(self) -> MemoryReader:
        return self.reasoner.reader  # the services read memory as the reasoner's tools do

    # -- lifecycle -----------------------------------------------------------------

    def _open_store(self) -> SqliteStore:
        """A damaged store is never written.  The ingest node sets it aside and starts a fresh one, so this node
        waits (as long as the ingest node's check may take, and a little more) to answer from that; with no
        ingest node to do so, it reads the damaged file read-only: only what lies outside its damaged pages."""
        path = self.config.store_path()
        found = file_id(path)
        try:
            return super()._open_store()
        except DamagedStoreError as exc:
            if wait_until_replaced(path, found, 2 * self.config.store.check_s + REPLACE_WAIT_S):
                self.get_logger().warning(f"{exc}; it was set aside: answering from the fresh store")
                return super()._open_store()
            self.get_logger().error(
                f"{exc}; nothing set it aside, so it is read read-only (forget refused); "
                f"`vidmem doctor --store {path} --repair` recovers what is readable"
            )
            return SqliteStore(path, readonly=True)

    def _configure(self) -> None:
        # The store is read-write: refused questions are counted and forget removes memory from here.
        self._reasoner = build_reasoner(self.config, self.store)
        self._archive = EventArchive(self.store, self.config, ComposedCaptioner())

    def _activate(self) -> None:
        group = ReentrantCallbackGroup()
        self._offered = [
            self.create_service(Query, "query", self._on_query, callback_group=group),
            self.create_service(SearchMemory, "search_memory", self._on_search, callback_group=group),
            self.create_service(Summarize, "summarize", self._on_summarize, callback_group=group),
            self.create_service(Forget, "forget", self._on_forget, callback_group=group),
        ]
        self.get_logger().info(
            f"answering questions on {self.resolve_service_name('query')} from {self.config.store_path()}"
        )
        if self.config.query.read_ahead_s > 0:  # a timer of its own group: neither start-up nor questions wait for it
            period = self.config.query.read_ahead_s
            self._read_ahead = self.create_timer(period, self._on_read_ahead, MutuallyExclusiveCallbackGroup())

    def _on_read_ahead(self) -> None:
        try:
            count = self.reasoner.read_ahead()
        except VidmemError as exc:  # a store being replaced or closed: the next tick tries again
            self.get_logger().warning(f"reading memory's meaning ahead of questions failed: {exc}")
            return
        if count:
            self.get_logger().debug(f"embedded the meaning of {count} records ahead of questions")

    def _stop(self) -> None:
        for service in self._offered:
            self.destroy_service(service)
        self._offered = []
        if self._read_ahead is not None:
            self.destroy_timer(self._read_ahead)
            self._read_ahead = None

    def _release(self) -> None:
        self._reasoner = self._archive = None  # with any model the reasoner loaded
        super()._release()

    # -- services ------------------------------------------------------------------

    def _on_query(self, request: Query.Request, response: Query.Response) -> Query.Response:
        as_of = to_seconds(request.as_of) or None  # the robot's clock: the reasoner reads it in memory time
        answer = self.reasoner.answer(
            request.question, as_of, request.max_turns, float(request.timeout_s), request.scope, list(request.robots)
        )
        if "rejected" in answer.trace:
            if not self.store.readonly:
                self.store.bump_counter("rejected_queries")
            self.get_logger().warning(f"refused a question: {answer.error}")
        runs = [] if request.scope == "fleet" else self.store.runs()  # the fleet store's stamps keep no runs
        return fill_response(response, answer, answer.trace, runs)

    def _on_search(self, request: SearchMemory.Request, response: SearchMemory.Response) -> SearchMemory.Response:
        runs = self.store.runs()  # the request's times are the robot's clock, memory's are memory time
        place = Place(request.x, request.y, request.radius) if request.use_place else None
        try:
            if place is not None and not place.radius > 0:
                raise InputError("bad_place", f"radius must be positive, got {request.radius}")
            hits = self.reader.search(
                request.text,
                place=place,
                as_of=memory_as_of(runs, to_seconds(request.as_of) or None),
                limit=request.max_results or 10,
                spans=clock_spans(runs, *time_range(request.start, request.end)),
                people=True,
            )
        except VidmemError as exc:
            return refused(response, exc)
        response.results = [hit_evidence(hit, runs) for hit in hits]
        response.success = True
        return response

    def _on_summarize(self, request: Summarize.Request, response: Summarize.Response) -> Summarize.Response:
        runs = self.store.runs()  # as in search
        as_of = memory_as_of(runs, to_seconds(request.as_of) or None)
        try:
            summary = self.reader.summary(as_of=as_of, spans=clock_spans(runs, *time_range(request.start, request.end)))
        except VidmemError as exc:
            return refused(response, exc)
        response.summary = summary.text
        response.events = [event_msg(e, runs) for e in summary.events]
        response.success = True
        return response

    def _on_forget(self, request: Forget.Request, response: Forget.Response) -> Forget.Response:
        if request.person:
            return self._forget_person(request, response)
        start, end = time_range(request.start, request.end)
        try:
            assert self._archive is not None
            report = forget(
                self._archive, start, end, list(request.moment_ids), list(request.event_ids), robot_clock=True
            )
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

    def _forget_person(self, request: Forget.Request, response: Forget.Response) -> Forget.Response:
        try:
            assert self._archive is not None
            report = forget_ref(self._archive, request.person, request.with_speech)
        except VidmemError as exc:
            return refused(response, exc)
        self.get_logger().info(
            f"forgot {request.person}: voices {report.voices}, faces {report.faces}, {report.transcripts} transcripts"
        )
        response.voices_removed, response.faces_removed = len(report.voices), len(report.faces)
        response.transcripts_removed = report.transcripts
        response.compacted = report.compacted
        response.success = True
        return response


def refused(response: ResponseT, exc: VidmemError) -> ResponseT:
    """A request that could not be served: success false and the error, nothing half-filled."""
    response.success, response.error = False, str(exc)  # type: ignore[attr-defined]
    return response


def main(args: list[str] | None = None) -> int:
    return run_nodes([QueryNode], args if args is not None else sys.argv)


if __name__ == "__main__":
    sys.exit(main())
