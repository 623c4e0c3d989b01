"""Real-server readiness through the loopback server: structured output negotiation, A1 node names,
reasoning preambles, cut replies, typed failures, client reuse and `auto`'s offline fallback."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from graphotter_script import QUESTION, THOUGHTS, GraphScript, figure6_table, settings_for
from llm_server import Fault, Reply, ScriptedLLM
from pydantic import BaseModel

from celltrace.server.engine.api import answer_question
from celltrace.server.infra.llm import LLMClient, UsageMeter
from celltrace.server.infra.llm_errors import LLMBadReply, LLMContextOverflow, LLMTimeout, LLMUnreachable
from celltrace.shared.table import Table

MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Total?"}]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "array", "items": {"type": "string"}}}}


class _Out(BaseModel):
    answer: list[str]


def _actions(*calls: tuple[str, list[str]]) -> str:
    return json.dumps({"actions": [{"function_name": n, "parameters": p} for n, p in calls]})


def a1_script() -> GraphScript:
    """The case study with every node named by its sheet address, in the schemas' shapes."""
    init = json.dumps({"nodes": ["D2", "A7", "D1:E1"]})
    return GraphScript(
        init=[init],
        thoughts=THOUGHTS,
        actions=[
            _actions(("GetAllNeighbours", ["D2"])),
            _actions(("VisitNode", ["percent"])),
            _actions(("GetSharedNeighbours", ["B3:E3", "A7 'food service'"])),
            _actions(("AnswerQuestion", [])),
        ],
        answers=[
            json.dumps(
                {"cells": ["D7", "A7", "D1:E1"], "operation": "none", "explanation": "", "answer": ["55"]}
            )
        ],
    )


def formats(llm: ScriptedLLM) -> list[str | None]:
    return [(r.body.get("response_format") or {}).get("type") for r in llm.chat_requests]


def test_a1_names_end_to_end_with_json_schema(llm_server: ScriptedLLM) -> None:
    llm_server.responder = a1_script()
    result = answer_question(figure6_table(), QUESTION, "llm", settings_for(llm_server.base_url))
    assert result.status == "answered" and result.answer == ["55"]
    assert [(e.address, e.text) for e in result.evidence if e.role == "answer"] == [("D7", "55")]
    assert {"A7", "D1:E1"} <= {e.address for e in result.evidence if e.role == "header"}
    assert [t.address for t in result.trace][:3] == ["D2", "A7", "D1:E1"]
    assert "D7 '55'" in result.steps[2].observations[0]
    stages = [r.messages[-1]["content"] for r in llm_server.chat_requests]
    sent = formats(llm_server)
    assert sent.count("json_schema") == 6 and sent.count(None) == 4  # 4 free-text thoughts
    requests = zip(llm_server.chat_requests, stages, strict=True)
    actions = [r.body for r, text in requests if "give your Action step" in text]
    schema = actions[0]["response_format"]["json_schema"]["schema"]
    item = schema["properties"]["actions"]["items"]
    assert item["properties"]["function_name"]["enum"] == [
        "VisitNode", "GetAllNeighbours", "GetSharedNeighbours", "AnswerQuestion",
    ]  # fmt: skip
    parameters = item["properties"]["parameters"]
    assert schema["properties"]["actions"]["maxItems"] and parameters["maxItems"] == 2
    assert parameters["items"]["maxLength"] == 40
    assert "D2 'french-language workers'" in stages[0]  # nodes are shown by address


def test_a_server_rejecting_json_schema_steps_down_once_and_still_answers() -> None:
    with ScriptedLLM(a1_script(), reject_formats={"json_schema"}) as llm:
        result = answer_question(figure6_table(), QUESTION, "llm", settings_for(llm.base_url))
        sent = formats(llm)
    assert result.status == "answered" and result.answer == ["55"]
    assert sent[:2] == ["json_schema", "json_object"]  # rejected once, then remembered
    assert sent.count("json_schema") == 1 and sent.count("json_object") == 6


def test_a_server_without_structured_output_gets_prompt_only_requests() -> None:
    with ScriptedLLM(a1_script(), reject_formats={"json_schema", "json_object"}) as llm:
        result = answer_question(figure6_table(), QUESTION, "llm", settings_for(llm.base_url))
        sent = formats(llm)
    assert result.status == "answered" and result.answer == ["55"]
    assert sent[:3] == ["json_schema", "json_object", None] and set(sent[3:]) == {None}


@pytest.mark.parametrize("mode", ["prompt", "json_object"])
def test_a_setting_forces_the_mode(llm_server: ScriptedLLM, mode: str) -> None:
    llm_server.responder = a1_script()
    result = answer_question(
        figure6_table(), QUESTION, "llm", settings_for(llm_server.base_url, structured_output=mode)
    )
    assert result.status == "answered"
    assert set(formats(llm_server)) == {None} | ({"json_object"} if mode == "json_object" else set())


def test_reasoning_preambles_are_skipped(llm_server: ScriptedLLM) -> None:
    llm_server.queue(
        '<think>The user wants {"answer": ["wrong"]}, so\n</think>\n{"answer": ["55.0"]}',
        Reply('{"answer": ["58.1"]}', reasoning_content='maybe {"answer": ["wrong"]}'),
    )
    client, meter = LLMClient(settings_for(llm_server.base_url)), UsageMeter()
    assert client.complete_model("ANSWER", MESSAGES, _Out, meter, SCHEMA).answer == ["55.0"]
    assert client.complete_model("ANSWER", MESSAGES, _Out, meter, SCHEMA).answer == ["58.1"]


def test_a_reply_cut_at_max_tokens_is_asked_again_with_a_larger_limit(llm_server: ScriptedLLM) -> None:
    full = '{"answer": ["55.0", "58.1"]}'
    llm_server.queue(Fault.truncated(full, keep=len(full) - 1), full)
    client = LLMClient(settings_for(llm_server.base_url, max_completion_tokens=100))
    assert client.complete_model("ANSWER", MESSAGES, _Out, UsageMeter(), SCHEMA).answer == ["55.0", "58.1"]
    assert [r.body["max_tokens"] for r in llm_server.chat_requests] == [100, 200]


def test_a_cut_thought_is_used_as_it_is(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.truncated("Look at row 7 and row 8", keep=17), "unused")
    client = LLMClient(settings_for(llm_server.base_url, max_completion_tokens=100))
    assert client.complete("THOUGHT", MESSAGES, UsageMeter(), cut_ok=True) == "Look at row 7 and"
    assert len(llm_server.chat_requests) == 1


def test_a_reply_always_cut_is_never_parsed(llm_server: ScriptedLLM) -> None:
    llm_server.queue(*[Fault.truncated('{"answer": ["55.0"], "x": ', keep=None)] * 3, '{"answer": ["1"]}')
    client = LLMClient(settings_for(llm_server.base_url, max_completion_tokens=100, max_reasks=0))
    with pytest.raises(LLMBadReply, match="cut at max_tokens") as info:
        client.complete_model("ANSWER", MESSAGES, _Out, UsageMeter(), SCHEMA)
    assert info.value.error_code == "llm_bad_reply" and len(llm_server.chat_requests) == 3


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_refused_connection_fails_at_once_without_retries() -> None:
    settings = settings_for(f"http://127.0.0.1:{_closed_port()}/v1", max_retries=3)
    meter = UsageMeter()
    started = time.monotonic()
    with pytest.raises(LLMUnreachable) as info:
        LLMClient(settings).complete("THOUGHT", MESSAGES, meter)
    assert time.monotonic() - started < 2 and len(meter.calls) == 1
    assert info.value.error_code == "llm_unreachable"


def test_a_dropped_connection_is_retried_by_the_sdk_only() -> None:
    """A server that closes every connection: the SDK's retries, not re-asks on top of them."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()

        def drop() -> None:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                conn.recv(65536)
                conn.close()

        threading.Thread(target=drop, daemon=True).start()
        settings = settings_for(f"http://127.0.0.1:{server.getsockname()[1]}/v1", max_retries=1)
        meter = UsageMeter()
        with pytest.raises(LLMBadReply, match="after 2 attempt"):
            LLMClient(settings).complete("THOUGHT", MESSAGES, meter)
    assert [c.ok for c in meter.calls] == [False, False]  # max_retries=1: two HTTP attempts in all


def test_a_timeout_is_its_own_error_and_not_retried_by_default(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.slow(3, "late"), "ok")
    client = LLMClient(settings_for(llm_server.base_url, stage_timeouts={"THOUGHT": 0.3}))
    with pytest.raises(LLMTimeout) as info:
        client.complete("THOUGHT", MESSAGES, UsageMeter())
    assert info.value.error_code == "llm_timeout" and len(llm_server.chat_requests) == 1


def test_one_client_per_endpoint_and_per_stage_limits(llm_server: ScriptedLLM) -> None:
    settings = settings_for(llm_server.base_url, stage_max_tokens={"THOUGHT": 64})
    assert LLMClient(settings)._client is LLMClient(settings_for(llm_server.base_url))._client
    llm_server.queue("a", "b")
    LLMClient(settings).complete("THOUGHT", MESSAGES, UsageMeter())
    LLMClient(settings).complete("ACTION", MESSAGES, UsageMeter())
    assert [r.body["max_tokens"] for r in llm_server.chat_requests] == [64, 1024]


def test_auto_returns_the_offline_answer_with_a_warning_when_the_endpoint_is_down() -> None:
    settings = settings_for(f"http://127.0.0.1:{_closed_port()}/v1", fast_path_confidence=1.0,
                            raise_errors=False)  # fmt: skip
    started = time.monotonic()
    result = answer_question(figure6_table(), QUESTION, "auto", settings)
    assert time.monotonic() - started < 10
    offline = answer_question(figure6_table(), QUESTION, "offline", settings)
    assert result.engine == "offline" and result.status == offline.status  # answered or a best guess
    assert result.answer == offline.answer and result.answer and result.error_code is None
    assert len(result.warnings) == 1 and "model was not used (llm_unreachable" in result.warnings[0]


def test_llm_engine_reports_the_error_code(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(401))
    result = answer_question(
        figure6_table(), QUESTION, "llm", settings_for(llm_server.base_url, raise_errors=False)
    )
    assert result.status == "failed" and result.error_code == "llm_unauthorized" and not result.warnings


def numeric_table(rows: int = 300, cols: int = 12) -> Table:
    header = ["item", *(f"measure {c}" for c in range(1, cols))]
    body = [
        [f"row {r}", *(f"{(r * 7919 + c * 104729) % 1000000:,}" for c in range(1, cols))] for r in range(rows)
    ]
    return Table(text=[header, *body], values=[header, *body], merges=[], title="numbers")


@pytest.mark.parametrize("source", ["env", "server"])
def test_prompt_and_max_tokens_fit_the_window_on_a_large_numeric_table(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = numeric_table()
    target = table.text[151][5]
    script = GraphScript(
        init=[json.dumps({"nodes": ["A152", "F1"]})],
        thoughts=["Intersect the row and the column."] * 3,
        actions=[_actions(("GetSharedNeighbours", ["A152", "F1"])), _actions(("AnswerQuestion", []))],
        answers=[json.dumps({"cells": ["F152"], "operation": "none", "explanation": "", "answer": [target]})],
    )
    if source == "env":
        monkeypatch.setenv("CELLTRACE_CONTEXT_TOKENS", "4096")
    with ScriptedLLM(script, n_ctx=4096 if source == "server" else None, tokenize=source == "server") as llm:
        result = answer_question(table, "What is measure 5 of row 150?", "llm", settings_for(llm.base_url))
        requests = llm.chat_requests
    assert result.status == "answered" and result.answer == [target]
    assert [e.address for e in result.evidence if e.role == "answer"] == ["F152"]
    assert all("<<<BEGIN TABLE OUTLINE>>>" in r.messages[-1]["content"] for r in requests)
    for request in requests:
        chars = sum(len(m["content"]) for m in request.messages)
        assert chars / 2 + request.body["max_tokens"] <= 4096, (chars, request.body["max_tokens"])


def test_a_prompt_that_cannot_fit_is_not_sent(llm_server: ScriptedLLM) -> None:
    messages = [{"role": "user", "content": "9" * 9000}]
    with pytest.raises(LLMContextOverflow) as info:
        LLMClient(settings_for(llm_server.base_url, context_tokens=4096)).complete(
            "THOUGHT", messages, UsageMeter()
        )
    assert info.value.error_code == "llm_context_overflow" and not llm_server.chat_requests
