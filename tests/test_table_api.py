"""The program-facing table API (prelude), program extraction and one sandbox round trip."""

from __future__ import annotations

from typing import Any

import pytest

from celltrace.server.infra.sandbox_child import describe_error
from celltrace.server.infra.settings import Settings
from celltrace.server.longform.reasoner import (
    ProgramError,
    TableContext,
    execute,
    extract_program,
    table_payload,
)
from celltrace.server.longform.table_api import (
    Cell,
    Number,
    TableView,
    cite,
    numbers_in,
    sandbox_call,
    sandbox_export,
    to_number,
)
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

ROWS = [
    ["", "Revenue", "", "Profit", ""],
    ["Company", "2016", "2017", "2016", "2017"],
    ["Retail", "", "", "", ""],
    ["Walmart", "485,873", "500,343", "13,643", "(9,862)"],
    ["Amazon", "135,987", "177,866", "2,371", "3,033"],
    ["Energy", "", "", "", ""],
    ["Sinopec", "$5,813", "24.5%", "n/a", "1,234.5"],
]
MERGES = [(0, 1, 0, 2), (0, 3, 0, 4)]


def _table() -> Table:
    return Table(text=[list(r) for r in ROWS], merges=list(MERGES), title="Top companies")


def _payload() -> dict[str, Any]:
    graph = CellGraph(_table())
    return table_payload(graph, infer_headers(graph))


@pytest.fixture
def view() -> TableView:
    return TableView(_payload())


def test_merged_headers_give_flattened_column_labels(view: TableView) -> None:
    assert (view.header_rows, view.header_cols) == (2, 1)
    assert view.columns == ["Company", "Revenue > 2016", "Revenue > 2017", "Profit > 2016", "Profit > 2017"]
    assert view.section_rows == [2, 5]
    assert view.data_rows == [3, 4, 6]
    anchor = view.cell(0, 2)
    assert anchor == "Revenue" and (anchor.r, anchor.c, anchor.r1, anchor.c1) == (0, 1, 0, 2)
    assert view.merges == MERGES


def test_header_paths_of_data_cells(view: TableView) -> None:
    cell = view.lookup("Amazon", "Profit > 2016")
    assert cell == "2,371" and (cell.r, cell.c) == (4, 3)
    assert cell.row_path == ["Retail", "Amazon"]
    assert cell.col_path == ["Profit", "2016"]
    assert cell.path == "Retail > Amazon | Profit > 2016"
    assert not cell.is_header and view.cell(1, 2).is_header
    assert view.lookup("Sinopec", "profit 2017".replace(" ", " > ")) == "1,234.5"
    assert view.row("Sinopec").label == "Energy > Sinopec"


def test_records_are_keyed_by_header_path_with_forgiving_lookup(view: TableView) -> None:
    records = view.records()
    assert [r.row for r in records] == [3, 4, 6]
    walmart = records[0]
    assert walmart["Revenue > 2017"] == "500,343"
    assert walmart["  revenue >   2017 "] == "500,343"  # case and spacing
    assert walmart["2016"] == "485,873"  # last header level: the first column with it
    assert walmart["Profit > 2017"] == walmart[4] == "(9,862)"
    assert walmart.get("Missing") is None
    with pytest.raises(KeyError, match="no column matches 'Missing'; columns: \\['Company'"):
        walmart["Missing"]
    assert [c.c for c in walmart.cells] == [0, 1, 2, 3, 4]
    assert view.column("Profit > 2016") == ["13,643", "2,371", "n/a"]
    assert view.col_index("profit > 2017") == 4
    with pytest.raises(KeyError):
        view.col_index("Employees")


def test_find_search_and_row_lookup(view: TableView) -> None:
    assert [(c.r, c.c) for c in view.find("  AMAZON ")] == [(4, 0)]
    assert [str(c) for c in view.search("ma")] == ["Walmart", "Amazon"]
    assert view.row_index("Amazon") == 4
    assert view.row_index("500,343") == 3  # a cell of the row
    assert view.row_index("Energy") == 6  # the data row under that section label
    with pytest.raises(KeyError):
        view.row_index("Toyota")


def test_figure4_dict_form(view: TableView) -> None:
    assert view["title"] == "Top companies"
    assert view["header"] == view.columns
    rows = view["rows"]
    assert rows[1][view["header"].index("Revenue > 2016")] == "135,987"
    with pytest.raises(KeyError):
        view["cells"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("(7.8)", -7.8), ("$5,813", 5813.0), ("24.5%", 24.5), ("1,234.5", 1234.5), ("−3", -3.0), ("n/a", None),
     ("Ut , 57 - 23", None), ("", None)],
)
def test_to_number(text: str, expected: float | None) -> None:
    assert to_number(text) == expected
    assert to_number(text, default=0) == (0 if expected is None else expected)


def test_to_number_of_cells_prefers_the_displayed_text() -> None:
    cell = Cell("24.5%", 1, 1, 1, 1, value=0.245)
    assert to_number(cell) == 24.5
    assert to_number(Cell("", 1, 2, 1, 2, value=7)) == 7.0
    assert to_number(True) is None and to_number(None, 1) == 1
    assert numbers_in("Ut , 57 - 23") == [57.0, 23.0]
    assert numbers_in("3rd of 12") == [12.0]


def _run(fn: Any) -> dict[str, Any]:
    """What the sandbox child does with the prelude: call, export, or describe the error."""
    try:
        return {"ok": True, **sandbox_export(sandbox_call(fn, _payload()))}
    except Exception as exc:
        return {"ok": False, "error": describe_error(exc)}


def test_values_carry_their_cells_through_arithmetic() -> None:
    def best(table: TableView) -> Any:
        return max(table.column("Profit > 2016"), key=lambda c: to_number(c, -1))

    assert _run(best) == {"ok": True, "value": "13,643", "cells": [[3, 3]]}

    def total(table: TableView) -> Any:
        values = [to_number(c) for c in table.column("Revenue > 2017")]
        return round(sum(values[:2]) / 2, 1)

    out = _run(total)
    assert out["value"] == 339104.5 and out["cells"] == [[3, 2], [4, 2]]

    def growth(table: TableView) -> Any:
        row = table.row("Amazon")
        return {"company": row["Company"], "growth": -(to_number(row["2017"]) - to_number(row["2016"]))}

    out = _run(growth)
    assert out["value"] == {"company": "Amazon", "growth": -41879}
    assert out["cells"] == [[4, 0], [4, 1], [4, 2]]


def test_plain_results_need_cite() -> None:
    def count(table: TableView) -> Any:
        losses = [r for r in table.records() if to_number(r["Profit > 2017"], 0) < 0]
        cite([r["Profit > 2017"] for r in losses])
        return len(losses)

    assert _run(count) == {"ok": True, "value": 1, "cells": [[3, 4]]}

    def uncited(table: TableView) -> Any:
        return f"{table.row('Walmart')['Company']} leads"  # formatting drops the cell

    assert _run(uncited)["cells"] == []

    def whole_row(table: TableView) -> Any:
        return table.record(5)  # a section label row: its empty cells are no evidence

    assert _run(whole_row)["cells"] == [[5, 0]]


def test_number_is_a_float_and_round_without_digits_is_an_int() -> None:
    n = to_number(Cell("2.6", 0, 0, 0, 0))
    assert isinstance(n, Number) and isinstance(n, float)
    assert isinstance(round(n), int) and round(n) == 3
    assert isinstance(1 + n, Number) and isinstance(n * 2.0, Number) and isinstance(abs(-n), Number)
    assert n < 3 and sorted([n, Number(1.0)])[0] == 1.0


def test_program_errors_are_reported_not_raised() -> None:
    def broken(table: TableView) -> Any:
        return table.records()[0]["Employees"]

    out = _run(broken)
    assert out["ok"] is False and out["error"].startswith("KeyError: no column matches 'Employees'")

    def returns_table(table: TableView) -> Any:
        return table

    assert _run(returns_table)["error"] == "ValueError: return the answer, not the table"


# ---- extraction -------------------------------------------------------------------------------------
def test_extract_picks_solve_keeps_helpers_and_drops_example_calls() -> None:
    reply = (
        "Sure.\n```python\nimport re\n\nLIMIT = 3\nWORD = re.compile('x')\n\n"
        "def helper(x):\n    return x\n```\n"
        "and\n```\ndef solve(table):\n    return helper(table.title)\n\ndef later():\n    return 1\n\n"
        "print(solve(table))\nresult = solve(table)\nif __name__ == '__main__':\n    solve(None)\n```"
    )
    source, name = extract_program(reply)
    assert name == "solve"
    assert "import re" in source and "LIMIT = 3" in source and "def helper" in source
    assert "WORD = re.compile('x')" in source
    assert "print(" not in source and "result =" not in source and "__main__" not in source


def test_extract_fence_forms() -> None:
    assert extract_program("```python\ndef f(table):\n    return 1```")[1] == "f"  # close on the line
    assert extract_program("```py\ndef a(t):\n    return 1\ndef b(t):\n    return 2\n")[1] == "b"  # unclosed
    assert extract_program("Here it is:\ndef g(table):\n    return 2\n")[1] == "g"  # no fence
    with pytest.raises(ProgramError, match="SyntaxError"):
        extract_program("```python\ndef solve(table)\n    return 1\n```")
    with pytest.raises(ProgramError, match="no Python function"):
        extract_program("The answer is 42.")


# ---- the sandbox round trip -----------------------------------------------------------------------
def test_program_runs_in_the_sandbox_with_the_prelude() -> None:
    ctx = TableContext.build(_table(), Settings())
    source, name = extract_program(
        "```python\nfrom statistics import median\n\n"
        "def _rev(rec):\n    return to_number(rec['Revenue > 2016'])\n\n"
        "def solve(table):\n    best = max(table.records(), key=_rev)\n"
        "    return {'company': best['Company'], 'revenue': _rev(best), 'median': median([1, 3])}\n```"
    )
    run = execute(ctx, source, name, Settings())
    assert run.ok, run.error
    assert run.output == {"company": "Walmart", "revenue": 485873, "median": 2}
    assert run.cells == [(3, 0), (3, 1)]

    failing = "def solve(table):\n    rows = table.records()\n    return rows[0]['Employees']\n"
    run = execute(ctx, failing, "solve", Settings())
    assert not run.ok and run.error.startswith("KeyError: no column matches 'Employees'")
    assert run.traceback == "  line 3, in solve\n    return rows[0]['Employees']"
