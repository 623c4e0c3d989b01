"""Data lines (a data row or column with its header path) and the facts about them every step uses."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from celltrace.shared.graph import CellGraph, Node, normalise_text

AGGREGATE_LABEL_WORDS = frozenset(
    {"total", "totals", "all", "overall", "average", "mean", "sum", "subtotal", "subtotals"})
"""Labels of aggregate lines, skipped when ranking the members of a group (argmax, pair)."""


@dataclass
class Line:
    """A data row or data column with its header path (outermost first).

    `notes` are the row's text data cells (names, not figures): matched like labels, never evidence.
    """

    axis: str  # "row" | "col"
    index: int
    path: list[Node]
    notes: list[Node] = field(default_factory=list)

    @property
    def label(self) -> Node | None:
        return self.path[-1] if self.path else None


def value_cell(graph: CellGraph, row: Line, col: Line) -> Node:
    return graph.node_at(row.index, col.index)


def has_value(node: Node) -> bool:
    """The cell shows a figure or a name, not a suppression or nil mark (`..`, `-`, `…`)."""
    return bool(re.search(r"\w", node.text))


def is_nil(node: Node) -> bool:
    """The cell shows a dash alone (`—`, `-`): nil, a line with nothing in that period."""
    return node.text.strip() in NIL_MARKS


NIL_MARKS = frozenset(("-", "--", "–", "—", "‒", "―"))


def is_aggregate(line: Line) -> bool:
    lab = line.label
    return lab is not None and bool(set(normalise_text(lab.text).split()) & AGGREGATE_LABEL_WORDS)


def under_aggregate(line: Line) -> bool:
    """Some label of the path is an aggregate (`total > percent`): the default when unqualified."""
    return any(set(normalise_text(n.text).split()) & AGGREGATE_LABEL_WORDS for n in line.path)


def is_aggregate_label(node: Node) -> bool:
    return bool(set(normalise_text(node.text).split()) & AGGREGATE_LABEL_WORDS)

