"""Request limits: body size and table cell count (pure ASGI, before any parsing) and in-flight slots."""

from __future__ import annotations

import re
import threading

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from celltrace.server.api.errors import error_response

_TOKEN = re.compile(
    rb'"([^"\\]*(?:\\.[^"\\]*)*)"\s*:'  # an object key (group 1)
    rb'|"[^"\\]*(?:\\.[^"\\]*)*"'  # a string value
    rb"|[\[\]{}]"  # structure
    rb'|[^\s,:\[\]{}"]+'  # a number, true, false, null
)
_GRIDS = (b"cells", b"values")
_OPEN, _CLOSE = b"[{", b"]}"


def too_many_cells(body: bytes | bytearray, limit: int) -> bool:
    """True when `table.cells` or `table.values` in the raw JSON `body` has more than `limit` entries.

    Counts tokens without building any objects: first a C-speed upper bound (every grid entry is
    followed by a comma or opens a row), then, only when that bound exceeds `limit`, a scan that stops
    as soon as one grid passes `limit`.
    """
    if body.count(b",") + body.count(b"[") <= limit:
        return False
    path: list[bytes | None] = []  # the key each open container sits under (None in arrays)
    key: bytes | None = None
    counts = dict.fromkeys(_GRIDS, 0)
    for match in _TOKEN.finditer(body):
        if match.group(1) is not None:
            key = match.group(1)
            continue
        first = body[match.start()]
        if first not in _CLOSE and len(path) == 4 and path[1] == b"table" and path[2] in counts:
            grid = path[2]
            assert grid is not None
            counts[grid] += 1
            if counts[grid] > limit:
                return True
        if first in _OPEN:
            path.append(key)
        elif first in _CLOSE and path:
            path.pop()
        key = None
    return False


class RequestLimitsMiddleware:
    """413 for a body over `max_body_bytes` (Content-Length first, then counted while reading, never
    reading past the limit) or a table over `max_cells`; the body is then replayed to the app."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, max_cells: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_cells = max_cells

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        length = _content_length(scope)
        if length is not None and length > self.max_body_bytes:
            await self._body_too_large(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                del body
                await self._body_too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        if too_many_cells(body, self.max_cells):
            del body
            response = error_response(
                413,
                "too_many_cells",
                f"the table has more than {self.max_cells:,} cells (the server's limit)",
            )
            await response(scope, receive, send)
            return
        pending = [bytes(body)]  # popped by the app's first receive, so only the app keeps the body
        del body

        async def replay() -> Message:
            if not pending:
                return await receive()
            return {"type": "http.request", "body": pending.pop(), "more_body": False}

        await self.app(scope, replay, send)

    async def _body_too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"the request body is larger than {self.max_body_bytes:,} bytes (the server's limit)"
        await error_response(413, "body_too_large", message, {"Connection": "close"})(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class InflightSlots:
    """A non-blocking counter of questions in flight; `try_acquire` is False when all are taken.

    Thread-safe: slots are released by the worker thread when an engine really finishes (also
    after its request timed out), so abandoned work still counts.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._used = 0
        self._lock = threading.Lock()

    def try_acquire(self) -> bool:
        with self._lock:
            if self._used >= self.size:
                return False
            self._used += 1
            return True

    def release(self) -> None:
        with self._lock:
            self._used = max(self._used - 1, 0)

    @property
    def used(self) -> int:
        return self._used
