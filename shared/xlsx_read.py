"""Read one rectangular range of an .xlsx/.xlsm worksheet into a `Table` (file mode, openpyxl).

The range is chosen by an A1 reference, a defined name, an Excel table (ListObject) or, when none is
given, the sheet's used range trimmed of empty border rows and columns (extended so that no merged
area touching the content is cut). Parts of a requested range beyond the sheet's last used row or
column are dropped with a warning, so `A:C` or `A1:Z100000` read only what exists.

Values come from a `data_only` load (Excel's cached formula results). Which cells hold formulas is
found by a streaming scan of the sheet XML (cheaper than a second full load); a formula without a
cached value is reported in `Table.warnings`. Displayed text is `format_value(value, number_format)`,
and a text cell's indent level becomes leading spaces (`backend.indented`); raw values are kept JSON-ready
(datetimes as ISO strings, durations as Excel day counts, error values such as `#N/A` as text). The
file is read once into memory and never written; its parts are first streamed through the caps of
`xlsx_limits` (size per part, cells, text length). `title` is always None: a title row stays part of
the grid, where the graph can use it.
"""

from __future__ import annotations

import io
import posixpath
import re
import warnings
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import openpyxl
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from celltrace.shared.a1 import col_number, split_sheet_ref
from celltrace.shared.backend import Bounds, Grid, indented, json_value, parse_ref, read_range
from celltrace.shared.bulk import gc_paused
from celltrace.shared.errors import UserError, WorkbookError
from celltrace.shared.numfmt import format_value
from celltrace.shared.table import Table
from celltrace.shared.xlsx_limits import check_workbook

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_STREAM = "EncryptionInfo".encode("utf-16-le")
_FORMULA_RE = re.compile(rb"<(?:\w+:)?f[\s>/]")
_ATTR_R_RE = re.compile(rb'\sr="([A-Z]{1,3})([0-9]{1,7})"')
_VALUE_RE = re.compile(rb"<(?:\w+:)?v(?:\s[^>]*)?(?:/>|>([^<]*)<)")
_REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def read_table(
    path: str | Path,
    sheet: str | None = None,
    range: str | None = None,
    name: str | None = None,
    table: str | None = None,
) -> Table:
    """Read a range (`range`, defined `name`, Excel `table`, or the used range) as a `Table`.

    `sheet` picks the worksheet (default: the active one) and the scope of sheet-level names.
    Raises `UserError` (one line) for anything wrong with the file or the selection.
    """
    if sum(x is not None for x in (range, name, table)) > 1:
        raise ValueError("give at most one of range, name and table")
    path = Path(path)
    data = _read_workbook_bytes(path)
    with gc_paused():  # one object per cell, none freed: collections would scan for nothing
        wb = _load(path, data)
        if table is not None:
            ws, bounds = _find_table(wb, sheet, table)
        elif name is not None:
            ws, bounds = _find_name(wb, sheet, name)
        elif range is not None:
            ws, bounds = _find_range(wb, sheet, range)
        else:
            ws = _worksheet(wb, sheet) if sheet is not None else _active(wb)
            bounds = None
        uncached = _uncached_formulas(data, sheet_part(data, ws.title))
        return read_range(OpenpyxlSheet(ws, path.name, uncached), bounds)


# ---- file checks and loading ----------------------------------------------------------------------
def _read_workbook_bytes(path: Path) -> bytes:
    if not path.exists():
        raise UserError(f"{path}: no such file")
    if path.is_dir():
        raise UserError(f"{path}: is a directory, not a workbook")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    if data.startswith(_OLE_MAGIC):
        if _ENCRYPTION_STREAM in data:
            raise WorkbookError(f"{path.name}: workbook is password-protected (encrypted); save a plain copy")
        raise WorkbookError(f"{path.name}: legacy .xls (binary) workbook; save it as .xlsx")
    if not data.startswith(b"PK"):
        raise WorkbookError(f"{path.name}: not an .xlsx/.xlsm workbook")
    return data


def _load(path: Path, data: bytes) -> Workbook:
    check_workbook(io.BytesIO(data), path.name)  # caps checked while streaming, before openpyxl
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl's "extension not supported" chatter
            return openpyxl.load_workbook(io.BytesIO(data), data_only=True, keep_links=False)
    except zipfile.BadZipFile:
        raise WorkbookError(f"{path.name}: corrupt workbook (not a valid zip archive)") from None
    except Exception as exc:  # openpyxl raises KeyError, ParseError, ValueError... on broken parts
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise WorkbookError(f"{path.name}: not a readable .xlsx/.xlsm workbook ({reason})") from None


# ---- selection --------------------------------------------------------------------------------------
def _worksheet(wb: Workbook, title: str) -> Worksheet:
    """The worksheet titled `title` (case-insensitive, as in Excel)."""
    for ws in wb.worksheets:
        if ws.title.casefold() == title.casefold():
            return ws
    if any(t.casefold() == title.casefold() for t in wb.sheetnames):
        raise UserError(f"sheet {title!r} is a chart sheet, not a worksheet")
    raise UserError(f"no sheet named {title!r} (sheets: {', '.join(wb.sheetnames)})")


def _active(wb: Workbook) -> Worksheet:
    ws = wb.active
    if isinstance(ws, Worksheet):
        return ws
    if not wb.worksheets:
        raise UserError("workbook has no worksheets")
    return wb.worksheets[0]


def _find_range(wb: Workbook, sheet: str | None, ref: str) -> tuple[Worksheet, Bounds]:
    ref_sheet, addr = split_sheet_ref(ref)
    if ref_sheet is not None and sheet is not None and ref_sheet.casefold() != sheet.casefold():
        raise UserError(f"range {ref!r} names sheet {ref_sheet!r} but --sheet is {sheet!r}")
    title = ref_sheet if ref_sheet is not None else sheet
    ws = _worksheet(wb, title) if title is not None else _active(wb)
    return ws, parse_ref(addr)


def _find_table(wb: Workbook, sheet: str | None, table: str) -> tuple[Worksheet, Bounds]:
    sheets = [_worksheet(wb, sheet)] if sheet is not None else wb.worksheets
    found = [(ws, t) for ws in sheets for t in ws.tables.values() if t.name.casefold() == table.casefold()]
    if not found:
        known = sorted(t.name for ws in sheets for t in ws.tables.values())
        where = f" on sheet {sheets[0].title!r}" if sheet is not None else ""
        raise UserError(f"no Excel table named {table!r}{where} (tables: {', '.join(known) or 'none'})")
    ws, t = found[0]
    return ws, parse_ref(t.ref)


def _find_name(wb: Workbook, sheet: str | None, name: str) -> tuple[Worksheet, Bounds]:
    """Resolve a defined name: the --sheet's own names first, then workbook names, then any sheet's."""
    key = name.casefold()
    scopes: list[Iterable[Any]] = []
    if sheet is not None:
        scopes.append(_worksheet(wb, sheet).defined_names.values())
    scopes.append(wb.defined_names.values())
    matches = [dn for scope in scopes for dn in scope if dn.name.casefold() == key]
    if not matches and sheet is None:
        local = (dn for ws in wb.worksheets for dn in ws.defined_names.values())
        matches = [dn for dn in local if dn.name.casefold() == key]
        if len(matches) > 1:
            raise UserError(f"name {name!r} is defined on several sheets; pick one with --sheet")
    if not matches:
        raise UserError(f"no defined name {name!r}")
    dn = matches[0]
    try:
        dests = list(dn.destinations) if not dn.is_external else []
    except (AttributeError, TypeError):  # openpyxl cannot parse the reference
        dests = []
    if len(dests) != 1:
        raise UserError(f"name {name!r} does not refer to a single cell range (={dn.value})")
    title, coord = dests[0]
    return _worksheet(wb, title), parse_ref(coord)


# ---- formulas without cached values -----------------------------------------------------------------
def sheet_part(data: bytes, title: str) -> str | None:
    """Zip path of the worksheet XML for sheet `title` (None when the package is unusual)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        try:
            rels = ElementTree.fromstring(zf.read("_rels/.rels"))
            wb_part = next(
                r.get("Target", "") for r in rels if r.get("Type", "").endswith("/officeDocument")
            ).lstrip("/")
            wb_dir, wb_file = posixpath.split(wb_part)
            wb_rels = ElementTree.fromstring(zf.read(posixpath.join(wb_dir, "_rels", wb_file + ".rels")))
            workbook = ElementTree.fromstring(zf.read(wb_part))
        except (KeyError, StopIteration, ElementTree.ParseError):
            return None
    targets = {r.get("Id"): r.get("Target", "") for r in wb_rels}
    for el in workbook.iter():
        if el.tag.endswith("}sheet") and el.get("name") == title:
            target = targets.get(el.get(f"{_REL_NS}id"), "")
            if target.startswith("/"):
                return target.lstrip("/")
            return posixpath.normpath(posixpath.join(wb_dir, target)) if target else None
    return None


def _uncached_formulas(data: bytes, part: str | None) -> set[tuple[int, int]]:
    """1-based (row, col) of the sheet's formula cells that have no cached value.

    Byte search around each `<f>` tag instead of parsing every cell: cost grows with the number of
    formulas, not of cells. A cell is located by its `r` attribute (always written by Excel and
    openpyxl); a formula cell without one cannot be placed and is skipped.
    """
    if part is None:
        return set()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        try:
            xml = zf.read(part)
        except KeyError:
            return set()
    out: set[tuple[int, int]] = set()
    for f in _FORMULA_RE.finditer(xml):
        start = xml.rfind(b"<", 0, xml.rfind(b"c ", 0, f.start()) + 1)
        head_end = xml.find(b">", start)
        head = xml[start:head_end]
        ref = _ATTR_R_RE.search(head)
        if ref is None:
            continue
        row, col = int(ref.group(2)), col_number(ref.group(1).decode())
        body = xml[head_end : xml.find(b"c>", f.end())]
        value = _VALUE_RE.search(body)
        cached = value is not None and (bool(value.group(1)) or b't="str"' in head)
        if not cached:
            out.add((row, col))
    return out


class OpenpyxlSheet:
    """A loaded worksheet as a `SheetReader`; `uncached` are its formulas without a cached value."""

    def __init__(self, ws: Worksheet, workbook: str, uncached: set[tuple[int, int]]) -> None:
        self.ws = ws
        self.title = ws.title
        self.workbook: str | None = workbook
        self._uncached = uncached
        self._merges = sorted((m.min_row, m.min_col, m.max_row, m.max_col) for m in ws.merged_cells.ranges)
        self._grids: dict[Bounds, Grid] = {}

    def extent(self) -> Bounds:
        return self.ws.min_row, self.ws.min_column, self.ws.max_row, self.ws.max_column

    def grid(self, bounds: Bounds) -> Grid:
        """The cells of `bounds`, sliced from an earlier read when it covers them."""
        for (r0, c0, r1, c1), (text, values) in self._grids.items():
            if r0 <= bounds[0] and c0 <= bounds[1] and bounds[2] <= r1 and bounds[3] <= c1:
                rows = slice(bounds[0] - r0, bounds[2] - r0 + 1)
                cols = slice(bounds[1] - c0, bounds[3] - c0 + 1)
                return [row[cols] for row in text[rows]], [row[cols] for row in values[rows]]
        self._grids[bounds] = _grid(self.ws, bounds)
        return self.grid(bounds)

    def cell(self, row: int, col: int) -> tuple[str, object] | None:
        anchor = self.ws.cell(row, col)
        if anchor.value is None:
            return None
        return format_value(anchor.value, anchor.number_format), json_value(anchor.value)

    def merges(self, bounds: Bounds) -> list[Bounds]:
        r0, c0, r1, c1 = bounds
        return [m for m in self._merges if m[0] <= r1 and r0 <= m[2] and m[1] <= c1 and c0 <= m[3]]

    def uncached(self, bounds: Bounds) -> list[tuple[int, int]]:
        r0, c0, r1, c1 = bounds
        return [(r, c) for r, c in self._uncached if r0 <= r <= r1 and c0 <= c <= c1]

    def hidden(self, bounds: Bounds) -> tuple[frozenset[int], frozenset[int]]:
        return _hidden(self.ws, bounds)


def _grid(ws: Worksheet, b: Bounds) -> tuple[list[list[str]], list[list[Any]]]:
    text: list[list[str]] = []
    values: list[list[Any]] = []
    for cells in ws.iter_rows(min_row=b[0], min_col=b[1], max_row=b[2], max_col=b[3]):
        t_row: list[str] = []
        v_row: list[Any] = []
        for cell in cells:
            v = cell.value
            if v is None:
                t_row.append("")
                v_row.append(None)
            elif type(v) is str:  # shown as stored, whatever the format
                t_row.append(indented(v, cell.alignment.indent))
                v_row.append(v)
            else:
                t_row.append(format_value(v, cell.number_format))
                v_row.append(json_value(v))
        text.append(t_row)
        values.append(v_row)
    return text, values


def _hidden(ws: Worksheet, b: Bounds) -> tuple[frozenset[int], frozenset[int]]:
    """0-based hidden row and column indexes within bounds."""
    rows = frozenset(r - b[0] for r, dim in ws.row_dimensions.items() if dim.hidden and b[0] <= r <= b[2])
    cols: set[int] = set()
    for key, dim in list(ws.column_dimensions.items()):
        if dim.hidden:
            lo = dim.min or col_number(key)
            hi = dim.max or lo
            cols.update(c - b[1] for c in range(max(lo, b[1]), min(hi, b[3]) + 1))
    return rows, frozenset(cols)
