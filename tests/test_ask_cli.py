"""`celltrace ask` end to end: an .xlsx on disk, the CLI, the loopback LLM server."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest
from graphotter_script import FIGURE6_MERGES, FIGURE6_ROWS, QUESTION, GraphScript
from llm_server import Fault, ScriptedLLM
from typer.testing import CliRunner

from celltrace.server.cli import app, register_commands
from celltrace.shared.schemas import AskResult

register_commands()


@pytest.fixture
def workbook(tmp_path: Path) -> Path:
    """The Figure 6 table on sheet `Survey` at B2 (so addresses are offset from A1)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Survey"
    for r, row in enumerate(FIGURE6_ROWS):
        for c, value in enumerate(row):
            if value is not None:
                ws.cell(row=r + 2, column=c + 2, value=value)
    for r0, c0, r1, c1 in FIGURE6_MERGES:
        ws.merge_cells(start_row=r0 + 2, start_column=c0 + 2, end_row=r1 + 2, end_column=c1 + 2)
    path = tmp_path / "survey.xlsx"
    wb.save(path)
    return path


def _env(llm: ScriptedLLM) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": llm.base_url,
        "OPENAI_API_KEY": "test",
        "CELLTRACE_MODEL": "scripted-model",
        "CELLTRACE_DENSE_RETRIEVAL": "false",
    }


def test_ask_json_case_study(llm_server: ScriptedLLM, workbook: Path) -> None:
    llm_server.responder = GraphScript()
    args = [
        "ask",
        str(workbook),
        QUESTION,
        "--sheet",
        "Survey",
        "--range",
        "B2:F8",
        "--engine",
        "llm",
        "--json",
    ]
    out = CliRunner().invoke(app, args, env=_env(llm_server))
    assert out.exit_code == 0, out.output
    result = AskResult.model_validate_json(out.stdout)
    assert result.answer in (["55.0"], ["55"])
    assert ("Survey", "E8", "answer") in [(e.sheet, e.address, e.role) for e in result.evidence]
    shared = next(s for s in result.steps if s.actions[0].name == "GetSharedNeighbours")
    assert "E8 '55'" in shared.observations[0]
    assert result.usage.llm_calls == len(llm_server.chat_requests)
    assert sum(s.calls for s in result.usage.by_stage.values()) == len(llm_server.chat_requests)


def test_ask_human_output(llm_server: ScriptedLLM, workbook: Path) -> None:
    llm_server.responder = GraphScript()
    out = CliRunner().invoke(app, ["ask", str(workbook), QUESTION, "--engine", "llm"], env=_env(llm_server))
    assert out.exit_code == 0, out.output
    assert "Answer: 55" in out.stdout  # as the cell shows it
    assert re.search(r"^  Survey!E8 +answer  55$", out.stdout, re.M)
    # steps name sheet addresses (the table starts at B2), one action per line, never 0-based tuples
    assert '3. GetSharedNeighbours Survey!E4 "percent", Survey!B8 "food service"' in out.stdout
    assert "(2, 3, 'percent')" not in out.stdout


def test_ask_failure_is_one_result_not_a_traceback(llm_server: ScriptedLLM, workbook: Path) -> None:
    llm_server.queue(*[Fault.status(500)] * 4)
    out = CliRunner().invoke(
        app, ["ask", str(workbook), QUESTION, "--engine", "llm", "--json"], env=_env(llm_server)
    )
    assert out.exit_code == 1
    result = AskResult.model_validate_json(out.stdout)
    assert result.status == "failed" and "HTTP 500" in (result.error or "")
