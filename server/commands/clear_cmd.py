"""`celltrace clear`: remove celltrace's highlights and notes, restoring what was there before."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from celltrace.server.commands.output import InPlaceOpt, finish, prepare, warn
from celltrace.server.commands.render import echo, echo_json, print_table

ClearWorkbookArg = Annotated[
    Path, typer.Argument(help="A workbook celltrace wrote (.xlsx/.xlsm).", show_default=False)
]


def clear(
    workbook: ClearWorkbookArg,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write the cleared copy here (default: <name>.cleared.xlsx next to it)."),
    ] = None,
    in_place: InPlaceOpt = False,
    drop_log: Annotated[
        bool, typer.Option("--drop-log", help="Also delete the celltrace log sheet.")
    ] = False,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="Print {output, restored, logs_dropped, written} (JSON)."),
    ] = False,
) -> None:
    """Remove every celltrace fill, note and answer value (restoring the originals) and the hidden
    record. A workbook with nothing of celltrace's is left alone: no file is written (exit 0)."""
    plan = prepare(workbook, out, in_place, tag="cleared")
    from celltrace.shared.actions import Clear

    report = finish(plan, [Clear(values=True)], remove_log=drop_log, only_if_marked=True)
    if report.written and not report.restored:
        warn(f"{workbook.name}: no celltrace highlights or notes to restore")
    data = {
        "output": str(report.output) if report.written else None,
        "restored": report.restored,
        "logs_dropped": report.logs_dropped,
        "written": report.written,
    }
    if json_out:
        echo_json(data)
    elif not report.written:
        echo(f"{workbook.name}: nothing of celltrace's to clear; no file written")
    else:
        print_table(
            "Cleared",
            ["output", "cells restored", "log sheets dropped"],
            [(data["output"], report.restored, report.logs_dropped)],
        )
