"""File-mode writer: apply engine-neutral actions to a copy of a workbook with openpyxl.

The workbook is loaded for writing without `data_only` (formulas stay formulas), `.xlsm`/`.xltm`
with `keep_vba=True`, rich text kept. Each touched cell's original fill and note go into the
restore record (`celltrace.shared.restore`) inside the workbook, so `Clear` restores them exactly.
Output goes to `<name>.celltrace<suffix>` next to the input unless told otherwise, never onto the
input itself unless in place, and atomically: a temp file in the target folder, then a rename.
Parts openpyxl would drop (charts, images, shapes, pivots, threaded comments, slicers, ...) are
detected from the package's content types: a warning for a copy, a refusal in place.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import stat
import tempfile
import warnings
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import openpyxl
from openpyxl.cell.cell import Cell, MergedCell
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.styles.fills import Fill as XlFill
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.hyperlink import Hyperlink
from openpyxl.worksheet.worksheet import Worksheet
from openpyxl.xml.functions import fromstring, tostring

from celltrace.shared.a1 import cell_ref, parse_range, range_ref
from celltrace.shared.actions import Action, Clear, LogEntry
from celltrace.shared.backend import (
    LOG_SHEET,
    NOTE_AUTHOR,
    Bounds,
    WriteReport,
    apply_actions,
    read_record,
)
from celltrace.shared.errors import UserError, WorkbookError
from celltrace.shared.restore import RECORD_SHEET, FillState, NoteState, Scalar, ValueEntry, split_chunks
from celltrace.shared.safe_text import write_value
from celltrace.shared.xlsx_limits import check_workbook

SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm")
MACRO_SUFFIXES = (".xlsm", ".xltm")

# (content-type pattern, what is lost); matched against every part of the package.
_LOSSY_TYPES = [
    (r"drawingml\.chart|chartstyle|chartcolorstyle", "charts"),
    (r"drawing\+xml", "drawings or shapes"),
    (r"^image/", "images"),
    (r"pivotcache|pivottable", "pivot tables"),
    (r"threadedcomments|\.person\+xml", "threaded comments"),
    (r"slicer", "slicers"),
    (r"timeline", "timelines"),
    (r"sheetmetadata", "dynamic-array formula metadata"),
    (r"richdata|rdrichvalue", "rich data (images in cells, data types)"),
    (r"connections\+xml|querytable", "data connections"),
    (r"oleobject", "embedded objects"),
    (r"webextension", "add-in parts"),
    (r"customxml", "custom XML parts"),
    (r"controlproperties|activex", "form or ActiveX controls"),
]
_KEPT_WITH_VBA = {"form or ActiveX controls"}  # openpyxl's keep_vba copies ctrlProps/activeX parts
_LOSSY_SHEET_XML = re.compile(rb"<x14:(sparklineGroups|dataValidations|conditionalFormattings)\b")
_SHEET_EXT = {
    b"sparklineGroups": "sparklines",
    b"dataValidations": "extended data validation (x14)",
    b"conditionalFormattings": "extended conditional formatting (x14)",
}
_CT_NS = "{http://schemas.openxmlformats.org/package/2006/content-types}"


@dataclass
class OutputPlan:
    """Where a run writes: validated before any work, so bad paths fail fast."""

    source: Path
    output: Path
    warnings: list[str] = field(default_factory=list)


# ---- package inspection and paths ------------------------------------------------------------
def lossy_parts(path: Path) -> list[str]:
    """What an openpyxl round trip of `path` would drop, from its parts' content types."""
    macro = path.suffix.lower() in MACRO_SUFFIXES
    try:
        with zipfile.ZipFile(path) as z:
            root = ElementTree.fromstring(z.read("[Content_Types].xml"))
            defaults = {
                d.get("Extension", "").lower(): d.get("ContentType", "")
                for d in root.iter(f"{_CT_NS}Default")
            }
            overrides = {
                o.get("PartName", "").lstrip("/"): o.get("ContentType", "")
                for o in root.iter(f"{_CT_NS}Override")
            }
            found: set[str] = set()
            for name in z.namelist():
                ctype = overrides.get(name) or defaults.get(name.rsplit(".", 1)[-1].lower(), "")
                ctype = ctype.lower()
                found |= {label for pattern, label in _LOSSY_TYPES if re.search(pattern, ctype)}
                if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                    found |= {_SHEET_EXT[m] for m in set(_LOSSY_SHEET_XML.findall(z.read(name)))}
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, OSError) as exc:
        raise UserError(f"{path.name}: not a readable .xlsx/.xlsm workbook ({exc})") from None
    if macro:
        found -= _KEPT_WITH_VBA
    return sorted(found)


def default_output_path(source: Path, tag: str = "celltrace") -> Path:
    """`book.xlsx` → `book.celltrace.xlsx` next to it (`.xlsm` stays `.xlsm`)."""
    return source.with_name(f"{source.stem}.{tag}{source.suffix}")


def lock_file(path: Path) -> Path:
    """The owner file Excel keeps next to an open workbook."""
    return path.with_name(f"~${path.name}")


def _is_read_only(path: Path) -> bool:
    return not os.access(path, os.W_OK) or not path.stat().st_mode & (
        stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    )


def prepare_output(
    source: str | Path, out: str | Path | None = None, *, in_place: bool = False, tag: str = "celltrace"
) -> OutputPlan:
    """Validate the input and pick the output path; `UserError` for anything that would fail later."""
    source = Path(source)
    if not source.is_file():
        raise UserError(f"{source}: no such file")
    if source.suffix.lower() not in SUFFIXES:
        raise UserError(f"{source.name}: only {', '.join(SUFFIXES)} workbooks can be written")
    if in_place and out is not None and Path(out).resolve() != source.resolve():
        raise UserError("give either --out or --in-place, not both")
    # in place on a symlink writes the real workbook (the link stays a link)
    output = Path(out) if out is not None else default_output_path(source, tag)
    if in_place:
        output = source.resolve()
    if not in_place and output.exists() and output.resolve() == source.resolve():
        raise UserError(f"{output.name}: output would overwrite the input; use --in-place to mean that")
    if output.suffix.lower() != source.suffix.lower():
        raise UserError(f"{output.name}: output must keep the input's extension {source.suffix!r}")
    if not output.parent.is_dir():
        raise UserError(f"{output.parent}: output folder does not exist")
    if not os.access(output.parent, os.W_OK | os.X_OK):
        raise UserError(f"{output.parent}: output folder is not writable")
    if output.is_dir():
        raise UserError(f"{output}: is a directory")
    if output.exists() and _is_read_only(output):
        raise UserError(f"{output.name}: output file is read-only")
    if lock_file(output).exists():
        raise UserError(f"{output.name} is open in Excel ({lock_file(output).name} exists); close it first")
    notes: list[str] = []
    if lock_file(source).exists() and not in_place:
        notes.append(f"{source.name} seems open in Excel; unsaved changes there are not included")
    lost = lossy_parts(source)
    if lost and in_place:
        raise UserError(
            f"{source.name} holds {', '.join(lost)}, which openpyxl would drop; "
            "refusing to write in place (write a copy with --out)"
        )
    if lost:
        notes.append(f"{source.name} holds {', '.join(lost)}; the copy {output.name} will not have them")
    return OutputPlan(source=source, output=output, warnings=notes)


# ---- load and save ---------------------------------------------------------------------------
def load_for_write(path: Path) -> tuple[Workbook, list[str]]:
    """Full load for writing (formulas, VBA for macro files, rich text); openpyxl's warnings. The
    read caps of `xlsx_limits` are checked first."""
    check_workbook(str(path), path.name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            wb = openpyxl.load_workbook(
                path, keep_vba=path.suffix.lower() in MACRO_SUFFIXES, rich_text=True, keep_links=True
            )
        except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
            raise WorkbookError(f"{path.name}: cannot open the workbook ({exc})") from None
    return wb, sorted({f"openpyxl: {w.message}" for w in caught})


def save_atomic(wb: Workbook, output: Path) -> None:
    """Save to a temp file beside `output`, then rename over it; nothing is left on failure. A symlink
    `output` is followed: the file it points to is replaced, the link stays."""
    output = Path(os.path.realpath(output))
    if output.exists():
        mode = stat.S_IMODE(output.stat().st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=output.parent, prefix=".~celltrace-", suffix=output.suffix)
    os.close(fd)
    try:
        wb.save(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, output)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise UserError(f"cannot write {output.name}: {exc.strerror or exc}") from None
        raise


# ---- fills and notes -------------------------------------------------------------------------
def _solid(colour: str) -> PatternFill:
    argb = "FF" + colour[1:]
    return PatternFill(fill_type="solid", start_color=argb, end_color=argb)


def _colour_of(fill: XlFill) -> str | None:
    """`#RRGGBB` of a solid RGB fill, else None (`fill` may be a cell's style proxy)."""
    if getattr(fill, "patternType", None) == "solid" and fill.fgColor.type == "rgb":
        return "#" + str(fill.fgColor.rgb)[-6:].upper()
    return None


def fill_state(fill: XlFill) -> FillState:
    return FillState(colour=_colour_of(fill), ooxml=tostring(fill.to_tree()).decode("utf-8"))


def fill_from_state(state: FillState) -> XlFill:
    if state.ooxml:
        return XlFill.from_tree(fromstring(state.ooxml)) or PatternFill()
    return _solid(state.colour) if state.colour else PatternFill()


def _comment(text: str, author: str) -> Comment:
    lines = sum(max(1, math.ceil(len(line) / 48)) for line in text.split("\n"))
    return Comment(text, author, height=min(400, 16 + 14 * lines), width=300)


class OpenpyxlBook:
    """An open workbook as a `BookWriter` (nothing to undo: a failed run is never saved)."""

    overwrite_hint = "use --overwrite to replace it"

    def __init__(self, wb: Workbook) -> None:
        self.wb = wb
        self._merges: dict[str, list[Bounds]] = {}

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def _ws(self, title: str) -> Worksheet:
        ws = self.wb[title]
        assert isinstance(ws, Worksheet)
        return ws

    def worksheet(self, name: str) -> str:
        if name not in self.wb.sheetnames or not isinstance(self.wb[name], Worksheet):
            raise UserError(f"no worksheet named {name!r} (sheets: {', '.join(self.wb.sheetnames)})")
        return name

    def _merged(self, ws: Worksheet) -> list[Bounds]:
        if ws.title not in self._merges:
            self._merges[ws.title] = [
                (m.min_row, m.min_col, m.max_row, m.max_col) for m in ws.merged_cells.ranges
            ]
        return self._merges[ws.title]

    def area(self, sheet: str, address: str) -> Bounds:
        r0, c0, r1, c1 = parse_range(address)
        grown = True
        while grown:
            grown = False
            for m0, n0, m1, n1 in self._merged(self._ws(sheet)):
                if (
                    m0 <= r1
                    and r0 <= m1
                    and n0 <= c1
                    and c0 <= n1
                    and not (r0 <= m0 and c0 <= n0 and m1 <= r1 and n1 <= c1)
                ):
                    r0, c0, r1, c1 = min(r0, m0), min(c0, n0), max(r1, m1), max(c1, n1)
                    grown = True
        return r0, c0, r1, c1

    def fills(self, sheet: str, cells: Sequence[str]) -> dict[str, FillState]:
        ws = self._ws(sheet)
        return {ref: fill_state(ws[ref].fill) for ref in cells}

    def shows_fill(self, sheet: str, cell: str, colour: str) -> bool:
        # covered cells of a merge lose their style on load, so they cannot be compared
        target = self._ws(sheet)[cell]
        return isinstance(target, MergedCell) or _colour_of(target.fill) == colour

    def paint(self, sheet: str, areas: Sequence[tuple[Bounds, FillState]]) -> None:
        ws = self._ws(sheet)
        for (r0, c0, r1, c1), state in areas:
            fill = fill_from_state(state)
            for row in range(r0, r1 + 1):
                for col in range(c0, c1 + 1):
                    ws.cell(row, col).fill = fill

    def note(self, sheet: str, cell: str) -> NoteState | None:
        comment = self._ws(sheet)[cell].comment
        return None if comment is None else NoteState(text=comment.text, author=comment.author)

    def set_note(self, sheet: str, cell: str, note: NoteState | None) -> None:
        self._ws(sheet)[cell].comment = _comment(note.text, note.author or "") if note else None

    def value(self, sheet: str, cell: str) -> tuple[Scalar, bool]:
        target = self._ws(sheet)[cell]
        return _scalar(target.value), target.data_type == "f"

    def write(self, sheet: str, cell: str, value: Scalar, number_format: str | None) -> None:
        target = self._ws(sheet)[cell]
        assert isinstance(target, Cell)  # the applier refuses covered cells of a merge
        write_value(target, value)
        if number_format:
            target.number_format = number_format

    def restore(self, sheet: str, cell: str, entry: ValueEntry) -> None:
        target = self._ws(sheet)[cell]
        assert isinstance(target, Cell)
        if entry.formula:
            target.value = entry.original
        elif entry.original is None:
            target.value = None
        else:
            write_value(target, entry.original, wrap=False)

    def record_rows(self) -> list[str]:
        if RECORD_SHEET not in self.wb.sheetnames:
            return []
        rows = self._ws(RECORD_SHEET).iter_rows(values_only=True)
        return ["".join(str(v) for v in row if v is not None) for row in rows]

    def write_record_rows(self, rows: list[str]) -> None:
        """Replace the very hidden record sheet (removed when there are no rows)."""
        index = None
        if RECORD_SHEET in self.wb.sheetnames:
            index = self.wb.sheetnames.index(RECORD_SHEET)
            _remove_sheet(self.wb, self._ws(RECORD_SHEET))
        if not rows:
            return
        ws = self.wb.create_sheet(RECORD_SHEET, index)
        ws.sheet_state = "veryHidden"
        for row, text in enumerate(rows, start=1):
            for col, chunk in enumerate(split_chunks(text), start=1):
                write_value(ws.cell(row, col), chunk, wrap=False)

    def append_log(self, entries: Sequence[LogEntry]) -> None:
        append_log(self.wb, entries)

    def select(self, sheet: str, bounds: Bounds) -> str | None:
        ws = self._ws(sheet)
        if ws.sheet_state != "visible":
            return None
        _activate(self.wb, ws)
        for selection in ws.sheet_view.selection:
            selection.activeCell = cell_ref(*bounds[:2])
            selection.sqref = range_ref(*bounds)
        return f"{sheet}!{range_ref(*bounds)}"


def _scalar(value: object) -> Scalar:
    """A cell value as the record stores it (dates and times as ISO text)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


def _activate(wb: Workbook, ws: Worksheet) -> None:
    """Make `ws` the one active and selected tab (several selected tabs would group sheets)."""
    wb.active = ws
    for other in wb.worksheets:
        other.sheet_view.tabSelected = other is ws


def _remove_sheet(wb: Workbook, ws: Worksheet) -> None:
    """Remove a sheet, keeping a visible sheet active."""
    active = wb.active
    wb.remove(ws)
    if active is not ws and active in wb.worksheets:
        wb.active = active
        return
    visible = [s for s in wb.worksheets if s.sheet_state == "visible"]
    if visible:
        _activate(wb, visible[0])


# ---- the log sheet ---------------------------------------------------------------------------
def _is_log(ws: Worksheet) -> bool:
    header = [c.value for c in ws[1]] if ws.max_row >= 1 else []
    return header[: len(LogEntry.columns())] == LogEntry.columns()


def log_sheets(wb: Workbook) -> list[Worksheet]:
    return [ws for ws in wb.worksheets if ws.title.startswith(LOG_SHEET) and _is_log(ws)]


def append_log(wb: Workbook, entries: Sequence[LogEntry]) -> None:
    """Append one row per entry to the visible log sheet, creating it (with a header) once.

    A user sheet that happens to be called `celltrace` is left alone; the log goes to
    `celltrace 2` (or the next free name) instead.
    """
    if not entries:
        return
    existing = log_sheets(wb)
    if existing:
        ws = existing[0]
    else:
        title, n = LOG_SHEET, 1
        while title in wb.sheetnames:
            n += 1
            title = f"{LOG_SHEET} {n}"
        ws = wb.create_sheet(title)
        for col, name in enumerate(LogEntry.columns(), start=1):
            ws.cell(1, col, name).font = Font(bold=True)
        ws.freeze_panes = "A2"
        ws.page_setup.orientation = "landscape"  # printed: one page wide
        ws.page_setup.fitToWidth, ws.page_setup.fitToHeight = 1, 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
        for letter, width in zip("ABCDEFGHI", (26, 14, 12, 50, 40, 11, 30, 9, 9), strict=True):
            ws.column_dimensions[letter].width = width
    for entry in entries:
        row = ws.max_row + 1
        for col, name in enumerate(LogEntry.columns(), start=1):
            write_value(ws.cell(row, col), getattr(entry, name))
        _present(ws, row, entry)


_LINK_FONT = Font(color="FF0563C1", underline="single")
_LEGEND = (
    "Fill: the colour this question's evidence is highlighted in (answer cells; headers lighter; grey: a"
    " low-confidence best guess). No fill: its highlights were cleared or never made."
)


def _present(ws: Worksheet, row: int, entry: LogEntry) -> None:
    """Evidence as a hyperlink to its first answer cell; the question cell in the evidence colour."""
    columns = LogEntry.columns()
    if entry.link:
        cell = ws.cell(row, columns.index("evidence") + 1)
        cell.hyperlink = Hyperlink(ref=cell.coordinate, location=entry.link, tooltip=f"Go to {entry.link}")
        cell.font = _LINK_FONT
    if entry.colour:
        ws.cell(row, columns.index("question") + 1).fill = _solid(entry.colour)
        header = ws.cell(1, columns.index("question") + 1)
        if header.comment is None:
            header.comment = _comment(_LEGEND, NOTE_AUTHOR)


def fade_legend(wb: Workbook) -> None:
    """Unfill the question cells of the rows already logged: a `Clear` removed the highlights their
    colours stand for, so only the rows written after it keep a legend."""
    column = LogEntry.columns().index("question") + 1
    for ws in log_sheets(wb):
        for row in range(2, ws.max_row + 1):
            ws.cell(row, column).fill = PatternFill(fill_type=None)


def drop_log(wb: Workbook) -> int:
    """Remove the log sheet(s); returns how many."""
    sheets = log_sheets(wb)
    for ws in sheets:
        _remove_sheet(wb, ws)
    return len(sheets)


# ---- one call ----------------------------------------------------------------------------------
def write_workbook(
    plan: OutputPlan,
    actions: Iterable[Action] = (),
    *,
    log: Sequence[LogEntry] = (),
    remove_log: bool = False,
    only_if_marked: bool = False,
) -> WriteReport:
    """Load `plan.source`, apply `actions`, append `log` rows, save atomically to `plan.output`.

    `only_if_marked` (for `clear`): write nothing when the workbook has no restore record and no
    log sheet to remove.
    """
    wb, notes = load_for_write(plan.source)
    if only_if_marked and not len(read_record(OpenpyxlBook(wb))) and not (remove_log and log_sheets(wb)):
        return WriteReport(output=plan.output, warnings=notes, written=False)
    actions = list(actions)
    if any(isinstance(a, Clear) for a in actions):
        fade_legend(wb)  # before this run's rows are appended
    report = apply_actions(OpenpyxlBook(wb), actions, log=log)
    report.logs_dropped = drop_log(wb) if remove_log else 0
    save_atomic(wb, plan.output)
    report.output, report.warnings = plan.output, [*notes, *report.warnings]
    return report
