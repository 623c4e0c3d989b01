"""A complement named by exclusion: the whole less the excluded line."""

from __future__ import annotations

from celltrace.server.offline.solver import solve
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

GEOGRAPHY = Table(text=[
    ["", "2024", "2023"], ["Revenue by geographic area:", "", ""], ["Americas:", "", ""],
    ["  United States", "$6,842", "$6,310"], ["  Other Americas", "812", "760"],
    ["Total Americas", "7,654", "7,070"], ["Europe", "3,410", "3,120"], ["Asia Pacific", "2,507", "2,240"],
    ["Total revenue", "$13,571", "$12,430"],
])


def _solve(table: Table, question: str):
    graph = CellGraph(table)
    return solve(question, graph, infer_headers(graph), None)


def test_outside_a_line_is_the_table_total_less_it() -> None:
    plan = _solve(GEOGRAPHY, "How much revenue came from outside the United States in 2024?")
    assert (plan.operation, plan.answer) == ("diff", ["$6,729"])


def test_other_than_a_line_is_the_total_less_it() -> None:
    plan = _solve(GEOGRAPHY, "What was revenue from regions other than Europe in 2023?")
    assert plan.computed is not None and plan.computed.value == 9310


def test_a_label_that_says_the_exclusion_is_looked_up() -> None:
    """`Outside Canada` is a line of its own: it is read, nothing is subtracted."""
    table = Table(text=[["", "2023"], ["Canada", "8,120"], ["Outside Canada", "3,410"],
                        ["Total revenue", "11,530"]])
    plan = _solve(table, "How much revenue came from outside Canada in 2023?")
    assert (plan.operation, plan.answer) == ("lookup", ["3,410"])


def test_a_which_question_naming_an_exclusion_asks_no_arithmetic() -> None:
    plan = _solve(GEOGRAPHY, "Which region had more revenue in 2024, Europe or the regions outside Europe?")
    assert plan.operation != "diff"
