"""Derived measures that reports name but tables often leave out (`gross margin` = gross profit ÷
revenue), from the `[measures]` table of `vocabulary.toml`, answered as a percentage."""

from __future__ import annotations

import re

from celltrace.server.offline.arithmetic import compute_plan
from celltrace.server.offline.grounding import Grounder, Plan
from celltrace.server.offline.lexicon import label_tokens, vocabulary
from celltrace.server.offline.lines import Line, is_aggregate


def measures() -> dict[str, tuple[str, str]]:
    return {name: (num, den) for name, (num, den) in vocabulary()["measures"].items()}


def asked_measure(g: Grounder) -> tuple[str, str, str] | None:
    """The longest derived measure the question names and no table label already holds."""
    qtoks = set(label_tokens(g.q))
    named = [(m, parts) for m, parts in measures().items() if set(label_tokens(m)) <= qtoks]
    if not named:
        return None
    measure, (num, den) = max(named, key=lambda mp: len(label_tokens(mp[0])))
    want = set(label_tokens(measure))
    if any(ln.label is not None and want <= set(label_tokens(ln.label.text)) for ln in g.rows + g.cols):
        return None  # the table has the measure itself: a lookup
    return measure, num, den


def _line_for(lines: list[Line], phrase: str, taken: Line | None = None) -> Line | None:
    """The line (other than `taken`) whose own label holds every word of `phrase`, else of its first
    other name (`[line_names]` of the vocabulary file) that some label holds: a total line first,
    then the label with the fewest other words, then the first."""
    labelled = [(ln, label_tokens(ln.label.text)) for ln in lines if ln is not taken and ln.label is not None]
    for name in (phrase, *vocabulary()["line_names"].get(phrase, ())):
        want = set(label_tokens(name))
        found = [(ln, toks) for ln, toks in labelled if want <= set(toks)]
        if found:
            return min(found, key=lambda lt: (not is_aggregate(lt[0]), len(lt[1]), lt[0].index))[0]
    return None


def _said(measure: str) -> re.Pattern[str]:
    """The measure's words in the question, in order, up to two other words between (`net income
    margin` says `net margin`)."""
    words = [rf"{re.escape(w)}s?" for w in measure.split()]
    return re.compile(r"\b" + r"(?:\W+\w+){0,2}?\W+".join(words) + r"\b", re.IGNORECASE)


def solve_measure(g: Grounder) -> Plan | None:
    """numerator ÷ denominator on the best-grounded line of the other axis, as a percentage; its
    `parts` ask each operand in the question's own words (`What was the gross margin in 2019?` →
    `What was the Gross profit in 2019?`), so they are as sure of the period as the question is."""
    asked = asked_measure(g)
    if asked is None:
        return None
    measure, num, den = asked
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        # the more specific side first, so that `income tax` does not take `income before income taxes`
        if len(label_tokens(num)) >= len(label_tokens(den)):
            top = _line_for(lines, num)
            bottom = _line_for(lines, den, taken=top)
        else:
            bottom = _line_for(lines, den)
            top = _line_for(lines, num, taken=bottom)
        if top is None or bottom is None:
            continue
        fixed = g.best(other)[0][1]
        plan = compute_plan(g, "percent_of", axis, [top, bottom], fixed)
        if plan is None:
            continue
        plan.operation = "measure"
        plan.explanation = f"{measure} = {num} / {den}"
        named = _said(measure)
        if named.search(g.q):
            plan.parts = [named.sub(ln.label.text.strip(), g.q, count=1) for ln in (top, bottom)]  # type: ignore[union-attr]
        return plan
    return None
