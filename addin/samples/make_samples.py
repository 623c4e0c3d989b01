"""Build the add-in's sample workbooks: ``python addin/samples/make_samples.py [--big]``.

* ``segments.xlsx`` — sheet ``Report``: a title merged over the table (outside the usual selection
  A2:I10), two-level merged column headers (year → measure), merged row groups, number formats
  (thousands with negatives in parentheses, percent, dates), a hidden row, a cell with a user's
  note, a region label that starts with ``=`` (stored as text), the defined name ``Segments`` and,
  on sheet ``Plain``, the Excel table ``Sales``.
* ``segments.xlsm`` — the same workbook, macro-enabled, with the VBA project of xlwings'
  ``quickstart.xlsm`` (so Excel opens it as a real macro workbook); needs xlwings installed.
* ``--big``: also ``big.xlsx`` (10,000 × 50, 500 merged areas) for timing merge discovery on real
  Excel; not committed (about 4 MB, and openpyxl takes a while to write it).

The output is deterministic (fixed document timestamps, fixed zip dates).
"""

from __future__ import annotations

import io
import random
import sys
import zipfile
from datetime import date, datetime
from pathlib import Path
from typing import cast

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font
from openpyxl.worksheet.table import Table as XlTable

HERE = Path(__file__).parent
FIXED_TIME = datetime(2024, 1, 2, 9, 0, 0)
THOUSANDS = "#,##0;(#,##0)"
PERCENT = "0.0%"
DATE = "d-mmm-yy"
XLSX_MAIN = b"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
XLSM_MAIN = b"application/vnd.ms-excel.sheet.macroEnabled.main+xml"
VBA_DEFAULT = b'<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>'
VBA_REL = (
    b'<Relationship Id="rIdVBA" Target="vbaProject.bin" '
    b'Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject"/>'
)
ROWS = [  # area, region, 2023 revenue/margin/units, 2024 revenue/margin/units, reported
    ("Europe", "North", 1_250, 0.121, 40, 1_310, 0.118, 42, date(2024, 2, 15)),
    ("Europe", "South", 980, 0.094, 31, 1_045, 0.101, 33, date(2024, 2, 16)),
    ("Europe", "East", -120, -0.015, 12, 85, 0.012, 14, date(2024, 2, 16)),
    ("Americas", "USA", 3_400, 0.152, 96, 3_720, 0.149, 101, date(2024, 2, 20)),
    ("Americas", "Canada", 610, 0.087, 22, 655, 0.091, 23, date(2024, 2, 20)),
    ("Americas", "=Other", 75, 0.031, 5, 60, 0.025, 4, date(2024, 2, 21)),
]


def build_workbook() -> Workbook:
    wb = Workbook()
    ws = wb.active
    ws.title = "Report"
    bold = Font(bold=True)
    centre = Alignment(horizontal="center", vertical="center")
    ws["A1"] = "Segment results (USD thousands)"
    ws["A1"].font = Font(bold=True, size=14)
    ws.merge_cells("A1:I1")
    for ref, text in (("A2", "Area"), ("B2", "Region"), ("C2", 2023), ("F2", 2024), ("I2", "Reported")):
        ws[ref] = text
        ws[ref].font = bold
        ws[ref].alignment = centre
    for ref in ("A2:A3", "B2:B3", "C2:E2", "F2:H2", "I2:I3"):
        ws.merge_cells(ref)
    for col, text in zip("CDEFGH", ["Revenue", "Margin", "Units"] * 2, strict=True):
        ws[f"{col}3"] = text
        ws[f"{col}3"].font = bold
    for i, (area, region, *numbers, reported) in enumerate(ROWS, start=4):
        ws.cell(i, 1, area)
        ws.cell(i, 2, region).data_type = "s"
        for j, (value, fmt) in enumerate(zip(numbers, [THOUSANDS, PERCENT, "0"] * 2, strict=True), start=3):
            ws.cell(i, j, value).number_format = fmt
        ws.cell(i, 9, reported).number_format = DATE
    ws["B9"].quotePrefix = True
    ws.merge_cells("A4:A6")
    ws.merge_cells("A7:A9")
    ws["A10"] = "Total"
    ws.merge_cells("A10:B10")
    for j, col in enumerate("CDEFGH", start=3):
        if col in "CEFH":
            total = sum(cast(int, r[j - 1]) for r in ROWS)  # these columns hold whole numbers
            ws.cell(10, j, total).number_format = THOUSANDS if col in "CF" else "0"
    ws["C12"] = "Source: fictional data for the celltrace smoke test."
    ws.row_dimensions[8].hidden = True
    ws["B4"].comment = Comment("Includes the Baltics since 2023.", "Analyst")
    for col, width in zip("ABCDEFGHI", (11, 10, 10, 8, 7, 10, 8, 7, 11), strict=True):
        ws.column_dimensions[col].width = width
    from openpyxl.workbook.defined_name import DefinedName

    wb.defined_names["Segments"] = DefinedName("Segments", attr_text="Report!$A$2:$I$10")

    plain = wb.create_sheet("Plain")
    plain.append(["Product", "Q1", "Q2"])
    for row in (["Widgets", 120, 135], ["Gadgets", 80, 95], ["Gizmos", 45, 40]):
        plain.append(row)
    plain.add_table(XlTable(displayName="Sales", ref="A1:C4"))
    wb.properties.created = wb.properties.modified = FIXED_TIME
    return wb


def _deterministic(data: bytes, vba: bytes | None = None) -> bytes:
    """Fixed zip dates; with `vba`, the macro-enabled package around that VBA project."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if vba is not None and info.filename == "[Content_Types].xml":
                body = body.replace(XLSX_MAIN, XLSM_MAIN).replace(b"</Types>", VBA_DEFAULT + b"</Types>")
            elif vba is not None and info.filename == "xl/_rels/workbook.xml.rels":
                body = body.replace(b"</Relationships>", VBA_REL + b"</Relationships>")
            dst.writestr(zipfile.ZipInfo(info.filename, date_time=(2024, 1, 2, 9, 0, 0)), body)
        if vba is not None:
            dst.writestr(zipfile.ZipInfo("xl/vbaProject.bin", date_time=(2024, 1, 2, 9, 0, 0)), vba)
    return out.getvalue()


def xlwings_vba() -> bytes:
    """The VBA project of xlwings' quickstart workbook (BSD part of xlwings)."""
    import xlwings

    with zipfile.ZipFile(Path(xlwings.__file__).with_name("quickstart.xlsm")) as z:
        return z.read("xl/vbaProject.bin")


def build_big(path: Path, rows: int = 10_000, cols: int = 50, merges: int = 500) -> None:
    """A large sheet for timing: a merged header band and scattered merged blocks."""
    rnd = random.Random(7)
    wb = Workbook(write_only=False)
    ws = wb.active
    ws.title = "Big"
    for c in range(1, cols + 1):
        ws.cell(2, c, f"h{c}")
    for r in range(3, rows + 1):
        ws.cell(r, 1, f"row {r}")
        for c in range(2, cols + 1):
            ws.cell(r, c, (r * 31 + c * 17) % 1000).number_format = "#,##0"
    taken: set[tuple[int, int]] = set()
    n = 0
    for c in range(1, cols, 5):
        ws.cell(1, c, f"group {c}")
        ws.merge_cells(start_row=1, start_column=c, end_row=1, end_column=min(c + 4, cols))
        n += 1
    while n < merges:
        r, c = rnd.randint(3, rows - 2), rnd.randint(2, cols - 1)
        cells = {(r + i, c + j) for i in range(-1, 3) for j in range(-1, 3)}
        if cells & taken:
            continue
        taken |= cells
        ws.merge_cells(start_row=r, start_column=c, end_row=r + 1, end_column=c + 1)
        n += 1
    wb.save(path)


def main(argv: list[str]) -> None:
    raw = io.BytesIO()
    build_workbook().save(raw)
    (HERE / "segments.xlsx").write_bytes(_deterministic(raw.getvalue()))
    (HERE / "segments.xlsm").write_bytes(_deterministic(raw.getvalue(), xlwings_vba()))
    print(f"wrote {HERE / 'segments.xlsx'} and {HERE / 'segments.xlsm'}")
    if "--big" in argv:
        build_big(HERE / "big.xlsx")
        print(f"wrote {HERE / 'big.xlsx'}")


if __name__ == "__main__":
    main(sys.argv[1:])
