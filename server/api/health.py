"""`GET /v1/health`: version, engines, models per stage and sandbox isolation; never secrets, no auth."""

from __future__ import annotations

from fastapi import APIRouter

from celltrace.server.api.deps import RuntimeDep
from celltrace.server.api.runtime import stage_models
from celltrace.shared.api_models import HealthResponse

router = APIRouter(prefix="/v1", tags=["health"])


@router.get("/health", response_model=HealthResponse)
async def health(runtime: RuntimeDep) -> HealthResponse:
    """Liveness and environment facts."""
    return HealthResponse(
        version=runtime.version,
        engines=runtime.engines(),
        models=stage_models(runtime.engine),
        sandbox=runtime.sandbox,
    )
