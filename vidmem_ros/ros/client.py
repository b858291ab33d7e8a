"""A client for a running vidmem: ask questions, watch memory_stats.  Used by the CLI, demo and tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import rclpy
from rclpy.client import Client
from rclpy.node import Node

from vidmem_ros.msg import Event, MemoryStats
from vidmem_ros.ros.convert import to_time
from vidmem_ros.srv import Forget, Query, SearchMemory, Summarize

# A request sent in the first seconds after a service is matched can be lost while DDS discovery completes (the
# server's response writer may not have matched this client's reader yet): such a request is sent once more if it
# goes unanswered for RESEND_AFTER_S, and the first answer to either copy is taken.
FRESH_S = 10.0
RESEND_AFTER_S = 2.0


class MemoryClient:
    """One method per service of a running vidmem (``namespace`` of a robot in a fleet), plus its topics.

    ``fresh_s``: for this long after a service is first seen (by this client, or again after it went away) an
    unanswered request is resent once after ``resend_after_s``; 0 never resends."""

    def __init__(
        self, node: Node, namespace: str = "", fresh_s: float = FRESH_S, resend_after_s: float = RESEND_AFTER_S
    ) -> None:
        self.node = node
        self.fresh_s, self.resend_after_s = fresh_s, resend_after_s
        self._seen_since: dict[str, float] = {}  # service name -> when this client first found it offered
        prefix = namespace.rstrip("/")
        self._query = node.create_client(Query, f"{prefix}/query")
        self._search = node.create_client(SearchMemory, f"{prefix}/search_memory")
        self._summarize = node.create_client(Summarize, f"{prefix}/summarize")
        self._forget = node.create_client(Forget, f"{prefix}/forget")
        self._stats_lock = threading.Lock()
        self.latest_stats: MemoryStats | None = None
        self.events: list[Event] = []  # archived events, in the order they were published
        node.create_subscription(MemoryStats, f"{prefix}/memory_stats", self._on_stats, 10)
        node.create_subscription(Event, f"{prefix}/events", self._on_event, 50)

    def _on_event(self, msg: Event) -> None:
        with self._stats_lock:
            self.events.append(msg)

    def _on_stats(self, msg: MemoryStats) -> None:
        with self._stats_lock:
            self.latest_stats = msg

    def stats(self) -> MemoryStats | None:
        with self._stats_lock:
            return self.latest_stats

    def clear_stats(self) -> None:
        """Forget the last memory_stats message (a restarted node starts its counts afresh)."""
        with self._stats_lock:
            self.latest_stats = None

    def wait_for_service(self, timeout_s: float) -> bool:
        return bool(self._query.wait_for_service(timeout_sec=timeout_s))

    def ask(
        self,
        question: str,
        as_of: float | None = None,
        timeout_s: float = 30.0,
        max_turns: int = 0,
        scope: str = "",
        robots: Sequence[str] = (),
    ) -> Query.Response:
        """``scope`` "fleet" asks the fleet store (only ``robots``, when named) instead of this robot's memory."""
        request = Query.Request(
            question=question, max_turns=max_turns, timeout_s=float(timeout_s), scope=scope, robots=list(robots)
        )
        if as_of is not None:
            request.as_of = to_time(as_of)
        response = self._send(self._query, request, timeout_s)
        if response is None:
            raise TimeoutError(f"no answer to {question!r} within {timeout_s} s")
        return response  # type: ignore[no-any-return]

    def search(
        self,
        text: str = "",
        start: float = 0.0,
        end: float = 0.0,
        place: tuple[float, float, float] | None = None,
        as_of: float = 0.0,
        max_results: int = 10,
        timeout_s: float = 30.0,
    ) -> SearchMemory.Response:
        request = SearchMemory.Request(text=text, max_results=max_results)
        request.start, request.end, request.as_of = to_time(start), to_time(end), to_time(as_of)
        if place is not None:
            request.use_place = True
            request.x, request.y, request.radius = place
        return self._call(self._search, request, timeout_s)  # type: ignore[no-any-return]

    def summarize(
        self, start: float = 0.0, end: float = 0.0, as_of: float = 0.0, timeout_s: float = 30.0
    ) -> Summarize.Response:
        request = Summarize.Request()
        request.start, request.end, request.as_of = to_time(start), to_time(end), to_time(as_of)
        return self._call(self._summarize, request, timeout_s)  # type: ignore[no-any-return]

    def forget(
        self,
        start: float = 0.0,
        end: float = 0.0,
        moment_ids: Sequence[int] = (),
        event_ids: Sequence[int] = (),
        timeout_s: float = 60.0,
        person: str = "",
        with_speech: bool = False,
    ) -> Forget.Response:
        request = Forget.Request(
            moment_ids=list(moment_ids), event_ids=list(event_ids), person=person, with_speech=with_speech
        )
        request.start, request.end = to_time(start), to_time(end)
        return self._call(self._forget, request, timeout_s)  # type: ignore[no-any-return]

    def _call(self, client: Client, request: object, timeout_s: float) -> object:
        response = self._send(client, request, timeout_s)
        if response is None:
            raise TimeoutError(f"service {client.srv_name} did not answer within {timeout_s} s")
        return response

    def _send(self, client: Client, request: object, timeout_s: float) -> object | None:
        """The response to ``request``, or None if none came within ``timeout_s``; to a service matched only
        moments ago the request goes once more when the first copy is not answered soon (see FRESH_S)."""
        deadline = time.monotonic() + timeout_s
        if not client.service_is_ready():
            self._seen_since.pop(client.srv_name, None)  # gone or not yet there: fresh once it is offered
            if not client.wait_for_service(timeout_sec=timeout_s):
                raise TimeoutError(f"service {client.srv_name} is not available")
        seen = self._seen_since.setdefault(client.srv_name, time.monotonic())
        futures = [client.call_async(request)]
        if self.fresh_s > 0 and time.monotonic() - seen < self.fresh_s:
            first_wait = min(self.resend_after_s, max(0.0, deadline - time.monotonic()))
            rclpy.spin_until_future_complete(self.node, futures[0], timeout_sec=first_wait)
            if not futures[0].done() and time.monotonic() < deadline:
                futures.append(client.call_async(request))
        while not any(f.done() for f in futures) and time.monotonic() < deadline:
            rclpy.spin_once(self.node, timeout_sec=min(0.1, max(0.0, deadline - time.monotonic())))
        for future in futures:
            if not future.done():
                client.remove_pending_request(future)
        return next((f.result() for f in futures if f.done()), None)

    def wait_for_events(self, count: int, timeout_s: float) -> list[Event]:
        """Spin until at least ``count`` events have arrived (or the timeout); returns those received."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and len(self.events) < count:
            rclpy.spin_once(self.node, timeout_sec=0.1)
        with self._stats_lock:
            return list(self.events)

    def wait_for_stats(self, predicate: Callable[[MemoryStats], bool], timeout_s: float) -> MemoryStats | None:
        """Spin until a memory_stats message satisfies ``predicate``; returns it, or None on timeout."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            rclpy.spin_once(self.node, timeout_sec=0.1)
            stats = self.stats()
            if stats is not None and predicate(stats):
                return stats
        return None

    def wait_until_idle(
        self, received_at_least: int | None, timeout_s: float, settle_s: float = 2.0
    ) -> MemoryStats | None:
        """Wait until ingestion has taken in ``received_at_least`` frames (or stopped receiving: its count held for
        ``settle_s``) and drained.  With None, only a held count will do: frames still in transport are waited for."""
        deadline = time.monotonic() + timeout_s
        last_count, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            self.clear_stats()  # wait for a fresh message
            stats = self.wait_for_stats(lambda s: True, max(0.1, deadline - time.monotonic()))
            if stats is None:
                return None
            if stats.frames_received != last_count:
                last_count, since = stats.frames_received, time.monotonic()
            settled = time.monotonic() - since > settle_s
            enough = received_at_least is not None and stats.frames_received >= received_at_least
            if stats.queue_depth == 0 and (enough or settled):
                return stats
        return None
