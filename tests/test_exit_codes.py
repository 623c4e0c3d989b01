"""`celltrace` as a console script: a failed run exits 1 (typer.Exit codes reach the shell)."""

from __future__ import annotations

import sys
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
    command: str, failing_llm: ScriptedLLM, workbook: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    extra = ["--engine", "llm"] if command == "ask" else []
    assert run_main(monkeypatch, command, str(workbook), "What is the total?", *extra) == 1
    assert failing_llm.chat_requests


def test_a_successful_run_exits_0(workbook: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("CELLTRACE_DENSE_RETRIEVAL", "false")
    assert run_main(monkeypatch, "ask", str(workbook), "What is the total?", "--engine", "offline") in (0,)


def test_a_user_error_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_main(monkeypatch, "ask", str(tmp_path / "missing.xlsx"), "Total?", "--engine", "offline") == 2
