"""Intent: which operation the question's wording and the table's structure ask for.

Detection is ordered: classes that make a range (`fewer than 10 employees`, `the first quarter` over
months) → a count (`in how many years was inflation above 2 percent`, `how many properties are in
the Northeast region`) → union (`either A or B`) →
pair choice (`A or B`) → ranking (`which … highest`,
`top 3`) → a derived measure the question names (`gross margin`, `current ratio`) → growth, share,
ratio, difference, average, sum → lists (`respectively`, `what were A and B`) → lookup. An
operation word counts only when it is not part of the best cell's own labels or the title
(`average age`); an average word not when a label of the table holds it (`mean`, `national
average`: it names that line); a difference not when the best cell already is a change (`% change`),
unless that change is in percent and the question asks how much.
Each operation returns None when its operands are not found; every plan found is a candidate, and
the solver lets the calibrated confidence model choose among them (`solver`).
"""

from __future__ import annotations

import re

from celltrace.server.infra.retrieval import tokens
from celltrace.server.offline import compose
from celltrace.server.offline import operations as ops
from celltrace.server.offline.arithmetic import (
    asks_absolute_change,
    asks_minus,
    asks_total_over_span,
    averages_members,
    best_cell_names,
    joined,
    labels_hold,
    named_group_in,
    names_label_range,
    names_span_ends,
    percentages,
    points_of_a_percent_change,
    said_span,
    solve_classes,
    solve_multi,
    solve_union,
    stems,
)
from celltrace.server.offline.complement import solve_complement
from celltrace.server.offline.grounding import (
    AGGREGATE_STEMS,
    ASKS_CHANGE,
    CHANGE_LABELS,
    EVERY_PERIOD,
    YEAR,
    Grounder,
    Plan,
    gives_change,
    is_period_label,
    ranked_cells,
)
from celltrace.server.offline.lexicon import label_tokens, names_precision
from celltrace.server.offline.lines import SHARE_BASE, Line, is_aggregate, value_cell
from celltrace.server.offline.lookup import solve_lookup, solve_respectively
from celltrace.server.offline.measures import asked_measure, said, solve_measure
from celltrace.server.offline.ranking import (
    counts_members,
    solve_argmax,
    solve_count,
    solve_extreme,
    solve_pair,
    solve_ranked_change,
    solve_section_count,
    solve_spread,
    under_named_group,
)
from celltrace.server.offline.stated import solve_gap
from celltrace.shared.graph import Node, normalise_text, words
from celltrace.shared.units import MEASURES, SCALES, label_unit


def candidates(g: Grounder) -> list[Plan]:
    """A plan for every operation the wording suggests whose operands are found, in detection order,
    then the plain lookup; plans giving the same answer as an earlier one are dropped."""
    question = g.q
    if not g.rows or not g.cols:
        return [Plan([], [], [], "none", 0.0, "no data region found")]
    measure = solve_measure(g)  # a derived measure the question names (`current ratio`, `most over
    # budget`) is its operation, the first candidate
    found: list[Plan | None] = [measure, solve_complement(g), solve_gap(g), solve_classes(g), solve_count(g),
                                solve_section_count(g)]
    if ops.asks_union(question):
        found.append(solve_union(g))
    bounded = ops.without_open_ranges(question)
    pair = ops.pair_options(bounded)
    if pair is not None and not ops.asks_amount_not_choice(bounded) and not _names_a_label(
            g, " or ".join(pair)):  # not `Bachelor's degree or higher`: a label's own `or`
        found.append(solve_pair(g, pair))
    k = ops.top_k(question)
    nth = ops.ordinal_rank(question)
    found.append(solve_ranked_change(g))
    if k is not None or (ops.asks_ranked_label(question) and (nth or ops.direction(question)) is not None
                         and not ops.amount_before_name(question)):
        found.append(solve_argmax(g, k or 1, nth if k is None else None))
    if ops.asks_extreme_value(question):
        found.append(solve_extreme(g))
    found.append(solve_spread(g))
    label_vocab = _own_labels(g)
    qstems = {t for w in ops.words(question) for t in tokens(w)}

    def free(word_stems: set[str]) -> bool:
        """An op word counts only when it is not part of the best cell's own labels or the title."""
        hits = word_stems & qstems
        return bool(hits) and not hits <= label_vocab

    def averaged_named() -> bool:
        """Members or a span of periods named as what is averaged (`… across the equity funds`, `over
        2019/20 through 2021/22`), or a named group's with an average word of the question's own
        (`the mean … average price across the English cities`), whatever labels hold `average`."""
        return averages_members(g) or names_span_ends(g) or (free(stems(tuple(ops.AVERAGE_WORDS))) and (
            named_group_in(g, g.rows) or named_group_in(g, g.cols)))

    unmet: set[str] = set()
    lookup_is_percent = _lookup_is_percent(g) and not g.spans_years
    relative = _relative_for_amount(g)
    computed_change = relative and (not _change_line_names_span(g) or ops.asks_money(g.q)
                                    or points_of_a_percent_change(g))
    names_change = best_cell_names(g, CHANGE_LABELS, own=True) and not g.spans_years and not relative
    for op, test in (
        ("cagr", ops.asks_compound),
        ("growth", lambda q: ops.asks_growth(q) and not lookup_is_percent),
        ("percent_of", lambda q: (ops.asks_share(q) or (
            "percent" in g.qtoks and not ASKS_CHANGE.search(g.qnorm) and _lookup_is_a_count(g)))
         and not lookup_is_percent),
        ("ratio", lambda q: ((ops.has_phrase(q, ops.RATIO_PHRASES) and free(stems(ops.RATIO_PHRASES)))
                             or _per_unlabelled(g)) and not ops.POINTS.search(g.qnorm)),  # points: a
        # difference (`by how many percentage points did Israel's GERD-to-GDP ratio exceed …`)
        ("diff", lambda q: (not names_change or asks_minus(g)) and (  # `A minus B` is
            # asked whatever a label says (`Change in plan assets > Actual return` minus `Interest cost`)
            (ops.has_phrase(q, ops.DIFF_PHRASES) and (free(stems(ops.DIFF_PHRASES)) or computed_change
                                                      or g.spans_years))  # (whatever the title says)
            or asks_minus(g)
            or (ops.asks_comparison_amount(q) and not _names_a_label(g, ops.comparison_phrase(q))))),
        ("average", lambda q: (free(stems(tuple(ops.AVERAGE_WORDS))) or (
            (g.spans_years or EVERY_PERIOD.search(g.qnorm) or averaged_named())
            and ops.has_phrase(q, tuple(ops.AVERAGE_WORDS))))
         and not (labels_hold(g, ops.AVERAGE_WORDS) and not EVERY_PERIOD.search(g.qnorm)
                  and not (g.spans_years and said_span(q)) and not averaged_named())  # `… over 2021–2023`
         and not (names_change and not named_group_in(g, g.rows) and not named_group_in(g, g.cols))
         and not ops.asks_extreme_value(q)),  # `the cheapest average price`; a change averaged over
        # the members of a group named (`the average 12-month change across the shelter sub-components`)
        ("sum", lambda q: free(stems(tuple(ops.SUM_WORDS))) or joined(g) or asks_total_over_span(q)
         or _names_a_category(g) or bool(_ADD_UP.search(g.qnorm)) or names_label_range(g)
         or _counted_over_every_period(g) or _total_of_named_group(g) or _heading_asked(g)),
    ):
        if test(question):
            found.append(solve_multi(g, op))  # type: ignore[arg-type]
            if found[-1] is None:  # asked but not found: whatever answers, answers something else
                unmet.add(UNMET[op])
    if ops.asks_several(question):
        found.append(solve_respectively(g))
    lookup = compose.opposite_of_decrease(g, solve_lookup(g))
    plans: list[Plan] = []
    for plan in [*found, lookup]:
        if plan is not None and plan.answer and all(plan.answer != p.answer for p in plans):
            plans.append(plan)
            plan.stats.update({f"unmet_{kind}": 1.0 for kind in unmet})
    if not any(plan.operation == "count" for plan in plans) and counts_members(g):
        for plan in plans:  # no count found: a cell read is some other figure
            plan.stats["counted_members"] = 1.0
    for plan in plans:
        if _negates_a_label(g, plan):
            plan.stats["negated_label"] = 1.0
    asked = asked_measure(g) if measure is None else None
    if asked is not None and said(asked[0], between=0).search(question):  # `free cash flow` on an
        name, (first, second, _) = asked  # income statement: no answer is it
        for plan in plans:
            plan.unsupported = f"no {name} can be computed from this table (it needs {first} and {second})"
    if names_precision(question) and not any(names_precision(n.text) for ln in g.rows + g.cols
                                             for n in ln.path):  # `the margin of error` where no
        for plan in plans:  # label gives one (a note may state it): no cell is it
            plan.unsupported = "the table shows no margin of error, standard error or interval"
    return plans or [lookup]


_NEGATED = (r"\b(?:not|non|never|no\s+longer)(?:\s*-\s*|\s+)"
            r"(?:(?:in|on|at|of|a|an|the|part\s+of|counted\s+in|included\s+in)\s+)*")
"""A negation and the function words between it and what it negates (`not in the labour force`)."""
_NEGATION = re.compile(_NEGATED)


def _negates_a_label(g: Grounder, plan: Plan) -> bool:
    """The question negates a label the plan reads (`how many women were not in the labour force`
    read at `Labour force`), a label saying no negation itself: the figure asked is that line's
    complement, which no cell read gives; or sets the label's line aside (`operating income …
    before corporate and unallocated costs` read at `Corporate and unallocated costs`)."""
    if not _NEGATION.search(g.qnorm) and not _SET_ASIDE.search(g.qnorm):
        return False
    for i in plan.header_nodes:
        text = normalise_text(g.graph.node(i).text).strip()
        if not text or not label_tokens(text):
            continue
        if "not" not in label_tokens(text) and re.search(_NEGATED + re.escape(text) + r"\b", g.qnorm):
            return True
        if not _SET_ASIDE.search(text) and re.search(_SET_ASIDE.pattern + re.escape(text) + r"\b", g.qnorm):
            return True
    return False


_SET_ASIDE = re.compile(r"\b(?:before|excluding|except(?:\s+for)?|other\s+than|net\s+of)\s+(?:the\s+)?")
"""Words setting a line aside (`before corporate and unallocated costs`, `net of program revenue`):
a plan reading that line reads what the question leaves out."""


UNMET = {"cagr": "change", "growth": "change", "diff": "change", "percent_of": "share", "ratio": "ratio",
         "average": "average", "sum": "sum"}
"""The kind of each operation the wording may ask (`Plan.stats["unmet_<kind>"]`: asked, no operands
found)."""

_PER = re.compile(r"\b[a-z]+\s+per\s+(?!cent\b|capita\b|\d)([a-z]+)")


def _names_a_category(g: Grounder) -> bool:
    """`the value of all Tools stock`, `the total budget of the projects that are in progress`: a sum
    word (even one a `Total` line holds) and a value of a category column that several rows show
    (without the sum word, summing them lost 17 hitab_train answers for 5: tables whose repeated
    labels are no categories)."""
    asked = not ops.SUM_WORDS.isdisjoint(ops.words(g.q)) and not ops.asks_label(g.q)
    found = g.category_rows if asked else None
    return found is not None and len(found[1]) >= 2


def _total_of_named_group(g: Grounder) -> bool:
    """`Ontario's total renewable generation`: a sum word and a group the question names on either
    axis (`Renewable` over its sources), whatever total line the best cell reads (`Total all
    sources` is every source's)."""
    return not ops.SUM_WORDS.isdisjoint(ops.words(g.q)) and (
        named_group_in(g, g.rows) or named_group_in(g, g.cols))


def _heading_asked(g: Grounder) -> bool:
    """`How many deaths from external causes`: a group of rows the question names whose heading shows
    no figure of its own (`External causes` over `Accidents` and `Intentional self-harm`) is asked as
    its members' sum, when an amount is asked and the question names none of them even in part
    (`funding from the companies' own sources` names `Paid for by the company` under `Source of
    funds`), they are no percentages (a share is read, not added up) and no total line says the
    heading's words (`Stoke City total` beside `Stoke City`'s seasons)."""
    lines = g.rows  # (groups of columns are mostly measures or periods: `Receiving > Yds | Avg`)
    if not ops.QUANTITY.search(g.qnorm) or "percent" in g.qtoks or not named_group_in(g, lines):
        return False
    under = under_named_group(g, lines)
    heads = set.intersection(*({n.id for n in ln.path[:-1]} for ln in under))
    words = {t for ln in under for n in ln.path[:-1] if n.id in heads for t in label_tokens(n.text)}
    own = {ln.label.id for ln in lines if ln.label is not None}
    totals = [ln for ln in lines if is_aggregate(ln) and ln.label is not None
              and words <= set(label_tokens(ln.label.text))]
    named = any(ln.label is not None and g.mention(ln.label) > 0 for ln in under)
    return bool(heads) and not heads & own and not named and not totals and not percentages(under, [])


def _per_unlabelled(g: Grounder) -> bool:
    """`revenue per employee` where no label says `per`: one line over another (a table showing the
    rate has it as a line of its own, `Revenue per employee`, or says it in its title, `Net sales per
    selling square foot`, and is looked up); `per year`, `per hour`, `per thousand` state a unit, not
    a line."""
    per = _PER.search(g.qnorm)
    labels = [g.graph.table.title or "", *(n.text for ln in g.rows + g.cols for n in ln.path)]
    return per is not None and per.group(1) not in {*MEASURES, *SCALES} and not any(
        "per" in words(text) for text in labels)


def _own_labels(g: Grounder) -> set[str]:
    """Stems of the title and of the best-grounded cell's row and column labels: an operation word
    among them names that cell (`Average age`, `Total revenue`) rather than asking for arithmetic."""
    ranked = ranked_cells(g)
    nodes = [n for _, row, col in ranked[:1] for n in row.path + col.path]
    return {t for text in [g.graph.table.title or "", *(n.text for n in nodes)] for t in label_tokens(text)}


def _names_a_label(g: Grounder, phrase: str) -> bool:
    """Some header label holds `phrase` (`more medical care use than usual`): not an operation."""
    return bool(phrase) and any(phrase in normalise_text(n.text) for ln in g.rows + g.cols for n in ln.path)


def _best_cell(g: Grounder) -> tuple[Line, Line, Node] | None:
    """The best single cell's row, column and node (None when no cell is grounded)."""
    ranked = ranked_cells(g)
    if not ranked:
        return None
    _, row, col = ranked[0]
    return row, col, value_cell(g.graph, row, col)


def _relative_for_amount(g: Grounder) -> bool:
    """The best cell is a relative change (`% Change`, `Population percentage change`) but the
    question asks how much or how many (`by how much did Hardware revenue decline`, no percent or
    rate word): the change is computed between the periods, not read as a percentage."""
    best = _best_cell(g)
    if best is None or not asks_absolute_change(g):
        return False
    row, col, node = best
    return any(gives_change(ln) and percentages([ln], [node]) for ln in (row, col))


def _change_line_names_span(g: Grounder) -> bool:
    """The best cell's change line names the years the question asks (`% change 2022 to 2023`): it
    is the change asked, however worded; one naming no year (`Increase/(Decrease)`) is not."""
    best = _best_cell(g)
    return best is not None and bool(g.q_years) and any(
        gives_change(ln) and g.q_years <= set(YEAR.findall(" ".join(n.text for n in ln.path)))
        for ln in best[:2])


def _lookup_is_a_count(g: Grounder) -> bool:
    """The best single cell cannot be a percentage: more than 100 (`385,343` for `how many percent
    did women make up of enrollment`): the percent asked is a share to compute."""
    best = _best_cell(g)
    num = g.number(best[2]) if best else None
    return num is not None and abs(num.value) > 100


_ADD_UP = re.compile(r"\badd(?:s|ed|ing)?\s+up\b")
"""`Add up retail trade vacancies over all four quarters`: a sum asked in a verb."""


def _counted_over_every_period(g: Grounder) -> bool:
    """`how many people did Engineering hire across all four quarters of 2024`: an amount over
    every period said adds them up, unless an average is asked (`the average number of …`)."""
    return bool(EVERY_PERIOD.search(g.qnorm) and _HOW_MANY.search(g.qnorm)) and not ops.has_phrase(
        g.q, tuple(ops.AVERAGE_WORDS))


_HOW_MANY = re.compile(r"\bhow (?:many|much)\b")
"""An amount asked (`how many`, `how much`)."""
_CHG = re.compile(r"\bchg\b")
"""`% chg`: a change, abbreviated."""


def _lookup_is_percent(g: Grounder) -> bool:
    """The best single cell already is a percentage (shown with %, under a percent label or a percent
    caption) of what the question names: not when its percent line names nothing of the question
    but a year or the percent itself while a line under the same outer label does (`share of
    Canada's employment` read under `2023 > Unemployment rate > Percent`, beside `2023 >
    Employment`: a rate of another measure)."""
    best = _best_cell(g)
    if best is None or not (percentages([best[0], best[1]], [best[2]]) or g.h.unit_for(best[2]) == "percent"):
        return False
    if g.h.unit_for(best[2]) == "percentage points" and not ops.POINTS.search(g.qnorm):
        return False  # a rate's change in points is no percentage change of what is named
    if _other_base(g, best[0].path + best[1].path) or _whole_on_other_line(g, best[0], best[1]):
        return False
    if not ASKS_CHANGE.search(g.qnorm) and any(gives_change(ln) or _CHG.search(normalise_text(ln.label.text))
                                               for ln in best[:2] if ln.label is not None):
        return False  # `% chg 2024/2023` is no share of 2024's sales
    if any(gives_change(ln) and g.other_span(ln) for ln in best[:2]):  # `Percent change, 2022 to 2023` is
        return False  # no change from 2021
    for line, lines in ((best[0], g.rows), (best[1], g.cols)):
        if len(line.path) < 2 or not percentages([line], [best[2]]) or _named_words(g, line):
            continue
        group = line.path[0].id  # its siblings under the same outer label (`2023`)
        if any(_named_words(g, ln) for ln in lines
               if ln.index != line.index and len(ln.path) >= 2 and ln.path[0].id == group):
            return False
    return True


def _whole_on_other_line(g: Grounder, *best: Line) -> bool:
    """`What share of Canada's October 2024 employment was in Quebec` read at `Employment rate >
    October 2024 > %`: the share's whole names every label of another line on the same axis
    (`Employment > October 2024 > thousands`, its unit aside) that shows no percentages, while the
    percentage line has a label the question does not say (`rate`): the share is computed from
    that line, not read as another measure's rate."""
    whole = ops.share_whole(g.qnorm)
    said_words = set(label_tokens(whole)) if whole else set()

    def named(line: Line) -> bool:  # (its unit and period aside: `FY2024 > Contribution margin`)
        words = {t for n in line.path if label_unit(n.text) is None and not is_period_label(n.text)
                 for t in label_tokens(n.text)}
        return bool(words) and words <= said_words

    for line, lines in ((best[0], g.rows), (best[1], g.cols)):
        if line.label is not None and set(label_tokens(line.label.text)) - {"percent"} and g.mention(
                line.label) >= 0.9:  # the percentage line named itself (`% of FY plan used` for `what
            continue  # percentage of its full-year plan … used`)
        if said_words and percentages([line], []) and not named(line) and any(
                ln.index != line.index and ln.path and not percentages([ln], []) and named(ln)
                for ln in lines):
            return True
    return False


def _other_base(g: Grounder, path: list[Node]) -> bool:
    """A percentage label naming its base (`Percent of employed`) where the question names another
    whole (`what percentage of all union members …`) and no word of that base, or naming a part the
    question does not say (`Free and reduced-price share of lunches` for `what share of all lunches
    were served by Ashford`): a rate of another measure, not the share asked. A base of total words
    alone (`% of total`) is any whole."""
    found = [(set(label_tokens(n.text.lower()[:m.start()])), set(label_tokens(m.group(1))) - AGGREGATE_STEMS)
             for n in path if (m := SHARE_BASE.search(n.text.lower())) is not None]
    said = set(label_tokens(g.q))
    return ops.share_whole(g.q) is not None and any(
        (base and not base & said) or (part and not part & said) for part, base in found)



def _named_words(g: Grounder, line: Line) -> set[str]:
    """The question's words a line's labels match, other than years and percent words."""
    return {q for q in g.line_words(line) if not YEAR.fullmatch(q) and q not in compose.PERCENT_STEMS}

