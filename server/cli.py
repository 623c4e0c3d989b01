"""The `celltrace` command line. Each sub-command lives in its own module under `commands/`."""

from __future__ import annotations

import importlib
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


COMMANDS: dict[str, tuple[str, str]] = {
    "graph": ("graph_cmd", "graph"),
    "ask": ("ask_cmd", "ask"),
    "eval": ("eval_cmd", "eval_"),
    "batch": ("batch_cmd", "batch"),
    "clear": ("clear_cmd", "clear"),
    "serve": ("serve_cmd", "serve"),
    "doctor": ("doctor_cmd", "doctor"),
    "longform": ("longform_cmd", "longform"),
    "excel": ("excel_cmd", "app"),
}
"""Sub-command → (module under `celltrace.server.commands`, its function or, for `excel`, Typer app),
in help order."""
_registered: set[str] = set()


def register_commands(only: str | None = None) -> None:
    """Add the sub-commands to `app`; with `only` naming one, just that one, so a single command
    imports only its own module (`celltrace ask --help` does not load the server or the LLM client).
    `main` calls it; in-process callers (`typer.testing.CliRunner().invoke(app, ...)`) call it first."""
    names = [only] if only in COMMANDS else list(COMMANDS)
    for name in names:
        if name in _registered:
            continue
        module_name, attr = COMMANDS[name]
        target = getattr(importlib.import_module(f"celltrace.server.commands.{module_name}"), attr)
        if isinstance(target, typer.Typer):
            app.add_typer(target, name=name)
        else:
            app.command(name)(target)
        _registered.add(name)


def main() -> None:
    """Console-script entry point: user errors become one line on stderr and exit code 2."""
    if sys.argv[1:] == ["--version"]:  # at once: without importing the commands (openpyxl, …)
        try:
            _print_version(True)
        except typer.Exit:
            return
    register_commands(next((arg for arg in sys.argv[1:2] if arg in COMMANDS), None))
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
