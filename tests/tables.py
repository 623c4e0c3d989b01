"""Hand-built tables shared by the header-inference and offline-engine tests."""

from __future__ import annotations

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
