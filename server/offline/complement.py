"""A complement: what the question names by exclusion (`revenue from outside the United States`,
`sales to customers other than Walmart`) is the whole less the line it excludes."""

from __future__ import annotations

import re

from celltrace.server.offline import operations as ops
from celltrace.server.offline.arithmetic import compute_plan
from celltrace.server.offline.grounding import Grounder, Plan
from celltrace.server.offline.lexicon import label_tokens
from celltrace.server.offline.lines import Line, is_aggregate
from celltrace.shared.graph import normalise_text

EXCLUDED = re.compile(
    r"\b(?:(?:outside(?:\s+of)?|other\s+than|excluding|leaving\s+out|not\s+counting|except(?:\s+for)?"
    r"|apart\s+from|aside\s+from)\s+(?:the\s+)?|non-?(?=[a-z]{4}))(?P<named>[^,?.;]+?)"
    r"(?=\s+(?:in|for|during|at|from|was|were|is|are|did|does|do|had|has|have)\b|[,?.;]|$)")
"""`outside (of) the X`, `other than X`, `excluding X`, `leaving out X`, `nonX` (`nonfederally
financed`): the named line, up to the clause's next verb or period."""
_SAID_BY_LABELS = re.compile(r"\b(?:outside|other\s+than|excluding|excl|ex|leaving\s+out|not\s+counting"
                             r"|except|apart\s+from|aside\s+from|non)\b|\bnon[a-z]{4}")
"""A label saying an exclusion itself (`Born outside Canada`, `Revenue excluding fuel`, `excl.`)."""


def solve_complement(g: Grounder) -> Plan | None:
    """The whole less the one line the question excludes, at the best-grounded line of the other
    axis. The whole is an aggregate line: the one the question names most, then the outermost, then
    the first after the excluded line. None when a label says the exclusion itself (`Born outside
    Canada` for `outside Canada`), a name, a share or a count of members is asked (`outside the
    United States, how many areas produced more than 200`), or no single line or whole is found."""
    m = EXCLUDED.search(g.qnorm)
    counted = ops.count_condition(g.q) is not None
    if m is None or counted or "percent" in g.qtoks or ops.asks_label(g.q):
        return None
    named = set(label_tokens(m.group("named")))
    if any((said := _SAID_BY_LABELS.search(text := normalise_text(n.text))) and named & set(
            label_tokens(text[said.end():])) for ln in g.rows + g.cols for n in ln.path):  # (not `… and
        return None  # outside repairs` beside `excluding aircraft fuel`)
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        parts = [ln for ln in lines if ln.label is not None and not is_aggregate(ln) and (
                 (g.mention(ln.label) >= 0.99 and set(label_tokens(ln.label.text)) <= named)
                 or named <= set(label_tokens(ln.label.text)))]  # `excluding fuel surcharge`: `Fuel
        # surcharge revenue`
        wholes = [ln for ln in lines if is_aggregate(ln)]
        if len({ln.label.text.strip() for ln in parts if ln.label}) != 1 or not wholes:
            continue
        part = parts[0]
        whole = min(wholes, key=lambda ln: _whole_rank(g, part, ln))
        plan = compute_plan(g, "diff", axis, [whole, part], g.best(other)[0][1])
        if plan is not None:
            plan.explanation = f"{_text(whole)} less {_text(part)}"
            return plan
    return None


def _whole_rank(g: Grounder, part: Line, whole: Line) -> tuple[float, int, bool, int]:
    """Smaller is better: the most named, the outermost, after the part, nearest it."""
    mention = round(g.mention(whole.label), 1) if whole.label else 0.0
    return -mention, len(whole.path), whole.index < part.index, abs(whole.index - part.index)


def _text(line: Line) -> str:
    return line.label.text.strip() if line.label else ""
