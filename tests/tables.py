"""Hand-built tables shared by the header-inference and offline-engine tests, and the offline solve
they are asked through."""

from __future__ import annotations

from celltrace.server.infra.retrieval import Retriever
from celltrace.server.offline.grounding import Plan
from celltrace.server.offline.solver import solve
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

STATEMENT_ROWS = [
    ["", "Year Ended December 31", "", ""],
    ["", "2017", "2016", "2015"],
    ["Operating revenue", "", "", ""],
    ["  Passenger", "$31,000", "$29,000", "$27,000"],
    ["  Cargo", "1,234", "1,100", "(7.8)"],
    ["Total operating revenue", "32,234", "30,100", "26,992"],
]
"""A financial statement: a merged year group over three years, an indented revenue section."""

EXPENSE_ROWS = [
    ["Operating expenses", "", "", ""],
    ["  Salaries", "10,000", "9,000", "8,000"],
    ["    Pension", "1,000", "900", "800"],
]


def statement(with_expenses: bool = False) -> Table:
    """The statement table, optionally with a nested expense section below the revenues."""
    rows = STATEMENT_ROWS + (EXPENSE_ROWS if with_expenses else [])
    return Table(text=[list(r) for r in rows], merges=[(0, 1, 0, 3)])


def run(table: Table, question: str) -> tuple[Plan, CellGraph]:
    """The offline engine's plan for `question` on `table` (lexical retrieval only), and its graph."""
    graph = CellGraph(table)
    return solve(question, graph, infer_headers(graph), Retriever(graph, dense=False)), graph
