"""Read one rectangular range of an .xlsx/.xlsm worksheet into a `Table` (file mode, openpyxl).

The range is chosen by an A1 reference, a defined name, an Excel table (ListObject) or, when none is
given, the sheet's used range trimmed of empty border rows and columns (extended so that no merged
area touching the content is cut). Parts of a requested range beyond the sheet's last used row or
column are dropped with a warning, so `A:C` or `A1:Z100000` read only what exists.

Values come from a `data_only` load (Excel's cached formula results). Which cells hold formulas is
found by a streaming scan of the sheet XML (cheaper than a second full load); a formula without a
cached value is reported in `Table.warnings`. Displayed text is `format_value(value, number_format)`;
raw values are kept JSON-ready (datetimes as ISO strings, durations as Excel day counts, error
values such as `#N/A` as text). The file is read once into memory and never written; its parts are
first streamed through the caps of `xlsx_limits` (size per part, cells, text length). `title` is
always None: a title row stays part of the grid, where the graph can use it.
"""

from __future__ import annotations

import datetime as dt
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

from celltrace.shared.a1 import AddressError, col_number, parse_range, range_ref, split_sheet_ref
from celltrace.shared.errors import UserError
from celltrace.shared.numfmt import format_value
from celltrace.shared.table import Merge, Origin, Table
from celltrace.shared.xlsx_limits import check_workbook

Bounds = tuple[int, int, int, int]
"""1-based inclusive (min_row, min_col, max_row, max_col)."""

MAX_LISTED = 10
"""Addresses listed in one warning before it says "and N more"."""

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_STREAM = "EncryptionInfo".encode("utf-16-le")
_COLS_RE = re.compile(r"^\$?([A-Za-z]{1,3}):\$?([A-Za-z]{1,3})$")
_ROWS_RE = re.compile(r"^\$?([0-9]{1,7}):\$?([0-9]{1,7})$")
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
    uncached = _uncached_formulas(data, _sheet_part(data, ws.title), bounds)
    return _read(ws, bounds, uncached, path.name)


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
            raise UserError(f"{path.name}: workbook is password-protected (encrypted); save a plain copy")
        raise UserError(f"{path.name}: legacy .xls (binary) workbook; save it as .xlsx")
    if not data.startswith(b"PK"):
        raise UserError(f"{path.name}: not an .xlsx/.xlsm workbook")
    return data


def _load(path: Path, data: bytes) -> Workbook:
    check_workbook(io.BytesIO(data), path.name)  # caps checked while streaming, before openpyxl
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl's "extension not supported" chatter
            return openpyxl.load_workbook(io.BytesIO(data), data_only=True, keep_links=False)
    except zipfile.BadZipFile:
        raise UserError(f"{path.name}: corrupt workbook (not a valid zip archive)") from None
    except Exception as exc:  # openpyxl raises KeyError, ParseError, ValueError... on broken parts
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UserError(f"{path.name}: not a readable .xlsx/.xlsm workbook ({reason})") from None


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


def _parse_ref(ref: str) -> Bounds:
    """A1 range, single cell, whole columns (`A:C`) or whole rows (`1:5`) → 1-based bounds."""
    ref = ref.strip()
    if m := _COLS_RE.match(ref):
        a, b = sorted((col_number(m.group(1)), col_number(m.group(2))))
        return 1, a, 1_048_576, b
    if m := _ROWS_RE.match(ref):
        a, b = sorted((int(m.group(1)), int(m.group(2))))
        if a < 1:
            raise UserError(f"malformed range {ref!r}")
        return a, 1, b, 16_384
    try:
        return parse_range(ref)
    except AddressError as exc:
        raise UserError(f"malformed range {ref!r}: {exc}") from None


def _find_range(wb: Workbook, sheet: str | None, ref: str) -> tuple[Worksheet, Bounds]:
    ref_sheet, addr = split_sheet_ref(ref)
    if ref_sheet is not None and sheet is not None and ref_sheet.casefold() != sheet.casefold():
        raise UserError(f"range {ref!r} names sheet {ref_sheet!r} but --sheet is {sheet!r}")
    title = ref_sheet if ref_sheet is not None else sheet
    ws = _worksheet(wb, title) if title is not None else _active(wb)
    return ws, _parse_ref(addr)


def _find_table(wb: Workbook, sheet: str | None, table: str) -> tuple[Worksheet, Bounds]:
    sheets = [_worksheet(wb, sheet)] if sheet is not None else wb.worksheets
    found = [(ws, t) for ws in sheets for t in ws.tables.values() if t.name.casefold() == table.casefold()]
    if not found:
        known = sorted(t.name for ws in sheets for t in ws.tables.values())
        where = f" on sheet {sheets[0].title!r}" if sheet is not None else ""
        raise UserError(f"no Excel table named {table!r}{where} (tables: {', '.join(known) or 'none'})")
    ws, t = found[0]
    return ws, _parse_ref(t.ref)


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
    return _worksheet(wb, title), _parse_ref(coord)


# ---- formulas without cached values -----------------------------------------------------------------
def _sheet_part(data: bytes, title: str) -> str | None:
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


def _uncached_formulas(data: bytes, part: str | None, bounds: Bounds | None) -> set[tuple[int, int]]:
    """1-based (row, col) of formula cells in `bounds` (all when None) that have no cached value.

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
        if not _inside(row, col, bounds):
            continue
        body = xml[head_end : xml.find(b"c>", f.end())]
        value = _VALUE_RE.search(body)
        cached = value is not None and (bool(value.group(1)) or b't="str"' in head)
        if not cached:
            out.add((row, col))
    return out


def _inside(row: int, col: int, bounds: Bounds | None) -> bool:
    return bounds is None or (bounds[0] <= row <= bounds[2] and bounds[1] <= col <= bounds[3])


# ---- reading the grid -------------------------------------------------------------------------------
def _json_value(value: Any) -> Any:
    """openpyxl value → JSON-ready raw value."""
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds() / 86_400
    return value


def _content_bounds(
    text: list[list[str]], origin: tuple[int, int], uncached: set[tuple[int, int]], merges: list[Bounds]
) -> Bounds | None:
    """Bounding box of non-blank cells and uncached formulas, grown to whole touching merged areas."""
    top, left = origin
    rows = [i for i, row in enumerate(text) if any(t.strip() for t in row)]
    cols = [j for j in range(len(text[0]) if text else 0) if any(row[j].strip() for row in text)]
    points = [(r, c) for r, c in uncached]
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


def _read(ws: Worksheet, bounds: Bounds | None, uncached: set[tuple[int, int]], workbook: str) -> Table:
    warnings_: list[str] = []
    merges = sorted((m.min_row, m.min_col, m.max_row, m.max_col) for m in ws.merged_cells.ranges)
    extent = (ws.min_row, ws.min_column, ws.max_row, ws.max_column)
    if bounds is None:
        read = extent
    else:
        read = (bounds[0], bounds[1], min(bounds[2], extent[2]), min(bounds[3], extent[3]))
        if read[0] > read[2] or read[1] > read[3]:
            raise UserError(f"range {range_ref(*bounds)} on sheet {ws.title!r} is empty")
        if read != bounds:
            warnings_.append(
                f"range {range_ref(*bounds)} extends past the last used cell of sheet {ws.title!r}; "
                f"read {range_ref(*read)}"
            )
    text, values = _grid(ws, read)
    if bounds is None:
        used = _content_bounds(text, read[:2], uncached, merges)
        if used is None:
            raise UserError(f"sheet {ws.title!r} is empty")
        dr, dc = used[0] - read[0], used[1] - read[1]
        text = [row[dc : dc + used[3] - used[1] + 1] for row in text[dr : dr + used[2] - used[0] + 1]]
        values = [row[dc : dc + used[3] - used[1] + 1] for row in values[dr : dr + used[2] - used[0] + 1]]
        read = used
    table_merges = _clip_merges(ws, merges, read, text, values, warnings_)
    missing = sorted((r, c) for r, c in uncached if _inside(r, c, read))
    if not missing and not any(t.strip() for row in text for t in row):
        raise UserError(f"range {range_ref(*read)} on sheet {ws.title!r} is empty")
    if missing:
        listed = ", ".join(range_ref(r, c, r, c) for r, c in missing[:MAX_LISTED])
        more = f" and {len(missing) - MAX_LISTED} more" if len(missing) > MAX_LISTED else ""
        warnings_.append(
            f"{len(missing)} formula cell(s) have no cached value (workbook not recalculated in Excel; "
            f"read as empty): {listed}{more}"
        )
    hidden_rows, hidden_cols = _hidden(ws, read)
    if hidden_rows or hidden_cols:
        warnings_.append(
            f"{len(hidden_rows)} hidden row(s) and {len(hidden_cols)} hidden column(s) are included"
        )
    return Table(
        text=text,
        values=values,
        merges=table_merges,
        title=None,
        origin=Origin(sheet=ws.title, address=range_ref(*read), workbook=workbook),
        hidden_rows=hidden_rows,
        hidden_cols=hidden_cols,
        warnings=warnings_,
    )


def _clip_merges(
    ws: Worksheet,
    merges: list[Bounds],
    read: Bounds,
    text: list[list[str]],
    values: list[list[Any]],
    warnings_: list[str],
) -> list[Merge]:
    """Merged areas intersecting `read`, 0-based within it. An area crossing the border is clipped
    (with a warning); if that cuts off its anchor, the anchor's content moves to the clipped area."""
    top, left = read[0], read[1]
    out: list[Merge] = []
    for m in merges:
        clip = (max(m[0], read[0]), max(m[1], read[1]), min(m[2], read[2]), min(m[3], read[3]))
        if clip[0] > clip[2] or clip[1] > clip[3]:
            continue
        if clip != m:
            warnings_.append(
                f"merged area {range_ref(*m)} crosses the range border; clipped to {range_ref(*clip)}"
            )
            anchor = ws.cell(m[0], m[1])
            if clip[:2] != m[:2] and anchor.value is not None:
                text[clip[0] - top][clip[1] - left] = format_value(anchor.value, anchor.number_format)
                values[clip[0] - top][clip[1] - left] = _json_value(anchor.value)
        out.append((clip[0] - top, clip[1] - left, clip[2] - top, clip[3] - left))
    return out


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
            else:
                t_row.append(format_value(v, cell.number_format))
                v_row.append(_json_value(v))
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
