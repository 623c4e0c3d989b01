"""The CLI for people: --version, hints for common mistakes, sheet addresses, --json everywhere."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_clear_cli import run_main

from celltrace.server import __version__
from celltrace.shared.actions import Note, actions_for_answer, note_text
from celltrace.shared.schemas import AskResult, EvidenceCell

ROOT = Path(__file__).resolve().parents[1]
BOOK = str(ROOT / "examples" / "financials.xlsx")


def test_version(monkeypatch, capsys) -> None:
    code, out, _ = run_main(monkeypatch, capsys, "--version")
    assert code == 0 and out == f"celltrace {__version__}\n"


def test_version_imports_no_command() -> None:
    script = (
        "import sys; sys.argv = ['celltrace', '--version']\n"
        "from celltrace.server.cli import main; main()\n"
        "print(sorted(m for m in ('openai', 'celltrace.server.commands.ask_cmd') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == f"celltrace {__version__}\n[]\n"


def test_swapped_arguments_say_so(monkeypatch, capsys) -> None:
    code, out, err = run_main(monkeypatch, capsys, "ask", "What was net income in 2017?", BOOK)
    assert code == 2 and out == ""
    assert "arguments look swapped" in err and err.count("\n") == 1
    code, _, err = run_main(monkeypatch, capsys, "ask", "What was net income in 2017?", "x")
    assert code == 2 and "looks like a question" in err


def test_question_about_another_sheet_is_answered_there(monkeypatch, capsys) -> None:
    code, out, err = run_main(
        monkeypatch, capsys, "ask", BOOK, "What were available seat miles in 2016?", "--engine", "offline"
    )
    assert code == 0, err
    assert "answering from sheet 'Statistics'" in err and "add --sheet Operations" in err
    assert "Table: Statistics!" in out
    # with --sheet the user's choice stands and no hint is given
    code, out, err = run_main(
        monkeypatch, capsys, "ask", BOOK, "What were available seat miles in 2016?", "--sheet", "Operations",
        "--engine", "offline",
    )  # fmt: skip
    assert code == 0 and "hint" not in err and "Table: Operations!" in out


def _two_sheets(path: Path) -> Path:
    """Emissions by sector (the active sheet: its title, a header naming `Dec 31, 2024`) and by gas."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "By sector"
    ws.append(["Greenhouse gas emissions by sector (kt CO2 eq)"])
    ws.append([])
    ws.append(["Sector", "Dec 31, 2023", "Dec 31, 2024"])
    ws.append(["Energy", 120, 115])
    ws.append(["Transport", 42, 41])
    gas = wb.create_sheet("By gas")
    gas.append(["Greenhouse gas emissions by gas (kt CO2 eq), December 31"])
    gas.append([])
    gas.append(["Gas", "2023", "2024"])
    gas.append(["Carbon dioxide", 140, 133])
    gas.append(["Methane", 22, 23])
    wb.save(path)
    return path


def test_the_active_sheet_keeps_a_question_its_whole_text_matches(monkeypatch, capsys, tmp_path) -> None:
    """Sheets are compared by all their text, titles included (the active sheet's too), a month by
    its first three letters: no other sheet matches better, so no hint."""
    book = str(_two_sheets(tmp_path / "two.xlsx"))
    for question in ("What were transport emissions at December 31, 2024, in kt CO2e?",
                     "What were energy emissions in kt CO2 eq at Dec 31, 2023?"):
        code, out, err = run_main(monkeypatch, capsys, "ask", book, question, "--engine", "offline", "--json")
        assert code == 0 and "hint" not in err, err
        assert json.loads(out)["evidence"][0]["sheet"] == "By sector"


def test_a_notes_sheet_is_never_the_better_sheet(monkeypatch, capsys, tmp_path) -> None:
    """A sheet of notes shares more of the question's words (`Payroll jobs in Alberta … August
    2024`) but shows no figures: the table is answered, without a hint."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Payrolls"
    ws.append(["Payroll employees by province"])
    ws.append([])
    ws.append(["Province", "July 2024", "August 2024"])
    ws.append(["Alberta", 2139660, 2145870])
    ws.append(["Quebec", 3956210, 3961880])
    notes = wb.create_sheet("Notes")
    notes.append(["1. Payroll jobs in Alberta and other provinces are counted by employer in August 2024."])
    book = str(tmp_path / "notes.xlsx")
    wb.save(book)
    code, out, err = run_main(monkeypatch, capsys, "ask", book, "How many payroll jobs did Alberta have in "
                              "August 2024?", "--engine", "offline", "--json")
    assert code == 0 and "hint" not in err, err
    data = json.loads(out)
    assert data["evidence"][0]["sheet"] == "Payrolls" and data["answer"] == ["2145870"]


def test_range_past_the_used_range_is_reported(monkeypatch, capsys) -> None:
    code, out, err = run_main(
        monkeypatch, capsys, "ask", BOOK, "What was cargo revenue in 2016?", "--range", "A1:ZZ99999",
        "--engine", "offline", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)  # stdout stays pure JSON; the warning is in it
    assert data["status"] in ("answered", "abstained") and data["answer"]
    assert any("range A1:ZZ99999 extends past the last used cell" in w for w in data["warnings"])


def test_text_output_uses_sheet_addresses(monkeypatch, capsys) -> None:
    code, out, err = run_main(
        monkeypatch, capsys, "ask", BOOK, "What was cargo revenue in 2016?", "--engine", "offline"
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(("Answer: ", "Best guess (low confidence): "))
    assert "  1. VisitNode Operations!" in out and "(4, 0," not in out and "(5, 1," not in out


def test_doctor_json(monkeypatch, capsys) -> None:
    monkeypatch.setenv("CELLTRACE_DENSE_RETRIEVAL", "false")
    code, out, err = run_main(monkeypatch, capsys, "doctor", "--json")
    data = json.loads(out)
    assert code == 0, err
    assert data["celltrace"] == __version__ and data["ok"] is True and "sandbox isolation" in data


def test_note_names_unit_confidence_and_engine() -> None:
    result = AskResult(
        question="Net income 2017?", status="answered", engine="offline", answer=["1,234"], value=1234.0,
        unit="$ millions", confidence=0.8234,
        evidence=[EvidenceCell(sheet="P&L", address="C9", rows=[8], cols=[2], text="1,234", role="answer")],
    )  # fmt: skip
    (note,) = [a for a in actions_for_answer(result) if isinstance(a, Note)]
    lines = note.text.splitlines()
    assert "A: 1,234 ($ millions)" in lines and "Engine: offline · confidence 0.82" in lines
    assert "Engine: llm" in note_text("q", "a", "llm").splitlines()


def test_years_a_question_says_count_for_its_sheet(monkeypatch, capsys, tmp_path) -> None:
    """Years are words a question says (headers stored as numbers too): a sheet of weights sharing
    `percent` and `total` with the question is no better than the indexes over 2019 to 2024."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Annual average"
    ws.append(["Consumer Price Index, annual average (2002=100)"])
    ws.append([])
    ws.append(["Geography", 2019, 2020, 2024])
    ws.append(["Canada", 136.0, 137.0, 160.9])
    ws.append(["Quebec", 133.4, 134.4, 157.4])
    weights = wb.create_sheet("Basket weights")
    weights.append(["Units: percent of total household expenditure"])
    weights.append([])
    weights.append(["Geography", "Food", "Shelter"])
    weights.append(["Canada", 16.13, 29.44])
    weights.append(["Quebec", 17.44, 27.58])
    book = str(tmp_path / "cpi.xlsx")
    wb.save(book)
    code, out, err = run_main(monkeypatch, capsys, "ask", book, "By what percentage did Quebec's CPI rise in "
                              "total from 2019 to 2024?", "--engine", "offline", "--json")
    assert code == 0 and "hint" not in err, err
    assert json.loads(out)["evidence"][0]["sheet"] == "Annual average"
