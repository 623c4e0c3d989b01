"""`celltrace clear`: remove celltrace's highlights and notes, restoring what was there before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from celltrace.server.commands.output import InPlaceOpt, finish, prepare, warn
from celltrace.shared.actions import Clear

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
) -> None:
    """Remove every celltrace fill and note (restoring the originals) and the hidden record."""
    plan = prepare(workbook, out, in_place, tag="cleared")
    report = finish(plan, [Clear()], remove_log=drop_log)
    if not report.restored:
        warn(f"{workbook.name}: no celltrace highlights or notes to restore")
    typer.echo(
        json.dumps(
            {"output": str(report.output), "restored": report.restored, "logs_dropped": report.logs_dropped}
        )
    )
