"""Apply engine-neutral actions to a live workbook through xlwings, all or nothing.

* **Fills** go on whole merged areas, grouped by colour into union addresses (`"B2,D7:E7"`), each
  under Excel's 255-character limit for `Range()`; one call per group instead of one per cell.
* **Notes** are legacy notes on the first cell of an area (`add_note`, else `api.AddComment`); a
  user's existing note is kept and celltrace's text is added below it, never replacing it.
* **SetValue** writes into the top-left cell; every string goes in with a leading apostrophe, so
  Excel stores it as text (`=…`, `+…`, `-…`, `@…`, `#N/A`, `1,234` never become formulas, errors
  or numbers); a number goes in as a number with the action's `number_format` (the answer's source
  format). A non-empty cell is refused unless `overwrite`; a cell inside a merge is refused.
* **Clear** restores every recorded fill and note that still shows what celltrace applied.
* The **restore record** is the file-mode one (`celltrace.shared.restore`) in the very hidden sheet
  `_celltrace`, so a workbook highlighted here clears in file mode and the other way round. Only
  colours are known through xlwings: a patterned or gradient fill is recorded as its colour.
* The **log** goes to the visible `celltrace` sheet, one row per answer (`LogEntry`).

Everything runs with screen updating off. Each change registers its inverse first; if any step
fails, the inverses run in reverse order, so Excel is left as it was and the error is raised.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from celltrace.addin.reader import screen_updating_off
from celltrace.shared.a1 import cell_ref, parse_range, range_ref
from celltrace.shared.actions import NOTE_MAX_CHARS, Action, Clear, Fill, LogEntry, Note, Select, SetValue
from celltrace.shared.errors import UserError
from celltrace.shared.restore import (
    RECORD_SHEET,
    FillEntry,
    FillState,
    NoteEntry,
    NoteState,
    RecordError,
    RestoreRecord,
    split_chunks,
)
from celltrace.shared.safe_text import clean_text
from celltrace.shared.xlsx_write import LOG_SHEET

MAX_ADDRESS_CHARS = 255
XL_SHEET_VERY_HIDDEN = 2
Bounds = tuple[int, int, int, int]


@dataclass
class WriteReport:
    restored: int = 0
    """Cells whose original fill or note a `Clear` put back."""
    selected: str | None = None
    warnings: list[str] = field(default_factory=list)


def as_text(value: Any) -> Any:
    """What to assign to a cell so Excel keeps a string as text (apostrophe prefix)."""
    return "'" + clean_text(value) if isinstance(value, str) else value


def hex_colour(rgb: Any) -> str | None:
    """xlwings' `(r, g, b)` (or None) → `#RRGGBB`."""
    return None if rgb is None else "#{:02X}{:02X}{:02X}".format(*rgb)


def union_addresses(refs: Iterable[str], limit: int = MAX_ADDRESS_CHARS) -> list[str]:
    """Join A1 references with commas into as few addresses as fit under `limit` characters."""
    chunks: list[str] = []
    current = ""
    for ref in refs:
        candidate = f"{current},{ref}" if current else ref
        if len(candidate) > limit and current:
            chunks.append(current)
            candidate = ref
        current = candidate
    return [*chunks, current] if current else chunks


class _Writer:
    """One transaction on one book: apply, and on failure undo in reverse order."""

    def __init__(self, book: Any) -> None:
        self.book = book
        self.undo: list[Callable[[], None]] = []
        self.report = WriteReport()
        self._sheets: dict[str, Any] = {}
        self._record_rows = _read_record_rows(book)
        try:
            self.record = RestoreRecord.from_rows(self._record_rows)
        except RecordError as exc:
            raise UserError(f"hidden sheet {RECORD_SHEET!r}: {exc}") from None

    def sheet(self, name: str) -> Any:
        if name not in self._sheets:
            try:
                self._sheets[name] = self.book.sheets[name]
            except Exception:
                raise UserError(f"no worksheet named {name!r}") from None
        return self._sheets[name]

    def area(self, sheet: Any, address: str) -> Bounds:
        """`address` grown to the merged area of its top-left cell."""
        b = parse_range(address)
        m = parse_range(sheet.range(cell_ref(*b[:2])).merge_area.address.replace("$", ""))
        return min(b[0], m[0]), min(b[1], m[1]), max(b[2], m[2]), max(b[3], m[3])

    # -- colours --
    def colour_of(self, sheet: Any, ref: str) -> str | None:
        return hex_colour(sheet.range(ref).color)

    def paint(self, sheet: Any, colours: dict[str, str | None]) -> None:
        """Set cell (or area) → colour, one union address per colour and chunk."""
        by_colour: dict[str | None, list[str]] = {}
        for ref, colour in colours.items():
            by_colour.setdefault(colour, []).append(ref)
        for colour, refs in by_colour.items():
            for chunk in union_addresses(refs):
                sheet.range(chunk).color = colour

    def fills(self, actions: list[Fill]) -> None:
        """A run of fills: originals recorded per cell, then one call per colour group."""
        before: dict[str, dict[str, str | None]] = {}
        targets: dict[str, dict[str, str]] = {}
        for action in actions:
            sheet = self.sheet(action.sheet)
            r0, c0, r1, c1 = self.area(sheet, action.address)
            prior = before.setdefault(sheet.name, {})
            for row in range(r0, r1 + 1):
                for col in range(c0, c1 + 1):
                    ref = cell_ref(row, col)
                    if ref not in prior:
                        prior[ref] = self.colour_of(sheet, ref)
                    self.record.remember(
                        FillEntry(
                            sheet=sheet.name,
                            cell=ref,
                            original=FillState(colour=prior[ref]),
                            applied=action.colour,
                        )
                    )
            targets.setdefault(sheet.name, {})[range_ref(r0, c0, r1, c1)] = action.colour
        for name, colours in targets.items():
            sheet = self.sheet(name)
            self.undo.append(lambda s=sheet, p=before[name]: self.paint(s, p))
            self.paint(sheet, colours)

    # -- notes --
    def note(self, action: Note) -> None:
        sheet = self.sheet(action.sheet)
        r0, c0, _, _ = self.area(sheet, action.address)
        ref = cell_ref(r0, c0)
        cell = sheet.range(ref)
        existing = cell.note
        current = existing.text if existing is not None else None
        entry = self.record.get("note", sheet.name, ref)
        if entry is not None:
            original = entry.original
        elif existing is not None:
            original = NoteState(text=current or "", author=_author(existing))
        else:
            original = None
        text = clean_text(action.text, NOTE_MAX_CHARS)
        if original is not None:  # never replace a user's note: add below it
            text = clean_text(f"{original.text}\n\n{text}")
        self.undo.append(lambda: _set_note(sheet.range(ref), current))
        _set_note(cell, text, existing)
        self.record.remember(NoteEntry(sheet=sheet.name, cell=ref, original=original, applied=text))

    # -- values --
    def set_value(self, action: SetValue) -> None:
        sheet = self.sheet(action.sheet)
        r0, c0, _, _ = parse_range(action.address)
        ref = cell_ref(r0, c0)
        cell = sheet.range(ref)
        where = f"{sheet.name}!{ref}"
        merge = cell.merge_area.address.replace("$", "")
        if parse_range(merge)[:2] != (r0, c0):
            raise UserError(f"{where} is inside the merged area {merge}; write to its top-left cell")
        formula, value = cell.formula, cell.value
        if not action.overwrite and value not in (None, ""):
            raise UserError(f"{where} is not empty; choose an empty cell or allow overwriting")
        previous = formula if isinstance(formula, str) and formula.startswith("=") else as_text(value)
        self.undo.append(lambda: setattr(sheet.range(ref), "value", previous))
        number_format = action.format_for_number()
        if number_format:  # before the value, so Excel never shows the number in another format
            old_format = cell.number_format
            self.undo.append(lambda: setattr(sheet.range(ref), "number_format", old_format))
            cell.number_format = number_format
        cell.value = as_text(action.value) if action.value is not None else ""

    # -- clear --
    def clear(self) -> None:
        """Put back every recorded original that still shows what celltrace applied."""
        fills: dict[str, dict[str, str | None]] = {}
        undo_fills: dict[str, dict[str, str | None]] = {}
        for entry in self.record:
            try:
                sheet = self.sheet(entry.sheet)
            except UserError:
                continue
            if isinstance(entry, FillEntry):
                if self.colour_of(sheet, entry.cell) == entry.applied:
                    fills.setdefault(sheet.name, {})[entry.cell] = entry.original.colour
                    undo_fills.setdefault(sheet.name, {})[entry.cell] = entry.applied
                    self.report.restored += 1
                continue
            if not isinstance(entry, NoteEntry):  # answer values are restored by file mode only
                continue
            cell = sheet.range(entry.cell)
            note = cell.note
            if note is not None and note.text == entry.applied:
                self.undo.append(lambda s=sheet, e=entry: _set_note(s.range(e.cell), e.applied))
                _set_note(cell, entry.original.text if entry.original else None, note)
                self.report.restored += 1
        for name, colours in fills.items():
            sheet = self.sheet(name)
            self.undo.append(lambda s=sheet, p=undo_fills[name]: self.paint(s, p))
            self.paint(sheet, colours)
        self.record = RestoreRecord()

    # -- sheets: record and log --
    def save_record(self) -> None:
        rows = self.record.to_rows() if len(self.record) else []
        if rows == self._record_rows:
            return
        old = self._record_rows
        self.undo.append(lambda: _write_record_rows(self.book, old))
        _write_record_rows(self.book, rows)

    def append_log(self, entries: Sequence[LogEntry]) -> None:
        if not entries:
            return
        sheet, created = _log_sheet(self.book)
        if created:
            self.undo.append(sheet.delete)
            sheet.range("A1").value = LogEntry.columns()
            row = 2
        else:
            row = parse_range(sheet.used_range.address.replace("$", ""))[2] + 1
            end = row + len(entries) - 1
            self.undo.append(
                lambda: sheet.range(range_ref(row, 1, end, len(LogEntry.columns()))).clear_contents()
            )
        sheet.range(cell_ref(row, 1)).value = [
            [as_text(getattr(e, name)) for name in LogEntry.columns()] for e in entries
        ]

    def rollback(self) -> None:
        for step in reversed(self.undo):
            with contextlib.suppress(Exception):  # best effort: undo as much as Excel lets us
                step()
        self.undo.clear()


def _author(note: Any) -> str | None:
    try:
        return str(note.api.Author)
    except Exception:  # macOS notes have no author through xlwings
        return None


def _set_note(cell: Any, text: str | None, existing: Any = None) -> None:
    """Make `cell`'s legacy note read `text` (None: no note)."""
    note = existing if existing is not None else cell.note
    if text is None:
        if note is not None:
            note.delete()
    elif note is not None:
        note.text = text
    elif hasattr(cell, "add_note"):
        cell.add_note(text)
    else:  # xlwings before 0.37
        cell.api.AddComment(text)


def _find_sheet(book: Any, name: str) -> Any:
    for sheet in book.sheets:
        if sheet.name == name:
            return sheet
    return None


def _read_record_rows(book: Any) -> list[str]:
    sheet = _find_sheet(book, RECORD_SHEET)
    if sheet is None:
        return []
    rows = sheet.used_range.options(ndim=2).value
    return [s for s in ("".join(str(v) for v in row if v is not None) for row in rows) if s]


def _write_record_rows(book: Any, rows: list[str]) -> None:
    """Replace the very hidden record sheet's rows (the sheet goes away when there are none)."""
    sheet = _find_sheet(book, RECORD_SHEET)
    if sheet is not None:
        sheet.delete()
    if not rows:
        return
    sheet = book.sheets.add(RECORD_SHEET, after=book.sheets[len(book.sheets) - 1])
    chunks = [split_chunks(row) for row in rows]
    width = max(map(len, chunks))
    sheet.range("A1").value = [[as_text(c) for c in row] + [None] * (width - len(row)) for row in chunks]
    try:
        sheet.api.Visible = XL_SHEET_VERY_HIDDEN
    except Exception:  # macOS (AppleScript) has no very hidden through this path
        sheet.visible = False


def _log_sheet(book: Any) -> tuple[Any, bool]:
    """The log sheet (header row = `LogEntry` columns), or a new one; a user's `celltrace` sheet is
    left alone and the log goes to `celltrace 2` (or the next free name)."""
    columns = LogEntry.columns()
    names = []
    for sheet in book.sheets:
        names.append(sheet.name)
        if sheet.name.startswith(LOG_SHEET):
            header = sheet.range((1, 1), (1, len(columns))).value
            if list(header) == columns:
                return sheet, False
    title, n = LOG_SHEET, 1
    while title in names:
        n += 1
        title = f"{LOG_SHEET} {n}"
    return book.sheets.add(title, after=book.sheets[len(book.sheets) - 1]), True


def apply_actions(book: Any, actions: Sequence[Action], *, log: Sequence[LogEntry] = ()) -> WriteReport:
    """Apply `actions` (and `log` rows) to `book` at once; on any failure undo everything and raise.

    The active sheet is kept; a `Select` action (applied last, outside the transaction) activates
    its sheet and selects its range.
    """
    with screen_updating_off(book.app):
        active = book.sheets.active
        writer = _Writer(book)
        selects = [a for a in actions if isinstance(a, Select)]
        try:
            pending: list[Fill] = []
            for action in [*actions, None]:
                if isinstance(action, Fill):
                    pending.append(action)
                    continue
                if pending:
                    writer.fills(pending)
                    pending = []
                if isinstance(action, Note):
                    writer.note(action)
                elif isinstance(action, SetValue):
                    writer.set_value(action)
                elif isinstance(action, Clear):
                    writer.clear()
            writer.append_log(log)
            writer.save_record()
        except BaseException:
            writer.rollback()
            raise
        finally:
            with contextlib.suppress(Exception):
                active.activate()
        for select in selects[-1:]:
            try:
                sheet = writer.sheet(select.sheet)
                sheet.activate()
                r0, c0, r1, c1 = writer.area(sheet, select.address)
                sheet.range(range_ref(r0, c0, r1, c1)).select()
                writer.report.selected = f"{sheet.name}!{range_ref(r0, c0, r1, c1)}"
            except Exception as exc:  # a hidden sheet cannot be selected; the answer stands
                writer.report.warnings.append(f"could not select {select.address}: {exc}")
    return writer.report
