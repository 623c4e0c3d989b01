"""The trace picture: valid SVG with cells, answer and visit order; escaping; cropping; CLI; API."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from pathlib import Path

import openpyxl
import pytest
from fastapi.testclient import TestClient
from tables import STATEMENT_ROWS
from typer.testing import CliRunner

from celltrace.server.app import create_app
from celltrace.server.cli import app, register_commands
from celltrace.server.engine.api import answer_question
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.server.infra.settings import Settings
from celltrace.server.picture import MAX_ROWS, trace_svg, visible
from celltrace.shared.actions import Colours
from celltrace.shared.schemas import AskResult, TablePayload
from celltrace.shared.table import Origin, Table

SVG = "{http://www.w3.org/2000/svg}"
QUESTION = "What was the cargo revenue in 2016?"
HOSTILE = 'Cargo <b>&amp; "mail"</b>\x01'
OFFLINE = Settings(dense_retrieval=False)


def _table() -> Table:
    rows = [list(r) for r in STATEMENT_ROWS]
    rows[4][0] = "  " + HOSTILE  # indented like the `Cargo` item it replaces
    return Table(text=rows, merges=[(0, 1, 0, 3)], origin=Origin(sheet="P&L <Q4>", address="B2:E7"))


def _texts(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_svg_is_valid_and_shows_cells_answer_order_and_evidence() -> None:
    table = _table()
    result = answer_question(table, "What was the Passenger revenue in 2016?", "offline", OFFLINE)
    assert result.status == "answered" and result.trace
    svg = trace_svg(table, result)
    root = ET.fromstring(svg)
    texts = _texts(svg)
    assert "Year Ended December 31" in texts and "$29,000" in texts and "Passenger" in texts
    assert any(result.answer[0] in t and t.startswith("Answer:") for t in texts)
    assert any("Passenger revenue in 2016" in t for t in texts)
    assert len(root.findall(f"{SVG}circle")) == len(result.trace)
    badges = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "step"]
    assert badges == [str(i) for i in range(1, len(result.trace) + 1)]
    fills = {r.get("fill") for r in root.iter(f"{SVG}rect")}
    assert Colours().answer in fills and Colours().header in fills
    assert root.findall(f"{SVG}polyline"), "the visit path and shared-neighbour links are drawn"


def test_cell_text_is_escaped_and_cleaned() -> None:
    table = _table()
    result = answer_question(table, QUESTION, "offline", OFFLINE)
    svg = trace_svg(table, result)
    ET.fromstring(svg)  # would raise on a raw "<b>" or the control character
    assert "<b>" not in svg and "\x01" not in svg
    assert any(t.startswith(HOSTILE[:21]) for t in _texts(svg)), "the text is kept (cut to the column)"
    assert "P&amp;L &lt;Q4&gt;" in svg


def test_big_tables_keep_the_header_band_and_the_answer_rows() -> None:
    shown = visible(500, 3, [250, 251], MAX_ROWS)
    assert len(shown) <= MAX_ROWS and {0, 1, 2, 249, 250, 251, 252} <= set(shown)
    assert visible(10, 2, [9], MAX_ROWS) == list(range(10))
    rows = [["Item", *(f"Q{c}" for c in range(1, 30))]] + [
        [f"item {r}", *(str(r * c) for c in range(1, 30))] for r in range(1, 1200)
    ]
    table = Table(text=rows, origin=Origin(sheet="Big", address="A1:AD1200"))
    cell = {"sheet": "Big", "address": "Y1001", "rows": [1000], "cols": [24], "text": rows[1000][24]}
    result = AskResult(
        question="What is Q24 of item 1000?",
        status="answered",
        engine="offline",
        answer=[rows[1000][24]],
        evidence=[{**cell, "role": "answer"}],
        trace=[cell],
    )
    started = time.perf_counter()
    svg = trace_svg(table, result)
    assert time.perf_counter() - started < 5
    texts = _texts(svg)
    assert "item 1000" in texts and "Q24" in texts and "1001" in texts and "Item" in texts


@pytest.fixture
def workbook(tmp_path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Report"
    for r, row in enumerate(STATEMENT_ROWS, 1):
        for c, value in enumerate(row, 1):
            ws.cell(row=r, column=c, value=value or None)
    ws.merge_cells("B1:D1")
    path = tmp_path / "report.xlsx"
    wb.save(path)
    return path


def test_cli_ask_picture_writes_svg(workbook: Path, tmp_path: Path) -> None:
    register_commands()
    out = tmp_path / "trace.svg"
    env = {"CELLTRACE_DENSE_RETRIEVAL": "false", "CELLTRACE_MODEL": "", "OPENAI_BASE_URL": ""}
    run = CliRunner().invoke(
        app, ["ask", str(workbook), QUESTION, "--engine", "offline", "--picture", str(out)], env=env
    )
    assert run.exit_code == 0, run.output
    texts = _texts(out.read_text(encoding="utf-8"))
    assert "1,100" in texts and any(t.startswith("Answer: 1,100") for t in texts)
    bad = CliRunner().invoke(
        app, ["ask", str(workbook), QUESTION, "--picture", str(tmp_path / "t.txt")], env=env
    )
    assert bad.exit_code != 0 and ".svg or .png" in str(bad.exception or bad.output)


def test_api_returns_the_picture_only_when_asked() -> None:
    payload = TablePayload.from_table(_table()).model_dump()
    with TestClient(create_app(ServerSettings(preload=False), OFFLINE)) as c:
        plain = c.post("/v1/ask", json={"question": QUESTION, "table": payload, "engine": "offline"}).json()
        drawn = c.post(
            "/v1/ask", json={"question": QUESTION, "table": payload, "engine": "offline", "picture": True}
        ).json()
    assert plain["picture"] is None
    assert drawn["answer"] == plain["answer"] and drawn["actions"] == plain["actions"]
    assert any(t == f"Answer: {plain['answer'][0]}" for t in _texts(drawn["picture"]))


def test_png_needs_cairosvg_or_says_so(tmp_path: Path) -> None:
    from celltrace.server.picture import write_picture
    from celltrace.shared.errors import UserError

    svg = trace_svg(_table(), answer_question(_table(), QUESTION, "offline", OFFLINE))
    try:
        import cairosvg  # noqa: F401
    except ImportError:
        with pytest.raises(UserError, match="cairosvg"):
            write_picture(tmp_path / "t.png", svg)
    else:
        assert write_picture(tmp_path / "t.png", svg).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
