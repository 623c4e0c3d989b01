"""Number fragments kept in columns of their own (`$` | `2,979`, `(112` | `)`, `12.5` | `%`)."""

from __future__ import annotations

from celltrace.server.offline.solver import solve
from celltrace.shared.detect import locate
from celltrace.shared.fragments import join_fragments
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

PASTED = Table(
    text=[
        ["", "Year ended December 31", "", "", ""],
        ["", "Fiscal 2019", "", "Fiscal 2018", ""],
        ["Revenues", "$", "24,578", "$", "22,310"],
        ["Cost of revenues", "", "14,120", "", "12,987"],
        ["Other income (expense), net", "", "(112)", "", "48"],
        ["Net income", "$", "2,979", "$", "2,558"],
    ],
    merges=[(0, 1, 0, 4), (1, 1, 1, 2), (1, 3, 1, 4)],
)
"""A statement pasted from HTML: a `$` column before each year's figures, merged year headers."""


def test_signs_join_the_numbers_beside_them() -> None:
    """`)` and `%` may share the column after the figures; `$` meets the whole `(15,678)`."""
    text = [["", "", "2019"], ["Other income", "", "(112", ")"], ["Margin", "", "12.5", "%"],
            ["Revenue", "$", "24,578", ""], ["Net loss", "$", "(15,678", ")"]]
    joined = join_fragments(Table(text=[row + [""] * (4 - len(row)) for row in text]))
    assert [row[1:] for row in joined.text[1:]] == [["", "(112)", ""], ["", "12.5%", ""],
                                                   ["", "$24,578", ""], ["", "$(15,678)", ""]]
    assert joined.values is not None and joined.values[3][1] is None and text[3][1] == "$"  # a new table


def test_a_sign_that_labels_a_column_of_numbers_is_not_a_fragment() -> None:
    """`%` heading a column of figures (a unit label), or beside a year, is left as it is."""
    table = Table(text=[["farm type", "2016", "%"], ["dairy", "1,200", "12.5"], ["grain", "2,900", "30.1"]])
    assert join_fragments(table) is table


def test_a_pasted_statement_reads_its_figures_with_their_currency() -> None:
    table = locate(PASTED, "What were revenues in 2019?")
    assert table.text[2][1:] == ["", "$24,578", "", "$22,310"]
    graph = CellGraph(table)
    headers = infer_headers(graph)
    plan = solve("What were revenues in 2019?", graph, headers, None)
    assert plan.answer == ["$24,578"]  # the `$` column made the Revenues row read as a header row
    plan = solve("What was the net margin in 2019?", graph, headers, None)
    assert plan.answer == ["12.1%"]
    parts = {  # each year's lookup; the `$` column under each year holds no figure to compare
        "How much did revenues increase in fiscal 2019?":
            ["How much did revenues in fiscal 2019?", "How much did revenues in fiscal 2018?"],
        "How much did revenues increase from fiscal 2018 to fiscal 2019?":
            ["How much did revenues in 2019?", "How much did revenues in 2018?"],
    }
    for question, lookups in parts.items():
        plan = solve(question, graph, headers, None)
        assert (plan.operation, plan.answer, plan.parts) == ("diff", ["$2,268"], lookups), question
