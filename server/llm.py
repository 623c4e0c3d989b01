"""OpenAI-compatible chat client with bounded retries, structured output and usage accounting."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

import openai
from openai import OpenAI
from pydantic import BaseModel

from celltrace.server import cancel
from celltrace.server.jsonparse import ParseError, parse_model
from celltrace.server.prompting import prompt_hash, render
from celltrace.server.settings import Settings
from celltrace.server.tokens import estimate_tokens
from celltrace.shared.schemas import StageUsage, Usage

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


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


class LLMError(Exception):
    """A transport failure after the retries, or output that stayed unusable after the re-asks."""


_RETRY_STATUS = frozenset({408, 409, 429})


class LLMClient:
    """Chat completions through the official `openai` SDK with bounded exponential backoff.

    The SDK's own retries are off; this client retries 429, 408/409, 5xx, timeouts, connection
    errors, malformed bodies and empty `choices`, at most `settings.max_retries` times, waiting
    `retry_backoff * 2**attempt` (or the server's Retry-After), each wait capped at
    `retry_max_wait`. One call therefore takes at most
    `(max_retries + 1) * request_timeout + max_retries * retry_max_wait` seconds.
    Every HTTP attempt is recorded in the caller's `UsageMeter` (failed ones with zero tokens).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._client = OpenAI(
            api_key=settings.api_key or "unused",
            base_url=settings.base_url,
            timeout=settings.request_timeout,
            max_retries=0,
        )

    def complete(self, stage: str, messages: list[dict[str, str]], meter: UsageMeter) -> str:
        """The assistant text for `messages`; LLMError when every attempt failed."""
        s = self.settings
        model = s.model_for(stage)
        log.debug(
            "llm call stage=%s model=%s temperature=%s prompt_sha=%s",
            stage,
            model,
            s.temperature,
            prompt_hash(messages),
        )
        extra = {"seed": s.seed} if s.seed is not None else {}
        for attempt in range(s.max_retries + 1):
            cancel.check()  # a timed-out HTTP job stops before its next call
            started = time.monotonic()
            retry_after: float | None = None
            try:
                response = self._client.chat.completions.create(
                    model=model,
                    messages=messages,  # type: ignore[arg-type]
                    temperature=s.temperature,
                    max_tokens=s.max_completion_tokens,
                    **extra,
                )
                if not response.choices:
                    raise LLMError("the reply has no choices")
            except openai.APIStatusError as exc:
                retryable = (exc.status_code in _RETRY_STATUS or exc.status_code >= 500) and (
                    exc.response.headers.get("x-should-retry") != "false"
                )
                retry_after = _retry_after(exc.response.headers)
                reason = f"HTTP {exc.status_code}: {_short(exc.message)}"
            except openai.APITimeoutError:
                retryable, reason = True, f"timed out after {s.request_timeout:g}s"
            except openai.APIConnectionError as exc:
                retryable, reason = True, f"connection error: {_short(str(exc))}"
            except (openai.APIError, LLMError, ValueError) as exc:
                retryable, reason = True, f"unusable response: {_short(str(exc))}"
            else:
                text = response.choices[0].message.content or ""
                meter.record(_call_record(stage, model, messages, text, response, started))
                return text
            meter.record(CallRecord(stage, model, 0, 0, time.monotonic() - started, True, False))
            log.debug("llm attempt %d failed (%s)", attempt + 1, reason)
            if not retryable or attempt == s.max_retries:
                raise LLMError(f"{stage} call failed after {attempt + 1} attempt(s): {reason}")
            wait = retry_after if retry_after is not None else s.retry_backoff * 2**attempt
            cancel.sleep(min(wait, s.retry_max_wait))
        raise AssertionError("unreachable")

    def complete_model(
        self, stage: str, messages: list[dict[str, str]], schema: type[M], meter: UsageMeter
    ) -> M:
        """Ask for JSON matching `schema`; re-ask with the validation error up to `max_reasks` times."""
        convo = list(messages)
        for reask in range(self.settings.max_reasks + 1):
            text = self.complete(stage, convo, meter)
            try:
                return parse_model(text, schema)
            except ParseError as exc:
                log.debug("%s reply unusable (%s); re-ask %d", stage, exc, reask + 1)
                error = str(exc)
            convo = [
                *messages,
                {"role": "assistant", "content": text},
                {"role": "user", "content": render("reask", error=error)},
            ]
        raise LLMError(f"{stage} reply unusable after {self.settings.max_reasks} re-ask(s): {error}")


def _call_record(
    stage: str, model: str, messages: list[dict[str, str]], text: str, response: Any, started: float
) -> CallRecord:
    usage = getattr(response, "usage", None)
    if usage is not None and usage.prompt_tokens is not None:
        return CallRecord(
            stage,
            model,
            usage.prompt_tokens,
            usage.completion_tokens or 0,
            time.monotonic() - started,
            False,
            True,
        )
    prompt = sum(estimate_tokens(m["content"]) for m in messages)
    return CallRecord(stage, model, prompt, estimate_tokens(text), time.monotonic() - started, True, True)


def _retry_after(headers: Any) -> float | None:
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is not None:
            try:
                return max(float(value) * scale, 0.0)
            except ValueError:
                continue
    return None


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
