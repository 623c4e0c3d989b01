"""`celltrace clear` end to end: originals restored, record removed, log kept unless --drop-log."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import openpyxl
import pytest
from test_xlsx_write import EVIDENCE, answered, build_book, snapshot, write

from celltrace.server.cli import main
from celltrace.shared.actions import actions_for_answer, log_entry
from celltrace.shared.restore import RECORD_SHEET
from celltrace.shared.xlsx_write import LOG_SHEET


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str):
    monkeypatch.setattr(sys, "argv", ["celltrace", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def highlighted(tmp_path: Path) -> tuple[Path, dict]:
    book = build_book(tmp_path / "book.xlsx")
    res = answered(*EVIDENCE)
    out = write(book, actions_for_answer(res), log=[log_entry(res, sheet="Data", range_="A1:D6")]).output
    return out, snapshot(book)


def test_clear_to_a_copy(highlighted, monkeypatch, capsys) -> None:
    out, original = highlighted
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    code, stdout, err = run_main(monkeypatch, capsys, "clear", str(out), "--json")
    assert code == 0, err
    report = json.loads(stdout)
    cleared = Path(report["output"])
    assert cleared == out.with_name("book.celltrace.cleared.xlsx")
    assert (report["restored"], report["logs_dropped"]) == (6, 0)
    assert hashlib.sha256(out.read_bytes()).hexdigest() == digest
    assert snapshot(cleared) == original
    assert openpyxl.load_workbook(cleared).sheetnames == ["Data", "Other", LOG_SHEET]


def test_clear_in_place_with_drop_log(highlighted, monkeypatch, capsys) -> None:
    out, original = highlighted
    code, stdout, err = run_main(monkeypatch, capsys, "clear", str(out), "--in-place", "--drop-log", "--json")
    assert code == 0, err
    assert json.loads(stdout) == {"output": str(out), "restored": 6, "logs_dropped": 1, "written": True}
    assert openpyxl.load_workbook(out).sheetnames == ["Data", "Other"]
    assert snapshot(out) == original
    # nothing left to clear: exit 0, says so, writes no file (no *.cleared.cleared.xlsx either)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    code, stdout, err = run_main(
        monkeypatch, capsys, "clear", str(out), "--out", str(out.with_name("again.xlsx"))
    )
    assert code == 0 and "nothing of celltrace's to clear; no file written" in stdout
    assert not out.with_name("again.xlsx").exists()
    code, stdout, err = run_main(monkeypatch, capsys, "clear", str(out), "--in-place", "--json")
    assert code == 0 and json.loads(stdout) == {
        "output": None, "restored": 0, "logs_dropped": 0, "written": False
    }  # fmt: skip
    assert hashlib.sha256(out.read_bytes()).hexdigest() == digest


def test_clear_bad_input(highlighted, monkeypatch, capsys, tmp_path) -> None:
    out, _ = highlighted
    cases = [
        (["--out", str(tmp_path / "x.xlsx"), "--in-place"], "either --out or --in-place"),
        (["--out", str(out)], "would overwrite the input"),
    ]
    for args, message in cases:
        code, stdout, err = run_main(monkeypatch, capsys, "clear", str(out), *args)
        assert code == 2 and stdout == "" and message in err and err.count("\n") == 1
    code, _, err = run_main(monkeypatch, capsys, "clear", str(tmp_path / "missing.xlsx"))
    assert code == 2 and "no such file" in err
    wb = openpyxl.load_workbook(out)
    wb[RECORD_SHEET]["A1"] = "garbage"
    wb.save(out)
    code, _, err = run_main(monkeypatch, capsys, "clear", str(out), "--out", str(tmp_path / "y.xlsx"))
    assert code == 2 and "hidden sheet '_celltrace': the celltrace record has no valid header" in err
    assert not (tmp_path / "y.xlsx").exists()
