"""Cooperative cancellation of one engine run in its worker thread.

The HTTP layer cancels a job after a 504, a client disconnect or on shutdown; the engine then stops
at its next step (`runner.EngineJob`) and, through `check`/`sleep` here, before its next LLM attempt
and in the middle of a retry back-off, so a timed-out question stops calling the model promptly.
Outside a job (CLI, eval) nothing is ever cancelled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_EVENT: ContextVar[threading.Event | None] = ContextVar("celltrace_cancel", default=None)


class Cancelled(BaseException):
    """Raised in the worker once its job was cancelled (timeout, client gone, shutdown).

    A BaseException, so the engines' per-question `except Exception` isolation lets it through.
    """


@contextmanager
def cancellable(event: threading.Event) -> Iterator[None]:
    """Run the body (in the worker thread) under `event`: once it is set, `check` raises."""
    token = _EVENT.set(event)
    try:
        yield
    finally:
        _EVENT.reset(token)


def check() -> None:
    """Raise Cancelled when the current job was cancelled."""
    event = _EVENT.get()
    if event is not None and event.is_set():
        raise Cancelled


def sleep(seconds: float) -> None:
    """`time.sleep` that ends early (with Cancelled) when the current job is cancelled."""
    event = _EVENT.get()
    if event is None:
        time.sleep(seconds)
        return
    event.wait(seconds)
    check()
