"""Real-layout test workbooks: dataset tables written as people keep them in Excel.

`write_layout` puts a record's table on a sheet the way a statistics office or a filing would: a
title line and a blank row above, sometimes a blank row between the header band and the body, notes
and a source under it, sometimes a second table on the same sheet. Numeric cells are written as
numbers with a number format that displays exactly the dataset's text (cells that cannot round-trip
stay text). `income_statement` writes a 10-K style statement of operations. Nothing here reads a
record's annotations: the layout depends on the table alone (and its position in the file).

`Placement` maps the clean grid's rows and columns to the sheet, so evidence found on the sheet can
be scored against the dataset's cells.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.worksheet.worksheet import Worksheet

from celltrace.shared.a1 import parse_range
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.numfmt import format_value
from celltrace.shared.table import Table

SHEET = "Data"
NOTE_LINES = (
    "Note: figures may not add up to totals because of rounding.",
    "Source: national statistical agency, special tabulation.",
)
FOOTNOTE = "... not applicable or too unreliable to be published"

_NUM = re.compile(
    r"^(?P<neg>-|\()?(?P<cur>\$)?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<dec>\d+))?(?P<pct>%)?(?P<close>\))?$"
)


@dataclass(frozen=True)
class Layout:
    """Which real-layout features a sheet gets."""

    notes: bool = False
    header_gap: bool = False
    second_table: str | None = None  # "above" | "below"


@dataclass(frozen=True)
class Placement:
    """Sheet row of each clean-grid row (1-based) and the sheet column of clean column 0."""

    rows: tuple[int, ...]
    left: int

    def grid_cell(self, sheet_row: int, sheet_col: int) -> tuple[int, int] | None:
        """The clean-grid (row, col) of a sheet cell, None outside the table."""
        if sheet_row not in self.rows or sheet_col < self.left:
            return None
        return self.rows.index(sheet_row), sheet_col - self.left


def layout_for(index: int) -> Layout:
    """A deterministic mix of layouts over a file's distinct tables (by their order)."""
    return Layout(
        notes=index % 2 == 0,
        header_gap=index % 4 == 1,
        second_table=("above" if index % 2 else "below") if index % 3 == 0 else None,
    )


def number_cell(text: str) -> tuple[Any, str | None]:
    """(value, number format) displaying exactly `text`; (text, None) when no format does."""
    t = text.strip()
    m = _NUM.match(t)
    if t != text or m is None or bool(m["neg"] == "(") != bool(m["close"]):
        return text, None
    dec = m["dec"] or ""
    digits = ("#,##0" if "," in m["int"] else "0") + (f".{'0' * len(dec)}" if dec else "")
    whole = m["int"].replace(",", "")
    number: float | int = float(f"{whole}.{dec}") if dec else int(whole)
    if m["pct"]:
        digits += "%"
        number = number / 100
    if m["cur"]:
        digits = f'"$"{digits}'
    fmt = f"{digits};({digits})" if m["neg"] == "(" else digits
    if m["neg"]:
        number = -number
    return (number, fmt) if format_value(number, fmt) == text else (text, None)


def _header_rows(table: Table) -> int:
    return infer_headers(CellGraph(table)).header_rows


def write_grid(ws: Worksheet, table: Table, rows: list[int], left: int) -> None:
    """Cells of `table` at sheet rows `rows` (one per grid row) from column `left`; merges kept."""
    for r, sheet_row in enumerate(rows):
        for c, text in enumerate(table.text[r]):
            if text == "":
                continue
            value, fmt = number_cell(text)
            cell = ws.cell(sheet_row, left + c, value)
            if fmt is not None:
                cell.number_format = fmt
            if r < len(rows) and c == 0 and text.startswith(" "):
                cell.alignment = Alignment(indent=1)
    for r0, c0, r1, c1 in table.merges:
        ws.merge_cells(start_row=rows[r0], start_column=left + c0, end_row=rows[r1], end_column=left + c1)


def _place(ws: Worksheet, table: Table, top: int, gap: bool, notes: bool) -> tuple[list[int], int]:
    """Title, blank row, the grid (a blank row after the header band if `gap`), notes; returns the
    sheet rows of the grid and the next free row."""
    ws.cell(top, 1, table.title or "Table").font = Font(bold=True)
    first = top + 2
    band = _header_rows(table) if gap else 0
    crossing = any(m[0] < band <= m[2] for m in table.merges)
    split = band if gap and 0 < band < table.n_rows and not crossing else None
    rows = [first + r + (1 if split is not None and r >= split else 0) for r in range(table.n_rows)]
    write_grid(ws, table, rows, 1)
    nxt = rows[-1] + 1
    if notes:
        ws.cell(nxt, 1, FOOTNOTE)
        for i, line in enumerate(NOTE_LINES):
            ws.cell(nxt + 2 + i, 1, line)
        nxt += 2 + len(NOTE_LINES)
    return rows, nxt + 2


def write_layout(path: Path, table: Table, layout: Layout, other: Table | None = None) -> Placement:
    """Write `table` (and `other`, for a two-table layout) to a one-sheet workbook at `path`."""
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = SHEET
    top = 1
    if layout.second_table == "above" and other is not None:
        _, top = _place(ws, other, top, gap=False, notes=True)
    rows, top = _place(ws, table, top, layout.header_gap, layout.notes)
    if layout.second_table == "below" and other is not None:
        _place(ws, other, top, gap=False, notes=False)
    wb.save(path)
    return Placement(tuple(rows), 1)


def map_evidence(prediction: dict[str, Any], placement: Placement) -> dict[str, Any]:
    """The prediction with its evidence `rows`/`cols` in clean-grid coordinates (from addresses)."""
    out = []
    for e in prediction.get("evidence") or []:
        r0, c0, r1, c1 = parse_range(e["address"])
        a, b = placement.grid_cell(r0, c0), placement.grid_cell(r1, c1)
        if a is None or b is None:
            out.append({**e, "rows": [], "cols": []})
        else:
            out.append({**e, "rows": list(range(a[0], b[0] + 1)), "cols": list(range(a[1], b[1] + 1))})
    return {**prediction, "evidence": out}


# ---- a 10-K style statement --------------------------------------------------------------------------
STATEMENT_TITLE = "Northwind Devices, Inc. — Consolidated Statements of Operations"
STATEMENT_UNIT = "(in millions, except per share data)"
YEARS = (2019, 2018, 2017)
STATEMENT: list[tuple[str, tuple[float, ...] | None, bool]] = [
    # (label with indentation, values per year or None for a section line, subtotal?)
    ("Revenue", (24_578.0, 22_310.0, 20_145.0), True),
    ("Cost of revenue", (14_120.0, 12_987.0, 11_903.0), False),
    ("Gross profit", (10_458.0, 9_323.0, 8_242.0), True),
    ("Operating expenses:", None, False),
    ("  Research and development", (3_120.0, 2_870.0, 2_615.0), False),
    ("  Sales and marketing", (2_410.0, 2_265.0, 2_130.0), False),
    ("  General and administrative", (1_045.0, 998.0, 951.0), False),
    ("    Total operating expenses", (6_575.0, 6_133.0, 5_696.0), True),
    ("Operating income", (3_883.0, 3_190.0, 2_546.0), True),
    ("Other income (expense), net", (-112.0, 48.0, -35.0), False),
    ("Income before income taxes", (3_771.0, 3_238.0, 2_511.0), True),
    ("Provision for income taxes", (792.0, 680.0, 878.0), False),
    ("Net income", (2_979.0, 2_558.0, 1_633.0), True),
    ("Earnings per share:", None, False),
    ("  Basic", (6.12, 5.21, 3.30), False),
    ("  Diluted", (6.05, 5.15, 3.26), False),
]
USD = '"$"#,##0;("$"#,##0)'
NUM = "#,##0;(#,##0)"
EPS = '"$"#,##0.00;("$"#,##0.00)'


def income_statement(path: Path) -> Placement:
    """A 10-K style statement: title line, unit caption, `Year ended December 31` merged over three
    years, indented line items, subtotals, a notes line; totals are numbers (no formulas)."""
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Income Statement"
    ws.cell(1, 1, STATEMENT_TITLE).font = Font(bold=True)
    ws.cell(2, 1, STATEMENT_UNIT)
    ws.cell(4, 2, "Year ended December 31").alignment = Alignment(horizontal="center")
    ws.merge_cells(start_row=4, start_column=2, end_row=4, end_column=4)
    for j, year in enumerate(YEARS):
        ws.cell(5, 2 + j, year)
    rows = []
    for i, (label, values, subtotal) in enumerate(STATEMENT):
        r = 6 + i
        rows.append(r)
        ws.cell(r, 1, label).font = Font(bold=subtotal)
        for j, v in enumerate(values or ()):
            cell = ws.cell(r, 2 + j, v)
            first_money = label in ("Revenue", "Net income")
            cell.number_format = EPS if isinstance(v, float) and not v.is_integer() else (
                USD if first_money else NUM)
    ws.cell(rows[-1] + 2, 1, "See accompanying notes to consolidated financial statements.")
    ws.column_dimensions["A"].width = 40
    wb.save(path)
    return Placement(tuple([4, 5, *rows]), 1)
