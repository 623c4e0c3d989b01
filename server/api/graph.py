"""`POST /v1/graph`: the cell graph of a table (the `graph --json` shape), cached per table content."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends

from celltrace.server.api.auth import bearer_scheme
from celltrace.server.api.deps import RuntimeDep, to_table
from celltrace.server.api.runtime import Runtime
from celltrace.shared.api_models import ErrorBody, GraphRequest
from celltrace.shared.graph_json import graph_result
from celltrace.shared.schemas import GraphResult

ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (401, 413, 422)}
router = APIRouter(prefix="/v1", tags=["graph"], dependencies=[Depends(bearer_scheme)], responses=ERRORS)


def _graph(body: GraphRequest, runtime: Runtime) -> GraphResult:
    table = to_table(body, runtime.server)
    max_edges = runtime.server.graph_max_edges
    return runtime.graph_cache.get_or_compute(
        (table.content_hash(), table.origin, tuple(table.warnings), max_edges),
        lambda: graph_result(table, max_edges),
    )


@router.post("/graph", response_model=GraphResult)
async def graph(body: GraphRequest, runtime: RuntimeDep) -> GraphResult:
    """Nodes (cells and merged areas) and same-row/same-column edges of a table."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(runtime.executor, _graph, body, runtime)
