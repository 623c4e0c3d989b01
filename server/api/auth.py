"""Bearer-token auth, enforced before the body is read (so limits and validation never come first).

When `CELLTRACE_TOKEN` is set, every `/v1/*` route except `/v1/health` needs
`Authorization: Bearer <token>`, compared in constant time; otherwise the answer is 401.
"""

from __future__ import annotations

import hmac

from fastapi.security import HTTPBearer
from starlette.types import ASGIApp, Receive, Scope, Send

from celltrace.server.api.errors import error_response

PUBLIC_PATHS = frozenset({"/v1/health"})

bearer_scheme = HTTPBearer(auto_error=False, description="required when the server has CELLTRACE_TOKEN set")
"""Declares the scheme in OpenAPI (the "Authorize" button in /docs); the middleware enforces it."""


def token_matches(authorization: str | None, expected: str) -> bool:
    """True when an `Authorization` header value is `Bearer <expected>` (constant-time compare)."""
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected.encode())


class BearerAuthMiddleware:
    """401 for protected paths without the right bearer token; no-op when no token is configured."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            self.token is None
            or scope["type"] != "http"
            or not path.startswith("/v1/")
            or path in PUBLIC_PATHS
            or scope.get("method") == "OPTIONS"  # CORS preflight carries no credentials
        ):
            await self.app(scope, receive, send)
            return
        header = next(
            (v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"authorization"), None
        )
        if token_matches(header, self.token):
            await self.app(scope, receive, send)
            return
        response = error_response(
            401, "unauthorized", "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"}
        )
        await response(scope, receive, send)
