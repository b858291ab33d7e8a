"""A small client for OpenAI-compatible chat-completions servers (vLLM, Ollama, llama.cpp server, NIM, hosted).

The VLM captioner and the language-model planner both talk through it: one
place for the HTTP details, the API key, timeouts and the strict reading of
replies.  Every failure (unreachable server, timeout, HTTP error, a body that
is not JSON, a reply without ``choices[0].message``) raises ``ChatError`` with
the URL in its message; the API key never appears in one.

``LlamaCppChat`` runs a GGUF model in-process through llama-cpp-python behind
the same ``complete`` method, for robots without a model server.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import math
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from vidmem_ros.errors import ModelUnavailableError, VidmemError

Message = dict[str, Any]


class ChatError(VidmemError):
    """The chat server could not be reached, timed out, refused the request or answered something unreadable."""


@dataclass(frozen=True)
class ChatToolCall:
    id: str
    name: str
    arguments: str  # JSON text, exactly as the model wrote it (it may be invalid)


@dataclass(frozen=True)
class ChatReply:
    content: str
    tool_calls: list[ChatToolCall] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    finish_reason: str = ""


class ChatBackend(Protocol):
    """What the planner needs from a model: one chat completion, within ``timeout_s`` unless told less."""

    timeout_s: float

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        max_tokens: int = 512,
        response_format: dict[str, Any] | None = None,
        timeout_s: float | None = None,
    ) -> ChatReply: ...


def read_api_key(path: str, setting: str = "api_key_file") -> str | None:
    """The key stored in ``path`` (None for an empty path); ``setting`` names the option in error messages."""
    if not path:
        return None
    file = Path(path).expanduser()
    try:
        key = file.read_text().strip()
    except OSError as exc:
        raise ModelUnavailableError(
            f"{setting}={path} cannot be read ({exc.strerror}); write the server's API key into "
            f"that file (chmod 600) or set {setting} to an empty string for a server without keys"
        ) from exc
    if not key:
        raise ModelUnavailableError(f"{setting}={path} is empty; write the server's API key into it")
    return key


class ChatClient:
    """POST /chat/completions and GET /models against ``url`` (the base, e.g. http://localhost:8000/v1)."""

    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        timeout_setting: str = "timeout_s",
    ) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        self._api_key = api_key
        self._timeout_setting = timeout_setting  # named in timeout messages, so the reader knows what to raise

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        max_tokens: int = 512,
        response_format: dict[str, Any] | None = None,
        timeout_s: float | None = None,
    ) -> ChatReply:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": 0.0,
            "max_tokens": max_tokens,
        }
        if tools:
            body["tools"] = tools
        if tool_choice is not None:
            body["tool_choice"] = tool_choice
        if response_format is not None:
            body["response_format"] = response_format
        answer = self.request("POST", "/chat/completions", body, timeout_s)
        return parse_completion(answer, f"{self.url}/chat/completions")

    def models(self, timeout_s: float | None = None) -> list[str]:
        """The model names the server lists (llama.cpp lists one and serves any name)."""
        listing = self.request("GET", "/models", None, timeout_s)
        data = listing.get("data", [])
        return [str(m.get("id")) for m in data if isinstance(m, dict)] if isinstance(data, list) else []

    def request(self, method: str, path: str, body: dict[str, Any] | None, timeout_s: float | None) -> dict[str, Any]:
        timeout = self.timeout_s if timeout_s is None else timeout_s
        where = self.url + path
        raw = self._send(method, where, body, timeout)
        try:
            answer = json.loads(raw)
        except ValueError as exc:
            raise ChatError(f"{where} answered with something that is not JSON: {raw[:80]!r}") from exc
        if not isinstance(answer, dict):
            raise ChatError(f"{where} answered with JSON that is not an object")
        return answer

    def _send(self, method: str, where: str, body: dict[str, Any] | None, timeout: float) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(where, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            raise ChatError(f"{where} answered HTTP {exc.code}: {detail}") from exc
        except urllib.error.URLError as exc:
            raise ChatError(f"cannot reach {where}: {exc.reason}") from exc
        except TimeoutError as exc:
            raise ChatError(f"{where} timed out after {timeout:.3g} s ({self._timeout_setting})") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise ChatError(f"{where} failed: {exc!r}") from exc


def parse_completion(answer: dict[str, Any], where: str) -> ChatReply:
    """The first choice of a chat-completion object; anything without ``choices[0].message`` is a ChatError."""
    try:
        choice = answer["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ChatError(f"{where} answered without choices[0].message") from exc
    if not isinstance(message, dict):
        raise ChatError(f"{where} answered with a message that is not an object")
    usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
    assert isinstance(usage, dict)
    return ChatReply(
        content=_content_text(message.get("content")),
        tool_calls=_tool_calls(message.get("tool_calls"), where),
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
        total_tokens=_count(usage.get("total_tokens")),
        finish_reason=str(choice.get("finish_reason") or ""),
    )


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # some servers return content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _tool_calls(calls: Any, where: str) -> list[ChatToolCall]:
    if calls is None:
        return []
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        raise ChatError(f"{where} answered with tool_calls that are not a list of objects")
    out = []
    for call in calls:
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        assert isinstance(function, dict)
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):  # Ollama and llama.cpp may send an object rather than JSON text
            arguments = json.dumps(arguments)
        out.append(ChatToolCall(str(call.get("id") or ""), str(function.get("name") or ""), arguments))
    return out


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


# How long closing waits for a generation it stopped: llama.cpp checks between the steps of its graph.
CLOSE_WAIT_S = 10.0


class LlamaCppChat:
    """A GGUF model run in-process by llama-cpp-python; the chat template of the file renders tools.

    A reply without tools is read token by token and given up when ``timeout_s`` runs out (waiting for the model
    included): llama.cpp cannot stop within a token, but can between them, and what it has read stays in its
    cache.  With tools, ``max_tokens`` alone bounds a reply.
    """

    def __init__(
        self, path: str, n_ctx: int = 8192, setting: str = "llm_local_model", n_threads: int | None = None
    ) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelUnavailableError(
                f"{setting}={path} needs llama-cpp-python: `pip install llama-cpp-python` (it compiles llama.cpp, "
                f"several minutes), or serve the model over HTTP and set {setting} to an empty string"
            ) from exc
        if not Path(path).expanduser().is_file():
            raise ModelUnavailableError(f"{setting}={path} is not a file; point it at a GGUF model")
        if not _is_gguf(Path(path).expanduser()):
            raise ModelUnavailableError(f"{setting}={path} is not a GGUF model (no GGUF header); point it at one")
        self.url = f"llama_cpp:{Path(path).name}"
        self.timeout_s = math.inf
        # Typed as Any: llama-cpp-python's TypedDict signatures do not take the plain dicts this client builds.
        try:
            self._llm: Any = llama_cpp.Llama(
                model_path=str(Path(path).expanduser()), n_ctx=n_ctx, n_threads=n_threads, verbose=False
            )
        except (ValueError, RuntimeError) as exc:  # a truncated or corrupt file
            raise ModelUnavailableError(
                f"{setting}={path} could not be loaded ({exc}); point it at a GGUF model"
            ) from exc
        self._lock = threading.Lock()  # one Llama context serves one generation at a time
        # A generation under way in another thread (the prompt warm-up) must stop before the process exits: the
        # interpreter's teardown under a running llama.cpp computation ends in a segmentation fault.
        self._closing = threading.Event()
        self._closed = False
        abort_type = getattr(llama_cpp, "ggml_abort_callback", None)
        if abort_type is not None:  # a llama-cpp-python that offers it
            self._abort = abort_type(lambda _data: self._closing.is_set())
            with contextlib.suppress(AttributeError):  # no handle on the context
                llama_cpp.llama_set_abort_callback(self._llm._ctx.ctx, self._abort, None)
        atexit.register(self.close)

    def close(self, wait_s: float = CLOSE_WAIT_S) -> None:
        """Stop any generation under way, wait for it to end (at most ``wait_s``) and free the model while the
        interpreter is whole (freed by the garbage collector at exit, llama.cpp aborts the process); no generation
        starts after."""
        self._closing.set()
        if not self._lock.acquire(timeout=wait_s):
            return
        try:
            if not self._closed:
                self._closed = True
                if callable(getattr(self._llm, "close", None)):
                    self._llm.close()
        finally:
            self._lock.release()

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        max_tokens: int = 512,
        response_format: dict[str, Any] | None = None,
        timeout_s: float | None = None,
    ) -> ChatReply:
        if self._closing.is_set():
            raise ChatError(f"{self.url} is closing")
        request = {
            "messages": [_template_friendly(m) for m in messages],
            "tools": tools or None,
            "tool_choice": tool_choice,
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "response_format": _as_llama_format(response_format),
        }
        wait = timeout_s if not tools and timeout_s is not None and math.isfinite(timeout_s) else None
        asked_at = time.monotonic()  # the time allowed runs from here, waiting for the model included
        if not self._lock.acquire(timeout=-1 if wait is None else max(0.0, wait)):
            raise ChatError(f"{self.url} was busy for {wait:.3g} s")
        try:
            if wait is None:
                answer = self._llm.create_chat_completion(**request)
            else:
                answer = self._streamed(request, asked_at + wait, wait)
        except ChatError:
            raise
        except Exception as exc:  # llama.cpp raises ValueError, RuntimeError, template errors
            raise ChatError(f"{self.url} failed: {exc!r}") from exc
        finally:
            self._lock.release()
        if not isinstance(answer, dict):
            raise ChatError(f"{self.url} returned {type(answer).__name__}, not a chat completion")
        return parse_completion(answer, self.url)

    def _streamed(self, request: dict[str, Any], deadline: float, timeout_s: float) -> dict[str, Any]:
        """The completion read as it is generated, in the shape of a whole one; given up at ``deadline``."""
        chunks = self._llm.create_chat_completion(**request, stream=True)
        parts: list[str] = []
        finish = None
        try:
            for chunk in chunks:
                choice = chunk["choices"][0]
                parts.append((choice.get("delta") or {}).get("content") or "")
                finish = choice.get("finish_reason") or finish
                if finish is None and time.monotonic() > deadline:
                    raise ChatError(f"{self.url} gave no whole reply within {timeout_s:.3g} s")
        finally:
            chunks.close()  # stops generating; the tokens read so far stay in the model's cache
        message = {"role": "assistant", "content": "".join(parts)}
        usage = {"completion_tokens": sum(1 for part in parts if part)}
        return {"choices": [{"message": message, "finish_reason": finish or "stop"}], "usage": usage}


def _is_gguf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == b"GGUF"
    except OSError:
        return False


def _as_llama_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """OpenAI's ``json_schema`` response format in llama-cpp-python's spelling (``json_object`` with a schema),
    which it turns into a grammar that constrains decoding."""
    if response_format and response_format.get("type") == "json_schema":
        return {"type": "json_object", "schema": response_format.get("json_schema", {}).get("schema", {})}
    return response_format


def _template_friendly(message: Message) -> Message:
    """Chat templates (Qwen's, Hermes') render tool-call arguments with ``tojson``: they want objects, not text."""
    calls = message.get("tool_calls")
    if not calls:
        return message
    fixed = []
    for call in calls:
        function = dict(call.get("function", {}))
        with contextlib.suppress(TypeError, ValueError):  # an invalid call stays as the model wrote it
            function["arguments"] = json.loads(function.get("arguments") or "{}")
        fixed.append({**call, "function": function})
    return {**message, "tool_calls": fixed}
