"""The xlwings reader against the fake: same table as file mode, bounded Excel calls."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import openpyxl
import pytest
from fake_xlwings import FakeBook, FakeExcelError, FakeRangeApi, big_book
from openpyxl.comments import Comment

from celltrace.addin import record
from celltrace.addin.merges import Probes, find_merges, parse_value_xml
from celltrace.addin.reader import read, resolve
from celltrace.shared.errors import UserError
from celltrace.shared.schemas import TablePayload
from celltrace.shared.table import Table
from celltrace.shared.xlsx_read import read_table

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "addin" / "samples" / "segments.xlsx"
FIXTURE = Path(__file__).parent / "fixtures" / "addin" / "segments-Report-A2_I10.json"
"""Recorded from the fake (bisect strategy); a maintainer adds recordings from real Excel beside it."""
CELLS_BUDGET_PER_CALL = 15
"""The big sheet must cost fewer than one Excel call per this many cells."""
BIG_CALL_BOUND = 30_000
"""Asserted bound for 10,000 × 50 with 500 merged areas (measured: 24,254 with `bisect`)."""


def same(live: Table, file: Table) -> None:
    """Payload (text, values, merges, origin), hidden rows/columns and warnings are equal."""
    assert TablePayload.from_table(live).model_dump() == TablePayload.from_table(file).model_dump()
    assert (live.hidden_rows, live.hidden_cols) == (file.hidden_rows, file.hidden_cols)
    assert live.warnings == file.warnings


@pytest.fixture(scope="module")
def edge_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Dates, times, durations, booleans, errors, formats, a hidden column and border-crossing merges."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Edge"
    rows = [
        ["Item", "When", "Time", "Took", "Ok", "Share", "Big", "Err"],
        [
            "a",
            dt.datetime(2024, 3, 1),
            dt.time(13, 30),
            dt.timedelta(hours=30),
            True,
            0.25,
            1234567.891,
            "#N/A",
        ],
        ["b", dt.datetime(2024, 3, 2, 8, 15), dt.time(0, 5), dt.timedelta(minutes=90), False, -0.5, -42, "x"],
        ["c", None, None, None, None, 1.0, 3.5e20, "=text"],
    ]
    for row in rows:
        ws.append(row)
    for r in range(2, 5):
        ws.cell(r, 2).number_format = "yyyy-mm-dd h:mm"
        ws.cell(r, 3).number_format = "h:mm AM/PM"
        ws.cell(r, 4).number_format = "[h]:mm"
        ws.cell(r, 6).number_format = "0.0%"
        ws.cell(r, 7).number_format = '#,##0.00;[Red]"neg "#,##0.00'
    ws["H4"].data_type = "s"
    ws.merge_cells("A5:C6")
    ws["A5"] = "crossing"
    ws.merge_cells("G5:I5")
    ws["G5"] = 7
    ws["G5"].number_format = "0.000"
    ws.column_dimensions["E"].hidden = True
    ws["B2"].comment = Comment("note", "me")
    path = tmp_path_factory.mktemp("edge") / "edge.xlsx"
    wb.save(path)
    return path


CASES = [
    (SAMPLE, "Report", "A2:I10"),
    (SAMPLE, "Report", "B2:I10"),  # Area A2:A3 and A4:A6 cross the left border: clipped, content carried
    (SAMPLE, "Report", "A1:I12"),
    (SAMPLE, "Report", "C3:H9"),  # year headers cut from above
    (SAMPLE, "Report", "A1:Z50"),  # past the used range: clipped with the file reader's warning
    (SAMPLE, "Plain", "A1:C4"),
    (ROOT / "examples" / "financials.xlsx", None, None),
    (ROOT / "tests" / "fixtures" / "tiny.xlsm", "Macros", "A1:B4"),
]


@pytest.mark.parametrize("windows", [False, True], ids=["bisect", "xml"])
@pytest.mark.parametrize(("path", "sheet", "rng"), CASES, ids=lambda x: str(getattr(x, "name", x)))
def test_payload_equals_file_mode(path: Path, sheet: str | None, rng: str | None, windows: bool) -> None:
    file_table = read_table(path, sheet=sheet, range=rng)
    book = FakeBook.from_xlsx(path, windows=windows)
    address = f"'{file_table.sheet}'!{rng or file_table.origin.address}"
    result = read(book, resolve(book, address=address))
    same(result.table, file_table)
    assert result.strategy == ("xml" if windows else "bisect")
    # every call but finding the sheet and toggling screen updating goes through the counted probes
    assert result.calls == book.calls.total - book.calls.kinds["sheets"] - 3
    cells = file_table.n_rows * file_table.n_cols
    assert book.calls.kinds["MergeCells"] + book.calls.kinds["MergeArea"] <= cells


@pytest.mark.parametrize("rng", ["A1:H4", "A1:I6", "B2:H6", "A1:B5"])
@pytest.mark.parametrize("strategy", ["bisect", "xml", "savecopy"])
def test_edge_cases_equal_file_mode(edge_book: Path, rng: str, strategy: str) -> None:
    book = FakeBook.from_xlsx(edge_book, windows=True)
    result = read(book, resolve(book, address=f"Edge!{rng}"), strategy=strategy)  # type: ignore[arg-type]
    same(result.table, read_table(edge_book, sheet="Edge", range=rng))
    assert result.strategy == strategy


def test_dates_before_march_1900_equal_file_mode(tmp_path: Path) -> None:
    """Serials below 61 (Excel's fictitious 1900-02-29 shifts them) read as the dates Excel shows."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Early"
    ws.append(["day", "when"])
    for day in (dt.datetime(1900, 1, 1), dt.datetime(1900, 2, 28, 12), dt.datetime(1900, 3, 1)):
        ws.append([day.strftime("%b %d"), day])
        ws.cell(ws.max_row, 2).number_format = "yyyy-mm-dd h:mm"
    path = tmp_path / "early.xlsx"
    wb.save(path)
    book = FakeBook.from_xlsx(path)
    result = read(book, resolve(book, address="Early!A1:B4"))
    same(result.table, read_table(path, sheet="Early", range="A1:B4"))
    shown = [row[1] for row in result.table.text[1:]]
    assert shown == ["1900-01-01 0:00", "1900-02-28 12:00", "1900-03-01 0:00"]


def test_formatter_when_over_text_budget(edge_book: Path) -> None:
    book = FakeBook.from_xlsx(edge_book)
    result = read(book, resolve(book, address="Edge!A1:H4"), text_budget=0)
    assert book.calls.kinds["Text"] == 0
    same(result.table, read_table(edge_book, sheet="Edge", range="A1:H4"))


def test_excel_text_is_used_and_hashes_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = {"C4": "1,250 k", "C5": "#####"}
    original = FakeRangeApi.Text.fget

    def text(api: FakeRangeApi) -> str | None:
        from celltrace.shared.a1 import range_ref

        return shown.get(range_ref(*api._rng.bounds)) or original(api)

    monkeypatch.setattr(FakeRangeApi, "Text", property(text))
    book = FakeBook.from_xlsx(SAMPLE)
    table = read(book, resolve(book, address="Report!A2:I10")).table
    assert table.text[2][2] == "1,250 k"  # Excel's own text wins
    assert table.text[3][2] == "980"  # "#####" (column too narrow) → the formatter


# ---- which range -----------------------------------------------------------------------------------
def test_selection_single_cell_grows_to_current_region() -> None:
    book = FakeBook.from_xlsx(SAMPLE)
    book.select("Report", "D6")
    target = resolve(book)
    assert target.sheet.name == "Report" and target.bounds == (1, 1, 10, 9)


def test_selection_range_name_and_table() -> None:
    book = FakeBook.from_xlsx(SAMPLE)
    book.select("Report", "A2:I10")
    assert resolve(book).bounds == (2, 1, 10, 9)
    assert resolve(book, name="segments").bounds == (2, 1, 10, 9)
    target = resolve(book, table="Sales")
    assert (target.sheet.name, target.bounds) == ("Plain", (1, 1, 4, 3))
    assert resolve(book, address="A:C").bounds == (1, 1, 1_048_576, 3)
    with pytest.raises(UserError, match="no Excel table"):
        resolve(book, table="Nope")
    with pytest.raises(UserError, match="no defined name"):
        resolve(book, name="Nope")
    with pytest.raises(UserError, match="no sheet"):
        resolve(book, address="Nope!A1")


def test_whole_columns_clip_like_file_mode() -> None:
    book = FakeBook.from_xlsx(SAMPLE)
    result = read(book, resolve(book, address="Report!A:I"))
    same(result.table, read_table(SAMPLE, sheet="Report", range="A:I"))


def test_multi_area_selection_is_refused() -> None:
    book = FakeBook.from_xlsx(SAMPLE)
    book.app.selection = book.sheets["Report"].range("A2:B3,D4")
    with pytest.raises(UserError, match="several areas"):
        resolve(book)


def test_empty_range_is_refused_and_screen_updating_restored() -> None:
    book = FakeBook.from_xlsx(SAMPLE)
    with pytest.raises(UserError, match="empty"):
        read(book, resolve(book, address="Report!K2:L3"))
    assert book.app.screen_updating_log == [False, True]


def test_screen_updating_restored_when_excel_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    book = FakeBook.from_xlsx(SAMPLE)

    def broken(self: Probes, addr: str) -> None:
        raise FakeExcelError("COM error")

    monkeypatch.setattr(Probes, "values", broken)
    with pytest.raises(FakeExcelError):
        read(book, resolve(book, address="Report!A2:I10"))
    assert book.app._screen_updating is True


# ---- merge discovery ---------------------------------------------------------------------------------
CANNED_XML = """<?xml version="1.0"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"
 xmlns:o="urn:schemas-microsoft-com:office:office"
 xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
 <Styles>
  <Style ss:ID="Default" ss:Name="Normal"><Alignment ss:Vertical="Bottom"/></Style>
  <Style ss:ID="s62"><NumberFormat ss:Format="Percent"/></Style>
  <Style ss:ID="s63"><NumberFormat ss:Format="#,##0;\\(#,##0\\)"/></Style>
  <Style ss:ID="s64" ss:Parent="s63"><Font ss:Bold="1"/></Style>
 </Styles>
 <Worksheet ss:Name="Report">
  <Table ss:ExpandedColumnCount="6" ss:ExpandedRowCount="4">
   <Row>
    <Cell ss:MergeDown="1"><Data ss:Type="String">Area</Data></Cell>
    <Cell ss:MergeAcross="2"><Data ss:Type="Number">2023</Data></Cell>
    <Cell ss:Index="6"><Data ss:Type="String">x</Data></Cell>
   </Row>
   <Row>
    <Cell ss:Index="2" ss:StyleID="s62"><Data ss:Type="Number">0.5</Data></Cell>
    <Cell ss:StyleID="s64"><Data ss:Type="Number">1200</Data></Cell>
   </Row>
   <Row ss:Index="4">
    <Cell ss:Index="3" ss:MergeAcross="1" ss:MergeDown="0"><Data ss:Type="String">t</Data></Cell>
   </Row>
  </Table>
 </Worksheet>
</Workbook>"""


def test_canned_value_xml() -> None:
    parsed = parse_value_xml(CANNED_XML, (2, 1))  # the range starts at A2
    assert sorted(parsed.merges) == [(2, 1, 3, 1), (2, 2, 2, 4), (5, 3, 5, 4)]
    assert parsed.formats[(3, 2)] == "0.00%"
    assert parsed.formats[(3, 3)] == "#,##0;\\(#,##0\\)"  # inherited from the parent style
    assert parsed.formats[(2, 6)] == "General"


def test_auto_falls_back_to_savecopy_over_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    book = big_book(rows=400, cols=20, merges=40)
    book.windows = True

    def no_xml(api: FakeRangeApi, kind: int = 10) -> str:
        raise FakeExcelError("Value(11) failed")

    monkeypatch.setattr(FakeRangeApi, "Value", no_xml)
    sheet = book.sheets["Data"]
    scan = find_merges(Probes(sheet), (1, 1, 400, 20), "auto", budget=50)
    assert scan.strategy == "savecopy"
    assert sorted(scan.areas) == sorted(sheet.merges)
    assert [n.split()[2] for n in scan.notes] == ["'xml'", "'bisect'"]


def test_no_strategy_left_is_a_user_error() -> None:
    book = big_book(rows=100, cols=10, merges=10)  # not Windows: no Value(11), no SaveCopyAs
    with pytest.raises(UserError, match="merged areas"):
        find_merges(Probes(book.sheets["Data"]), (1, 1, 100, 10), "auto", budget=5)


def test_big_sheet_calls_are_bounded() -> None:
    """10,000 × 50 with 500 merged areas: merges exact, calls within the stated bound."""
    book = big_book()
    sheet = book.sheets["Data"]
    result = read(book, resolve(book))
    table = result.table
    cells = table.n_rows * table.n_cols
    print(
        f"\n10,000x50, 500 merges: {result.calls} Excel calls ({result.strategy}); by kind: "
        f"{dict(book.calls.kinds.most_common(6))}"
    )
    assert (table.n_rows, table.n_cols) == (10_000, 50)
    assert sorted(table.merges) == sorted((m[0] - 1, m[1] - 1, m[2] - 1, m[3] - 1) for m in sheet.merges)
    assert len(table.merges) == 500
    assert book.calls.kinds["Text"] == 0  # over the text budget: the formatter renders
    assert result.calls <= BIG_CALL_BOUND
    assert result.calls * CELLS_BUDGET_PER_CALL < cells


# ---- recordings ------------------------------------------------------------------------------------
def test_committed_recording_replays() -> None:
    data = json.loads(FIXTURE.read_text("utf-8"))
    replayed = record.replay(data)
    assert TablePayload.from_table(replayed.table).model_dump() == data["payload"]
    assert replayed.table.warnings == data["warnings"]
    assert sorted(replayed.table.hidden_rows) == data["hidden_rows"]
    assert replayed.calls == data["calls"]  # the same questions, each asked once
    same(replayed.table, read_table(SAMPLE, sheet="Report", range="A2:I10"))


def test_record_and_replay_round_trip(tmp_path: Path, edge_book: Path) -> None:
    book = FakeBook.from_xlsx(edge_book)
    result = read(book, resolve(book, address="Edge!A1:I6"), record=True)
    path = record.dump(tmp_path, result, "A1:I6")
    assert path.parent == tmp_path and path.suffix == ".json"
    replayed = record.replay(path)
    same(replayed.table, result.table)


def test_record_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CELLTRACE_RECORD_DIR", str(tmp_path))
    assert record.record_dir() == tmp_path
    assert record.record_dir("elsewhere") == Path("elsewhere")
    monkeypatch.delenv("CELLTRACE_RECORD_DIR")
    assert record.record_dir() is None
