"""Read a range of a live workbook through xlwings into the same `Table` file mode builds.

The range is the selection (the table block detected in the current region around the active cell
when one cell is selected, see `celltrace.shared.detect`),
an A1 address, a defined name or an Excel table. The result equals `read_table()` of the saved
workbook for the same range: displayed text, raw values (JSON-ready, dates as ISO text), merged
areas clipped to the range (with the same warnings), hidden rows and columns, and the origin.

Cost, in Excel round trips (see `merges.Probes`): the used range and all values are one read each;
merged areas come from `merges.find_merges`; number formats by divide and conquer over the numeric
cells of each column (a uniform block is one call), indent levels likewise over the text cells;
Excel's own `.Text` is read per numeric cell only while there are at most `text_budget` of them,
else the file-mode formatter renders the values;
hidden rows and columns by divide and conquer on `EntireRow.Hidden` / `EntireColumn.Hidden`.
Screen updating is off during the read and restored afterwards, whatever happens.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from openpyxl.styles.numbers import is_date_format, is_timedelta_format

from celltrace.addin.merges import (
    DEFAULT_BUDGET,
    Bounds,
    MergeScan,
    Probes,
    Strategy,
    address,
    find_merges,
)
from celltrace.shared import backend
from celltrace.shared.a1 import parse_range, range_ref, split_sheet_ref
from celltrace.shared.backend import Grid, indented, json_value, parse_ref
from celltrace.shared.detect import locate
from celltrace.shared.errors import UserError
from celltrace.shared.numfmt import format_value, from_serial
from celltrace.shared.table import Table

TEXT_BUDGET = 200
"""Read Excel's own `.Text` per numeric cell up to this many numeric cells (2 calls each)."""
_EPOCH = dt.datetime(1899, 12, 30)
_EXACT_INT = 1e15
_HASHES = re.compile(r"^#+$")
T = TypeVar("T")


@dataclass
class Target:
    """What to read: a sheet object and its 1-based bounds; `active` is the one selected cell
    (1-based) when the bounds are its current region (the table block holding it is then used)."""

    sheet: Any
    bounds: Bounds
    active: tuple[int, int] | None = None


@dataclass
class ReadResult:
    table: Table
    calls: int
    strategy: str
    probes: Probes
    notes: list[str] = field(default_factory=list)


@contextlib.contextmanager
def screen_updating_off(app: Any) -> Iterator[None]:
    """`app.screen_updating = False` for the block, then back to what it was, even on errors."""
    before = app.screen_updating
    app.screen_updating = False
    try:
        yield
    finally:
        app.screen_updating = before


# ---- which range -------------------------------------------------------------------------------
def range_bounds(rng: Any) -> Bounds:
    """1-based bounds of an xlwings range (one rectangular area)."""
    addr = rng.address.replace("$", "")
    if "," in addr:
        raise UserError(f"the selection {addr} has several areas; select one rectangular table")
    return parse_range(addr)


def _sheet(book: Any, name: str) -> Any:
    try:
        return book.sheets[name]
    except Exception:
        raise UserError(f"no sheet named {name!r}") from None


def resolve(
    book: Any,
    *,
    address: str | None = None,
    name: str | None = None,
    table: str | None = None,
    sheet: str | None = None,
) -> Target:
    """The range to read: `address` (`Sheet!A1:H20`, `A1:H20`, `A:C`), a defined `name`, an Excel
    `table`, else the selection (a single selected cell grows to its current region)."""
    if sum(x is not None for x in (address, name, table)) > 1:
        raise UserError("give at most one of an address, a name and a table")
    if table is not None:
        sheets = [_sheet(book, sheet)] if sheet else list(book.sheets)
        for s in sheets:
            for t in s.tables:
                if t.name.casefold() == table.casefold():
                    return Target(s, range_bounds(t.range))
        raise UserError(f"no Excel table named {table!r}")
    if name is not None:
        scopes = [_sheet(book, sheet).names] if sheet else []
        for names in [*scopes, book.names]:
            if names.contains(name):
                rng = names[name].refers_to_range
                return Target(rng.sheet, range_bounds(rng))
        raise UserError(f"no defined name {name!r}")
    if address is not None:
        ref_sheet, addr = split_sheet_ref(address)
        title = ref_sheet or sheet
        target_sheet = _sheet(book, title) if title else _selection(book).sheet
        return Target(target_sheet, parse_ref(addr))
    rng = _selection(book)
    bounds = range_bounds(rng)
    if bounds[:2] == bounds[2:]:
        return Target(rng.sheet, range_bounds(rng.current_region), active=bounds[:2])
    return Target(rng.sheet, bounds)


def _selection(book: Any) -> Any:
    rng = book.selection
    if rng is None:
        raise UserError("nothing is selected; select the table (or one cell in it) first")
    return rng


# ---- reading -----------------------------------------------------------------------------------
def read(
    book: Any,
    target: Target,
    *,
    strategy: Strategy = "auto",
    budget: int = DEFAULT_BUDGET,
    text_budget: int = TEXT_BUDGET,
    record: bool = False,
) -> ReadResult:
    """Read `target` of `book` with screen updating off; `record` keeps Excel's answers."""
    probes = Probes(target.sheet, record=record)
    with screen_updating_off(book.app):
        result = read_range(
            probes,
            target.sheet.name,
            target.bounds,
            book.name,
            strategy=strategy,
            budget=budget,
            text_budget=text_budget,
        )
    if target.active is not None:  # the table block under the selected cell (title lines cut off)
        top, left = target.bounds[:2]
        result.table = locate(result.table, cell=(target.active[0] - top, target.active[1] - left))
    return result


def read_range(
    probes: Probes,
    sheet_name: str,
    bounds: Bounds,
    workbook: str | None,
    *,
    strategy: Strategy = "auto",
    budget: int = DEFAULT_BUDGET,
    text_budget: int = TEXT_BUDGET,
) -> ReadResult:
    """The reader proper (`celltrace.shared.backend.read_range` on an `XlwingsSheet`): every Excel
    question goes through `probes` (live or replayed)."""
    sheet = XlwingsSheet(
        probes, sheet_name, workbook, strategy=strategy, budget=budget, text_budget=text_budget
    )
    table = backend.read_range(sheet, bounds)
    scan = sheet.scan(bounds)
    return ReadResult(
        table=table, calls=probes.calls, strategy=scan.strategy, probes=probes, notes=scan.notes
    )


class XlwingsSheet:
    """A live worksheet as a `SheetReader`, asked through `Probes` (see the module's costs)."""

    def __init__(
        self,
        probes: Probes,
        title: str,
        workbook: str | None,
        *,
        strategy: Strategy = "auto",
        budget: int = DEFAULT_BUDGET,
        text_budget: int = TEXT_BUDGET,
    ) -> None:
        self.probes = probes
        self.title = title
        self.workbook = workbook
        self.strategy: Strategy = strategy
        self.budget = budget
        self.text_budget = text_budget
        self._extent: Bounds | None = None
        self._scans: dict[Bounds, MergeScan] = {}
        self._use_text = True

    def extent(self) -> Bounds:
        if self._extent is None:
            self._extent = parse_range(self.probes.used_range())
        return self._extent

    def scan(self, bounds: Bounds) -> MergeScan:
        """Merged areas touching `bounds` (the read range's, clipped to the used range)."""
        e = self.extent()
        b = (bounds[0], bounds[1], min(bounds[2], e[2]), min(bounds[3], e[3]))
        if b not in self._scans:
            self._scans[b] = find_merges(self.probes, b, self.strategy, self.budget)
        return self._scans[b]

    def grid(self, bounds: Bounds) -> Grid:
        top, left = bounds[0], bounds[1]
        raw = self.probes.values(address(bounds))
        scan = self.scan(bounds)
        numeric: dict[int, list[int]] = {}  # sheet column → sheet rows of numeric cells, ascending
        for j in range(len(raw[0]) if raw else 0):
            rows = [top + i for i, row in enumerate(raw) if _is_number(row[j])]
            if rows:
                numeric[left + j] = rows
        formats = _number_formats(self.probes, numeric, scan.number_formats)
        levels = self._indent_levels(bounds, raw)
        self._use_text = sum(map(len, numeric.values())) <= self.text_budget
        text: list[list[str]] = []
        values: list[list[object]] = []
        for i, row in enumerate(raw):
            t_row, v_row = [], []
            for j, v in enumerate(row):
                cell = (top + i, left + j)
                shown, value = self._cell(cell, v, formats.get(cell))
                if isinstance(v, str):
                    shown = indented(shown, levels.get(cell))
                t_row.append(shown)
                v_row.append(value)
            text.append(t_row)
            values.append(v_row)
        return text, values

    def _indent_levels(self, bounds: Bounds, raw: list[list[Any]]) -> dict[tuple[int, int], int]:
        """Indent level of every text cell: the whole range at once when uniform (the usual sheet
        with no indentation: one call), else `_uniform_blocks` over each column's text cells."""
        top, left = bounds[0], bounds[1]
        textual = {left + j: [top + i for i, row in enumerate(raw) if isinstance(row[j], str)]
                   for j in range(len(raw[0]) if raw else 0)}
        textual = {col: rows for col, rows in textual.items() if rows}
        whole = self.probes.indent_level(address(bounds)) if textual else 0
        if whole is not None:
            return {(r, col): whole for col, rows in textual.items() for r in rows}
        return _uniform_blocks(self.probes.indent_level, textual)

    def cell(self, row: int, col: int) -> tuple[str, object] | None:
        anchor = range_ref(row, col, row, col)
        v = self.probes.values(anchor)[0][0]
        if v is None:
            return None
        fmt = self.probes.number_format(anchor) if _is_number(v) else None
        return self._cell((row, col), v, fmt)

    def merges(self, bounds: Bounds) -> list[Bounds]:
        return list(self.scan(bounds).areas)

    def uncached(self, bounds: Bounds) -> list[tuple[int, int]]:
        return []  # Excel computes every formula

    def hidden(self, bounds: Bounds) -> tuple[frozenset[int], frozenset[int]]:
        return frozenset(_hidden(self.probes, bounds, rows=True)), frozenset(
            _hidden(self.probes, bounds, rows=False)
        )

    def _cell(self, cell: tuple[int, int], v: Any, fmt: str | None) -> tuple[str, Any]:
        """(displayed text, JSON-ready value) of one cell, as file mode computes them from the file."""
        if v is None:
            return "", None
        if not _is_number(v):
            return format_value(v, "General"), v
        value = _like_openpyxl(v, fmt)
        shown = None
        if self._use_text:
            shown = self.probes.text(range_ref(*cell, *cell))
            if shown is not None and _HASHES.match(shown):  # column too narrow: Excel shows ####
                shown = None
        if shown is None:
            shown = _format(type(value).__name__, value, fmt)
        return shown, json_value(value)


@functools.lru_cache(maxsize=65_536)
def _format(kind: str, value: Any, fmt: str | None) -> str:
    """`format_value`, memoised per (type name, value, format): tables repeat values and formats."""
    return format_value(value, fmt)


@functools.lru_cache(maxsize=1024)
def _date_kind(fmt: str | None) -> tuple[bool, bool]:
    return is_date_format(fmt), is_timedelta_format(fmt)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | dt.datetime) and not isinstance(v, bool)


def _number(v: float) -> int | float:
    """COM gives every number as a double; an integral one is an int in the file."""
    return int(v) if v.is_integer() and abs(v) < _EXACT_INT else v


def _like_openpyxl(v: Any, fmt: str | None) -> Any:
    """A COM number or date → the value openpyxl reads from the saved file (date formats → the
    date Excel displays, `from_serial`; the serial where Excel displays none)."""
    serial = (v - _EPOCH) / dt.timedelta(days=1) if isinstance(v, dt.datetime) else v
    is_date, is_timedelta = _date_kind(fmt)
    if is_date:
        moment = from_serial(serial, elapsed=is_timedelta)
        return _number(float(serial)) if moment is None else moment
    return v if isinstance(v, dt.datetime) else _number(float(v))


def _number_formats(
    probes: Probes, numeric: dict[int, list[int]], known: dict[tuple[int, int], str] | None
) -> dict[tuple[int, int], str]:
    """Number format of every numeric cell: from `known` (Value(11)), else `_uniform_blocks`."""
    known = known or {}
    out = {(r, col): known[(r, col)] for col, rows in numeric.items() for r in rows if (r, col) in known}
    asked = {col: [r for r in rows if (r, col) not in known] for col, rows in numeric.items()}
    out.update(_uniform_blocks(probes.number_format, {col: rows for col, rows in asked.items() if rows}))
    return out


def _uniform_blocks(ask: Callable[[str], T | None], cells: dict[int, list[int]]) -> dict[tuple[int, int], T]:
    """A property of the listed cells (column → ascending rows), by divide and conquer: per column,
    the block from the first to the last listed cell is asked at once (`ask` gives None when its
    cells differ); a mixed block is split at the gap (unlisted cells, e.g. a merged area's covered
    cells) nearest its middle, or in half when it has none, so unlisted cells are left out early."""
    out: dict[tuple[int, int], T] = {}
    for col, rows in cells.items():
        stack = [rows]
        while stack:
            part = stack.pop()
            found = ask(address((part[0], col, part[-1], col)))
            if found is not None:
                out.update(((r, col), found) for r in part)
            elif len(part) > 1:
                cut = _split_at(part)
                stack += [part[:cut], part[cut:]]
    return out


def _split_at(rows: list[int]) -> int:
    """Index splitting ascending `rows` at the gap nearest the middle (the middle without gaps)."""
    mid = len(rows) // 2
    gaps = [k for k in range(1, len(rows)) if rows[k] - rows[k - 1] > 1]
    return min(gaps, key=lambda k: abs(k - mid)) if gaps else mid


def _hidden(probes: Probes, b: Bounds, *, rows: bool) -> set[int]:
    """0-based hidden rows (or columns) of `b`, by divide and conquer on `Hidden`."""
    r0, c0, r1, c1 = b
    lo, hi = (r0, r1) if rows else (c0, c1)
    found: set[int] = set()
    stack = [(lo, hi)]
    while stack:
        a, z = stack.pop()
        line = range_ref(a, c0, z, c0) if rows else range_ref(r0, a, r0, z)
        state = probes.rows_hidden(line) if rows else probes.cols_hidden(line)
        if state is True:
            found.update(range(a - lo, z - lo + 1))
        elif state is None and a < z:
            mid = (a + z) // 2
            stack += [(a, mid), (mid + 1, z)]
    return found
