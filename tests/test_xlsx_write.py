"""The openpyxl writer: highlights on exactly the evidence, everything else kept, exact clear,
text never a formula, .xlsm kept, lossy parts detected, atomic output, bad outputs refused."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import openpyxl
import pytest
from openpyxl.chart import BarChart, Reference
from openpyxl.comments import Comment
from openpyxl.styles import Border, Font, PatternFill, Side
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from celltrace.shared.actions import (
    Action,
    Clear,
    Fill,
    LogEntry,
    Note,
    SetValue,
    actions_for_answer,
    log_entry,
)
from celltrace.shared.errors import UserError
from celltrace.shared.restore import RECORD_SHEET
from celltrace.shared.schemas import AskResult, EvidenceCell
from celltrace.shared.xlsx_write import (
    LOG_SHEET,
    WriteReport,
    default_output_path,
    lossy_parts,
    prepare_output,
    write_workbook,
)

FIXTURES = Path(__file__).parent / "fixtures"
NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
GREEN, GREY = "FF00B050", "FFD9D9D9"
STRONG, LIGHT = "FFFFD966", "FFFFF2CC"


def build_book(path: Path) -> Path:
    """Merged title and header, formulas, styles, number formats, validation, names, notes, 2 sheets."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws["A1"] = "Airline results"
    ws["A1"].font = Font(bold=True, size=14)
    ws.merge_cells("A1:D1")
    ws["B2"] = "Year"
    ws.merge_cells("B2:C2")
    ws.append(["Item", 2019, 2020, "Change"])
    ws.append(["Revenue", 100.5, 120.25, "=C4/B4-1"])
    ws.append(["Costs", 80, 85, "=C5/B5-1"])
    ws.append(["Profit", "=B4-B5", "=C4-C5", "=C6/B6-1"])
    thin = Side(style="thin")
    for row in ws["A3:D6"]:
        for cell in row:
            cell.border = Border(top=thin, bottom=thin, left=thin, right=thin)
    for row in ws["B4:C6"]:
        for cell in row:
            cell.number_format = "#,##0.00"
    for row in ws["D4:D6"]:
        row[0].number_format = "0.0%"
    ws["C4"].fill = PatternFill("solid", start_color=GREEN, end_color=GREEN)
    ws["A6"].fill = PatternFill("solid", start_color=GREY, end_color=GREY)
    ws["C4"].comment = Comment("checked by audit", "alice")
    ws["A4"].comment = Comment("row note", "bob")
    dv = DataValidation(type="list", formula1='"yes,no"', allow_blank=True)
    ws.add_data_validation(dv)
    dv.add("E4:E6")
    wb.defined_names["Revenue"] = DefinedName("Revenue", attr_text="Data!$B$4:$C$4")
    ws.defined_names["Local"] = DefinedName("Local", attr_text="Data!$A$1")
    other = wb.create_sheet("Other")
    other["A1"] = "=Data!C4*2"
    other["B1"] = "plain text"
    other["B1"].font = Font(italic=True, color="FF0000FF")
    wb.save(path)
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(path: Path) -> dict[tuple[str, str], tuple]:
    """Everything a user sees per cell (plus styles) for all non-celltrace sheets."""
    wb = openpyxl.load_workbook(path)
    out = {}
    for ws in wb.worksheets:
        if ws.title in (LOG_SHEET, RECORD_SHEET):
            continue
        for row in ws.iter_rows(min_row=1, max_row=8, min_col=1, max_col=6):
            for c in row:
                comment = (c.comment.text, c.comment.author) if c.comment else None
                out[(ws.title, c.coordinate)] = (
                    c.value,
                    c.data_type,
                    c.number_format,
                    repr(c.font),
                    repr(c.border),
                    repr(c.fill),
                    repr(c.alignment),
                    comment,
                )
    return out


def book_facts(path: Path) -> tuple:
    wb = openpyxl.load_workbook(path)
    ws = wb["Data"]
    return (
        sorted(str(r) for r in ws.merged_cells.ranges),
        [(str(dv.sqref), dv.formula1) for dv in ws.data_validations.dataValidation],
        {n: d.attr_text for n, d in wb.defined_names.items()},
        {n: d.attr_text for n, d in ws.defined_names.items()},
    )


def xml_fills(path: Path, sheet: int = 1) -> dict[str, str | None]:
    """Cell → fill fgColor rgb as written in the file (sees covered cells openpyxl drops on load)."""
    with zipfile.ZipFile(path) as z:
        styles = ElementTree.fromstring(z.read("xl/styles.xml"))
        sheet_xml = ElementTree.fromstring(z.read(f"xl/worksheets/sheet{sheet}.xml"))
    fills = []
    for fill in styles.find("m:fills", NS):
        fg = fill.find("m:patternFill/m:fgColor", NS)
        fills.append(fg.get("rgb") if fg is not None else None)
    xf_fill = [int(xf.get("fillId", 0)) for xf in styles.find("m:cellXfs", NS)]
    return {c.get("r"): fills[xf_fill[int(c.get("s", 0))]] for c in sheet_xml.iter(f"{{{NS['m']}}}c")}


def ev(address: str, role: str, sheet: str = "Data") -> EvidenceCell:
    return EvidenceCell(sheet=sheet, address=address, rows=[0], cols=[0], text="", role=role)


def answered(*evidence: EvidenceCell, answer: str = "120.25") -> AskResult:
    return AskResult(
        question="Revenue in 2020?",
        status="answered",
        engine="offline",
        answer=[answer],
        evidence=list(evidence),
    )


EVIDENCE = (ev("C4", "answer"), ev("B2:C2", "header"), ev("C3", "header"), ev("A4", "header"))
TARGETED = {"C4", "B2", "C2", "C3", "A4"}


def write(
    src: Path, actions: list[Action], out: Path | None = None, in_place: bool = False, **kw
) -> WriteReport:
    return write_workbook(prepare_output(src, out, in_place=in_place), actions, **kw)


@pytest.fixture
def book(tmp_path: Path) -> Path:
    return build_book(tmp_path / "book.xlsx")


def test_highlights_land_exactly_and_nothing_else_changes(book: Path) -> None:
    before, digest, facts = snapshot(book), sha(book), book_facts(book)
    res = answered(*EVIDENCE)
    report = write(book, actions_for_answer(res), log=[log_entry(res, sheet="Data", range_="A1:D6")])
    assert report.output == default_output_path(book) == book.with_name("book.celltrace.xlsx")
    assert sha(book) == digest  # the input is never touched
    after = snapshot(report.output)
    changed = {coord for (sheet, coord), v in after.items() if before[(sheet, coord)] != v}
    assert changed == TARGETED - {"C2"}  # covered C2 reads back unstyled (openpyxl drops it on load)
    assert book_facts(report.output) == facts
    ws = openpyxl.load_workbook(report.output)["Data"]
    assert ws["C4"].fill.fgColor.rgb == STRONG
    assert {ws[c].fill.fgColor.rgb for c in ("B2", "C3", "A4")} == {LIGHT}
    assert ws["D4"].value == "=C4/B4-1" and ws["D4"].number_format == "0.0%"  # formulas kept
    assert openpyxl.load_workbook(report.output)["Other"]["A1"].value == "=Data!C4*2"
    # the file itself has the covered cell of the merged header filled too, and nothing else new
    in_file, original = xml_fills(report.output), xml_fills(book)
    assert in_file["C2"] == in_file["B2"] == LIGHT
    assert {c for c, rgb in in_file.items() if rgb != original.get(c)} == TARGETED


def test_note_selection_and_log(book: Path) -> None:
    res = answered(*EVIDENCE)
    out = write(book, actions_for_answer(res), log=[log_entry(res, sheet="Data", range_="A1:D6")]).output
    wb = openpyxl.load_workbook(out)
    note = wb["Data"]["C4"].comment
    assert note.text.startswith("checked by audit\n\ncelltrace\nQ: Revenue in 2020?")  # user's note kept
    assert wb.active.title == "Data"
    assert wb["Data"].sheet_view.selection[0].activeCell == "C4"
    assert [ws.sheet_view.tabSelected for ws in wb.worksheets if ws.sheet_state == "visible"].count(True) == 1
    assert wb.sheetnames == ["Data", "Other", RECORD_SHEET, LOG_SHEET]
    assert wb[RECORD_SHEET].sheet_state == "veryHidden" and wb[LOG_SHEET].sheet_state == "visible"
    log = [[c.value for c in row] for row in wb[LOG_SHEET].iter_rows()]
    assert log[0] == LogEntry.columns()
    assert log[1][1:] == [
        "Data", "A1:D6", "Revenue in 2020?", "120.25", "answered", "C4 (headers: B2:C2, C3, A4)", "offline", 0
    ]  # fmt: skip
    # a second run appends; the header is written once
    out2 = write(
        out, [], out=out.with_name("again.xlsx"), log=[log_entry(res, sheet="Data", range_="A1:D6")]
    ).output
    assert openpyxl.load_workbook(out2)[LOG_SHEET].max_row == 3


def test_clear_restores_exactly(book: Path) -> None:
    before, facts = snapshot(book), book_facts(book)
    res = answered(*EVIDENCE)
    out = write(book, actions_for_answer(res), log=[log_entry(res, sheet="Data", range_="A1:D6")]).output
    cleared = write(out, [Clear()], out=book.with_name("cleared.xlsx"))
    assert cleared.restored == 5 + 1  # five cells filled (incl. the covered C2), one note
    assert snapshot(cleared.output) == before
    assert book_facts(cleared.output) == facts
    assert xml_fills(cleared.output) == xml_fills(book)
    wb = openpyxl.load_workbook(cleared.output)
    assert wb.sheetnames == ["Data", "Other", LOG_SHEET]  # record gone, log kept
    dropped = write(out, [Clear()], out=book.with_name("dropped.xlsx"), remove_log=True)
    assert openpyxl.load_workbook(dropped.output).sheetnames == ["Data", "Other"]
    assert dropped.logs_dropped == 1


def test_rehighlighting_never_records_celltrace_fills_as_original(book: Path) -> None:
    before = snapshot(book)
    first = write(book, actions_for_answer(answered(*EVIDENCE))).output
    # accumulate: C3 was a header (light), becomes the answer; C4 was the answer, becomes a header
    second = write(
        first, actions_for_answer(answered(ev("C3", "answer"), ev("C4", "header"))), in_place=True
    ).output
    ws = openpyxl.load_workbook(second)["Data"]
    assert (ws["C3"].fill.fgColor.rgb, ws["C4"].fill.fgColor.rgb, ws["B2"].fill.fgColor.rgb) == (
        STRONG,
        LIGHT,
        LIGHT,
    )
    cleared = write(second, [Clear()], out=book.with_name("cleared.xlsx")).output
    assert snapshot(cleared) == before


def test_replacing_highlights_with_clear_first(book: Path) -> None:
    before = snapshot(book)
    first = write(book, actions_for_answer(answered(*EVIDENCE))).output
    second = write(
        first, actions_for_answer(answered(ev("B5", "answer")), clear_previous=True), in_place=True
    ).output
    ws = openpyxl.load_workbook(second)["Data"]
    assert ws["B5"].fill.fgColor.rgb == STRONG
    assert ws["C4"].fill.fgColor.rgb == GREEN and ws["C4"].comment.text == "checked by audit"
    assert ws["C3"].fill.fill_type is None
    assert snapshot(write(second, [Clear()], out=book.with_name("c.xlsx")).output) == before


def test_a_clear_unfills_the_legend_of_earlier_log_rows(book: Path) -> None:
    first, second = answered(*EVIDENCE), answered(ev("B5", "answer"))
    log = [log_entry(first, sheet="Data", range_="A1:D6", colour="#FFD966")]
    out = write(book, actions_for_answer(first), log=log).output
    legend = LogEntry.columns().index("question") + 1
    assert openpyxl.load_workbook(out)[LOG_SHEET].cell(2, legend).fill.fgColor.rgb == STRONG
    # a new answer replaces the highlights: only its own row keeps a legend colour
    log = [log_entry(second, sheet="Data", range_="A1:D6", colour="#9BC2E6")]
    again = write(out, actions_for_answer(second, clear_previous=True), log=log, in_place=True).output
    ws = openpyxl.load_workbook(again)[LOG_SHEET]
    assert ws.cell(2, legend).fill.fill_type is None and ws.cell(3, legend).fill.fgColor.rgb == "FF9BC2E6"
    assert ws.cell(1, legend).comment is not None
    # a run that adds highlights without clearing leaves earlier legends alone
    log = [log_entry(first, sheet="Data", range_="A1:D6")]
    kept = write(again, [], log=log, in_place=True).output
    assert openpyxl.load_workbook(kept)[LOG_SHEET].cell(3, legend).fill.fgColor.rgb == "FF9BC2E6"
    cleared = write(kept, [Clear(values=True)], out=book.with_name("cleared.xlsx")).output
    ws = openpyxl.load_workbook(cleared)[LOG_SHEET]
    assert all(ws.cell(r, legend).fill.fill_type is None for r in range(2, ws.max_row + 1))


def test_clear_keeps_edits_made_after_highlighting(book: Path) -> None:
    out = write(book, actions_for_answer(answered(*EVIDENCE))).output
    wb = openpyxl.load_workbook(out)
    red = PatternFill("solid", start_color="FFFF0000", end_color="FFFF0000")
    wb["Data"]["C3"].fill = red  # the user re-coloured a highlighted cell in Excel
    wb["Data"]["C4"].comment = Comment("rewritten by the user", "carol")
    wb.save(out)
    cleared = openpyxl.load_workbook(write(out, [Clear()], out=book.with_name("c.xlsx")).output)["Data"]
    assert cleared["C3"].fill.fgColor.rgb == "FFFF0000"
    assert cleared["C4"].comment.text == "rewritten by the user"
    assert cleared["C4"].fill.fgColor.rgb == GREEN and cleared["A4"].fill.fill_type is None


def test_long_user_note_survives_in_the_record(book: Path) -> None:
    wb = openpyxl.load_workbook(book)
    long_note = "audit trail " * 2_600  # 31,200 characters: its record row spans two cells
    wb["Data"]["C4"].comment = Comment(long_note, "alice")
    wb.save(book)
    before = snapshot(book)
    out = write(book, actions_for_answer(answered(*EVIDENCE))).output
    assert openpyxl.load_workbook(out)[RECORD_SHEET].max_column >= 2
    assert snapshot(write(out, [Clear()], out=book.with_name("c.xlsx")).output) == before


INJECTIONS = ["=1+1", "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3", '=HYPERLINK("http://x")', "#N/A", "\tx"]


def test_written_text_is_never_a_formula(book: Path) -> None:
    actions: list[Action] = [
        SetValue(sheet="Other", address=f"C{i}", value=t) for i, t in enumerate(INJECTIONS, 1)
    ]
    actions.append(SetValue(sheet="Other", address="D1", value="word " * 40))
    actions.append(Note(sheet="Other", address="B1", text="=cmd|' /C calc'!A0"))
    res = answered(ev("C4", "answer"), answer="=1+1")
    out = write(book, actions, log=[log_entry(res, sheet="Data", range_="A1:D6")]).output
    with zipfile.ZipFile(out) as z:
        other_xml = z.read("xl/worksheets/sheet2.xml").decode()
        sheets = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/sheet")]
        xfs = ElementTree.fromstring(z.read("xl/styles.xml")).find("m:cellXfs", NS)
    cells = dict(re.findall(r'<c r="(C\d)"([^>]*>.*?)</c>', other_xml))
    assert len(cells) == len(INJECTIONS)
    for body in cells.values():
        assert 't="inlineStr"' in body and "<f>" not in body
    (log_xml,) = [x for x in sheets if "Revenue in 2020?" in x]
    assert "<f>" not in log_xml and ">=1+1<" in log_xml
    quoted = {i for i, xf in enumerate(xfs) if xf.get("quotePrefix") == "1"}
    assert all(int(re.search(r's="(\d+)"', body).group(1)) in quoted for body in cells.values())
    ws = openpyxl.load_workbook(out)["Other"]
    assert [ws[f"C{i}"].value for i in range(1, len(INJECTIONS) + 1)] == INJECTIONS
    assert {ws[f"C{i}"].data_type for i in range(1, len(INJECTIONS) + 1)} == {"s"}
    assert ws["D1"].alignment.wrap_text
    assert ws["B1"].comment.text == "=cmd|' /C calc'!A0" and ws["A1"].value == "=Data!C4*2"


def test_answer_cell_rules(book: Path) -> None:
    with pytest.raises(UserError, match=r"Data!C4 is not empty; use --overwrite"):
        write(book, [SetValue(sheet="Data", address="C4", value="x")])
    with pytest.raises(UserError, match=r"Data!C2 is inside the merged area B2:C2"):
        write(book, [SetValue(sheet="Data", address="C2", value="x", overwrite=True)])
    with pytest.raises(UserError, match="no worksheet named 'Nope'"):
        write(book, [Fill(sheet="Nope", address="A1", colour="#FFD966", role="answer")])
    assert not default_output_path(book).exists()  # a refused write leaves no file
    out = write(book, [SetValue(sheet="Data", address="C4", value="new", overwrite=True)]).output
    assert openpyxl.load_workbook(out)["Data"]["C4"].value == "new"


def test_a_number_is_written_as_a_number_with_its_format(book: Path) -> None:
    actions: list[Action] = [
        SetValue(sheet="Other", address="E1", value=87000.0, number_format='"$"#,##0'),
        SetValue(sheet="Other", address="E2", value="=1+1", number_format="0.0%"),
    ]
    ws = openpyxl.load_workbook(write(book, actions).output)["Other"]
    assert (ws["E1"].value, ws["E1"].data_type, ws["E1"].number_format) == (87000, "n", '"$"#,##0')
    assert (ws["E2"].value, ws["E2"].data_type, ws["E2"].number_format) == ("=1+1", "s", "General")


def test_single_cell_in_a_merge_fills_the_whole_area(book: Path) -> None:
    out = write(book, [Fill(sheet="Data", address="C1", colour="#FFD966", role="header")]).output
    fills = xml_fills(out)
    assert {c for c in ("A1", "B1", "C1", "D1") if fills.get(c) == STRONG} == {"A1", "B1", "C1", "D1"}


def test_xlsm_keeps_its_vba_project(tmp_path: Path) -> None:
    src = shutil.copy(FIXTURES / "tiny.xlsm", tmp_path / "macro.xlsm")
    src = Path(src)
    digest = sha(src)
    out = write(src, [Fill(sheet="Macros", address="A4", colour="#FFD966", role="answer")]).output
    assert out.name == "macro.celltrace.xlsm" and sha(src) == digest
    cleared = write(out, [Clear()], out=tmp_path / "cleared.xlsm").output
    for path in (out, cleared):
        with zipfile.ZipFile(path) as z, zipfile.ZipFile(src) as orig:
            assert z.read("xl/vbaProject.bin") == orig.read("xl/vbaProject.bin")
            assert b"macroEnabled.main+xml" in z.read("[Content_Types].xml")
    assert xml_fills(out)["B4"] == STRONG  # covered cell of A4:B4
    with pytest.raises(UserError, match="must keep the input's extension"):
        prepare_output(src, tmp_path / "macro.xlsx")


def _add_part(path: Path, name: str, content_type: str) -> None:
    data = {i.filename: zipfile.ZipFile(path).read(i) for i in zipfile.ZipFile(path).infolist()}
    data[name] = b"<x/>"
    override = f'<Override PartName="/{name}" ContentType="{content_type}"/></Types>'.encode()
    data["[Content_Types].xml"] = data["[Content_Types].xml"].replace(b"</Types>", override)
    with zipfile.ZipFile(path, "w") as z:
        for part, body in data.items():
            z.writestr(part, body)


def test_parts_openpyxl_drops_are_detected(book: Path) -> None:
    assert lossy_parts(book) == []
    wb = openpyxl.load_workbook(book)
    chart = BarChart()
    chart.add_data(Reference(wb["Data"], min_col=2, min_row=4, max_row=5))
    wb["Data"].add_chart(chart, "F2")
    wb.save(book)
    _add_part(
        book, "xl/threadedComments/threadedComment1.xml", "application/vnd.ms-excel.threadedcomments+xml"
    )
    assert lossy_parts(book) == ["charts", "drawings or shapes", "threaded comments"]
    with pytest.raises(UserError, match="refusing to write in place"):
        prepare_output(book, in_place=True)
    plan = prepare_output(book)
    assert plan.warnings == [
        "book.xlsx holds charts, drawings or shapes, threaded comments; "
        "the copy book.celltrace.xlsx will not have them"
    ]


def test_in_place_writes_the_input(book: Path) -> None:
    mode = 0o640
    os.chmod(book, mode)
    report = write(book, actions_for_answer(answered(*EVIDENCE)), in_place=True)
    assert report.output == book and (book.stat().st_mode & 0o777) == mode
    assert openpyxl.load_workbook(book)["Data"]["C4"].fill.fgColor.rgb == STRONG
    assert [p.name for p in book.parent.iterdir()] == ["book.xlsx"]


def test_bad_output_paths_are_refused(book: Path, tmp_path: Path) -> None:
    readonly = tmp_path / "ro.xlsx"
    readonly.write_bytes(b"")
    readonly.chmod(0o444)
    cases = [
        (dict(out=readonly), "output file is read-only"),
        (dict(out=tmp_path / "missing" / "x.xlsx"), "output folder does not exist"),
        (dict(out=book), "would overwrite the input; use --in-place"),
        (dict(out=tmp_path / "x.xlsx", in_place=True), "either --out or --in-place"),
        (dict(out=tmp_path / "x.csv"), "must keep the input's extension"),
    ]
    for kwargs, message in cases:
        with pytest.raises(UserError, match=re.escape(message)):
            prepare_output(book, **kwargs)
    (tmp_path / "~$book.celltrace.xlsx").write_bytes(b"")
    with pytest.raises(UserError, match=r"is open in Excel \(~\$book.celltrace.xlsx exists\)"):
        prepare_output(book)
    (tmp_path / "~$book.xlsx").write_bytes(b"")
    assert "seems open in Excel" in prepare_output(book, tmp_path / "o.xlsx").warnings[0]
    with pytest.raises(UserError, match="no such file"):
        prepare_output(tmp_path / "nope.xlsx")


def test_failed_save_leaves_no_file(book: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_save(self, filename) -> None:
        Path(filename).write_bytes(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(openpyxl.Workbook, "save", broken_save)
    with pytest.raises(UserError, match=r"cannot write book\.celltrace\.xlsx: No space left on device"):
        write(book, actions_for_answer(answered(*EVIDENCE)))
    assert sorted(p.name for p in book.parent.iterdir()) == ["book.xlsx"]


def test_user_sheet_named_celltrace_is_left_alone(book: Path) -> None:
    wb = openpyxl.load_workbook(book)
    wb.create_sheet(LOG_SHEET)["A1"] = "my own notes"
    wb.save(book)
    res = answered(*EVIDENCE)
    out = write(book, [], log=[log_entry(res, sheet="Data", range_="A1:D6")]).output
    wb = openpyxl.load_workbook(out)
    assert wb[LOG_SHEET]["A1"].value == "my own notes"
    assert wb[f"{LOG_SHEET} 2"]["A1"].value == "timestamp"
    dropped = write(out, [], out=book.with_name("d.xlsx"), remove_log=True).output
    assert openpyxl.load_workbook(dropped).sheetnames == ["Data", "Other", LOG_SHEET]
