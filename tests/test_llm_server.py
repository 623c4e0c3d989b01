"""ScriptedLLM driven end to end by the real ``openai`` client."""

import json
import threading
import time
from typing import Any

import openai
import pytest
from llm_server import Fault, Reply, ScriptedLLM
from openai import OpenAI

USER = [{"role": "user", "content": "What is the total in column B?"}]


def client(server: ScriptedLLM, max_retries: int = 0, timeout: float = 2.0) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="test", max_retries=max_retries, timeout=timeout)


def ask(server: ScriptedLLM, messages: list[dict[str, Any]] = USER, **kwargs: Any) -> Any:
    return client(server, **kwargs).chat.completions.create(model="gpt-test", messages=messages)


def test_plain_reply_with_usage(llm_server: ScriptedLLM) -> None:
    llm_server.queue("The total is in B7 .")
    out = ask(llm_server)
    assert out.object == "chat.completion"
    assert out.model == "gpt-test"
    assert out.id.startswith("chatcmpl-")
    assert out.created > 0
    choice = out.choices[0]
    assert choice.message.role == "assistant"
    assert choice.message.content == "The total is in B7 ."
    assert choice.finish_reason == "stop"
    assert out.usage is not None
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.usage.total_tokens) == (7, 6, 13)


def test_reply_without_usage(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Reply("ok", usage=False))
    out = ask(llm_server)
    assert out.usage is None
    assert out.choices[0].message.content == "ok"


def test_queue_is_fifo_and_beats_responder(llm_server: ScriptedLLM) -> None:
    llm_server.responder = lambda model, messages: f"{model}:{messages[-1]['content']}"
    llm_server.queue("first", Reply("second"))
    assert llm_server.pending == 2
    contents = [ask(llm_server, [{"role": "user", "content": q}]).choices[0].message.content for q in "abc"]
    assert contents == ["first", "second", "gpt-test:c"]
    assert llm_server.pending == 0


def test_responder_may_return_fault(llm_server: ScriptedLLM) -> None:
    llm_server.responder = lambda model, messages: Fault.status(401)
    with pytest.raises(openai.AuthenticationError):
        ask(llm_server)


def test_script_ran_out_fails_loudly_without_retries(llm_server: ScriptedLLM) -> None:
    with pytest.raises(openai.InternalServerError, match="script ran out"):
        ask(llm_server, max_retries=2)
    assert len(llm_server.requests) == 1  # x-should-retry: false stops the client retrying


def test_responder_error_is_reported(llm_server: ScriptedLLM) -> None:
    def boom(model: str, messages: list[dict[str, Any]]) -> str:
        raise KeyError("no canned answer")

    llm_server.responder = boom
    with pytest.raises(openai.InternalServerError, match="no canned answer"):
        ask(llm_server, max_retries=2)
    assert len(llm_server.requests) == 1


def test_requests_are_recorded(llm_server: ScriptedLLM) -> None:
    llm_server.queue("a")
    messages = [
        {"role": "system", "content": "You read tables."},
        {"role": "user", "content": [{"type": "text", "text": "Sum of B?"}]},
        {"role": "assistant", "content": "ignored"},
    ]
    client(llm_server).chat.completions.create(model="m1", messages=messages, temperature=0.0)
    rec = llm_server.last_request
    assert (rec.method, rec.path, rec.model) == ("POST", "/v1/chat/completions", "m1")
    assert rec.messages == messages
    assert rec.body["temperature"] == 0.0
    assert rec.headers["authorization"] == "Bearer test"
    assert rec.timestamp <= time.time()
    assert llm_server.prompts() == ["You read tables.\n\nSum of B?"]
    assert llm_server.prompts(roles=["assistant"]) == ["ignored"]


def test_concurrent_requests_are_all_answered_and_recorded(llm_server: ScriptedLLM) -> None:
    llm_server.responder = lambda model, messages: messages[0]["content"].upper()
    api = client(llm_server)
    results: dict[int, str | None] = {}

    def worker(i: int) -> None:
        out = api.chat.completions.create(model="m", messages=[{"role": "user", "content": f"q{i}"}])
        results[i] = out.choices[0].message.content

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: f"Q{i}" for i in range(8)}
    assert sorted(llm_server.prompts()) == sorted(f"q{i}" for i in range(8))


def test_models_endpoint() -> None:
    with ScriptedLLM(models=["alpha", "beta"]) as server:
        assert [m.id for m in client(server).models.list()] == ["alpha", "beta"]
        assert server.requests[0].path == "/v1/models"
        assert server.chat_requests == []


def test_rate_limit_surfaces_when_retries_exhausted(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(429, retry_after=0.01), Fault.status(429, retry_after=0.01), "late")
    with pytest.raises(openai.RateLimitError) as err:
        ask(llm_server, max_retries=1)
    assert err.value.status_code == 429
    assert err.value.code == "rate_limit_exceeded"
    assert err.value.response.headers["retry-after-ms"] == "10"
    assert llm_server.pending == 1


def test_transient_fault_is_consumed_once_so_retry_succeeds(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(429, retry_after=0.01), Fault.status(503, retry_after=0.01), "recovered")
    out = ask(llm_server, max_retries=2)
    assert out.choices[0].message.content == "recovered"
    assert [r.headers["x-stainless-retry-count"] for r in llm_server.requests] == ["0", "1", "2"]


@pytest.mark.parametrize("code", [500, 502, 503])
def test_server_errors(llm_server: ScriptedLLM, code: int) -> None:
    llm_server.queue(Fault.status(code))
    with pytest.raises(openai.InternalServerError) as err:
        ask(llm_server)
    assert err.value.status_code == code
    assert err.value.body["type"] == "server_error"


def test_unauthorized_has_openai_error_body(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(401, message="Incorrect API key provided"))
    with pytest.raises(openai.AuthenticationError, match="Incorrect API key") as err:
        ask(llm_server, max_retries=2)
    assert err.value.code == "invalid_api_key"
    assert len(llm_server.requests) == 1  # 4xx other than 408/409/429 is not retried


def test_slow_reply_within_timeout(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.slow(0.05, then="eventually"))
    assert ask(llm_server).choices[0].message.content == "eventually"


def test_slow_reply_times_out_and_stop_is_quick(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.slow(30, then="too late"))
    with pytest.raises(openai.APITimeoutError):
        ask(llm_server, timeout=0.2)
    started = time.monotonic()
    llm_server.stop()  # the fixture's second stop() is a no-op
    assert time.monotonic() - started < 1.0


def test_malformed_json(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.malformed_json())
    with pytest.raises(json.JSONDecodeError):
        ask(llm_server)


def test_truncated_reply(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.truncated('{"cells": ["B7"]}'), Fault.truncated("abcdef", keep=2))
    first, second = ask(llm_server).choices[0], ask(llm_server).choices[0]
    assert (first.message.content, first.finish_reason) == ('{"cells"', "length")
    assert (second.message.content, second.finish_reason) == ("ab", "length")


def test_empty_choices(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.empty_choices())
    out = ask(llm_server)
    assert out.choices == []
    assert out.usage is not None


def test_stream_is_rejected_without_consuming_script(llm_server: ScriptedLLM) -> None:
    llm_server.queue("kept")
    with pytest.raises(openai.BadRequestError, match="stream=true is not supported"):
        client(llm_server).chat.completions.create(model="m", messages=USER, stream=True)
    assert llm_server.pending == 1


def test_fault_status_rejects_success_codes() -> None:
    with pytest.raises(ValueError):
        Fault.status(200)
