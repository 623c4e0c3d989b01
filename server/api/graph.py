"""`POST /v1/graph`: the cell graph of a table (the `graph --json` shape), cached per table content."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool

from celltrace.server.api.auth import bearer_scheme
from celltrace.server.api.deps import RuntimeDep, run_job, to_table
from celltrace.server.api.runner import Emit, client_gone
from celltrace.shared.api_models import ErrorBody, GraphRequest
from celltrace.shared.graph_json import graph_result
from celltrace.shared.schemas import GraphResult
from celltrace.shared.table import Table

ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (401, 413, 422, 429)}
router = APIRouter(prefix="/v1", tags=["graph"], dependencies=[Depends(bearer_scheme)], responses=ERRORS)


def graph_work(table: Table, max_edges: int, emit: Emit) -> GraphResult:
    """The job of one graph (in an engine worker)."""
    return graph_result(table, max_edges)


@router.post("/graph", response_model=GraphResult)
async def graph(body: GraphRequest, runtime: RuntimeDep, request: Request) -> GraphResult:
    """Nodes (cells and merged areas) and same-row/same-column edges of a table."""
    table = await run_in_threadpool(to_table, body, runtime.server)
    max_edges = runtime.server.graph_max_edges
    key = (table.content_hash(), table.origin, tuple(table.warnings), max_edges)
    result = runtime.graph_cache.get(key)
    if result is None:
        async for job in run_job(graph_work, (table, max_edges), runtime, False, request):
            result = await job.result(client_gone(request))
        runtime.graph_cache.put(key, result)
    assert isinstance(result, GraphResult)
    return result
