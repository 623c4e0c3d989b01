"""The Office.js task pane in a real browser (Debian chromium through Playwright) against a real
`celltrace serve`, with office.js replaced by `fixtures/office_stub.js` over an in-memory workbook.

Marked `browser` (not in the default run; `.ci/run` runs them as a second step). They skip when
Playwright or a system chromium is missing; browsers are never downloaded. Screenshots of the pane
go to $CELLTRACE_SCREENSHOTS (default: the system temp folder), never into the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_process import running_server, stop

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api", reason="Python playwright is not installed")

CHROMIUM = next(
    (
        p
        for p in (os.environ.get("CELLTRACE_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"))
        if p and Path(p).exists()
    ),
    None,
)
if CHROMIUM is None:
    pytest.skip(
        "no system chromium (apt-get install chromium, or set CELLTRACE_CHROMIUM)", allow_module_level=True
    )

STUB = (Path(__file__).parent / "fixtures" / "office_stub.js").read_text(encoding="utf-8")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "financials.xlsx"
SHOTS = Path(os.environ.get("CELLTRACE_SCREENSHOTS", tempfile.gettempdir()))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
USER_FILL = "#C6EFCE"
USER_NOTE = "Checked by audit."


def _cells(rows: list[list[Any]], top: int = 1) -> dict[str, dict[str, Any]]:
    out = {}
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if value is not None:
                out[f"{top + r},{c}"] = {
                    "value": value,
                    "text": value if isinstance(value, str) else str(value),
                }
    return out


def workbook() -> dict[str, Any]:
    """Sheet `Report`: a title merged over A1:E1, `Region` A2:A3, years B2:C2 / D2:E2 over
    Revenue/Margin, three data rows; D5 has a user's green fill and A5 a user's note."""
    cells = _cells([["Segment results", None, None, None, None]], top=0)
    cells |= _cells(
        [
            ["Region", "2023", None, "2024", None],
            [None, "Revenue", "Margin", "Revenue", "Margin"],
            ["North", 100, 0.1, 120, 0.12],
            ["South", 80, 0.08, 90, 0.09],
            ["Total", 180, 0.091, 210, 0.107],
        ]
    )
    for key, text in {
        "3,2": "10.0%",
        "3,4": "12.0%",
        "4,2": "8.0%",
        "4,4": "9.0%",
        "5,2": "9.1%",
        "5,4": "10.7%",
    }.items():
        cells[key]["text"] = text
    cells["4,3"]["fill"] = USER_FILL
    return {
        "name": "segments.xlsx",
        "active": "Report",
        "sheets": [
            {
                "name": "Report",
                "cells": cells,
                "merges": [[0, 0, 0, 4], [1, 0, 2, 0], [1, 1, 1, 2], [1, 3, 1, 4]],
            }
        ],
        "notes": {"Report!A5": {"content": USER_NOTE, "authorName": "Analyst"}},
        "selection": {"sheet": "Report", "r0": 1, "c0": 0, "r1": 5, "c1": 4},
    }


SERVER_ENV = {
    "CELLTRACE_DENSE_RETRIEVAL": "false",
    "CELLTRACE_TOKEN": "",
    "CELLTRACE_OFFLINE_MIN_CONFIDENCE": "0",
}
"""These tests exercise how the pane writes answers; with no abstain threshold every offline answer is
written as an answer (the calibrated model would call some of these small tables' answers best guesses)."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server(SERVER_ENV) as (_, url):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def statement_workbook() -> dict[str, Any]:
    """The example's income statement as the stub's workbook (Operations!A1:H28: title and unit
    lines, headers merged over years and row groups, numbers with their display text), selected."""
    from celltrace.shared.xlsx_read import read_table

    table = read_table(EXAMPLE, sheet="Operations", range="A1:H28")
    cells = {
        f"{r},{c}": {"value": value, "text": text}
        for r, (texts, values) in enumerate(zip(table.text, table.values or [], strict=True))
        for c, (text, value) in enumerate(zip(texts, values, strict=True))
        if text or value is not None
    }
    return {
        "name": EXAMPLE.name,
        "active": "Operations",
        "sheets": [{"name": "Operations", "cells": cells, "merges": [list(m) for m in table.merges]}],
        "selection": {
            "sheet": "Operations",
            "r0": 0,
            "c0": 0,
            "r1": table.n_rows - 1,
            "c1": table.n_cols - 1,
        },
    }


def open_pane(browser: Any, url: str, book: dict[str, Any] | None = None) -> Any:
    page = browser.new_page(viewport={"width": 380, "height": 1100})
    page.add_init_script(f"window.__workbook = {json.dumps(book or workbook())};")
    page.route(
        "https://appsforoffice.microsoft.com/**",
        lambda route: route.fulfill(status=200, content_type="text/javascript", body=STUB),
    )
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("requestfailed", lambda r: errors.append(f"{r.url}: {r.failure}"))
    page.goto(f"{url}/addin/taskpane.html")
    try:
        page.wait_for_function("() => document.getElementById('server-status').textContent.length > 0")
    except playwright_api.TimeoutError:
        raise AssertionError(f"the pane did not start: {errors}, {page.content()[:3000]}") from None
    page.errors = errors
    return page


def ask(page: Any, question: str, answer_cell: str) -> None:
    """Ask offline in the pane and wait until the workbook is written."""
    page.fill("#question", question)
    page.select_option("#engine", "offline")
    page.fill("#answer-cell", answer_cell)
    page.click("#ask")
    page.wait_for_function(
        "() => document.getElementById('steps').textContent.includes('Highlighted')", timeout=60_000
    )


def book(page: Any) -> dict[str, Any]:
    return page.evaluate("window.__workbook")


def cell(wb: dict[str, Any], ref: str, sheet: str = "Report") -> dict[str, Any]:
    from celltrace.shared.a1 import parse_cell

    r, c = parse_cell(ref)
    data = next(s for s in wb["sheets"] if s["name"] == sheet)
    return data["cells"].get(f"{r - 1},{c - 1}", {})


def test_manifest_and_functions_are_served(server: str) -> None:
    import xml.etree.ElementTree as ET

    manifest = httpx.get(f"{server}/addin/manifest.xml", timeout=10)
    ns = {"o": "http://schemas.microsoft.com/office/appforoffice/1.1"}
    source = ET.fromstring(manifest.text).find("o:DefaultSettings/o:SourceLocation", ns)
    assert source is not None and source.get("DefaultValue") == f"{server}/addin/taskpane.html"
    functions = httpx.get(f"{server}/addin/functions.json", timeout=10).json()
    assert [f["id"] for f in functions["functions"]] == ["ASK"]


def test_ask_highlights_notes_writes_and_clears(server: str, browser: Any) -> None:
    page = open_pane(browser, server)
    ask(page, "What was the revenue of South in 2024?", "Report!G2")
    assert page.text_content("#answer") == "90"
    assert "engine: offline" in page.text_content("#answer-meta")
    evidence = page.locator("#evidence li").all_text_contents()
    assert evidence[0].startswith("answerReport!D5") and any("Report!D2:E2" in e for e in evidence)
    src = page.get_attribute("#picture", "src")
    svg = urllib.parse.unquote(src.split(",", 1)[1])
    assert src.startswith("data:image/svg+xml") and "Answer: 90" in svg and "South" in svg
    assert page.locator("#picture").evaluate("img => img.complete && img.naturalWidth > 0")
    page.screenshot(path=str(SHOTS / "celltrace_pane_answer.png"), full_page=True)
    page.click("#picture")  # actual size, scrollable
    assert page.locator("#picture").evaluate("img => !img.classList.contains('fit') && img.width > 380")
    page.locator(".picture-box").screenshot(path=str(SHOTS / "celltrace_pane_picture.png"))

    wb = book(page)
    assert cell(wb, "D5")["fill"] == "#FFD966"
    assert cell(wb, "A5")["fill"] == "#FFF2CC" and cell(wb, "D3")["fill"] == "#FFF2CC"
    assert cell(wb, "D2")["fill"] == cell(wb, "E2")["fill"] == "#FFF2CC"  # the whole merged area
    assert "Q: What was the revenue of South in 2024?" in wb["notes"]["Report!D5"]["content"]
    assert wb["notes"]["Report!A5"]["content"] == USER_NOTE  # no celltrace note there
    answer_cell = cell(wb, "G2")  # a number cell in the source's format, never a formula
    assert answer_cell["value"] == 90 and answer_cell.get("numberFormat") and not answer_cell.get("formula")
    record = next(s for s in wb["sheets"] if s["name"] == "_celltrace")
    assert record["visibility"] == "VeryHidden"
    assert wb["selection"] == {"sheet": "Report", "r0": 4, "c0": 3, "r1": 4, "c1": 3}

    page.click("#evidence li:nth-child(2) a")  # the row header A5
    page.wait_for_function("() => window.__workbook.selection.c0 === 0")
    assert book(page)["selection"]["r0"] == 4

    page.click("#clear")
    page.wait_for_function("() => document.getElementById('server-status').textContent.startsWith('Cleared')")
    wb = book(page)
    assert cell(wb, "D5")["fill"] == USER_FILL  # the user's green is back
    assert not cell(wb, "A5").get("fill") and not cell(wb, "D2").get("fill")
    assert "Report!D5" not in wb["notes"] and wb["notes"]["Report!A5"]["content"] == USER_NOTE
    assert [s["name"] for s in wb["sheets"]] == ["Report"]
    page.screenshot(path=str(SHOTS / "celltrace_pane_cleared.png"), full_page=True)
    assert page.errors == []
    page.close()


def test_statement_answer_shows_unit_confidence_and_evidence(server: str, browser: Any) -> None:
    page = open_pane(browser, server, statement_workbook())
    ask(page, "What was passenger revenue in the three months ended December 31, 2016?", "Operations!J2")
    assert page.text_content("#answer") == "$8,902"
    meta = page.text_content("#answer-meta")
    assert meta.startswith("unit: $ millions · confidence: ") and "engine: offline" in meta
    confidence = int(meta.split("confidence: ")[1].split("%")[0])
    assert 0 <= confidence <= 100
    evidence = page.locator("#evidence li").all_text_contents()
    assert evidence[0] == "answerOperations!G5  $8,902" and any("Operations!F3:G3" in e for e in evidence)
    svg = urllib.parse.unquote(page.get_attribute("#picture", "src").split(",", 1)[1])
    assert "Answer: $8,902" in svg and "Passenger" in svg
    page.screenshot(path=str(SHOTS / "celltrace_pane_statement.png"), full_page=True)
    page.click("#picture")
    page.locator(".picture-box").screenshot(path=str(SHOTS / "celltrace_pane_statement_picture.png"))
    answer_cell = cell(book(page), "J2", sheet="Operations")
    assert answer_cell["value"] == 8902 and answer_cell["numberFormat"] == '"$"#,##0'
    assert page.errors == []
    page.close()


def test_pane_asks_for_the_token_once_and_keeps_it(browser: Any) -> None:
    token = "pane-test-token"
    question = "What was the revenue of South in 2024?"
    with running_server(SERVER_ENV | {"CELLTRACE_TOKEN": token}) as (_, url):
        page = open_pane(browser, url)
        assert page.evaluate("document.getElementById('settings').open") is False
        before = book(page)
        page.fill("#question", question)
        page.select_option("#engine", "offline")
        page.click("#ask")
        page.wait_for_selector("#error:not([hidden])", timeout=30_000)
        assert "needs a token" in page.text_content("#error")
        assert page.evaluate("document.getElementById('settings').open")  # the pane asks for it
        assert page.evaluate("document.activeElement.id") == "token"
        page.screenshot(path=str(SHOTS / "celltrace_pane_token.png"), full_page=True)
        assert book(page)["sheets"] == before["sheets"]
        page.fill("#token", token)
        page.click("#save-token")
        assert page.is_hidden("#error") and not page.evaluate("document.getElementById('settings').open")
        ask(page, question, "Report!G2")
        assert page.text_content("#answer") == "90" and "confidence: " in page.text_content("#answer-meta")
        assert page.evaluate("localStorage.getItem('celltrace.token')") == token

        page.reload()  # a new session of the pane: the stored token is used, nothing is asked
        page.wait_for_function("() => document.getElementById('server-status').textContent.length > 0")
        assert page.input_value("#token") == token
        ask(page, question, "Report!G2")
        assert page.text_content("#answer") == "90" and page.is_hidden("#error")
        assert not page.evaluate("document.getElementById('settings').open")
        assert page.errors == []
        page.close()


def test_text_answer_stays_text_and_a_users_note_is_kept(server: str, browser: Any) -> None:
    page = open_pane(browser, server)
    ask(page, "Which region had the lowest margin in 2023?", "Report!G3")
    assert page.text_content("#answer") == "South"
    wb = book(page)
    assert cell(wb, "G3")["value"] == "South" and cell(wb, "G3").get("quotePrefix")  # text, as text
    note = wb["notes"]["Report!A5"]["content"]
    assert note.startswith(USER_NOTE + "\n\n") and "A: South" in note  # the user's text first
    page.click("#clear")
    page.wait_for_function("() => document.getElementById('server-status').textContent.startsWith('Cleared')")
    assert book(page)["notes"]["Report!A5"]["content"] == USER_NOTE
    page.close()


def test_reader_clips_merges_whose_top_left_is_outside_and_reads_in_blocks(server: str, browser: Any) -> None:
    page = open_pane(browser, server)
    table = page.evaluate("celltraceExcel.readTable('Report!B3:E6')")
    assert table["origin"] == {"workbook": "segments.xlsx", "sheet": "Report", "address": "B3:E6"}
    assert table["cells"][0] == ["Revenue", "Margin", "Revenue", "Margin"]
    full = page.evaluate("celltraceExcel.readTable('Report!A1:E3')")
    assert full["merges"] == [[0, 0, 0, 4], [1, 0, 2, 0], [1, 1, 1, 2], [1, 3, 1, 4]]
    whole = page.evaluate("celltraceExcel.readTable('Report!A1:E6')")
    syncs = book(page)["syncs"]
    page.evaluate("() => { celltraceExcel.blockCells = 7; }")  # one 5-cell row per round trip
    assert page.evaluate("celltraceExcel.readTable('Report!A1:E6')") == whole
    assert book(page)["syncs"] - syncs >= 6 + 3
    crossing = page.evaluate("celltraceExcel.readTable('Report!A3:C6')")
    assert crossing["cells"][0][0] == "Region"  # A2:A3's text, though its top-left A2 is outside
    assert crossing["warnings"] == ["merged area at A2 crosses the range border"]
    page.close()


def test_reader_reads_indent_levels_as_leading_spaces(server: str, browser: Any) -> None:
    """Line items indented with Format Cells > Indent nest like space-indented ones (as in file mode);
    hosts without ExcelApi 1.9 read the text as it is."""
    page = open_pane(browser, server)
    page.evaluate("() => { window.__workbook.sheets[0].cells['3,0'].indent = 2; }")
    table = page.evaluate("celltraceExcel.readTable('Report!A4:C5')")
    assert [row[0] for row in table["cells"]] == ["    North", "South"]
    assert table["values"][0][0] == "North"
    page.evaluate("() => { window.__workbook.apiVersion = '1.8'; }")
    table = page.evaluate("celltraceExcel.readTable('Report!A4:C5')")
    assert [row[0] for row in table["cells"]] == ["North", "South"]
    assert page.errors == []
    page.close()


def test_worksheet_function_answers_from_the_sheet(server: str, browser: Any) -> None:
    page = open_pane(browser, server)
    answer = page.evaluate(
        "celltraceFunctions.ask('What was the margin of North in 2023?', [], true,"
        " {parameterAddresses: ['Report!K1', 'Report!A2:E6', 'Report!K2']})"
    )
    assert answer[0][0] == "10.0%" and answer[0][-1] == "Report!C4"
    page.close()


def test_server_down_shows_an_error_and_changes_nothing(browser: Any) -> None:
    with running_server(SERVER_ENV) as (proc, url):
        page = open_pane(browser, url)
        before = book(page)
        stop(proc)
        page.fill("#question", "What was the revenue of South in 2024?")
        page.click("#ask")
        page.wait_for_selector("#error:not([hidden])", timeout=30_000)
    error = page.text_content("#error")
    assert "not reachable" in error and "celltrace serve" in error
    assert book(page)["sheets"] == before["sheets"] and book(page)["notes"] == before["notes"]
    page.screenshot(path=str(SHOTS / "celltrace_pane_server_down.png"), full_page=True)
    page.close()
