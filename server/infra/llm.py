"""OpenAI-compatible chat client: pooled clients, negotiated structured output, bounded retries, budgets.

One `OpenAI` client per endpoint per process (connection pooling; `shared_client`). Retries are the
SDK's own (`max_retries`), over `llm_transport.Transport`, which counts every attempt and keeps
refused connections and (by default) timeouts from being retried. Structured
output is negotiated per (endpoint, model): `json_schema` first (bounded schemas from the caller),
then `json_object`, then prompt-only parsing, stepping down when the server answers 400/422 to a
`response_format`; the working mode is remembered (`Settings.structured_output` forces one).
Reasoning preambles (`<think>…</think>`, `reasoning_content`) are never part of the text. A reply
cut at `max_tokens` (`finish_reason == "length"`) is asked again with a doubled limit (within the
context window); a structured reply is never parsed partially. Only free text that nothing parses
(a Thought, `cut_ok`) is used as it is when cut. Failures are the typed errors of `llm_errors`.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from celltrace.server.infra import cancel
from celltrace.server.infra.jsonparse import ParseError, parse_model
from celltrace.server.infra.llm_errors import (
    LLMBadReply,
    LLMContextOverflow,
    LLMError,
    LLMStatusError,
    LLMTimeout,
)
from celltrace.server.infra.llm_probe import context_tokens, count_tokens
from celltrace.server.infra.prompting import prompt_hash, render
from celltrace.server.infra.settings import Settings
from celltrace.server.infra.tokens import estimate_tokens
from celltrace.shared.schemas import StageUsage, Usage

if TYPE_CHECKING:  # the SDK and httpx are imported on the first call: the offline engine never loads them
    from openai import OpenAI

    from celltrace.server.infra.llm_transport import Attempts

__all__ = ["LLMClient", "LLMError", "UsageMeter", "shared_client", "strip_reasoning"]

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)

MODES: tuple[str, ...] = ("json_schema", "json_object", "prompt")
"""Structured-output modes, strongest first."""
MIN_COMPLETION_TOKENS = 16
"""A request whose prompt leaves fewer completion tokens than this in the window is not sent."""
LENGTH_REASKS = 2
"""Re-asks with a doubled `max_tokens` after a reply cut at the limit."""
_THINK = re.compile(r"^\s*<think>.*?(?:</think>|\Z)\s*", re.DOTALL | re.IGNORECASE)


@dataclass
class CallRecord:
    """One chat completion call (successful or not)."""

    stage: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    estimated: bool
    ok: bool


@dataclass
class UsageMeter:
    """Per-call and per-stage accounting of LLM calls (each HTTP request that got a reply)."""

    calls: list[CallRecord] = field(default_factory=list)

    def record(self, call: CallRecord) -> None:
        self.calls.append(call)

    def to_usage(self) -> Usage:
        """The `AskResult.usage` summary, stages in first-call order."""
        usage = Usage()
        for call in self.calls:
            stage = usage.by_stage.setdefault(call.stage, StageUsage())
            stage.calls += 1
            stage.prompt_tokens += call.prompt_tokens
            stage.completion_tokens += call.completion_tokens
            usage.llm_calls += 1
            usage.prompt_tokens += call.prompt_tokens
            usage.completion_tokens += call.completion_tokens
        return usage


_lock = threading.Lock()
_clients: dict[tuple[str | None, str | None, float], OpenAI] = {}
_modes: dict[tuple[str | None, str], str] = {}


def shared_client(settings: Settings) -> OpenAI:
    """The process-wide `OpenAI` client of the settings' endpoint (over `llm_transport.Transport`;
    each call sets its own `max_retries`)."""
    import httpx
    from openai import OpenAI

    from celltrace.server.infra.llm_transport import Transport

    key = (settings.base_url, settings.api_key, settings.connect_timeout)
    with _lock:
        client = _clients.get(key)
        if client is None:
            timeout = httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout)
            client = _clients[key] = OpenAI(
                api_key=settings.api_key or "unused",
                base_url=settings.base_url,
                timeout=timeout,
                http_client=httpx.Client(
                    transport=Transport(settings.base_url), timeout=timeout, follow_redirects=True
                ),
            )
    return client


def negotiated_mode(settings: Settings, model: str) -> str:
    """The structured-output mode to try first for `model` at the settings' endpoint."""
    if settings.structured_output != "auto":
        return settings.structured_output
    with _lock:
        return _modes.get((settings.base_url, model), MODES[0])


def _remember_mode(settings: Settings, model: str, mode: str) -> None:
    if settings.structured_output == "auto":
        with _lock:
            _modes[(settings.base_url, model)] = mode


def strip_reasoning(text: str) -> str:
    """`text` without a leading `<think>…</think>` block (an unclosed one is all reasoning)."""
    return _THINK.sub("", text, count=1)


class LLMClient:
    """Chat completions through the official `openai` SDK and its retries.

    The SDK retries (at most `settings.max_retries` times, its exponential back-off or the
    server's Retry-After up to `retry_max_wait`) 429, 408/409, 5xx and dropped connections, and
    read timeouts when `retry_timeouts`. Never retried: connection refused / connect timeouts
    (`LLMUnreachable` at once) and other 4xx. A 200 without a usable body (malformed, no `choices`)
    is asked again here, up to `max_retries` times: the SDK does not look at bodies. Every HTTP
    attempt is recorded in the caller's `UsageMeter` (failed ones with zero tokens).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._client = shared_client(settings)

    def complete(
        self,
        stage: str,
        messages: list[dict[str, str]],
        meter: UsageMeter,
        schema: dict[str, Any] | None = None,
        cut_ok: bool = False,
    ) -> str:
        """The assistant text for `messages` (JSON when `schema` is given); LLMError on failure.

        `cut_ok`: free text used as it is (a Thought) is returned when cut at `max_tokens`, not asked
        again with a larger limit (on a CPU server each re-ask costs the whole prompt again)."""
        from celltrace.server.infra.llm_transport import Attempts

        s = self.settings
        model = s.model_for(stage)
        mode = negotiated_mode(s, model) if schema is not None else "prompt"
        prompt_tokens = count_tokens(s, "\n".join(m["content"] for m in messages)) + 4 * len(messages)
        window = context_tokens(s)
        room = window - prompt_tokens
        if room < MIN_COMPLETION_TOKENS:
            raise LLMContextOverflow(
                f"{stage}: the prompt (≈{prompt_tokens} tokens) does not fit the {window}-token context"
            )
        max_tokens = min(s.max_tokens_for(stage), room)
        log.debug(
            "llm call stage=%s model=%s mode=%s max_tokens=%d prompt_sha=%s",
            stage, model, mode, max_tokens, prompt_hash(messages),
        )  # fmt: skip
        first_rejection: LLMStatusError | None = None
        lengths = bad_replies = tried = 0
        while True:
            cancel.check()  # a timed-out HTTP job stops before its next call
            attempts = Attempts(s.retry_timeouts, s.retry_max_wait)
            try:
                response = self._create(stage, model, messages, max_tokens, mode, schema, attempts)
            except LLMError as exc:
                tried += attempts.count
                failed = [*attempts.failed]
                # a 2xx without a usable body (a dropped connection was retried by the SDK already)
                unusable = isinstance(exc, LLMBadReply) and len(failed) < attempts.count
                if unusable:
                    failed.append(time.monotonic() - attempts.started)
                _record_failed(meter, stage, model, failed)
                if isinstance(exc, LLMStatusError) and exc.status in (400, 422):
                    if mode != "prompt":
                        first_rejection = first_rejection or exc
                        log.debug("%s: response_format %s rejected (%s); stepping down", stage, mode, exc)
                        mode = MODES[MODES.index(mode) + 1]
                        continue
                    if first_rejection is not None:
                        raise first_rejection from exc
                if unusable and bad_replies < s.max_retries:
                    bad_replies += 1
                    log.debug("%s: unusable reply (%s); asking again", stage, exc)
                    continue
                exc.args = (f"{stage} call failed after {tried} attempt(s): {exc}",)
                raise
            _record_failed(meter, stage, model, attempts.failed)
            tried += attempts.count
            choice = response.choices[0]
            text = strip_reasoning(choice.message.content or "")
            meter.record(_call_record(stage, model, messages, text, response, attempts.started))
            if schema is not None and first_rejection is not None:
                _remember_mode(s, model, mode)
            if choice.finish_reason != "length" or (cut_ok and schema is None):
                return text
            if lengths < LENGTH_REASKS and max_tokens < room:
                lengths += 1
                max_tokens = min(max_tokens * 2, room)
                log.debug("%s reply cut at max_tokens; asking again with %d", stage, max_tokens)
                continue
            if schema is None:
                return text
            raise LLMBadReply(f"{stage} reply was cut at max_tokens={max_tokens} (finish_reason length)")

    def _create(
        self,
        stage: str,
        model: str,
        messages: list[dict[str, str]],
        max_tokens: int,
        mode: str,
        schema: dict[str, Any] | None,
        attempts: Attempts,
    ) -> Any:
        """One SDK call (its retries counted in `attempts`); failures become typed errors."""
        import httpx
        import openai

        from celltrace.server.infra.llm_transport import counting

        s = self.settings
        extra: dict[str, Any] = {"seed": s.seed} if s.seed is not None else {}
        if mode == "json_schema" and schema is not None:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": stage.lower(), "schema": schema, "strict": True},
            }
        elif mode == "json_object":
            extra["response_format"] = {"type": "json_object"}
        try:
            with counting(attempts):
                response = self._client.with_options(max_retries=s.max_retries).chat.completions.create(
                    model=model,
                    messages=messages,  # type: ignore[arg-type]
                    temperature=s.temperature,
                    max_tokens=max_tokens,
                    timeout=httpx.Timeout(s.timeout_for(stage), connect=s.connect_timeout),
                    **extra,
                )
        except openai.APIStatusError as exc:
            raise LLMStatusError(f"HTTP {exc.status_code}: {_short(exc.message)}", exc.status_code) from exc
        except openai.APITimeoutError as exc:  # read timeouts, retried (`retry_timeouts`) to the end
            raise LLMTimeout(f"timed out after {s.timeout_for(stage):g}s") from exc
        except openai.APIConnectionError as exc:  # dropped connections, after the retries
            raise LLMBadReply(f"connection error: {_short(str(exc.__cause__ or exc))}") from exc
        except (openai.APIError, ValueError) as exc:
            raise LLMBadReply(f"unusable response: {_short(str(exc))}") from exc
        if not getattr(response, "choices", None):
            raise LLMBadReply("unusable response: the reply has no choices")
        return response

    def complete_model(
        self,
        stage: str,
        messages: list[dict[str, str]],
        model: type[M],
        meter: UsageMeter,
        schema: dict[str, Any] | None = None,
    ) -> M:
        """Ask for JSON matching `model` (sent as `schema` when given); re-ask with the validation
        error up to `max_reasks` times."""
        convo = list(messages)
        for reask in range(self.settings.max_reasks + 1):
            text = self.complete(stage, convo, meter, schema)
            try:
                return parse_model(text, model)
            except ParseError as exc:
                log.debug("%s reply unusable (%s); re-ask %d", stage, exc, reask + 1)
                error = str(exc)
            convo = [
                *messages,
                {"role": "assistant", "content": text},
                {"role": "user", "content": render("reask", error=error)},
            ]
        raise LLMBadReply(f"{stage} reply unusable after {self.settings.max_reasks} re-ask(s): {error}")


def _record_failed(meter: UsageMeter, stage: str, model: str, seconds: list[float]) -> None:
    for spent in seconds:
        meter.record(CallRecord(stage, model, 0, 0, spent, True, False))


def _call_record(
    stage: str, model: str, messages: list[dict[str, str]], text: str, response: Any, started: float
) -> CallRecord:
    usage = getattr(response, "usage", None)
    seconds = time.monotonic() - started
    if usage is not None and usage.prompt_tokens is not None:
        completion = usage.completion_tokens or 0
        return CallRecord(stage, model, usage.prompt_tokens, completion, seconds, False, True)
    prompt = sum(estimate_tokens(m["content"]) for m in messages)
    return CallRecord(stage, model, prompt, estimate_tokens(text), seconds, True, True)


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
