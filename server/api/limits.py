"""Request limits (pure ASGI, before any parsing): body size, body-read time, table cell count, text
that is not Unicode (lone surrogates); and in-flight slots."""

from __future__ import annotations

import json
import re
import threading

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from celltrace.server.api.errors import error_response

_STRING = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'  # possessive: no backtracking state on huge input
_FLAT_ROW = rb'\[[^\[\]{}"]*+(?:' + _STRING + rb'[^\[\]{}"]*+)*+\]'
_WALK = re.compile(rb"(" + _FLAT_ROW + rb')|"(table|cells|values)"\s*:\s*[\[{]|' + _STRING + rb"|[\[\]{}]")
_ENTRY = re.compile(_STRING + rb"|[-+.\w]++")  # a string, number, true, false or null
_GRIDS = ((b"table", b"cells"), (b"table", b"values"))
MIN_WALK_BUDGET = 10_000
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def has_lone_surrogate(body: bytes | bytearray) -> bool:
    """True when a JSON string of `body` holds a lone surrogate (`"\\ud800"`), which no UTF-8 text
    can carry. Parses only bodies that contain a surrogate escape at all."""
    if not _SURROGATE_ESCAPE.search(body):
        return False
    try:
        json.dumps(json.loads(body), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except ValueError:  # not JSON: the app's validation answers
        return False
    return False


def too_many_cells(body: bytes | bytearray, limit: int) -> bool:
    """True when `table.cells` or `table.values` in the raw JSON `body` has more than `limit` entries.

    Builds no JSON objects. A C-speed upper bound first (every grid entry is followed by a comma or
    opens a row); only when that exceeds `limit`, a walk over keys, strings and brackets in which a
    flat row is one regex match, its entries counted by a C regex iterator; a legit table costs
    O(rows) walk steps. A body needing more than `2 * limit` steps (nested junk) counts as too big.
    """
    if body.count(b",") + body.count(b"[") <= limit:
        return False
    path: list[bytes | None] = []  # the key each open container sits under (None: not tracked)
    counts = dict.fromkeys(_GRIDS, 0)
    for steps, match in enumerate(_WALK.finditer(body)):
        if steps > 2 * limit + MIN_WALK_BUDGET:
            return True
        if match.lastindex == 1:  # a flat row (not copied out of the body)
            grid = tuple(path[1:])
            if grid in counts:
                counts[grid] += sum(1 for _ in _ENTRY.finditer(body, match.start(), match.end()))
                if counts[grid] > limit:
                    return True
        elif match.lastindex == 2:
            path.append(match.group(2))
        elif body[match.start()] in b"[{":
            path.append(None)
        elif body[match.start()] in b"]}" and path:
            path.pop()
    return False


class _Disconnected(Exception):
    """The client went away while sending its body."""


class RequestLimitsMiddleware:
    """413 for a body over `max_body_bytes` (Content-Length first, then counted while reading, never
    reading past the limit) or a table over `max_cells`; the body is then replayed to the app."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, max_cells: int, body_timeout: float) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_cells = max_cells
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        length = _content_length(scope)
        if length is not None and length > self.max_body_bytes:
            await self._body_too_large(scope, receive, send)
            return
        try:
            with anyio.fail_after(self.body_timeout):
                body = await self._read(receive, length)
        except _Disconnected:
            return
        except TimeoutError:
            message = f"the request body did not arrive within {self.body_timeout:g} s"
            await error_response(408, "body_timeout", message, {"Connection": "close"})(scope, receive, send)
            return
        if body is None:
            await self._body_too_large(scope, receive, send)
            return
        if await anyio.to_thread.run_sync(too_many_cells, body, self.max_cells):
            del body
            response = error_response(
                413,
                "too_many_cells",
                f"the table has more than {self.max_cells:,} cells (the server's limit)",
            )
            await response(scope, receive, send)
            return
        if await anyio.to_thread.run_sync(has_lone_surrogate, body):
            message = "the request holds text that is not valid Unicode (a lone surrogate such as \\ud800)"
            await error_response(422, "invalid_text", message)(scope, receive, send)
            return
        pending = [bytes(body)]  # popped by the app's first receive, so only the app keeps the body
        del body

        async def replay() -> Message:
            if not pending:
                return await receive()
            return {"type": "http.request", "body": pending.pop(), "more_body": False}

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive, length: int | None) -> bytearray | None:
        """The whole body in one buffer (sized by Content-Length when given, so never copied while
        growing); None as soon as it passes `max_body_bytes`."""
        body = bytearray(length or 0)
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Disconnected
            chunk = message.get("body", b"")
            if size + len(chunk) > self.max_body_bytes:
                return None
            body[size : size + len(chunk)] = chunk
            size += len(chunk)
            if not message.get("more_body", False):
                del body[size:]
                return body

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
