"""Data lines (a data row or column with its header path) and the facts about them every step uses."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TypeVar, cast
from weakref import WeakKeyDictionary

from celltrace.shared.flags import figure_text, legend
from celltrace.shared.graph import CellGraph, Node, normalise_text, words
from celltrace.shared.headers import indent_of
from celltrace.shared.numbers import is_nil_text, is_year_text, parse_number_info
from celltrace.shared.units import label_unit

AGGREGATE_LABEL_WORDS = frozenset(
    {"total", "totals", "all", "overall", "average", "mean", "sum", "subtotal", "subtotals", "benchmark",
     "consolidated"})
"""Labels of aggregate and reference lines (`National benchmark`, `Consolidated revenue` over the
segments), skipped when ranking the members of a group (argmax, pair)."""


T = TypeVar("T")


@dataclass
class Line:
    """A data row or data column with its header path (outermost first).

    `notes` are the row's text data cells (names, not figures): matched like labels, never evidence.
    """

    axis: str  # "row" | "col"
    index: int
    path: list[Node]
    notes: list[Node] = field(default_factory=list)
    sums: bool = False
    """Its figures are the sum of its sibling lines' (`mark_sums`): a total its label does not say."""
    unit: Node | None = None
    """Its cell in a column of units (`thousands`, `%`): its unit, no label of its path."""
    period: str | None = None
    """The year a roll-forward's movement line covers (`roll_forward`): `Net income` after `Balance
    at December 31, 2022` is 2023's, which no label of its path says."""

    @property
    def label(self) -> Node | None:
        return self.path[-1] if self.path else None

    @property
    def parent_ids(self) -> tuple[int, ...]:
        """The ids of the labels above its own: lines with the same are siblings."""
        return tuple(n.id for n in self.path[:-1])


def labels_recur(members: list[Line], lines: list[Line]) -> bool:
    """A member's label recurs on a line of `lines` outside the members (`League > Apps | Goals`,
    again under `Cup`; `Hospital > number | row %`, again under `Non-hospital`): the members are
    measures shown under each heading, not members of one. Not under a heading of the same name
    (`Receipts > Personal travel > Health-related`, again under `Payments > Personal travel`: one
    group shown for each section)."""
    inside = {ln.index for ln in members}

    def named(ln: Line) -> tuple[str, str]:
        parent = ln.path[-2].text if len(ln.path) > 1 else ""
        return normalise_text(ln.label.text) if ln.label is not None else "", normalise_text(parent)

    elsewhere = {named(ln) for ln in lines if ln.index not in inside and ln.label is not None}
    return any(any(label == own and parent != over for label, parent in elsewhere)
               for own, over in (named(ln) for ln in members if ln.label is not None))


def value_cell(graph: CellGraph, row: Line, col: Line) -> Node:
    return graph.node_at(row.index, col.index)


def on_line(line: Line, n: Node) -> bool:
    """The label sits on the line itself (beside its name), not above it as a section."""
    return n.r0 == n.r1 == line.index if line.axis == "row" else n.c0 == n.c1 == line.index


def side_by_side(line: Line) -> bool:
    """Every label on the line's path sits on the line itself (`Webinar Promo | Email | 02-Apr-24`),
    none above it as a section."""
    return len(line.path) > 1 and all(on_line(line, n) for n in line.path)


def name_label(line: Line) -> Node | None:
    """The line's name: its label, or the one beside it when the label is a code (`All causes |
    A00-Y89`)."""
    label = line.label
    if len(line.path) > 1 and label is not None and is_code(label.text) and on_line(line, line.path[-2]):
        return line.path[-2]
    return line.label


_CODE = re.compile(r"^[A-Za-z]{0,5}[-_/.]?\d\S*$")


def is_code(text: str) -> bool:
    """An identifier (`W-1024`, `PRJ-003`, `311`): a row's code, not its name."""
    return _CODE.match(text.strip()) is not None


def has_value(node: Node) -> bool:
    """The cell shows a figure or a name, not a suppression or nil mark (`..`, `-`, `…`)."""
    return bool(re.search(r"\w", node.text))


def is_nil(node: Node) -> bool:
    """The cell shows a dash alone (`—`, `-`): nil, a line with nothing in that period."""
    return is_nil_text(node.text)


ACTUAL_LABEL = re.compile(r"(?:^|\s)(?:actuals?|current(?:[\s-]+year)?|cy|this[\s-]+year)\s*$")
"""The line of actual (current) figures beside a budget, plan or prior year's (`Actual`, `H1
Actual`, `CY`)."""
_PRIOR_YEAR = r"(?:prior|previous|last)[\s-]+year\b|py\b"
PRIOR_YEAR_LABEL = re.compile(_PRIOR_YEAR)
"""A line of the prior year's figures (`Prior Year`, `PY`, `Last year`), matched at its start."""
BENCHMARK_LABEL = re.compile(rf"^(?:[\w-]+\s+)?(?:budget|plan|target|goal|benchmark|{_PRIOR_YEAR})"
                             r"(?:\s+[\w-]+)?\s*$")
"""A line of figures the actual ones are measured against (`H1 Budget`, `Target`, `Prior year`; not
a variance to it: `Over/(under) budget`, `% of budget`)."""


VARIANCE_LABEL = re.compile(r"(?i)\s(?:vs\.?|versus)\s|\bover\s*/\s*\(?under\b"
                            r"|\bfav(?:ou?rable)?\s*/\s*\(?unfav|\bbetter\s*/\s*\(?worse\b")
"""A label comparing two lines (`Fcst vs Budget`, `2024 vs. 2023`, `Over/(under) budget`,
`Fav/(Unfav)`): their difference, neither of them."""


def is_aggregate(line: Line) -> bool:
    """A total line: its label says so (`Total`, `All ages`) or its figures add up its siblings'."""
    name = name_label(line)
    return line.sums or (name is not None and is_aggregate_label(name))


def mark_sums(graph: CellGraph, lines: list[Line], others: list[Line]) -> None:
    """Set `Line.sums` on the line of each group of four or more siblings (same parent labels) whose
    figures equal the sum of the others' (`Canada` over the provinces), to rounding and larger than
    each, where every sibling shows a figure (no year) and four at least are not zero: on at least
    `SUM_MIN_FIGURES` such positions and `SUM_SHARE` of them; and, where no label says total, on a
    top-level line, of a few, whose figures are the sum of every grouped line (`England` below `North
    > North East`, …, `South > South West`). Found once per graph and lines (every question on a
    table asks again)."""
    found = frozenset(_once(_SUMS, graph, lines, others, _sum_lines))
    for ln in lines:
        ln.sums = ln.index in found


_SUMS: WeakKeyDictionary[CellGraph, dict[tuple[object, ...], object]] = WeakKeyDictionary()
_CLOSING: WeakKeyDictionary[CellGraph, dict[tuple[object, ...], object]] = WeakKeyDictionary()


def _once(store: WeakKeyDictionary[CellGraph, dict[tuple[object, ...], object]], graph: CellGraph,
          lines: list[Line], others: list[Line], find: Callable[[CellGraph, list[Line], list[Line]], T]) -> T:
    """`find(graph, lines, others)`, computed once per graph and lines (every question on a table
    builds the same lines again)."""
    key = (tuple((ln.index, tuple(n.id for n in ln.path)) for ln in lines), tuple(ln.index for ln in others))
    found = store.setdefault(graph, {})
    if key not in found:
        found[key] = find(graph, lines, others)
    return cast(T, found[key])


def _sum_lines(graph: CellGraph, lines: list[Line], others: list[Line]) -> list[int]:
    """The indexes of the lines `mark_sums` marks."""
    flags = legend(graph.table.notes)  # `12.8E` counts as 12.8, as everywhere in the offline steps
    groups: dict[tuple[int, ...], list[Line]] = {}
    for ln in lines:
        groups.setdefault(ln.parent_ids, []).append(ln)
    out = [k for members in groups.values()
           if len(members) >= 4 and (k := _summing(graph, members, others, flags)) is not None]
    grouped = [ln for ln in lines if ln.parent_ids and ln.index not in out]
    if any(ln.label is not None and is_aggregate_label(ln.label) for ln in lines):
        return out  # a table with a total line has no other whole
    for ln in groups.get((), []):  # `England` below its regions grouped under `North`, `South`, …
        if len(groups[()]) < 4 and len(grouped) >= 4 and len(ln.path) == 1 and _summing(
                graph, [*grouped, ln], others, flags) == ln.index:
            out.append(ln.index)
    return out


def _summing(graph: CellGraph, members: list[Line], others: list[Line], flags: dict[str, str]) -> int | None:
    """The index of the member whose figures are the sum of the others' (`mark_sums`), if any."""
    hits = [0] * len(members)
    positions = 0
    for other in others:
        found = _figures(graph, members, other, flags)
        if found is None:
            continue
        positions += 1
        values, tol = found
        total = sum(values)
        for k, v in enumerate(values):
            if abs(2 * v - total) <= tol and abs(v) > max(abs(o) for j, o in enumerate(values) if j != k):
                hits[k] += 1
    best = max(range(len(members)), key=lambda k: hits[k])
    found = hits[best] >= SUM_MIN_FIGURES and hits[best] >= SUM_SHARE * positions
    return members[best].index if found else None


def _figures(graph: CellGraph, members: list[Line], other: Line, flags: dict[str, str], nil: bool = False,
             least: int = 4) -> tuple[list[float], float] | None:
    """The members' figures where they cross `other` and the rounding their sum may carry; None
    unless each shows a figure (no year, one cell each; `nil`: a dash alone counts as zero) and
    `least` at least are not zero."""
    cells = [graph.node_at(ln.index, other.index) if ln.axis == "row" else
             graph.node_at(other.index, ln.index) for ln in members]
    texts = ["0" if nil and is_nil(c) else figure_text(c.text, flags) for c in cells]
    nums = [i for t in texts if (i := parse_number_info(t)) is not None]
    if len({c.id for c in cells}) < len(cells) or len(nums) < len(cells):
        return None
    values = [i.value for i in nums]
    if sum(1 for v in values if v) < least or any(is_year_text(c.text) for c in cells):
        return None  # by default a total of three nonzero parts at least; no years
    return values, 0.5 * 10 ** -max(i.decimals for i in nums) * len(values) + 1e-9


def adds_up_to_amount(graph: CellGraph, line: Line, lines: list[Line], other: Line) -> bool:
    """`line` and its siblings (same parent labels) cross `other` in figures of which one is the sum
    of the rest, and that sum is not 100: amounts (`Remote` headcount over the departments), not
    percentages (rates do not add up; a distribution's parts make 100)."""
    members = [ln for ln in lines if ln.parent_ids == line.parent_ids]
    if len(members) < 4:
        return False
    found = _figures(graph, members, other, legend(graph.table.notes), nil=True)
    if found is None:
        return False
    values, tol = found
    total = sum(values)
    return any(abs(2 * v - total) <= tol and abs(v - 100) > 0.5 for v in values)


def group_totals(graph: CellGraph, part: Line, lines: list[Line], others: list[Line]) -> list[Line]:
    """Lines under an aggregate label outside `part`'s group (same parent labels) whose figures are
    the sum of that group's wherever all show one, at `SUM_MIN_FIGURES` positions at least: `Total >
    Dec 2024` over the office locations, not `Total > Dec 2023` beside it."""
    group = [ln for ln in lines if ln.parent_ids == part.parent_ids]
    if len(group) < 3:
        return []
    flags = legend(graph.table.notes)
    inside = {ln.index for ln in group}
    out = []
    for ln in lines:
        if ln.index in inside or not under_aggregate(ln):
            continue
        found = [f for other in others if (f := _figures(graph, [*group, ln], other, flags, nil=True))]
        if len(found) >= SUM_MIN_FIGURES and all(abs(2 * v[-1] - sum(v)) <= tol for v, tol in found):
            out.append(ln)
    return out


def closing_totals(graph: CellGraph, lines: list[Line], others: list[Line]) -> list[tuple[Line, Line]]:
    """Each part with its total in a statement's layout: a line right under a run of two lines or
    more indented deeper than it (same parent labels) whose figures are the run's sum at
    `SUM_MIN_FIGURES` positions at least and wherever all show one (`United States`, `Foreign`, then
    `Income before income taxes` at the left). Found once per graph and lines."""
    pairs = _once(_CLOSING, graph, lines, others, _closing_totals)
    return [(lines[p], lines[t]) for p, t in pairs]


def _closing_totals(graph: CellGraph, lines: list[Line], others: list[Line]) -> list[tuple[int, int]]:
    """`closing_totals` as positions in `lines`."""
    flags = legend(graph.table.notes)
    out: list[tuple[int, int]] = []
    for i, total in enumerate(lines):
        if total.label is None:
            continue
        run: list[int] = []
        for j in range(i - 1, -1, -1):
            ln, nxt = lines[j], lines[run[-1] if run else i]
            if (ln.index != nxt.index - 1 or ln.label is None or (run and ln.parent_ids != nxt.parent_ids)
                    or indent_of(ln.label.text) <= indent_of(total.label.text)):
                break
            run.append(j)
        if len(run) < 2:
            continue
        group = [*(lines[j] for j in run), total]
        found = [f for other in others if (f := _figures(graph, group, other, flags, nil=True, least=3))]
        if len(found) >= SUM_MIN_FIGURES and all(abs(2 * v[-1] - sum(v)) <= tol for v, tol in found):
            out.extend((j, i) for j in run)
    return out


SUM_MIN_FIGURES = 2
SUM_SHARE = 0.6
"""A sum line adds up its siblings at two positions at least and at 60 % of those where all show a
figure (rounded figures, a suppressed cell, a column of rates that do not add up)."""


def under_aggregate(line: Line) -> bool:
    """Some label of the path is an aggregate (`total > percent`): the default when unqualified. A
    share of the whole (`Share of total (%)`) is no default."""
    return any(is_aggregate_label(n) and not OF_WHOLE.search(n.text.lower()) for n in line.path)


_EVERY_SEX = re.compile(r"\bboth\s+(?:sexes|genders)\b")
"""`Both sexes`: the total over the sexes."""


def is_aggregate_label(node: Node) -> bool:
    """A label of a total or reference line (`AGGREGATE_LABEL_WORDS`, both sexes); not a measure
    averaged in a unit of its own (`Average fuel price (dollars per gallon)`)."""
    text = node.text.lower()
    found = AGGREGATE_LABEL_WORDS.intersection(words(re.sub(r"\ball-", "all ", text)))  # `All-items` (not
    # `Weighted-average shares`)
    if found and found <= _MEANS and _MEAN_OF_A_MEASURE.match(text) and label_unit(node.text) is not None:
        return False
    return bool(found) or _EVERY_SEX.search(text) is not None


_MEANS = frozenset({"average", "mean"})
_MEAN_OF_A_MEASURE = re.compile(r"^\s*(?:average|mean)\s+(?!(?:of|for|all|across|over|in)\b)[a-z]")
"""`Average stage length`, not `Average, all industries`, `Average of all plants`."""


_SHARE_OF = r"(?:\bshares?|\bpercent(?:age)?s?|\bproportions?|%)\s+of\s+"
OF_WHOLE = re.compile(_SHARE_OF + r"(?:the\s+)?(total)\b")
"""A share's label naming its base (`Share of total (%)`, `% of total`): its `total` names the whole
the line is a share of, not the line."""
SHARE_BASE = re.compile(_SHARE_OF + r"(?:the\s+|all\s+)?([a-z][a-z ]*|(?:19|20)\d\d\b)")
"""A percentage label's base: `Percent of employed`, `% of households`, another year's figure
(`2024 as % of 2023`)."""


_BALANCE = re.compile(r"^\s*(?:(?:beginning|ending|opening|closing)\s+)?balances?\b.*?\b((?:19|20)\d\d)\b",
                      re.IGNORECASE)
"""A roll-forward's balance line (`Balance at December 31, 2022`, `Balances, January 1, 2023`)."""


def roll_forward(rows: list[Line]) -> list[Line]:
    """The rows with each movement line of a roll-forward (the lines between two balance lines of
    increasing years) given the later balance's year as its `period` and freed from an earlier
    balance it sits under: `Net income` between the balances at December 31, 2022 and 2023 is 2023's,
    not the 2022 balance's part."""
    balances = [(i, m.group(1)) for i, ln in enumerate(rows)
                if ln.label is not None and len(ln.path) == 1 and (m := _BALANCE.match(ln.label.text))]
    if len(balances) < 2 or any(a[1] >= b[1] for a, b in pairwise(balances)):
        return rows
    out = list(rows)
    for (start, _), (end, year) in pairwise(balances):
        opening = rows[start].path[0]
        for i in range(start + 1, end):
            ln = rows[i]
            path = [n for n in ln.path if n.id != opening.id] or ln.path
            out[i] = dataclasses.replace(ln, path=path, period=year)
    return out
