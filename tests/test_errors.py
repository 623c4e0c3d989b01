"""One exception hierarchy: every expected failure has a stable code, and results carry it."""

from __future__ import annotations

import pytest
from tables import statement

from celltrace.server.engine import api as engine_api
from celltrace.server.engine import offline_engine
from celltrace.server.infra.llm_errors import LLMStatusError, LLMTimeout
from celltrace.server.infra.sandbox import IsolationUnavailable
from celltrace.server.infra.settings import Settings
from celltrace.shared.errors import CelltraceError, SandboxError, UserError, WorkbookError
from celltrace.shared.xlsx_limits import WorkbookTooLarge


@pytest.mark.parametrize(
    ("error", "base", "code"),
    [
        (UserError("x"), UserError, "invalid_request"),
        (WorkbookTooLarge("x"), WorkbookError, "invalid_request"),
        (LLMTimeout("x"), CelltraceError, "llm_timeout"),
        (LLMStatusError("x", status=401), CelltraceError, "llm_unauthorized"),
        (LLMStatusError("x", status=500), CelltraceError, "llm_error"),
        (IsolationUnavailable("x"), SandboxError, "sandbox_unavailable"),
    ],
)
def test_every_failure_is_a_celltrace_error_with_a_code(error: CelltraceError, base: type, code: str) -> None:
    assert isinstance(error, base) and isinstance(error, CelltraceError)
    assert error.error_code == code


def test_a_typed_failure_inside_the_engine_is_a_failed_result_with_its_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object) -> object:
        raise SandboxError("bubblewrap is not installed")

    monkeypatch.setattr(offline_engine, "solve", broken)
    result = engine_api.answer_question(statement(), "What was revenue?", "offline", Settings())
    assert (result.status, result.error_code) == ("failed", "sandbox_unavailable")
    assert result.error == "bubblewrap is not installed"
