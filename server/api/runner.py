"""One engine job per request: run on the engine workers, its steps bridged to the event loop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Generic, TypeVar

from starlette.requests import Request

from celltrace.server.api.errors import ApiError
from celltrace.server.api.limits import InflightSlots
from celltrace.server.api.workers import Emit, Engines, Handle
from celltrace.shared.api_models import StepEvent

R = TypeVar("R")
T = TypeVar("T")
_DONE = object()
__all__ = ["Emit", "EngineJob", "client_gone"]


async def client_gone(request: Request) -> None:
    """Return when the client of `request` disconnects (its body was read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


class EngineJob(Generic[R]):
    """One engine call `fn(*args, emit)` on `workers` (see `workers`), under a deadline.

    `emit` records a step and relays it to `events()`; after `cancel()` the next `emit` (or LLM
    call) stops the engine. The in-flight `slot`, if any, is released when the engine really ends.
    When `stopping` is set (the server received SIGTERM) the job is cancelled and its request gets
    a 503 JSON error at once instead of being cut when the grace period ends. When `gone` (the
    client disconnected) completes first, the job is cancelled.
    """

    def __init__(
        self,
        fn: Callable[..., R],
        args: tuple[Any, ...],
        workers: Engines,
        deadline: float,
        slot: InflightSlots | None = None,
        stopping: asyncio.Event | None = None,
    ) -> None:
        self.fn, self.args = fn, args
        self.workers = workers
        self.deadline = deadline
        self.slot = slot
        self.stopping = stopping
        self.steps: list[StepEvent] = []
        self._handle: Handle | None = None
        self._cancelled = False

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._future: asyncio.Future[R | None] = self._loop.create_future()
        self._ends_at = self._loop.time() + self.deadline
        try:
            self._handle = self.workers.submit(self.fn, self.args, self._on_message)
        except RuntimeError:  # workers stopped: the server is stopping
            self._release()
            raise ApiError(503, "shutting_down", "the server is shutting down") from None
        except BaseException:
            self._release()
            raise

    def cancel(self) -> None:
        self._cancelled = True
        if self._handle is not None:
            self._handle.cancel()

    async def result(self, gone: Awaitable[None] | None = None) -> R:
        """The engine's result; ApiError 504 (with the steps so far) past the deadline."""
        result = await self._wait(asyncio.shield(self._future), gone)
        if result is None:
            raise self._timeout()
        return result

    async def events(self) -> AsyncIterator[StepEvent | R]:
        """Each step as it happens, then the result; ApiError 504 past the deadline."""
        while True:
            item = await self._wait(self._queue.get())
            if item is _DONE:
                break
            assert isinstance(item, StepEvent)
            yield item
        yield await self.result()

    async def _wait(self, awaitable: Awaitable[T], gone: Awaitable[None] | None = None) -> T:
        """`awaitable`'s result within the deadline: 504 past it, 503 once the server is stopping;
        the job is cancelled when `gone` completes first."""
        waiter = asyncio.ensure_future(awaitable)
        watchers = {
            name: asyncio.ensure_future(w)
            for name, w in (("stop", self.stopping.wait() if self.stopping else None), ("gone", gone))
            if w
        }
        try:
            done, _ = await asyncio.wait(
                {waiter, *watchers.values()}, timeout=self._remaining(), return_when=asyncio.FIRST_COMPLETED
            )
        except BaseException:  # the request itself was cancelled (client gone)
            waiter.cancel()
            self.cancel()
            raise
        finally:
            for watcher in watchers.values():
                watcher.cancel()
        if waiter in done:
            return waiter.result()
        waiter.cancel()
        if "stop" in watchers and watchers["stop"] in done:
            self.cancel()
            raise ApiError(
                503,
                "shutting_down",
                "the server is shutting down; the question was cancelled",
                steps=list(self.steps),
            )
        if "gone" in watchers and watchers["gone"] in done:
            self.cancel()
            raise ApiError(499, "client_gone", "the client disconnected; the question was cancelled")
        raise self._timeout()

    def _on_message(self, kind: str, payload: Any) -> None:
        """From a worker thread: a step, or the end ("done" / "error")."""
        if kind != "step":
            self._release()
        with contextlib.suppress(RuntimeError):  # a closed event loop: nobody is listening any more
            self._loop.call_soon_threadsafe(self._deliver, kind, payload)

    def _deliver(self, kind: str, payload: Any) -> None:
        if kind == "step":
            if self._cancelled:
                return
            payload.index = len(self.steps) + 1
            self.steps.append(payload)
            self._queue.put_nowait(payload)
            return
        self._queue.put_nowait(_DONE)
        if self._future.done():
            return
        if kind == "error":
            self._future.set_exception(payload)
        else:
            self._future.set_result(payload)

    def _release(self) -> None:
        slot, self.slot = self.slot, None
        if slot is not None:
            slot.release()

    def _remaining(self) -> float:
        return max(self._ends_at - self._loop.time(), 0.0)

    def _timeout(self) -> ApiError:
        self.cancel()
        return ApiError(
            504,
            "timeout",
            f"no answer within {self.deadline:g} s (the server's limit); {len(self.steps)} step(s) done",
            steps=list(self.steps),
        )
