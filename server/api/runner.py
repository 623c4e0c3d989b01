"""Engines run in worker threads; their step callbacks are bridged to the event loop through a queue."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Executor
from typing import Generic, TypeVar

from celltrace.server.api.errors import ApiError
from celltrace.server.api.limits import InflightSlots
from celltrace.server.cancel import Cancelled, cancellable
from celltrace.shared.api_models import StepEvent

R = TypeVar("R")
T = TypeVar("T")
Emit = Callable[[StepEvent], None]
_DONE = object()


class EngineJob(Generic[R]):
    """One engine call `work(emit)` in a worker thread, under a deadline counted from `start()`.

    `emit` records a step and relays it to `events()`; after `cancel()` the next `emit` (or LLM
    call) stops the engine. The in-flight `slot`, if any, is released when the thread really ends.
    When `stopping` is set (the server received SIGTERM) the job is cancelled and its request gets
    a 503 JSON error at once instead of being cut when the grace period ends.
    """

    def __init__(
        self,
        work: Callable[[Emit], R],
        executor: Executor,
        deadline: float,
        slot: InflightSlots | None = None,
        stopping: asyncio.Event | None = None,
    ) -> None:
        self.work = work
        self.executor = executor
        self.deadline = deadline
        self.slot = slot
        self.stopping = stopping
        self.steps: list[StepEvent] = []
        self._cancelled = threading.Event()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._ends_at = self._loop.time() + self.deadline
        try:
            self._future = asyncio.wrap_future(self.executor.submit(self._run))
        except RuntimeError:  # executor shut down: the server is stopping
            self._release()
            raise ApiError(503, "shutting_down", "the server is shutting down") from None

    def cancel(self) -> None:
        self._cancelled.set()

    async def result(self) -> R:
        """The engine's result; ApiError 504 (with the steps so far) past the deadline."""
        result = await self._wait(asyncio.shield(self._future))
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

    async def _wait(self, awaitable: Awaitable[T]) -> T:
        """`awaitable`'s result within the deadline: 504 past it, 503 once the server is stopping."""
        waiter = asyncio.ensure_future(awaitable)
        stop = asyncio.ensure_future(self.stopping.wait()) if self.stopping is not None else None
        watched = {waiter} if stop is None else {waiter, stop}
        try:
            done, _ = await asyncio.wait(watched, timeout=self._remaining(),
                                         return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the request itself was cancelled (client gone)
            waiter.cancel()
            raise
        finally:
            if stop is not None:
                stop.cancel()
        if waiter in done:
            return waiter.result()
        waiter.cancel()
        if stop is not None and stop in done:
            self.cancel()
            raise ApiError(503, "shutting_down", "the server is shutting down; the question was cancelled",
                           steps=list(self.steps))
        raise self._timeout()

    def _run(self) -> R | None:
        try:
            with cancellable(self._cancelled):  # LLM calls check it too (celltrace.server.cancel)
                return self.work(self._emit)
        except Cancelled:
            return None
        finally:
            self._release()
            self._notify(_DONE)

    def _emit(self, event: StepEvent) -> None:
        if self._cancelled.is_set():
            raise Cancelled
        event.index = len(self.steps) + 1
        self.steps.append(event)
        self._notify(event)

    def _notify(self, item: object) -> None:
        with contextlib.suppress(RuntimeError):  # a closed event loop: nobody is listening any more
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def _release(self) -> None:
        if self.slot is not None:
            self.slot.release()
            self.slot = None

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
