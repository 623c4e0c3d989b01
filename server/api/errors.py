"""API errors: every error body is `{"error": {"code", "message"}}`; no traceback ever leaves the server."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from celltrace.shared.api_models import ErrorBody, ErrorDetail, StepEvent

log = logging.getLogger("celltrace.server")

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    409: "engine_unavailable",
    413: "too_large",
    422: "invalid_request",
    429: "busy",
    502: "llm_error",
    504: "timeout",
}
MAX_LISTED_ERRORS = 5


class ApiError(Exception):
    """An error response: HTTP status, stable `code`, readable `message` (and optional headers/steps)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        steps: list[StepEvent] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers
        self.steps = steps

    def body(self) -> ErrorBody:
        return ErrorBody(error=ErrorDetail(code=self.code, message=self.message), steps=self.steps)

    def response(self) -> JSONResponse:
        return JSONResponse(
            self.body().model_dump(mode="json", exclude_none=True), self.status, headers=self.headers
        )


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return ApiError(status, code, message, headers).response()


def validation_message(errors: Sequence[Any]) -> str:
    """Pydantic errors as `table.cells[2][0]: Input should be a valid string; ...` (at most 5 listed)."""
    parts = []
    for err in errors[:MAX_LISTED_ERRORS]:
        loc = list(err.get("loc", ()))
        if len(loc) > 1 and loc[0] == "body":
            loc = loc[1:]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
        if where == "body" and err.get("type") == "value_error":  # model checks name their own fields
            where = ""
        msg = re.sub(r"^(Value|Assertion) error, ", "", str(err.get("msg", "invalid")))
        if err.get("type") == "json_invalid":
            where = "body"
            msg = f"invalid JSON at character {loc[-1]}: {err.get('ctx', {}).get('error', 'parse error')}"
        elif err.get("type") == "missing":
            msg = "field required"
        parts.append(f"{where}: {msg}" if where else msg)
    more = len(errors) - MAX_LISTED_ERRORS
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return exc.response()


async def _http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _CODES.get(exc.status_code, "error")
    return error_response(exc.status_code, code, str(exc.detail), getattr(exc, "headers", None))


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, "invalid_request", validation_message(exc.errors()))


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal", "internal server error (logged on the server)")


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into an `ErrorBody`."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)


_SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)\bbearer\s+[^\s,;'\"]+"),
    re.compile(r"(?i)\b(api[_-]?key|token|secret|password)(\s*[=:]\s*)[^\s,;'\"]+"),
    re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+@"),
)


def redact(text: str, secrets: Sequence[str | None] = ()) -> str:
    """`text` without the given secrets, API-key-like tokens, bearer tokens or URL credentials."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    text = _SECRET_PATTERNS[0].sub("sk-***", text)
    text = _SECRET_PATTERNS[1].sub("Bearer ***", text)
    text = _SECRET_PATTERNS[2].sub(r"\1\2***", text)
    return _SECRET_PATTERNS[3].sub("***@", text)


ENDPOINT_ERROR_CODES = frozenset({"llm_unreachable", "llm_timeout", "llm_unauthorized", "llm_error"})
"""`error_code`s of LLM endpoint failures (see `celltrace.server.infra.llm_errors`); they answer 502."""


def llm_failure(error_code: str | None, error: str, secrets: Sequence[str | None] = ()) -> ApiError | None:
    """502 with the result's `error_code` when it is an LLM endpoint failure (unreachable, timed out,
    unauthorised, HTTP error after the retries), the provider's message minus secrets; else None."""
    if error_code not in ENDPOINT_ERROR_CODES:
        return None
    return ApiError(502, error_code, f"LLM endpoint error: {redact(error, secrets)}")
