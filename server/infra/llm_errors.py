"""Typed LLM failures, one stable `code` each (`AskResult.error_code`; the API maps codes, not messages).

`LLMUnreachable` (connection refused, DNS, connect timeout: never retried), `LLMTimeout` (no reply
within the stage's read timeout), `LLMStatusError` (an HTTP error status after the retries; 401/403
are `llm_unauthorized`), `LLMContextOverflow` (the prompt cannot fit the context window),
`LLMBadReply` (no usable reply: malformed body, cut at max_tokens, or invalid after the re-asks).
"""

from __future__ import annotations

from celltrace.shared.errors import CelltraceError


class LLMError(CelltraceError):
    """Base of every LLM failure; `code` is the machine-readable kind."""

    code = "llm_error"


class LLMUnreachable(LLMError):
    code = "llm_unreachable"


class LLMTimeout(LLMError):
    code = "llm_timeout"


class LLMStatusError(LLMError):
    code = "llm_error"

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status

    @property
    def error_code(self) -> str:
        return "llm_unauthorized" if self.status in (401, 403) else self.code


class LLMContextOverflow(LLMError):
    code = "llm_context_overflow"


class LLMBadReply(LLMError):
    code = "llm_bad_reply"


LLM_ERROR_CODES: tuple[str, ...] = (
    "llm_unreachable",
    "llm_timeout",
    "llm_unauthorized",
    "llm_error",
    "llm_context_overflow",
    "llm_bad_reply",
)
"""Every `error_code` an LLM failure can carry."""
