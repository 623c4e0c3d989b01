"""Answers in the user's terms: the number (`AskResult.value`) and unit (`AskResult.unit`) of an answer.

Engine-neutral: applied to every engine's final answer.

* **value**: the engine's computed number when it has one (Excel terms: `3.8%` → 0.038…); else, for
  one answer read from one data cell, the cell's raw number (a workbook's stored value) or the number
  its text shows (`24.5%` → 0.245, `(7.8)` → -7.8); else the number the answer text shows. None for
  labels (header cells), text and several answers.
* **unit**: `%` for a percent style (the value is then a fraction); else the unit the header model
  gives the source cells (`HeaderModel.unit_for`: unit labels, unit rows, a caption such as
  `(in millions)`; `percent` there means the value is a number of percent as shown), with the
  currency of the number style when that unit names none (`$ millions`); else the style's currency
  (`$`, `€`). A computed value that is not the same kind of quantity as its inputs (a ratio, a share,
  a count) takes only its own style's unit (`%` for a share).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from celltrace.server.engine.policy import FinalAnswer
from celltrace.shared.a1 import sheet_address
from celltrace.shared.flags import flagged, legend
from celltrace.shared.graph import CellGraph, Node
from celltrace.shared.headers import HeaderModel
from celltrace.shared.numbers import parse_number_info
from celltrace.shared.numstyle import NumStyle, excel_value
from celltrace.shared.table import Table
from celltrace.shared.units import CURRENCIES

_BARE = re.compile(r"-?\d+(?:\.\d+)?")


def in_user_terms(
    final: FinalAnswer, table: Table, graph: CellGraph, headers: HeaderModel
) -> tuple[list[str], float | None, str | None]:
    """The answer text, number and unit (see the module docstring); a bare number that is its one
    source cell's number is written as that cell shows it (`31000` → `$31,000`, `83.6` → `83.6%`)."""
    nodes = [graph.node(i) for i in final.answer_nodes]
    sources = [n for n in nodes if headers.is_data(n)]
    if len(final.answer) != 1:
        return final.answer, None, _common_unit(final, headers, sources)
    text = final.answer[0].strip()
    if final.value is None and len(sources) == 1 and _same_number(text, sources[0].text):
        text = sources[0].text.strip()
    mark = flagged(text, legend(table.notes)) if len(sources) == 1 else None
    if mark is not None and text == sources[0].text.strip():
        text = mark.figure  # `16.5E` → `16.5`; the flag's meaning is a warning (`flag_warnings`)
    value, unit = _value_and_unit(final, table, text, nodes, sources, headers)
    return [text], value, unit


def flag_warnings(final: FinalAnswer, table: Table, graph: CellGraph) -> list[str]:
    """What the notes say about the quality flag of each answer cell (`'Table 3'!D7 is flagged E:
    use with caution`) or a flag shown instead of a figure (`'Table 3'!E8 shows F: too unreliable to
    be published`); and a cell the question names better than the answer's that shows no figure
    (`Data!D14, the cell the question names best, shows ':'; the answer is another cell's`)."""
    flags = legend(table.notes)
    out = []
    if final.shadowed is not None:
        node = graph.node(final.shadowed)
        shown = node.text.strip()
        meaning = f" ({flags[shown]})" if shown in flags else ""
        out.append(f"{sheet_address(table.sheet, table.address(node.r0, node.c0))}, the cell the question "
                   f"names best, shows {shown!r}{meaning}: no figure; the answer is another cell's")
    for node in (graph.node(i) for i in final.answer_nodes) if flags else ():
        where = sheet_address(table.sheet, table.address(node.r0, node.c0))
        mark = flagged(node.text, flags)
        if mark is not None:
            out.append(f"{where} is flagged {mark.flag}: {mark.meaning}")
        elif node.text.strip() in flags:
            out.append(f"{where} shows {node.text.strip()}: {flags[node.text.strip()]}")
    return out


def _common_unit(final: FinalAnswer, headers: HeaderModel, sources: list[Node]) -> str | None:
    """Several values read from cells (`revenue in 2018 and 2019`): the unit they share, if any."""
    if final.value is not None or [a.strip() for a in final.answer] != [n.text.strip() for n in sources]:
        return None
    units = {unit_of(headers, [n], NumStyle.of(n.text)) for n in sources}
    return units.pop() if len(units) == 1 else None


def _same_number(answer: str, cell: str) -> bool:
    """`answer` is a bare number (no currency, grouping, `%`) equal to the number `cell` shows."""
    if not _BARE.fullmatch(answer.strip()):
        return False
    c = parse_number_info(cell)
    return c is not None and float(answer) == c.value and answer.strip() != cell.strip()


def _value_and_unit(
    final: FinalAnswer, table: Table, text: str, nodes: list[Node], sources: list[Node], headers: HeaderModel
) -> tuple[float | None, str | None]:
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
    unit = unit_of(headers, sources, style)
    if final.value is not None and final.difference and unit in ("%", "percent"):
        return value, "percentage points"  # 42.6% − 40.1%: 2.5 points, not 2.5 % of something
    return value, unit


def unit_of(headers: HeaderModel, sources: Iterable[Node], style: NumStyle | None) -> str | None:
    """The sources' common header unit (with the style's currency), else the style's own unit."""
    own = style_unit(style)
    if own == "%":  # a percent is not in millions
        return own
    sources = list(sources)
    if sources and all(_a_date(headers, n) for n in sources):  # `Maturity` 2046 is no amount
        return None
    units = {headers.unit_for(n) for n in sources}
    unit = units.pop() if len(units) == 1 else None
    if unit is None:
        return own
    if own and not unit.startswith(tuple(CURRENCIES.values())):
        return f"{own} {unit}"
    return unit


_WHEN = re.compile(r"\b(?:years?|maturity|matures?|due|dates?|expir\w*|vintage|founded|built|established)\b")


def _a_date(headers: HeaderModel, node: Node) -> bool:
    """The cell shows a year under a label saying when (`Maturity`, `Year built`)."""
    return re.fullmatch(r"(?:19|20)\d\d", node.text.strip()) is not None and any(
        _WHEN.search(n.text.lower()) for n in headers.col_path(node) + headers.row_path(node))


def style_unit(style: NumStyle | None) -> str | None:
    """`%` for a percent style, the currency symbol or code for a currency style, else None."""
    if style is None:
        return None
    return "%" if style.percent else style.currency


def _cell_value(table: Table, node: Node) -> float | None:
    """A data cell's stored number (bools and text excluded)."""
    raw = table.values[node.r0][node.c0] if table.values else None
    return float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None
