"""OpenAI-compatible chat client with bounded retries, structured output and usage accounting."""

from __future__ import annotations

from dataclasses import dataclass, field

from celltrace.shared.schemas import StageUsage, Usage


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
