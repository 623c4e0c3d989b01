"""A gap to a figure the question states (`how many percentage points short of the 95% target was
Northern's coverage`, `how far above the 2% target was inflation in May`): the best-grounded cell
against that figure, in the cell's own terms."""

from __future__ import annotations

import re

from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import Grounder, Plan, headers_for, ranked_cells
from celltrace.server.offline.lines import value_cell

_GAP = re.compile(
    r"^\s*(?:by\s+)?how\s+(?:many|much|far)\b[^?]*?\b(?P<way>short\s+of|below|under|above|over|beyond"
    r"|exceed(?:ed|s|ing)?)\s+(?:the\s+|a\s+|an\s+|its\s+|their\s+)?(?!(?:19|20)\d\d\b(?!\s*%))"
    r"(?P<figure>-?\d[\d,]*(?:\.\d+)?)(?!\s*(?:to|-|–|and)\s*\d)")
"""`how many points short of the 95% target`, `how far above 2 percent`, `by how much did … exceed
1,000`: the way and the figure stated (not a range, `above 15 to 24`, nor a year, `over the 2012-to-2015
period`)."""
_SHORT = ("short", "below", "under")


def solve_gap(g: Grounder) -> Plan | None:
    """The stated figure less the cell (`short of`, `below`) or the cell less the figure (`above`,
    `exceeded`), at the best-grounded cell; None when members are counted (`how many regions were
    below 85%`, `how many days did … exceed the 24-hour standard`) or the cell shows no number."""
    m = _GAP.match(g.qnorm)
    ranked = ranked_cells(g)
    if m is None or ops.counted_noun(g.q) is not None or not ranked:  # `how many days did … exceed`
        return None
    _, row, col = ranked[0]
    node = value_cell(g.graph, row, col)
    cell = g.number(node)
    if cell is None or not g.h.is_data(node):
        return None
    stated = ops.Num(float(m.group("figure").replace(",", "")), cell.decimals, cell.percent, cell.style)
    nums = [stated, cell] if m.group("way").startswith(_SHORT) else [cell, stated]
    computed = ops.compute("diff", nums, g.grouping)
    if computed is None:
        return None
    coverage = g.coverage(row, col)
    explanation = f"the stated {m.group('figure')} against {node.text.strip()}"
    return Plan([computed.text], [node.id], headers_for(g, [row, col]), "diff",
                round(min(0.9, 0.4 + 0.6 * coverage), 3), explanation, computed=computed,
                stats={"operands": 2.0, "operand_coverage": coverage})
