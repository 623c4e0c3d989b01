"""The sheet-backend seam: one reader and one action applier over any workbook surface.

A backend is what celltrace needs of a spreadsheet program, nothing more:

* `SheetReader`: one worksheet's used extent, cells (displayed text and JSON-ready raw values, both
  computed from the cell's number format), merged areas, hidden rows and columns, and formulas
  without a cached value. `read_range` turns it into a `Table`.
* `BookWriter`: one workbook's fills, notes and answer cells, the restore record's rows, the log
  sheet and the selection, inside a transaction. `apply_actions` replays the engine-neutral action
  queue (`celltrace.shared.actions`) on it and keeps the restore record (`celltrace.shared.restore`).

Two backends implement both: openpyxl on a file (`shared/xlsx_read.py`, `shared/xlsx_write.py`) and
xlwings on live Excel (`addin/reader.py`, `addin/writer.py`); `tests/test_backends.py` runs the same
suite over both. Coordinates are 1-based sheet (row, column); `Bounds` is inclusive.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from celltrace.shared.a1 import AddressError, cell_ref, parse_range, range_ref
from celltrace.shared.actions import NOTE_MAX_CHARS, Action, Clear, Fill, LogEntry, Note, Select, SetValue
from celltrace.shared.errors import UserError, WorkbookError
from celltrace.shared.restore import (
    RECORD_SHEET,
    FillEntry,
    FillState,
    NoteEntry,
    NoteState,
    RecordError,
    RestoreRecord,
    Scalar,
    ValueEntry,
)
from celltrace.shared.safe_text import clean_text
from celltrace.shared.table import Merge, Origin, Table

Bounds = tuple[int, int, int, int]
"""1-based inclusive (min_row, min_col, max_row, max_col) on the sheet."""
Grid = tuple[list[list[str]], list[list[object]]]
"""(displayed text, JSON-ready raw values), row-major."""

LOG_SHEET = "celltrace"
NOTE_AUTHOR = "celltrace"
MAX_LISTED = 10
"""Addresses listed in one warning before it says "and N more"."""
MAX_ROW, MAX_COL = 1_048_576, 16_384


# ---- reading ---------------------------------------------------------------------------------
class SheetReader(Protocol):
    """One worksheet as a read backend sees it."""

    title: str
    workbook: str | None

    def extent(self) -> Bounds:
        """The used range (what Excel's `UsedRange` or openpyxl's dimensions report)."""
        ...

    def grid(self, bounds: Bounds) -> Grid:
        """Displayed text and raw values of every cell in `bounds` (empty: `""` and None); a text
        cell's indent level shows as leading spaces (`indented`)."""
        ...

    def cell(self, row: int, col: int) -> tuple[str, object] | None:
        """Displayed text and raw value of one cell; None when it is empty."""
        ...

    def merges(self, bounds: Bounds) -> list[Bounds]:
        """Whole merged areas intersecting `bounds` (not clipped)."""
        ...

    def uncached(self, bounds: Bounds) -> list[tuple[int, int]]:
        """Formula cells in `bounds` without a cached value (live Excel: none)."""
        ...

    def hidden(self, bounds: Bounds) -> tuple[frozenset[int], frozenset[int]]:
        """0-based hidden rows and columns within `bounds`."""
        ...


INDENT = "  "
"""Leading spaces per Excel indent level (Format Cells › Indent) of a text cell's displayed text:
statements indent line items that way, and the header model reads indentation from leading spaces."""


def indented(text: str, level: int | None) -> str:
    """A text cell's displayed text at indent `level` (every reader shows indentation the same way)."""
    return INDENT * int(level or 0) + text


def parse_ref(ref: str) -> Bounds:
    """A1 range, single cell, whole columns (`A:C`) or whole rows (`1:5`) → bounds (`UserError`)."""
    text = ref.strip().replace("$", "")
    left, sep, right = text.partition(":")
    try:
        if sep and left.isalpha() and right.isalpha():
            a, b = sorted((parse_range(f"{left}1")[1], parse_range(f"{right}1")[1]))
            return 1, a, MAX_ROW, b
        if sep and left.isdigit() and right.isdigit():
            a, b = sorted((int(left), int(right)))
            if a < 1:
                raise AddressError(f"row {a} out of range")
            return a, 1, b, MAX_COL
        return parse_range(text)
    except AddressError as exc:
        raise UserError(f"malformed range {ref!r}: {exc}") from None


_PLAIN = frozenset((int, float, str, bool))


def json_value(value: object) -> object:
    """A cell value → JSON-ready raw value (dates as ISO text, durations as Excel day counts)."""
    if type(value) in _PLAIN:  # the common cell: nothing to convert
        return value
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds() / 86_400
    return value


def read_range(sheet: SheetReader, bounds: Bounds | None) -> Table:
    """Read `bounds` of `sheet` (None: its content, the used range trimmed of blank borders).

    Parts past the used range are dropped with a warning; merged areas crossing the border are
    clipped (the anchor's content moves into the clipped area); formulas without a cached value and
    hidden rows or columns are reported in `Table.warnings`. `UserError` for an empty range.
    """
    warnings: list[str] = []
    extent = sheet.extent()
    if bounds is None:
        text, values = sheet.grid(extent)
        used = _content_bounds(text, extent, sheet.uncached(extent), sheet.merges(extent))
        if used is None:
            raise UserError(f"sheet {sheet.title!r} is empty")
        dr, dc, h, w = used[0] - extent[0], used[1] - extent[1], used[2] - used[0] + 1, used[3] - used[1] + 1
        text = [row[dc : dc + w] for row in text[dr : dr + h]]
        values = [row[dc : dc + w] for row in values[dr : dr + h]]
        read = used
    else:
        read = (bounds[0], bounds[1], min(bounds[2], extent[2]), min(bounds[3], extent[3]))
        if read[0] > read[2] or read[1] > read[3]:
            raise UserError(f"range {range_ref(*bounds)} on sheet {sheet.title!r} is empty")
        if read != bounds:
            warnings.append(
                f"range {range_ref(*bounds)} extends past the last used cell of sheet {sheet.title!r}; "
                f"read {range_ref(*read)}"
            )
        text, values = sheet.grid(read)
    merges = _clip_merges(sheet, read, text, values, warnings)
    missing = sorted(sheet.uncached(read))
    if not missing and not any(t.strip() for row in text for t in row):
        raise UserError(f"range {range_ref(*read)} on sheet {sheet.title!r} is empty")
    if missing:
        listed = ", ".join(range_ref(r, c, r, c) for r, c in missing[:MAX_LISTED])
        more = f" and {len(missing) - MAX_LISTED} more" if len(missing) > MAX_LISTED else ""
        warnings.append(
            f"{len(missing)} formula cell(s) have no cached value (workbook not recalculated in Excel; "
            f"read as empty): {listed}{more}"
        )
    hidden_rows, hidden_cols = sheet.hidden(read)
    if hidden_rows or hidden_cols:
        warnings.append(
            f"{len(hidden_rows)} hidden row(s) and {len(hidden_cols)} hidden column(s) are included"
        )
    return Table(
        text=text,
        values=values,
        merges=merges,
        title=None,
        origin=Origin(sheet=sheet.title, address=range_ref(*read), workbook=sheet.workbook),
        hidden_rows=hidden_rows,
        hidden_cols=hidden_cols,
        warnings=warnings,
    )


def _content_bounds(
    text: list[list[str]], extent: Bounds, uncached: list[tuple[int, int]], merges: list[Bounds]
) -> Bounds | None:
    """Bounding box of non-blank cells and uncached formulas, grown to whole touching merged areas."""
    top, left = extent[0], extent[1]
    rows = [i for i, row in enumerate(text) if any(t.strip() for t in row)]
    cols = [j for j in range(len(text[0]) if text else 0) if any(row[j].strip() for row in text)]
    points = list(uncached)
    if rows:
        points += [(top + rows[0], left + cols[0]), (top + rows[-1], left + cols[-1])]
    if not points:
        return None
    box = (
        min(r for r, _ in points),
        min(c for _, c in points),
        max(r for r, _ in points),
        max(c for _, c in points),
    )
    grown = True
    while grown:
        grown = False
        for m in merges:
            if m[0] <= box[2] and box[0] <= m[2] and m[1] <= box[3] and box[1] <= m[3]:
                new = (min(box[0], m[0]), min(box[1], m[1]), max(box[2], m[2]), max(box[3], m[3]))
                grown, box = grown or new != box, new
    return box


def _clip_merges(
    sheet: SheetReader, read: Bounds, text: list[list[str]], values: list[list[object]], warnings: list[str]
) -> list[Merge]:
    """Merged areas intersecting `read`, 0-based within it. An area crossing the border is clipped
    (with a warning); if that cuts off its anchor, the anchor's content moves to the clipped area."""
    top, left = read[0], read[1]
    out: list[Merge] = []
    for m in sorted(sheet.merges(read)):
        clip = (max(m[0], read[0]), max(m[1], read[1]), min(m[2], read[2]), min(m[3], read[3]))
        if clip[0] > clip[2] or clip[1] > clip[3]:
            continue
        if clip != m:
            warnings.append(
                f"merged area {range_ref(*m)} crosses the range border; clipped to {range_ref(*clip)}"
            )
            if clip[:2] != m[:2] and (anchor := sheet.cell(m[0], m[1])) is not None:
                text[clip[0] - top][clip[1] - left], values[clip[0] - top][clip[1] - left] = anchor
        out.append((clip[0] - top, clip[1] - left, clip[2] - top, clip[3] - left))
    return out


# ---- writing ---------------------------------------------------------------------------------
@dataclass
class WriteReport:
    """What applying actions did (file mode: where it wrote)."""

    output: Path | None = None
    warnings: list[str] = field(default_factory=list)
    """Backend warnings: openpyxl's load warnings, a selection that could not be made."""
    restored: int = 0
    """Cells whose original fill, note or value a `Clear` put back."""
    logs_dropped: int = 0
    written: bool = True
    """False when nothing of celltrace's was found and no file was written."""
    selected: str | None = None
    """`Sheet!A1:B2` selected by a `Select` action."""


class BookWriter(Protocol):
    """One workbook as a write backend sees it; cells are A1 references on a sheet title."""

    overwrite_hint: str
    """How the user allows overwriting a non-empty answer cell (in the refusal message)."""

    def transaction(self) -> AbstractContextManager[None]:
        """All changes inside take effect together or (on an exception) not at all."""
        ...

    def worksheet(self, name: str) -> str:
        """The title of worksheet `name`; `UserError` when there is none."""
        ...

    def area(self, sheet: str, address: str) -> Bounds:
        """`address` grown to the merged areas it cuts (a cell in a merge → the whole merge)."""
        ...

    def fills(self, sheet: str, cells: Sequence[str]) -> dict[str, FillState]:
        """The current fill of each cell."""
        ...

    def shows_fill(self, sheet: str, cell: str, colour: str) -> bool:
        """Whether `cell` still shows `colour` (cells whose fill cannot be read count as showing it)."""
        ...

    def paint(self, sheet: str, areas: Sequence[tuple[Bounds, FillState]]) -> None:
        """Fill each area, in order."""
        ...

    def note(self, sheet: str, cell: str) -> NoteState | None: ...

    def set_note(self, sheet: str, cell: str, note: NoteState | None) -> None: ...

    def value(self, sheet: str, cell: str) -> tuple[Scalar, bool]:
        """The cell's content as the record keeps it (a formula as its text) and whether it is one."""
        ...

    def write(self, sheet: str, cell: str, value: Scalar, number_format: str | None) -> None:
        """Store an answer: strings always as text, a number with `number_format`."""
        ...

    def restore(self, sheet: str, cell: str, entry: ValueEntry) -> None:
        """Put back the original of a recorded answer cell."""
        ...

    def record_rows(self) -> list[str]:
        """The restore record's rows as stored in the workbook ([] when there is none)."""
        ...

    def write_record_rows(self, rows: list[str]) -> None:
        """Replace the stored record ([] removes it)."""
        ...

    def append_log(self, entries: Sequence[LogEntry]) -> None: ...

    def select(self, sheet: str, bounds: Bounds) -> str | None:
        """Activate `sheet` and select `bounds`; returns `Sheet!A1:B2`, None when not possible."""
        ...


def apply_actions(
    book: BookWriter, actions: Iterable[Action], *, log: Sequence[LogEntry] = ()
) -> WriteReport:
    """Apply `actions` in order (then store the restore record and append `log` rows), all or none.

    Runs of `Fill`s are applied together (one read of each cell's original, one write per area);
    the last `Select` is made after everything else, and failing to select is only a warning.
    Raises `UserError` for impossible targets (unknown sheet, a non-empty answer cell without
    overwrite, a cell inside a merged area) after undoing whatever was applied.
    """
    actions = list(actions)
    applier = _Applier(book)
    with book.transaction():
        pending: list[Fill] = []
        for action in [*actions, None]:
            if isinstance(action, Fill):
                pending.append(action)
                continue
            if pending:
                applier.fills(pending)
                pending = []
            if isinstance(action, Note):
                applier.note(action)
            elif isinstance(action, SetValue):
                applier.set_value(action)
            elif isinstance(action, Clear):
                applier.clear(action.values)
        rows = applier.record.to_rows() if len(applier.record) else []
        if rows != applier.stored_rows:
            book.write_record_rows(rows)
        book.append_log(log)
    for select in [a for a in actions if isinstance(a, Select)][-1:]:
        try:
            sheet = book.worksheet(select.sheet)
            applier.report.selected = book.select(sheet, book.area(sheet, select.address))
        except Exception as exc:  # a hidden sheet cannot be selected; the answer stands
            applier.report.warnings.append(f"could not select {select.address}: {exc}")
    return applier.report


def read_record(book: BookWriter) -> RestoreRecord:
    """The workbook's restore record (empty when there is none); `UserError` when it is damaged."""
    try:
        return RestoreRecord.from_rows(book.record_rows())
    except RecordError as exc:
        raise WorkbookError(f"hidden sheet {RECORD_SHEET!r}: {exc}") from None


class _Applier:
    """The record-keeping rules shared by every backend."""

    def __init__(self, book: BookWriter) -> None:
        self.book = book
        self.report = WriteReport()
        self.stored_rows = book.record_rows()
        self.record = read_record(book)

    def fills(self, actions: list[Fill]) -> None:
        """A run of fills: each cell's original recorded once, then one write per area."""
        areas: dict[str, list[tuple[Bounds, FillState]]] = {}
        seen: dict[str, dict[str, FillState]] = {}
        for action in actions:
            sheet = self.book.worksheet(action.sheet)
            r0, c0, r1, c1 = self.book.area(sheet, action.address)
            cells = [cell_ref(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
            known = seen.setdefault(sheet, {})
            known.update(self.book.fills(sheet, [c for c in cells if c not in known]))
            for cell in cells:
                self.record.remember(
                    FillEntry(sheet=sheet, cell=cell, original=known[cell], applied=action.colour)
                )
            areas.setdefault(sheet, []).append(((r0, c0, r1, c1), FillState(colour=action.colour)))
        for sheet, painted in areas.items():
            self.book.paint(sheet, painted)

    def note(self, action: Note) -> None:
        sheet = self.book.worksheet(action.sheet)
        cell = cell_ref(*self.book.area(sheet, action.address)[:2])
        entry = self.record.get("note", sheet, cell)
        original = entry.original if isinstance(entry, NoteEntry) else self.book.note(sheet, cell)
        text = clean_text(action.text, NOTE_MAX_CHARS)
        if original is not None:  # never replace a user's note: add below it
            text = clean_text(f"{original.text}\n\n{text}")
        self.book.set_note(sheet, cell, NoteState(text=text, author=NOTE_AUTHOR))
        self.record.remember(NoteEntry(sheet=sheet, cell=cell, original=original, applied=text))

    def set_value(self, action: SetValue) -> None:
        sheet = self.book.worksheet(action.sheet)
        r0, c0, _, _ = parse_range(action.address)
        cell = cell_ref(r0, c0)
        where = f"{sheet}!{cell}"
        area = self.book.area(sheet, cell)
        if area[:2] != (r0, c0):
            merge = range_ref(*area)
            raise UserError(f"{where} is inside the merged area {merge}; write to its top-left cell")
        original, formula = self.book.value(sheet, cell)
        if not action.overwrite and original not in (None, ""):
            raise UserError(f"{where} is not empty; {self.book.overwrite_hint}")
        self.book.write(sheet, cell, action.value, action.format_for_number())
        if action.restorable:
            applied = self.book.value(sheet, cell)[0]
            self.record.remember(
                ValueEntry(sheet=sheet, cell=cell, original=original, applied=applied, formula=formula)
            )

    def clear(self, values: bool) -> None:
        """Put back every recorded original that still shows what celltrace applied (answer values
        only with `values`; otherwise their entries stay in the record)."""
        kept = [e for e in self.record if isinstance(e, ValueEntry) and not values]
        restore: dict[str, list[tuple[Bounds, FillState]]] = {}
        for entry in self.record:
            if entry in kept:
                continue
            try:
                sheet = self.book.worksheet(entry.sheet)
            except UserError:
                continue
            if isinstance(entry, FillEntry):
                if self.book.shows_fill(sheet, entry.cell, entry.applied):
                    restore.setdefault(sheet, []).append((parse_range(entry.cell), entry.original))
                    self.report.restored += 1
            elif isinstance(entry, ValueEntry):
                if self.book.area(sheet, entry.cell)[:2] == parse_range(entry.cell)[:2] and (
                    self.book.value(sheet, entry.cell)[0] == entry.applied
                ):
                    self.book.restore(sheet, entry.cell, entry)
                    self.report.restored += 1
            else:
                note = self.book.note(sheet, entry.cell)
                if note is not None and note.text == entry.applied:
                    self.book.set_note(sheet, entry.cell, entry.original)
                    self.report.restored += 1
        for sheet, areas in restore.items():
            self.book.paint(sheet, areas)
        self.record = RestoreRecord(kept)
