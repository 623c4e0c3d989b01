"""Server-Sent Events: `step` events while an engine works, then one `result` or `error` event."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from fastapi.sse import ServerSentEvent
from pydantic import BaseModel

from celltrace.server.api.errors import ApiError
from celltrace.server.api.runner import EngineJob
from celltrace.server.engine.evidence import cell_of
from celltrace.shared.actions import one_line
from celltrace.shared.api_models import StepEvent
from celltrace.shared.graph import Node
from celltrace.shared.schemas import Step, TraceCell
from celltrace.shared.table import Table

log = logging.getLogger("celltrace.server")
R = TypeVar("R")
MESSAGE_CHARS = 200
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")

SSE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "`text/event-stream`: `step` events (StepEvent), then one `result` event "
        "(the non-streaming body) or one `error` event (ErrorBody).",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


def first_sentence(text: str) -> str:
    """The first sentence of `text` on one line, capped at `MESSAGE_CHARS`."""
    text = " ".join(text.split())
    return one_line(_SENTENCE_END.split(text, maxsplit=1)[0], MESSAGE_CHARS)


def trace_cells(table: Table, nodes: list[Node]) -> list[TraceCell]:
    """Graph nodes as sheet-addressed trace cells (the shape of `AskResult.trace`)."""
    return [cell_of(table, n, TraceCell) for n in nodes]


def ask_step_event(step: Step, table: Table, trace: list[Node]) -> StepEvent:
    """A reasoning round as a `step` event: its thought (or its actions) in a sentence, plus the trace."""
    actions = ", ".join(a.name for a in step.actions) or "no action"
    message = first_sentence(step.thought) or f"Running {actions}."
    return StepEvent(index=0, message=message, step=step, trace=trace_cells(table, trace))


def _error_event(error: ApiError) -> ServerSentEvent:
    return ServerSentEvent(event="error", raw_data=error.body().model_dump_json(exclude_none=True))


async def stream(job: EngineJob[R], finish: Callable[[R], BaseModel]) -> AsyncIterator[ServerSentEvent]:
    """The SSE events of `job`; `finish` turns the engine result into the response body (or raises
    ApiError). The job is cancelled when the client goes away."""
    try:
        async for item in job.events():
            if isinstance(item, StepEvent):
                yield ServerSentEvent(event="step", raw_data=item.model_dump_json(exclude_none=True))
            else:
                yield ServerSentEvent(event="result", raw_data=finish(item).model_dump_json())
    except ApiError as exc:
        yield _error_event(exc)
    except Exception as exc:
        log.error("streamed request failed", exc_info=exc)
        yield _error_event(ApiError(500, "internal", "internal server error (logged on the server)"))
    finally:
        job.cancel()
