"""read_table on workbooks built in tmp_path (plus the committed tiny.xlsm fixture)."""

from __future__ import annotations

import hashlib
import io
import shutil
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from openpyxl import Workbook
from openpyxl.styles import Alignment
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.table import Table as XlTable

from celltrace.shared.errors import UserError
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.xlsx_read import read_table

FIXTURES = Path(__file__).parent / "fixtures"


def save(wb: Workbook, path: Path) -> Path:
    wb.save(path)
    return path


def patch_part(path: Path, part: str, old: bytes, new: bytes) -> None:
    """Replace bytes inside one zip part (how cached formula values are made without Excel)."""
    with zipfile.ZipFile(path) as src:
        parts = {info.filename: src.read(info) for info in src.infolist()}
    assert old in parts[part], f"{old!r} not in {part}"
    parts[part] = parts[part].replace(old, new)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, body in parts.items():
            dst.writestr(name, body)


@pytest.fixture
def grid_book(tmp_path: Path) -> Path:
    """Sheet 'Data': a 3x3 block at C3:E5 with empty rows/columns around it; sheet 'Other'."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    for r, row in enumerate([["Item", "2017", "2016"], ["Cargo", 812, 700], ["Other", 2674, 2428]], start=3):
        for c, v in enumerate(row, start=3):
            ws.cell(r, c, v)
    wb.create_sheet("Other")["A1"] = "other sheet"
    return save(wb, tmp_path / "grid.xlsx")


# ---- selection ----------------------------------------------------------------------------------------
def test_used_range_is_trimmed_and_origin_set(grid_book: Path) -> None:
    t = read_table(grid_book)
    assert t.origin is not None
    assert (t.origin.sheet, t.origin.address, t.origin.workbook) == ("Data", "C3:E5", "grid.xlsx")
    assert t.text == [["Item", "2017", "2016"], ["Cargo", "812", "700"], ["Other", "2674", "2428"]]
    assert t.values[1] == ["Cargo", 812, 700]
    assert t.title is None and t.warnings == [] and t.merges == []


def test_sheet_is_case_insensitive_and_range_keeps_empty_cells(grid_book: Path) -> None:
    t = read_table(grid_book, sheet="data", range="B2:D4")
    assert t.origin.address == "B2:D4"
    assert t.text == [["", "", ""], ["", "Item", "2017"], ["", "Cargo", "812"]]
    assert read_table(grid_book, sheet="Other").text == [["other sheet"]]


def test_range_with_sheet_prefix(grid_book: Path) -> None:
    assert read_table(grid_book, range="'Other'!A1").text == [["other sheet"]]
    with pytest.raises(UserError, match="names sheet"):
        read_table(grid_book, sheet="Data", range="Other!A1")


def test_range_past_the_used_area_is_cut_with_warning(grid_book: Path) -> None:
    t = read_table(grid_book, range="D:E")
    assert t.origin.address == "D1:E5"
    assert t.text[2:] == [["2017", "2016"], ["812", "700"], ["2674", "2428"]]
    assert any("extends past" in w for w in t.warnings)


def test_merge_crossing_the_range_is_clipped_and_keeps_its_text(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws["A1"] = "Year ended December 31"
    ws.merge_cells("A1:C1")
    ws["D1"] = "x"
    ws.merge_cells("B3:B5")
    ws["B3"] = "group"
    for r in range(2, 6):
        ws.cell(r, 3, r)
    t = read_table(save(wb, tmp_path / "m.xlsx"), range="B1:C4")
    assert t.merges == [(0, 0, 0, 1), (2, 0, 3, 0)]
    assert t.text[0] == ["Year ended December 31", ""]
    assert t.text[2][0] == "group"
    assert sum("crosses the range border" in w for w in t.warnings) == 2
    assert any("A1:C1" in w and "B1:C1" in w for w in t.warnings)


def test_used_range_never_cuts_a_merged_area(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws["B2"] = "wide header"
    ws.merge_cells("B2:E2")
    ws["B3"] = 1
    t = read_table(save(wb, tmp_path / "m.xlsx"))
    assert t.origin.address == "B2:E3" and t.merges == [(0, 0, 0, 3)] and t.warnings == []


def test_hidden_rows_and_columns_are_kept_and_flagged(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    for r in range(1, 6):
        for c in range(1, 6):
            ws.cell(r, c, r * 10 + c)
    ws.row_dimensions[3].hidden = True
    ws.column_dimensions.group("B", "C", hidden=True)
    t = read_table(save(wb, tmp_path / "h.xlsx"), range="A2:E5")
    assert t.n_rows == 4 and t.n_cols == 5
    assert t.hidden_rows == frozenset({1})
    assert t.hidden_cols == frozenset({1, 2})
    assert any("hidden" in w for w in t.warnings)


@pytest.fixture
def names_book(tmp_path: Path) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    for r in range(1, 5):
        for c in range(1, 4):
            ws.cell(r, c, f"{r},{c}")
    other = wb.create_sheet("Other")
    other["A1"] = "o"
    wb.defined_names["Block"] = DefinedName("Block", attr_text="Data!$A$1:$B$2")
    wb.defined_names["Konst"] = DefinedName("Konst", attr_text="42")
    ws.defined_names["Local"] = DefinedName("Local", attr_text="Data!$B$3:$C$4")
    other.defined_names["Local"] = DefinedName("Local", attr_text="Other!$A$1")
    other.defined_names["OnlyOther"] = DefinedName("OnlyOther", attr_text="Data!$C$1:$C$2")
    return save(wb, tmp_path / "names.xlsx")


def test_workbook_scoped_name(names_book: Path) -> None:
    t = read_table(names_book, name="block")
    assert (t.origin.sheet, t.origin.address) == ("Data", "A1:B2")
    assert t.text == [["1,1", "1,2"], ["2,1", "2,2"]]


def test_sheet_scoped_names(names_book: Path) -> None:
    assert read_table(names_book, sheet="Data", name="Local").origin.address == "B3:C4"
    assert read_table(names_book, sheet="Other", name="Local").text == [["o"]]
    t = read_table(names_book, name="OnlyOther")  # found on a sheet without --sheet; refers to Data
    assert (t.origin.sheet, t.origin.address) == ("Data", "C1:C2")
    with pytest.raises(UserError, match="several sheets"):
        read_table(names_book, name="Local")


def test_bad_names(names_book: Path) -> None:
    with pytest.raises(UserError, match="no defined name 'Nope'"):
        read_table(names_book, name="Nope")
    with pytest.raises(UserError, match="single cell range"):
        read_table(names_book, name="Konst")


def test_excel_table(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "S"
    wb.create_sheet("T")
    ws.append(["pad"])
    for row in (["Region", "Q1", "Q2"], ["North", 1, 2], ["South", 3, 4]):
        ws.append(row)
    ws.add_table(XlTable(displayName="Sales", ref="A2:C4"))
    path = save(wb, tmp_path / "t.xlsx")
    t = read_table(path, table="sales")
    assert (t.origin.sheet, t.origin.address) == ("S", "A2:C4")
    assert t.text[0] == ["Region", "Q1", "Q2"]
    with pytest.raises(UserError, match="no Excel table named 'Sales' on sheet 'T'"):
        read_table(path, sheet="T", table="Sales")
    with pytest.raises(UserError, match=r"tables: Sales"):
        read_table(path, table="Nope")


# ---- values and display text ----------------------------------------------------------------------------
def test_number_formats_dates_and_errors(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    cells = [
        (0.245, "0.0%"),
        (5813, '"$"#,##0'),
        (-7.8, "0.0;(0.0)"),
        (datetime(2018, 2, 21), "yyyy-mm-dd"),
        ("#N/A", "General"),
        ("#DIV/0!", "General"),
        (True, "General"),
    ]
    for c, (value, fmt) in enumerate(cells, start=1):
        ws.cell(1, c, value).number_format = fmt
    t = read_table(save(wb, tmp_path / "f.xlsx"))
    assert t.text == [["24.5%", "$5,813", "(7.8)", "2018-02-21", "#N/A", "#DIV/0!", "TRUE"]]
    assert t.values == [[0.245, 5813, -7.8, "2018-02-21T00:00:00", "#N/A", "#DIV/0!", True]]


def test_indent_levels_become_leading_spaces_that_nest_line_items(tmp_path: Path) -> None:
    """Statements indent line items with Format Cells › Indent, not with spaces in the text."""
    wb = Workbook()
    ws = wb.active
    for r, (label, indent, value) in enumerate(
        [("", 0, "2020"), ("Current assets:", 0, None), ("Cash", 1, 152), ("Inventories", 1, 60),
         ("Total assets", 0, 823)], start=1):
        ws.cell(r, 1, label or None).alignment = Alignment(indent=indent)
        ws.cell(r, 2, value)
    t = read_table(save(wb, tmp_path / "indent.xlsx"))
    assert [row[0] for row in t.text] == ["", "Current assets:", "  Cash", "  Inventories", "Total assets"]
    assert t.values[2][0] == "Cash"  # the raw value is the cell's own text
    g = CellGraph(t)
    h = infer_headers(g)
    assert [n.text.strip() for n in h.row_path(g.node_at(2, 1))] == ["Current assets:", "Cash"]
    assert [n.text for n in h.row_path(g.node_at(4, 1))] == ["Total assets"]


def formula_book(tmp_path: Path, cached: bool) -> Path:
    wb = Workbook()
    ws = wb.active
    ws["A1"] = 21
    ws["A2"] = "=A1*2"
    ws["C4"] = "=A2+1"  # only a formula out there: it must still count as used
    path = save(wb, tmp_path / "formula.xlsx")
    if cached:
        patch_part(path, "xl/worksheets/sheet1.xml", b"<f>A1*2</f><v></v>", b"<f>A1*2</f><v>42</v>")
    return path


def test_formula_with_cached_value(tmp_path: Path) -> None:
    t = read_table(formula_book(tmp_path, cached=True))
    assert t.origin.address == "A1:C4"
    assert t.values[1][0] == 42 and t.text[1][0] == "42"
    assert t.warnings == [
        "1 formula cell(s) have no cached value (workbook not recalculated in Excel; read as empty): C4"
    ]


def test_formulas_without_cached_values_are_reported(tmp_path: Path) -> None:
    t = read_table(formula_book(tmp_path, cached=False))
    assert t.values[1][0] is None
    assert len(t.warnings) == 1 and t.warnings[0].startswith("2 formula cell(s)")
    assert t.warnings[0].endswith(": A2, C4")


def test_uncached_formula_list_is_capped(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    for r in range(1, 16):
        ws.cell(r, 1, r)
        ws.cell(r, 2, f"=A{r}*2")
    (warning,) = read_table(save(wb, tmp_path / "many.xlsx")).warnings
    assert warning.startswith("15 formula cell(s)") and warning.endswith("B10 and 5 more")


def test_xlsm_is_read_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "tiny.xlsm"
    shutil.copyfile(FIXTURES / "tiny.xlsm", path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    t = read_table(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert t.origin.workbook == "tiny.xlsm" and t.origin.sheet == "Macros"
    assert t.text[:3] == [["Quarter", "Revenue"], ["Q1", "120"], ["Q2", "135"]]
    assert t.merges == [(3, 0, 3, 1)]


# ---- bad input --------------------------------------------------------------------------------------------
def ole_file(path: Path, encrypted: bool) -> Path:
    body = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    if encrypted:
        body += "EncryptionInfo".encode("utf-16-le")
    path.write_bytes(body + bytes(512))
    return path


def zip_without_workbook(path: Path) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hello.txt", "not a workbook")
    path.write_bytes(buf.getvalue())
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing.xlsx", "no such file"),
        (lambda p: p, "is a directory"),
        (lambda p: ole_file(p / "old.xls", encrypted=False), "legacy .xls"),
        (lambda p: ole_file(p / "secret.xlsx", encrypted=True), "password-protected"),
        (lambda p: (p / "data.csv").write_text("a,b\n1,2\n") and p / "data.csv", "not an .xlsx/.xlsm"),
        (
            lambda p: (p / "noise.xlsx").write_bytes(bytes(range(256)) * 4) and p / "noise.xlsx",
            "not an .xlsx",
        ),
        (lambda p: (p / "cut.xlsx").write_bytes(b"PK\x03\x04" + bytes(100)) and p / "cut.xlsx", "corrupt"),
        (lambda p: zip_without_workbook(p / "plain.xlsx"), "not a readable .xlsx/.xlsm"),
    ],
)
def test_bad_files(tmp_path: Path, make, message: str) -> None:
    with pytest.raises(UserError, match=message) as err:
        read_table(make(tmp_path))
    assert "\n" not in str(err.value)


def test_truncated_real_workbook_is_corrupt(grid_book: Path) -> None:
    data = grid_book.read_bytes()
    grid_book.write_bytes(data[: len(data) // 2])
    with pytest.raises(UserError, match=r"corrupt|not a readable"):
        read_table(grid_book)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sheet": "Nope"}, r"no sheet named 'Nope' \(sheets: Data, Other\)"),
        ({"range": "A1:ZZZZ9"}, "malformed range"),
        ({"range": "hello"}, "malformed range"),
        ({"range": "A1:B2"}, "range A1:B2 on sheet 'Data' is empty"),
        ({"range": "X100:Y200"}, "is empty"),
        ({"table": "Nope"}, r"no Excel table named 'Nope' \(tables: none\)"),
        ({"name": "Nope"}, "no defined name"),
    ],
)
def test_bad_selection(grid_book: Path, kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(UserError, match=message):
        read_table(grid_book, **kwargs)


def test_empty_sheet(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="sheet 'Sheet' is empty"):
        read_table(save(Workbook(), tmp_path / "empty.xlsx"))


def test_range_name_and_table_are_exclusive(grid_book: Path) -> None:
    with pytest.raises(ValueError, match="at most one"):
        read_table(grid_book, range="A1", name="x")
