"""`POST /v1/ask` and `POST /v1/ask/stream`: one short-answer question with its evidence cells."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.sse import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from celltrace.server.api import upload
from celltrace.server.api.auth import bearer_scheme
from celltrace.server.api.deps import (
    AskEngine,
    AskEngineDep,
    RuntimeDep,
    check_question,
    raise_llm_failure,
    run_job,
    to_table,
)
from celltrace.server.api.errors import ApiError
from celltrace.server.api.runner import Emit, EngineJob, client_gone
from celltrace.server.api.runtime import Runtime
from celltrace.server.api.sse import SSE_RESPONSES, ask_step_event, stream
from celltrace.server.infra.concurrency import uses_llm
from celltrace.server.infra.settings import Settings
from celltrace.server.picture import trace_svg
from celltrace.shared.a1 import split_sheet_ref
from celltrace.shared.actions import actions_for_answer
from celltrace.shared.api_models import AskRequest, AskResponse, ErrorBody
from celltrace.shared.schemas import Engine, Step
from celltrace.shared.table import Table

if TYPE_CHECKING:
    from celltrace.server.engine.state import ReasoningState

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 409, 413, 422, 429, 502, 504)
}
router = APIRouter(prefix="/v1", tags=["ask"], dependencies=[Depends(bearer_scheme)], responses=ERRORS)


async def ask_job(
    body: AskRequest, runtime: RuntimeDep, answer_question: AskEngineDep, request: Request
) -> AsyncIterator[EngineJob]:
    """Validate limits and engine availability, then start the engine on a worker (after the queue)."""
    settings = runtime.engine
    check_question(body.question, runtime.server)
    if body.engine == "llm" and not settings.llm_configured:
        raise ApiError(409, "engine_unavailable", "engine 'llm' is not available: no LLM model is configured")
    table = await run_in_threadpool(to_table, body, runtime.server, body.question)
    if body.answer_cell and split_sheet_ref(body.answer_cell)[0] is None and not table.sheet:
        message = "answer_cell: name the sheet (Sheet!K2); the table has no origin"
        raise ApiError(422, "invalid_request", message)

    args = (answer_question, table, body.question, body.engine, settings, body.picture, body.answer_cell)
    async for job in run_job(answer_work, args, runtime, uses_llm(body.engine, settings), request):
        yield job


def answer_work(
    answer_question: AskEngine,
    table: Table,
    question: str,
    engine: Engine,
    settings: Settings,
    picture: bool,
    answer_cell: str | None,
    emit: Emit,
) -> AskResponse:
    """The job of one question (in an engine worker): the result, its actions and picture."""

    def on_step(step: Step, state: ReasoningState) -> None:
        emit(ask_step_event(step, state.table, [state.graph.node(i) for i in state.trace]))

    result = answer_question(table, question, engine, settings, on_step)
    svg = trace_svg(table, result) if picture and result.status != "failed" else None
    actions = actions_for_answer(result, answer_cell=answer_cell, default_sheet=table.sheet or None)
    return AskResponse(**dict(result), actions=actions, picture=svg)


AskJobDep = Annotated[EngineJob, Depends(ask_job, scope="request")]


async def ask_form_job(
    file: upload.FileField,
    question: upload.QuestionField,
    runtime: RuntimeDep,
    answer_question: AskEngineDep,
    request: Request,
    sheet: upload.SheetField = None,
    range_: upload.RangeField = None,
    engine: Annotated[Engine, Form(description="auto, llm or offline.")] = "auto",
) -> AsyncIterator[EngineJob]:
    """`ask_job` for an uploaded workbook (multipart form)."""
    table = await upload.uploaded_table(file, sheet, range_, runtime.server)
    body = upload.build(AskRequest, question=question, table=table, engine=engine, detect=range_ is None)
    async for job in ask_job(body, runtime, answer_question, request):
        yield job


ENGINE_FIELD = {"engine": {"type": "string", "enum": ["auto", "llm", "offline"], "default": "auto"}}


def ask_response(response: AskResponse, runtime: Runtime) -> AskResponse:
    """The response body (result, actions, picture); 502 for LLM transport failures."""
    raise_llm_failure(response.status, response.error_code, response.error, runtime)
    return response


@router.post("/ask", response_model=AskResponse, openapi_extra=upload.form_openapi(ENGINE_FIELD))
async def ask(job: AskJobDep, runtime: RuntimeDep, request: Request) -> AskResponse:
    """Answer a question about a table: the `ask --json` shape plus `actions`.

    The body is JSON (`AskRequest`) or a multipart form with an .xlsx `file`, `sheet`, `range`,
    `question` (and `engine`), read as `celltrace ask` reads a workbook; the same limits apply.
    """
    return ask_response(await job.result(client_gone(request)), runtime)


@router.post("/ask/xlsx", response_model=AskResponse, include_in_schema=False)
async def ask_xlsx(
    job: Annotated[EngineJob, Depends(ask_form_job, scope="request")], runtime: RuntimeDep, request: Request
) -> AskResponse:
    """`/v1/ask` with a multipart body (routed here by `UploadRoutingMiddleware`)."""
    return ask_response(await job.result(client_gone(request)), runtime)


@router.post("/ask/stream", response_class=EventSourceResponse, responses=SSE_RESPONSES)
async def ask_stream(job: AskJobDep, runtime: RuntimeDep) -> AsyncIterator[ServerSentEvent]:
    """Like `/v1/ask`, as Server-Sent Events: `step`… then `result` (or `error`)."""
    async for event in stream(job, lambda result: ask_response(result, runtime)):
        yield event
