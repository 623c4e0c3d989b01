"""Request limits (pure ASGI, before any parsing): body size, body-read time, table cell count, text
that is not Unicode (lone surrogates); and in-flight slots with their queue."""

from __future__ import annotations

import asyncio
import collections
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


class Busy(Exception):
    """All slots are taken and the queue is full."""


class InflightSlots:
    """At most `size` jobs in flight; up to `queue` more wait for a slot in arrival order; beyond
    that `acquire` raises Busy (the route's 429).

    `acquire` runs on the event loop; `release` may come from any thread (a job's slot is released
    when its engine really ends, also after its request timed out, so abandoned work still counts).
    A waiter that gives up (client gone, deadline) leaves the queue; a slot handed to it meanwhile
    is passed on.
    """

    def __init__(self, size: int, queue: int) -> None:
        self.size = size
        self.queue = queue
        self._used = 0
        self._waiters: collections.deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = (
            collections.deque()
        )
        self._lock = threading.Lock()

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._used < self.size and not self._waiters:
                self._used += 1
                return
            if len(self._waiters) >= self.queue:
                raise Busy
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await waiter
        except BaseException:
            with self._lock:
                queued = (loop, waiter) in self._waiters
                if queued:
                    self._waiters.remove((loop, waiter))
            if not queued and waiter.done() and not waiter.cancelled():
                self.release()  # the slot came as we gave up
            raise

    def release(self) -> None:
        with self._lock:
            if not self._waiters:
                self._used = max(self._used - 1, 0)
                return
            loop, waiter = self._waiters.popleft()  # the slot goes straight to the next in line
        try:
            loop.call_soon_threadsafe(self._grant, waiter)
        except RuntimeError:  # that loop is closed: nobody waits there any more
            self.release()

    def _grant(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done():  # it gave up meanwhile
            self.release()
        else:
            waiter.set_result(None)

    @property
    def used(self) -> int:
        return self._used

    @property
    def waiting(self) -> int:
        return len(self._waiters)
