"""Rankings: the label of the top/bottom member (argmax/argmin, top-k) and the choice between two
named options (`A or B`), compared on their values."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from celltrace.server.infra.retrieval import tokens
from celltrace.server.offline import compose
from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import (
    ASKS_CHANGE,
    YEAR,
    YEAR_SPAN_LABEL,
    YEARLY_CHANGE,
    Grounder,
    Plan,
    gives_change,
    headers_for,
    is_period_label,
    is_quarter_label,
    label_month,
    label_year,
    line_year,
    names_a_size,
)
from celltrace.server.offline.intervals import asked as asked_interval
from celltrace.server.offline.intervals import interval, is_age_label, whole_classes
from celltrace.server.offline.lexicon import (
    category_members,
    content_words,
    label_tokens,
    match_words,
    same_word,
)
from celltrace.server.offline.lines import (
    ACTUAL_LABEL,
    AGGREGATE_LABEL_WORDS,
    BENCHMARK_LABEL,
    VARIANCE_LABEL,
    Line,
    has_value,
    is_aggregate,
    is_aggregate_label,
    is_code,
    side_by_side,
    under_aggregate,
    value_cell,
)
from celltrace.shared.graph import Node, normalise_text
from celltrace.shared.graph import words as label_words
from celltrace.shared.headers import indent_of
from celltrace.shared.numbers import is_year_text
from celltrace.shared.numstyle import NumStyle
from celltrace.shared.units import SCALE_FACTORS, is_sample_size, label_unit


# ---- argmax / pair ------------------------------------------------------------------------------
def _pick_side(g: Grounder, noun: str | None = None) -> tuple[str, Line]:
    """The axis to rank or count over and the fixed line on the other axis: the axis the question's
    `which <noun>` (or the counted `noun` stem: `how many wards`) names (`_asked_axis`), else the one
    opposite the better-grounded side. Lines the question leaves out (`excluding the total`) take no
    part."""
    rows, cols = _kept(g, g.rows), _kept(g, g.cols)  # a line left out is neither ranked nor ranked on
    best_row = g.best(rows)[0]
    best_col = g.best(cols)[0]
    asked = _asked_axis(g, noun or g.asked_noun)
    if asked == "row" and len(rows) > 1:
        return "row", _varying(g, "row", cols)
    if asked == "col" and len(cols) > 1:
        return "col", _varying(g, "col", rows)
    tied_rows, tied_cols = _tied(g, rows, best_row[0]), _tied(g, cols, best_col[0])
    if tied_cols and not tied_rows:  # `lowest all-ages coverage in 2023-24`: the season under
        return "col", _varying(g, "col", rows)  # each region varies, the age group is fixed
    if tied_rows and not tied_cols:
        return "row", _varying(g, "row", cols)
    dated = _dated_side(g)  # `in 2023` fixes the year columns: the other side is ranked, unless the
    # year heads a line under each of several groups and the other side's line is named whole
    # (`which segment earned the highest operating income in FY2024`: the segments are ranked)
    if dated == "col" and len(rows) > 1:
        if _groups_of_year(g, cols, best_row[1]):
            return "col", _varying(g, "col", rows)
        return "row", _varying(g, "row", cols)
    if dated == "row" and len(cols) > 1:
        if _groups_of_year(g, rows, best_col[1]):
            return "row", _varying(g, "row", cols)
        return "col", _varying(g, "col", rows)
    whole_row, whole_col = _named_total(g, best_row[1]), _named_total(g, best_col[1])
    ranked = "row" if whole_col > whole_row else "col"  # a total named whole (`which segment had the
    # smallest total property expenses`, not a bare `Total` beside the segments) is what is compared,
    # never a member
    ranks, over = (rows, cols) if ranked == "row" else (cols, rows)
    if whole_row != whole_col and len(ranks) > 1 and ops.asks_ranked_label(g.q):
        return ranked, _varying(g, ranked, over)
    if len(cols) == 1 or (best_col[0] >= best_row[0] and len(rows) > 1):
        return "row", _varying(g, "row", cols)
    return "col", _varying(g, "col", rows)


def _named_total(g: Grounder, line: Line) -> int:
    """How many words of its label name `line` when it is a total the question names whole (`Total
    property expenses`: 3), else 0."""
    if line.label is None or not is_aggregate(line) or g.mention(line.label) < 0.99:
        return 0
    return len(label_tokens(line.label.text))


def _groups_of_year(g: Grounder, dated: list[Line], named: Line) -> bool:
    """The year the question names heads a line under each of several groups (`FY2024` under each
    segment) and `named`, a line of the other side, is named whole by a label of its path
    (`Operating income`; `Dock-to-stock time` beside its unit `hours`)."""
    years = [ln for ln in dated if ln.label is not None and len(ln.path) > 1
             and label_year(ln.label.text) in g.q_years]
    return len({ln.path[-2].id for ln in years}) >= 2 and max(map(g.mention, named.path), default=0.0) >= 0.99


def _dated_side(g: Grounder) -> str | None:
    """The one axis of year or month lines (two at least) one of which the question names, not as a
    bound (`after 2020` ranks the years after it)."""
    if _SINCE.search(g.qnorm) or _BEFORE.search(g.qnorm):
        return None

    def dated(line: Line) -> bool:
        return line.label is not None and is_period_label(line.label.text)

    def named(line: Line) -> bool:
        month = label_month(line.label.text) if line.label is not None else None
        if month is None:
            return line.label is not None and label_year(line.label.text) in g.q_years
        return month[0] in g.q_months

    found = [axis for axis, lines in (("row", g.rows), ("col", g.cols))
             if sum(map(dated, lines)) >= 2 and any(dated(ln) and named(ln) for ln in lines)]
    return found[0] if len(found) == 1 else None


def _tied(g: Grounder, lines: list[Line], best: float) -> bool:
    """Lines share the best score, under one parent (`Green Line B branch`, `… C branch` for `which
    Green Line branch`) or under different ones the question does not name (the same label under
    each group): what they differ by is what the question ranges over."""
    top = [ln for ln in lines if g.line_score(ln) >= best - 1e-9]
    if best <= 0.2 or len(top) < 2:
        return False
    parents = {tuple(ln.path[:-1]) for ln in top}
    if len(parents) == 1:  # named by the same words of their own labels, not by the parent's
        said = {frozenset(g.matched(ln.label)) if ln.label is not None else frozenset() for ln in top}
        return len(said) == 1 and bool(next(iter(said)))
    texts = [frozenset(normalise_text(n.text) for n in path) for path in parents]
    differ = frozenset().union(*texts) - texts[0].intersection(*texts[1:])  # the groups' own names,
    # none a whole
    if any(is_aggregate_label(n) for path in parents for n in path if normalise_text(n.text) in differ):
        return False  # (`Overall` beside `Men` and `Women` is what an unqualified question means)
    return not any(g.mention(n) > 0 and set(g.matched(n)) != {g.asked_noun}  # (`comparison group`
                   for path in parents for n in path if normalise_text(n.text) in differ)  # is no name)


VARYING_MARGIN = 0.05
"""How far below the best-grounded line another may score and still be ranked on instead of it."""


def _varying(g: Grounder, axis: str, fixed_lines: list[Line]) -> Line:
    """The best-grounded line to rank `axis` on, passing over one where every member shows the same
    figure (a `Total` column of 100 % beside the distribution's classes) for one nearly as well
    grounded where they differ. A change asked between two named years ranks on a line giving the
    change when there is one (`largest dollar increase in paid claims from FY2022 to FY2023` on
    `Change ($)`, not on `Paid FY2022`), as does one asked year over year (on `Y/Y`)."""
    ranked = g.best(fixed_lines)
    yearly = YEARLY_CHANGE.search(g.qnorm) is not None
    if ASKS_CHANGE.search(g.qnorm) and (len(g.q_years) == 2 or yearly):
        changes = [ln for _, ln in ranked if gives_change(ln)]
        said = [ln for ln in changes
                if yearly and any(YEARLY_CHANGE.search(normalise_text(n.text)) for n in ln.path)]
        if said or changes:  # (`declined the most year over year`: on `% Change > Y/Y`, not `Q/Q`)
            return (said or changes)[0]
    top, best = ranked[0]
    for score, line in ranked:
        if score < top - VARYING_MARGIN:
            break
        figures = [v for v, _, _ in member_values(g, axis, line)]
        if len(set(figures)) > 1 or (line is best and len(figures) < 2):
            return line  # the best line showing too few figures is passed over by `solve_argmax`
    return best


def _asked_axis(g: Grounder, noun: str | None) -> str | None:
    """`which province …`, `which year …`: the axis whose members that noun names — years for `year`,
    else the axis whose headers above its members (parents, or the column header over row labels)
    hold the noun; None when neither or both do."""
    if noun is None:
        return None
    sides = (("row", g.rows), ("col", g.cols))
    found = [axis for axis, lines in sides if names_members(g, axis, lines, noun)]
    return found[0] if len(found) == 1 else None


def names_members(g: Grounder, axis: str, lines: list[Line], noun: str) -> bool:
    """`noun` (a stem) names the members of `lines`: members of a category its labels never name
    (`_category_test`: years, age groups, the sexes), else a word of the labels above them, or the
    last word of most members' own labels (`which fund`: `General Fund`, `Debt Service Fund`)."""
    member = _category_test(noun, g.asked_also if noun == g.asked_noun else None)
    if member is not None:
        return sum(any(member(n.text) for n in ln.path) for ln in lines) >= 2
    above: set[str] = set()
    for ln in lines:
        above.update(t for n in ln.path[:-1] for t in label_tokens(n.text))
        if axis == "row":  # the column headers over the row's labels (`Project | Owner | Status`)
            own = [n for n in ln.path if n.r0 <= ln.index <= n.r1] or ([ln.label] if ln.label else [])
            above.update(t for label in own for n in g.h.col_path(label) for t in label_tokens(n.text))
    members = [label_tokens(ln.label.text) for ln in lines if ln.label is not None and not is_aggregate(ln)]
    named = [toks for toks in members if len(toks) > 1 and toks[-1] == noun]  # `General Fund`,
    return noun in above or (len(named) >= 2 and 2 * len(named) >= len(members))  # `Debt Service Fund`


def counts_members(g: Grounder) -> bool:
    """The question counts the members of one side in which something happened (`in how many wards
    did Dubois finish first` beside `Ward` over `Ward 1 – Riverside`, …), not a figure the table
    measures (`how many votes`)."""
    noun = ops.counted_noun(g.q)
    stem = next(iter(tokens(noun)), None) if noun else None
    return stem is not None and ops.counts_where(g.q) and any(
        names_members(g, axis, lines, stem) and stem not in {
            t for ln in measured for n in ln.path for t in label_tokens(n.text)}
        for axis, lines, measured in (("row", g.rows, g.cols), ("col", g.cols, g.rows)))


def _in_asked_section(g: Grounder, lines: list[Line]) -> list[Line]:
    """`which age group …` on rows sectioned by `age`, `education`, …: the members of the category
    (`_category_lines`), else those under a parent label holding the asked noun (all lines when
    none or every one is)."""
    if g.asked_noun is None:
        return lines
    category = _category_lines(g, lines)
    inside: list[Line] = [] if category is None else category
    if category is None:  # a parent heading one line only is the row's own name (`Ward 2 - General
        heads = Counter(n.id for ln in lines for n in ln.path[:-1])  # Surgery` > `Surgery`), no section
        for words in ({g.asked_noun, *_next_word(g)}, {g.asked_noun}):  # `which household type`: the
            inside = [ln for ln in lines if any(  # section `Household type`, not `Household income …`
                heads[n.id] >= 2 and _names_section(g, words, n) and not is_aggregate_label(n)
                for n in ln.path[:-1])]  # nor the category's whole (`All regions`)
            if inside:
                break
    return inside if 2 <= len(inside) < len(lines) else lines


def _names_section(g: Grounder, words: set[str], node: Node) -> bool:
    """The parent label holds `words` (`Household type` for `which household type`, `Race and
    Hispanic origin` for `which race group`), unless it ends on them after words the question does
    not say: `Independent facilities` is a part of the facilities `which facility` asks about."""
    toks = label_tokens(node.text)
    extra = set(toks) - words - {st for _, st in g.qwords} - SECTION_WORDS
    return words <= set(toks) and not (extra and toks[-1] in words)


SECTION_WORDS = frozenset(label_tokens("type group category kind class level size status by"))
"""Words a section heading adds to the category it names (`Household type`, `Age group`)."""


def _noun_only(g: Grounder, line: Line) -> bool:
    """The question names the line by the asked noun alone (`facility` in `Independent facilities`)."""
    said = {st for n in line.path for st in g.matched(n)}
    return said == {g.asked_noun}


def _next_word(g: Grounder) -> set[str]:
    """The stem of the word after the asked noun (`type` in `which household type`), if any."""
    asked = ops.asked_category(g.qnorm)
    m = re.search(rf"\b{re.escape(asked)}\s+(\w+)", g.qnorm) if asked else None
    return set(label_tokens(m.group(1))) if m else set()


def _category_lines(g: Grounder, lines: list[Line]) -> list[Line] | None:
    """For a category whose members' labels never name it (`_member_test`), the lines with a
    member label (their own or a parent's: `women > percent`); None for another noun."""
    member = _member_test(g)
    return None if member is None else [ln for ln in lines if any(member(n.text) for n in ln.path)]


def _member_test(g: Grounder) -> Callable[[str], bool] | None:
    """Whether a label is a member of the asked category (`_category_test`)."""
    return _category_test(g.asked_noun, g.asked_also)


def _category_test(noun: str | None, also: str | None = None) -> Callable[[str], bool] | None:
    """Whether a label is a member of the category `noun` (a stem): a year for `year`, an age range
    for `age` (`15 to 24 years`, `65 and over`), a quarter or month label for `quarter` or `month`,
    words of the vocabulary's `[categories]` (`women` for `sex`; `which province or territory`:
    also those of `also`); None for another noun."""
    if noun == "year":
        return is_year_text
    if noun == "age":
        return is_age_label
    if noun == "quarter":  # `Q4 2023`, `Fourth quarter`, `Three Months Ended June 30`; no half year
        return is_quarter_label
    if noun == "month":
        return lambda text: label_month(text) is not None
    words = category_members().get(noun or "")
    if words is None:
        return None
    words |= category_members().get(also or "", frozenset())
    return lambda text: bool(toks := label_tokens(text)) and set(toks) <= words


def _breakdowns_aside(g: Grounder, lines: list[Line]) -> list[Line]:
    """The outer lines when each shows a figure of its own over the same breakdown (`Department of
    Defense` over `Intramural | Extramural`, again under each agency): `which agency's total …` ranks
    the agencies' own lines, unless the question names a part of the breakdown (`intramural`)."""
    heads = {n.id for ln in lines for n in ln.path[:-1]}
    outer = [ln for ln in lines if len(ln.path) == 1]
    parts = [ln for ln in lines if len(ln.path) > 1]
    own = {ln.label.id for ln in outer if ln.label is not None and ln.label.id in heads}
    if len(own) < 2 or not parts or any(ln.path[0].id not in own for ln in parts) or any(
            ln.label is not None and g.mention(ln.label) >= 0.5 for ln in parts):
        return lines
    kinds = Counter(normalise_text(ln.label.text) for ln in parts if ln.label is not None)
    return outer if kinds and min(kinds.values()) >= 2 else lines


def _group(lines: list[Line], fixed_parent: list[Node] | None) -> list[Line]:
    """The lines a ranking compares: those heading no other line, less totals. Where a few of them
    are sub-items of a line beside the others (`Bread`, `Meat` under `Food` beside `Transport`,
    `Health`, …), that line stands for them: members are compared at one level."""
    heads = {n.id for ln in lines for n in ln.path[:-1]}
    members = [ln for ln in lines if not is_aggregate(ln) and (ln.label is None or ln.label.id not in heads)]
    if not members:
        return lines
    depth = min(len(ln.path) for ln in members)
    deeper = [ln for ln in members if len(ln.path) > depth]
    if not deeper or 2 * len(deeper) >= len(members):
        return members
    by_label = {ln.label.id: ln for ln in lines if ln.label is not None and not is_aggregate(ln)}
    items = Counter(ln.path[depth - 1].id for ln in deeper)  # a line over one sub-line only (`Memo:
    out: list[Line] = []  # FY 2024 Enacted` over its change) is no group of sub-items
    for ln in members:
        head = ln.path[depth - 1].id if ln in deeper else None
        ln = by_label.get(head, ln) if head is not None and items[head] > 1 else ln
        if ln not in out:
            out.append(ln)
    return out


_SINCE = re.compile(
    r"\b(since|after|from|between)\s+(?:(?:fiscal|fy|calendar)\s+)?((?:19|20)\d\d)\b"
    r"(?:\s+(?:to|through|and)\s+(?:(?:fiscal|fy|calendar)\s+)?((?:19|20)\d\d)\b)?")
_BEFORE = re.compile(r"\b(?:before|until|till|prior to)\s+((?:19|20)\d\d)\b")


Ranked = tuple[float, Node, Node]
"""A ranked member: its figure, its label and the cell showing the figure."""


def _within_asked_years(q: str, vals: list[Ranked]) -> list[Ranked]:
    """Year members within the span the question bounds them by (`the lowest rate since 2001`,
    `after 2010`, `before 2010`, `from 2005 to 2012`, `between fiscal 2025 and 2034`: not the span
    `2035–2039`); every member when none or fewer than two remain."""
    since, before = _SINCE.search(q), _BEFORE.search(q)
    if since is None and before is None:
        return vals
    lo = int(since.group(2)) + (since.group(1) == "after") if since else 0
    hi = int(since.group(3)) if since and since.group(3) else int(before.group(1)) - 1 if before else 9999
    dated = [is_year_text(v[1].text) or YEAR_SPAN_LABEL.match(v[1].text.strip()) for v in vals]
    kept = [v for v, d in zip(vals, dated, strict=True) if not d or all(
        lo <= int(y) <= hi for y in YEAR.findall(v[1].text))]
    return kept if len(kept) >= 2 else vals


def _of_the_asked_year(g: Grounder, vals: list[Ranked]) -> list[Ranked]:
    """Dated members (`Jan 2024`, `2024 Q3`) of the one year the question names (`which month of
    2024`) when members of other years are ranked beside them; every member when fewer than two
    remain."""
    years = [label_year(v[1].text) for v in vals]
    if len(g.q_years) != 1 or not all(years) or len(set(years)) < 2:
        return vals
    kept = [v for v, year in zip(vals, years, strict=True) if year in g.q_years]
    return kept if len(kept) >= 2 else vals


def _members(g: Grounder, lines: list[Line], noun: str | None = None, relative: bool = False
             ) -> list[tuple[Node, Line]]:
    """The members a ranking compares, each with the best-grounded line under it.

    A line's member is its label of the asked category when the question asks one (`which gender`:
    `females` under `12 to 14 years`; `_member_test`), else its innermost label that is not a
    qualifier repeated under several groups (`%`, `from`, `to` under each sex → the member is the
    sex) nor one label over every line (a unit row's `rate` written once); a label with no word
    (`$`, `..`) is no member. Aggregate members
    (total/all, a class holding other classes: `25 to 64 years`) are left out unless nothing else
    remains, so are members whose label states another unit than most do, unless the figures
    compared are `relative` (changes: `Increase (Decrease)` of `Fuel price (dollars per gallon)`).
    """
    ids: dict[str, set[int]] = {}
    for ln in lines:
        for n in ln.path:
            ids.setdefault(normalise_text(n.text), set()).add(n.id)
    shared = set.intersection(*({n.id for n in ln.path} for ln in lines)) if lines else set()
    member = _member_test(g) or _category_test(noun) or (lambda _: False)  # `how many of the eight
    # quarters`: each `Q1` under its year
    best: dict[int, tuple[Node, Line]] = {}
    for ln in lines:
        order = _member_order(g, ln, noun)
        node = next((n for n in order if member(n.text)), None) or next(
            (n for n in order if len(ids[normalise_text(n.text)]) == 1 and n.id not in shared),
            ln.label)
        if node is None:
            continue
        cur = best.get(node.id)
        if cur is None or g.line_score(ln) > g.line_score(cur[1]):
            best[node.id] = (node, ln)
    members = [m for m in best.values() if has_value(m[0])]
    siblings: dict[tuple[int, ...], list[tuple[int, str]]] = {}
    for node, ln in members:  # classes compared with their siblings only (not ages with incomes)
        parents = tuple(n.id for n in ln.path[:ln.path.index(node)])
        siblings.setdefault(parents, []).append((node.id, node.text))
    wholes = {nid for group in siblings.values() for nid in whole_classes(group)}
    every = (g.rows if lines[0].axis == "row" else g.cols) if lines else []
    totalled = any(is_aggregate_label(n) for ln in every for n in ln.path)
    units = Counter(label_unit(node.text) for node, _ in members)
    common = units.most_common(1)[0][0] if units else None  # `Net generation (GWh)` below fuel shares
    return [m for m in members
            if not is_aggregate_label(m[0]) and m[0].id not in wholes and not is_sample_size(m[0].text)
            and not (totalled and _adjusts(m[0], m[1], every))
            and (relative or label_unit(m[0].text) in (None, common))] or members


_ADJUSTMENT = re.compile(r"^(?:less|plus|add|deduct)\s*:")
_NET_OF = re.compile(r"\bnet of\b")


def _adjusts(node: Node, line: Line, every: list[Line]) -> bool:
    """A reconciling line (`Intersegment eliminations`, `Unallocated`) or one below a total (`Less:
    current portion`; `Long-term debt, net of current portion` right under a total or such a line;
    `Income tax benefit` out of the indentation of the items the total above it adds up): the total
    adjusted, no part to rank. `Accounts receivable, net of allowance` among its siblings is a part."""
    text = normalise_text(node.text)
    if _ADJUSTMENT.search(text) or _RECONCILING.search(text):
        return True
    above = [ln for ln in every if ln.index < line.index]
    total = next((ln for ln in reversed(above) if is_aggregate(ln)), None)  # `Income tax benefit` out of
    parts = [ln.label for ln in above if total is not None and ln.index < total.index and ln.label is not None
             and not is_aggregate(ln) and len(ln.path) == 1][-2:]  # the indented items `Total stock-based
    if len(line.path) == 1 and parts and all(indent_of(p.text) > indent_of(node.text) for p in parts):
        return True  # compensation` adds up (lines under no section: not a section's own total)
    return bool(_NET_OF.search(text) and above and above[-1].label is not None and (
        is_aggregate_label(above[-1].label) or _ADJUSTMENT.search(normalise_text(above[-1].label.text))))


_RECONCILING = re.compile(r"\b(?:eliminations?|intersegment|inter-segment|unallocated|reconciling)\b")


def _member_order(g: Grounder, ln: Line, noun: str | None = None) -> list[Node]:
    """A line's labels, innermost first; of several labels side by side on a row (`Property |
    Market | Year acquired`), the one under the column header holding `noun` (by default the asked
    one; with the fewest other words; a code only when the header holds the word after it too:
    `which cost item` is no `Cost Code`) comes first, else the first of them that is no code (the
    name the others describe) and is the line's own, not merged over its group's lines."""
    inner = list(reversed(ln.path))
    own = [n for n in ln.path if ln.axis == "row" and n.r0 <= ln.index <= n.r1]
    if len(own) < 2:
        return inner
    noun = noun or g.asked_noun
    heads = {n.id: [set(label_tokens(h.text)) for h in g.h.col_path(n)] for n in own}
    asked = ({noun} | _next_word(g)) if noun == g.asked_noun else {noun}
    said = noun if any(noun in toks for n in own for toks in heads[n.id]) else next(  # `which detailed
        iter(asked - {noun}), noun)  # field`: the header holding `field` (`Field of study`)
    named = sorted((n for n in own if any(said in toks and (asked <= toks or not is_code(n.text))
                                          for toks in heads[n.id])),  # `which cost item`: not the
                   key=lambda n: (min(len(toks) for toks in heads[n.id] if said in toks),  # `Cost Code`
                                  is_code(n.text)))  # `Station name` before `Station number`
    names = [n for n in own if not is_code(n.text)]  # `Hex bolt M8 x 40`, not `W-1024`
    names = [n for n in names if n.r0 == n.r1] or names  # `North East`, not `North` merged over its rows
    first = named[:1] or names[:1] or own[:1]  # `Project` before `Project ID`
    return first + [n for n in inner if n is not first[0]]


def solve_argmax(g: Grounder, k: int = 1, nth: ops.Place | None = None) -> Plan | None:
    """The label of the top (bottom) ranked member, or of the `k` top-ranked ones (`list the top 3`,
    ranked in the question's direction, `max` when it names none).

    Members that are mostly measures (`%`, `number`, `from`/`to` of an interval, `coefficient`) are
    not what a `which …` question compares, nor can a side with too few members be ranked (`the top
    two` of two year columns): the other axis is ranked instead, at its best line.
    """
    axis, fixed = _pick_side(g)
    plan = _rank(g, axis, fixed, k, nth)
    if plan is not None and not _measure_answer(g, plan):
        return plan
    fixed_other = g.best(g.rows if axis == "row" else g.cols)[0][1]
    other = _rank(g, "col" if axis == "row" else "row", fixed_other, k, nth)
    if plan is None or (other is not None and not _measure_answer(g, other)):
        return other
    return plan


def member_values(g: Grounder, axis: str, fixed: Line, noun: str | None = None) -> list[Ranked]:
    """The figures a ranking of `axis` on `fixed` compares: (value, member label, cell) of each
    member of the best-grounded sibling group, within the years the question bounds, less a member
    that is the others' whole, and less the members (or the group of them) the question leaves out
    (`outside postpaid`). `noun` (a stem): what the members are, when no which-question names
    it (`how many lines of business`: the labels under `Line of business`, not their `Segment`)."""
    every = g.rows if axis == "row" else g.cols
    pool = _named_only(g, every)
    omitted = _omitted(g)
    if omitted:  # `not counting other expenses and the total`, `outside postpaid`: the members the
        pool = [ln for ln in pool if not any(  # question leaves out, or their group
            (toks := set(label_tokens(n.text))) and toks <= omitted
            and (n is ln.label or not is_period_label(n.text)) for n in ln.path)] or pool
    grouped = under_named_group(g, pool)  # `within the United States`: its areas, not the line over
    labels = {ln.label.id for ln in pool if ln.label is not None}  # them (a group label heading a line
    group_heads = {n.id for ln in grouped for n in ln.path[:-1]}  # of its own; other groups: below)
    base = _breakdowns_aside(g, grouped if group_heads & labels else pool)
    lines = _in_asked_section(g, _group(base, None))
    lines = _stated_level(g, pool, lines)
    lines = _named_measure(g, lines) or lines
    lines = under_named_group(g, lines)
    # restrict to the best-grounded sibling group when the varying side is partly mentioned
    scored = g.best(lines)
    scored = [(s, ln) for s, ln in scored if not under_aggregate(ln)] or scored  # a whole (`All
    # regions`, named by the noun of `which region`) sets no group, nor one of several sections named
    # by that noun alone (`Independent facilities` beside `Summit Regional Health` for `which facility`)
    if len({ln.path[0].id for _, ln in scored if len(ln.path) > 1}) > 1:
        scored = [(s, ln) for s, ln in scored if not _noun_only(g, ln)] or [(0.0, lines[0])]
    top = scored[0][0]
    if top > 0.2:
        member = _member_test(g) or (lambda _: False)

        over = Counter(n.id for ln in every for n in ln.path[:-1])

        def parent_of(ln: Line) -> tuple[int, ...]:  # the asked category's labels are what varies; a
            # label over one line of the side is no group (a record's `Fund | Ticker` beside its figures)
            return tuple(n.id for n in ln.path[:-1] if not member(n.text) and over[n.id] >= 2)
        near = [ln for s, ln in scored if s >= top - 0.05]
        heads = Counter(n.id for ln in lines for n in ln.path[:-1])  # of sections alike (three lines
        said = {parent_of(ln): sum(g.mention(n) for n in ln.path[:-1] if heads[n.id] >= 3)  # or more
                for ln in near}  # each), the one the question names (`how many tons`: `Weight (millions
        parents = {p for p, m in said.items() if m >= max(said.values()) - 0.05}  # of tons)`)
        group = [ln for ln in lines if parent_of(ln) in parents]
        if not any(g.mention(n) for ln in near for n in ln.path[:-1]) and all(
                ln.label is None or g.mention(ln.label) < 0.5 for ln in near):
            group = []  # a member a word names in part (`premiums`: `Single premium … annuities`)
            # sets no group when no group is named
        heading = _members_heading(g, near)
        asked = set(label_tokens(g.qnorm))  # `how many provinces and territories`: all of them
        category = frozenset({noun, *(heading if heading <= asked else ())})
        if noun and names_members(g, axis, every, noun) and not any(
                g.mention(n, category) and not set(label_tokens(n.text)) <= category
                for ln in near for n in ln.path[:-1]):
            group = []  # `how many lines of business`: every line under `Line of business`, whatever
            # group labels hold the noun (`Personal lines`); not `how many states in the West region`
        # labels beside a line's own (`Campaign | Channel`) head no group, nor does one line the
        # question names less than half of (`Absolute return / hedge funds` for `return`): the other
        # side is then ranked
        named = len(group) == 1 and not side_by_side(group[0]) and max(map(g.mention, group[0].path)) >= 0.5
        if len(parents) == 1 and (len(group) >= 2 or named):
            lines = group
    vals = []
    for label, ln in _members(g, lines, noun, relative=gives_change(fixed)):
        node = value_cell(g.graph, ln, fixed) if axis == "row" else value_cell(g.graph, fixed, ln)
        num = g.number(node)
        if num is not None and g.h.is_data(node):
            vals.append((num.value, label, node))
    vals = _of_the_asked_year(g, _within_asked_years(g.qnorm, vals))
    if vals and all(v[0] < 0 for v in vals) and (names_a_size([fixed]) or ops.SPENT.search(g.qnorm)):  # cash
        # used shown `(40,500)`, `spent the most on acquisitions`:
        vals = [(-v, label, node) for v, label, node in vals]  # the most used is the largest size
    if not any(is_aggregate(ln) for ln in every):  # a table with a total line has no other whole
        vals = _without_whole(vals)
    return vals


def said_whole(g: Grounder, label: Node) -> bool:
    """The question names the label whole: mentions it fully, or says each of its words or a word
    derived from it (`European markets` names `Europe`; initials do not: `more experience noisy` is
    no `men`), or by an acronym the question writes in capitals (`HHS` for `Department of Health and
    Human Services`)."""
    mention = g.mention(label)
    if mention >= 0.99 or mention == 0:
        return mention >= 0.99
    if said_by_acronym(g, label):
        return True
    words = label_tokens(label.text)
    return bool(words) and all(any(same_word(t, q) for _, q in g.qwords) for t in words)


def said_by_acronym(g: Grounder, label: Node) -> bool:
    """The question names the label by an acronym written in capitals (`HHS`, `SG&A`, `R&D`, `RSUs`)."""
    return any(v < 1.0 and len(st) >= 2 and re.search(rf"\b{'[&.]?'.join(map(re.escape, st.upper()))}s?\b",
                                                      g.q) for st, v in g.matched(label).items())


def under_named_group(g: Grounder, lines: list[Line]) -> list[Line]:
    """The lines under the one group label the question names whole (`Northern` over its districts
    for `among the Northern region districts`) when it names no member whole; else `lines`. A total
    over its parts (`All agencies` for `which agency`) is no group the question restricts to."""
    heads = Counter(n.id for ln in lines for n in ln.path[:-1])
    nodes = {n.id: n for ln in lines for n in ln.path[:-1] if heads[n.id] >= 2}
    named = {i: n for i, n in nodes.items() if said_whole(g, n) and not is_aggregate_label(n)}
    if len({normalise_text(n.text) for n in named.values()}) == 1 and len(named) > 1:
        named = _under_named(g, lines, named)  # `Personal travel` under `Receipts` and `Payments`
    if len(named) != 1:
        return lines
    (group,) = named
    said = set(g.matched(named[group]))
    heading = _members_heading(g, [ln for ln in lines if any(n.id == group for n in ln.path[:-1])])
    if said <= heading <= set(label_tokens(g.qnorm)):  # `how many provinces and territories`
        return lines  # under `Province or territory`: every member, not those under `Territories`
    over = {t for n in _above(lines, group) for t in g.matched(n)}

    def wider_total(ln: Line) -> bool:  # `Total payments`, named by the sum word and the section
        own = set(g.matched(ln.label)) - AGGREGATE_LABEL_WORDS if ln.label is not None else set()
        return is_aggregate(ln) and own <= over and not own <= said  # over `Personal travel`

    if any(ln.label is not None and ln.label.id != group and g.mention(ln.label) >= 0.99
           and not set(g.matched(ln.label)) <= said and not wider_total(ln) for ln in lines):
        return lines  # a member named in words of its own (not the group's line, `United States` over
        # its areas, nor `Diluted` named by the `dilutive` of `Effect of dilutive securities`); the
        # group's own total named (`Total operating revenue` under `Operating revenue:`) is read
    under = [ln for ln in lines if any(n.id == group for n in ln.path[:-1])]
    return under if 2 <= len(under) < len(lines) else lines


def _above(lines: list[Line], group: int) -> list[Node]:
    """The labels over a group label on the lines under it (`Payments (debits)` over `Personal
    travel`)."""
    return [n for ln in lines for i, n in enumerate(ln.path[:-1])
            if any(m.id == group for m in ln.path[i + 1:-1])]


def _members_heading(g: Grounder, lines: list[Line]) -> set[str]:
    """The words of the headings over the lines' own labels (`Province or territory` over the
    provinces' column), which name what each of them is."""
    heads = {n.id: n for ln in lines if ln.label is not None
             for n in (g.h.col_path(ln.label) if ln.axis == "row" else g.h.row_path(ln.label))}
    return {t for n in heads.values() for t in label_tokens(n.text)}


def _under_named(g: Grounder, lines: list[Line], groups: dict[int, Node]) -> dict[int, Node]:
    """Of groups of one name, the one under the label the question names best (`personal travel
    payments`: under `Payments (debits)`, not `Receipts (credits)`); all when none is."""
    scores = {i: max(map(g.mention, _above(lines, i)), default=0.0) for i in groups}
    top = max(scores.values())
    best = {i: groups[i] for i, s in scores.items() if s == top}
    return best if top > 0 and len(best) == 1 else groups


def _stated_level(g: Grounder, every: list[Line], lines: list[Line]) -> list[Line]:
    """The outermost lines (`Northeast`, `Midwest`, `South`, `West`, not the divisions under two of
    them) when the question says how many members there are (`which of the four regions`) and they
    are that many while the lines a ranking would compare are not, or calls them the major ones
    (`among the major import categories`: `Industrial supplies`, not `Fuels` under it)."""
    stated = ops.stated_members(g.q)
    major = _MAJOR.search(g.qnorm) is not None
    parts = [ln for ln in every if not is_aggregate(ln)]
    if (stated is None and not major) or not parts or sum(not is_aggregate(ln) for ln in lines) == stated:
        return lines
    depth = min(len(ln.path) for ln in parts)
    outer = [ln for ln in parts if len(ln.path) == depth]
    return outer if len(outer) == stated or (major and stated is None and len(outer) >= 2) else lines


_MAJOR = re.compile(r"\b(?:major|main|principal|broad|top[- ]level)\s+(?:[\w-]+\s+){0,2}?"
                    r"(?:categor|component|group|sector|industr|class|type|segment|division|aggregate)")
"""The outermost members asked (`the major components`, `the main import end-use categories`)."""


def _named_measure(g: Grounder, lines: list[Line]) -> list[Line] | None:
    """Of lines showing one measure under each member (`Labour > Votes | Share`, `Conservative >
    Votes | Share`), those of the one measure the question names whole (`which party won the most
    votes`: not `Electorate` beside them), not by the words of the asked category (`which revenue
    class`: `No revenue` under each section is a member)."""
    asked = {g.asked_noun, *_next_word(g)}
    alike: dict[str, list[Line]] = {}
    for ln in lines:
        if ln.label is not None and len(ln.path) >= 2:
            alike.setdefault(normalise_text(ln.label.text), []).append(ln)
    named = [same for same in alike.values()
             if len(same) >= 2 and len({ln.parent_ids for ln in same}) == len(same)
             and same[0].label is not None and g.mention(same[0].label, plain=True) >= 0.99
             and g.asked_noun not in (said := set(g.matched(same[0].label))) and not said <= asked]
    # (`which mine milled the most ore`: `Ore milled`, its `milled` after the noun; not `Ore mined`)
    return named[0] if len(named) == 1 else None


def _omitted(g: Grounder) -> set[str]:
    """The words of what the question leaves out (`excluding the total`: `total`; set off by commas,
    up to the next one: `how many items, not counting subtotals, had total expenses above …`)."""
    left_out = _LEFT_OUT.search(g.qnorm)
    if left_out is None:
        return set()
    phrase = left_out.group(1)
    if g.qnorm[:left_out.start()].rstrip().endswith(","):
        phrase = phrase.split(",")[0]
    return set(label_tokens(phrase))


def _named_only(g: Grounder, lines: list[Line]) -> list[Line]:
    """`lines` less the residual ones (`Other States`, `All other`) when the question asks for the
    members listed by name (`the soft red winter states listed individually`)."""
    if not _INDIVIDUALLY.search(g.qnorm):
        return lines
    named = [ln for ln in lines if ln.label is None or not _RESIDUAL.match(normalise_text(ln.label.text))]
    return named or lines


_INDIVIDUALLY = re.compile(
    r"\b(?:listed|named|shown)\s+(?:individually|separately|by\s+name)\b|\bindividually\s+(?:listed|named|shown)\b"
    r"|\bindividual\s+(?:states|countries|provinces|regions|districts|cities|members|items|lines|companies)\b")
"""Members listed by name (`the soft red winter states listed individually`): no residual line."""
_RESIDUAL = re.compile(r"(?:all\s+)?others?\b|rest\s+of\b|remaining\b")
"""A residual line (`Other States`, `All other`, `Rest of world`)."""


def _kept(g: Grounder, lines: list[Line]) -> list[Line]:
    """`lines` less those whose own label the question leaves out (all of them when it leaves out
    every one)."""
    omitted = _omitted(g)
    if not omitted:
        return lines
    kept = [ln for ln in lines if not (ln.label is not None and (toks := set(label_tokens(ln.label.text)))
                                       and toks <= omitted)]
    return kept or lines


_LEFT_OUT = re.compile(r"(?:(?<=\()not|\bnot\s+counting|\bexcluding|\bexcept(?:\s+for)?|\bother\s+than|"
                      r"\bapart\s+from|\baside\s+from|\bleaving\s+(?:out|aside)|\bignoring|\boutside(?:\s+of)?)\s+(.+?)"
                      r"(?=,\s*(?:which|what|who|how|where|when|in|for|during|at|on|by|list|name|give|rank)\b"
                      r"|[?;)]|$)")
"""A ranking's members the question leaves out, named after these words (`excluding the total`, `(not
the OECD or EU27 aggregates)`), or the group they are under (`outside postpaid`: not `Postpaid >
Consumer`)."""

NAMED_MEMBER = 0.3
"""A member the question names this much is what it asks about, not one of those it ranges over."""


_AMONG_TOP = re.compile(r"^\s*(?:among|of)\s+the\s+top\s+\d+\b")
"""`Among the top 15 institutions, …`: the members ranged over, not several asked."""
_LOST_MOST = re.compile(r"\b(?:lost|shed)\s+(?:\w+\s+)?(?:the\s+)?most\b")
"""`lost the most`: where a change is ranked (between two years, or on a change line), the most
negative one; elsewhere a count of losses (a standings table's `lost the most games`)."""


def solve_ranked_change(g: Grounder) -> Plan | None:
    """`which tax source had the largest dollar decline between FY2023 and FY2024`, `which segment's
    revenue declined between 2022 and 2024`: the change of every member from the earlier named year's
    line to the later's (a relative change when a percent is asked), ranked in the question's
    direction, or the one member that moved the asked way when it names none. None when a line beside
    the years gives the change, or the two years are not two lines of one axis."""
    if not (ops.asks_ranked_label(g.q) and ASKS_CHANGE.search(g.qnorm)) or len(g.q_years) != 2 or (
            (ops.top_k(g.q) or 1) > 1 and not _AMONG_TOP.match(g.qnorm)):  # `the top 2 groups`: several
        return None  # members, ranked elsewhere (not `Among the top 15 institutions, which …`)
    for axis, lines in (("col", g.cols), ("row", g.rows)):
        by_year: dict[str, Line] = {}
        for _, ln in g.best(lines):  # the best-grounded line of each year (`FY 2023 > All R&D`)
            year = next((y for n in reversed(ln.path) if (y := label_year(n.text)) is not None), None)
            if year is not None and year in g.q_years and year not in by_year:
                by_year[year] = ln
        if len(by_year) != 2:
            continue
        if any(gives_change(ln) and _spans(ln, g.q_years) for ln in lines):  # a change line beside the
            return None  # years gives it (a member named by a change, `Value of inventory change`, does not)
        earlier, later = (by_year[y] for y in sorted(by_year))
        members = "row" if axis == "col" else "col"
        before = {label.id: value for value, label, _ in member_values(g, members, earlier)}
        relative = "percent" in g.qtoks
        vals = [((value - before[label.id]) / abs(before[label.id]) if relative else value - before[label.id],
                 label, node) for value, label, node in member_values(g, members, later)
                if label.id in before and (before[label.id] or not relative)]
        noun = frozenset({g.asked_noun} if g.asked_noun else ()) | _category_words(g.qnorm)  # `tax` of
        # `which tax source`, `expense` of `which operating expense item` names no member
        if len(vals) < 2 or any(g.mention(label, noun) >= NAMED_MEMBER for _, label, _ in vals):
            return None
        want = ops.direction(g.q)
        if want == "max" and _LOST_MOST.search(g.qnorm):  # `lost the most … between 2022 and 2024`: the
            want = "min"  # largest fall (a standings table's `lost the most games` counts losses)
        lines_used = headers_for(g, [earlier, later])
        rows, cols = ([], lines_used) if members == "row" else (lines_used, [])
        if want is None:  # `which segment's revenue declined`: the one member that moved that way
            moved = [v for v in vals if (v[0] < 0 if ops.asks_decrease(g.q) else v[0] > 0)]
            if len(moved) != 1:
                return None
            (_, label, _), ties, gap = moved[0], 1, 0.0
        else:
            (_, label, _), ties, gap = pick(vals, want, 1)
        return Plan([label.text.strip()], [label.id], lines_used, f"arg{want or 'max'}", round(0.5 / ties, 3),
                    f"{want or 'the one'} change from {sorted(by_year)[0]} to {sorted(by_year)[1]} over "
                    f"{len(vals)} {members}s", rows, cols,
                    stats={"rank_gap": gap, "rank_ties": float(ties), "rank_members": float(len(vals))})
    return None


def _category_words(question: str) -> frozenset[str]:
    """The stems of the words naming the asked category up to its verb (`which operating expense item
    increased`: `oper`, `expens`, `item`)."""
    m = _CATEGORY_PHRASE.match(question)
    return frozenset(label_tokens(m.group(1))) if m else frozenset()


_CATEGORY_PHRASE = re.compile(
    r"^\s*(?:in\s+)?(?:which|what)\s+((?:(?!(?:had|has|have|was|were|is|are|did|does|do|saw)\b)[a-z-]+(?<!ed)\s+){1,4})")
"""`which operating expense item increased`: the words before the verb (auxiliaries, `-ed`)."""


def _spans(line: Line, years: frozenset[str]) -> bool:
    """A change line may give the change between `years`: its labels name them, or no year at all
    (not `Change, FY2023 to FY2024` for a decline between FY2022 and FY2023)."""
    said = {y for n in line.path for y in YEAR.findall(normalise_text(n.text))}
    return not said or years <= said


def solve_extreme(g: Grounder) -> Plan | None:
    """The highest (lowest) figure among the members a ranking compares (`what was the highest
    unemployment rate after 2020`, `what is the lowest vacancy rate`): the top-ranked member's cell,
    read on the side `solve_argmax` ranks; none when the question names a member, even in part (`the
    highest inflation rate in 2021` ranks neither the years nor the measures)."""
    axis, fixed = _pick_side(g)
    vals = member_values(g, axis, fixed)
    bounded = _SINCE.search(g.qnorm) or _BEFORE.search(g.qnorm)  # `between 2015 and 2017` bounds
    if len(vals) < 2 or any(g.mention(label) >= NAMED_MEMBER and not (bounded and is_year_text(label.text))
                            for _, label, _ in vals):  # the years ranked, naming none of them
        return None  # `the largest increase … reported in Moncton` names its member: a lookup
    want = ops.direction(g.q) or "max"
    (_, label, node), ties, gap = pick(vals, want, 1)
    return Plan([node.text.strip()], [node.id], [*headers_for(g, [fixed]), label.id], want,
                round(0.5 / ties, 3), f"{want} over {len(vals)} {axis}s: {label.text.strip()}",
                col_headers=headers_for(g, [fixed]) if axis == "row" else [label.id],
                row_headers=[label.id] if axis == "row" else headers_for(g, [fixed]),
                stats={"rank_gap": gap, "rank_ties": float(ties), "rank_members": float(len(vals))})


def solve_spread(g: Grounder) -> Plan | None:
    """The spread between the highest and the lowest figure among the members a ranking compares
    (`the spread, in percentage points, between the highest and lowest regional coverage`): the
    highest less the lowest."""
    if not _SPREAD.search(g.qnorm):
        return None
    axis, fixed = _pick_side(g)
    vals = member_values(g, axis, fixed)
    if len(vals) < 2:
        return None
    (_, top, high), _, _ = pick(vals, "max", 1)
    (_, bottom, low), _, _ = pick(vals, "min", 1)
    nums = [n for n in (g.number(high), g.number(low)) if n is not None]
    computed = ops.compute("diff", nums, g.grouping) if len(nums) == 2 else None
    if computed is None:
        return None
    said = f"highest ({top.text.strip()}) less lowest ({bottom.text.strip()}) over {len(vals)} {axis}s"
    return Plan([computed.text], [high.id, low.id], [*headers_for(g, [fixed]), top.id, bottom.id], "diff",
                0.5, said, computed=computed, stats={"rank_members": float(len(vals)), "operands": 2.0})


_SPREAD = re.compile(r"\b(?:spread|range|gap|difference)\b[^?]*?\bbetween\s+the\s+(?:highest|largest|biggest"
                     r"|greatest|maximum)\b[^?]*?\band\s+(?:the\s+)?(?:lowest|smallest|least|minimum)\b")
"""`the spread between the highest and lowest …`, `the gap between the largest and the smallest …`."""


_CODE_RANGE = re.compile(r"(?<![\w-])([a-z]*\d+[a-z]*)\s*[–-]\s*([a-z]*\d+[a-z]*)(?![\w-])")
"""A span of codes the question gives (`4a–4h`, `A1-A6`)."""


_ABBREVIATION = re.compile(r"^[A-Z][a-z]{1,4}\.$")
"""A name shortened with a dot (`Man.`, `Sask.`): a member the category's words may not read
(`man` is read as `male`), kept among the members counted."""


def solve_count(g: Grounder) -> Plan | None:
    """How many members meet a condition (`in how many years was inflation above 2 percent`, `how
    many provinces saw employment fall`, `how many countries were above the OECD average`): the
    members a ranking compares (`_values`), counted against a figure the question states, the
    aggregate line it names (`average`, `total`, a line the question names otherwise), or zero for
    a change line's rises and falls. None when the question states no condition, names a member, or
    counts what the other side's labels measure (`how many goals`)."""
    condition = ops.count_condition(g.q)
    asked = asked_interval(g.q)
    classes = [iv for ln in g.rows + g.cols if ln.label is not None and (iv := interval(ln.label.text))]
    if condition is None or (asked is not None and classes and (  # `more than 100 employees` over size
            asked[0] not in classes or condition.bound in asked[0])):  # classes: a sum of classes, not a
        return None  # count (`those 80 and over … exceed 1,700` names the class: its figures are counted)
    noun, way, bound, against, reference, scale, inclusive, percent = condition
    earlier: Line | None = None  # a named year each member's figure is compared with
    if against == "line":
        return _count_against_line(g, way, reference, inclusive)
    ref: Line | None = None
    if against == "aggregate":  # the members are the reference line's siblings
        said = set(label_tokens(reference))
        mentioned = [ln for ln in g.rows + g.cols if ln.label is not None and g.mention(ln.label) > 0]
        refs = [ln for ln in mentioned if said & set(label_tokens(ln.label.text))  # type: ignore[union-attr]
                ] or [ln for ln in mentioned if is_aggregate(ln)]  # `National benchmark`, `OECD average`
        if not refs:
            return None
        ref = max(refs, key=lambda ln: (g.mention(ln.label), g.line_score(ln)))  # type: ignore[arg-type]
        stem = next(iter(tokens(noun)), "")
        beside = g.rows if ref.axis == "row" else g.cols
        if not names_members(g, ref.axis, beside, stem) and names_members(  # a benchmark column beside
                g, "col" if ref.axis == "row" else "row", g.cols if ref.axis == "row" else g.rows, stem):
            line = next((ln for _, ln in g.best(beside) if ln is not ref), None)  # the members' rows: each
            return _count_beyond(g, way, ref.axis, line, ref) if line is not None else None  # against its own
        axis, fixed = ref.axis, g.best(g.cols if ref.axis == "row" else g.rows)[0][1]
        num = g.number(value_cell(g.graph, ref, fixed) if axis == "row" else value_cell(g.graph, fixed, ref))
        if num is None:
            return None
        bound = num.value
    elif against == "change":  # the members are read on the best change line
        changes = [ln for _, ln in g.best(g.cols) + g.best(g.rows) if gives_change(ln)]
        years = _named_years(g) if not changes else None
        if years is not None:  # no change line (`how many metro areas saw their price fall from 2022
            # to 2023`): the later year's figure against the earlier one's
            earlier, fixed = sorted(years[1], key=lambda ln: line_year(ln) or "")
        elif changes:
            fixed = changes[0]
        else:  # `sales below the prior year` beside a `Prior year` line: against that line
            return _count_against_line(g, way, reference) if reference else None
        axis = "row" if fixed.axis == "col" else "col"
    else:
        axis, fixed = _pick_side(g, next(iter(tokens(noun)), None))  # the axis `how many wards` names
        fixed = _not_the_counted(g, fixed, next(iter(tokens(noun)), None))
        if percent and not _percent_line(g, axis, fixed):  # `recycled more than 40% of their waste`:
            fixed = next((ln for _, ln in g.best(g.cols if axis == "row" else g.rows)  # the best line
                          if _percent_line(g, axis, ln)), fixed)  # of percentages, not `Waste generated`
    measured = g.cols if axis == "row" else g.rows
    stem = next(iter(tokens(noun)), None)
    measures = {t for ln in measured for n in ln.path for t in label_tokens(n.text)}
    if set(label_tokens(noun)) & measures and not (
            stem and names_members(g, axis, g.rows if axis == "row" else g.cols, stem)):
        return None  # `how many goals had he accumulated over 16 years`: the noun is what is measured
    vals = [v for v in member_values(g, axis, fixed, stem)  # aggregate members (`OECD average`) left out,
            if ref is None or v[1].id not in {n.id for n in ref.path}]  # and the reference line
    member = _category_test(stem, next(iter(tokens(ops.counted_also(g.q) or "")), None))
    kept = [v for v in vals if member(v[1].text) or _ABBREVIATION.match(v[1].text.strip())] if member else []
    vals = kept if len(kept) >= 2 else vals  # `how many provinces`: not the country's line
    noun_words = frozenset({stem} if stem else ()) | set(label_tokens(ops.count_modifier(g.q) or ""))
    noun_words |= g.q_years
    measure_words = g.line_words(fixed) | noun_words  # `how many wards` names no `Ward 2`, `commercial
    # lending sectors` no `Commercial real estate`, `in 2023` no `May 2023`, the measure's words no
    # member (`stay`: `St.`)
    ends = {e for m in _CODE_RANGE.finditer(g.qnorm) for e in m.groups()}  # `derivatives 4a–4h`: the
    named = [label for _, label, node in vals  # span of members, none of them asked alone; a
             if not (g.matched(label) and set(g.matched(label)) <= measure_words | _group_words(
                 g, axis, label, node))  # member named only by its group's words is not named
             and g.mention(label, noun_words) >= NAMED_MEMBER and label.id not in g.soft
             and normalise_text(label.text).strip() not in ends]
    if sum(noun in label_words(label.text) for _, label, _ in vals) == 1 and not (
            stem and names_members(g, axis, g.rows if axis == "row" else g.cols, stem)):
        return None  # `how many employees were added`: the line `Full-time equivalent employees` (not
        # `how many regions …` beside `Capital Region`, nor `how many industries` over `Information
        # and cultural industries` under `Industry classification`)
    if len(vals) < 2 or named:
        return None  # `how many jobs were lost in manufacturing` asks of one member (a paraphrase
        # match is no naming: `countries` is near `France`)
    if earlier is not None:
        return _count_beyond(g, way, fixed.axis, fixed, earlier)
    unit = g.h.unit_for(vals[0][2])  # `above $6 billion` of figures in thousands of dollars: above
    if scale and unit is not None:  # 6,000,000 of them (figures of an unread unit: as said)
        table_scale = next((s for s in SCALE_FACTORS if s in unit), None)
        bound *= SCALE_FACTORS[scale] / (SCALE_FACTORS[table_scale] if table_scale else 1.0)
    met = [(label, node) for value, label, node in vals if _beyond(value, bound, way, inclusive)]
    return _count_plan(g, met, vals, [fixed], f"{axis}s {'at or ' * inclusive}{way} {bound:,.15g}",
                       [value - bound for value, _, _ in vals])


def _not_the_counted(g: Grounder, fixed: Line, stem: str | None) -> Line:
    """The line a count reads, passing over one named only by the counted noun (`Month` beside
    `Trend` for `how many months had a trend estimate above …`: the months are counted)."""
    if stem is None or fixed.label is None or set(g.matched(fixed.label)) != {stem}:
        return fixed
    return next((ln for _, ln in g.best(g.cols if fixed.axis == "col" else g.rows)
                 if ln.label is not None and set(g.matched(ln.label)) - {stem}), fixed)


def _group_words(g: Grounder, axis: str, label: Node, node: Node) -> set[str]:
    """The words of the labels over a member on its own axis (`Other Williston` under `Williston
    Basin`): words a question restricting the count to that group says of every member."""
    path = g.h.row_path(node) if axis == "row" else g.h.col_path(node)
    return {t for n in path if n.id != label.id for t in label_tokens(n.text)}


def _beyond(value: float, bound: float, way: str, inclusive: bool) -> bool:
    """`value` is beyond `bound` the `way` asked (`above`/`below`), or at it when `inclusive`."""
    return (value > bound if way == "above" else value < bound) or (inclusive and value == bound)


def _count_plan(g: Grounder, met: list[tuple[Node, Node]], vals: list[Ranked], lines: list[Line],
                condition: str, beyond: list[float]) -> Plan:
    """The count of the members that met the condition, shown by their cells (every member's when
    none did). As sure as a ranking on the line read (`_named_line`), and as far from the condition's
    edge (`rank_gap`) as the member nearest to it (`beyond`: each member's figure less the bound),
    a share of their spread: a member at the edge makes the count fragile."""
    computed = ops.Computed(float(len(met)), str(len(met)), NumStyle(thousands=len(met) >= 1000),
                            same_unit=False)
    shown = met or [(label, node) for _, label, node in vals]
    spread = max(beyond) - min(beyond)
    return Plan([computed.text], [node.id for _, node in shown],
                [*headers_for(g, lines), *(label.id for label, _ in shown)], "count",
                _named_line(g, lines[0]),
                f"{len(met)} of {len(vals)} {condition}", computed=computed,
                stats={"rank_members": float(len(vals)),
                       "rank_gap": min(abs(b) for b in beyond) / spread if spread else 0.0})


def _named_line(g: Grounder, line: Line) -> float:
    """How surely a ranking or a count reads `line`: how well the question names its label."""
    return min(1.0, 0.4 + 0.6 * g.mention(line.label)) if line.label else 0.4


def _count_against_line(g: Grounder, way: str, after: str, inclusive: bool = False) -> Plan | None:
    """`In how many age groups was the female stay longer than the male one`: two lines the question
    names on one axis (`compose.operand_pair`), the one named after the comparison (`than the male
    one`, `their 2019 level`) the reference; the members of the other axis whose figure on the
    first is beyond their figure on the reference are counted."""
    actual = _actual_beside(g)
    if actual is not None:
        return _count_beyond(g, way, *actual, inclusive)
    own = _against_own_benchmark(g, way, inclusive)
    if own is not None:
        return own
    grounded = compose.operand_pair(g)
    found = (grounded[0], grounded[1]) if grounded is not None else _named_years(g)  # `their 2019
    if found is None:  # level in 2023`: the two named years' lines
        return None
    axis, pair = found
    cut = len(g.qnorm) - len(normalise_text(after))
    said = {ln.index: compose.position(g, own) if (own := _own_node(g, ln, pair)) else 999 for ln in pair}
    ref = min(pair, key=lambda ln: (said[ln.index] < cut, said[ln.index]))  # first said after it
    return _count_beyond(g, way, axis, next(ln for ln in pair if ln is not ref), ref, inclusive)


def _actual_beside(g: Grounder) -> tuple[str, Line, Line] | None:
    """`how many cost centres spent more than their H1 budget`: the one line the question names whole
    on an axis, a benchmark (`H1 Budget`, `Target`, `Plan`), and the actual figures' line beside it
    (`H1 Actual`): (axis, actual, benchmark)."""
    for axis, lines in (("col", g.cols), ("row", g.rows)):
        named = [(ln, ln.label) for ln in lines if ln.label is not None and g.mention(ln.label) >= 0.99
                 and not VARIANCE_LABEL.search(ln.label.text)]  # (not `Over/(under) budget`)
        actual = [ln for ln in lines if len(named) == 1 and ln.parent_ids == named[0][0].parent_ids
                  and ln.label is not None and ACTUAL_LABEL.search(normalise_text(ln.label.text))]
        if len(actual) == 1 and BENCHMARK_LABEL.search(normalise_text(named[0][1].text)):
            return axis, actual[0], named[0][0]
    return None


def _against_own_benchmark(g: Grounder, way: str, inclusive: bool) -> Plan | None:
    """`In how many FY2024 quarters did NPS meet or beat its FY2024 target`: the counted members
    (`Q1` … `Q4` under `FY2024`) and the benchmark line the question names whole (`FY2024 Target`)
    on one axis; each member's figure on the best line of the other against the benchmark's."""
    noun = ops.counted_noun(g.q)
    stem = next(iter(tokens(noun)), None) if noun else None
    for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols)):
        named = [ln for ln in lines if ln.label is not None and g.mention(ln.label) >= 0.99
                 and BENCHMARK_LABEL.search(normalise_text(ln.label.text))]
        if stem is None or len(named) != 1 or not names_members(g, axis, lines, stem):
            continue
        bench, fixed = named[0], g.best(other)[0][1]
        cell = value_cell(g.graph, fixed, bench) if axis == "col" else value_cell(g.graph, bench, fixed)
        ref = g.number(cell)
        vals = [v for v in member_values(g, axis, fixed, stem) if v[1] is not bench.label]
        if ref is None or len(vals) < 2:
            continue
        met = [(label, node) for value, label, node in vals if _beyond(value, ref.value, way, inclusive)]
        return _count_plan(g, met, vals, [fixed, bench], f"{axis}s {way} the benchmark line",
                           [value - ref.value for value, _, _ in vals])
    return None


def _own_node(g: Grounder, line: Line, pair: list[Line]) -> Node | None:
    """The first label on `line`'s path that the other lines of `pair` do not share (`Women` over
    `Median base` beside `Men` over `Median base`), the first the question names whole if any and
    the other lines show no label of its text (`FY2023`, not `Actual on-time performance` over it;
    not `2024` under each group), else its own label."""
    shared = {n.id for other in pair if other is not line for n in other.path}
    texts = {normalise_text(n.text) for other in pair if other is not line for n in other.path}
    own = [n for n in line.path if n.id not in shared]
    return next((n for n in own if g.mention(n) >= 0.99 and normalise_text(n.text) not in texts),
                next(iter(own), line.label))


def _named_years(g: Grounder) -> tuple[str, list[Line]] | None:
    """The axis and best-grounded lines of the two years the question names, if one axis has both:
    when each year heads several lines (`FY2023` under `Subscribers` and under `ARPU`), the best
    one and the other year's line in its group."""
    for axis, lines in (("col", g.cols), ("row", g.rows)):
        dated = [ln for _, ln in g.best(lines) if line_year(ln) in g.q_years]
        if len({line_year(ln) for ln in dated}) != 2:
            continue
        first = dated[0]
        group = [n.id for n in first.path[:-1]]
        second = [ln for ln in dated if line_year(ln) != line_year(first)]
        paired = [ln for ln in second if [n.id for n in ln.path[:-1]] == group]
        if len(dated) == 2 or len(paired) == 1:
            return axis, [first, (paired or second)[0]]
    return None


def _count_beyond(g: Grounder, way: str, axis: str, line: Line, ref: Line, inclusive: bool = False
                  ) -> Plan | None:
    """The members of the other axis than `axis` whose figure on `line` is beyond (`way`) their
    figure on `ref`, or equal to it when `inclusive` (`met or beat their target`)."""
    members = "row" if axis == "col" else "col"
    against = {label.id: value for value, label, _ in member_values(g, members, ref)}
    vals = [(value, label, node) for value, label, node in member_values(g, members, line)
            if label.id in against]
    if len(vals) < 2:
        return None
    met = [(label, node) for value, label, node in vals if _beyond(value, against[label.id], way, inclusive)]
    return _count_plan(g, met, vals, [line, ref], f"{members}s {way} their figure on the other line",
                       [value - against[label.id] for value, label, _ in vals])


def _percent_line(g: Grounder, axis: str, line: Line) -> bool:
    """Most members show a percentage on `line` (`40.8%`), or its labels say percent."""
    if any("percent" in label_tokens(n.text) or "%" in n.text for n in line.path):
        return True
    shown = [node.text for _, _, node in member_values(g, axis, line)]
    return bool(shown) and 2 * sum("%" in t for t in shown) > len(shown)


def solve_section_count(g: Grounder) -> Plan | None:
    """`how many properties are in the Northeast region`: the members right under the one section
    the question names (its total line left out), or `how many projects are complete`: the rows
    whose category column (`Status`) says what the question names, when the counted noun names the
    members, is not what the other side measures (`Number of properties`) and the question says
    nothing else."""
    noun = ops.counted_noun(g.q)
    stem = next(iter(tokens(noun)), None) if noun else None
    if stem is None or ops.count_condition(g.q) is not None or ops.count_modifier(g.q) is not None:
        return None
    for axis, lines, measured in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        if stem in {t for ln in measured for n in ln.path for t in label_tokens(n.text)} or not names_members(
                g, axis, lines, stem):
            continue
        sections = {n.id: n for ln in lines for n in ln.path[:-1] if g.mention(n) >= 0.99}
        category = g.category_rows if axis == "row" else None
        if len(sections) == 1:
            (section,) = sections.values()
            named = [section]
            members = {ln.path[i + 1].id: ln.path[i + 1] for ln in lines for i, n in enumerate(ln.path[:-1])
                       if n.id == section.id and not is_aggregate(ln)
                       and not is_aggregate_label(ln.path[i + 1])}
        elif category is not None:  # `how many projects are complete`: the rows whose `Status` says so
            named, holding = category
            members = {(m := _member_order(g, ln, stem)[0]).id: m for ln in holding}  # each row's name
        else:
            continue
        said = {st for _, st in content_words(g.q)}
        if said - {stem} - set(g.matched(named[0])) - set(label_tokens(g.graph.table.title or "")):
            return None  # `how many quarters of fiscal 2022 had a net loss` says more than the section
        if len(members) < (2 if len(named) == 1 else 1):
            continue
        computed = ops.Computed(float(len(members)), str(len(members)), NumStyle(), same_unit=False)
        return Plan([computed.text], list(members), [*(n.id for n in named), *members], "count", 0.5,
                    f"{len(members)} {axis}s under {named[0].text.strip()}", computed=computed,
                    stats={"rank_members": float(len(members))})
    return None


def _measure_answer(g: Grounder, plan: Plan) -> bool:
    """Most labels a ranking answered are measure labels (`ops.is_measure_label`)."""
    labels = [g.graph.nodes[i].text for i in plan.answer_nodes]
    return bool(labels) and sum(ops.is_measure_label(t) for t in labels) * 2 > len(labels)


def _rank(g: Grounder, axis: str, fixed: Line, k: int, nth: ops.Place | None = None) -> Plan | None:
    """Rank the members of `axis` on `fixed`: the top `k` labels, or the one at `nth`'s place."""
    place = nth[0] if nth else 1
    vals = member_values(g, axis, fixed)
    category = g.category_rows if axis == "row" else None
    if category is not None:  # `among the percent-off promotions`: the rows whose `Mechanic` says so
        held = {ln.index for ln in category[1]}
        vals = [v for v in vals if v[2].r0 in held]
    if len(vals) < max(2, place):
        return None
    want = nth[1] if nth else ops.direction(g.q) or "max"
    if want == "max" and _LOST_MOST.search(g.qnorm) and gives_change(fixed):  # `lost the most jobs`
        want = "min"  # ranked on a change line: its most negative change
    if want == "max" and _SHORTFALL.search(g.qnorm) and not names_a_size([fixed]) and (
            min(v[0] for v in vals) < 0 < max(v[0] for v in vals)):  # `the largest net internal
        want = "min"  # outflow` on signed net figures: the most negative
    if k > 1:
        if len(vals) <= k:
            return None
        top = sorted(vals, key=lambda v: -v[0] if want == "max" else v[0])[:k]
        return Plan([lab.text.strip() for _, lab, _ in top], [lab.id for _, lab, _ in top],
                    headers_for(g, [fixed]), f"top{k}_{want}", 0.5,
                    f"top {k} by {want} over {len(vals)} {axis}s", col_headers=headers_for(g, [fixed]))
    (_, label, _), ties, gap = pick(vals, want, place)
    named = {normalise_text(lab.text) for _, lab, _ in vals if g.mention(lab) >= 0.99}
    if named == {normalise_text(label.text)} and is_period_label(label.text):  # `which loan segment …
        return None  # in 2023` answered `2023`: the one period the question names is fixed, not ranked
    conf = round(_named_line(g, fixed) / ties, 3)
    return Plan([label.text.strip()], [label.id],
                headers_for(g, [fixed]), f"arg{want}", conf,
                f"{want if place == 1 else f'place {place} by {want}'} over {len(vals)} {axis}s",
                col_headers=headers_for(g, [fixed]),
                stats={"rank_gap": gap, "rank_ties": float(ties), "rank_members": float(len(vals))})


_SHORTFALL = re.compile(r"\b(?:outflows?|deficits?|loss(?:es)?|shortfalls?|unfavou?rable|adverse)\b")
"""What signed net figures show below zero: the largest of it is the most negative (`the largest
unfavourable variance`)."""


def pick(vals: list[Ranked], want: str, place: int) -> tuple[Ranked, int, float]:
    """The member at `place` in `want`'s direction, how many members share its figure, and its gap
    to the nearest neighbour in the ranking as a share of the figures' spread."""
    ordered = sorted(vals, key=lambda v: -v[0] if want == "max" else v[0])
    pick = ordered[place - 1]
    ties = sum(1 for v in vals if v[0] == pick[0])
    spread = ordered[0][0] - ordered[-1][0]
    near = [abs(pick[0] - v[0]) for i, v in enumerate(ordered[: place + 1]) if i != place - 1]
    return pick, ties, min(near) / abs(spread) if spread and near else 0.0


WHOLE_TOLERANCE = 0.002
"""How near the sum of the other members a member must be to be their whole (counts rounded to
thousands; hitab_train rankings: 0.01 also took rates and near-sums, +2 −3; counts within 0.002,
+2 −0)."""


def _without_whole(vals: list[Ranked]) -> list[Ranked]:
    """The members less one that is the sum of all the others (a total without the word: `Canada`
    over every province): a ranking compares the parts, never the whole. Only counts (whole
    numbers) add up; rates and percentages do not. Asked only of a table with no total line."""
    if len(vals) < 3 or any(v < 0 or v != int(v) for v, _, _ in vals):
        return vals
    top = max(vals, key=lambda v: v[0])
    rest = sum(v for v, _, _ in vals) - top[0]
    whole = rest > 0 and abs(top[0] - rest) <= WHOLE_TOLERANCE * rest
    return [v for v in vals if v is not top] if whole else vals


Option = tuple[float, Node, Line]


def _parallel(g: Grounder, ga: Option, gb: Option, lines: list[Line]) -> tuple[Option, Option]:
    """The two options on lines alike but for the options' own labels: `females > percentage` is
    compared with `males > percentage`, not with `males > thousands` (the best-grounded such pair;
    the options as grounded when their lines already are alike or no pair is)."""
    def rest(ln: Line, node: Node) -> tuple[str, ...]:
        return tuple(normalise_text(n.text) for n in ln.path if n.id != node.id)

    if rest(ga[2], ga[1]) == rest(gb[2], gb[1]):
        return ga, gb
    alike = [(la, lb) for la in lines if ga[1] in la.path for lb in lines if gb[1] in lb.path
             and rest(la, ga[1]) == rest(lb, gb[1])]
    if not alike:
        return ga, gb
    la, lb = max(alike, key=lambda p: (g.line_score(p[0]) + g.line_score(p[1]), -p[0].index))
    return (ga[0], ga[1], la), (gb[0], gb[1], lb)


def ground_option(g: Grounder, phrase: str, lines: list[Line], shared: frozenset[str] = frozenset(),
                  before_or: bool | None = None) -> Option | None:
    """The header node (any level of a line's path) best matching an option phrase, and its line.

    Match = Jaccard of the phrase's and the label's content stems (`_overlap`), negations kept
    (`non helmet users` ~ `does not always use a helmet`; exact text = 1); among the lines under the
    best-matching nodes (a label may repeat under several sections) the best-grounded one supplies
    the value (e.g. `current smoker > always uses helmet`, `females > percent` rather than its CI
    columns). Stems in `shared` (words every option repeats: `peripheral municipalities or central
    municipalities`) are left out when the phrase keeps others, so the options' distinguishing words
    decide. Equal matches go to the label whose words stand nearest the `or` (`before_or`: the
    phrase comes before it; `more males or females aged 0 to 14 in 2016` → `Females`, not `2016`).
    """
    ptoks = set(label_tokens(phrase))
    if ptoks - shared:
        ptoks -= shared
    if not ptoks:
        return None
    pwords = [(raw, st) for raw, st in content_words(phrase) if st in ptoks]
    found: list[Option] = []
    for ln in lines:
        for node in ln.path:
            ltoks = set(label_tokens(node.text))
            if not ltoks:
                continue
            s = _overlap(node.text, ltoks, ptoks, pwords)
            if normalise_text(node.text) == normalise_text(phrase):
                s = 1.0
            if s > 0:
                found.append((s, node, ln))
    if not found:
        return None
    top = max(s for s, _, _ in found)
    order = [st for _, st in content_words(phrase)]

    def nearness(node: Node) -> int:
        at = [i for i, st in enumerate(order) if st in label_tokens(node.text)]
        if before_or is None or not at:
            return 0
        return max(at) - len(order) if before_or else -min(at)

    return max((f for f in found if f[0] == top),
               key=lambda f: (nearness(f[1]), g.line_score(f[2]), -f[2].index))


def _overlap(label: str, ltoks: set[str], ptoks: set[str], pwords: list[tuple[str, str]]) -> float:
    """Jaccard of label and phrase stems; for a label sharing no stem with the phrase, phrase words
    the label abbreviates (`ont` ~ `ontario`, `b.c` ~ `british columbia`: `lexicon.match_words`,
    strength 0.8) count their strength, each paired with one of the label's words."""
    if ltoks & ptoks:
        return len(ltoks & ptoks) / len(ltoks | ptoks)
    matched = match_words(label, pwords)
    return sum(matched.values()) / (len(ltoks) + len(ptoks) - min(len(matched), len(ltoks)))


_LIKELIHOOD = re.compile(r"\blikel|\bprevalen|\bproportion|\bpercent|\bshare\b|\brates?\b")


def _compared_on(g: Grounder, lines: list[Line]) -> Line:
    """The line two options are compared on: the best-grounded; among lines tied with it, a percent
    or rate line when the question compares likelihoods (`more likely`: shares, not counts)."""
    ranked = g.best(lines)
    top, best = ranked[0]
    if not _LIKELIHOOD.search(g.qnorm):
        return best
    tied = [ln for s, ln in ranked if s >= top - 1e-9]
    rates = [ln for ln in tied if {"percent", "rate"} & {t for n in ln.path for t in label_tokens(n.text)}]
    return rates[0] if rates else best


def solve_pair(g: Grounder, pair: tuple[str, str]) -> Plan | None:
    a, b = pair
    shared = frozenset(label_tokens(a)) & frozenset(label_tokens(b))
    options = []
    for axis, lines in (("row", g.rows), ("col", g.cols)):
        ga, gb = ground_option(g, a, lines, shared, True), ground_option(g, b, lines, shared, False)
        if not (ga and gb):  # the distinguishing words alone match nothing: use the whole phrases
            ga, gb = ground_option(g, a, lines, before_or=True), ground_option(g, b, lines, before_or=False)
        if ga and gb and ga[1].id != gb[1].id and ga[2].index != gb[2].index:
            options.append((ga[0] + gb[0], axis, ga, gb))
    if not options:
        return None
    options.sort(key=lambda x: -x[0])
    score, axis, ga, gb = options[0]
    fixed = _compared_on(g, g.cols if axis == "row" else g.rows)
    ga, gb = _parallel(g, ga, gb, g.rows if axis == "row" else g.cols)
    cells = []
    for _, label, ln in (ga, gb):
        node = value_cell(g.graph, ln, fixed) if axis == "row" else value_cell(g.graph, fixed, ln)
        num = g.number(node)
        if num is None or not g.h.is_data(node):
            return None
        cells.append((num.value, label, node))
    want = ops.direction(g.q) or "max"
    first_wins = (cells[0][0] >= cells[1][0]) == (want == "max")
    _, label, _ = cells[0] if first_wins else cells[1]
    conf = round(min(1.0, score / 2) * (0.5 if cells[0][0] == cells[1][0] else 1.0), 3)
    hdrs = [n for n in headers_for(g, [fixed]) if n != label.id]
    others = [lab.id for _, lab, _ in cells if lab.id != label.id]
    return Plan([label.text.strip()], [label.id], hdrs + others, f"pair_{want}", conf,
                f"compared {a!r} and {b!r} ({cells[0][2].text.strip()} vs {cells[1][2].text.strip()})",
                col_headers=hdrs,
                stats={"pair_score": score, "pair_equal": float(cells[0][0] == cells[1][0])})
