"""`celltrace batch` end to end: 50 questions over a HiTab dev table in a sheet, answers and evidence
beside them, broken questions as #ERROR rows, per-question isolation, highlights, bad input."""

from __future__ import annotations

import collections
import json
import sys
import threading
from pathlib import Path

import openpyxl
import pytest

from celltrace.server.cli import main
from celltrace.server.commands import batch_cmd
from celltrace.server.evaluation.devdata import dev_data_dir
from celltrace.shared.restore import RECORD_SHEET
from celltrace.shared.schemas import AskResult, EvidenceCell
from celltrace.shared.xlsx_write import LOG_SHEET

DATA = dev_data_dir() / "hitab_dev.jsonl"
BROKEN = {5: "   ", 17: "\t\r\n", 33: "how many " * 1_200}  # row offset → question (10,800 characters)
N = 50
GREY = "FFD9D9D9"  # Colours().guess


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str):
    monkeypatch.setattr(sys, "argv", ["celltrace", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def hitab_table() -> tuple[dict, list[str]]:
    """The HiTab dev table with the most questions, and its questions."""
    if not DATA.exists():
        pytest.skip(f"{DATA} not available")
    records = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    by_table = collections.defaultdict(list)
    for record in records:
        by_table[json.dumps(record["table"], sort_keys=True)].append(record["question"])
    key, questions = max(by_table.items(), key=lambda kv: len(kv[1]))
    return json.loads(key), questions


def build(path: Path) -> Path:
    """Sheet `Data` holds the table (numbers as numbers, merges kept); sheet `Q` 50 questions in A2:A51."""
    table, questions = hitab_table()
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for r, row in enumerate(table["cells"], 1):
        for c, text in enumerate(row, 1):
            try:
                value: object = float(text.replace(",", "")) if text else None
            except ValueError:
                value = text
            if value is not None:
                ws.cell(r, c, value)
    for r0, c0, r1, c1 in table["merges"]:
        ws.merge_cells(start_row=r0 + 1, start_column=c0 + 1, end_row=r1 + 1, end_column=c1 + 1)
    q = wb.create_sheet("Q")
    q["A1"], q["B1"], q["C1"] = "question", "answer", "evidence"
    for i in range(N):
        q.cell(i + 2, 1, BROKEN.get(i, questions[i % len(questions)]))
    wb.save(path)
    return path


def fake_answer(table, question: str, engine: str) -> AskResult:
    """Answers with its own question (to check row alignment); B4 answer, A4 and A3 (covered by
    the merged A1:A3) headers."""
    if question == "explode":
        raise RuntimeError("engine crashed")
    return AskResult(
        question=question,
        status="answered",
        engine="offline",
        answer=[f"A: {question}"],
        evidence=[
            EvidenceCell(sheet=table.sheet, address="B4", rows=[3], cols=[1], text="", role="answer"),
            EvidenceCell(sheet=table.sheet, address="A4", rows=[3], cols=[0], text="", role="header"),
            EvidenceCell(sheet=table.sheet, address="A3", rows=[2], cols=[0], text="", role="header"),
        ],
    )


@pytest.fixture
def book(tmp_path: Path) -> Path:
    return build(tmp_path / "hitab.xlsx")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    lock = threading.Lock()

    def answer(table, question, engine):
        with lock:
            seen.append(question)
        return fake_answer(table, question, engine)

    monkeypatch.setattr(batch_cmd, "_answer", answer)
    return seen


def column(path: Path, sheet: str, col: str) -> list:
    ws = openpyxl.load_workbook(path)[sheet]
    return [ws[f"{col}{r}"].value for r in range(2, N + 2)]


def test_fifty_questions_with_three_broken(book, fake, monkeypatch, capsys) -> None:
    # an LLM engine runs on threads, so the monkeypatched fake answers
    code, out, err = run_main(
        monkeypatch, capsys, "batch", str(book), "--sheet", "Data", "--questions", "Q!A2:A200",
        "--engine", "llm", "--workers", "4", "--json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert {k: summary[k] for k in ("n", "answered", "abstained", "failed")} == {
        "n": 50, "answered": 47, "abstained": 0, "failed": 3
    }  # fmt: skip
    output = Path(summary["output"])
    assert output == book.with_name("hitab.celltrace.xlsx") and summary["seconds"] >= 0
    assert "celltrace batch" in err  # the progress bar is on stderr
    questions, answers, evidence = (column(output, "Q", c) for c in "ABC")
    for i, (q, a, e) in enumerate(zip(questions, answers, evidence, strict=True)):
        if i in BROKEN:
            assert a.startswith("#ERROR: ") and e is None
        else:
            assert a == f"A: {q.strip()}" and e == "B4 (headers: A4, A3)"
    assert answers[5] == answers[17] == "#ERROR: empty question"
    assert answers[33] == "#ERROR: question longer than 2000 characters (10799)"
    assert len(fake) == 47
    wb = openpyxl.load_workbook(output)
    log = list(wb[LOG_SHEET].iter_rows(values_only=True))
    assert len(log) == 1 + 50 and [row[5] for row in log[1:]].count("failed") == 3
    assert RECORD_SHEET not in wb.sheetnames  # --highlight none (the default) touches no fills
    assert wb["Data"]["B4"].fill.fill_type is None


def test_engine_exceptions_are_isolated_and_highlights(book, fake, monkeypatch, capsys) -> None:
    wb = openpyxl.load_workbook(book)
    wb["Q"]["A10"] = "explode"
    wb.save(book)
    out = book.with_name("answers.xlsx")
    # one worker: in this process, where the fake is patched in
    code, stdout, err = run_main(
        monkeypatch, capsys, "batch", str(book), "--sheet", "Data", "--questions", "Q!A2:A51",
        "--answers", "Q!E2", "--evidence", "Q!G2", "--highlight", "last", "--out", str(out), "--json",
        "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(stdout)["failed"] == 4
    ws = openpyxl.load_workbook(out)["Q"]
    assert ws["E10"].value == "#ERROR: RuntimeError: engine crashed"
    assert ws["E11"].value.startswith("A: ") and ws["G11"].value == "B4 (headers: A4, A3)"
    assert ws["B11"].value is None and ws["F11"].value is None
    data = openpyxl.load_workbook(out)["Data"]
    assert data["B4"].fill.fgColor.rgb == "FFFFD966" and data["A4"].fill.fgColor.rgb == "FFFFF2CC"
    assert data["A1"].fill.fgColor.rgb == "FFFFF2CC"  # A3 lies in the merged A1:A3: the area is filled
    assert data["B4"].comment.text.startswith("celltrace\nQ: ")
    # answering again into the same cells needs --overwrite; with it the run replaces them
    code, _, err = run_main(
        monkeypatch, capsys, "batch", str(out), "--sheet", "Data", "--questions", "Q!A2:A51",
        "--answers", "Q!E2", "--in-place",
    )  # fmt: skip
    assert code == 2 and "answer cell Q!E2 is not empty; use --overwrite" in err
    code, _, err = run_main(
        monkeypatch, capsys, "batch", str(out), "--sheet", "Data", "--questions", "Q!A2:A51",
        "--answers", "Q!E2", "--evidence", "Q!G2", "--in-place", "--overwrite", "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    assert openpyxl.load_workbook(out)["Data"]["B4"].fill.fgColor.rgb == "FFFFD966"  # none: left alone


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--questions", "Q!A2:A2000000"], "outside the sheet"),
        (["--questions", "Q!A2:B20"], "must be a single column"),
        (["--questions", "Q!A100:A200"], "no questions in Q!A100:A200"),
        (["--questions", "Nope!A2:A5"], "no worksheet named 'Nope'"),
        (["--questions", "Q!A2:A51", "--answers", "Q!A2"], "answer cell Q!A2 is not empty"),
        (["--questions", "Q!A2:A51", "--out", "/nonexistent/x.xlsx"], "output folder does not exist"),
    ],
)
def test_bad_input_is_one_line_and_leaves_no_file(book, fake, monkeypatch, capsys, args, message) -> None:
    code, out, err = run_main(monkeypatch, capsys, "batch", str(book), "--sheet", "Data", *args)
    assert code == 2 and out == ""
    assert err.startswith("celltrace: error: ") and message in err and err.count("\n") == 1
    assert sorted(p.name for p in book.parent.iterdir()) == ["hitab.xlsx"]
    assert fake == []  # refused before any question was asked


def test_offline_engine_end_to_end(book, monkeypatch, capsys) -> None:
    # lexical retrieval only: the embedding tier (tests/test_retrieval.py) would load the model in
    # each worker process, two thirds of this test's time
    monkeypatch.setenv("CELLTRACE_DENSE_RETRIEVAL", "false")
    code, out, err = run_main(
        monkeypatch, capsys, "batch", str(book), "--sheet", "Data", "--questions", "Q!A2:A51",
        "--engine", "offline", "--workers", "2", "--json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert summary["n"] == 50 and summary["failed"] >= 3
    assert summary["answered"] + summary["abstained"] + summary["failed"] == 50
    answers = column(Path(summary["output"]), "Q", "B")
    assert all(a not in (None, "") for a in answers)
    assert all(answers[i].startswith("#ERROR") for i in BROKEN)


def test_highlight_all_gives_each_question_a_colour_and_a_legend(book, monkeypatch, capsys) -> None:
    def answer(table, question, engine):  # question i answers from cell B(4+i): evidence never shared
        i = int(question.split()[-1])
        cell = EvidenceCell(
            sheet=table.sheet, address=f"B{4 + i}", rows=[3 + i], cols=[1], text="", role="answer"
        )
        status = "abstained" if i == 3 else "answered"  # question 3: a low-confidence best guess
        return AskResult(
            question=question, status=status, engine="offline", answer=["x"], evidence=[cell], confidence=0.3
        )

    monkeypatch.setattr(batch_cmd, "_answer", answer)
    wb = openpyxl.load_workbook(book)
    for i in range(4):
        wb["Q"].cell(i + 2, 1, f"question {i}")
    wb.save(book)
    code, out, err = run_main(
        monkeypatch, capsys, "batch", str(book), "--sheet", "Data", "--questions", "Q!A2:A5",
        "--highlight", "all",
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("Answers") and "Q!A2" in out  # a human table by default
    result = openpyxl.load_workbook(book.with_name("hitab.celltrace.xlsx"))
    fills = [result["Data"][f"B{4 + i}"].fill.fgColor.rgb for i in range(4)]
    assert len(set(fills[:3])) == 3 and fills[3] == "FFD9D9D9"  # the best guess in the muted grey
    assert GREY not in fills[:3]
    assert result["Q"]["B5"].value.startswith("#ABSTAINED (best guess: x)")
    assert result["Q"]["B5"].fill.fgColor.rgb == GREY and result["Q"]["B2"].fill.fill_type is None
    log = result[LOG_SHEET]
    columns = [c.value for c in log[1]]
    q_col, e_col = columns.index("question") + 1, columns.index("evidence") + 1
    assert [log.cell(r, q_col).fill.fgColor.rgb for r in (2, 3, 4, 5)] == fills  # the legend
    assert log.cell(1, q_col).comment is not None
    links = [log.cell(r, e_col).hyperlink.location for r in (2, 3, 4, 5)]
    assert links == ["Data!B4", "Data!B5", "Data!B6", "Data!B7"]


def test_llm_questions_are_answered_eight_at_once_by_default(book, monkeypatch, capsys) -> None:
    barrier = threading.Barrier(8, timeout=10)  # broken (an error answer) unless 8 run together

    def answer(table, question, engine):
        barrier.wait()
        return fake_answer(table, question, engine)

    monkeypatch.setattr(batch_cmd, "_answer", answer)
    monkeypatch.setenv("CELLTRACE_MODEL", "test-model")
    wb = openpyxl.load_workbook(book)
    for i in range(16):
        wb["Q"].cell(i + 2, 1, f"question {i}")
    wb.save(book)
    code, out, err = run_main(
        monkeypatch, capsys, "batch", str(book), "--sheet", "Data", "--questions", "Q!A2:A17", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["answered"] == 16
