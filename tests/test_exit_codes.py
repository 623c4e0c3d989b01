"""`celltrace` as a console script: a failed run exits 1 (typer.Exit codes reach the shell)."""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import pytest
from llm_server import Fault, ScriptedLLM
from test_ask_cli import workbook  # noqa: F401  (fixture)

from celltrace.server.cli import main


def run_main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["celltrace", *args])
    try:
        main()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


@pytest.fixture
def failing_llm(llm_server: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> ScriptedLLM:
    for key, value in {
        "OPENAI_BASE_URL": llm_server.base_url,
        "OPENAI_API_KEY": "test",
        "CELLTRACE_MODEL": "scripted-model",
        "CELLTRACE_DENSE_RETRIEVAL": "false",
        "CELLTRACE_MAX_RETRIES": "0",
    }.items():
        monkeypatch.setenv(key, value)
    llm_server.responder = lambda model, messages: Fault.status(500)
    return llm_server


@pytest.mark.parametrize("command", ["ask", "longform"])
def test_a_failed_run_exits_1(
    command: str,
    failing_llm: ScriptedLLM,
    workbook: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extra = ["--engine", "llm"] if command == "ask" else []
    assert run_main(monkeypatch, command, str(workbook), "What is the total?", *extra) == 1
    assert failing_llm.chat_requests


def test_a_successful_run_exits_0(workbook: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("CELLTRACE_DENSE_RETRIEVAL", "false")
    assert run_main(monkeypatch, "ask", str(workbook), "What is the total?", "--engine", "offline") in (0,)


def test_auto_with_the_endpoint_down_answers_offline_and_exits_0(
    workbook: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _doctor_env(monkeypatch, f"http://127.0.0.1:{_closed_port()}/v1")
    monkeypatch.setenv("CELLTRACE_FAST_PATH_CONFIDENCE", "1")  # the offline answer alone never suffices
    ask = ["ask", str(workbook), "What is the total?", "--json", "--engine"]
    assert run_main(monkeypatch, *ask, "offline") == 0
    offline = json.loads(capsys.readouterr().out)
    started = time.monotonic()
    assert run_main(monkeypatch, *ask, "auto") == 0
    assert time.monotonic() - started <= 10
    result = json.loads(capsys.readouterr().out)
    assert result["engine"] == "offline" and result["answer"] == offline["answer"] and result["answer"]
    assert result["status"] == offline["status"] and result["error_code"] is None
    assert any("model was not used (llm_unreachable" in w for w in result["warnings"])


def test_a_user_error_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_main(monkeypatch, "ask", str(tmp_path / "missing.xlsx"), "Total?", "--engine", "offline") == 2


def _doctor_env(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    for key, value in {
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "test",
        "CELLTRACE_MODEL": "scripted-model",
        "CELLTRACE_DENSE_RETRIEVAL": "false",
    }.items():
        monkeypatch.setenv(key, value)


def test_doctor_reports_the_endpoint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedLLM(n_ctx=4096, tokenize=True) as llm:
        llm.queue("{")
        _doctor_env(monkeypatch, llm.base_url)
        assert run_main(monkeypatch, "doctor") == 0
        sent = llm.chat_requests
    out = capsys.readouterr().out
    assert "model: scripted-model (served: scripted-model)" in out
    assert "context window: 4096 (reported by the server)" in out and "server /tokenize" in out
    assert "structured output: json_schema supported" in out
    assert len(sent) == 1 and sent[0].body["max_tokens"] == 1


def test_doctor_reports_a_server_without_structured_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedLLM(reject_formats={"json_schema"}) as llm:
        _doctor_env(monkeypatch, llm.base_url)
        assert run_main(monkeypatch, "doctor") == 0
    assert "json_schema rejected (HTTP 400)" in capsys.readouterr().out


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_doctor_exits_1_when_the_endpoint_is_down(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _doctor_env(monkeypatch, f"http://127.0.0.1:{_closed_port()}/v1")
    assert run_main(monkeypatch, "doctor") == 1
    assert "endpoint: NOT reachable" in capsys.readouterr().out
