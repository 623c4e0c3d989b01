"""The FastAPI app factory of `celltrace serve` (OpenAPI at `/openapi.json`, docs at `/docs` and
`/redoc` from local assets, `/` redirects to `/docs`).

Settings, engine workers and the embedding model are set up once in the lifespan, not per request.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from celltrace.server import __version__
from celltrace.server.api import addin, ask, docs, errors, graph, health, longform
from celltrace.server.api.auth import BearerAuthMiddleware
from celltrace.server.api.hosts import HostAllowListMiddleware
from celltrace.server.api.limits import RequestLimitsMiddleware
from celltrace.server.api.runtime import Runtime
from celltrace.server.api.upload import UploadRoutingMiddleware
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.server.infra.settings import Settings


def create_app(server: ServerSettings | None = None, engine: Settings | None = None) -> FastAPI:
    """A new app; settings default to the environment (`CELLTRACE_*`, `.env`)."""
    server = server or ServerSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = Runtime(server, engine or Settings())
        await asyncio.to_thread(runtime.start)
        app.state.runtime = runtime
        try:
            yield
        finally:
            await asyncio.to_thread(runtime.close)

    app = FastAPI(
        title="celltrace",
        version=__version__,
        summary="Ask questions about Excel tables; answers come back with their evidence cells.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    errors.install(app)
    docs.install(app)
    for module in (health, graph, ask, longform, addin):
        app.include_router(module.router)
    app.add_middleware(UploadRoutingMiddleware)
    app.add_middleware(
        RequestLimitsMiddleware,
        max_body_bytes=server.max_body_bytes,
        max_cells=server.max_cells,
        body_timeout=server.body_timeout,
    )
    app.add_middleware(BearerAuthMiddleware, token=server.token_value())
    if server.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=server.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(HostAllowListMiddleware, allowed_hosts=server.allowed_hosts)  # outermost
    return app
