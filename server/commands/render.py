"""Terminal presentation shared by the commands: rich tables, a spinner on stderr, sheet addresses.

Everything here writes for people. `--json` output never goes through it (it stays plain JSON on
stdout); the spinner is on stderr and only animates on a terminal.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from celltrace.shared.a1 import sheet_address
from celltrace.shared.table import Table

if TYPE_CHECKING:
    from celltrace.shared.schemas import Step, StepAction

_RENDERED_NODE = re.compile(
    r"\((\d+)(?:-(\d+))?, (\d+)(?:-(\d+))?, ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)"
)
"""A node as the engine renders it in observations: `(4-7, 0, 'Operating revenues')`."""

_out = Console(soft_wrap=True, highlight=False)
_err = Console(stderr=True, highlight=False)


def echo_json(data: Any) -> None:
    """`data` as indented JSON on stdout (plain print: no markup, no wrapping)."""
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def echo(text: str | Text = "") -> None:
    """A line for people on stdout (cell text is never read as markup)."""
    _out.print(text if isinstance(text, Text) else Text(text))


@contextmanager
def spinner(message: str) -> Iterator[None]:
    """A spinner on stderr while the block runs (nothing when stderr is not a terminal)."""
    with _err.status(message, spinner="dots"):
        yield


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A human table on stdout; cells are shown as plain text."""
    grid = RichTable(title=title, title_justify="left", show_lines=False)
    for name in columns:
        grid.add_column(name, overflow="fold")
    for row in rows:
        grid.add_row(*(Text("" if v is None else str(v)) for v in row))
    _out.print(grid)


def node_label(table: Table, r: int, c: int, text: str) -> str:
    """A node argument `[r, c, text]` (0-based in the table) as `'Sheet'!B5 "text"`; a merged area's
    anchor gives the whole area."""
    area = next((m for m in table.merges if m[:2] == (r, c)), (r, c, r, c))
    return f'{sheet_address(table.sheet, table.address(*area))} "{text}"'


def _arg(table: Table, arg: Any) -> str:
    if (
        isinstance(arg, list | tuple)
        and len(arg) == 3
        and all(isinstance(x, int) and not isinstance(x, bool) for x in arg[:2])
        and 0 <= arg[0] < table.n_rows
        and 0 <= arg[1] < table.n_cols
    ):
        return node_label(table, arg[0], arg[1], str(arg[2]))
    if isinstance(arg, list | tuple):
        return "[" + ", ".join(_arg(table, a) for a in arg) + "]"
    return json.dumps(arg, ensure_ascii=False, default=str)


def action_line(table: Table, action: StepAction) -> str:
    """`VisitNode 'Income Statement'!A5 "Operating revenues"` (cells as sheet addresses)."""
    args = ", ".join(_arg(table, a) for a in action.args)
    return f"{action.name} {args}".rstrip()


def observation_line(table: Table, text: str) -> str:
    """An observation with every rendered node replaced by its sheet address and text."""

    def replace(m: re.Match[str]) -> str:
        r0, c0 = int(m[1]), int(m[3])
        r1, c1 = int(m[2] or r0), int(m[4] or c0)
        if not (r1 < table.n_rows and c1 < table.n_cols):
            return m[0]
        return f'{sheet_address(table.sheet, table.address(r0, c0, r1, c1))} "{ast.literal_eval(m[5])}"'

    return _RENDERED_NODE.sub(replace, text)


def step_lines(table: Table, steps: Sequence[Step]) -> list[str]:
    """One line per action (numbered by step), each observation indented under it."""
    lines: list[str] = []
    for i, step in enumerate(steps, 1):
        actions = [action_line(table, a) for a in step.actions] or ["(no action)"]
        lines += [f"  {i}. {actions[0]}", *(f"     {line}" for line in actions[1:])]
        lines += [f"     → {observation_line(table, o)}" for o in step.observations]
    return lines
