"""The xlwings writer against the fake: fills, notes, answer cell, log, clear/restore, safety."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_xlwings import FakeBook, FakeSheet

from celltrace.addin.writer import MAX_ADDRESS_CHARS, apply_actions, union_addresses
from celltrace.shared.actions import Clear, Fill, LogEntry, Note, Select, SetValue, plan_actions
from celltrace.shared.errors import UserError
from celltrace.shared.restore import RECORD_SHEET, RestoreRecord
from celltrace.shared.schemas import EvidenceCell
from celltrace.shared.xlsx_write import LOG_SHEET

SAMPLE = Path(__file__).resolve().parents[1] / "addin" / "samples" / "segments.xlsx"
GOLD, LIGHT = (0xFF, 0xD9, 0x66), (0xFF, 0xF2, 0xCC)


def evidence(address: str, role: str = "header") -> EvidenceCell:
    return EvidenceCell(sheet="Report", address=address, rows=[0], cols=[0], text="", role=role)  # type: ignore[arg-type]


EVIDENCE = [evidence("F7", "answer"), evidence("A7:A9"), evidence("B7"), evidence("F2:H2"), evidence("F3")]


@pytest.fixture
def book() -> FakeBook:
    book = FakeBook.from_xlsx(SAMPLE)
    sheet = book.sheets["Report"]
    sheet.cell(3, 6).color = (198, 239, 206)  # F3: a user's green fill
    book.calls.total = 0
    return book


def report(book: FakeBook) -> FakeSheet:
    return next(s for s in book.sheets if s.name == "Report")


def colours(book: FakeBook, *refs: str) -> list[tuple[int, int, int] | None]:
    sheet = report(book)
    return [
        sheet.cells.get(sheet.range(ref).bounds[:2]).color
        if sheet.cells.get(sheet.range(ref).bounds[:2])
        else None
        for ref in refs
    ]


def actions(answer: str = "3,720", **kw: object) -> list:
    return plan_actions(
        question="Revenue of USA in 2024?",
        answer=answer,
        evidence=EVIDENCE,
        engine="offline",
        default_sheet="Report",
        **kw,
    )  # type: ignore[arg-type]


def state(book: FakeBook) -> dict:
    """Every non-blank cell of the report sheet: value, fill, note."""
    cells = report(book).cells.items()
    out = {k: (c.value, c.color, c.note.text if c.note else None) for k, c in cells}
    return {k: v for k, v in out.items() if v != (None, None, None)}


def record_of(book: FakeBook) -> RestoreRecord:
    sheet = next(s for s in book.sheets if s.name == RECORD_SHEET)
    rows = sheet.range("A1:Z200").options(ndim=2).value
    return RestoreRecord.from_rows(["".join(str(v) for v in row if v) for row in rows if any(row)])


def test_fills_whole_merged_areas_grouped_by_colour(book: FakeBook) -> None:
    apply_actions(book, actions())
    assert colours(book, "F7") == [GOLD]
    assert colours(book, "A7", "A8", "A9", "B7", "F2", "G2", "H2", "F3") == [LIGHT] * 8
    assert colours(book, "G7", "A10") == [None, None]
    # the 9 cells' originals are read once each; then one write per colour (answer, header)
    assert book.calls.kinds["Interior.ColorIndex"] == 9
    assert book.calls.kinds["Interior.Color"] - book.calls.kinds["Interior.ColorIndex"] == 2


def test_union_addresses_respect_excels_limit() -> None:
    refs = [f"AB{r}:AC{r}" for r in range(1000, 1100)]
    chunks = union_addresses(refs)
    assert all(len(c) <= MAX_ADDRESS_CHARS for c in chunks)
    assert ",".join(chunks).split(",") == refs
    assert union_addresses([]) == []


def test_many_scattered_cells_are_chunked(book: FakeBook) -> None:
    fills = [Fill(sheet="Report", address=f"Z{r}", colour="#FFD966", role="answer") for r in range(1, 121)]
    apply_actions(book, fills)  # the fake raises on a Range() address over 255 characters
    sheet = report(book)
    assert all(sheet.cells[(r, 26)].color == GOLD for r in range(1, 121))
    color_writes = book.calls.kinds["Interior.Color"] - book.calls.kinds["Interior.ColorIndex"]
    assert 1 < color_writes < 10


def test_note_on_first_answer_cell_and_select(book: FakeBook) -> None:
    result = apply_actions(book, actions())
    note = report(book).cells[(7, 6)].note
    assert note is not None and note.text.startswith("celltrace\nQ: Revenue of USA in 2024?\nA: 3,720")
    assert result.selected == "Report!F7"
    assert book.app.selection.bounds == (7, 6, 7, 6)


def test_existing_user_note_is_kept_and_restored(book: FakeBook) -> None:
    ev = [evidence("B4", "answer")]
    apply_actions(book, plan_actions(question="q", answer="North", evidence=ev, engine="offline"))
    note = report(book).cells[(4, 2)].note
    assert note.text.startswith("Includes the Baltics since 2023.\n\ncelltrace\nQ: q")
    apply_actions(book, [Clear()])
    note = report(book).cells[(4, 2)].note
    assert (note.text, note.author) == ("Includes the Baltics since 2023.", "Analyst")


def test_answer_cell_is_text_never_a_formula(book: FakeBook) -> None:
    for value, cell in [
        ("=1+1", "K2"),
        ("+CMD|' /C calc'!A0", "K3"),
        ("-2", "K4"),
        ("@SUM(A1)", "K5"),
        ("#N/A", "K6"),
        ("1,234", "K7"),
    ]:
        apply_actions(book, [SetValue(sheet="Report", address=cell, value=value)])
        stored = report(book).cells[report(book).range(cell).bounds[:2]]
        assert (stored.value, stored.formula, stored.error) == (value, None, False)
        assert stored.prefix


def test_a_number_goes_in_as_a_number_with_its_format(book: FakeBook) -> None:
    apply_actions(book, [SetValue(sheet="Report", address="K8", value=0.038283, number_format="0.0%")])
    stored = report(book).cells[(8, 11)]
    assert (stored.value, stored.number_format, stored.prefix) == (0.038283, "0.0%", False)
    assert report(book).range("K8").api.Text == "3.8%"
    apply_actions(book, [SetValue(sheet="Report", address="K9", value="=1+1", number_format="0.0%")])
    stored = report(book).cells[(9, 11)]
    assert (stored.value, stored.number_format, stored.prefix) == ("=1+1", "General", True)


def test_answer_cell_refusals(book: FakeBook) -> None:
    with pytest.raises(UserError, match="not empty"):
        apply_actions(book, [SetValue(sheet="Report", address="C4", value="x")])
    with pytest.raises(UserError, match="inside the merged area A4:A6"):
        apply_actions(book, [SetValue(sheet="Report", address="A5", value="x")])
    with pytest.raises(UserError, match="no worksheet"):
        apply_actions(book, [SetValue(sheet="Nope", address="A1", value="x")])
    apply_actions(book, [SetValue(sheet="Report", address="C4", value=99, overwrite=True)])
    assert report(book).cells[(4, 3)].value == 99


def log_row(**fields: str) -> LogEntry:
    """A log entry for sheet Report; `fields` override the defaults."""
    values = {
        "timestamp": "2024-01-02T09:00:00+00:00", "sheet": "Report", "range": "A1", "question": "q",
        "answer": "a", "status": "answered", "evidence": "", "engine": "offline", "llm_calls": 0,
    } | fields  # fmt: skip
    return LogEntry(**values)


def test_log_sheet_rows(book: FakeBook) -> None:
    row = log_row(question="=2+2", answer="-5", range="A2:I10", evidence="F7")
    apply_actions(book, [], log=[row])
    apply_actions(book, [], log=[row.model_copy(update={"question": "second"})])
    log = next(s for s in book.sheets if s.name == LOG_SHEET)
    values = log.range("A1:I3").options(ndim=2).value
    assert values[0] == LogEntry.columns()
    assert values[1][3:5] == ["=2+2", "-5"] and log.cells[(2, 4)].formula is None
    assert values[2][3] == "second"
    assert book.active_sheet.name == "Report"  # adding the log sheet does not move the user


def test_user_sheet_named_celltrace_is_left_alone(book: FakeBook) -> None:
    mine = book.sheets.add("celltrace")
    mine.set(1, 1, "my own notes")
    row = log_row()
    apply_actions(book, [], log=[row])
    assert mine.cells[(1, 1)].value == "my own notes"
    assert "celltrace 2" in book.sheets


def test_clear_restores_original_fills_exactly(book: FakeBook) -> None:
    before = colours(book, "F7", "A7", "A8", "F3", "F2")
    apply_actions(book, actions())
    record_sheet = next(s for s in book.sheets if s.name == RECORD_SHEET)
    assert record_sheet.visible_state == "veryHidden"
    entries = {(e.kind, e.cell): e for e in record_of(book)}
    assert entries[("fill", "F3")].original.colour == "#C6EFCE"
    assert entries[("fill", "F7")].applied == "#FFD966"
    apply_actions(book, actions())  # highlighting again keeps the first originals
    assert record_of(book).get("fill", "Report", "F3").original.colour == "#C6EFCE"
    report(book).cells[(7, 2)].color = (1, 2, 3)  # the user recolours B7 afterwards: kept
    result = apply_actions(book, [Clear()])
    assert colours(book, "F7", "A7", "A8", "F3", "F2") == before
    assert colours(book, "B7") == [(1, 2, 3)]
    assert report(book).cells[(7, 6)].note is None
    assert RECORD_SHEET not in book.sheets
    assert result.restored == 9  # 8 of the 9 filled cells (B7 was recoloured) + the note


def test_failure_rolls_everything_back(book: FakeBook) -> None:
    snapshot = state(book)
    sheets = [s.name for s in book.sheets]
    bad = [*actions(), SetValue(sheet="Report", address="C4", value="x")]  # C4 is not empty
    row = log_row()
    with pytest.raises(UserError, match="not empty"):
        apply_actions(book, bad, log=[row])
    assert state(book) == snapshot
    assert [s.name for s in book.sheets] == sheets
    assert book.app._screen_updating is True


def test_failure_after_fills_restores_previous_highlight(
    book: FakeBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    apply_actions(book, actions())
    first = colours(book, "F7", "A7", "F3")
    from celltrace.addin import writer

    def broken(*args: object) -> None:
        raise RuntimeError("Excel went away")

    monkeypatch.setattr(writer, "_write_record_rows", broken)
    other = plan_actions(question="q", answer="a", evidence=[evidence("C4", "answer")], engine="offline")
    with pytest.raises(RuntimeError):
        apply_actions(book, [Clear(), *other])
    assert colours(book, "F7", "A7", "F3", "C4") == [*first, None]
    assert report(book).cells[(7, 6)].note is not None


def test_select_on_hidden_sheet_is_a_warning(book: FakeBook) -> None:
    report(book).visible_state = "hidden"
    result = apply_actions(book, [Select(sheet="Report", address="B4")])
    assert result.selected is None and "could not select" in result.warnings[0]


def test_note_text_is_capped_and_cleaned(book: FakeBook) -> None:
    apply_actions(book, [Note(sheet="Report", address="K9", text='=HYPERLINK("x")\x07' + "y" * 5000)])
    note = report(book).cells[(9, 11)].note
    assert note.text.startswith("=HYPERLINK") and "\x07" not in note.text and len(note.text) <= 1000
