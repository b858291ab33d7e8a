"""A real local HTTP server speaking the OpenAI chat-completions protocol, with scripted replies.

Each POST /v1/chat/completions takes the next entry of ``script``:
- a dict: the assistant message to send (build it with ``calls`` or ``text``);
- a callable: called with the request body, returns one of these entries (a reply that reads the conversation);
- ``Delay(seconds, then)``: waits, then sends ``then`` (nothing when None);
- ``HttpError(status, body)``: an HTTP error status;
- ``Garbage(data, raw)``: bytes that are not HTTP (raw) or a 200 response whose body is not JSON.
Every request is recorded (path, headers, JSON body) so tests can check what the client sent.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Entry = Any  # dict | Callable[[dict], Entry] | Delay | HttpError | Garbage


@dataclass(frozen=True)
class Delay:
    seconds: float
    then: Entry = None


@dataclass(frozen=True)
class HttpError:
    status: int
    body: str = '{"error": {"message": "scripted failure"}}'


@dataclass(frozen=True)
class Garbage:
    data: bytes = b"\x00\xff\xfe this is not HTTP \r\n\r\n"
    raw: bool = True  # False: a 200 response whose body is ``data``


def calls(*items: tuple[str, dict[str, Any] | str], content: str | None = None) -> dict[str, Any]:
    """An assistant message with tool calls; a str argument is sent as-is (to script malformed JSON)."""
    tool_calls = [
        {
            "id": f"call_{id(items)}_{i}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for i, (name, args) in enumerate(items)
    ]
    return {"role": "assistant", "content": content, "tool_calls": tool_calls}


def text(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


class ChatServer:
    """Serves on a random port of 127.0.0.1 until ``close``; ``url`` is the OpenAI base URL (ends in /v1)."""

    def __init__(self, script: list[Entry] | None = None, models: tuple[str, ...] = ("scripted",)) -> None:
        self.script: list[Entry] = list(script or [])
        self.requests: list[dict[str, Any]] = []
        self.models = models
        self.usage = True  # False: replies carry no usage, as some servers do
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self._stop.set()  # ends pending delays
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]

    def _next(self, body: dict[str, Any], headers: dict[str, str], path: str) -> Entry:
        with self._lock:
            self.requests.append({"path": path, "headers": headers, "body": body})
            entry = self.script.pop(0) if self.script else HttpError(500, '{"error": "no scripted reply left"}')
        while callable(entry):
            entry = entry(body)
        return entry

    def completion(self, body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "model": body.get("model", ""),
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
            ],
        }
        if self.usage:  # a rough count, as a tokenizer would give (about 4 characters a token)
            prompt = len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("tools", [])))
            completion = len(json.dumps(message))
            reply["usage"] = {
                "prompt_tokens": prompt // 4,
                "completion_tokens": completion // 4,
                "total_tokens": prompt // 4 + completion // 4,
            }
        return reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": None})
                if self.path.rstrip("/").endswith("/models"):
                    data = [{"id": m, "object": "model"} for m in server.models]
                    self._send(200, json.dumps({"object": "list", "data": data}).encode())
                else:
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                entry = server._next(body, dict(self.headers), self.path)
                if isinstance(entry, Delay):
                    server._stop.wait(entry.seconds)
                    entry = entry.then
                    if entry is None:
                        return
                if isinstance(entry, HttpError):
                    self._send(entry.status, entry.body.encode())
                elif isinstance(entry, Garbage) and entry.raw:
                    self._raw(entry.data)
                elif isinstance(entry, Garbage):
                    self._send(200, entry.data)
                else:
                    self._send(200, json.dumps(server.completion(body, entry)).encode())

            def _send(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout): nothing to do

            def _raw(self, data: bytes) -> None:
                try:
                    self.wfile.write(data)
                    self.wfile.flush()
                except OSError:
                    pass
                self.close_connection = True

        return Handler
