"""The RunPython macros end to end: the fake book, a real `celltrace serve` (offline engine)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_xlwings import FakeBook, FakeSheet
from serve_process import free_port, running_server

from celltrace.addin import macros
from celltrace.addin.client import Client, ClientSettings
from celltrace.shared.actions import plan_actions
from celltrace.shared.api_models import LongformResponse
from celltrace.shared.restore import RECORD_SHEET
from celltrace.shared.schemas import EvidenceCell
from celltrace.shared.xlsx_write import LOG_SHEET

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "addin" / "samples" / "segments.xlsx"
TOKEN = "test-token-123"
GOLD, LIGHT = (0xFF, 0xD9, 0x66), (0xFF, 0xF2, 0xCC)
QUESTION = "What was the revenue of USA in 2024?"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """`celltrace serve` on a free loopback port with a token; its URL."""
    with running_server({"CELLTRACE_TOKEN": TOKEN}) as (_, url):
        yield url


def settings(url: str, token: str | None = TOKEN) -> ClientSettings:
    return ClientSettings(url=url, token=token, engine="offline", client_timeout=120, record_dir=None)


@pytest.fixture
def book() -> FakeBook:
    return FakeBook.from_xlsx(SAMPLE)


def report(book: FakeBook) -> FakeSheet:
    return next(s for s in book.sheets if s.name == "Report")


def colour(book: FakeBook, ref: str) -> tuple[int, int, int] | None:
    sheet = report(book)
    cell = sheet.cells.get(sheet.range(ref).bounds[:2])
    return cell.color if cell else None


def untouched(book: FakeBook) -> None:
    assert [s.name for s in book.sheets] == ["Report", "Plain"]
    sheet = report(book)
    assert all(c.color is None for c in sheet.cells.values())
    assert [k for k, c in sheet.cells.items() if c.note] == [(4, 2)]
    assert book.app._screen_updating is True


def test_ask_end_to_end(server: str, book: FakeBook) -> None:
    book.select("Report", "D6")  # one cell: the table block in its current region (title cut off)
    book.app.input_answers = [QUESTION]
    outcome = macros.ask(book, settings=settings(server))
    assert outcome is not None, book.app.alerts
    reply = outcome.results[0]
    assert reply.status == "answered" and reply.answer == ["3,720"]
    assert outcome.read.table.origin.address == "A2:I10" and outcome.read.table.title
    assert reply.region == "Report!A2:I10"
    assert any("detected the table at Report!A2:I10" in w for w in reply.warnings)
    # highlights land on the evidence cells: the answer strong, its headers light
    assert colour(book, "F7") == GOLD
    assert [colour(book, r) for r in ("B7", "A7", "A8", "A9", "F2", "G2", "H2", "F3")] == [LIGHT] * 8
    assert colour(book, "C7") is None and colour(book, "F6") is None
    note = report(book).cells[(7, 6)].note
    assert note is not None and "A: 3,720" in note.text
    assert book.app.selection.bounds == (7, 6, 7, 6) and book.active_sheet.name == "Report"
    assert book.app.prompts == ["Ask: your question about the selected table"]
    assert book.app.alerts[-1][0].startswith("3,720\n\nEvidence: F7")
    log = next(s for s in book.sheets if s.name == LOG_SHEET)
    assert log.range("D2:F2").value == [QUESTION, "3,720", "answered"]
    assert book.app._screen_updating is True

    # a second question replaces the first highlight; Clear restores the workbook
    book.app.input_answers = ["What is the margin of North in 2023?"]
    assert macros.ask(book, settings=settings(server)) is not None
    assert colour(book, "D4") == GOLD and colour(book, "F7") is None
    assert macros.clear(book) is not None
    assert all(c.color is None for c in report(book).cells.values())
    assert RECORD_SHEET not in book.sheets
    assert book.app.alerts[-1][0].startswith("Cleared celltrace highlights")


def test_server_not_running_says_how_to_start_it(book: FakeBook) -> None:
    book.select("Report", "A2:I10")
    book.app.input_answers = [QUESTION]
    assert macros.ask(book, settings=settings(f"http://127.0.0.1:{free_port()}")) is None
    message = book.app.alerts[-1][0]
    assert "not running" in message and "celltrace serve" in message
    assert book.app.prompts == []  # checked before asking the question
    untouched(book)


def test_wrong_token_is_explained(server: str, book: FakeBook) -> None:
    book.select("Report", "A2:I10")
    book.app.input_answers = [QUESTION]
    assert macros.ask(book, settings=settings(server, token="wrong")) is None
    assert "CELLTRACE_TOKEN" in book.app.alerts[-1][0]
    untouched(book)


def test_cancelled_question_writes_nothing(server: str, book: FakeBook) -> None:
    book.select("Report", "A2:I10")
    assert macros.ask(book, settings=settings(server)) is None  # InputBox returns False
    assert book.app.alerts == []
    untouched(book)


def test_long_answer_without_llm_is_a_message(server: str, book: FakeBook) -> None:
    book.select("Report", "A2:I10")
    book.app.input_answers = ["Summarise Europe."]
    assert macros.ask_long(book, settings=settings(server)) is None
    assert "needs an LLM" in book.app.alerts[-1][0]
    untouched(book)


def test_long_answer_applies_its_actions(book: FakeBook, monkeypatch: pytest.MonkeyPatch) -> None:
    ev = [EvidenceCell(sheet="Report", address="C7", rows=[5], cols=[2], text="3,400", role="answer")]
    canned = LongformResponse(
        question="Summarise the Americas.",
        status="answered",
        answer="USA leads with 3,400.",
        evidence=ev,
        actions=plan_actions(question="q", answer="USA leads", evidence=ev, engine="longform"),
    )
    monkeypatch.setattr(Client, "health", lambda self: None)
    monkeypatch.setattr(Client, "longform", lambda self, table, question: canned)
    book.select("Report", "A2:I10")
    book.app.input_answers = ["Summarise the Americas."]
    outcome = macros.ask_long(book, settings=settings("http://127.0.0.1:9"), answer_cell="K2")
    assert outcome is not None
    assert colour(book, "C7") == GOLD
    assert report(book).cells[(2, 11)].value == "USA leads with 3,400."


def test_batch_answers_a_column(server: str, book: FakeBook) -> None:
    sheet = report(book)
    sheet.set(14, 11, QUESTION)
    sheet.set(15, 11, "What is the margin of North in 2023?")
    sheet.set(16, 11, "   ")
    book.select("Report", "K14:K16")
    book.app.input_answers = ["Report!A2:I10"]
    outcome = macros.batch(book, settings=settings(server))
    assert outcome is not None, book.app.alerts
    answers = [sheet.cells[(r, 12)] for r in (14, 15)]  # numbers in their source format
    assert [(c.value, c.number_format) for c in answers] == [(3720, "#,##0"), (0.121, "0.0%")]
    assert [sheet.range(f"L{r}").api.Text for r in (14, 15)] == ["3,720", "12.1%"]
    assert sheet.cells[(14, 13)].value.startswith("F7 (headers:")
    assert sheet.cells[(16, 12)].value == "#ERROR: empty question"  # as `celltrace batch` does
    assert book.app.alerts[-1][0] == "Answered 2 of 3 question(s)."
    log = next(s for s in book.sheets if s.name == LOG_SHEET)
    assert log.range("D3").value == "What is the margin of North in 2023?"
    # answers present now: a second run asks before overwriting, and "no" writes nothing
    book.app.input_answers = ["Segments"]
    book.app.alert_answers = ["no"]
    assert macros.batch(book, settings=settings(server)) is None
    assert log.range("D5").value is None  # rows 2-4 hold the first run


def test_batch_needs_one_column(book: FakeBook) -> None:
    book.select("Report", "K14:L16")
    assert macros.batch(book, settings=settings("http://127.0.0.1:9")) is None
    assert "one column" in book.app.alerts[-1][0]


def test_ask_hex_decodes_the_macos_question(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}
    monkeypatch.setattr(macros, "ask", lambda book, question: seen.setdefault("q", question))
    macros.ask_hex("=Ümlaut ?".encode("utf-16-be").hex().upper())
    assert seen["q"] == "=Ümlaut ?"


def test_unexpected_error_is_a_message_and_screen_updating_is_restored(
    book: FakeBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kw: object) -> None:
        book.app.screen_updating = False
        raise KeyError("surprise")

    monkeypatch.setattr(macros, "resolve", boom)
    assert macros.ask(book, settings=settings("http://127.0.0.1:9")) is None
    assert book.app.alerts[-1][0].startswith("celltrace failed: KeyError")
    assert book.app._screen_updating is True


def test_macros_import_without_excel() -> None:
    code = "import celltrace.addin.macros, sys; print('xlwings' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---- packaging and the terminal command ------------------------------------------------------------
def test_xlam_package_has_the_celltrace_ribbon(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET
    import zipfile

    from celltrace.addin.build_xlam import build

    xlam = build(tmp_path / "celltrace.xlam", with_vba=False)
    with zipfile.ZipFile(xlam) as z:
        ribbon = ET.fromstring(z.read("customUI/customUI.xml"))
        assert b'name="_celltrace.conf"' in z.read("xl/workbook.xml")
        assert z.read("xl/vbaProject.bin")[:4] == b"\xd0\xcf\x11\xe0"  # xlwings' VBA project kept
    ns = "{http://schemas.microsoft.com/office/2006/01/customui}"
    tab = ribbon.find(f".//{ns}tab")
    assert tab.get("label") == "celltrace"
    buttons = [(b.get("label"), b.get("onAction")) for b in tab.iter(f"{ns}button")]
    assert [label for label, _ in buttons] == ["Ask", "Long answer", "Batch", "Clear"]
    bas = (ROOT / "addin" / "vba" / "celltrace.bas").read_text()
    for _, action in buttons:
        module, sub = action.split(".")
        assert f'Attribute VB_Name = "{module}"' in bas and f"Sub {sub}(control As IRibbonControl)" in bas


def test_user_config_keeps_other_keys(tmp_path: Path) -> None:
    from celltrace.addin.install import set_config, user_config_path

    assert user_config_path("win32", tmp_path) == tmp_path / ".celltrace" / "celltrace.conf"
    assert user_config_path("darwin", tmp_path).parts[-4:] == (
        "Containers",
        "com.microsoft.Excel",
        "Data",
        "celltrace.conf",
    )
    path = tmp_path / "celltrace.conf"
    path.write_text('"SHOW CONSOLE","True"\n"INTERPRETER_WIN","old"\n')
    set_config(path, "INTERPRETER_WIN", r"C:\py\python.exe")
    assert path.read_text().splitlines() == ['"SHOW CONSOLE","True"', r'"INTERPRETER_WIN","C:\py\python.exe"']


@pytest.mark.parametrize("args", [["ask", "What is X?", "--range", "A1:B2"], ["install"]])
def test_excel_command_on_linux_is_one_clear_line(args: list[str]) -> None:
    if sys.platform in ("win32", "darwin"):
        pytest.skip("Excel may exist here")
    code = (
        "import sys; from celltrace.server.cli import main; "
        "sys.argv = ['celltrace', 'excel', *sys.argv[1:]]; main()"
    )
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "needs Microsoft Excel on Windows or macOS" in out.stderr


def test_ask_target_by_defined_name(server: str, book: FakeBook) -> None:
    outcome = macros.ask(
        book, ui=macros.TerminalUI(), question=QUESTION, target="Segments", settings=settings(server)
    )
    assert outcome is not None and outcome.read.table.origin.address == "A2:I10"
    assert colour(book, "F7") == GOLD
