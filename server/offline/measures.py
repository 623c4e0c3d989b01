"""Derived measures that reports name but tables often leave out, from `vocabulary.toml`: shares
answered as a percentage (`[measures]`: `gross margin` = gross profit ÷ revenue), plain ratios
(`[ratios]`: `current ratio`) and amounts (`[differences]`: `working capital` = current assets −
current liabilities)."""

from __future__ import annotations

import re
from typing import NamedTuple

from celltrace.server.offline.arithmetic import compute_plan
from celltrace.server.offline.grounding import Grounder, Plan
from celltrace.server.offline.lexicon import label_tokens, vocabulary
from celltrace.server.offline.lines import Line, is_aggregate
from celltrace.server.offline.operations import Op


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
    """The longest derived measure the question names and no table label already holds."""
    qtoks = set(label_tokens(g.q))
    named = [(m, found) for m, found in measures().items() if set(label_tokens(m)) <= qtoks]
    if not named:
        return None
    name, measure = max(named, key=lambda mp: len(label_tokens(mp[0])))
    want = set(label_tokens(name))
    if any(ln.label is not None and want <= set(label_tokens(ln.label.text)) for ln in g.rows + g.cols):
        return None  # the table has the measure itself: a lookup
    return name, measure


def _line_for(lines: list[Line], phrase: str, taken: Line | None = None) -> Line | None:
    """The line (other than `taken`) whose own label holds every word of `phrase`, else of its first
    other name (`[line_names]` of the vocabulary file) that some label holds: a total line first,
    then the label with the fewest other words, then the first."""
    labelled = [(ln, label_tokens(ln.label.text)) for ln in lines if ln is not taken and ln.label is not None]
    for want in _names(phrase):
        found = [(ln, toks) for ln, toks in labelled if want <= set(toks)]
        if found:
            return min(found, key=lambda lt: (not is_aggregate(lt[0]), len(lt[1]), lt[0].index))[0]
    return None


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
            top = _line_for(lines, num)
            bottom = _line_for(lines, den, taken=top)
        else:
            bottom = _line_for(lines, den)
            top = _line_for(lines, num, taken=bottom)
        if top is None or bottom is None:
            continue
        fixed = g.best(other)[0][1]
        plan = compute_plan(g, op, axis, [top, bottom], fixed, sizes=op == "diff")
        if plan is None:
            continue
        plan.operation = "measure"
        plan.explanation = f"{measure} = {num} {'−' if op == 'diff' else '/'} {den}"
        named = said(measure)
        if named.search(g.q):
            plan.parts = [named.sub(_naming_label(ln, side), g.q, count=1)
                          for ln, side in ((top, num), (bottom, den))]
        return plan
    return None
