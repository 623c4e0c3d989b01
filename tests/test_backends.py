"""One suite, every sheet backend: openpyxl on the file and xlwings on the fake COM surface.

Each test talks to the backend only through the `SheetReader` / `BookWriter` protocols and the one
reader and applier of `celltrace.shared.backend`, so a third backend plugs into `BACKENDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from fake_xlwings import FakeBook

from celltrace.addin.merges import Probes
from celltrace.addin.reader import XlwingsSheet
from celltrace.addin.writer import XlwingsBook
from celltrace.shared.actions import Clear, Fill, Note, Select, SetValue
from celltrace.shared.backend import BookWriter, SheetReader, apply_actions, read_range, read_record
from celltrace.shared.errors import UserError
from celltrace.shared.restore import FillState
from celltrace.shared.schemas import TablePayload
from celltrace.shared.xlsx_read import OpenpyxlSheet
from celltrace.shared.xlsx_write import OpenpyxlBook, load_for_write

SAMPLE = Path(__file__).resolve().parents[1] / "addin" / "samples" / "segments.xlsx"
GOLD, LIGHT, GREEN = "#FFD966", "#FFF2CC", "#C6EFCE"
USER_NOTE = "Includes the Baltics since 2023."


def _openpyxl_reader(path: Path, sheet: str) -> SheetReader:
    ws = openpyxl.load_workbook(path, data_only=True)[sheet]
    return OpenpyxlSheet(ws, path.name, set())


def _xlwings_reader(path: Path, sheet: str) -> SheetReader:
    return XlwingsSheet(Probes(FakeBook.from_xlsx(path).sheets[sheet]), sheet, path.name)


def _openpyxl_writer(path: Path) -> BookWriter:
    return OpenpyxlBook(load_for_write(path)[0])


def _xlwings_writer(path: Path) -> BookWriter:
    return XlwingsBook(FakeBook.from_xlsx(path))


BACKENDS: dict[str, tuple[Callable[[Path, str], SheetReader], Callable[[Path], BookWriter]]] = {
    "openpyxl": (_openpyxl_reader, _openpyxl_writer),
    "xlwings": (_xlwings_reader, _xlwings_writer),
}


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """The sample workbook with a user's green fill on F3 and `South`, `East` indented one level."""
    wb = openpyxl.load_workbook(SAMPLE)
    green = "FF" + GREEN[1:]
    wb["Report"]["F3"].fill = openpyxl.styles.PatternFill("solid", start_color=green, end_color=green)
    for ref in ("B5", "B6"):
        wb["Report"][ref].alignment = openpyxl.styles.Alignment(indent=1)
    path = tmp_path / "segments.xlsx"
    wb.save(path)
    return path


@pytest.fixture(params=sorted(BACKENDS))
def book(request: pytest.FixtureRequest, sample: Path) -> BookWriter:
    return BACKENDS[request.param][1](sample)


def colour(book: BookWriter, cell: str) -> str | None:
    return book.fills("Report", [cell])[cell].colour


@pytest.mark.parametrize(
    "bounds",
    [None, (2, 1, 10, 9), (3, 2, 8, 6), (5, 1, 12, 4), (1, 1, 20, 30)],
    ids=["content", "table", "inner-cut-merges", "anchor-outside", "past-used"],
)
def test_every_reader_reads_the_same_table(sample: Path, bounds: tuple[int, int, int, int] | None) -> None:
    tables = {name: read_range(make(sample, "Report"), bounds) for name, (make, _) in BACKENDS.items()}
    first, *rest = tables.values()
    for other in rest:
        assert TablePayload.from_table(other) == TablePayload.from_table(first)
        assert (other.hidden_rows, other.hidden_cols, other.warnings) == (
            first.hidden_rows,
            first.hidden_cols,
            first.warnings,
        )
    if bounds == (2, 1, 10, 9):
        assert first.hidden_rows == {6}  # sheet row 8
        assert first.text[2][0] == "Europe" and first.text[2][2] == "1,250"
        assert [row[1] for row in first.text[2:5]] == ["North", "  South", "  East"]  # Format › Indent
        assert first.values[3][1] == "South"
    if bounds == (3, 2, 8, 6):
        assert any("crosses the range border" in w for w in first.warnings)


def test_empty_range_is_a_user_error(sample: Path) -> None:
    for make, _ in BACKENDS.values():
        with pytest.raises(UserError, match="is empty"):
            read_range(make(sample, "Report"), (11, 1, 11, 9))


def test_fills_cover_merged_areas_and_are_recorded(book: BookWriter) -> None:
    apply_actions(
        book,
        [
            Fill(sheet="Report", address="F7", colour=GOLD, role="answer"),
            Fill(sheet="Report", address="A8", colour=LIGHT, role="header"),
            Fill(sheet="Report", address="F3", colour=LIGHT, role="header"),
        ],
    )
    assert colour(book, "F7") == GOLD
    assert [colour(book, c) for c in ("A7", "F3")] == [LIGHT, LIGHT]
    record = read_record(book)
    assert record.get("fill", "Report", "F3").original.colour == GREEN
    assert {e.cell for e in record} == {"F7", "A7", "A8", "A9", "F3"}  # A8 grew to its merge A7:A9


def test_clear_restores_fills_and_notes_but_keeps_later_edits(book: BookWriter) -> None:
    apply_actions(
        book,
        [
            Fill(sheet="Report", address="F3", colour=GOLD, role="answer"),
            Fill(sheet="Report", address="G3", colour=GOLD, role="answer"),
            Note(sheet="Report", address="B4", text="celltrace\nQ: q"),
        ],
    )
    assert book.note("Report", "B4").text == f"{USER_NOTE}\n\ncelltrace\nQ: q"  # the user's note kept
    apply_actions(book, [Fill(sheet="Report", address="F3", colour=LIGHT, role="header")])
    assert read_record(book).get("fill", "Report", "F3").original.colour == GREEN  # first original kept
    book.paint("Report", [((3, 7, 3, 7), FillState(colour="#010203"))])  # the user recolours G3
    report = apply_actions(book, [Clear()])
    assert colour(book, "F3") == GREEN
    assert book.note("Report", "B4").text == USER_NOTE
    assert report.restored == 2  # F3 and the note; G3 now shows the user's own fill
    assert book.record_rows() == []


def test_answer_cell_is_restored_only_by_clear_values(book: BookWriter) -> None:
    apply_actions(book, [SetValue(sheet="Report", address="K2", value="=1+1", restorable=True)])
    assert book.value("Report", "K2") == ("=1+1", False)  # text, never a formula
    share = SetValue(
        sheet="Report", address="C4", value=0.5, number_format="0%", overwrite=True, restorable=True
    )
    apply_actions(book, [share])
    assert book.value("Report", "C4")[0] == 0.5
    apply_actions(book, [Clear()])
    assert {e.cell for e in read_record(book)} == {"K2", "C4"}
    report = apply_actions(book, [Clear(values=True)])
    assert report.restored == 2
    assert book.value("Report", "K2") == (None, False)
    assert book.value("Report", "C4")[0] == 1250


def test_impossible_targets_are_refused(book: BookWriter) -> None:
    with pytest.raises(UserError, match="C4 is not empty"):
        apply_actions(book, [SetValue(sheet="Report", address="C4", value="x")])
    with pytest.raises(UserError, match="inside the merged area A4:A6"):
        apply_actions(book, [SetValue(sheet="Report", address="A5", value="x")])
    with pytest.raises(UserError, match="no worksheet named 'Nope'"):
        apply_actions(book, [Fill(sheet="Nope", address="A1", colour=GOLD, role="answer")])


def test_select_names_the_whole_merged_area(book: BookWriter) -> None:
    report = apply_actions(book, [Select(sheet="Report", address="A5")])
    assert report.selected == "Report!A4:A6"


def test_damaged_record_is_a_user_error(sample: Path) -> None:
    wb = openpyxl.load_workbook(sample)
    wb.create_sheet("_celltrace")["A1"] = "not a record"
    damaged = sample.with_name("damaged.xlsx")
    wb.save(damaged)
    for _, make in BACKENDS.values():
        with pytest.raises(UserError, match="_celltrace"):
            apply_actions(make(damaged), [Clear()])
