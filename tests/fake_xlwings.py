"""A faithful fake of the small xlwings (classic, COM/AppleScript) surface the add-in uses.

Built from an openpyxl workbook (or in memory), it mirrors what Excel answers through xlwings:

* `Range.value` — numbers as floats, dates and times as datetimes, covered cells of a merge as None,
  errors as text with `err_to_str=True`; `options(ndim=2)` always gives rows of lists. Assigning a
  string behaves like typing it: `=…` becomes a formula, `'…` stays text, `12` becomes a number.
* `Range.api.MergeCells` — True (all cells merged), False (none), None (mixed, COM Null);
  `merge_area` works on one cell only; `number_format`, `api.Text` and `api.IndentLevel` are None
  when mixed;
  `color` of a mixed range raises like xlwings does on Windows (`int_to_rgb(None)`).
* `api.Value(11)` (XML Spreadsheet 2003) only when built with `windows=True`.
* Range addresses longer than 255 characters raise, as Excel's `Range()` does.

Every round trip to Excel counts in `book.calls` (creating a range from an address: 1; each
property read or write and each method: 1), so tests can bound a reader's cost.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import openpyxl
from openpyxl.utils import get_column_letter

from celltrace.shared.a1 import parse_range, range_ref
from celltrace.shared.numfmt import format_value

Bounds = tuple[int, int, int, int]
_EPOCH = dt.datetime(1899, 12, 30)
_OLE_AGREES = dt.datetime(1900, 3, 1)
"""From this day on an OLE date and Excel's serial count the same days."""
_ERRORS = {"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"}
_BAND = 256


class FakeExcelError(Exception):
    """What a COM error would be."""


@dataclass(slots=True)
class Cell:
    value: Any = None
    number_format: str = "General"
    formula: str | None = None
    color: tuple[int, int, int] | None = None
    note: NoteData | None = None
    prefix: bool = False
    error: bool = False
    indent: int = 0


@dataclass(slots=True)
class NoteData:
    text: str
    author: str = "user"


@dataclass
class Calls:
    total: int = 0
    kinds: Counter = field(default_factory=Counter)

    def hit(self, kind: str) -> None:
        self.total += 1
        self.kinds[kind] += 1


def _inter(a: Bounds, b: Bounds) -> Bounds | None:
    r0, c0, r1, c1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (r0, c0, r1, c1) if r0 <= r1 and c0 <= c1 else None


def _absolute(b: Bounds) -> str:
    """`$A$1:$B$2` (Excel's default `Address`)."""
    first = f"${get_column_letter(b[1])}${b[0]}"
    return first if b[:2] == b[2:] else f"{first}:${get_column_letter(b[3])}${b[2]}"


def _size(b: Bounds) -> int:
    return (b[2] - b[0] + 1) * (b[3] - b[1] + 1)


def _com_value(cell: Cell, err_to_str: bool) -> Any:
    """What COM hands xlwings for a cell value."""
    v = cell.value
    if cell.error:
        return v if err_to_str else None
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return float(v)
    if isinstance(v, dt.date):  # COM dates are OLE dates: no 1900-02-29, so earlier ones arrive a day early
        moment = v if isinstance(v, dt.datetime) else dt.datetime(v.year, v.month, v.day)
        return moment - dt.timedelta(days=1) if moment < _OLE_AGREES else moment
    if isinstance(v, dt.time):
        return dt.datetime.combine(_EPOCH.date(), v)
    if isinstance(v, dt.timedelta):
        return _EPOCH + v
    return v


# ---- app, book, sheets ---------------------------------------------------------------------------
class FakeAppApi:
    def __init__(self, app: FakeApp) -> None:
        self._app = app

    def InputBox(self, Prompt: str, Title: str = "", Default: str = "", *args: Any, Type: int = 2) -> Any:
        self._app.calls.hit("InputBox")
        self._app.prompts.append(Prompt)
        if not self._app.input_answers:
            return False  # Cancel
        return self._app.input_answers.pop(0)


class FakeApp:
    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        self._screen_updating = True
        self.screen_updating_log: list[bool] = []
        self.input_answers: list[Any] = []
        self.prompts: list[str] = []
        self.alerts: list[tuple[str, str | None]] = []
        self.alert_answers: list[str] = []
        self.selection: FakeRange | None = None
        self.api = FakeAppApi(self)

    @property
    def screen_updating(self) -> bool:
        self.calls.hit("screen_updating")
        return self._screen_updating

    @screen_updating.setter
    def screen_updating(self, value: bool) -> None:
        self.calls.hit("screen_updating")
        self.screen_updating_log.append(value)
        self._screen_updating = value

    def alert(
        self,
        prompt: str,
        title: str | None = None,
        buttons: str = "ok",
        mode: str | None = None,
        callback: str | None = None,
    ) -> str:
        self.calls.hit("alert")
        self.alerts.append((prompt, title))
        if self.alert_answers:
            return self.alert_answers.pop(0)
        return "ok" if buttons.startswith("ok") else "yes"


class FakeName:
    def __init__(self, book: FakeBook, name: str, sheet: str, address: str) -> None:
        self.book, self.name, self._sheet, self._address = book, name, sheet, address

    @property
    def refers_to_range(self) -> FakeRange:
        self.book.calls.hit("refers_to_range")
        return FakeRange(self.book.sheets[self._sheet], [parse_range(self._address)])


class FakeNames:
    def __init__(self, book: FakeBook) -> None:
        self.book = book
        self._names: dict[str, FakeName] = {}

    def add_fake(self, name: str, sheet: str, address: str) -> None:
        self._names[name.casefold()] = FakeName(self.book, name, sheet, address)

    def contains(self, name: str) -> bool:
        self.book.calls.hit("names")
        return name.casefold() in self._names

    def __getitem__(self, name: str) -> FakeName:
        self.book.calls.hit("names")
        if name.casefold() not in self._names:
            raise FakeExcelError(f"no name {name}")
        return self._names[name.casefold()]


class FakeBookApi:
    def __init__(self, book: FakeBook) -> None:
        self._book = book

    def SaveCopyAs(self, path: str) -> None:
        """Writes the sheets' merges (all a merge scan needs) to an .xlsx."""
        self._book.calls.hit("SaveCopyAs")
        if not self._book.windows:
            raise FakeExcelError("SaveCopyAs is not available")
        wb = openpyxl.Workbook()
        wb.remove(wb.active)
        for sheet in self._book.sheets:
            ws = wb.create_sheet(sheet.name)
            for m in sheet.merges:
                ws.merge_cells(range_ref(*m))
        wb.save(path)


class FakeSheets:
    def __init__(self, book: FakeBook) -> None:
        self.book = book
        self._sheets: list[FakeSheet] = []

    def __iter__(self):
        return iter(list(self._sheets))

    def __len__(self) -> int:
        return len(self._sheets)

    def __contains__(self, name: str) -> bool:
        return any(s.name.casefold() == name.casefold() for s in self._sheets)

    def __getitem__(self, key: str | int) -> FakeSheet:
        self.book.calls.hit("sheets")
        if isinstance(key, int):
            return self._sheets[key]
        for sheet in self._sheets:
            if sheet.name.casefold() == key.casefold():
                return sheet
        raise KeyError(key)

    def add(
        self, name: str | None = None, before: FakeSheet | None = None, after: FakeSheet | None = None
    ) -> FakeSheet:
        self.book.calls.hit("sheets.add")
        sheet = FakeSheet(self.book, name or f"Sheet{len(self._sheets) + 1}")
        if sheet.name in self:
            raise FakeExcelError(f"a sheet named {sheet.name} exists")
        index = self._sheets.index(after) + 1 if after is not None else len(self._sheets)
        self._sheets.insert(index, sheet)
        self.book.active_sheet = sheet  # Excel activates a new sheet
        return sheet

    @property
    def active(self) -> FakeSheet:
        self.book.calls.hit("ActiveSheet")
        return self.book.active_sheet

    def remove_fake(self, sheet: FakeSheet) -> None:
        self._sheets.remove(sheet)
        if self.book.active_sheet is sheet:
            self.book.active_sheet = self._sheets[0]


class FakeBook:
    """A workbook open in a fake Excel; `calls` counts round trips."""

    def __init__(self, name: str = "Book1.xlsx", *, windows: bool = False) -> None:
        self.name = name
        self.fullname = f"/fake/{name}"
        self.windows = windows
        self.calls = Calls()
        self.app = FakeApp(self.calls)
        self.sheets = FakeSheets(self)
        self.names = FakeNames(self)
        self.api = FakeBookApi(self)

    @property
    def selection(self) -> FakeRange | None:
        self.calls.hit("selection")
        return self.app.selection

    def add_sheet(self, name: str) -> FakeSheet:
        sheet = FakeSheet(self, name)
        self.sheets._sheets.append(sheet)
        self.active_sheet = getattr(self, "active_sheet", None) or sheet
        return sheet

    def select(self, sheet: str, address: str) -> None:
        """Set the user's selection and active sheet (test helper, no call)."""
        s = next(x for x in self.sheets if x.name == sheet)
        self.app.selection = FakeRange(s, [parse_range(address)])
        self.active_sheet = s

    @classmethod
    def from_xlsx(cls, path: str | Path, *, windows: bool = False) -> FakeBook:
        """The workbook as Excel would show it: cached values, formats, merges, fills, notes, …"""
        path = Path(path)
        wb = openpyxl.load_workbook(path, data_only=True)
        book = cls(path.name, windows=windows)
        for ws in wb.worksheets:
            sheet = book.add_sheet(ws.title)
            sheet.visible_state = ws.sheet_state
            for row in ws.iter_rows():
                for c in row:
                    fill = c.fill
                    colour = None
                    if getattr(fill, "patternType", None) == "solid" and fill.fgColor.type == "rgb":
                        rgb = str(fill.fgColor.rgb)[-6:]
                        colour = (int(rgb[0:2], 16), int(rgb[2:4], 16), int(rgb[4:6], 16))
                    note = NoteData(c.comment.text, c.comment.author or "") if c.comment else None
                    if c.value is None and colour is None and note is None and c.number_format == "General":
                        continue
                    sheet.cells[(c.row, c.column)] = Cell(
                        value=c.value,
                        number_format=c.number_format,
                        color=colour,
                        note=note,
                        error=c.data_type == "e",
                        indent=int(c.alignment.indent or 0),
                    )
            sheet.extent = (ws.min_row, ws.min_column, ws.max_row, ws.max_column)
            for m in ws.merged_cells.ranges:
                sheet.add_merge((m.min_row, m.min_col, m.max_row, m.max_col))
            sheet.hidden_rows = {r for r, d in ws.row_dimensions.items() if d.hidden}
            for key, d in ws.column_dimensions.items():
                if d.hidden:
                    lo = d.min or openpyxl.utils.column_index_from_string(key)
                    sheet.hidden_cols.update(range(lo, (d.max or lo) + 1))
            for t in ws.tables.values():
                sheet.tables_data[t.name] = t.ref
            for dn in ws.defined_names.values():
                for title, coord in dn.destinations:
                    sheet.names_data[dn.name] = (title, coord.replace("$", ""))
        for dn in wb.defined_names.values():
            dests = list(dn.destinations)
            if len(dests) == 1:
                book.names.add_fake(dn.name, dests[0][0], dests[0][1].replace("$", ""))
        active = wb.active
        first = next(s for s in book.sheets if s.name == active.title)
        sel = active.sheet_view.selection[0].sqref if active.sheet_view.selection else "A1"
        book.app.selection = FakeRange(first, [parse_range(str(sel).split()[0])])
        book.active_sheet = first
        book.calls = book.app.calls = Calls()
        return book


class FakeSheetApi:
    def __init__(self, sheet: FakeSheet) -> None:
        object.__setattr__(self, "_sheet", sheet)

    @property
    def Visible(self) -> int:
        self._sheet.book.calls.hit("Sheet.Visible")
        return {"visible": -1, "hidden": 0, "veryHidden": 2}[self._sheet.visible_state]

    @Visible.setter
    def Visible(self, value: int) -> None:
        self._sheet.book.calls.hit("Sheet.Visible")
        self._sheet.visible_state = {-1: "visible", True: "visible", 0: "hidden", 2: "veryHidden"}[value]


@dataclass
class FakeTable:
    name: str
    range: FakeRange


class FakeSheet:
    def __init__(self, book: FakeBook, name: str) -> None:
        self.book = book
        self.name = name
        self.cells: dict[tuple[int, int], Cell] = {}
        self.merges: list[Bounds] = []
        self._merge_bands: dict[int, list[Bounds]] = {}
        self.hidden_rows: set[int] = set()
        self.hidden_cols: set[int] = set()
        self.tables_data: dict[str, str] = {}
        self.names_data: dict[str, tuple[str, str]] = {}
        self.visible_state = "visible"
        self.extent: Bounds | None = None
        self.api = FakeSheetApi(self)

    # -- test helpers (no calls) --
    def cell(self, row: int, col: int) -> Cell:
        return self.cells.setdefault((row, col), Cell())

    def set(self, row: int, col: int, value: Any, number_format: str = "General") -> None:
        c = self.cell(row, col)
        c.value, c.number_format = value, number_format
        self._grow((row, col, row, col))

    def add_merge(self, m: Bounds) -> None:
        """Merge like Excel: the covered cells take the anchor's number format."""
        fmt = self.cells[m[:2]].number_format if m[:2] in self.cells else "General"
        for r in range(m[0], m[2] + 1):
            for c in range(m[1], m[3] + 1):
                if (r, c) != m[:2] and (fmt != "General" or (r, c) in self.cells):
                    self.cell(r, c).number_format = fmt
        self.merges.append(m)
        for band in range(m[0] // _BAND, m[2] // _BAND + 1):
            self._merge_bands.setdefault(band, []).append(m)
        self._grow(m)

    def _grow(self, b: Bounds) -> None:
        e = self.extent or b
        self.extent = (min(e[0], b[0]), min(e[1], b[1]), max(e[2], b[2]), max(e[3], b[3]))

    def merges_in(self, b: Bounds) -> list[Bounds]:
        seen: dict[Bounds, None] = {}
        for band in range(b[0] // _BAND, b[2] // _BAND + 1):
            for m in self._merge_bands.get(band, ()):
                if _inter(m, b):
                    seen[m] = None
        return list(seen)

    def merge_of(self, row: int, col: int) -> Bounds | None:
        return next(iter(self.merges_in((row, col, row, col))), None)

    # -- xlwings surface --
    def range(self, first: Any, second: Any = None) -> FakeRange:
        self.book.calls.hit("range")
        if isinstance(first, str):
            if len(first) > 255:
                raise FakeExcelError(f"Range(): address of {len(first)} characters (limit 255)")
            areas = [parse_range(part) for part in first.replace("$", "").split(",")]
        else:
            r0, c0 = first
            r1, c1 = second if second is not None else first
            areas = [(min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1))]
        return FakeRange(self, areas)

    def __getitem__(self, address: str) -> FakeRange:
        return self.range(address)

    @property
    def used_range(self) -> FakeRange:
        self.book.calls.hit("used_range")
        return FakeRange(self, [self.extent or (1, 1, 1, 1)])

    @property
    def tables(self) -> list[FakeTable]:
        self.book.calls.hit("tables")
        return [FakeTable(n, FakeRange(self, [parse_range(a)])) for n, a in self.tables_data.items()]

    @property
    def names(self) -> FakeNames:
        names = FakeNames(self.book)
        for n, (title, addr) in self.names_data.items():
            names.add_fake(n, title, addr)
        return names

    @property
    def visible(self) -> bool:
        self.book.calls.hit("visible")
        return self.visible_state == "visible"

    @visible.setter
    def visible(self, value: bool) -> None:
        self.book.calls.hit("visible")
        self.visible_state = "visible" if value else "hidden"

    def activate(self) -> None:
        self.book.calls.hit("activate")
        if self.visible_state != "visible":
            raise FakeExcelError("Activate method of Worksheet class failed (hidden sheet)")
        self.book.active_sheet = self

    def delete(self) -> None:
        self.book.calls.hit("delete")
        self.book.sheets.remove_fake(self)


# ---- ranges --------------------------------------------------------------------------------------
class FakeNote:
    def __init__(self, rng: FakeRange, data: NoteData) -> None:
        self._rng, self._data = rng, data
        self.api = _NoteApi(rng, data)

    @property
    def text(self) -> str:
        self._rng.hit("Note.text")
        return self._data.text

    @text.setter
    def text(self, value: str) -> None:
        self._rng.hit("Note.text")
        self._data.text = value

    def delete(self) -> None:
        self._rng.hit("Note.delete")
        self._rng.first_cell().note = None


class _NoteApi:
    def __init__(self, rng: FakeRange, data: NoteData) -> None:
        self._rng, self._data = rng, data

    @property
    def Author(self) -> str:
        self._rng.hit("Comment.Author")
        return self._data.author


class _Hidden:
    def __init__(self, rng: FakeRange, axis: str) -> None:
        self._rng, self._axis = rng, axis

    @property
    def Hidden(self) -> bool | None:
        self._rng.hit(f"Entire{self._axis}.Hidden")
        r0, c0, r1, c1 = self._rng.bounds
        lines, hidden = (
            ((r0, r1), self._rng.sheet.hidden_rows)
            if self._axis == "Row"
            else ((c0, c1), self._rng.sheet.hidden_cols)
        )
        n = sum(1 for x in range(lines[0], lines[1] + 1) if x in hidden)
        return True if n == lines[1] - lines[0] + 1 else False if n == 0 else None


class FakeRangeApi:
    def __init__(self, rng: FakeRange) -> None:
        self._rng = rng

    @property
    def MergeCells(self) -> bool | None:
        return self._rng.merge_cells

    @property
    def IndentLevel(self) -> int | None:
        rng = self._rng
        rng.hit("IndentLevel")
        levels = {(rng.sheet.cells.get((r, c)) or Cell()).indent for r, c in rng.coords()}
        return levels.pop() if len(levels) == 1 else None

    @property
    def Text(self) -> str | None:
        rng = self._rng
        rng.hit("Text")
        texts = {rng.sheet_text(r, c) for r, c in rng.coords()}
        return texts.pop() if len(texts) == 1 else None

    def Value(self, kind: int = 10) -> Any:
        rng = self._rng
        rng.hit("Value(11)")
        if kind != 11 or not rng.sheet.book.windows:
            raise FakeExcelError("Value(11) is not supported here")
        return rng.to_xml()

    def AddComment(self, text: str) -> FakeNote:
        rng = self._rng
        rng.hit("AddComment")
        cell = rng.first_cell()
        if cell.note is not None:
            raise FakeExcelError("the cell already has a comment")
        cell.note = NoteData(text, "celltrace-user")
        return FakeNote(rng, cell.note)

    @property
    def EntireRow(self) -> _Hidden:
        self._rng.hit("EntireRow")
        return _Hidden(self._rng, "Row")

    @property
    def EntireColumn(self) -> _Hidden:
        self._rng.hit("EntireColumn")
        return _Hidden(self._rng, "Column")


class FakeRange:
    def __init__(self, sheet: FakeSheet, areas: list[Bounds], options: dict[str, Any] | None = None) -> None:
        self.sheet = sheet
        self.areas = areas
        self._options = options or {}
        self.api = FakeRangeApi(self)

    def hit(self, kind: str) -> None:
        self.sheet.book.calls.hit(kind)

    @property
    def bounds(self) -> Bounds:
        return self.areas[0]

    def coords(self) -> list[tuple[int, int]]:
        return [(r, c) for a in self.areas for r in range(a[0], a[2] + 1) for c in range(a[1], a[3] + 1)]

    def first_cell(self) -> Cell:
        return self.sheet.cell(*self.bounds[:2])

    def sheet_text(self, r: int, c: int) -> str:
        cell = self.sheet.cells.get((r, c))
        if cell is None or cell.value is None:
            return ""
        return cell.value if cell.error else format_value(cell.value, cell.number_format)

    # -- xlwings surface --
    def options(self, **options: Any) -> FakeRange:
        return FakeRange(self.sheet, self.areas, {**self._options, **options})

    @property
    def address(self) -> str:
        self.hit("address")
        return ",".join(_absolute(a) for a in self.areas)

    def get_address(
        self,
        row_absolute: bool = True,
        column_absolute: bool = True,
        include_sheetname: bool = False,
        external: bool = False,
    ) -> str:
        self.hit("address")
        return ",".join(range_ref(*a) for a in self.areas)

    @property
    def row(self) -> int:
        self.hit("row")
        return self.bounds[0]

    @property
    def column(self) -> int:
        self.hit("column")
        return self.bounds[1]

    @property
    def shape(self) -> tuple[int, int]:
        self.hit("shape")
        r0, c0, r1, c1 = self.bounds
        return r1 - r0 + 1, c1 - c0 + 1

    @property
    def count(self) -> int:
        self.hit("count")
        return sum(_size(a) for a in self.areas)

    @property
    def value(self) -> Any:
        self.hit("value")
        r0, c0, r1, c1 = self.bounds
        err = bool(self._options.get("err_to_str"))
        cells = self.sheet.cells
        grid = [
            [_com_value(cells[(r, c)], err) if (r, c) in cells else None for c in range(c0, c1 + 1)]
            for r in range(r0, r1 + 1)
        ]
        if self._options.get("ndim") == 2:
            return grid
        if len(grid) == 1 and len(grid[0]) == 1:
            return grid[0][0]
        if len(grid) == 1:
            return grid[0]
        if all(len(row) == 1 for row in grid):
            return [row[0] for row in grid]
        return grid

    @value.setter
    def value(self, data: Any) -> None:
        self.hit("value")
        r0, c0, r1, c1 = self.bounds
        if not isinstance(data, list):
            rows = [[data] * (c1 - c0 + 1) for _ in range(r1 - r0 + 1)]
        elif data and isinstance(data[0], list):
            rows = data
        else:
            rows = [data]
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                self._type_in(self.sheet.cell(r0 + i, c0 + j), v)
                self.sheet._grow((r0 + i, c0 + j, r0 + i, c0 + j))

    @staticmethod
    def _type_in(cell: Cell, v: Any) -> None:
        """Excel's parsing of an assigned value (like typing it)."""
        cell.formula, cell.prefix, cell.error = None, False, False
        if isinstance(v, str) and cell.number_format != "@":
            if v.startswith("'"):
                cell.value, cell.prefix = v[1:], True
                return
            if v.startswith("=") and len(v) > 1:
                cell.formula, cell.value = v, None
                return
            if v.strip().upper() in _ERRORS:
                cell.value, cell.error = v.strip().upper(), True
                return
            try:
                cell.value = float(v.replace(",", ""))
                return
            except ValueError:
                pass
        cell.value = None if v == "" else v

    @property
    def formula(self) -> str:
        self.hit("formula")
        cell = self.sheet.cells.get(self.bounds[:2])
        return (cell.formula or ("" if cell.value is None else str(cell.value))) if cell else ""

    @property
    def number_format(self) -> str | None:
        self.hit("number_format")
        cells, first = self.sheet.cells, None
        for a in self.areas:
            for r in range(a[0], a[2] + 1):
                for c in range(a[1], a[3] + 1):
                    cell = cells.get((r, c))
                    fmt = cell.number_format if cell is not None else "General"
                    if first is None:
                        first = fmt
                    elif fmt != first:
                        return None
        return first

    @number_format.setter
    def number_format(self, value: str) -> None:
        self.hit("number_format")
        for r, c in self.coords():
            self.sheet.cell(r, c).number_format = value

    @property
    def merge_cells(self) -> bool | None:
        self.hit("MergeCells")
        total = covered = 0
        for a in self.areas:
            total += _size(a)
            covered += sum(_size(_inter(m, a)) for m in self.sheet.merges_in(a))  # type: ignore[arg-type]
        return True if covered == total else False if covered == 0 else None

    @property
    def merge_area(self) -> FakeRange:
        self.hit("MergeArea")
        if self.bounds[:2] != self.bounds[2:]:
            raise FakeExcelError("MergeArea works on a single cell only")
        m = self.sheet.merge_of(*self.bounds[:2])
        return FakeRange(self.sheet, [m or self.bounds])

    @property
    def color(self) -> tuple[int, int, int] | None:
        self.hit("Interior.ColorIndex")
        colours = {self.sheet.cells[k].color if k in self.sheet.cells else None for k in self.coords()}
        if len(colours) > 1:
            raise TypeError(
                "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"
            )
        self.hit("Interior.Color")
        return colours.pop()

    @color.setter
    def color(self, value: Any) -> None:
        self.hit("Interior.Color")
        if isinstance(value, str):
            value = tuple(int(value.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))
        elif isinstance(value, int):
            value = (value % 256, value // 256 % 256, value // 65536 % 256)
        for r, c in self.coords():
            self.sheet.cell(r, c).color = value

    @property
    def note(self) -> FakeNote | None:
        self.hit("Comment")
        cell = self.sheet.cells.get(self.bounds[:2])
        return FakeNote(self, cell.note) if cell and cell.note else None

    def add_note(self, text: str) -> FakeNote:
        if self.bounds[:2] != self.bounds[2:]:
            raise ValueError("A note can only be added to a single cell")
        if self.note is not None:
            raise ValueError("This cell already has a note")
        self.hit("AddComment")
        cell = self.first_cell()
        cell.note = NoteData(text, "celltrace-user")
        return FakeNote(self, cell.note)

    @property
    def current_region(self) -> FakeRange:
        self.hit("CurrentRegion")
        r0, c0, r1, c1 = self.bounds
        sheet = self.sheet

        def filled(r: int, c: int) -> bool:
            if r < 1 or c < 1:
                return False
            cell = sheet.cells.get((r, c))
            if cell is not None and cell.value is not None:
                return True
            m = sheet.merge_of(r, c)
            return m is not None and sheet.cells.get(m[:2], Cell()).value is not None

        grown = True
        while grown:
            grown = False
            for side in range(4):
                if side == 0:
                    line = [(r0 - 1, c) for c in range(c0 - 1, c1 + 2)]
                elif side == 1:
                    line = [(r1 + 1, c) for c in range(c0 - 1, c1 + 2)]
                elif side == 2:
                    line = [(r, c0 - 1) for r in range(r0 - 1, r1 + 2)]
                else:
                    line = [(r, c1 + 1) for r in range(r0 - 1, r1 + 2)]
                if any(filled(r, c) for r, c in line):
                    r0, r1 = (r0 - 1 if side == 0 else r0), (r1 + 1 if side == 1 else r1)
                    c0, c1 = (c0 - 1 if side == 2 else c0), (c1 + 1 if side == 3 else c1)
                    r0, c0 = max(r0, 1), max(c0, 1)
                    grown = True
        return FakeRange(sheet, [(r0, c0, r1, c1)])

    def select(self) -> None:
        self.hit("Select")
        if self.sheet.book.active_sheet is not self.sheet:
            raise FakeExcelError("Select method of Range class failed (sheet not active)")
        self.sheet.book.app.selection = FakeRange(self.sheet, self.areas)

    def clear_contents(self) -> None:
        self.hit("ClearContents")
        for r, c in self.coords():
            if (r, c) in self.sheet.cells:
                cell = self.sheet.cells[(r, c)]
                cell.value = cell.formula = None

    # -- XML Spreadsheet 2003, as `Value(11)` on Windows --
    def to_xml(self) -> str:
        r0, c0, r1, c1 = self.bounds
        sheet = self.sheet
        formats: dict[str, str] = {}
        rows_xml: list[str] = []
        covered: set[tuple[int, int]] = set()
        for m in sheet.merges_in(self.bounds):
            clip = _inter(m, self.bounds)
            if clip and m[:2] == clip[:2]:
                covered.update(
                    (r, c)
                    for r in range(clip[0], clip[2] + 1)
                    for c in range(clip[1], clip[3] + 1)
                    if (r, c) != clip[:2]
                )
        for r in range(r0, r1 + 1):
            cells_xml: list[str] = []
            expected = c0
            for c in range(c0, c1 + 1):
                if (r, c) in covered:
                    continue
                cell = sheet.cells.get((r, c))
                m = sheet.merge_of(r, c)
                merge = _inter(m, self.bounds) if m and m[:2] == (r, c) else None
                if (
                    (cell is None or cell.value is None)
                    and merge is None
                    and (cell is None or cell.number_format == "General")
                ):
                    continue
                attrs = "" if c == expected else f' ss:Index="{c - c0 + 1}"'
                if merge and merge[3] > c:
                    attrs += f' ss:MergeAcross="{merge[3] - c}"'
                if merge and merge[2] > r:
                    attrs += f' ss:MergeDown="{merge[2] - r}"'
                fmt = cell.number_format if cell else "General"
                if fmt != "General":
                    sid = formats.setdefault(fmt, f"s{62 + len(formats)}")
                    attrs += f' ss:StyleID="{sid}"'
                data = ""
                if cell is not None and cell.value is not None:
                    v = _com_value(cell, True)
                    kind = (
                        "Error"
                        if cell.error
                        else "Boolean"
                        if isinstance(v, bool)
                        else "Number"
                        if isinstance(v, float)
                        else "DateTime"
                        if isinstance(v, dt.datetime)
                        else "String"
                    )
                    text = (
                        str(int(v))
                        if kind == "Boolean"
                        else v.isoformat(timespec="milliseconds")
                        if kind == "DateTime"
                        else repr(v)
                        if kind == "Number"
                        else str(v)
                    )
                    data = f'<Data ss:Type="{kind}">{escape(text)}</Data>'
                cells_xml.append(f"<Cell{attrs}>{data}</Cell>")
                expected = (merge[3] if merge else c) + 1
            if cells_xml:
                rows_xml.append(f'<Row ss:Index="{r - r0 + 1}">{"".join(cells_xml)}</Row>')
        named = {"0.00%": "Percent", "0.00": "Fixed"}
        styles = "".join(
            f'<Style ss:ID="{sid}"><NumberFormat ss:Format="{escape(named.get(f, f), {chr(34): "&quot;"})}"/>'
            "</Style>"
            for f, sid in formats.items()
        )
        return (
            '<?xml version="1.0"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" '
            'xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">'
            f'<Styles><Style ss:ID="Default" ss:Name="Normal"/>{styles}</Styles>'
            f'<Worksheet ss:Name="{escape(sheet.name)}"><Table>{"".join(rows_xml)}</Table></Worksheet>'
            "</Workbook>"
        )


def big_book(rows: int = 10_000, cols: int = 50, merges: int = 500, *, seed: int = 7) -> FakeBook:
    """An in-memory sheet `Data`: a header band of merged groups, then numbers with merged blocks."""
    import random

    rnd = random.Random(seed)
    book = FakeBook("big.xlsx")
    sheet = book.add_sheet("Data")
    for c in range(1, cols + 1):
        sheet.set(2, c, f"h{c}")
    for r in range(3, rows + 1):
        sheet.set(r, 1, f"row {r}")
        for c in range(2, cols + 1):
            sheet.set(r, c, (r * 31 + c * 17) % 1000, "#,##0" if c % 2 else "General")
    n = 0
    for c in range(1, cols, 5):  # the header band: 1×5 groups on row 1
        sheet.set(1, c, f"group {c}")
        sheet.add_merge((1, c, 1, min(c + 4, cols)))
        n += 1
    while n < merges:  # scattered 2×1 / 1×2 / 3×2 blocks in the body
        h, w = rnd.choice([(2, 1), (1, 2), (3, 2)])
        r, c = rnd.randint(3, rows - h + 1), rnd.randint(2, cols - w + 1)
        m = (r, c, r + h - 1, c + w - 1)
        if sheet.merges_in((m[0] - 1, m[1] - 1, m[2] + 1, m[3] + 1)):
            continue
        for rr in range(m[0], m[2] + 1):
            for cc in range(m[1], m[3] + 1):
                if (rr, cc) != m[:2]:
                    sheet.cells.pop((rr, cc), None)
        sheet.add_merge(m)
        n += 1
    book.app.selection = FakeRange(sheet, [(1, 1, rows, cols)])
    return book
