"""Build examples/financials.xlsx: a fictional airline's statement of operations plus statistics.

Run from the repository root: ``python examples/make_example.py``. The output is byte-for-byte
deterministic (fixed document timestamps and zip entry dates).

Totals are written as numbers computed here, not as formulas: openpyxl cannot store a formula's
cached value, so a formula would read as empty until Excel recalculates the file.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import date, datetime
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Alignment, Border, Font, Side
from openpyxl.worksheet.worksheet import Worksheet

OUT = Path(__file__).with_name("financials.xlsx")
FIXED_TIME = datetime(2018, 2, 21, 9, 0, 0)

USD = '"$"#,##0;("$"#,##0)'
NUM = "#,##0;(#,##0)"
EPS = '"$"#,##0.00;("$"#,##0.00)'
PCT = "0.0%;(0.0%)"

# Columns C-G: year ended Dec 31 2017, 2016, 2015; three months ended Dec 31 2017, 2016 (in $ millions).
REVENUE = {
    "Passenger": (38_722, 36_052, 36_817, 9_551, 8_902),
    "Cargo": (812, 700, 760, 224, 186),
    "Other": (2_674, 2_428, 2_413, 675, 612),
}
EXPENSES = {
    "Salaries, wages and benefits": (12_161, 11_329, 10_040, 3_060, 2_876),
    "Aircraft fuel and related taxes": (7_510, 6_180, 7_456, 2_064, 1_593),
    "Regional expenses": (6_572, 6_044, 6_210, 1_670, 1_525),
    "Maintenance, materials and repairs": (1_959, 1_834, 1_889, 507, 471),
    "Depreciation and amortization": (1_702, 1_525, 1_364, 437, 394),
    "Landing fees and other rent": (2_097, 1_978, 1_850, 532, 498),
    "Special items, net": (789, 728, 1_051, 351, 260),
    "Other": (4_688, 4_469, 4_210, 1_216, 1_120),
}
NONOPERATING = {
    "Interest expense, net": (-1_056, -1_016, -880, -269, -255),
    "Interest income": (100, 64, 39, 30, 17),
    "Other income (expense), net": (-8, 1, -250, -12, 18),
}
TAX = (4_130, 1_945, -3_015, 2_285, 336)
SHARES = {"Basic": (495.6, 565.6, 664.9, 479.0, 523.1), "Diluted": (497.6, 567.9, 672.2, 481.3, 525.6)}


def _col_sums(rows: dict[str, tuple[float, ...]]) -> tuple[float, ...]:
    return tuple(sum(col) for col in zip(*rows.values(), strict=True))


def _minus(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def _write_row(
    ws: Worksheet, row: int, label: str | None, data: tuple[float, ...], fmt: str, bold: bool = False
) -> None:
    """Line label in column B (if any), five amounts in C-G and the 2017-vs-2016 change in H."""
    if label is not None:
        ws.cell(row, 2, label).font = Font(bold=bold)
    for i, v in enumerate(data):
        cell = ws.cell(row, 3 + i, v)
        cell.number_format = fmt
        cell.font = Font(bold=bold)
    if data[1]:
        change = ws.cell(row, 8, round((data[0] - data[1]) / abs(data[1]), 4))
        change.number_format = PCT


def _group(ws: Worksheet, first: int, last: int, label: str) -> None:
    """A row-group label in column A, merged down over its lines."""
    ws.cell(first, 1, label).alignment = Alignment(vertical="top", wrap_text=True)
    ws.merge_cells(start_row=first, start_column=1, end_row=last, end_column=1)


def _line(ws: Worksheet, row: int, label: str, data: tuple[float, ...], fmt: str) -> None:
    """A stand-alone bold line whose label spans columns A-B."""
    _write_row(ws, row, None, data, fmt, bold=True)
    ws.cell(row, 1, label).font = Font(bold=True)
    ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=2)


def operations(ws: Worksheet) -> None:
    """Consolidated statements of operations with two header levels and merged row groups."""
    ws.title = "Operations"
    ws["A1"] = "Skyline Air Group, Inc. — Consolidated Statements of Operations"
    ws["A1"].font = Font(bold=True, size=13)
    ws.merge_cells("A1:H1")
    ws["A2"] = "(In millions, except per share amounts)"
    ws.merge_cells("A2:H2")
    ws["A3"] = "Line item"
    ws.merge_cells("A3:B4")
    ws["C3"] = "Year ended December 31"
    ws.merge_cells("C3:E3")
    ws["F3"] = "Three months ended December 31"
    ws.merge_cells("F3:G3")
    ws["H3"] = "Change 2017 vs 2016"
    ws.merge_cells("H3:H4")
    for i, year in enumerate((2017, 2016, 2015, 2017, 2016)):
        ws.cell(4, 3 + i, year)
    for cell in ws[3] + ws[4]:
        cell.font = Font(bold=True)
        cell.alignment = Alignment(horizontal="center", wrap_text=True)
        cell.border = Border(bottom=Side(style="thin"))

    row = 5
    _group(ws, row, row + len(REVENUE), "Operating revenues")
    for i, (label, data) in enumerate(REVENUE.items()):
        _write_row(ws, row, label, data, USD if i == 0 else NUM)
        row += 1
    revenue = _col_sums(REVENUE)
    _write_row(ws, row, "Total operating revenues", revenue, USD, bold=True)
    row += 1

    _group(ws, row, row + len(EXPENSES), "Operating expenses")
    for label, data in EXPENSES.items():
        _write_row(ws, row, label, data, NUM)
        row += 1
    expenses = _col_sums(EXPENSES)
    _write_row(ws, row, "Total operating expenses", expenses, NUM, bold=True)
    row += 1

    operating = _minus(revenue, expenses)
    _line(ws, row, "Operating income", operating, NUM)
    row += 1

    _group(ws, row, row + len(NONOPERATING), "Nonoperating income (expense)")
    for label, data in NONOPERATING.items():
        _write_row(ws, row, label, data, NUM)
        row += 1
    nonoperating = _col_sums(NONOPERATING)
    _write_row(ws, row, "Total nonoperating expense, net", nonoperating, NUM, bold=True)
    row += 1

    pretax = tuple(a + b for a, b in zip(operating, nonoperating, strict=True))
    _line(ws, row, "Income before income taxes", pretax, NUM)
    row += 1
    _line(ws, row, "Income tax provision (benefit)", TAX, NUM)
    row += 1
    net = _minus(pretax, TAX)
    _line(ws, row, "Net income", net, USD)
    row += 1

    _group(ws, row, row + 1, "Earnings per common share")
    for label, shares in SHARES.items():
        _write_row(ws, row, label, tuple(round(n / s, 2) for n, s in zip(net, shares, strict=True)), EPS)
        row += 1
    _line(
        ws,
        row,
        "Operating margin",
        tuple(round(o / r, 4) for o, r in zip(operating, revenue, strict=True)),
        PCT,
    )
    ws.cell(row, 8).value = None  # a change of a percentage is not meaningful

    ws.column_dimensions["A"].width = 22
    ws.column_dimensions["B"].width = 34
    for letter in "CDEFGH":
        ws.column_dimensions[letter].width = 13
    ws.freeze_panes = "C5"


def statistics(ws: Worksheet) -> None:
    """Operating statistics: a second sheet with a merged group header and a date stamp."""
    ws.title = "Statistics"
    ws["A1"] = "Selected operating statistics (mainline and regional)"
    ws.merge_cells("A1:D1")
    ws["A2"] = "Metric"
    ws.merge_cells("A2:A3")
    ws["B2"] = "Year ended December 31"
    ws.merge_cells("B2:D2")
    for i, year in enumerate((2017, 2016, 2015)):
        ws.cell(3, 2 + i, year)
    rows = [
        ("Revenue passenger miles (millions)", (226_647, 225_160, 221_623), "#,##0"),
        ("Available seat miles (millions)", (275_436, 272_500, 266_200), "#,##0"),
        ("Passenger load factor", (0.823, 0.826, 0.833), "0.0%"),
        ("Yield (cents)", (17.08, 16.01, 16.61), "0.00"),
        ("Average aircraft fuel price per gallon", (1.83, 1.53, 1.88), '"$"#,##0.00'),
        ("Mainline employees at end of period (thousands)", (103.1, 101.5, 98.7), "0.0"),
    ]
    for r, (label, data, fmt) in enumerate(rows, start=4):
        ws.cell(r, 1, label)
        for i, v in enumerate(data):
            ws.cell(r, 2 + i, v).number_format = fmt
    ws.cell(len(rows) + 5, 1, "Prepared on")
    ws.cell(len(rows) + 5, 2, date(2018, 2, 21)).number_format = "mmm d, yyyy"
    ws.column_dimensions["A"].width = 46


def build() -> bytes:
    """The workbook as deterministic .xlsx bytes."""
    wb = Workbook()
    operations(wb.active)
    statistics(wb.create_sheet())
    wb.properties.creator = "celltrace examples"
    wb.properties.created = FIXED_TIME
    raw = io.BytesIO()
    wb.save(raw)
    return _normalise_zip(raw.getvalue())


def _normalise_zip(data: bytes) -> bytes:
    """Pin the save-time `modified` property and every zip entry's timestamp."""
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>" + stamp, body)
            dst.writestr(
                zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6]),
                body,
                zipfile.ZIP_DEFLATED,
            )
    return out.getvalue()


if __name__ == "__main__":
    OUT.write_bytes(build())
    print(f"wrote {OUT}")
