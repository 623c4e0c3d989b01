"""Table-selection options shared by every command that reads a workbook.

Use them as parameter annotations and pass the values on to `load_table`::

    def ask(workbook: WorkbookArg, sheet: SheetOpt = None, range_: RangeOpt = None,
            name: NameOpt = None, table: TableOpt = None) -> None:
        tbl = load_table(workbook, sheet, range_, name, table)
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from celltrace.server.commands.render import spinner
from celltrace.shared.errors import UserError
from celltrace.shared.table import Table

_SELECT = "Table selection"

WorkbookArg = Annotated[
    Path, typer.Argument(help="The .xlsx or .xlsm workbook (read only, never modified).", show_default=False)
]
SheetOpt = Annotated[
    str | None,
    typer.Option("--sheet", help="Worksheet name (default: the active sheet).", rich_help_panel=_SELECT),
]
RangeOpt = Annotated[
    str | None,
    typer.Option(
        "--range",
        help="A1 range such as A1:H20 (default: the table detected in the used range).",
        rich_help_panel=_SELECT,
    ),
]
NameOpt = Annotated[
    str | None,
    typer.Option(
        "--name", help="Defined name of the range (workbook or sheet scope).", rich_help_panel=_SELECT
    ),
]
TableOpt = Annotated[
    str | None,
    typer.Option("--table", help="Excel table (ListObject) name.", rich_help_panel=_SELECT),
]


def load_table(
    workbook: Path,
    sheet: str | None = None,
    range_: str | None = None,
    name: str | None = None,
    table: str | None = None,
    question: str | None = None,
) -> Table:
    """Read the selected range; `--range`, `--name` and `--table` are mutually exclusive.

    Without any of them the table block is detected in the sheet's used range (the one `question`
    matches best when the sheet holds several; see `celltrace.shared.detect`).
    """
    from celltrace.shared.detect import locate
    from celltrace.shared.xlsx_read import read_table  # here: a command's --help does not load openpyxl

    given = [flag for flag, v in (("--range", range_), ("--name", name), ("--table", table)) if v is not None]
    if len(given) > 1:
        raise UserError(f"{' and '.join(given)} cannot be combined; give at most one")
    with spinner(f"Reading {workbook.name} …"):
        tbl = read_table(workbook, sheet=sheet, range=range_, name=name, table=table)
        return locate(tbl, question) if not given else tbl


def question_arg(question: str) -> str:
    """The command-line question cleaned for the engine; a broken one is a user error."""
    from celltrace.shared.safe_text import clean_question

    try:
        return clean_question(question)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
