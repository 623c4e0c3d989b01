"""The one exception hierarchy: every failure celltrace expects carries a stable `code`.

    CelltraceError                 code          where it ends up
    ├── UserError                  invalid_request  CLI: one line, exit code 2; HTTP 4xx
    │   └── WorkbookError          invalid_request  (unreadable, damaged or too large workbook)
    ├── LLMError (server.llm_errors) llm_*        `AskResult.error_code`; HTTP 502 for endpoint failures
    └── SandboxError (server.sandbox) sandbox_unavailable

`error_code` is what results and HTTP error bodies carry; callers map codes, never messages.
"""

from __future__ import annotations

from typing import ClassVar


class CelltraceError(Exception):
    """Base of every expected failure; `code` is its machine-readable kind."""

    code: ClassVar[str] = "error"

    @property
    def error_code(self) -> str:
        return self.code


class UserError(CelltraceError):
    """Bad input (missing file, unknown sheet, malformed range, ...). The message is shown as is."""

    code = "invalid_request"


class WorkbookError(UserError):
    """The workbook itself cannot be used: not a workbook, encrypted, damaged, past a size cap."""


class SandboxError(CelltraceError):
    """The program sandbox cannot run as required (a missing isolation layer)."""

    code = "sandbox_unavailable"
