"""Derived measures that reports name but tables often leave out, from `vocabulary.toml`: shares
answered as a percentage (`[measures]`: `gross margin` = gross profit ÷ revenue), plain ratios
(`[ratios]`: `current ratio`) and amounts (`[differences]`: `working capital` = current assets −
current liabilities); and a share the question defines itself (`operating income as a percent of
revenues`)."""

from __future__ import annotations

import re
from typing import NamedTuple

from celltrace.server.offline import operations as ops
from celltrace.server.offline.arithmetic import compute_plan
from celltrace.server.offline.grounding import Grounder, Plan, headers_for
from celltrace.server.offline.lexicon import label_tokens, vocabulary
from celltrace.server.offline.lines import Line, is_aggregate
from celltrace.server.offline.operations import Op
from celltrace.server.offline.ranking import NAMED_MEMBER, member_values, pick
from celltrace.shared.numstyle import NumStyle


class Measure(NamedTuple):
    """Two line phrases and the operation between them: `percent_of` (a share, as a percentage),
    `ratio` or `diff` (the first minus the size of the second)."""

    first: str
    second: str
    op: Op


KINDS: dict[str, Op] = {"measures": "percent_of", "ratios": "ratio", "differences": "diff"}
"""The vocabulary table of each kind of measure and its operation."""


def measures() -> dict[str, Measure]:
    """Every derived measure of the vocabulary file by name."""
    return {name: Measure(first, second, op) for table, op in KINDS.items()
            for name, (first, second) in vocabulary()[table].items()}


def asked_measure(g: Grounder) -> tuple[str, Measure] | None:
    """The longest derived measure the question names and no table label already holds, else a share
    it defines itself between two lines the table shows (`operating income as a percent of revenues`).
    A measure the question also defines is computed as defined (`operating margin, i.e. operating
    income as a percentage of total operating revenue`: not of `Freight revenue`)."""
    named = [(m, found) for m, found in measures().items() if _says_measure(g.q, m)]
    stated = _stated_share(g)
    if not named:
        return stated
    name, measure = max(named, key=lambda mp: len(label_tokens(mp[0])))
    if any(_says_measure(n.text, name) for ln in g.rows + g.cols for n in ln.path):
        return None  # the table has the measure itself (beside a unit column's `%` too): a lookup
    return name, stated[1] if stated is not None and measure.op == "percent_of" else measure


_AS_A_SHARE_OF = re.compile(
    r"\b((?:[a-z&'-]+\s+){1,5}?)as an? (?:percent(?:age)?|share|proportion|fraction) of "
    r"(?:the\s+|total\s+)*([a-z&' -]+?)(?=\s+(?:for|in|during|at|on|by|over|from)\b|[,?.;)]|$)")
"""`X as a percent of Y`: the last words before it (the part, `operating income`) and the whole."""
_BEFORE_PART = frozenset({"what", "was", "is", "were", "are", "the", "i", "e", "ie", "its", "their", "and",
                          "s", "calculate", "compute", "express", "give", "show"})
"""Words that end the part's phrase when read backwards (`i.e. operating income as a …`)."""


def _stated_share(g: Grounder) -> tuple[str, Measure] | None:
    """`operating income as a percent of revenues`: a share the question defines by two line phrases,
    when two different lines' labels each hold every word of one phrase (`_line_for`)."""
    m = _AS_A_SHARE_OF.search(g.qnorm)
    if m is None:
        return None
    kept: list[str] = []
    for word in reversed(m.group(1).split()):
        if word in _BEFORE_PART:
            break
        kept.insert(0, word)
    part, whole = " ".join(kept), m.group(2).strip()
    if not label_tokens(part) or not label_tokens(whole):
        return None
    both = set(label_tokens(f"{part} {whole}"))
    if any(ln.label is not None and both <= set(label_tokens(ln.label.text)) for ln in g.rows + g.cols):
        return None  # a line shows the share itself (`Allowance … as a % of loans`): a lookup
    for lines in (g.rows, g.cols):
        top = _line_for(g, lines, part, name=m.group(0))
        bottom = _line_for(g, lines, whole, taken=top, name=m.group(0))
        if top is not None and bottom is not None:
            return f"{part} as a percent of {whole}", Measure(part, whole, "percent_of")
    return None


def _says_measure(text: str, measure: str) -> bool:
    """`text` names the measure: holds its words, or says them in order, two words apart at most,
    when one of them is no content word (`over budget`, `over its approved budget`; not every text
    holding `budget`)."""
    words = label_tokens(measure)
    if len(words) < len(measure.split()):
        return said(measure).search(text) is not None
    return set(words) <= set(label_tokens(text))


def _line_for(g: Grounder, lines: list[Line], phrase: str, taken: Line | None = None,
              name: str = "") -> Line | None:
    """The line (other than `taken`) whose own label holds every word of `phrase`, else of its first
    other name (`[line_names]` of the vocabulary file) that some label holds: the one under the
    group the question names best (`Actual` under `February` for `over budget in February`), then a
    total line, then the label with the fewest other words, then the first."""
    labelled = [(ln, label_tokens(ln.label.text)) for ln in lines if ln is not taken and ln.label is not None]
    skip = frozenset(label_tokens(name))
    for want in _names(phrase):
        found = [(ln, toks) for ln, toks in labelled if want <= set(toks)]
        if found:
            return min(found, key=lambda lt: (-_group_named(g, lt[0], skip), not is_aggregate(lt[0]),
                                              len(lt[1]), lt[0].index))[0]
    return None


def _group_named(g: Grounder, line: Line, skip: frozenset[str]) -> float:
    """How well the question names a group label over the line (`February` over `Actual`, `FY 2024`
    for `the full year`) by words other than the measure's own name's (`operating margin` names no
    `Operating expenses` over `Cost of revenues`)."""
    return round(max((g.mention(n) for n in line.path[:-1] if not set(g.matched(n)) <= skip), default=0.0), 2)


def _segment_lines(g: Grounder, lines: list[Line], num: str, den: str) -> tuple[Line, Line] | None:
    """A line the question names whole that a segment note shows under both sides' sections
    (`Operating income: > Consumer`, `Revenue: > Consumer` for `the Consumer segment's operating
    margin`): those two lines, not the totals."""
    def under(line: Line, phrase: str) -> bool:
        return any(_holds(n.text, phrase) for n in line.path[:-1])

    for line in lines:
        if line.label is None or g.mention(line.label) < 0.99:
            continue
        text = line.label.text.strip()
        same = [ln for ln in lines if ln.label is not None and ln.label.text.strip() == text]
        top = next((ln for ln in same if under(ln, num)), None)
        bottom = next((ln for ln in same if ln is not top and under(ln, den)), None)
        if top is not None and bottom is not None:
            return top, bottom
    return None


_DEFINITION = re.compile(
    r"\s*\([^()]*\)|,?\s*\b(?:i\.\s?e\.?|that is|defined as|calculated as|computed as|measured as)"
    r"[,:]?\s[^,;?]*,?", re.IGNORECASE)
"""A parenthetical or a clause defining what precedes it (`(total current assets / total current
liabilities)`, `, i.e. operating income as a percent of net sales`)."""


def _undefined(question: str, sides: tuple[str, str]) -> str:
    """The question without the clauses that define the measure by its sides' words: an operand's
    lookup question would read both sides there (`What was the Total current liabilities at the end
    of 2023 (total current assets / …)?` grounds the assets)."""
    return _DEFINITION.sub(lambda m: "" if any(
        _holds(m.group(0), side) for side in sides) else m.group(0), question)


def _naming_label(line: Line, phrase: str) -> str:
    """The label of the line's path that names the measure's side (`Operating income (loss):` over
    `Consumer`; the line's own `Gross profit`), for the operand's lookup question."""
    naming = next((n for n in reversed(line.path) if _holds(n.text, phrase)), line.path[-1])
    return naming.text.strip()


def _names(phrase: str) -> list[set[str]]:
    """The words of a measure's side and of its other names (`[line_names]`), in that order."""
    return [set(label_tokens(name)) for name in (phrase, *vocabulary()["line_names"].get(phrase, ()))]


def _holds(text: str, phrase: str) -> bool:
    """A label holds every word of the side or of one of its other names."""
    return any(want <= set(label_tokens(text)) for want in _names(phrase))


def said(measure: str, between: int = 2) -> re.Pattern[str]:
    """The measure's words in the question, in order, up to `between` other words between them
    (`net income margin` says `net margin`)."""
    words = [rf"{re.escape(w)}s?" for w in measure.split()]
    return re.compile(r"\b" + rf"(?:\W+\w+){{0,{between}}}?\W+".join(words) + r"\b", re.IGNORECASE)


def solve_measure(g: Grounder) -> Plan | None:
    """The measure's operation between its two lines on the best-grounded line of the other axis;
    its `parts` ask each operand in the question's own words (`What was the gross margin in 2019?`
    → `What was the Gross profit in 2019?`), so they are as sure of the period as the question is."""
    asked = asked_measure(g)
    if asked is None:
        return None
    measure, (num, den, op) = asked
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        # the more specific side first, so that `income tax` does not take `income before income taxes`
        segment = _segment_lines(g, lines, num, den)
        if segment is not None:
            top, bottom = segment
        elif len(label_tokens(num)) >= len(label_tokens(den)):
            top = _line_for(g, lines, num, name=measure)
            bottom = _line_for(g, lines, den, taken=top, name=measure)
        else:
            bottom = _line_for(g, lines, den, name=measure)
            top = _line_for(g, lines, num, taken=bottom, name=measure)
        if top is None or bottom is None:
            continue
        by_member = _rank_or_count(g, axis, top, bottom, op, measure)
        if by_member is not None:
            return by_member
        fixed = g.best(other)[0][1]
        plan = compute_plan(g, op, axis, [top, bottom], fixed, sizes=op == "diff")
        if plan is None:
            continue
        plan.explanation = f"{measure} = {num} {'−' if op == 'diff' else '/'} {den}"
        if measure not in measures():  # a share the question defines is a share, its lines grounded
            return plan  # by its own phrases (`operating income as a percent of revenues`)
        plan.operation = "measure"
        named = said(measure)
        if named.search(g.q):
            bare = _undefined(g.q, (num, den))
            plan.parts = [named.sub(_naming_label(ln, side), bare, count=1)
                          for ln, side in ((top, num), (bottom, den))]
        return plan
    return None


def _rank_or_count(g: Grounder, axis: str, top: Line, bottom: Line, op: Op, name: str) -> Plan | None:
    """The measure computed for each member of the other axis: `which department was most over
    budget`, `which segment had the highest operating margin` answer the top-ranked member; `how many
    departments were over budget` counts the members where a difference is positive. None when the
    question neither ranks nor counts, or names a member (`by how much was IT over budget`)."""
    want = ops.direction(g.q)
    ranks = want is not None and ops.asks_ranked_label(g.q) and not ops.amount_before_name(g.q)
    counts = op == "diff" and ops.counted_noun(g.q) is not None and ops.count_condition(g.q) is None
    if not (ranks or counts):
        return None
    members = "row" if axis == "col" else "col"
    firsts = {label.id: (value, node) for value, label, node in member_values(g, members, top)}
    vals = [(value, label, firsts[label.id][1]) for second, label, _ in member_values(g, members, bottom)
            if label.id in firsts and (value := _apply(op, firsts[label.id][0], second)) is not None]
    if len(vals) < 2 or any(g.mention(label) >= NAMED_MEMBER for _, label, _ in vals):
        return None
    lines = headers_for(g, [top, bottom])
    rows, cols = ([], lines) if members == "row" else (lines, [])
    if ranks and want is not None:
        (_, label, _), ties, gap = pick(vals, want, 1)
        return Plan([label.text.strip()], [label.id], lines, f"arg{want}", round(0.5 / ties, 3),
                    f"{want} {name} over {len(vals)} {members}s", rows, cols,
                    stats={"rank_gap": gap, "rank_ties": float(ties), "rank_members": float(len(vals))})
    met = [(label, node) for value, label, node in vals if value > 0]
    computed = ops.Computed(float(len(met)), str(len(met)), NumStyle(), same_unit=False)
    shown = met or [(label, node) for _, label, node in vals]  # none met: the members looked at
    return Plan([computed.text], [node.id for _, node in shown], [*lines, *(label.id for label, _ in shown)],
                "count", 0.5, f"{len(met)} of {len(vals)} {members}s {name}", rows, cols, computed=computed,
                stats={"rank_members": float(len(vals))})


def _apply(op: Op, first: float, second: float) -> float | None:
    """The measure of one member: the first less the size of the second, or their quotient."""
    if op == "diff":
        return first - abs(second)
    return first / second if second else None
