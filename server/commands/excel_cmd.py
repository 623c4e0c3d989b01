"""`celltrace excel install|ask|sideload`: the xlwings add-in from a terminal (Windows and macOS only),
and the manifest of the Office.js task pane with sideloading steps (any system)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from celltrace.shared.errors import UserError
from celltrace.shared.schemas import Engine

app = typer.Typer(
    name="excel",
    help="Use celltrace in Microsoft Excel: the xlwings add-in (install, ask), the task pane (sideload).",
    no_args_is_help=True,
)


def _active_book() -> Any:
    """The workbook active in Excel; a one-line error where there is no Excel."""
    from celltrace.addin.install import NO_EXCEL, require_excel_platform

    require_excel_platform()
    try:
        import xlwings as xw

        return xw.books.active
    except Exception as exc:
        raise UserError(NO_EXCEL.format(platform=f"this machine ({type(exc).__name__}: {exc})")) from None


@app.command("install")
def install(
    directory: Annotated[
        Path | None,
        typer.Option("--dir", help="Where to build celltrace.xlam (default: the settings folder)."),
    ] = None,
) -> None:
    """Build the celltrace add-in (ribbon tab "celltrace") and install it for Excel."""
    from celltrace.addin.install import install as run_install

    for line in run_install(directory):
        typer.echo(line)
    typer.echo("Restart Excel; see addin/README.md for the one-time trust settings.")


@app.command("ask")
def ask(
    question: Annotated[str, typer.Argument(help="The question about the table.", show_default=False)],
    range_: Annotated[
        str | None,
        typer.Option(
            "--range", help="A1 range, Sheet!A1:H20, defined name or table (default: the selection)."
        ),
    ] = None,
    answer_cell: Annotated[
        str | None, typer.Option("--answer-cell", help="Also write the answer into this cell (Sheet!K2).")
    ] = None,
    long: Annotated[bool, typer.Option("--long", help="A paragraph answer (/v1/longform).")] = False,
    engine: Annotated[Engine | None, typer.Option("--engine", help="auto, llm or offline.")] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Dump what the reader saw to DIR (regression fixture).")
    ] = None,
) -> None:
    """Ask about the active Excel workbook, exactly as the ribbon's Ask button does."""
    from celltrace.addin import macros
    from celltrace.addin.client import ClientSettings

    book = _active_book()
    settings = ClientSettings(engine=engine) if engine else ClientSettings()
    run = macros.ask_long if long else macros.ask
    outcome = run(
        book,
        ui=macros.TerminalUI(),
        question=question,
        target=range_,
        answer_cell=answer_cell,
        settings=settings,
        record_to=str(record) if record else None,
    )
    if outcome is None:
        raise typer.Exit(1)


SIDELOAD_STEPS = """\
Sideload the celltrace task pane ({manifest}); keep `celltrace serve --https` running.
  Excel on the web: Home > Add-ins > More Add-ins > My Add-ins > Upload My Add-in > choose the file.
  Windows: put the file in a shared folder (e.g. \\\\%COMPUTERNAME%\\addins), add that folder under
    File > Options > Trust Center > Trust Center Settings > Trusted Add-in Catalogs ("Show in Menu"),
    restart Excel, then Home > Add-ins > More Add-ins > Shared Folder > celltrace.
  macOS: copy the file to ~/Library/Containers/com.microsoft.Excel/Data/Documents/wef/
    (create the folder if needed), restart Excel, then Home > Add-ins > My Add-ins > celltrace.
The pane opens from Home > Ask celltrace; =CELLTRACE.ASK(question, range) works once it has loaded."""


@app.command("sideload")
def sideload(
    url: Annotated[
        str, typer.Option("--url", help="The origin celltrace serve runs on (the manifest points there).")
    ] = "https://localhost:8765",
    out: Annotated[Path, typer.Option("--out", help="Where to write the manifest.")] = Path(
        "celltrace-manifest.xml"
    ),
) -> None:
    """Write the task pane's manifest for URL and print how to sideload it (Windows, macOS, web)."""
    from urllib.parse import urlsplit

    from celltrace.server.api.addin import manifest_xml

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/"):
        raise UserError(f"--url {url!r}: give an origin such as https://localhost:8765")
    out.write_text(manifest_xml(f"{parts.scheme}://{parts.netloc}"), encoding="utf-8")
    typer.echo(SIDELOAD_STEPS.format(manifest=out))
    if parts.scheme != "https":
        typer.echo(
            "warning: Office loads add-ins only over HTTPS; start `celltrace serve --https`.", err=True
        )
