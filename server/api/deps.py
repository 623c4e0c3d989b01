"""Dependencies as typed `Annotated[..., Depends()]` aliases: runtime, settings, auth, engines."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import Depends, Request

from celltrace.server.api.errors import ApiError, llm_failure
from celltrace.server.api.limits import InflightSlots
from celltrace.server.api.runner import Emit, EngineJob
from celltrace.server.api.runtime import Runtime
from celltrace.server.server_settings import ServerSettings
from celltrace.server.settings import Settings
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


async def run_job(work: Callable[[Emit], Any], runtime: Runtime, uses_llm: bool) -> AsyncIterator[EngineJob]:
    """Start `work` in a worker thread under the request deadline (holding an LLM slot when it calls
    a model); yield the job to the route and cancel it when the request ends."""
    slot = llm_slot(runtime) if uses_llm else None
    job = EngineJob(work, runtime.executor, runtime.server.request_deadline, slot, runtime.stopping)
    job.start()
    try:
        yield job
    finally:
        job.cancel()


def raise_llm_failure(status: str, error_code: str | None, error: str | None, runtime: Runtime) -> None:
    """502 when a failed result is an LLM endpoint failure (see `llm_failure`)."""
    if status == "failed" and error:
        failure = llm_failure(error_code, error, [runtime.engine.api_key, runtime.server.token_value()])
        if failure is not None:
            raise failure


def llm_slot(runtime: Runtime) -> InflightSlots:
    """Take an LLM in-flight slot (released by the job when its thread ends); 429 when all are busy."""
    if not runtime.llm_slots.try_acquire():
        raise ApiError(
            429,
            "busy",
            f"{runtime.llm_slots.size} LLM question(s) already in flight; retry later",
            {"Retry-After": str(runtime.server.retry_after)},
        )
    return runtime.llm_slots
