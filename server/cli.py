"""The `celltrace` command line. Each sub-command lives in its own module under `commands/`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from celltrace.shared.errors import UserError

app = typer.Typer(
    name="celltrace",
    help="Ask questions about complex Excel tables; answers come back with their evidence cells.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from celltrace.server import __version__

        print(f"celltrace {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    """Ask questions about complex Excel tables; answers come back with their evidence cells."""


def _register() -> None:
    from celltrace.server.commands import ask_cmd, batch_cmd, clear_cmd, eval_cmd, graph_cmd

    app.command("graph")(graph_cmd.graph)
    app.command("ask")(ask_cmd.ask)
    app.command("eval")(eval_cmd.eval_)
    app.command("batch")(batch_cmd.batch)
    app.command("clear")(clear_cmd.clear)
    from celltrace.server.commands import doctor_cmd, serve_cmd

    app.command("serve")(serve_cmd.serve)
    app.command("doctor")(doctor_cmd.doctor)
    from celltrace.server.commands import longform_cmd

    app.command("longform")(longform_cmd.longform)
    from celltrace.server.commands import excel_cmd

    app.add_typer(excel_cmd.app, name="excel")


def main() -> None:
    """Console-script entry point: user errors become one line on stderr and exit code 2."""
    _register()
    try:
        code = app(standalone_mode=False)  # click returns a typer.Exit's code instead of exiting
    except UserError as exc:
        print(f"celltrace: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        print("celltrace: aborted", file=sys.stderr)
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.TyperException as exc:  # usage errors from typer's bundled click carry their exit code
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            print(f"celltrace: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    if isinstance(code, int) and code:
        sys.exit(code)
