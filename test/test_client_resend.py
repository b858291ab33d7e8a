"""``MemoryClient`` against a real ``query`` service over DDS: a request to a service matched only moments ago that
goes unanswered is sent once more (discovery can lose it), and the first answer is taken; a request to a service
known for a while is sent once, however long its answer takes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from vidmem_ros.srv import Query

from vidmem_ros.ros.client import MemoryClient

pytestmark = pytest.mark.ros


@dataclass
class Server:
    """A query service that never answers its first ``swallow`` requests (as if discovery had lost them) and
    answers the others after ``delay_s``, naming the request it answers."""

    swallow: int = 0
    delay_s: float = 0.0
    received: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, request: Query.Request, response: Query.Response) -> Query.Response:
        self.received.append(request.question)
        number = len(self.received)
        if number <= self.swallow:
            self.release.wait(60)  # holds this request until the test ends
            return response
        time.sleep(self.delay_s)
        response.success, response.answer = True, f"request {number}"
        return response


@pytest.fixture
def serve() -> Iterator[object]:
    rclpy.init()
    nodes: list[Node] = []
    servers: list[Server] = []
    executor = MultiThreadedExecutor(num_threads=4)
    spinner = threading.Thread(target=executor.spin, daemon=True)

    def start(server: Server, namespace: str) -> Node:
        node = Node("resend_server", namespace=namespace)
        node.create_service(Query, "query", server, callback_group=ReentrantCallbackGroup())
        executor.add_node(node)
        nodes.append(node)
        servers.append(server)
        if not spinner.is_alive():
            spinner.start()
        return node

    try:
        yield start
    finally:
        for server in servers:
            server.release.set()
        time.sleep(0.5)  # the held requests are answered (to clients no longer waiting) before the nodes go
        executor.shutdown(timeout_sec=5)
        for node in nodes:
            node.destroy_node()
        rclpy.shutdown()


def asker(namespace: str, **settings: float) -> MemoryClient:
    return MemoryClient(Node("resend_client", namespace=namespace), namespace, **settings)


def test_an_unanswered_request_to_a_just_matched_service_is_sent_again(serve) -> None:  # type: ignore[no-untyped-def]
    server = Server(swallow=1)
    serve(server, "/fresh_robot")
    client = asker("/fresh_robot", fresh_s=10.0, resend_after_s=0.5)
    response = client.ask("what is on the shelf?", timeout_s=20.0)
    assert response.success and response.answer == "request 2"
    assert server.received == ["what is on the shelf?"] * 2


def test_a_prompt_answer_is_asked_for_once(serve) -> None:  # type: ignore[no-untyped-def]
    server = Server()
    serve(server, "/prompt_robot")
    client = asker("/prompt_robot", fresh_s=10.0, resend_after_s=2.0)
    assert client.ask("where is the ladder?", timeout_s=20.0).answer == "request 1"
    assert client.ask("and the bucket?", timeout_s=20.0).answer == "request 2"
    assert len(server.received) == 2


def test_a_slow_answer_from_a_service_known_for_a_while_is_awaited_not_asked_again(serve) -> None:  # type: ignore[no-untyped-def]
    server = Server(delay_s=1.5)
    serve(server, "/known_robot")
    client = asker("/known_robot", fresh_s=0.0, resend_after_s=0.2)
    assert client.ask("how long was the corridor walk?", timeout_s=20.0).answer == "request 1"
    assert server.received == ["how long was the corridor walk?"]


def test_a_swallowed_request_to_a_service_known_for_a_while_times_out(serve) -> None:  # type: ignore[no-untyped-def]
    server = Server(swallow=1)
    serve(server, "/quiet_robot")
    client = asker("/quiet_robot", fresh_s=0.0)
    with pytest.raises(TimeoutError, match="no answer"):
        client.ask("anything heard?", timeout_s=2.0)
    assert len(server.received) == 1
