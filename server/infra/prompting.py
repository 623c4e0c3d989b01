"""Deterministic prompt rendering: templates with `{{slot}}`s, table blocks, outlines and history.

Everything here is a pure function of its inputs, iterated in list or id order, so a prompt never
depends on set/dict iteration order or PYTHONHASHSEED. Cell text is data: table content is always
wrapped in a BEGIN/END block and every cell is rendered by `render_node` (a quoted Python literal,
so cell text cannot break out of its line).

The data boundary is enforced here, in one place: every line of a `data_block` and every slot value
`render` fills in goes through `safe_text.neutralise`, so no cell, label, title or model reply can
forge a `<<<BEGIN/END ...>>>` delimiter or a chat role. Their results are `PromptText`, which
`render` keeps as is (its own delimiters are real); anything else is encoded.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from celltrace.prompts import load
from celltrace.server.infra.tokens import CHARS_PER_TOKEN, estimate_tokens
from celltrace.shared.a1 import col_letter
from celltrace.shared.graph import CellGraph, Node, render_node
from celltrace.shared.headers import HeaderModel
from celltrace.shared.safe_text import neutralise
from celltrace.shared.schemas import Step, StepAction
from celltrace.shared.table import Table

_SLOT = re.compile(r"\{\{([a-z_]+)\}\}")
CELL_CHARS = 120
"""Cell text longer than this is cut with an ellipsis in prompt listings."""


class PromptText(str):
    """Prompt text whose untrusted parts are already encoded (made by `render` or `data_block`).

    Joining it with plain text with `+` encodes the plain part and keeps the type.
    """

    def __add__(self, other: str) -> PromptText:
        return PromptText(str.__add__(self, other if isinstance(other, PromptText) else neutralise(other)))

    def __radd__(self, other: str) -> PromptText:
        return PromptText(neutralise(other) + str(self))


def encoded(value: Any) -> str:
    """A slot value as it may appear in a prompt: `PromptText` as is, anything else neutralised."""
    return value if isinstance(value, PromptText) else neutralise(str(value))


def render(name: str, **slots: Any) -> PromptText:
    """Fill template `name`'s `{{slot}}`s in one pass (values are never re-scanned for slots);
    values that are not `PromptText` are encoded by `safe_text.neutralise`.

    Every slot in the template must be given and every given slot must be used.
    """
    template = load(name)
    used = set(_SLOT.findall(template))
    if used != set(slots):
        raise KeyError(f"template {name!r}: slots {sorted(used)} but got {sorted(slots)}")
    return PromptText(_SLOT.sub(lambda m: encoded(slots[m.group(1)]), template).strip() + "\n")


def prompt_hash(messages: Sequence[dict[str, str]]) -> str:
    """Short stable hash of a rendered message list (for logs and run comparison)."""
    payload = json.dumps(list(messages), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def cell(node: Node) -> str:
    """A node as shown in prompt listings (text capped at CELL_CHARS)."""
    return render_node(node, CELL_CHARS)


def shown_nodes(nodes: Sequence[Node], limit: int) -> tuple[list[Node], list[Node]]:
    """The (head, tail) of `nodes` a listing of at most `limit` shows: all of them in the head when
    they fit, else the first ones and the last `limit // 4` (totals and summaries usually close a
    row or a column, so a long list keeps its end)."""
    if len(nodes) <= limit:
        return list(nodes), []
    tail = limit // 4
    return list(nodes[: limit - tail]), list(nodes[len(nodes) - tail :]) if tail else []


def node_list(nodes: Sequence[Node], limit: int) -> str:
    """`[D7 '55', ...]`, at most `limit` nodes (`shown_nodes`), the left-out ones counted in between."""
    head, tail = shown_nodes(nodes, limit)
    more = len(nodes) - len(head) - len(tail)
    parts = [cell(n) for n in head] + ([f"... {more} more ..."] if more else []) + [cell(n) for n in tail]
    return f"[{', '.join(parts)}]"


def data_block(label: str, lines: Sequence[str]) -> PromptText:
    """Wrap data lines in explicit delimiters; the text inside is never instructions and cannot
    forge a delimiter or a role (every line is neutralised)."""
    body = "\n".join(neutralise(line) for line in lines) if lines else "(none)"
    return PromptText(f"<<<BEGIN {label}>>>\n{body}\n<<<END {label}>>>")


def fit_lines(lines: Sequence[str], budget_tokens: int, what: str) -> list[str]:
    """The longest prefix of `lines` within `budget_tokens`, plus a count line when cut."""
    out: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        cost = estimate_tokens(line) + 1
        if used + cost > budget_tokens:
            out.append(f"... {len(lines) - i} more {what} not shown")
            break
        out.append(line)
        used += cost
    return out


NOTE_LINES = 12
"""Notes under a table shown in a prompt (footnotes, a flag legend, the source), each cut at
`CELL_CHARS`."""


def clip(text: str, max_chars: int = CELL_CHARS) -> str:
    """`text` cut to `max_chars`, marked with an ellipsis when cut."""
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def note_lines(notes: Sequence[str]) -> list[str]:
    """The notes a prompt shows: whitespace collapsed, blank ones dropped, the first `NOTE_LINES`,
    then a count of the rest."""
    shown = [" ".join(n.split()) for n in notes if n.strip()]
    more = [f"... {len(shown) - NOTE_LINES} more notes not shown"] if len(shown) > NOTE_LINES else []
    return shown[:NOTE_LINES] + more


def context_lines(table: Table) -> list[str]:
    """What the sheet says around the table: its caption (`title`, often the unit: `(in millions)`)
    and the notes under it (what a flag such as `E` or `..` means, what a footnote mark qualifies)."""
    lines = [f"title: {table.title!r}"] if table.title else []
    return lines + [f"note: {clip(note)!r}" for note in note_lines(table.notes)]


def table_lines(graph: CellGraph) -> list[str]:
    """The whole table: its caption and notes (`context_lines`), then its nodes as tuples, one per
    line, in id (row-major) order; empty cells omitted."""
    return [*context_lines(graph.table), *(cell(n) for n in graph.nodes if not n.empty)]


def outline_lines(graph: CellGraph, headers: HeaderModel, budget_tokens: int, row_limit: int) -> list[str]:
    """Outline of a table too large for the prompt: size, inferred headers and sample rows."""
    table = graph.table
    non_empty = sum(1 for n in graph.nodes if not n.empty)
    lines = [
        *(context_lines(table) or ["title: (none)"]),
        f"size: {graph.n_rows} rows x {graph.n_cols} columns, {non_empty} non-empty cells "
        "(too large to show in full: reach other cells with the actions)",
    ]
    n_head_rows = min(headers.header_rows, 5)
    lines.append(
        f"inferred headers: the first {headers.header_rows} row(s) and {headers.header_cols} column(s)"
    )
    top, left = table.origin.top_left if table.origin else (1, 1)
    data_rows = range(n_head_rows, min(n_head_rows + 3, graph.n_rows))
    for r in [*range(n_head_rows), *data_rows]:
        row = [n for n in graph.row_nodes(r) if not n.empty and n.r0 == r]
        lines.append(f"row {top + r}: {node_list(row, row_limit)}")
    for c in range(min(headers.header_cols, 3)):
        col = [n for n in graph.col_nodes(c) if not n.empty and n.c0 == c and n.r0 >= n_head_rows]
        lines.append(f"column {col_letter(left + c)} (row headers): {node_list(col, row_limit)}")
    return fit_lines(lines, budget_tokens, "outline lines")


def format_arg(arg: Any) -> str:
    """An action argument as the model would write it: tuples for lists, quoted strings."""
    if isinstance(arg, list | tuple):
        return "(" + ", ".join(format_arg(a) for a in arg) + ")"
    return repr(arg) if isinstance(arg, str) else json.dumps(arg, default=str)


def format_action(action: StepAction) -> str:
    return f"{action.name}({', '.join(format_arg(a) for a in action.args)})"


def step_lines(number: int, step: Step, full: bool) -> list[str]:
    """Figure 14 style: the one-line action list, then (when `full`) thought, actions, observations."""
    lines = [f"Step {number}: {json.dumps([format_action(a) for a in step.actions], ensure_ascii=False)}"]
    if full:
        lines.append(f"Thought step {number}: {step.thought}")
        lines.append(f"Action step {number}:")
        lines += [f"{i}. {format_action(a)}" for i, a in enumerate(step.actions, 1)]
        lines.append(f"Observation step {number}:")
        lines += [f"{i}. {o}" for i, o in enumerate(step.observations, 1)] or ["(none)"]
    return lines


def history_lines(steps: Sequence[Step], budget_tokens: int, full: int | None = None) -> list[str]:
    """The compacted history within budget: step `full` (default: the newest) in full when it fits,
    the others as their one-line action lists (findings live in the reasoning trace), oldest dropped
    first."""
    full = len(steps) - 1 if full is None else full
    blocks: list[list[str]] = []
    used = 0
    for i in range(len(steps) - 1, -1, -1):
        newest = i == full
        for lines in ([step_lines(i + 1, steps[i], True)] if newest else []) + [
            step_lines(i + 1, steps[i], False)
        ]:
            cost = sum(estimate_tokens(line) + 1 for line in lines)
            if used + cost <= budget_tokens:
                blocks.append(lines)
                used += cost
                break
        else:
            blocks.append([f"... {i + 1} earlier steps not shown"])
            break
    return [line for lines in reversed(blocks) for line in lines]


def truncate(text: str, budget_tokens: int) -> str:
    """`text` cut to about `budget_tokens` (marked with an ellipsis when cut)."""
    if estimate_tokens(text) <= budget_tokens:
        return text
    return text[: max(budget_tokens * CHARS_PER_TOKEN - 1, 0)] + "…"
