"""`celltrace ask --out/--answer-cell/--in-place/--overwrite`: the written copy and its checks."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from test_clear_cli import run_main
from test_xlsx_write import EVIDENCE, answered, build_book

from celltrace.server.engine import api
from celltrace.shared.restore import RECORD_SHEET
from celltrace.shared.xlsx_write import LOG_SHEET


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    questions: list[str] = []

    def fake(table, question, engine="auto", settings=None, on_step=None):
        questions.append(question)
        return answered(*EVIDENCE).model_copy(update={"question": question})

    monkeypatch.setattr(api, "answer_question", fake)
    return questions


@pytest.fixture
def book(tmp_path: Path) -> Path:
    return build_book(tmp_path / "book.xlsx")


def test_answer_cell_highlights_and_json_output(book, asked, monkeypatch, capsys) -> None:
    code, out, err = run_main(
        monkeypatch, capsys, "ask", str(book), "Revenue in 2020?", "--sheet", "Data", "--range", "A3:D6",
        "--answer-cell", "Other!F1", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    output = book.with_name("book.celltrace.xlsx")
    assert data["output"] == str(output) and data["answer"] == ["120.25"]
    wb = openpyxl.load_workbook(output)
    assert wb["Other"]["F1"].value == "120.25"
    assert wb["Data"]["C4"].fill.fgColor.rgb == "FFFFD966"
    assert wb[LOG_SHEET].max_row == 2 and wb[LOG_SHEET]["C2"].value == "A3:D6"
    # a second ask on the copy replaces the highlights; the filled answer cell needs --overwrite
    code, _, err = run_main(
        monkeypatch, capsys, "ask", str(output), "Again?", "--sheet", "Data", "--range", "A3:D6",
        "--answer-cell", "Other!F1", "--in-place",
    )  # fmt: skip
    assert code == 2 and "--answer-cell Other!F1 is not empty; use --overwrite" in err
    assert asked == ["Revenue in 2020?"]  # refused before the engine ran
    code, _, err = run_main(
        monkeypatch, capsys, "ask", str(output), "Again?", "--sheet", "Data", "--range", "A3:D6",
        "--answer-cell", "Other!F1", "--in-place", "--overwrite",
    )  # fmt: skip
    assert code == 0, err
    wb = openpyxl.load_workbook(output)
    assert wb[LOG_SHEET].max_row == 3 and RECORD_SHEET in wb.sheetnames
    assert wb[LOG_SHEET]["G3"].hyperlink.location == "Data!C4"  # evidence links to the answer cell
    assert "Engine: offline" in wb["Data"]["C4"].comment.text.splitlines()
    # clear removes the written answer too (the cell was empty before celltrace wrote it)
    code, _, err = run_main(monkeypatch, capsys, "clear", str(output), "--in-place")
    assert code == 0, err
    wb = openpyxl.load_workbook(output)
    assert wb["Other"]["F1"].value is None and RECORD_SHEET not in wb.sheetnames


def test_clear_restores_an_overwritten_value_and_keeps_later_edits(book, asked, monkeypatch, capsys) -> None:
    wb = openpyxl.load_workbook(book)
    wb["Other"]["F1"], wb["Other"]["F2"] = "=1+1", "kept"
    wb.save(book)
    for cell in ("F1", "F2"):
        code, _, err = run_main(
            monkeypatch, capsys, "ask", str(book), "Revenue?", "--sheet", "Data", "--range", "A3:D6",
            "--answer-cell", f"Other!{cell}", "--overwrite", "--out", str(book.with_name(f"{cell}.xlsx")),
        )  # fmt: skip
        assert code == 0, err
    edited = openpyxl.load_workbook(book.with_name("F2.xlsx"))
    edited["Other"]["F2"] = "edited after celltrace"
    edited.save(book.with_name("F2.xlsx"))
    for cell, expected in (("F1", "=1+1"), ("F2", "edited after celltrace")):
        path = book.with_name(f"{cell}.xlsx")
        code, _, err = run_main(monkeypatch, capsys, "clear", str(path), "--in-place")
        assert code == 0, err
        assert openpyxl.load_workbook(path)["Other"][cell].value == expected


def test_no_output_flags_write_nothing(book, asked, monkeypatch, capsys) -> None:
    code, out, _ = run_main(monkeypatch, capsys, "ask", str(book), "Revenue?", "--sheet", "Data", "--json")
    assert code == 0 and "output" not in json.loads(out)
    assert sorted(p.name for p in book.parent.iterdir()) == ["book.xlsx"]


def test_out_path_errors(book, asked, monkeypatch, capsys, tmp_path) -> None:
    (tmp_path / "~$busy.xlsx").write_bytes(b"")
    code, _, err = run_main(
        monkeypatch,
        capsys,
        "ask",
        str(book),
        "Revenue?",
        "--sheet",
        "Data",
        "--out",
        str(tmp_path / "busy.xlsx"),
    )
    assert code == 2 and "busy.xlsx is open in Excel" in err and asked == []


def test_a_numeric_answer_cell_is_a_number_in_the_source_format(book, monkeypatch, capsys) -> None:
    def fake(table, question, engine="auto", settings=None, on_step=None):
        result = answered(*EVIDENCE, answer="$1,120.25")
        return result.model_copy(update={"question": question, "value": 1120.25})

    monkeypatch.setattr(api, "answer_question", fake)
    code, _, err = run_main(
        monkeypatch, capsys, "ask", str(book), "Revenue?", "--sheet", "Data", "--range", "A3:D6",
        "--answer-cell", "Other!F1",
    )  # fmt: skip
    assert code == 0, err
    cell = openpyxl.load_workbook(book.with_name("book.celltrace.xlsx"))["Other"]["F1"]
    assert (cell.value, cell.data_type, cell.number_format) == (1120.25, "n", '"$"#,##0.00')


def test_a_second_answer_keeps_the_first_answer_cell_and_clear_removes_both(
    book, asked, monkeypatch, capsys
) -> None:
    output = book.with_name("book.celltrace.xlsx")
    for cell, where in (("F1", ["--out", str(output)]), ("F2", ["--in-place"])):
        target = output if where[0] == "--in-place" else book
        code, _, err = run_main(
            monkeypatch, capsys, "ask", str(target), "Revenue?", "--sheet", "Data", "--range", "A3:D6",
            "--answer-cell", f"Other!{cell}", *where,
        )  # fmt: skip
        assert code == 0, err
    other = openpyxl.load_workbook(output)["Other"]
    assert other["F1"].value == other["F2"].value == "120.25"  # a new answer replaces highlights only
    code, _, err = run_main(monkeypatch, capsys, "clear", str(output), "--in-place")
    assert code == 0, err
    other = openpyxl.load_workbook(output)["Other"]
    assert other["F1"].value is None and other["F2"].value is None
