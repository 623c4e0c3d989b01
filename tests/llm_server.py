"""Loopback OpenAI-compatible chat server for tests and benchmarks.

``ScriptedLLM`` is a real HTTP server on ``127.0.0.1`` (random free port, background
thread) implementing ``POST /v1/chat/completions`` and ``GET /v1/models`` closely enough
that the official ``openai`` client works end to end.  Replies come from a FIFO queue
(``queue``), then from an optional ``responder`` callable; when both are empty the server
answers HTTP 500 ("script ran out", with ``x-should-retry: false``) so tests fail loudly.
Queue items are plain strings (assistant content), ``Reply`` objects or ``Fault`` objects;
every item is consumed by exactly one request, so a client retry after a transient fault
receives the next item.  Every HTTP request is recorded in ``requests``.

Server features, like llama.cpp's: ``reject_formats`` names ``response_format`` types answered
with HTTP 400 (without consuming the script), as servers without structured output do;
``n_ctx`` serves ``GET /props`` with that context window; ``tokenize`` serves ``POST /tokenize``
(one token per 2 characters).

Example::

    from openai import OpenAI

    with ScriptedLLM() as llm:
        llm.queue(Fault.status(429, retry_after=0.01), "B7 holds the total.")
        client = OpenAI(base_url=llm.base_url, api_key="test", max_retries=1, timeout=2)
        out = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Total?"}])
        assert out.choices[0].message.content == "B7 holds the total."
        assert len(llm.requests) == 2 and llm.prompts()[-1] == "Total?"

In pytest use the ``llm_server`` fixture from ``tests/conftest.py`` instead of the
context manager.
"""

from __future__ import annotations

import itertools
import json
import math
import socket
import socketserver
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = ["Fault", "RecordedRequest", "Reply", "Responder", "Scripted", "ScriptedLLM"]


@dataclass(frozen=True)
class Reply:
    """A successful chat completion; ``usage=False`` omits the ``usage`` block."""

    content: str
    usage: bool = True
    finish_reason: str = "stop"
    reasoning_content: str | None = None


FaultKind = Literal["status", "slow", "malformed_json", "empty_choices"]

_ERROR_TYPES: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


@dataclass(frozen=True)
class Fault:
    """A misbehaving response; build one with the class methods, never directly."""

    kind: FaultKind
    status_code: int = 200
    message: str = ""
    retry_after: float | None = None
    seconds: float = 0.0
    then: Scripted | None = None

    @classmethod
    def status(cls, code: int, retry_after: float | None = None, message: str | None = None) -> Fault:
        """HTTP error ``code`` with an OpenAI-style error body; ``retry_after`` seconds (float ok)."""
        if code < 400:
            raise ValueError(f"Fault.status needs an error status code, got {code}")
        return cls("status", code, message or f"ScriptedLLM injected HTTP {code}", retry_after)

    @classmethod
    def slow(cls, seconds: float, then: Scripted) -> Fault:
        """Sleep ``seconds`` (cut short by ``stop()``), then answer with ``then``."""
        return cls("slow", seconds=seconds, then=then)

    @classmethod
    def malformed_json(cls) -> Fault:
        """HTTP 200 JSON content type, invalid body (the openai client raises ``json.JSONDecodeError``)."""
        return cls("malformed_json")

    @classmethod
    def truncated(cls, content: str, keep: int | None = None) -> Reply:
        """``content`` cut to ``keep`` characters (default: first half), finish_reason "length"."""
        return Reply(content[: len(content) // 2 if keep is None else keep], finish_reason="length")

    @classmethod
    def empty_choices(cls) -> Fault:
        """A well-formed completion whose ``choices`` list is empty."""
        return cls("empty_choices")


Scripted = str | Reply | Fault
Responder = Callable[[str, list[dict[str, Any]]], Scripted]


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as received; ``body`` is ``None`` when absent or not JSON."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    timestamp: float
    model: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)


def _text(content: Any) -> str:
    """Render a message ``content`` (string or list of parts) as plain text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _error_body(code: int, message: str) -> dict[str, Any]:
    default = ("server_error" if code >= 500 else "invalid_request_error", None)
    err_type, err_code = _ERROR_TYPES.get(code, default)
    return {"error": {"message": message, "type": err_type, "param": None, "code": err_code}}


class ScriptedLLM:
    """Scripted OpenAI-compatible chat server; use as a context manager or start()/stop()."""

    def __init__(
        self,
        responder: Responder | None = None,
        models: Iterable[str] = ("scripted-model",),
        reject_formats: Iterable[str] = (),
        n_ctx: int | None = None,
        tokenize: bool = False,
    ) -> None:
        self.responder = responder
        self.models = list(models)
        self.reject_formats = set(reject_formats)
        self.n_ctx = n_ctx
        self.tokenize = tokenize
        self._lock = threading.Lock()
        self._script: deque[Scripted] = deque()
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> ScriptedLLM:
        """Bind a free loopback port and serve in a daemon thread."""
        if self._httpd is not None:
            raise RuntimeError("ScriptedLLM already started")
        self._stopping.clear()
        self._httpd = _Server(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="ScriptedLLM", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving quickly: wakes slow replies and closes open keep-alive connections."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` for ``OpenAI(base_url=...)``."""
        if self._httpd is None:
            raise RuntimeError("ScriptedLLM is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    # -- scripting -------------------------------------------------------------------------------
    def queue(self, *replies: Scripted) -> ScriptedLLM:
        """Append replies (str, ``Reply`` or ``Fault``) to the FIFO script."""
        for reply in replies:
            if not isinstance(reply, str | Reply | Fault):
                raise TypeError(f"cannot script {type(reply).__name__}: use str, Reply or Fault")
        with self._lock:
            self._script.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Number of queued replies not yet consumed."""
        with self._lock:
            return len(self._script)

    def _next(self, model: str, messages: list[dict[str, Any]]) -> Scripted | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
        return None if self.responder is None else self.responder(model, messages)

    # -- recording -------------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """Snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """Snapshot of the ``POST .../chat/completions`` requests only."""
        return [r for r in self.requests if r.method == "POST" and r.path.endswith("/chat/completions")]

    @property
    def last_request(self) -> RecordedRequest:
        """The most recent chat completion request."""
        chats = self.chat_requests
        if not chats:
            raise AssertionError("ScriptedLLM received no chat completion request")
        return chats[-1]

    def prompts(self, roles: Iterable[str] = ("system", "user")) -> list[str]:
        """Per chat request, the text of its messages with these roles joined by blank lines."""
        wanted = set(roles)
        return [
            "\n\n".join(_text(m.get("content")) for m in r.messages if m.get("role") in wanted)
            for r in self.chat_requests
        ]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    # -- response building -----------------------------------------------------------------------
    def _completion(self, model: str, messages: list[dict[str, Any]], reply: Reply | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": None,
            "choices": [],
        }
        content = "" if reply is None else reply.content
        if reply is not None:
            message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
            if reply.reasoning_content is not None:
                message["reasoning_content"] = reply.reasoning_content
            body["choices"] = [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ]
        if reply is None or reply.usage:
            prompt = sum(len(_text(m.get("content")).split()) for m in messages)
            completion = len(content.split())
            body["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
        return body


class _Server(ThreadingHTTPServer):
    """Threading server that tracks live connections so ``stop()`` can close them."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, owner: ScriptedLLM) -> None:
        self.owner = owner
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        """Bind without HTTPServer's reverse-DNS lookup (can stall offline)."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._conns_lock:
            self._conns.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._conns_lock:
            self._conns.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._conns_lock:
            conns, self._conns = list(self._conns), set()
        for conn in conns:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about clients that hung up (timeouts, stop()); report real bugs."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request logging."""

    # -- plumbing --------------------------------------------------------------------------------
    def _send(self, code: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, code: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self._send(code, json.dumps(body).encode(), headers)

    def _error(self, code: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._json(code, _error_body(code, message), headers)

    def _read_body(self) -> tuple[bytes, Any]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            return raw, json.loads(raw) if raw else None
        except ValueError:
            return raw, None

    # -- routes ----------------------------------------------------------------------------------
    def do_GET(self) -> None:
        owner = self.server.owner
        owner._record(RecordedRequest("GET", self.path, self._headers(), None, time.time()))
        if self.path.rstrip("/") == "/v1/models":
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in owner.models]
            self._json(200, {"object": "list", "data": data})
        elif self.path.rstrip("/") == "/props" and owner.n_ctx is not None:
            self._json(200, {"default_generation_settings": {"n_ctx": owner.n_ctx}})
        else:
            self._error(404, f"ScriptedLLM: no route GET {self.path}")

    def do_POST(self) -> None:
        raw, body = self._read_body()
        owner = self.server.owner
        chat = isinstance(body, dict)
        model = str(body.get("model", "")) if chat else ""
        messages = body.get("messages") if chat else None
        owner._record(
            RecordedRequest(
                "POST",
                self.path,
                self._headers(),
                body,
                time.time(),
                model,
                messages if isinstance(messages, list) else [],
            )
        )
        fmt = body.get("response_format") if chat else None
        if self.path.rstrip("/") == "/tokenize" and owner.tokenize and chat:
            text = str(body.get("content", ""))
            self._json(200, {"tokens": list(range(-(-len(text) // 2)))})
        elif self.path.rstrip("/") != "/v1/chat/completions":
            self._error(404, f"ScriptedLLM: no route POST {self.path}")
        elif isinstance(fmt, dict) and fmt.get("type") in owner.reject_formats:
            self._error(400, f"ScriptedLLM: response_format {fmt.get('type')} is not supported")
        elif not chat:
            self._error(400, f"ScriptedLLM: request body is not a JSON object: {raw[:200]!r}")
        elif not model or not isinstance(messages, list) or not messages:
            self._error(400, "ScriptedLLM: 'model' and a non-empty 'messages' list are required")
        elif body.get("stream"):
            self._error(400, "ScriptedLLM: stream=true is not supported; call without streaming")
        else:
            self._chat(model, messages)

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _chat(self, model: str, messages: list[dict[str, Any]]) -> None:
        owner = self.server.owner
        no_retry = {"x-should-retry": "false"}
        try:
            item = owner._next(model, messages)
        except Exception:
            self._error(500, f"ScriptedLLM: responder raised:\n{traceback.format_exc()}", no_retry)
            return
        if item is None:
            n = len(owner.chat_requests)
            message = f"ScriptedLLM: script ran out (no queued reply, no responder) at chat request #{n}"
            self._error(500, message, no_retry)
        else:
            self._answer(model, messages, item)

    def _answer(self, model: str, messages: list[dict[str, Any]], item: Scripted) -> None:
        owner = self.server.owner
        if isinstance(item, str | Reply):
            reply = Reply(item) if isinstance(item, str) else item
            self._json(200, owner._completion(model, messages, reply))
        elif item.kind == "status":
            headers = {}
            if item.retry_after is not None:
                headers["retry-after-ms"] = f"{item.retry_after * 1000:g}"
                headers["retry-after"] = str(math.ceil(item.retry_after))
            self._error(item.status_code, item.message, headers)
        elif item.kind == "slow":
            if owner._stopping.wait(item.seconds):
                self.close_connection = True
                return
            assert item.then is not None
            self._answer(model, messages, item.then)
        elif item.kind == "malformed_json":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"message": ')
        else:
            self._json(200, owner._completion(model, messages, None))
