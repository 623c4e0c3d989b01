"""The LLM client against the loopback server: retries, usage accounting, structured output."""

from __future__ import annotations

import logging
import time

import pytest
from graphotter_script import settings_for
from llm_server import Fault, Reply, ScriptedLLM
from pydantic import BaseModel

from celltrace.server.infra.llm import LLMClient, LLMError, UsageMeter

MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Total?"}]


class _Out(BaseModel):
    answer: list[str]


def test_usage_from_response_and_estimated_when_absent(llm_server: ScriptedLLM) -> None:
    llm_server.queue("one two three", Reply("four five", usage=False))
    client, meter = LLMClient(settings_for(llm_server.base_url, seed=7)), UsageMeter()
    assert client.complete("THOUGHT", MESSAGES, meter) == "one two three"
    assert client.complete("ACTION", MESSAGES, meter) == "four five"
    first, second = meter.calls
    assert (first.prompt_tokens, first.completion_tokens, first.estimated) == (2, 3, False)
    assert second.estimated and second.prompt_tokens == 5 and second.completion_tokens == 5  # 2 chars a token
    usage = meter.to_usage()
    assert usage.llm_calls == 2 and list(usage.by_stage) == ["THOUGHT", "ACTION"]
    body = llm_server.chat_requests[0].body
    assert (body["temperature"], body["seed"], body["model"]) == (0.0, 7, "scripted-model")


def test_retry_after_is_honoured(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(429, retry_after=0.2), "ok")
    client, meter = LLMClient(settings_for(llm_server.base_url, retry_max_wait=1.0)), UsageMeter()
    started = time.monotonic()
    assert client.complete("THOUGHT", MESSAGES, meter) == "ok"
    assert 0.2 <= time.monotonic() - started < 1.0
    assert [c.ok for c in meter.calls] == [False, True]


def test_a_retry_after_longer_than_the_cap_fails_at_once(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(429, retry_after=3), "ok")
    client, meter = LLMClient(settings_for(llm_server.base_url, retry_max_wait=0.1)), UsageMeter()
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"after 1 attempt.*HTTP 429"):
        client.complete("THOUGHT", MESSAGES, meter)
    assert time.monotonic() - started < 1.0 and len(llm_server.chat_requests) == 1
    assert [c.ok for c in meter.calls] == [False]


def test_should_retry_false_is_not_retried(llm_server: ScriptedLLM) -> None:
    client, meter = LLMClient(settings_for(llm_server.base_url)), UsageMeter()
    with pytest.raises(LLMError, match="after 1 attempt"):
        client.complete("THOUGHT", MESSAGES, meter)  # empty script: HTTP 500, x-should-retry false


def test_structured_output_reasks_with_the_error(llm_server: ScriptedLLM) -> None:
    llm_server.queue("```json\n{'answer': '55.0'\n```", '{"answer": ["55.0"]}')
    client, meter = LLMClient(settings_for(llm_server.base_url)), UsageMeter()
    assert client.complete_model("ANSWER", MESSAGES, _Out, meter).answer == ["55.0"]
    reask = llm_server.chat_requests[1].messages
    assert reask[:2] == MESSAGES and reask[2]["role"] == "assistant"
    assert "could not be used" in reask[3]["content"]


def test_prompt_hash_is_logged(llm_server: ScriptedLLM, caplog: pytest.LogCaptureFixture) -> None:
    llm_server.queue("x")
    with caplog.at_level(logging.DEBUG, logger="celltrace.server.infra.llm"):
        LLMClient(settings_for(llm_server.base_url)).complete("THOUGHT", MESSAGES, UsageMeter())
    assert any("prompt_sha=" in r.getMessage() for r in caplog.records)
