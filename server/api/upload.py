"""`.xlsx` uploads to `POST /v1/ask` and `POST /v1/longform` (multipart: file, sheet, range, question).

A multipart request to either route is routed (`UploadRoutingMiddleware`) to a form twin of the
JSON route, which reads the workbook as `celltrace ask` does and then runs exactly like the JSON
request, with the same limits: the body size is checked first by `RequestLimitsMiddleware`, the
cell count after reading, and a workbook that unpacks to much more than the body limit is refused.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import File, Form, UploadFile
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from celltrace.server.api.errors import ApiError
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.shared.errors import UserError
from celltrace.shared.schemas import TablePayload
from celltrace.shared.xlsx_read import read_table

FORM_ROUTES = {"/v1/ask": "/v1/ask/xlsx", "/v1/longform": "/v1/longform/xlsx"}
"""JSON route → its multipart twin (hidden from the schema; documented on the JSON route)."""
UNPACK_FACTOR = 20
"""A workbook may unpack to at most this many times the body limit (zip-bomb guard)."""
SUFFIXES = (".xlsx", ".xlsm")
M = TypeVar("M", bound=BaseModel)

FileField = Annotated[UploadFile, File(description="The workbook (.xlsx or .xlsm).")]
SheetField = Annotated[str | None, Form(description="Worksheet name (default: the active sheet).")]
RangeField = Annotated[
    str | None, Form(alias="range", description="A1 range such as A1:H20 (default: the detected table).")
]
QuestionField = Annotated[str, Form(description="The question about the table.")]


class UploadRoutingMiddleware:
    """Send `multipart/form-data` POSTs of the JSON routes to their form twins."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        twin = FORM_ROUTES.get(scope.get("path", "")) if scope["type"] == "http" else None
        if twin and scope.get("method") == "POST" and _is_multipart(scope):
            scope = {**scope, "path": twin, "raw_path": twin.encode()}
        await self.app(scope, receive, send)


def _is_multipart(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            return value.split(b";")[0].strip().lower() == b"multipart/form-data"
    return False


def form_openapi(fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """`openapi_extra` documenting the multipart form next to the JSON body."""
    properties = {
        "file": {"type": "string", "format": "binary", "description": "The workbook (.xlsx or .xlsm)."},
        "sheet": {"type": "string", "description": "Worksheet name (default: the active sheet).",
                  "example": "Income Statement"},
        "range": {"type": "string", "description": "A1 range (default: the detected table).",
                  "example": "A1:H28"},
        "question": {"type": "string", "description": "The question about the table.",
                     "example": "What was cargo revenue in 2016?"},
        **fields,
    }  # fmt: skip
    schema = {"type": "object", "required": ["file", "question"], "properties": properties}
    return {"requestBody": {"content": {"multipart/form-data": {"schema": schema}}}}


def _read(
    data: bytes, filename: str, sheet: str | None, range_: str | None, limits: ServerSettings
) -> TablePayload:
    suffix = Path(filename or "upload.xlsx").suffix.lower()
    if suffix not in SUFFIXES:
        message = f"file: only {', '.join(SUFFIXES)} workbooks (got {filename!r})"
        raise ApiError(422, "invalid_request", message)
    try:
        unpacked = sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    except zipfile.BadZipFile:
        raise ApiError(422, "invalid_request", "file: not an .xlsx/.xlsm workbook") from None
    if unpacked > UNPACK_FACTOR * limits.max_body_bytes:
        message = f"file: the workbook unpacks to more than {UNPACK_FACTOR}× the body limit"
        raise ApiError(413, "body_too_large", message)
    with tempfile.TemporaryDirectory(prefix="celltrace-upload-") as folder:
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            table = read_table(path, sheet=sheet, range=range_)
        except UserError as exc:
            raise ApiError(422, "invalid_request", f"file: {exc}") from None
    if table.n_rows * table.n_cols > limits.max_cells:
        raise ApiError(413, "too_many_cells", f"the table has more than {limits.max_cells:,} cells")
    payload = TablePayload.from_table(table)
    if payload.origin is not None:
        payload.origin.workbook = Path(filename).name if filename else None
    return payload


async def uploaded_table(
    file: UploadFile, sheet: str | None, range_: str | None, limits: ServerSettings
) -> TablePayload:
    """The selected range of an uploaded workbook as a TABLE payload (read in a worker thread)."""
    data = await file.read()
    return await run_in_threadpool(_read, data, file.filename or "", sheet or None, range_ or None, limits)


def build(model: type[M], **fields: Any) -> M:
    """`model` from form fields; a validation error is a 422 like the JSON route's."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None

