"""Dependencies as typed `Annotated[..., Depends()]` aliases: runtime, settings, auth, engines."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import Depends, Request

from celltrace.server.api.errors import ApiError, llm_failure
from celltrace.server.api.limits import Busy, InflightSlots
from celltrace.server.api.runner import EngineJob, client_gone
from celltrace.server.api.runtime import Runtime
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.server.infra.settings import Settings
from celltrace.shared.a1 import parse_cell, split_sheet_ref
from celltrace.shared.api_models import TableRequest
from celltrace.shared.detect import locate
from celltrace.shared.schemas import AskResult
from celltrace.shared.table import Table, TableError


def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_server_settings(runtime: RuntimeDep) -> ServerSettings:
    return runtime.server


def get_engine_settings(runtime: RuntimeDep) -> Settings:
    return runtime.engine


ServerSettingsDep = Annotated[ServerSettings, Depends(get_server_settings)]
EngineSettingsDep = Annotated[Settings, Depends(get_engine_settings)]

AskEngine = Callable[..., AskResult]
"""`answer_question(table, question, engine, settings, on_step)`."""
LongformEngine = Callable[..., Any]
"""`answer_longform(table, question, plan, settings, on_step)`."""


def get_ask_engine() -> AskEngine:
    from celltrace.server.engine.api import answer_question

    return answer_question


def get_longform_engine() -> LongformEngine:
    from celltrace.server.longform.engine import answer_longform

    return answer_longform


AskEngineDep = Annotated[AskEngine, Depends(get_ask_engine)]
LongformEngineDep = Annotated[LongformEngine, Depends(get_longform_engine)]


def check_question(question: str, settings: ServerSettings) -> None:
    """422 when the question is longer than the server allows."""
    if len(question) > settings.max_question_chars:
        raise ApiError(
            422,
            "invalid_request",
            f"question: at most {settings.max_question_chars:,} characters (got {len(question):,})",
        )


def to_table(body: TableRequest, settings: ServerSettings, question: str | None = None) -> Table:
    """The engine table of a validated request (run in a worker thread for big tables); with
    `detect`, the table block holding `active_cell`, else the one `question` matches best.

    The cell limit is normally enforced on the raw body already; this catches what that scan cannot see.
    """
    payload = body.table
    cells = sum(len(row) for row in payload.cells)
    if cells > settings.max_cells:
        raise ApiError(413, "too_many_cells", f"the table has more than {settings.max_cells:,} cells")
    try:
        table = payload.to_table()
    except TableError as exc:
        raise ApiError(422, "invalid_request", f"table: {exc}") from None
    if not body.detect:
        return table
    cell = None
    if body.active_cell is not None:
        row, col = parse_cell(split_sheet_ref(body.active_cell)[1])
        top, left = table.origin.top_left if table.origin else (1, 1)
        cell = (row - top, col - left)
    return locate(table, question, cell)


async def run_job(
    fn: Callable[..., Any], args: tuple[Any, ...], runtime: Runtime, uses_llm: bool, request: Request
) -> AsyncIterator[EngineJob]:
    """Start `fn(*args, emit)` on the engine workers under the request deadline once a slot of its
    kind (LLM or CPU) is free — waiting in the queue meanwhile, 429 when the queue is full; yield
    the job to the route and cancel it when the request ends."""
    slots = runtime.llm_slots if uses_llm else runtime.cpu_slots
    deadline = runtime.server.request_deadline
    loop = asyncio.get_running_loop()
    started = loop.time()
    await wait_for_slot(slots, runtime, deadline, request)
    remaining = deadline - (loop.time() - started)
    job = EngineJob(fn, args, runtime.workers, remaining, slots, runtime.stopping)
    job.start()
    try:
        yield job
    finally:
        job.cancel()


async def wait_for_slot(slots: InflightSlots, runtime: Runtime, deadline: float, request: Request) -> None:
    """Take a slot, queueing for at most `deadline` seconds: 429 (with Retry-After) when the queue
    is full, 504 past the deadline, 503 when the server stops; the place is given up when the
    client disconnects."""
    acquire = asyncio.ensure_future(slots.acquire())
    stop = asyncio.ensure_future(runtime.stopping.wait())
    gone = asyncio.ensure_future(client_gone(request))
    try:
        done, _ = await asyncio.wait(
            {acquire, stop, gone}, timeout=deadline, return_when=asyncio.FIRST_COMPLETED
        )
    except BaseException:  # the request was cancelled while it waited
        if acquire.done() and not acquire.cancelled() and acquire.exception() is None:
            slots.release()
        acquire.cancel()
        raise
    finally:
        for task in (stop, gone):
            task.cancel()
    if acquire in done:
        try:
            acquire.result()
        except Busy:
            kind = "LLM" if slots is runtime.llm_slots else "offline"
            message = f"{slots.size} {kind} question(s) in flight and {slots.queue} waiting; retry later"
            raise ApiError(429, "busy", message, {"Retry-After": str(runtime.server.retry_after)}) from None
        return
    acquire.cancel()
    with contextlib.suppress(asyncio.CancelledError, Busy):
        await acquire
        slots.release()  # the slot came just now: give it back
    if stop in done:
        raise ApiError(503, "shutting_down", "the server is shutting down")
    if gone in done:
        raise ApiError(499, "client_gone", "the client disconnected while the question waited")
    raise ApiError(504, "timeout", f"no free slot within {deadline:g} s (the server's limit)", steps=[])


def raise_llm_failure(status: str, error_code: str | None, error: str | None, runtime: Runtime) -> None:
    """502 when a failed result is an LLM endpoint failure (see `llm_failure`)."""
    if status == "failed" and error:
        failure = llm_failure(error_code, error, [runtime.engine.api_key, runtime.server.token_value()])
        if failure is not None:
            raise failure
