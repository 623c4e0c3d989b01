"""`POST /v1/longform` and `POST /v1/longform/stream`: a long-form (paragraph) answer with evidence."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.sse import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from celltrace.server.api import upload
from celltrace.server.api.auth import bearer_scheme
from celltrace.server.api.deps import (
    LongformEngine,
    LongformEngineDep,
    RuntimeDep,
    check_question,
    raise_llm_failure,
    run_job,
    to_table,
)
from celltrace.server.api.errors import ApiError
from celltrace.server.api.runner import Emit, EngineJob, client_gone
from celltrace.server.api.runtime import Runtime
from celltrace.server.api.sse import MESSAGE_CHARS, SSE_RESPONSES, stream
from celltrace.server.infra.settings import Settings
from celltrace.shared.actions import one_line, plan_actions
from celltrace.shared.api_models import ErrorBody, LongformRequest, LongformResponse, StepEvent
from celltrace.shared.schemas import LongformResult
from celltrace.shared.table import Table

if TYPE_CHECKING:
    from celltrace.shared.schemas import LongformStep

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 409, 413, 422, 429, 502, 504)
}
router = APIRouter(prefix="/v1", tags=["longform"], dependencies=[Depends(bearer_scheme)], responses=ERRORS)


def longform_step_event(step: LongformStep) -> StepEvent:
    """A plan, an executed plan item or a plan check as a `step` event."""
    if step.kind == "plan":
        message = f"Planned {len(step.plan)} sub-question(s): " + "; ".join(step.plan)
    elif step.kind == "item" and step.item is not None:
        answer = step.item.answer if step.item.answer is not None else f"no answer ({step.item.source})"
        message = f"Sub-question {(step.index or 0) + 1}: {step.item.question} → {answer}"
    else:
        message = "Plan complete." if step.finalized else f"Plan revised: {step.reasoning or ''}".strip()
    return StepEvent(index=0, message=one_line(message, MESSAGE_CHARS), detail=step.model_dump(mode="json"))


async def longform_job(
    body: LongformRequest, runtime: RuntimeDep, answer_longform: LongformEngineDep, request: Request
) -> AsyncIterator[EngineJob]:
    """Validate limits and engine availability, then start the engine on a worker (after the queue)."""
    check_question(body.question, runtime.server)
    if not runtime.engine.llm_configured:
        raise ApiError(409, "engine_unavailable", "the long-form engine needs an LLM; none is configured")
    table = await run_in_threadpool(to_table, body, runtime.server, body.question)
    args = (answer_longform, table, body.question, body.plan, runtime.engine)
    async for job in run_job(longform_work, args, runtime, True, request):
        yield job


def longform_work(
    answer_longform: LongformEngine,
    table: Table,
    question: str,
    plan: list[str] | None,
    settings: Settings,
    emit: Emit,
) -> LongformResult:
    """The job of one long-form question (in an engine worker)."""

    def on_step(step: LongformStep) -> None:
        emit(longform_step_event(step))

    return answer_longform(table, question, plan=plan, settings=settings, on_step=on_step)


LongformJobDep = Annotated[EngineJob, Depends(longform_job, scope="request")]


async def longform_form_job(
    file: upload.FileField,
    question: upload.QuestionField,
    runtime: RuntimeDep,
    answer_longform: LongformEngineDep,
    request: Request,
    sheet: upload.SheetField = None,
    range_: upload.RangeField = None,
) -> AsyncIterator[EngineJob]:
    """`longform_job` for an uploaded workbook (multipart form)."""
    table = await upload.uploaded_table(file, sheet, range_, runtime.server)
    body = upload.build(LongformRequest, question=question, table=table, detect=range_ is None)
    async for job in longform_job(body, runtime, answer_longform, request):
        yield job


def longform_response(result: LongformResult, runtime: Runtime) -> LongformResponse:
    """The response body: the result plus its actions; 502 for LLM transport failures."""
    raise_llm_failure(result.status, result.error_code, result.error, runtime)
    answered = result.status == "answered"
    actions = plan_actions(
        question=result.question,
        answer=result.answer if answered else f"#ERROR: {result.error or 'failed'}",
        evidence=result.evidence if answered else [],
        engine="longform",
    )
    return LongformResponse(**dict(result), actions=actions)


@router.post("/longform", response_model=LongformResponse, openapi_extra=upload.form_openapi({}))
async def longform(job: LongformJobDep, runtime: RuntimeDep, request: Request) -> LongformResponse:
    """Answer with a paragraph: the `longform --json` shape plus `actions`.

    The body is JSON (`LongformRequest`) or a multipart form with an .xlsx `file`, `sheet`, `range`
    and `question`; the same limits apply.
    """
    return longform_response(await job.result(client_gone(request)), runtime)


@router.post("/longform/xlsx", response_model=LongformResponse, include_in_schema=False)
async def longform_xlsx(
    job: Annotated[EngineJob, Depends(longform_form_job, scope="request")],
    runtime: RuntimeDep,
    request: Request,
) -> LongformResponse:
    """`/v1/longform` with a multipart body (routed here by `UploadRoutingMiddleware`)."""
    return longform_response(await job.result(client_gone(request)), runtime)


@router.post("/longform/stream", response_class=EventSourceResponse, responses=SSE_RESPONSES)
async def longform_stream(job: LongformJobDep, runtime: RuntimeDep) -> AsyncIterator[ServerSentEvent]:
    """Like `/v1/longform`, as Server-Sent Events: `step` per plan/item/check, then `result` or `error`."""
    async for event in stream(job, lambda result: longform_response(result, runtime)):
        yield event
