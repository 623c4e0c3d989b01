"""Arithmetic over several grounded cells: sums over named items or alternatives, differences,
ratios, shares and growth rates, averages (the arithmetic itself is `operations.compute`)."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable

from celltrace.server.infra.retrieval import tokens
from celltrace.server.offline import compose, intervals
from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import (
    AGGREGATE_STEMS,
    ASKS_CHANGE,
    EVERY_PERIOD,
    MONTH_RANGE,
    YEAR,
    Grounder,
    Plan,
    alias_of,
    alias_position,
    asked_periods,
    gives_change,
    headers_for,
    interim_period,
    is_interim_label,
    is_period_label,
    is_quarter_label,
    label_date,
    label_month,
    label_year,
    line_year,
    month_range,
    names_a_size,
    own_change,
    period_end,
    period_phrases,
    price_base,
    quarter_text,
    question_position,
    ranked_cells,
    without_status,
)
from celltrace.server.offline.lexicon import CARDINALS, label_tokens, vocabulary
from celltrace.server.offline.lines import (
    ACTUAL_LABEL,
    PRIOR_YEAR_LABEL,
    Line,
    is_aggregate,
    is_aggregate_label,
    labels_recur,
    on_line,
    value_cell,
)
from celltrace.server.offline.lookup import listed_items
from celltrace.server.offline.ranking import (
    WHOLE_TOLERANCE,
    ground_option,
    names_members,
    said_by_acronym,
    said_whole,
    under_named_group,
)
from celltrace.shared.graph import Node, normalise_text, phrase_spans
from celltrace.shared.graph import words as label_words
from celltrace.shared.numbers import MONTH_NAMES, is_year_text
from celltrace.shared.units import CURRENCIES, RELATIVE_KINDS, RELATIVE_WORDS, parse_unit, without_exemptions


# ---- multi-cell arithmetic -----------------------------------------------------------------------
def _mentioned_lines(g: Grounder, lines: list[Line]) -> list[tuple[int, Line]]:
    """Lines whose innermost label (above a unit of amounts the question names, or a period's unit no
    sibling line differs by: `November 2024` over `$ thousands`, `September 2024` over `thousands`)
    is fully mentioned, named by its head alone (`_unique_heads`: `corn` for `Corn for grain`) or, a
    class, by its interval (`15 to 24` for `15 to 24 years`),
    with the label's position in the question; of lines with the same label (`Sep 30, 2021` under
    `Three Months Ended` and under `Nine Months Ended`), the best-scored one (the first on ties),
    and the one under a period the question names (`2024 > Men`, not `2022 > Men`)."""
    best: dict[str, tuple[Node, Line]] = {}
    spoken: dict[str, str] = {}
    heads = _unique_heads(lines)
    worded = intervals.worded(g.q)
    title = set(label_tokens(g.graph.table.title or ""))  # an acronym of the title's measure (`GWP` over
    # `Gross written premiums by line of business`) names what is summed, not an operand
    alone = Counter(ln.parent_ids for ln in lines)  # a line's own unit no sibling differs by
    for ln in lines:  # under a period (`thousands` under `September 2024`, not `$000s` beside `$/oz`,
        # nor `millions of dollars` over five years beside `percentage change`) names nothing
        lab = next((n for n in reversed(ln.path) if not ((_amount_unit(n.text) and g.mention(n) >= 0.99) or (
            parse_unit(n.text) is not None and alone[ln.parent_ids] == 1 and len(ln.path) > 1
            and is_period_label(ln.path[-2].text) and len(n.cols if ln.axis == "col" else n.rows) == 1))),
                   ln.label)
        if lab is None or (g.mention(lab) < 0.99 and not (said_by_acronym(g, lab) and not set(
                label_tokens(lab.text)) <= title) and not (
                lab.id in heads and phrase_spans(g.qnorm, heads[lab.id])) and not (
                (iv := intervals.interval(lab.text)) is not None and iv in worded)):  # `15 to 24`
            continue  # names the class `15 to 24 years`
        dated = _dated_quarter(ln)  # `Q4` under `2024` is Q4 2024: named only with that year
        if dated is not None and g.q_year_quarters and dated not in g.q_year_quarters:
            continue
        period = next((n for n in reversed(ln.path[:-1]) if period_end(n.text, spans=True) is not None
                       and g.mention(n) >= 0.99), None)  # `Battery storage` under `2022` and `2023`
        key = f"{normalise_text(g.head(lab.text))} {normalise_text(period.text if period else '')}".strip()
        # without its unit: `passengers (thousands)` is
        if key not in best or g.line_score(ln) > g.line_score(best[key][1]):  # said inside `revenue
            best[key] = (lab, ln, period)  # passenger miles`
            if lab.id in heads:  # said by its head alone too (`the current portion` of `Current
                spoken[key] = heads[lab.id]  # portion of long-term debt`)
    periods = [k for k in best if label_year(k) is None]
    dated = {normalise_text(g.head(lab.text)) for k, (lab, _, _) in best.items()
             if k != normalise_text(g.head(lab.text))}  # `Men` under the year said, not under another
    out = sorted(((question_position(g, lab), ln, k, -1 if period is None else question_position(g, period))
                  for k, (lab, ln, period) in best.items()
                  if not _within_a_period(k, periods) and k not in dated), key=lambda x: (x[0], x[3]))
    # (one label under two periods, `2022 > Cases` and `2021 > Cases`: in the order said)
    # drop labels the question says only inside a longer mentioned label: one holding their text, or
    # all their words when the question quotes it ("revenue" inside "cargo revenue", "net income"
    # inside "net interest income"; not in "percentage of revenue was cost of revenue")
    keys = [k for _, _, k, _ in out]
    held = {k: set(label_tokens(k)) for k in keys}
    named = {k: alias if (alias := alias_of(best[k][0].text)) and g.said_alias(best[k][0].text)
             and not phrase_spans(g.qnorm, k) else k for k in keys}  # `(LULUCF)` said as `LULUCF`
    return [(pos, ln) for pos, ln, k, _ in out if not compose.said_only_inside(g.qnorm, named[k], [
        said for o in keys if k != o and (re.search(rf"(?<!\w){re.escape(named[k])}(?!\w)", o)  # `men`
                                          or (held[k] < held[o] and phrase_spans(g.qnorm, o)))
        for said in (o, spoken.get(o, o))])]
    # is not in `women`; a longer label said by its head is said there (`long-term debt` beside `the
    # current portion`); a name said only inside another label is none (`excluding LULUCF` of `Total
    # (excluding LULUCF)`)


def _dated_quarter(line: Line) -> tuple[str, str] | None:
    """(year, quarter) of a line labelled by a quarter alone (`Q4`) under a year (`2024`)."""
    quarters = asked_periods(normalise_text(line.label.text)) if line.label is not None else frozenset()
    year = next((y for n in reversed(line.path[:-1]) if (y := label_year(n.text)) is not None), None)
    if len(quarters) != 1 or year is None or not re.fullmatch(r"q[1-4]", q := next(iter(quarters))):
        return None
    return year, q[1]


def _amount_unit(text: str) -> bool:
    """The label is a unit of amounts (`$ thousands`, `kWh`), not a count or a percentage."""
    return parse_unit(text) not in (None, "number", "percent")


_QUALIFIED = re.compile(r"^([^,(]+?)(?:\s*,\s*|\s+for\s+|\s*\(|\s+of\s+|\s+(?:paid|received|declared)$)")
"""A label's head before its qualifier (`Wheat, all`, `Corn for grain`, `Ontario (ON)`, `Repurchases
of common stock`, `Dividends paid`)."""


def _unique_heads(lines: list[Line]) -> dict[int, str]:
    """By label node: the head of a qualified label (`corn` of `Corn for grain`) when no other
    line's label says its words and it is no total (`Total, all industries`)."""
    heads: dict[int, str] = {}
    for ln in lines:
        m = _QUALIFIED.match(normalise_text(ln.label.text)) if ln.label is not None else None
        if m and ln.label is not None and not is_aggregate(ln) and label_tokens(m.group(1)) and not (
                m.group(0).endswith(" of ") and ops.is_measure_label(m.group(1))):  # no `Number of …`
            heads[ln.label.id] = m.group(1).strip()
    said = [set(label_tokens(ln.label.text)) for ln in lines if ln.label is not None]
    return {nid: head for nid, head in heads.items()
            if sum(set(label_tokens(head)) <= toks for toks in said) == 1}


def _across(g: Grounder, op: ops.Op, lines: list[Line]) -> Line:
    """The line the operands are read along: the best-grounded one, except that a share is read on
    the best line that is no percentages, and for a sum a total line named only by a sum word gives
    way to the best line the question names otherwise (`the total software revenue in Q1 and Q2`:
    Software; `total revenue in Q1 and Q2`: Total)."""
    ranked = [ln for _, ln in g.best(lines)]
    if op == "percent_of":  # a share is computed from counts, not from a line of percentages
        return next((ln for ln in ranked if not percentages([ln], [])), ranked[0])
    if op != "sum":
        return ranked[0]
    words = stems(tuple(ops.SUM_WORDS))
    return next((ln for ln in ranked if g.line_words(ln) - words), ranked[0]) if (
        is_aggregate(ranked[0]) and g.line_words(ranked[0]) <= words) else ranked[0]


def _in_every_group(g: Grounder, lines: list[Line]) -> list[Line] | None:
    """`total gross premiums written in 2023` over `Personal lines | 2023` and `Commercial lines |
    2023`: the lines of the one label the question names, one in every group of the axis, when the
    question names no group and the axis has no total (`Both sexes`, `Total seats` is looked up)."""
    named: dict[str, list[Line]] = {}
    for ln in lines:
        if ln.label is not None and len(ln.path) >= 2 and g.mention(ln.label) >= 0.99:
            named.setdefault(normalise_text(ln.label.text), []).append(ln)
    if len(named) != 1:
        return None
    (members,) = named.values()
    groups = {ln.path[-2].id: ln.path[-2] for ln in lines if len(ln.path) >= 2}
    in_groups = [ln.path[-2].id for ln in members]  # one line in each group, every group once
    if len(members) < 2 or sorted(in_groups) != sorted(groups) or any(is_aggregate(ln) for ln in lines):
        return None
    if any(g.matched(n) or is_aggregate_label(n) for n in groups.values()):
        return None
    if any(parse_unit(n.text) or price_base(n.text) for n in groups.values()):
        return None  # `current $millions` and `constant 2009 $millions` show the same figures twice
    return members


def _within_a_period(label: str, periods: list[str]) -> bool:
    """A year label (`FY 2022`) whose year the question says only inside shorter periods it also
    names (`from Q1 2022 to Q4 2022`): the year is theirs, not the whole year's."""
    year = label_year(label)
    return year is not None and any(re.search(rf"\b{year}\b", p) for p in periods)


def solve_multi(g: Grounder, op: ops.Op) -> Plan | None:
    """Arithmetic over several cells: ≥ 2 mentioned lines on one axis × the best line on the other.

    With a single mentioned line, `average` (over a span: `_over_a_span`) and an explicit `sum` run
    over every non-aggregate member of the other axis instead. A comparison (`rate of A lower than
    that of B`) grounds its two operands first (`compose.operand_pair`: labels at any level, the most
    specific on ties).
    """
    if op == "diff" and ops.asks_comparison_amount(g.q):
        plan = _solve_indirect(g, op)
        if plan is not None:
            return plan
    for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols)):
        ranged = label_range(g, lines) if op in ("sum", "average") else []
        if ranged:  # `G6 through G10`: the grades between too
            plan = _composable(g, op, axis, ranged, _across(g, op, other))
            if plan is not None:
                return plan
        mentioned = _mentioned_lines(g, lines)
        grouped = _in_every_group(g, lines) if op == "sum" and len(mentioned) < 2 else None
        if grouped is not None:
            fixed = _across(g, op, other)
            plan = _composable(g, op, axis, grouped, fixed) if _additive(g, axis, grouped, fixed) else None
            if plan is not None:
                return plan
        kept = [m for m in mentioned if not gives_change(m[1])]  # the change computed is no operand
        if op in ("diff", "growth", "cagr") and len(kept) >= 2:  # (`Change` named by `change from …`)
            mentioned = kept
        outer = _outer_total(g, lines, mentioned[0][1]) if op == "percent_of" and len(mentioned) == 1 else []
        if op == "percent_of" and len(mentioned) == 1:
            mentioned += [(len(g.q), ln) for ln in (_whole_beside(g, lines, mentioned[0][1]) or outer)]
        if len(mentioned) < 2:
            continue
        chosen = [ln for _, ln in mentioned]
        if op in ("diff", "growth", "cagr") and g.spans_years and line_year(chosen[0]) is None:
            continue  # `renter households from 2019 to 2021`: the years are the operands (not the
            # lines `All households` and `Renter` the words name)
        if op in ("diff", "ratio", "percent_of", "growth", "cagr"):
            if op == "diff" and len(chosen) > 2:
                chosen = _said_around_minus(g, chosen)
            chosen = chosen[:2]
            later_first = op in ("diff", "growth", "cagr") and _from_to(g.q) and not (
                op == "diff" and ops.asks_decrease(g.q))  # how much X fell from A to B: A − B
            if later_first or (op == "diff" and ops.comparison_is_less(g.q)):
                chosen = chosen[::-1]
            years = [_year_named(ln) for ln in chosen]
            if op in ("diff", "growth") and _from_to(g.q) and all(years) and years[0] != years[1]:
                chosen = sorted(chosen, key=lambda ln: _year_named(ln) or "", reverse=later_first)
                # `Population, 2021` before `Population, 2016`: their years order a change
            dates = [label_date(ln.label.text) if ln.label else None for ln in chosen]
            if op == "diff" and not _from_to(g.q) and ASKS_CHANGE.search(g.qnorm) and (
                    dates[0] is not None and dates[1] is not None and dates[0] != dates[1]):
                # `change during 2024` between `At 1 January 2024` and `At 31 December 2024`: the
                chosen = chosen[::-1] if dates[0] < dates[1] else chosen  # later less the earlier
            if op == "diff":  # `(revised minus adopted)` says the order outright
                chosen = _minus_order(g, chosen)
            if op == "ratio":  # `appropriation per budgeted FTE position`: the one after `per` divides
                chosen = _per_order(g, chosen)
            if op == "cagr":  # from the earlier year to the later, however the question orders them
                chosen = sorted(chosen, key=lambda ln: line_year(ln) or "", reverse=True)
            if op == "percent_of":
                whole = {t for t in label_tokens(ops.share_whole(g.q) or "") if not YEAR.fullmatch(t)}
                if ops.AS_A_SHARE.search(g.q) and whole and not any(
                        ln.label is not None and whole & set(label_tokens(ln.label.text)) for ln in chosen):
                    continue  # `average GERD as a share of GDP over 2018–2020`: no line is that whole
                if ops.AS_A_SHARE.search(g.q) and whole:  # `X as a percentage of Y` names both: the
                    chosen = sorted(chosen, key=lambda ln: len(whole & set(label_tokens(  # whole is
                        ln.label.text if ln.label else ""))))  # the line Y names, last
                elif len(inside := _said_of_whole(g, chosen)) == 1:  # `of all job vacancies in
                    chosen = [ln for ln in chosen if ln is not inside[0]] + inside  # Canada … were in Quebec`
                elif not any(is_aggregate(ln) for ln in chosen):
                    continue  # "what percent of X were Y" without a total is usually a lookup
                elif is_aggregate(chosen[0]) and chosen[1:] != outer:  # (a group's subtotal is a part of
                    chosen = chosen[::-1]  # the outer total)
        elif op == "sum" and not (joined(g) or _total_over_span(g.q, chosen)):
            continue
        elif op == "sum":  # a line labelled `Total` alone is no part of a sum: `total` asked the sum
            chosen = [ln for ln in chosen  # nor a subtotal beside its own parts (`Subtotal, income
                      if not (ln.label and set(label_tokens(ln.label.text)) <= AGGREGATE_STEMS)  # taxes`)
                      and not (is_aggregate(ln) and len(ln.path) > 1 and any(  # in one section
                          _siblings(o, ln) and not is_aggregate(o) for o in chosen))
                      and not any(ln.label is not None and ln.label in o.path[:-1] for o in chosen)]
            # nor a parent line over the parts summed (`Investment income` over `Direct investment`)
            if len(chosen) < 2:
                continue
        ends = [ln for ln in chosen if ln.label is not None and label_month(ln.label.text) is not None]
        if op in ("average", "sum") and said_span(g.q) and (len(chosen) == 2 or len(ends) == 2):
            chosen = _years_between(lines, *(chosen if len(chosen) == 2 else ends))  # `Jul–Dec 2024`
            # beside `FY2024 Fcst`: the months between
        plan = _composable(g, op, axis, chosen, _across(g, op, other))
        if plan is not None:
            return plan
    plan = _solve_indirect(g, op) or (_over_the_previous_year(g, op) or _against_prior_column(g, op)
                                      if op in ("diff", "growth") else None)
    if plan is not None:
        return plan
    category = g.category_rows if op in ("sum", "average") else None
    if category is not None and len(category[1]) >= 2:  # `the total budget of the projects that are
        fixed = g.best(g.cols)[0][1]  # in progress`: over the rows whose `Status` says so
        if op == "average" or _additive(g, "row", category[1], fixed):
            return compute_plan(g, op, "row", category[1], fixed)
    plan = _over_every_member(g, op)
    if plan is not None:
        return plan
    every = EVERY_PERIOD.search(g.qnorm)
    _, best_row = g.best(g.rows)[0]
    _, best_col = g.best(g.cols)[0]
    own = {w for n in best_row.path + best_col.path for w in ops.words(n.text)}
    summed = (set(ops.words(g.q)) & {"sum", "combined", "altogether"}) - own  # not `Combined ratio`
    year_parts = _whole_year_asked(g) is not None and bool(
        _parts_of_year(g, g.rows) or _parts_of_year(g, g.cols))
    sides = ((best_col, "row", g.rows), (best_row, "col", g.cols))
    grouped = [side for side in sides if named_group_in(g, side[2])]
    if op == "average" or (op == "sum" and (summed or every or year_parts or grouped)):  # `total … for
        # full-year 2023`: its quarters; `total admissions across the Women & Children departments`
        named = [(fixed, axis, members) for fixed, axis, members in sides
                 if op == "average" and _per_member(g, axis, [ln for ln in members if not is_aggregate(ln)])]
        spans = [(fixed, axis, within) for fixed, axis, members in sides
                 if (within := _parts_of_year(g, members))]
        periodic = [side for side in sides if every and _periods(side[2])]
        by_group = False
        if len(named) == 1:  # `per department`: over the rows the noun names, whatever the best line
            fixed, axis, members = named[0]
        elif len(grouped) == 1:  # `the Prairie provinces altogether`: the rows under that label
            fixed, axis, members = grouped[0]
            by_group = True
        elif len(spans) == 1:  # `over the four quarters of 2023`: the quarters under `2023`
            fixed, axis, members = spans[0]
        elif len(periodic) == 1:  # `over the four quarters shown`: the side of periods
            fixed, axis, members = periodic[0]
        elif g.line_score(best_row) >= g.line_score(best_col):
            fixed, axis, members = best_row, "col", g.cols
        else:
            fixed, axis, members = best_col, "row", g.rows
        # `the allocation funds combined`: the lines under `Allocation`; a line over others is their
        # whole (`Province` over its indented regions)
        members = under_named_group(g, _without_parents([ln for ln in members if not is_aggregate(ln)]))
        # `over the four quarters shown`: the periods beside the best line (`Number of Sales`)
        best = best_col if axis == "col" else best_row
        members = _beside_best(members, best, every.group(1) if every else None, op)
        members = _same_measure(g, members, best)
        count = every.group(1) if every else None
        if count is not None and count != "all":  # `over the six months`: the months (not `H1 Actual`)
            members = _periods_counted(g, members, int(CARDINALS.get(count, count)))
        counted = count is not None and count != "all" and int(CARDINALS.get(count, count)) == len(members)
        if (op == "average" or every) and not (_over_a_span(g, members) or len(spans) == 1 or counted or (
                op == "average" and (by_group or _per_member(g, axis, members)))):
            return None  # `across the four weekends`: as many periods as said, whatever their labels
        if op == "sum" and not _additive(g, axis, members, fixed, titled=not every):
            return None
        if count and count != "all" and not counted:
            return None  # `the last three years` of a table showing five: not guessed
        return _composable(g, op, axis, members, fixed)
    return None


def _periods_counted(g: Grounder, lines: list[Line], count: int) -> list[Line]:
    """Of lines beside other columns (`Jul` … `Dec` beside `H1 Actual`, `H1 Budget`), the period
    lines of one kind (months, or years) when as many as the question counts, months of the years it
    names first (`the four 2023 waves` of eight); else `lines`."""
    months = [(ln, month) for ln in lines if (month := _month_of(ln)) is not None]
    kinds = ([ln for ln, (year, _) in months if str(year) in g.q_years], [ln for ln, _ in months],
             [ln for ln in lines if ln.label is not None and is_year_text(ln.label.text)])
    return next((kind for kind in kinds if len(kind) == count), lines)


def _without_parents(lines: list[Line]) -> list[Line]:
    """The lines but those whose label heads others of them (`Province` over `Northern`, `Central`, …):
    a whole is no member beside its parts."""
    heads = {n.id for ln in lines for n in ln.path[:-1]}
    return [ln for ln in lines if ln.label is None or ln.label.id not in heads] or lines


def asks_minus(g: Grounder) -> bool:
    """`A minus B`, `(A less B)`: a difference asked outright, unless the words quote a label of the
    table (`the unadjusted core index (all items less food and energy)`)."""
    m = ops.MINUS.search(g.qnorm)
    if m is None:
        return False
    said = m.group(0)
    labels = {normalise_text(n.text).strip() for ln in g.rows + g.cols for n in ln.path}
    return not any(re.search(r"\b(?:less|minus)\b", t) and t in said for t in labels)


def _per_order(g: Grounder, chosen: list[Line]) -> list[Line]:
    """Two operands of a rate with the one named after `per` last (`the recommended appropriation per
    budgeted FTE position`: `Budgeted Positions (FTE)` divides), wherever else the question says them."""
    m = re.search(r"\bper\s+(?!cent\b|capita\b|\d)([^,;?]+)", g.qnorm)
    if m is None or len(chosen) != 2:
        return chosen
    after = set(label_tokens(m.group(1)))
    words = [{t for n in ln.path for t in label_tokens(n.text)} for ln in chosen]
    named = [bool((mine - other) & after) for mine, other in (words, words[::-1])]
    return chosen[::-1] if named == [True, False] else chosen


def _said_around_minus(g: Grounder, chosen: list[Line]) -> list[Line]:
    """Of more than two lines named, the two said around a `minus` (`CASM minus CASM excluding
    fuel`, not `Available seat miles (ASMs)` of `cents per ASM` before), when there are two."""
    m = _MINUS_SIDES.search(g.qnorm)
    said = [ln for ln in chosen if m is not None and ln.label is not None and (
        phrase_spans(m.group(0), normalise_text(ln.label.text))
        or (g.said_alias(ln.label.text) and alias_position(ln.label.text, m.group(0)) >= 0))]
    return said if len(said) == 2 else chosen


_MINUS_SIDES = re.compile(r"([^(),;?]*)\bminus\b([^(),;?]*)")
"""`A minus B` up to the punctuation around it."""


def _minus_order(g: Grounder, chosen: list[Line]) -> list[Line]:
    """Two operands in the order a `minus` between them says (`… revision … relative to the adopted
    budget (revised minus adopted)`: `Revised` first, wherever else the question says them)."""
    m = _MINUS_SIDES.search(g.qnorm)
    if m is None or len(chosen) != 2:
        return chosen
    before, after = (set(label_tokens(side)) for side in m.groups())

    def side(ln: Line) -> int:
        own = set(label_tokens(ln.label.text)) if ln.label is not None else set()
        return 0 if own & before and not own & after else 1 if own & after and not own & before else -1

    sides = [side(ln) for ln in chosen]
    return chosen[::-1] if sides == [1, 0] else chosen


def _whole_beside(g: Grounder, lines: list[Line], part: Line) -> list[Line]:
    """The sibling of a share's one mentioned line that what the question says of the whole names
    whole (`what percentage of employed men worked part time`: `Employment` beside `Part-time
    employment`, whose words hold it), when there is one and that line is no part of the clause."""
    clause = set(label_tokens(ops.share_clause(g.q) or ""))
    if part.label is not None and set(label_tokens(part.label.text)) <= clause:
        return []  # `of the Capital Region's hotel nights`: the region qualifies the whole
    found = [ln for ln in lines if ln is not part and ln.parent_ids == part.parent_ids
             and ln.label is not None and not is_period_label(ln.label.text)  # (a period is no whole)
             and (words := set(label_tokens(ln.label.text))) and words <= clause]
    return found if len(found) == 1 else []


def _outer_total(g: Grounder, lines: list[Line], part: Line) -> list[Line]:
    """The one outermost total line of the part's axis when the question takes a share of the total
    and the part is a group's subtotal (`what share of total budgeted FY2024 spending goes to
    education`: `Education > Subtotal` of `Total expenditures`)."""
    if not _SHARE_OF_TOTAL.search(g.qnorm) or not (is_aggregate(part) and len(part.path) > 1):
        return []
    found = [ln for ln in lines if ln is not part and len(ln.path) == 1 and is_aggregate(ln)]
    return found if len(found) == 1 else []


_SHARE_OF_TOTAL = re.compile(
    r"\b(?:percent(?:age)?|share|proportion|fraction)\s+of\s+(?:the\s+)?(?:total|all|overall)\b")
"""A share taken of the total (`what share of total … spending`, `percentage of all employees`)."""


def _said_of_whole(g: Grounder, chosen: list[Line]) -> list[Line]:
    """Of a share's two lines, the one named whole in what the question says of the whole
    (`ops.share_clause`: `of all job vacancies in Canada`, `of employed men` → `Employment`, not
    `Part-time employment`) when the other is not."""
    if len(chosen) != 2 or any(ln.label is None or is_period_label(ln.label.text) for ln in chosen):
        return []  # (a period said of the whole dates it: `of all units produced in June 2024`)
    clause = set(label_tokens(ops.share_clause(g.q) or ""))
    inside = [ln for ln in chosen if ln.label and set(label_tokens(ln.label.text)) <= clause]
    return inside if len(inside) == 1 else []


def named_group_in(g: Grounder, lines: list[Line]) -> bool:
    """A group label the question names holds two or more of these lines' members
    (`under_named_group`): a heading of members (`Prairie provinces`, `Renewable` over its sources).
    Not a period (`2022–23` over its quarters: the year's own total is read), a line of its own
    (`Household final consumption expenditure` over its goods and services is the line asked, unless
    its parts are: `_PARTS_ASKED`), a group showing its own total (`Ajax` over its seasons and their
    `Total`), nor one over measures
    (`League > Apps | Goals`, the same labels again under `Cup`; `Exports > Value | Share of total
    (%)`); and none when the question names a total line whole (`Total program expenses`)."""
    grouped = under_named_group(g, lines)
    under = [ln for ln in grouped if not is_aggregate(ln)]
    members = [ln for ln in lines if not is_aggregate(ln)]
    if len(under) < len(grouped) or labels_recur(grouped, lines) or any(
            ln.label is None or ops.is_measure_label(ln.label.text) or percentages([ln], []) for ln in under):
        return False
    own = {ln.label.id for ln in lines if ln.label is not None} if not _PARTS_ASKED.search(g.qnorm) else set()
    return 2 <= len(under) < len(members) and not any(
        (is_period_label(n.text) and g.mention(n) > 0) or (n.id in own and said_whole(g, n))
        for n in under[0].path[:-1])


_PARTS_ASKED = re.compile(r"\bsub-?[a-z]{4,}|\b(?:listed|shown)\s+(?:under|below)\b|\bcomponents\s+of\b")
"""The parts under a group line are asked, not the line (`the shelter sub-components`, `the items
listed under Shelter`)."""


def _is_period(line: Line) -> bool:
    """The line's label is a year or a part of one (`2023 Q3`, `Mar`)."""
    text = line.label.text if line.label is not None else ""
    return bool(text) and (is_year_text(text) or _year_of_part(text) is not None)


def _periods(lines: list[Line]) -> bool:
    """Two lines at least are periods or under one (`Q1 2023 > Loans`)."""
    return sum(any(is_year_text(n.text) or _year_of_part(n.text) is not None for n in ln.path)
               for ln in lines) >= 2


def _siblings(a: Line, b: Line) -> bool:
    """Two lines under the same parent labels."""
    return a.index != b.index and a.parent_ids == b.parent_ids


def _beside_best(members: list[Line], best: Line, count: str | None, op: ops.Op) -> list[Line]:
    """`members`, or those under the same parent labels as `best` when an average's members sit
    under several (`Number of Sales` and `Median Sales Price` over the same quarters) or the
    question's count (`four`) is theirs rather than every member's."""
    siblings = [ln for ln in members if ln.index == best.index or _siblings(ln, best)]
    if count is not None and count != "all":
        n = int(CARDINALS.get(count, count))
        return siblings if n != len(members) and n == len(siblings) else members
    mixed = op == "average" and len({ln.parent_ids for ln in members}) > 1
    return siblings if mixed and len(siblings) >= 2 else members


def _same_measure(g: Grounder, members: list[Line], best: Line) -> list[Line]:
    """Of members under several parents each showing several measures (`FY2022 > Opened | Closed |
    Ending`, …), those showing the measure the question names on the best line (`how many stores
    opened across FY2022–FY2024`: `Opened` under each year)."""
    label = best.label
    if label is None or len(best.path) < 2 or _is_period(best) or g.mention(label, plain=True) < 0.99:
        return members
    same = [ln for ln in members if ln.label is not None
            and normalise_text(ln.label.text) == normalise_text(label.text)]
    return same if len(same) >= 2 and len({ln.parent_ids for ln in same}) == len(same) else members


def _parts_of_year(g: Grounder, lines: list[Line]) -> list[Line]:
    """The quarters or months under the one year the question names (`over the four quarters of
    2023`, `average delinquency rate over 2024`: the lines under `2023`, not the other years'), when
    there are two at least and the question names none of them (`in Q1 2024` asks one); else none."""
    if len(g.q_years) != 1:
        return []
    parts = [ln for ln in lines
             if ln.label is not None and (year := _year_of_part(ln.label.text)) is not None
             and (year in g.q_years or any(label_year(n.text) in g.q_years for n in ln.path[:-1]))]
    named = any(ln.label is not None and g.mention(ln.label) >= 0.99 for ln in parts)
    return parts if len(parts) >= 2 and not named else []


def _year_of_part(text: str) -> str | None:
    """For a quarter, half or month label (`Q1`, `Q1 2023`, `2nd quarter`, `H1`, `Mar`), the year it
    names with it, `""` when none; None for another label."""
    month = label_month(text)
    if month is not None:
        return month[1] or ""
    text = quarter_text(text)
    m = _QUARTER_LABEL.match(normalise_text(text)) or _YEAR_QUARTER.match(normalise_text(text))
    return None if m is None else m.group(1) or ""


_YEAR_QUARTER = re.compile(r"^((?:19|20)\d\d)[\s/-]*(?:q[1-4]|h[12])$")
"""A quarter or half written after its year (`2023 Q3`)."""
_QUARTER_LABEL = re.compile(r"^(?:q[1-4]|[1-4](?:st|nd|rd|th)?\s+(?:quarter|qtr)"
                            r"|(?:first|second|third|fourth)\s+quarter|h[12])(?:[\s,/-]+((?:19|20)\d\d))?$")


_EVERY_MEMBER = re.compile(
    r"\b(?:across|over|for|of)\s+(all\s+|each\s+of\s+)?(?:the\s+)?(?:(?:listed|reported|selected)\s+)?"
    rf"(?:({'|'.join(CARDINALS)}|\d+)\s+)?(?:listed\s+)?(?:([a-z-]+)\s+)??([a-z]+s)\b")
"""`across all eight hospitals`, `over all the listed CMAs`, `across all cohorts`, `across the four
major utilities`: every member the plural names, or those of the section its word names (a count
must be theirs; without `all` one is said)."""


def _over_every_member(g: Grounder, op: ops.Op) -> Plan | None:
    """A sum or an average over every member of the axis the question's plural names (`the total
    discharges across all eight hospitals`: the rows under `Hospital`), on the best-grounded line of
    the other axis; not over periods (`EVERY_PERIOD`), nor when a count differs from the members'."""
    m = _EVERY_MEMBER.search(g.qnorm)
    if op not in ("sum", "average") or m is None:
        return None
    every, count, section, plural = m.groups()
    if every and section and not count:  # `all senior notes`: the lines whose labels say so
        return _over_labelled(g, op, f"{section} {plural}")
    if not (every or count) or (section and not count):  # a word before the plural is a section said
        return None  # with the count (`the four major utilities`)
    stem = next(iter(label_tokens(plural)), None)
    sides = [(axis, lines, other) for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows))
             if stem is not None and len(lines) > 1 and names_members(g, axis, lines, stem)]
    if len(sides) != 1:
        return None
    axis, lines, other = sides[0]
    members = [ln for ln in lines if not is_aggregate(ln)]
    within = [ln for ln in members if section and any(  # `the four major utilities`: those under
        section in label_words(n.text) for n in ln.path[:-1])]  # `Major utilities (100,000+ …)`
    grouped = [ln for ln in members if any(stem in label_tokens(n.text) for n in ln.path[:-1])]
    members = within or grouped or members  # `the four cities`: the lines under `Cities`
    if count and int(CARDINALS.get(count, count)) != len(members):
        return None  # `the three arms` of a table showing a total column too: not guessed
    fixed = g.best(other)[0][1]
    if op == "sum" and not _additive(g, axis, members, fixed, titled=False):
        return None
    return _composable(g, op, axis, members, fixed)


def _over_labelled(g: Grounder, op: ops.Op, phrase: str) -> Plan | None:
    """A sum or an average over the lines whose own labels hold every word of `phrase` (`the
    combined principal of all senior notes`: `3.250% Senior notes due 2025`, `4.125% Senior notes due
    2028`, …), two at least on one axis, on the best-grounded line of the other."""
    said = set(label_tokens(phrase))
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        members = [ln for ln in lines if not is_aggregate(ln)
                   and any(said <= set(label_tokens(n.text)) for n in ln.path)]
        if len(members) < 2:
            continue
        fixed = g.best(other)[0][1]
        if op == "sum" and not _additive(g, axis, members, fixed, titled=False):
            return None
        return _composable(g, op, axis, members, fixed)
    return None


def _over_the_previous_year(g: Grounder, op: ops.Op) -> Plan | None:
    """A change in one named year (`How much did cash increase in 2020?`, or the latest year when the
    question says `year over year` and names none; a quarter or month of it against the same one a
    year before) on a table that shows the year before beside it (same parent labels, or its own
    quarters) and has no change line of its own: the best-grounded line of that year
    against the previous year's (a decrease: the previous minus the year). Only when the question
    asks the amount of the change (`how much did … increase`, `what was the change in …`, `by what
    percentage did … increase`, `the growth rate of …`); `rose to` asks the level reached."""
    asks_amount = _CHANGE_AMOUNT.search(g.qnorm) or (op == "growth" and ops.asks_growth(g.q))
    years = g.q_years or (_latest_year(g) if _YEAR_BEFORE.search(g.qnorm) else frozenset())
    if len(years) != 1 or not asks_amount or _TO_LEVEL.search(g.qnorm) or _gives_asked_change(g):
        return None
    (year,) = years
    for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols)):
        fixed = g.best(other)[0][1]

        def holds_data(ln: Line, axis: str = axis, fixed: Line = fixed) -> bool:
            cell = value_cell(g.graph, ln, fixed) if axis == "row" else value_cell(g.graph, fixed, ln)
            return g.h.is_data(cell)

        dated = {ln.index: _dated(ln) for ln in lines}
        pairs = [(ln, prev) for ln in lines if dated[ln.index][0] == year and holds_data(ln) for prev in lines
                 if dated[prev.index] == (str(int(year) - 1), dated[ln.index][1]) and holds_data(prev)
                 and _undated_parents(prev) == _undated_parents(ln)]
        if not pairs:
            continue
        line, prev = max(pairs, key=lambda p: (g.line_score(p[0]), -p[0].index))
        chosen = [prev, line] if op == "diff" and ops.asks_decrease(g.q) else [line, prev]
        plan = compute_plan(g, op, axis, chosen, fixed)
        words = _composed_words(g, op)
        if plan is not None and words:
            bare = _without(g.q, words)
            if g.q_years:
                plan.parts = [re.sub(rf"\b{year}\b", dated[ln.index][0] or year, bare) for ln in chosen]
            else:  # `… year over year`: each year's lookup names its year
                bare = " ".join(_YEAR_BEFORE.sub(" ", bare).split()).rstrip(" ?.")
                plan.parts = [f"{bare} in {line_year(ln)}" for ln in chosen]
        return plan
    return None


def _undated_parents(line: Line) -> tuple[int, ...]:
    """The line's parent labels other than periods: a quarter's measure (`Vacancy rate > Q4 2023` is
    compared with `Vacancy rate > Q4 2022`, not `Asking rent > Q4 2022`), none for `2023 > Q4` or
    `September 28, 2024 > Amount`."""
    return tuple(n.id for n in line.path[:-1] if not is_period_label(n.text) and label_year(n.text) is None)


def _dated(line: Line) -> tuple[str | None, str | None]:
    """A line's year (a balance at a year's end too) and, for a quarter or month (`2023 > Q4`, `Q4
    2023`), the part of it: `Q4 2023` compares with `Q4 2022` (year over year)."""
    label = without_status(line.label.text) if line.label is not None else ""  # `Q4 (p)` is Q4
    part = _year_of_part(label)
    if part is None:  # a balance at a year's end (`Outstanding at December 31, 2023`) is of that year
        return line_year(line) or _year_end(label), None
    year = part or next((y for n in reversed(line.path[:-1]) if (y := label_year(n.text))), None)
    return year, " ".join(YEAR.sub(" ", normalise_text(label)).split())


def _year_end(label: str) -> str | None:
    """The year of a label dated December 31 (`Outstanding at December 31, 2023`)."""
    date = label_date(label)
    return date[0] if date is not None and date[1:] == (12, 31) else None


def _gives_asked_change(g: Grounder) -> bool:
    """Some line of the table gives the change asked: any change line, but a percent change line
    does not give the amount of a change (`how much did RPMs increase in 2023` beside
    `Increase/(Decrease)` in percent)."""
    absolute = asks_absolute_change(g)
    for lines, other in ((g.rows, g.cols), (g.cols, g.rows)):
        for ln in lines:
            if not own_change(ln):  # (not a line under a `Growth` section)
                continue
            cells = [value_cell(g.graph, ln, o) if ln.axis == "row" else value_cell(g.graph, o, ln)
                     for o in other]
            if not (absolute and percentages([ln], [c for c in cells if g.h.is_data(c)])):
                return True
    return False


def points_of_a_percent_change(g: Grounder) -> bool:
    """Points asked (`by how many index points did … rise`) where the best cell's change line is a
    percent change: the points are computed between the levels, not read as a percentage."""
    ranked = ranked_cells(g)
    return bool(ranked) and any(gives_change(ln) and g.points_of_percent(ln) for ln in ranked[0][1:])


_AMOUNT = re.compile(r"\bhow\s+(?:much|many)\b")


def asks_absolute_change(g: Grounder) -> bool:
    """The question asks how much or how many with no percent, rate or growth word: an amount."""
    return bool(_AMOUNT.search(g.qnorm)) and not {"percent", "rate"} & g.qtoks and not ops.asks_growth(g.q)


def _against_prior_column(g: Grounder, op: ops.Op) -> Plan | None:
    """A change against the prior year's column the question names (`grow over the prior year
    month`) beside the current figures' (`March 2024 > Actual | Budget | Prior Year`): the actual
    figure against the prior year's, when the question asks the change's amount or rate."""
    if not (_CHANGE_AMOUNT.search(g.qnorm) or (op == "growth" and ops.asks_growth(g.q))) or _TO_LEVEL.search(
            g.qnorm):
        return None
    for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols)):
        prior = [ln for _, ln in _mentioned_lines(g, lines)
                 if ln.label is not None and PRIOR_YEAR_LABEL.match(normalise_text(ln.label.text))]
        current = [ln for ln in lines if len(prior) == 1 and _siblings(ln, prior[0]) and ln.label is not None
                   and ACTUAL_LABEL.search(normalise_text(ln.label.text))]
        if len(current) == 1:
            pair = [current[0], prior[0]]
            chosen = pair[::-1] if op == "diff" and ops.asks_decrease(g.q) else pair
            return compute_plan(g, op, axis, chosen, g.best(other)[0][1])
    return None


_YEAR_BEFORE = re.compile(
    r"\b(?:year[- ]over[- ]year|y-?o-?y|y/y|a year (?:earlier|ago|before)"
    r"|(?:from|over|than|versus|vs\.?|compared (?:with|to)|against) (?:the )?"
    r"(?:previous|prior|preceding|last) year)\b")
"""A change over the year before said without naming the year (`year over year`, `compared with the
prior year`): it is the latest year the table shows against the one before."""


def _latest_year(g: Grounder) -> frozenset[str]:
    """The latest year a row or column of the table stands for, a quarter's or month's too (`Q4 2023`;
    none: empty)."""
    years = [y for ln in g.rows + g.cols if (y := _dated(ln)[0]) is not None]
    return frozenset({max(years)}) if years else frozenset()


_CHANGE_VERB = r"(?!differ)" + ASKS_CHANGE.pattern  # `the difference in X in 2020` compares groups
_CHANGE_AMOUNT = re.compile(
    rf"\bhow (?:much|many)\b.*\b{_CHANGE_VERB}"
    rf"|\b(?:the|what)(?: [\w%-]+){{0,3}}? {_CHANGE_VERB} (?:in|of|for)\b")  # `the revenue growth in`
_TO_LEVEL = re.compile(rf"\b{_CHANGE_VERB}\s+to\b")


_PER_MEMBER = re.compile(r"\b(?:per|across\s+(?:all\s+)?(?:the\s+)?(?:[a-z-]+\s+){0,2}?|of\s+(?:all\s+)?the)"
                         r"\s*([a-z]+)(?:\s+(?:in|for|during|as\s+of|at)\s+[^,;]+)?\s*\??$")
"""`the average budget per department`, `… across all questions`, `… across the equity funds`, `… per
department in December 2024`: the members averaged over (the question ends with them, or with the
period asked)."""


def _per_member(g: Grounder, axis: str, members: list[Line]) -> bool:
    """The question ends naming the members it averages over (`per department` over rows under a
    `Department` header) or names them after `each` (`On average, how many … did each of the light
    rail lines have`): their mean, not a statistic of the table's to read."""
    m = _PER_MEMBER.search(g.qnorm) or _EACH_MEMBER.search(g.qnorm)
    return m is not None and len(members) >= 2 and any(
        names_members(g, axis, members, st) for st in tokens(next(filter(None, m.groups()))))


_EACH_MEMBER = re.compile(r"\beach\s+of\s+(?:the|its|their|these|those)\s+((?:[a-z-]+\s+){0,3}[a-z]+)"
                          r"|\bdid\s+each\s+((?:[a-z-]+\s+){0,3}?[a-z]+)\s+(?:have|get|receive|spend|earn|record)\b"
                          r"|^\s*averaging\s+(?:over\s+|across\s+)?(?:the|all)\s+(?:\w+\s+)?((?:[a-z-]+\s+){0,2}?[a-z]+s)\b")
"""`each of the light rail lines`, `did each Corporate division department have`, `Averaging the five
age groups, …`: the members (a few words); not `the workers each enterprise hires` (a rate per
enterprise)."""


def names_span_ends(g: Grounder) -> bool:
    """The question says a span (`over 2019/20 through 2021/22`) whose two ends are period lines of
    one side, each named whole (marketing years, which name no one year)."""
    return said_span(g.q) and any(
        sum(ln.label is not None and is_period_label(ln.label.text) and g.mention(ln.label) >= 0.99
            for ln in lines) >= 2 for lines in (g.rows, g.cols))


def averages_members(g: Grounder) -> bool:
    """The question ends naming members of one side it averages over (`… across the equity funds`),
    whatever labels hold `average` (`Average annual total return`)."""
    return any(_per_member(g, axis, [ln for ln in lines if not is_aggregate(ln)])
               for axis, lines in (("row", g.rows), ("col", g.cols)))


def _over_a_span(g: Grounder, members: list[Line]) -> bool:
    """An average over every member runs over a span: one the question names (`from 2015 to 2017`),
    or every period the table shows when the question names none (`average revenue` on a statement
    of three years), or every month (quarter) of the year it names when it asks a monthly (quarterly)
    average (`average monthly passenger count … in 2024` over `January` … `December`). `average
    income` over groups is a statistic to read, not to compute."""
    if said_span(g.q) or (not g.q_years and bool(members) and all(map(_is_period, members))):
        return True
    every = _PERIODIC.search(g.qnorm)
    if every is None or len(members) < 2:
        return False
    kind = (lambda t: label_month(t) is not None) if every.group(1) == "monthly" else is_quarter_label
    years = {line_year(ln) for ln in members} - {None}
    return all(ln.label is not None and kind(ln.label.text) for ln in members) and years <= g.q_years


_PERIODIC = re.compile(r"\baverage\s+(monthly|quarterly)\b")
"""A monthly or quarterly average (`average monthly passenger count`): over the months (quarters)."""


def solve_classes(g: Grounder) -> Plan | None:
    """The sum over sibling classes that together make the interval the question words (`fewer than
    10 employees` over `1 to 4 employees` and `5 to 9 employees`; `aged 35 to 64` over three age
    groups; `the first quarter of 2024` over January to March, `the first half` over two quarters),
    on lines whose figures add up (`_additive`). None when one label names the interval (a lookup),
    the title words it (the population of the whole table: `household population aged 12 to 79`) or
    no classes make it. Each class is asked as a lookup of its own (`Plan.parts`)."""
    found = intervals.asked(g.q)
    if found is not None:
        if found[0] in intervals.worded(g.graph.table.title or ""):
            return None
        return _sum_of_classes(g, *found, intervals.interval, _asks_mean(g))
    said = period_phrases(g.qnorm)
    whole_year = _whole_year_asked(g)
    if whole_year is not None:
        months: intervals.Interval | None = (1, 12)
        said = [whole_year]
    elif len(g.q_periods) != 1 or len(said) != 1:
        return None
    else:
        months = PERIOD_MONTHS.get(next(iter(g.q_periods)))

    def months_of(text: str) -> intervals.Interval | None:
        """The months a month or period label covers (`March`, `Q2 2024`, `Three Months Ended June
        30`), within the year the question names."""
        named = label_month(text)
        if named is not None:
            return None if named[1] is not None and g.q_years and named[1] not in g.q_years else (
                named[0], named[0])
        periods = {p} if (p := interim_period(text)) else asked_periods(normalise_text(text))
        years = set(YEAR.findall(" ".join(label_tokens(text))))  # `Q1 FY24` is of 2024
        if len(periods) != 1 or (years and g.q_years and not years & g.q_years):
            return None
        return PERIOD_MONTHS.get(next(iter(periods)))
    mean = not ops.AVERAGE_WORDS.isdisjoint(ops.words(g.q))  # a period no line shows has no average of
    return None if months is None else _sum_of_classes(g, months, said[0], months_of, mean, periods=True)
    # its own (`the average gold price in the first quarter` beside a `2023 annual average` line)


_WHOLE_YEAR = re.compile(r"\b(?:total|full[- ]year|annual|whole year|fiscal|fy)(?:\b|(?=\d))")
"""Words naming a whole year: `total`, `annual`, `fiscal 2024`, `FY 2024`, `FY2024`."""


def _whole_year_asked(g: Grounder) -> str | None:
    """`total revenue for fiscal 2024` on a table of quarters with no line for that year: the words
    naming the year, whose months are the quarters' (a sum, worded as a total or a fiscal year).
    None when a total line sits among the periods (`Total` under quarterly repurchase programs)."""
    if len(g.q_years) != 1 or g.q_periods or g.q_months or not _WHOLE_YEAR.search(g.qnorm) or ops.asks_label(
            g.qnorm) or ops.counted_noun(g.q):  # `which quarter of FY24 …`, `how many quarters …`
        return None
    (year,) = g.q_years
    if any(line_year(ln) == year for ln in g.rows + g.cols) or any(
            any(is_aggregate(ln) for ln in lines) for lines in (g.rows, g.cols)
            if any(ln.label is not None and (is_interim_label(ln.label.text) or label_month(ln.label.text))
                   for ln in lines)):
        return None
    said = re.search(rf"\b(?:(?:fiscal|fy)\s*(?:year\s+)?)?{year}\b", g.q, re.IGNORECASE)
    return said.group(0) if said else None


PERIOD_MONTHS = {"q1": (1, 3), "q2": (4, 6), "q3": (7, 9), "q4": (10, 12), "h1": (1, 6), "9m": (1, 9)}
"""The months of each period `asked_periods` reads."""


def _sum_of_classes(g: Grounder, wanted: intervals.Interval, wording: str,
                    class_of: Callable[[str], intervals.Interval | None], mean: bool,
                    periods: bool = False) -> Plan | None:
    """The sum (the average when `mean`) over the sibling lines whose classes (`class_of` their own
    label) tile `wanted` (months or quarters when `periods`), under parents naming no other year than
    the question's."""
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        groups: dict[tuple[int, ...], list[tuple[intervals.Interval, Line]]] = {}
        for ln in lines:
            iv = class_of(ln.label.text) if ln.label is not None else None
            if iv is not None:
                groups.setdefault(ln.parent_ids, []).append((iv, ln))
        for parent, members in groups.items():
            above = " ".join(t for nid in parent for t in label_tokens(g.graph.node(nid).text))
            years = set(YEAR.findall(above))
            if years and g.q_years and not years & g.q_years:
                continue  # `Fiscal 2023 > First Quarter` … for a total of fiscal 2022
            tiles = intervals.tiling(wanted, members)
            if tiles is None:
                continue
            if len(tiles) == 1:
                return None
            fixed = g.best(other)[0][1]
            op: ops.Op = "average" if mean else "sum"  # `average monthly sales in the first half`
            if op == "sum" and not _additive(g, axis, [ln for _, ln in members], fixed, periods=periods):
                return None
            plan = compute_plan(g, op, axis, tiles, fixed)
            if plan is not None:  # each class asked by its label, with a parent naming its year
                said = re.compile(re.escape(wording), re.IGNORECASE)
                within = [g.graph.node(nid).text.strip() for nid in parent] if years else []
                plan.parts = [said.sub(" ".join([ln.label.text.strip(), *within]), g.q, count=1)  # type: ignore[union-attr]
                              for ln in tiles]
            return plan
    return None


def _asks_mean(g: Grounder) -> bool:
    """The question asks an average (`average monthly sales`) that no label of the table names."""
    return not ops.AVERAGE_WORDS.isdisjoint(ops.words(g.q)) and not labels_hold(g, ops.AVERAGE_WORDS)


def labels_hold(g: Grounder, wanted: frozenset[str]) -> bool:
    """Some header label of the table holds one of `wanted` (`national average`, `mean age`): the
    question's word names that line rather than asking for arithmetic."""
    return any(not wanted.isdisjoint(label_words(n.text)) for ln in g.rows + g.cols for n in ln.path)


DISTRIBUTION_TOLERANCE = 1.5
"""How far from 100 the percentages of every class may add up (rounding) to be one whole's parts."""


def _additive(g: Grounder, axis: str, members: list[Line], fixed: Line, titled: bool = True,
              periods: bool = False) -> bool:
    """The classes' figures on `fixed` add up: counts on lines and under a title (but for its `except`
    clause; not `titled`: the question asks the total in so many words) no word of a relative figure
    names (`units.RELATIVE_WORDS`: `Average income`, `Rate per 100,000`; over `periods`, an amount
    per share adds up: `Cash dividends declared per share` over a year's quarters), or percentages
    of one whole (every class together makes 100)."""
    nodes = [value_cell(g.graph, ln, fixed) if axis == "row" else value_cell(g.graph, fixed, ln)
             for ln in members]
    if percentages([fixed], nodes) or any(g.h.unit_for(n) == "percent" for n in nodes):
        nums = [num.value for n in nodes if (num := g.number(n)) is not None]
        return len(nums) == len(nodes) and abs(sum(nums) - 100) <= DISTRIBUTION_TOLERANCE
    units = [unit.split() for unit in map(g.h.unit_for, nodes) if unit]
    declared = any(unit[0] in CURRENCIES.values() or _COUNT_UNITS & set(unit) for unit in units)
    title = without_exemptions(g.graph.table.title or "") if titled and not declared else ""  # a title
    # naming other measures (`Net Interest Margin and Average Deposits`, `Job vacancies and job vacancy
    # rate`) says nothing of amounts of money or counts (`(number)`), nor one a line of the table
    # shows (`Note 14. Earnings Per Share` over share counts and its `Earnings per share:` lines)
    shown = {w for ln in g.rows + g.cols for n in ln.path for w in ops.words(n.text)}
    shown |= {w for kind in RELATIVE_KINDS if not shown.isdisjoint(kind) for w in kind}  # `incidence
    # rates` over a `Cases | Rate` header: the title describes the `Rate` line, not the cases
    texts = [n.text for ln in [fixed, *members] for n in ln.path]
    named = {w for text in texts for w in ops.words(text)} | (set(ops.words(title)) - shown)
    if periods and "share" in named:
        named -= {"per"}
    return named.isdisjoint(RELATIVE_WORDS)


_COUNT_UNITS = frozenset({"number", "persons"})
"""Units of counts (`(number)`, `thousands of persons`): their figures add up over classes."""


def solve_union(g: Grounder) -> Plan | None:
    """An amount for alternatives together (`either A or B`): the sum over the listed sibling items.

    The items (on the side whose listed items include the alternative after the last `or`) must
    include that alternative; None when a label the question names holds the `or` itself (`family
    member or acquaintance`).
    """
    alts = ops.alternatives(g.q)
    if not alts or any(" or " in f" {normalise_text(n.text)} " and g.mention(n) >= 0.99
                       for ln in g.rows + g.cols for n in ln.path):
        return None
    last = set(tokens(alts[-1]))
    sides = (("row", g.rows, g.cols), ("col", g.cols, g.rows))
    options = [(axis, items, other) for axis, lines, other in sides
               if len(items := listed_items(g, lines)) >= 2
               and any(last & set(tokens(n.text)) for n, _ in items)]
    if not options:
        return _union_of_options(g)
    axis, items, other = max(options, key=lambda o: len(o[1]))
    return compute_plan(g, "sum", axis, [ln for _, ln in items], g.best(other)[0][1])


UNION_MIN_MATCH = 0.3
"""Least Jaccard match of each alternative with its label when the labels are only paraphrased."""


def _union_of_options(g: Grounder) -> Plan | None:
    """Alternatives only paraphrased (`medium-sized centres or small metropolitan areas`): each one
    grounded like a pair option; they must be distinct sibling labels (one level, one parent)."""
    alts = ops.alternatives(g.q)
    if len(alts) < 2:
        return None
    shared = frozenset.intersection(*(frozenset(label_tokens(a)) for a in alts))
    best: tuple[float, str, list[Line], list[Line]] | None = None
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        found = [ground_option(g, a, lines, shared) for a in alts]
        if any(f is None or f[0] < UNION_MIN_MATCH for f in found):
            continue
        nodes = [f[1] for f in found]  # type: ignore[index]
        chosen = [f[2] for f in found]  # type: ignore[index]
        parents = {tuple(n.id for n in ln.path[:ln.path.index(node)])
                   for node, ln in zip(nodes, chosen, strict=True)}
        if len({n.id for n in nodes}) < len(nodes) or len(parents) != 1:
            continue
        score = sum(f[0] for f in found) / len(found)  # type: ignore[index]
        if best is None or score > best[0]:
            best = (score, axis, chosen, other)
    if best is None:
        return None
    _, axis, chosen, other = best
    return compute_plan(g, "sum", axis, chosen, g.best(other)[0][1])


def _solve_indirect(g: Grounder, op: ops.Op) -> Plan | None:
    """Two operands named at any header level (`compose`): a ratio, the part of a whole, a difference
    or the sum of two named groups."""
    if op == "percent_of":
        share = compose.part_and_whole(g)
        if share is None:
            return None
        plan = compute_plan(g, share[0], *share[1:])
        if plan is not None:
            plan.operation = op  # a share of its siblings together is a share
        return plan
    if op == "ratio" and not best_cell_names(g, ops.RATIO_PHRASES):
        grounded = compose.operand_pair(g)
    elif op == "diff" and ops.asks_comparison_amount(g.q) and not best_cell_names(g, ops.DIFF_PHRASES):
        grounded = compose.operand_pair(g)  # a table's own change/difference column is a lookup
        if grounded is not None and ops.comparison_is_less(g.q):
            axis, (first, second), fixed = grounded
            grounded = (axis, [second, first], fixed)
    elif op in ("diff", "growth", "cagr") and (_from_to(g.q) or _compared_change(g.q)) and not (
            best_cell_names(g, ops.DIFF_PHRASES) and not points_of_a_percent_change(g)):
        grounded = _span_of_year_groups(g, op)
        return None if grounded is None else _composable(g, op, *grounded)
    elif op == "diff" and (_DIFFERENCE_BETWEEN.search(g.qnorm) or asks_minus(g) or _LEAD.search(g.qnorm)
                           ) and not (
            best_cell_names(g, ops.DIFF_PHRASES)):  # groups named at an outer level (`Texas > Estimate`),
        grounded = compose.operand_pair(g)  # `receipts minus payments`
    elif op == "sum" and _COMBINED.search(g.qnorm) and " and " in g.qnorm:
        grounded = compose.operand_pair(g)  # `in Ontario and Quebec`: groups over `number | rate`
    else:
        return None
    return None if grounded is None else compute_plan(g, op, *grounded)


_LEAD = re.compile(r"\b(?:lead|margin)\s+over\b")
"""`Labour's lead over the Conservatives`: the first named less the second."""
_COMBINED = re.compile(r"\b(?:combined|altogether|together|sum)\b")
"""A sum asked outright (`total` alone names a table's own total line as often: `a total of adults in
provincial and territorial custody`)."""
_DIFFERENCE_BETWEEN = re.compile(
    r"^\s*(?:(?:what|how\s+\w+)(?:'s|\s+is|\s+was|\s+were|\s+are)?\s+)?(?:the\s+)?(?:\w+\s+)?"
    r"(?:difference|gap)\b"
    r".*\bbetween\b.+\band\b")
"""`what was the difference in mean income between California and Texas`: asked outright, the first
named operand minus the second (a difference said in passing, `there was no difference between …`,
is context of a lookup)."""


def _composable(g: Grounder, op: ops.Op, axis: str, chosen: list[Line], fixed: Line) -> Plan | None:
    """`compute_plan`, with one lookup per operand as its parts (`span_parts`) when the operands are
    the years the question names: a change from one to the other worded without percent, a
    percentage change (`growth`), an average or a total over them."""
    plan = compute_plan(g, op, axis, chosen, fixed)
    if plan is None or len(plan.answer_nodes) != len(chosen):
        return plan
    words = _composed_words(g, op)
    if words and (op in ("average", "sum", "cagr") or _from_to(g.q) or _COMPARED.search(g.q.lower())):
        plan.parts = span_parts(g.q, chosen, words)
    return plan


_COMPARED = re.compile(r"\b(?:19|20)\d\d\b\s*,?\s*(?:compared\s+(?:to|with)|versus|vs\.?)\s")
"""`in 2019 compared to 2018`, `2019 versus 2018`: the first year against the second."""


def _compared_change(q: str) -> bool:
    """`How much did operating income grow in 2024 versus 2023?`: a change between two years."""
    return bool(_COMPARED.search(q.lower())) and ops.has_phrase(q, ops.CHANGE_WORDS)


def _composed_words(g: Grounder, op: ops.Op) -> tuple[str, ...]:
    """The words that ask `op`, left out of its operand lookups; none when its result is not taken
    as right whenever its operands are: a change worded in percent may be relative (`diff`)."""
    if op == "diff" and ops.PERCENT_WORDING.search(g.q.lower()):
        return ()
    return _ASKED_BY.get(op, ())


def _span_of_year_groups(g: Grounder, op: ops.Op) -> tuple[str, list[Line], Line] | None:
    """`from 2016 to 2021` where the two years head groups of lines (`Males` under each): the named
    operands must be those years (or academic years: `2021/2022`), or two months when the question
    names no year but theirs (`from July to August`, `from July to December 2024` under `2024`); the
    later one's line first (a decrease: the earlier one's)."""
    later_first = not (op == "diff" and ops.asks_decrease(g.q))
    grounded = compose.operand_pair(g)
    if grounded is not None:
        axis, pair, fixed = grounded
        found = [next((int(y) for n in ln.path[:-1] if (y := _said_period(g, n.text)) is not None), None)
                 for ln in pair]
        years = [y for y in found if y is not None]
        if len(years) == 2 and years[0] != years[1]:
            return axis, sorted(pair, key=lambda ln: years[pair.index(ln)], reverse=later_first), fixed
        months = [m for ln in pair if (m := _month_of(ln)) is not None]
        in_year = {str(y) for y, _ in months} <= g.q_years  # `from July to December 2024` under `2024`
        if (not g.q_years or in_year) and len(months) == 2 and months[0] != months[1]:  # `from July to Aug`
            return axis, sorted(pair, key=lambda ln: months[pair.index(ln)], reverse=later_first), fixed
    return _year_lines(g, later_first)


def _said_period(g: Grounder, text: str) -> str | None:
    """The end year of a period label the question names: by that year, or as written (`between
    2021/22 and 2022/23`); the year of a quarter named with it (`Q3 2023`)."""
    end = period_end(text, spans=True)
    said = end is not None and ((end in g.q_years and end == period_end(text)) or phrase_spans(
        g.qnorm, normalise_text(text)))
    if end is None and (year := _year_of_part(text)) and asked_periods(normalise_text(text)) & g.q_periods:
        return year if any(y == year for y, _ in g.q_year_quarters) else None  # `from Q3 2023 to Q3 2024`
    return end if said else None


def _month_of(line: Line) -> tuple[int, int] | None:
    """(year or 0, month) of the month label heading a line (`July 2025` over `Calls Handled`; `Jul.`
    under `2024`)."""
    named = next((m for n in line.path if (m := label_month(n.text)) is not None), None)
    year = named[1] if named is not None else None
    year = year or next((y for n in line.path if (y := label_year(n.text)) is not None), None)
    return None if named is None else (int(year or 0), named[0])


def _year_lines(g: Grounder, later_first: bool) -> tuple[str, list[Line], Line] | None:
    """The lines of the two years a change spans (`spans_years`), the best-scored line of each year
    (`2019 > number` rather than `2019 > %` for `by how many`), across the best line of the other
    axis: the operands when the words name two lines of the other axis too (`renter households`
    names `Renter` and `All households`)."""
    if not g.spans_years or ops.asks_label(g.qnorm):  # `which …` asks a name, not the change
        return None
    for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols)):
        by_year: dict[str, Line] = {}
        for _, ln in g.best(lines):
            year = line_year(ln)
            if year is not None and year in g.q_years:
                by_year.setdefault(year, ln)
        if len(by_year) == 2:
            return axis, [by_year[y] for y in sorted(by_year, reverse=later_first)], g.best(other)[0][1]
    return None


def best_cell_names(g: Grounder, phrases: tuple[str, ...], own: bool = False) -> bool:
    """The best single cell's headers already name the operation (a `ratio` or `% change` column):
    a lookup; not a period label (`Fall 2022`), nor a change line over other years than asked (`%
    change 2021 to 2022` for the change from 2018 to 2022), nor a class's threshold (`two persons or
    more` compares nothing); with `own`, a change of the line's own (`grounding.own_change`: not a
    `Growth` section over `ARR (end of period)`)."""
    ranked = ranked_cells(g)
    if not ranked:
        return False
    _, row, col = ranked[0]
    labels = {t for ln in (row, col) if not (gives_change(ln) and g.spans_years and g.other_span(ln))
              and (not own or own_change(ln))
              for n in ln.path if label_year(n.text) is None  # `Fall 2022` is a term, not a decrease
              for t in label_tokens(ops.THRESHOLD.sub("", normalise_text(n.text)))}
    return bool(labels & stems(phrases))


def compute_plan(g: Grounder, op: ops.Op, axis: str, chosen: list[Line], fixed: Line,
                 sizes: bool = False) -> Plan | None:
    """`op` over the cells where the `chosen` lines cross `fixed`; `sizes`: the operands after the
    first count by their magnitude (`Capital expenditures (520)` is 520 spent), and the first too
    when its label names a cost or an expense; a compound growth rate (`chosen`: the later year's
    line first) runs over the years between."""
    periods = 1
    if op == "cagr":
        years = [line_year(ln) for ln in chosen]
        if len(years) != 2 or years[0] is None or years[1] is None or years[0] == years[1]:
            return None
        periods = abs(int(years[0]) - int(years[1]))
    nodes = [
        value_cell(g.graph, ln, fixed) if axis == "row" else value_cell(g.graph, fixed, ln) for ln in chosen
    ]
    nodes = [n for n in nodes if g.h.is_data(n)]
    nums = [num for n in nodes if (num := g.number(n)) is not None]
    if len(nodes) < 2 or len(nums) < len(nodes) or len({n.id for n in nodes}) < len(nodes):
        return None  # one cell twice (a merged area under two lines) is no operand pair
    if op == "sum" and sum(n.value for n in nums) > WHOLE_PERCENT and percentages([*chosen, fixed], nodes):
        return None
    part = sum(n.value for n in nums[:-1])
    if op == "percent_of" and abs(part) * 100 > abs(nums[-1].value) * WHOLE_PERCENT:
        return None  # parts larger than their whole: not a share's operands
    if op == "percent_of_all" and (sum(abs(n.value) for n in nums) <= 100 + len(nums)
                                   or percentages([*chosen, fixed], nodes) or _holds_whole(nums)):
        return None  # figures adding up to 100 at most (rounded) are shares already (`has | has not`),
        # and one that is the sum of the others is their whole, which no label says
    if op == "ratio" and _TIMES.search(g.q.lower()) and abs(nums[0].value) < abs(nums[-1].value):
        nodes, nums = nodes[::-1], nums[::-1]  # `how many times is A than B` is asked of the larger
    if all(n.value < 0 for n in nums) and (
            (op in ("diff", "growth") and names_a_size([*chosen, fixed]))
            or (op in ("sum", "average") and ops.asks_outflow(g.q))):  # how much was spent on …
        nums = [dataclasses.replace(n, value=-n.value) for n in nums]  # `(720)` cash used is 720 used
    if sizes:  # a cost shown negative (`Finance costs (310)`) is its size too: net of income, 225
        first = abs(nums[0].value) if _shown_negative(chosen[0]) else nums[0].value
        nums = [dataclasses.replace(n, value=first if i == 0 else abs(n.value)) for i, n in enumerate(nums)]
    if op == "diff" and len(nums) == 2 and nums[0].value < nums[1].value and ops.UNSIGNED_CHANGE.search(
            g.qnorm):
        nums = nums[::-1]  # `improved` by 2.5 points: the size of the change (operands keep their order)
    if op in ("percent_of", "ratio") and len(nums) == 2 and nums[0].value * nums[1].value < 0:
        nums = [dataclasses.replace(n, value=-n.value) if n.value < 0 and _shown_negative(ln) else n
                for n, ln in zip(nums, chosen, strict=True)]
    computed = ops.compute(op, nums, g.grouping, periods)
    if computed is None:
        return None
    if op == "growth" and computed.value < 0 and ops.asks_fall_size(g.q):  # a decrease of 35.9 %
        computed = ops.negated(computed)
    cov = g.coverage(*chosen, fixed)
    conf = min(0.9, 0.4 + 0.6 * cov)
    return Plan([computed.text], [n.id for n in nodes], headers_for(g, [*chosen, fixed]), op,
                round(conf, 3), f"{op} of {len(nodes)} cells along {axis}s", computed=computed,
                stats={"operands": float(len(nodes)), "operand_coverage": cov})


def _shown_negative(line: Line) -> bool:
    """The line's own label names an expense, a cost or liabilities (`[magnitudes]
    presented_negative` of the vocabulary file), which statements often show negative: a share or
    ratio of it against a positive figure is of its size (`(494)` of a profit of 2,055 is an
    effective tax rate of 24.0 %; current assets over `Total current liabilities (64,870)` a current
    ratio of 1.91)."""
    shown = stems(tuple(vocabulary()["magnitudes"]["presented_negative"]))
    return line.label is not None and bool(shown & set(label_tokens(line.label.text)))


_TIMES = re.compile(r"\bhow many times\b")
"""`how many times is A than B`: said of the larger of the two (74 of 75 such hitab_train answers
are at least 1)."""

WHOLE_PERCENT = 100.5
"""Percentages of one whole add up to at most 100 (with rounding), and a share is at most 100 %: a
larger sum or share is not what was asked."""


def _holds_whole(nums: list[ops.Num]) -> bool:
    """One of the figures is the sum of the others (within rounding): their whole."""
    total = sum(n.value for n in nums)
    return any(abs(2 * n.value - total) <= WHOLE_TOLERANCE * abs(n.value) for n in nums)


def percentages(lines: list[Line], nodes: list[Node]) -> bool:
    """The cells (on these lines) are percentages: shown with `%` or under a percent label or unit."""
    labels = [n for ln in lines for n in [*ln.path, *([ln.unit] if ln.unit else [])]]
    return any("%" in n.text for n in nodes) or any("percent" in label_tokens(n.text) for n in labels)


_SPAN = r"\bfrom\b.+\bto\b|\bbetween\b.+\band\b"
"""`from A to B`, `between A and B`."""
_PERIOD = re.compile(
    _SPAN + r"|(?:19|20)\d\d(?:/\d\d)?\s*(?:-|–|to|through)\s*(?:fy\s*|fiscal\s+)?(?:19|20)?\d\d\b")


def said_span(q: str) -> bool:
    """`from 2007 to 2017`, `between 2006 and 2016`, `2015-2019`, `FY2021–FY2024`, `over January to
    June`: a span of periods."""
    return bool(_PERIOD.search(q.lower())) or month_range(q) is not None


def _years_between(lines: list[Line], a: Line, b: Line) -> list[Line]:
    """Two year lines named as a period's ends → every year line from one to the other (same parent
    labels, totals left out), or every line of the same label under the years between
    (`FY2022 > Opened` to `FY2024 > Opened`); other lines are left as the two named."""
    lo, hi = sorted((a.index, b.index))
    if a.label and b.label and normalise_text(a.label.text) == normalise_text(b.label.text) and all(
            any(period_end(n.text) is not None for n in ln.path[:-1]) for ln in (a, b)):
        return [ln for ln in lines if lo <= ln.index <= hi and ln.label is not None and not is_aggregate(ln)
                and normalise_text(ln.label.text) == normalise_text(a.label.text)]
    if not (a.label and b.label and is_period_label(a.label.text) and is_period_label(b.label.text)):
        return [a, b]
    return [ln for ln in lines if lo <= ln.index <= hi and ln.parent_ids == a.parent_ids
            and ln.label is not None and is_period_label(ln.label.text) and not is_aggregate(ln)]


_RANGE_WORD = re.compile(r"\s(?:through|thru|to)\s|[-–]")


def label_range(g: Grounder, lines: list[Line]) -> list[Line]:
    """Two sibling lines of `lines` the question names as a range's ends by a whole label of each
    (`grades G6 through G10`, `G15 to G18`, `Tier 1–Tier 3`) → every line from one to the other
    under the same parent labels, totals left out; none unless three lines at least (two are a
    pair) and no change or ratio is asked (`from A to B`, `A to B ratio`). Period labels have their
    own span (`_years_between`)."""
    if not _RANGE_WORD.search(g.qnorm) or ops.has_phrase(g.q, ops.CHANGE_WORDS) or ops.has_phrase(
            g.q, ops.RATIO_PHRASES):
        return []
    said: dict[str, Line] = {}  # a label said whole → the line it sits on (a record's: `G6 | Analyst`)
    for ln in lines:
        for n in ln.path:
            text = normalise_text(n.text).strip()
            if on_line(ln, n) and text and text not in said and not is_period_label(text) and re.search(
                    rf"(?<![\w-]){re.escape(text)}(?![\w-])", g.qnorm):
                said[text] = ln
    for a, first in said.items():
        for b, last in said.items():
            ends = (rf"(?<![\w-]){re.escape(a)}\s*(?:{_RANGE_WORD.pattern})\s*(?:(?P<noun>[a-z]+)\s+)?"
                    rf"{re.escape(b)}(?![\w-])")  # `week 48 through week 51`: the noun said again
            m = re.search(ends, g.qnorm)
            if m is not None and m.group("noun") and not re.search(
                    rf"\b{m.group('noun')}\s+{re.escape(a)}(?![\w-])", g.qnorm):
                m = None
            if first.index != last.index and _sections(first) == _sections(last) and m is not None:
                lo, hi = sorted((first.index, last.index))
                members = [ln for ln in lines if lo <= ln.index <= hi and _sections(ln) == _sections(first)
                           and ln.label is not None and not is_aggregate(ln)]
                if len(members) >= 3:
                    return members
    return []


def _sections(line: Line) -> tuple[int, ...]:
    """The labels above the line (its sections), not those on it (a record's `G6 | Analyst`)."""
    return tuple(n.id for n in line.path if not on_line(line, n))


def names_label_range(g: Grounder) -> bool:
    """The question names a range of sibling lines by its ends (`label_range`)."""
    return any(label_range(g, lines) for lines in (g.rows, g.cols))


def _from_to(q: str) -> bool:
    """`… from A to B` / `between A and B` / `2013-2015` with change wording: the later value comes
    first (B − A)."""
    return said_span(q) and ops.has_phrase(q, ops.CHANGE_WORDS)


_FISCAL = r"(?:fiscal\s+(?:year\s+)?|fy\s*)?"
"""`fiscal 2021`, `fiscal year 2021`, `FY 2021`: a year said as a fiscal year."""


_ASKED_BY: dict[str, tuple[str, ...]] = {
    "diff": ops.CHANGE_WORDS, "growth": (*ops.CHANGE_WORDS, "percentage", "percent", "%"),
    "cagr": ("compound annual growth rate", "compounded annual growth rate", "compound growth rate", "cagr"),
    "average": ("average", "mean"), "sum": ("total", "sum of", "sum", "combined", "altogether"),
}
"""The words each composable operation is asked by (`_composed_words`)."""


def span_parts(q: str, operands: list[Line], words: tuple[str, ...]) -> list[str]:
    """Arithmetic over the years the question names, asked as one lookup per operand (each line's
    own label or a group above it names its year), in the order of `operands` and without the
    operation's `words` (`How much did net income change from 2018 to 2019?` → `How much did net
    income in 2019?`, `… in 2018?`; `the average revenue for 2018 and 2019` → `the revenue in
    2018`, …); none unless the operands are distinct years and the question names the first and the
    last as a span (`from A to B`, `between A and B`, `for A and B`, `A-B`, `B compared to A`, `B
    compared to the same period of A`).

    `solver` takes the result as right when every operand is. On hitab_train a change between two
    years was right 8 of 19 times (the ends' lesser probability averaged 0.37); worded in percent,
    0 of 13 (the gold was a relative change, a share of the change or a magnitude), so a change in
    percent composes only as a percentage change (`growth`)."""
    months = [label_month(ln.label.text) if ln.label is not None else None for ln in operands]
    if all(months):
        return _month_parts(q, months, words)  # type: ignore[arg-type]
    named = [_year_named(ln) for ln in operands]
    if any(y is None for y in named) or len(set(named)) != len(named):
        return []
    years = [y for y in named if y is not None]
    a, b = min(years), max(years)
    either = rf"{_FISCAL}\b(?:{a}|{b})\b"
    span = re.compile(
        rf"(?:\b(?:from|between|for|in)\s+)?(?:{_FISCAL}\b{a}\s*(?:to|and|through|-|–)\s*{_FISCAL}{b}\b"
        rf"|{either}\s*,?\s*(?:compared\s+(?:to|with)|versus|vs\.?)\s+(?:the\s+)?{_SAME_PERIOD}{either})",
        re.IGNORECASE)
    if not span.search(q):
        return []
    return [span.sub(f"in {y}", _without(q, words), count=1) for y in years]


def _year_named(line: Line) -> str | None:
    """The year of the line's innermost label that names one (`Population, 2021`, `2019 > %`); None
    when it names none or several."""
    found = next((found for n in reversed(line.path) if (found := YEAR.findall(n.text))), [])
    return found[0] if len(found) == 1 else None


def _month_parts(q: str, months: list[tuple[int, str | None]], words: tuple[str, ...]) -> list[str]:
    """`span_parts` over month lines (`from January to April` → `… in January?`, …, `… in April?`)."""
    if len(set(months)) != len(months):
        return []
    first, last = min(months, key=_month_key), max(months, key=_month_key)

    def said(month: int) -> str:
        name = MONTH_NAMES[month - 1]
        return rf"(?:{name}|{name[:3]}\.?)(?:\s*,?\s*'?\d{{2,4}})?"

    span = re.compile(rf"(?:\b(?:from|between|for|in)\s+)?\b{said(first[0])}\s*(?:to|and|through|-|–)\s*"
                      rf"{said(last[0])}(?!\w)", re.IGNORECASE)
    found = span.search(q)
    if not found:
        return []
    said_years = YEAR.findall(found.group(0))  # `from November to December 2024` on month rows
    common = said_years[0] if len(set(said_years)) == 1 else None  # under year columns: both in 2024
    return [span.sub(f"in {MONTH_NAMES[m - 1].capitalize()}" + (
        f" {y}" if y and y in q else f" {common}" if common and not y else ""), _without(q, words), count=1)
        for m, y in months]


def _month_key(month: tuple[int, str | None]) -> tuple[str, int]:
    return month[1] or "", month[0]


_SAME_PERIOD = r"(?:same\s+(?:period|quarter|months?|time)\s+(?:of|in)\s+)?"
"""`2021 compared to the same period of 2020` (quarterly and interim statements)."""


def _without(q: str, words: tuple[str, ...]) -> str:
    """`q` with `words` (and the space after each) left out."""
    return re.sub(rf"(?<!\w)(?:{'|'.join(map(re.escape, words))})(?!\w)\s*", "", q, flags=re.IGNORECASE)


def _total_over_span(q: str, chosen: list[Line]) -> bool:
    """`total … from 2019 to 2021` (`total` before the span) or `… from 2019 to 2021 in total` (the
    span ends the question) naming two period lines: the sum over the periods between."""
    return asks_total_over_span(q) and len(chosen) == 2 and all(
        ln.label is not None and is_period_label(ln.label.text) for ln in chosen)


def asks_total_over_span(q: str) -> bool:
    """`total … from A to B` or `… from A to B in total`: a sum over a span (`for Jul through Sep`)."""
    span = _PERIOD.search(q.lower()) or MONTH_RANGE.search(q.lower())
    return span is not None and (
        "total" in ops.words(q[:span.start()]) or bool(_IN_TOTAL.fullmatch(q.lower()[span.end():])))


_IN_TOTAL = re.compile(rf"\s*{_FISCAL}\d{{4}}\s+in\s+total\W*")


def joined(g: Grounder) -> bool:
    """An explicit aggregate over listed items: `sum`/`combined`/`altogether` (unless a label holds
    the word: `Combined ratio`), `plus` (unless inside a label the question quotes), or `total`,
    `together`, `totally` with an `and` that lists (not one inside a label the question quotes:
    `total enrolment in health and related fields`)."""
    labels = {normalise_text(n.text) for ln in g.rows + g.cols for n in ln.path}
    named = {w for text in labels for w in ops.words(text)}
    w = set(ops.words(g.q))
    if w & {"sum", "combined", "altogether"} - named:
        return True
    if "plus" in w and not any("plus" in ops.words(text) and phrase_spans(g.qnorm, text) for text in labels):
        return True  # `Fiber 1 Gig plus Fiber 500` beside `Unlimited Plus`
    listing = g.qnorm
    for text in labels:
        if " and " in text and phrase_spans(listing, text):
            listing = listing.replace(text, " ")
    return bool(w & {"total", "together", "totally"}) and "and" in ops.words(listing)


def stems(phrases: tuple[str, ...]) -> set[str]:
    return {t for p in phrases for w in p.split() for t in tokens(w)}
