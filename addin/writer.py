"""The xlwings `BookWriter`: engine-neutral actions on a live workbook, all or nothing.

`apply_actions` is `celltrace.shared.backend.apply_actions` (the one applier and its restore-record
rules) on an `XlwingsBook`, with screen updating off. What is particular to live Excel:

* **Fills** are painted per colour as union addresses (`"B2,D7:E7"`), each under Excel's
  255-character limit for `Range()`: one call per group instead of one per cell. Only colours are
  known through xlwings: a patterned or gradient fill is recorded as its colour.
* **Notes** are legacy notes on the first cell of an area (`add_note`, else `api.AddComment`).
* **Answers** go into the top-left cell; every string with a leading apostrophe, so Excel stores it
  as text (`=…`, `+…`, `-…`, `@…`, `#N/A`, `1,234` never become formulas, errors or numbers); a
  number as a number with the action's `number_format`, set before the value.
* The **restore record** lives in the very hidden sheet `_celltrace` (the file-mode format), so a
  workbook highlighted here clears in file mode and the other way round; the **log** goes to the
  visible `celltrace` sheet, one row per answer (`LogEntry`).

Each change registers its inverse first; if any step fails, the inverses run in reverse order, so
Excel is left as it was and the error is raised. The active sheet is kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from celltrace.addin.reader import screen_updating_off
from celltrace.shared import backend
from celltrace.shared.a1 import cell_ref, parse_range, range_ref
from celltrace.shared.actions import Action, LogEntry
from celltrace.shared.backend import LOG_SHEET, Bounds, WriteReport
from celltrace.shared.errors import UserError
from celltrace.shared.restore import RECORD_SHEET, FillState, NoteState, Scalar, ValueEntry, split_chunks
from celltrace.shared.safe_text import clean_text

MAX_ADDRESS_CHARS = 255
XL_SHEET_VERY_HIDDEN = 2


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


class XlwingsBook:
    """A live workbook as a `BookWriter`; every change registers its inverse in `undo`."""

    overwrite_hint = "choose an empty cell or allow overwriting"

    def __init__(self, book: Any) -> None:
        self.book = book
        self.undo: list[Callable[[], None]] = []
        self._sheets: dict[str, Any] = {}
        self._colours: dict[tuple[str, str], str | None] = {}
        """Last colour read of each cell: what a paint's inverse puts back."""
        self._record_rows: list[str] | None = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        active = self.book.sheets.active
        try:
            yield
        except BaseException:
            for step in reversed(self.undo):
                with contextlib.suppress(Exception):  # best effort: undo as much as Excel lets us
                    step()
            raise
        finally:
            self.undo.clear()
            with contextlib.suppress(Exception):
                active.activate()

    def _sheet(self, name: str) -> Any:
        if name not in self._sheets:
            try:
                self._sheets[name] = self.book.sheets[name]
            except Exception:
                raise UserError(f"no worksheet named {name!r}") from None
        return self._sheets[name]

    def worksheet(self, name: str) -> str:
        return str(self._sheet(name).name)

    def area(self, sheet: str, address: str) -> Bounds:
        b = parse_range(address)
        merge = self._sheet(sheet).range(cell_ref(*b[:2])).merge_area.address.replace("$", "")
        m = parse_range(merge)
        return min(b[0], m[0]), min(b[1], m[1]), max(b[2], m[2]), max(b[3], m[3])

    # -- fills --
    def _colour(self, sheet: str, cell: str) -> str | None:
        colour = hex_colour(self._sheet(sheet).range(cell).color)
        self._colours[(sheet, cell)] = colour
        return colour

    def fills(self, sheet: str, cells: Sequence[str]) -> dict[str, FillState]:
        return {cell: FillState(colour=self._colour(sheet, cell)) for cell in cells}

    def shows_fill(self, sheet: str, cell: str, colour: str) -> bool:
        return self._colour(sheet, cell) == colour

    def _paint(self, sheet: str, colours: dict[str, str | None]) -> None:
        """Set cell (or area) → colour, one union address per colour and chunk."""
        by_colour: dict[str | None, list[str]] = {}
        for ref, colour in colours.items():
            by_colour.setdefault(colour, []).append(ref)
        rng = self._sheet(sheet).range
        for colour, refs in by_colour.items():
            for chunk in union_addresses(refs):
                rng(chunk).color = colour

    def paint(self, sheet: str, areas: Sequence[tuple[Bounds, FillState]]) -> None:
        before: dict[str, str | None] = {}
        for (r0, c0, r1, c1), _ in areas:
            for row in range(r0, r1 + 1):
                for col in range(c0, c1 + 1):
                    cell = cell_ref(row, col)
                    if cell not in before:
                        key = (sheet, cell)
                        before[cell] = self._colours[key] if key in self._colours else self._colour(*key)
        self.undo.append(lambda: self._paint(sheet, before))
        self._paint(sheet, {range_ref(*b): state.colour for b, state in areas})
        self._colours.update(((sheet, ref), state.colour) for b, state in areas for ref in _cells(b))

    # -- notes --
    def note(self, sheet: str, cell: str) -> NoteState | None:
        existing = self._sheet(sheet).range(cell).note
        if existing is None:
            return None
        return NoteState(text=existing.text or "", author=_author(existing))

    def set_note(self, sheet: str, cell: str, note: NoteState | None) -> None:
        rng = self._sheet(sheet).range(cell)
        existing = rng.note
        current = existing.text if existing is not None else None
        self.undo.append(lambda: _set_note(self._sheet(sheet).range(cell), current))
        _set_note(rng, note.text if note is not None else None, existing)

    # -- answer cells --
    def value(self, sheet: str, cell: str) -> tuple[Scalar, bool]:
        """A formula is a `Formula` starting with `=` that differs from the value (text typed with
        an apostrophe, `'=1+1`, reads back as the same `=1+1` through both)."""
        rng = self._sheet(sheet).range(cell)
        formula, value = rng.formula, _scalar(rng.value)
        if isinstance(formula, str) and formula.startswith("=") and formula != value:
            return formula, True
        return value, False

    def write(self, sheet: str, cell: str, value: Scalar, number_format: str | None) -> None:
        rng = self._sheet(sheet).range(cell)
        current, formula = self.value(sheet, cell)
        previous = current if formula else as_text(current)
        self.undo.append(lambda: setattr(self._sheet(sheet).range(cell), "value", previous))
        if number_format:  # before the value, so Excel never shows the number in another format
            old_format = rng.number_format
            self.undo.append(lambda: setattr(self._sheet(sheet).range(cell), "number_format", old_format))
            rng.number_format = number_format
        rng.value = as_text(value) if value is not None else ""

    def restore(self, sheet: str, cell: str, entry: ValueEntry) -> None:
        original = None if entry.original is None else (
            entry.original if entry.formula else as_text(entry.original)
        )  # fmt: skip
        current, formula = self.value(sheet, cell)
        previous = current if formula else as_text(current)
        self.undo.append(lambda: setattr(self._sheet(sheet).range(cell), "value", previous))
        self._sheet(sheet).range(cell).value = original

    # -- the record and log sheets --
    def record_rows(self) -> list[str]:
        if self._record_rows is None:
            sheet = _find_sheet(self.book, RECORD_SHEET)
            rows = sheet.used_range.options(ndim=2).value if sheet is not None else []
            joined = ("".join(str(v) for v in row if v is not None) for row in rows)
            self._record_rows = [s for s in joined if s]
        return self._record_rows

    def write_record_rows(self, rows: list[str]) -> None:
        """Replace the very hidden record sheet's rows (the sheet goes away when there are none)."""
        old = self.record_rows()
        self.undo.append(lambda: _write_record_rows(self.book, old))
        _write_record_rows(self.book, rows)
        self._record_rows = rows

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

    def select(self, sheet: str, bounds: Bounds) -> str | None:
        target = self._sheet(sheet)
        target.activate()
        target.range(range_ref(*bounds)).select()
        return f"{target.name}!{range_ref(*bounds)}"


def _cells(b: Bounds) -> Iterator[str]:
    return (cell_ref(r, c) for r in range(b[0], b[2] + 1) for c in range(b[1], b[3] + 1))


def _scalar(value: Any) -> Scalar:
    """A COM value as the record stores it (dates as ISO text)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


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


def _write_record_rows(book: Any, rows: list[str]) -> None:
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
    """`celltrace.shared.backend.apply_actions` on a live workbook, with screen updating off."""
    with screen_updating_off(book.app):
        return backend.apply_actions(XlwingsBook(book), actions, log=log)
