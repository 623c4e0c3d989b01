"""Output logic shared by `ask --out`, `batch`, `clear` (and long-form answers): options,
preflight checks that fail before any engine call, and the write itself."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from celltrace.shared.a1 import AddressError, cell_ref, parse_range
from celltrace.shared.errors import UserError
from celltrace.shared.table import Table

if TYPE_CHECKING:  # imported where used: a command's --help loads neither openpyxl nor pydantic models
    from celltrace.shared.actions import Action, LogEntry
    from celltrace.shared.backend import WriteReport
    from celltrace.shared.schemas import AskResult
    from celltrace.shared.xlsx_write import OutputPlan

_OUTPUT = "Output"
Bounds = tuple[int, int, int, int]

OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Write the highlighted copy here (default: <name>.celltrace.xlsx next to the input).",
        rich_help_panel=_OUTPUT,
    ),
]
InPlaceOpt = Annotated[
    bool,
    typer.Option(
        "--in-place",
        help="Modify the input workbook itself (refused when it holds parts openpyxl would drop).",
        rich_help_panel=_OUTPUT,
    ),
]
OverwriteOpt = Annotated[
    bool,
    typer.Option("--overwrite", help="Allow writing into non-empty answer cells.", rich_help_panel=_OUTPUT),
]
AnswerCellOpt = Annotated[
    str | None,
    typer.Option(
        "--answer-cell",
        help="Also write the answer text into this cell (SHEET!A1, or A1 on the table's sheet).",
        rich_help_panel=_OUTPUT,
    ),
]


def warn(message: str) -> None:
    print(f"celltrace: warning: {message}", file=sys.stderr)


def target(ref: str, default_sheet: str | None, what: str) -> tuple[str, Bounds]:
    """`SHEET!A1:B2` (or an address on `default_sheet`) → (sheet, bounds); UserError if malformed."""
    from celltrace.shared.actions import parse_target

    try:
        sheet, address = parse_target(ref, default_sheet)
        return sheet, parse_range(address)
    except (ValueError, AddressError) as exc:
        raise UserError(f"{what} {ref!r}: {exc}") from None


def read_values(path: Path, sheet: str, bounds: Bounds) -> list[list[Any]]:
    """Cached values of a range (read-only load, rows clipped to the sheet's used rows)."""
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        if sheet not in wb.sheetnames or not hasattr(wb[sheet], "iter_rows"):
            raise UserError(f"no worksheet named {sheet!r} (sheets: {', '.join(wb.sheetnames)})")
        ws = wb[sheet]
        r0, c0, r1, c1 = bounds
        last = ws.max_row or r1
        rows = ws.iter_rows(min_row=r0, max_row=min(r1, last), min_col=c0, max_col=c1, values_only=True)
        return [list(row) for row in rows] if r0 <= last else []
    finally:
        wb.close()


def check_empty(path: Path, sheet: str, bounds: Bounds, what: str) -> None:
    """UserError naming the first non-empty cell of `bounds` (a target that needs --overwrite)."""
    for i, row in enumerate(read_values(path, sheet, bounds)):
        for j, value in enumerate(row):
            if value not in (None, ""):
                ref = f"{sheet}!{cell_ref(bounds[0] + i, bounds[1] + j)}"
                raise UserError(f"{what} {ref} is not empty; use --overwrite to replace it")


def prepare(workbook: Path, out: Path | None, in_place: bool, tag: str = "celltrace") -> OutputPlan:
    """`prepare_output` plus its warnings on stderr."""
    from celltrace.shared.xlsx_write import prepare_output

    plan = prepare_output(workbook, out, in_place=in_place, tag=tag)
    for message in plan.warnings:
        warn(message)
    return plan


def finish(
    plan: OutputPlan, actions: Sequence[Action], log: Sequence[LogEntry] = (), **kw: Any
) -> WriteReport:
    """Write the workbook (actions, then log rows) and print openpyxl's warnings."""
    from celltrace.shared.xlsx_write import write_workbook

    report = write_workbook(plan, actions, log=log, **kw)
    for message in report.warnings:
        warn(message)
    return report


@dataclass
class AskOutput:
    """A validated `ask` output: where to write and which answer cell (if any)."""

    plan: OutputPlan
    answer_cell: str | None
    overwrite: bool


def prepare_ask_output(
    workbook: Path,
    table: Table,
    *,
    out: Path | None = None,
    answer_cell: str | None = None,
    in_place: bool = False,
    overwrite: bool = False,
) -> AskOutput | None:
    """Preflight for `ask`: None when no output was asked for (no --out/--in-place/--answer-cell)."""
    if out is None and not in_place and answer_cell is None:
        return None
    plan = prepare(workbook, out, in_place)
    if answer_cell is not None:
        sheet, bounds = target(answer_cell, table.sheet or None, "--answer-cell")
        answer_cell = f"{sheet}!{cell_ref(*bounds[:2])}"
        if not overwrite:
            check_empty(workbook, sheet, bounds[:2] * 2, "--answer-cell")
    return AskOutput(plan=plan, answer_cell=answer_cell, overwrite=overwrite)


def write_answer(output: AskOutput, table: Table, result: AskResult) -> Path:
    """Highlight the evidence (replacing earlier highlights), note, answer cell and a log row."""
    from celltrace.shared.actions import Colours, actions_for_answer, is_best_guess, log_entry

    actions = actions_for_answer(
        result,
        answer_cell=output.answer_cell,
        default_sheet=table.sheet,
        overwrite=output.overwrite,
        clear_previous=True,
    )
    address = table.origin.address if table.origin else ""
    colours = Colours()
    colour = colours.guess if is_best_guess(result) else colours.answer  # the legend shows what was painted
    entry = log_entry(result, sheet=table.sheet, range_=address, colour=colour)
    written = finish(output.plan, actions, [entry]).output
    assert written is not None  # write_workbook names the file it wrote
    return written
