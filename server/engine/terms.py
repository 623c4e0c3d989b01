"""Answers in the user's terms: the number (`AskResult.value`) and unit (`AskResult.unit`) of an answer.

Engine-neutral: applied to every engine's final answer.

* **value**: the engine's computed number when it has one (Excel terms: `3.8%` → 0.038…); else, for
  one answer read from one data cell, the cell's raw number (a workbook's stored value) or the number
  its text shows (`24.5%` → 0.245, `(7.8)` → -7.8); else the number the answer text shows. None for
  labels (header cells), text and several answers.
* **unit**: `%` for a percent; else a scale or currency caption of the source cells (`(in millions)`,
  `($ thousands)`, `USD millions`) in the table title or their header labels, with the currency of
  the number style when the caption names none (`$ millions`); else the style's currency (`$`, `€`).
  A computed value that is not the same kind of quantity as its inputs (a ratio, a share, a count)
  takes only its own style's unit (`%` for a share).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from celltrace.server.engine.policy import FinalAnswer
from celltrace.shared.graph import CellGraph, Node
from celltrace.shared.headers import HeaderModel
from celltrace.shared.numstyle import NumStyle, excel_value
from celltrace.shared.table import Table

SCALE_CAPTION = re.compile(
    r"\(\s*(?:in\s+)?((?:[$€£¥]|[A-Z]{3}\b)?\s*(?:in\s+)?"
    r"(?:thousands|millions|billions|trillions|000s|000's)(?:\s+of\s+[a-z. ]+?)?"
    r"(?:,?\s*(?:except|unless)[^)]*)?)\s*\)",
    re.IGNORECASE,
)
"""A parenthesised scale caption: `(in millions)`, `($ thousands)`, `(millions of dollars)`,
`(USD millions, except per share data)` (the exception clause is dropped from the unit)."""
_THOUSANDS = re.compile(r"\b000'?s\b")
_EXCEPT = re.compile(r",?\s*(?:except|unless)\b.*$", re.IGNORECASE)
_CURRENCY_WORDS = re.compile(r"[$€£¥]|\b[A-Z]{3}\b|dollar|euro|pound|yen", re.IGNORECASE)


def value_and_unit(
    final: FinalAnswer, table: Table, graph: CellGraph, headers: HeaderModel
) -> tuple[float | None, str | None]:
    """The answer's number and unit (see the module docstring); (None, None) without an answer."""
    if len(final.answer) != 1:
        return None, None
    text = final.answer[0].strip()
    nodes = [graph.node(i) for i in final.answer_nodes]
    sources = [n for n in nodes if headers.is_data(n)]
    style = NumStyle.of(text)
    if final.value is not None:
        value: float | None = final.value
    elif nodes and not sources:  # a label answer (which/who): no quantity
        return None, None
    else:
        own_cell = len(sources) == 1 and sources[0].text.strip() == text
        value = _cell_value(table, sources[0]) if own_cell else None
        value = excel_value(text) if value is None else value
    if value is None:
        return None, None
    if final.value is not None and not final.same_unit:
        return value, style_unit(style)
    return value, unit_of(table, headers, sources, style)


def unit_of(
    table: Table, headers: HeaderModel, sources: Iterable[Node], style: NumStyle | None
) -> str | None:
    """A scale/currency caption of the sources (title or header labels), else the style's unit."""
    texts = [table.title or ""]
    for node in sources:
        texts += [n.text for n in headers.col_path(node) + headers.row_path(node)]
    caption = next((m.group(1) for t in texts for m in [SCALE_CAPTION.search(t)] if m), None)
    own = style_unit(style)
    if caption is None or own == "%":  # a percent is not in millions
        return own
    caption = _THOUSANDS.sub("thousands", " ".join(_EXCEPT.sub("", caption).split()))
    if own and own != "%" and not _CURRENCY_WORDS.search(caption):
        return f"{own} {caption}"
    return caption


def style_unit(style: NumStyle | None) -> str | None:
    """`%` for a percent style, the currency symbol or code for a currency style, else None."""
    if style is None:
        return None
    return "%" if style.percent else style.currency


def _cell_value(table: Table, node: Node) -> float | None:
    """A data cell's stored number (bools and text excluded)."""
    raw = table.values[node.r0][node.c0] if table.values else None
    return float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None
