"""Excel round trips of a read, counted and logged, and merged-area discovery without one call per cell.

Every read of a live sheet goes through a `Probes` object: one method per kind of question asked of
Excel, each the exact xlwings calls it costs (`sheet.range(addr)` is one call, each property one
more). `Probes.calls` counts them and `Probes.log` keeps every answer, so `--record` can dump what
Excel said and `ReplayProbes` can answer the same questions later without Excel.

Merged areas, in the order `find_merges(strategy="auto")` tries them:

* ``xml`` (Windows): one `rng.api.Value(11)` call, XML Spreadsheet 2003 with `ss:MergeAcross` /
  `ss:MergeDown` per anchor cell, parsed with `xml.etree`; the sheet's number formats come along.
  Merges crossing the range border are then found exactly by ``bisect`` over the four border strips.
* ``bisect`` (Windows and macOS): divide and conquer on `rng.api.MergeCells`, which is True (every
  cell merged), False (none) or None (mixed, COM Null). False skips a block; True asks `merge_area`
  of its first cell and continues on the rest of the block; None halves the longer side. Known areas
  are cut out of a block before it is probed. Cost ~ merges × log(cells), capped by `budget`.
* ``savecopy`` (Windows): `book.api.SaveCopyAs(tmp)`, then `<mergeCell ref>` from the copy's sheet
  XML; one call plus a file write, used when ``bisect`` runs over its budget.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from xml.etree import ElementTree

from celltrace.shared.a1 import parse_range, range_ref
from celltrace.shared.errors import UserError
from celltrace.shared.xlsx_read import sheet_part

Bounds = tuple[int, int, int, int]
"""1-based inclusive (first_row, first_col, last_row, last_col) on the sheet."""
Strategy = Literal["auto", "xml", "bisect", "savecopy"]
DEFAULT_BUDGET = 60_000
"""Most `bisect` calls before giving up for `savecopy` (a few seconds of COM on Windows)."""
XL_RANGE_VALUE_XML = 11
_SS = "{urn:schemas-microsoft-com:office:spreadsheet}"
_BAND = 256
_MERGE_REF_RE = re.compile(rb"<(?:\w+:)?mergeCell\s+ref=\"([A-Z]+[0-9]+(?::[A-Z]+[0-9]+)?)\"")
# XML Spreadsheet 2003 writes Excel's built-in formats by name.
_NAMED_FORMATS = {
    "General": "General",
    "General Number": "General",
    "General Date": "m/d/yyyy h:mm",
    "Short Date": "m/d/yyyy",
    "Medium Date": "d-mmm-yy",
    "Long Date": "dddd, mmmm d, yyyy",
    "Short Time": "h:mm",
    "Medium Time": "h:mm AM/PM",
    "Long Time": "h:mm:ss",
    "Fixed": "0.00",
    "Standard": "#,##0.00",
    "Percent": "0.00%",
    "Scientific": "0.00E+00",
    "Currency": '"$"#,##0.00_);\\("$"#,##0.00\\)',
    "Yes/No": '"Yes";"Yes";"No"',
    "True/False": '"True";"True";"False"',
    "On/Off": '"On";"On";"Off"',
    "@": "@",
}


class BudgetExceeded(RuntimeError):
    """A strategy would take more Excel calls than it is allowed."""


def address(b: Bounds) -> str:
    return range_ref(*b)


def _bounds(addr: str) -> Bounds:
    return parse_range(addr.replace("$", ""))


def _json_ready(value: Any) -> Any:
    """Excel answers → JSON (datetimes tagged), for the probe log."""
    if isinstance(value, dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    return value


def from_json(value: Any) -> Any:
    """Inverse of the log encoding."""
    if isinstance(value, dict) and "$datetime" in value:
        return dt.datetime.fromisoformat(value["$datetime"])
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


# ---- the Excel round trips ---------------------------------------------------------------------
@dataclass
class Probes:
    """All reads of one sheet, counted (`calls`) and logged (`log`: op, address and, recording, answer)."""

    sheet: Any
    record: bool = False
    """Keep every answer in `log` (for `--record`); otherwise only the questions."""
    calls: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)
    budget: int | None = None

    def _ask(self, op: str, addr: str, cost: int, fn: Callable[[], Any]) -> Any:
        if self.budget is not None and self.calls + cost > self.budget:
            raise BudgetExceeded(f"{op} on {addr}: over the budget of {self.budget} Excel calls")
        self.calls += cost
        entry: dict[str, Any] = {"op": op, "address": addr}
        self.log.append(entry)
        try:
            answer = fn()
        except Exception as exc:  # recorded too: a replay fails the same way
            entry["error"] = f"{type(exc).__name__}: {exc}"
            raise
        if self.record:
            entry["answer"] = _json_ready(answer)
        return answer

    def _range(self, addr: str) -> Any:
        return self.sheet.range(addr)

    def values(self, addr: str) -> list[list[Any]]:
        """2-D raw values: numbers as floats, dates as datetimes, errors as `#N/A` text."""
        return self._ask("values", addr, 2, lambda: self._range(addr).options(ndim=2, err_to_str=True).value)

    def number_format(self, addr: str) -> str | None:
        """The range's number format, None when its cells differ."""
        return self._ask("number_format", addr, 2, lambda: self._range(addr).number_format)

    def indent_level(self, addr: str) -> int | None:
        """The range's indent level (Format Cells › Indent), None when its cells differ."""
        return self._ask("indent_level", addr, 2, lambda: self._range(addr).api.IndentLevel)

    def text(self, addr: str) -> str | None:
        """Excel's displayed text of one cell."""
        return self._ask("text", addr, 2, lambda: self._range(addr).api.Text)

    def merge_cells(self, addr: str) -> bool | None:
        return self._ask("merge_cells", addr, 2, lambda: self._range(addr).api.MergeCells)

    def merge_area(self, addr: str) -> str:
        return self._ask("merge_area", addr, 3, lambda: self._range(addr).merge_area.address.replace("$", ""))

    def value_xml(self, addr: str) -> str:
        return self._ask("value_xml", addr, 2, lambda: self._range(addr).api.Value(XL_RANGE_VALUE_XML))

    def rows_hidden(self, addr: str) -> bool | None:
        return self._ask("rows_hidden", addr, 3, lambda: self._range(addr).api.EntireRow.Hidden)

    def cols_hidden(self, addr: str) -> bool | None:
        return self._ask("cols_hidden", addr, 3, lambda: self._range(addr).api.EntireColumn.Hidden)

    def used_range(self) -> str:
        return self._ask("used_range", "", 2, lambda: self.sheet.used_range.address.replace("$", ""))

    def saved_merges(self) -> list[str]:
        """Merged areas of this sheet from a saved copy of the whole workbook (Windows)."""
        return self._ask("saved_merges", "", 1, lambda: _save_copy_merges(self.sheet))


class ReplayProbes(Probes):
    """Answers from a recorded log instead of Excel; an unrecorded question is an error."""

    def __init__(self, log: list[dict[str, Any]]) -> None:
        super().__init__(sheet=None)
        self._answers: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for entry in log:
            self._answers.setdefault((entry["op"], entry["address"]), []).append(entry)

    def _ask(self, op: str, addr: str, cost: int, fn: Callable[[], Any]) -> Any:
        entries = self._answers.get((op, addr))
        if not entries:
            raise KeyError(f"the recording has no answer for {op} {addr!r}")
        self.calls += cost
        entry = entries.pop(0) if len(entries) > 1 else entries[0]
        self.log.append(entry)
        if "error" in entry:
            raise RuntimeError(f"recorded Excel error: {entry['error']}")
        return from_json(entry["answer"])


# ---- geometry ----------------------------------------------------------------------------------
def intersects(a: Bounds, b: Bounds) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def contains(outer: Bounds, inner: Bounds) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def subtract(b: Bounds, cut: Bounds) -> list[Bounds]:
    """`b` minus `cut` as up to four disjoint rectangles (top, bottom, left, right)."""
    if not intersects(b, cut):
        return [b]
    r0, c0, r1, c1 = b
    i0, j0, i1, j1 = max(r0, cut[0]), max(c0, cut[1]), min(r1, cut[2]), min(c1, cut[3])
    parts = [(r0, c0, i0 - 1, c1), (i1 + 1, c0, r1, c1), (i0, c0, i1, j0 - 1), (i0, j1 + 1, i1, c1)]
    return [p for p in parts if p[0] <= p[2] and p[1] <= p[3]]


def halves(b: Bounds) -> list[Bounds]:
    """Split the longer side in two (rows on a tie)."""
    r0, c0, r1, c1 = b
    if r1 - r0 >= c1 - c0:
        mid = (r0 + r1) // 2
        return [(r0, c0, mid, c1), (mid + 1, c0, r1, c1)]
    mid = (c0 + c1) // 2
    return [(r0, c0, r1, mid), (r0, mid + 1, r1, c1)]


class AreaIndex:
    """Merged areas found so far, bucketed by row band for quick overlap queries."""

    def __init__(self) -> None:
        self.areas: list[Bounds] = []
        self._bands: dict[int, list[Bounds]] = {}

    def add(self, area: Bounds) -> None:
        if area in self.areas:
            return
        self.areas.append(area)
        for band in range(area[0] // _BAND, area[2] // _BAND + 1):
            self._bands.setdefault(band, []).append(area)

    def overlapping(self, b: Bounds) -> Iterator[Bounds]:
        seen: set[Bounds] = set()
        for band in range(b[0] // _BAND, b[2] // _BAND + 1):
            for area in self._bands.get(band, ()):
                if area not in seen and intersects(area, b):
                    seen.add(area)
                    yield area

    def remainder(self, b: Bounds) -> list[Bounds]:
        """`b` with every known area cut out."""
        parts = [b]
        for area in self.overlapping(b):
            parts = [p for part in parts for p in subtract(part, area)]
        return parts


# ---- strategies --------------------------------------------------------------------------------
@dataclass
class MergeScan:
    """Merged areas touching a range (whole, unclipped) and how they were found."""

    areas: list[Bounds]
    strategy: str
    number_formats: dict[tuple[int, int], str] | None = None
    """From the ``xml`` strategy: 1-based sheet (row, col) → number format, for styled cells."""
    notes: list[str] = field(default_factory=list)


def bisect_merges(probes: Probes, bounds: Bounds, index: AreaIndex | None = None) -> list[Bounds]:
    """Divide and conquer on `MergeCells`; returns the whole areas touching `bounds`."""
    index = index or AreaIndex()
    stack = [bounds]
    while stack:
        for block in index.remainder(stack.pop()):
            state = probes.merge_cells(address(block))
            if state is False:
                continue
            if state is True:
                area = _bounds(probes.merge_area(address(block[:2] * 2)))
                if area[:2] != area[2:]:
                    index.add(area)
                stack.extend(subtract(block, area))
            elif block[:2] != block[2:]:
                stack.extend(halves(block))
    return [a for a in index.areas if intersects(a, bounds)]


def xml_merges(probes: Probes, bounds: Bounds) -> MergeScan:
    """`Value(11)` for the range, then `bisect` on its border strips for areas crossing it."""
    parsed = parse_value_xml(probes.value_xml(address(bounds)), bounds[:2])
    index = AreaIndex()
    r0, c0, r1, c1 = bounds
    strips = {(r0, c0, r0, c1), (r1, c0, r1, c1), (r0, c0, r1, c0), (r0, c1, r1, c1)}
    for strip in sorted(strips):
        bisect_merges(probes, strip, index)
    for area in parsed.merges:
        clipped = (area[0], area[1], min(area[2], r1), min(area[3], c1))
        if not any(intersects(clipped, known) for known in index.areas):
            index.add(area)
    return MergeScan(
        areas=[a for a in index.areas if intersects(a, bounds)], strategy="xml", number_formats=parsed.formats
    )


def _save_copy_merges(sheet: Any) -> list[str]:
    """`SaveCopyAs` to a temp file and read the sheet's `<mergeCell>` refs from it."""
    fd, tmp = tempfile.mkstemp(prefix="celltrace-", suffix=".xlsx")
    os.close(fd)
    os.unlink(tmp)
    try:
        sheet.book.api.SaveCopyAs(tmp)
        data = Path(tmp).read_bytes()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    part = sheet_part(data, sheet.name)
    if part is None:
        raise RuntimeError(f"sheet {sheet.name!r} not found in the saved copy")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [m.decode() for m in _MERGE_REF_RE.findall(zf.read(part))]


def find_merges(
    probes: Probes, bounds: Bounds, strategy: Strategy = "auto", budget: int = DEFAULT_BUDGET
) -> MergeScan:
    """Merged areas touching `bounds`. ``auto``: xml, else bisect (within `budget`), else savecopy."""
    notes: list[str] = []
    order = ["xml", "bisect", "savecopy"] if strategy == "auto" else [strategy]
    for name in order:
        start = probes.calls
        try:
            if name == "xml":
                scan = xml_merges(probes, bounds)
            elif name == "bisect":
                probes.budget = start + budget
                try:
                    scan = MergeScan(bisect_merges(probes, bounds), "bisect")
                finally:
                    probes.budget = None
            else:
                areas = [_bounds(ref) for ref in probes.saved_merges()]
                scan = MergeScan([a for a in areas if intersects(a, bounds)], "savecopy")
        except Exception as exc:  # COM errors have no common base; any failure moves on
            notes.append(f"merge discovery {name!r} failed ({type(exc).__name__}: {exc})")
            continue
        scan.notes = notes
        return scan
    raise UserError("cannot find the merged areas of the range: " + "; ".join(notes))


# ---- XML Spreadsheet 2003 ----------------------------------------------------------------------
@dataclass
class ValueXml:
    merges: list[Bounds]
    formats: dict[tuple[int, int], str]


def parse_value_xml(xml: str, top_left: tuple[int, int]) -> ValueXml:
    """Merges and number formats of `Range.Value(11)`, in sheet coordinates (`top_left` = A1 of it)."""
    root = ElementTree.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    styles: dict[str, str] = {}
    parents: dict[str, str] = {}
    for style in root.iter(f"{_SS}Style"):
        sid = style.get(f"{_SS}ID", "")
        fmt = style.find(f"{_SS}NumberFormat")
        if fmt is not None:
            code = fmt.get(f"{_SS}Format", "General")
            styles[sid] = _NAMED_FORMATS.get(code, code)
        if style.get(f"{_SS}Parent"):
            parents[sid] = style.get(f"{_SS}Parent", "")

    def style_format(sid: str) -> str:
        while sid not in styles and sid in parents:
            sid = parents[sid]
        return styles.get(sid, styles.get("Default", "General"))

    top, left = top_left
    merges: list[Bounds] = []
    formats: dict[tuple[int, int], str] = {}
    table = next(root.iter(f"{_SS}Table"), None)
    row = 0
    for row_el in table.iter(f"{_SS}Row") if table is not None else ():
        row = int(row_el.get(f"{_SS}Index", row + 1))
        col = 0
        for cell in row_el.iter(f"{_SS}Cell"):
            col = int(cell.get(f"{_SS}Index", col + 1))
            across = int(cell.get(f"{_SS}MergeAcross", 0))
            down = int(cell.get(f"{_SS}MergeDown", 0))
            r, c = top + row - 1, left + col - 1
            if across or down:
                merges.append((r, c, r + down, c + across))
            sid = cell.get(f"{_SS}StyleID") or row_el.get(f"{_SS}StyleID") or "Default"
            formats[(r, c)] = style_format(sid)
            col += across
    return ValueXml(merges=merges, formats=formats)
