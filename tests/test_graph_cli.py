"""`celltrace graph` end to end: JSON contract on the example workbook, summary, one-line errors."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from celltrace.server.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "financials.xlsx"


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str):
    """Run the console entry point in-process; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["celltrace", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract_on_the_example(monkeypatch, capsys) -> None:
    code, out, _ = run_main(monkeypatch, capsys, "graph", str(EXAMPLE), "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["sheet", "range", "nodes", "edges", "warnings", "region"]
    # no range given: the title and unit lines above the statement are its caption, not its grid
    assert (data["sheet"], data["range"], data["region"]) == ("Operations", "A3:H28", "Operations!A3:H28")
    assert data["warnings"] == [
        "no range given: detected the table at Operations!A3:H28 (title lines above kept as the caption)"
    ]
    assert list(data["nodes"][0]) == ["id", "rows", "cols", "address", "text", "value", "empty"]
    by_text = {n["text"]: n for n in data["nodes"]}
    header = by_text["Year ended December 31"]
    assert (header["rows"], header["cols"], header["address"]) == ([0], [2, 3, 4], "C3:E3")
    assert by_text["Operating revenues"]["rows"] == [2, 3, 4, 5]
    passenger = next(n for n in data["nodes"] if n["address"] == "C5")
    assert (passenger["text"], passenger["value"], passenger["empty"]) == ("$38,722", 38722, False)
    assert any(n["text"].startswith("(") for n in data["nodes"])  # negatives in parentheses
    edges = data["edges"]
    assert all(e["a"] < e["b"] and e["relation"] in ("same_row", "same_column") for e in edges)
    assert len({(e["a"], e["b"]) for e in edges}) == len(edges)


def test_max_edges_and_selection_options(monkeypatch, capsys) -> None:
    code, out, _ = run_main(
        monkeypatch, capsys, "graph", str(EXAMPLE), "--sheet", "Statistics", "--range", "A2:D5", "--json",
        "--max-edges", "3",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["sheet"] == "Statistics" and data["range"] == "A2:D5"
    assert data["edges"] is None and "edges omitted" in data["warnings"][-1]


def test_summary(monkeypatch, capsys) -> None:
    code, out, _ = run_main(monkeypatch, capsys, "graph", str(EXAMPLE))
    assert code == 0
    assert out.startswith("financials.xlsx · Operations!A3:H28: 26 rows × 8 columns")
    assert "merged areas: A3:B4" in out and "C3:E3 'Year ended December 31'" in out
    assert "warning: no range given: detected the table at Operations!A3:H28" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.xlsx"], "no such file"),
        ([str(EXAMPLE), "--sheet", "Nope"], "no sheet named 'Nope'"),
        ([str(EXAMPLE), "--range", "A1:B"], "malformed range"),
        ([str(EXAMPLE), "--name", "Nope"], "no defined name"),
        ([str(EXAMPLE), "--table", "Nope"], "no Excel table"),
        ([str(EXAMPLE), "--range", "A1:B2", "--table", "T"], "--range and --table cannot be combined"),
        ([str(EXAMPLE), "--range", "Z900:Z901"], "is empty"),
    ],
)
def test_bad_input_is_one_line_exit_2(monkeypatch, capsys, args: list[str], message: str) -> None:
    code, out, err = run_main(monkeypatch, capsys, "graph", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("celltrace: error: ") and message in err


def test_console_script_on_a_non_workbook(tmp_path: Path) -> None:
    exe = shutil.which("celltrace", path=str(Path(sys.executable).parent))
    assert exe, "the celltrace console script is not installed in this environment"
    bad = tmp_path / "table.csv"
    bad.write_text("a,b\n1,2\n")
    proc = subprocess.run([exe, "graph", str(bad), "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "celltrace: error: table.csv: not an .xlsx/.xlsm workbook\n"


def test_committed_example_matches_its_generator() -> None:
    spec = importlib.util.spec_from_file_location("make_example", EXAMPLE.with_name("make_example.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.build() == EXAMPLE.read_bytes(), "run examples/make_example.py and commit the workbook"
