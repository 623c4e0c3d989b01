"""Lookups: the best-grounded cell, a row's label (which/who), a row's year (when), or one cell per
listed item (`A and B respectively`)."""

from __future__ import annotations

import re
from collections import Counter

from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import (
    YEAR,
    Grounder,
    Plan,
    headers_for,
    question_position,
    ranked_cells,
    stated_values,
)
from celltrace.server.offline.lexicon import label_tokens, vocabulary, word_stems
from celltrace.server.offline.lines import Line, has_value, is_code, on_line, value_cell
from celltrace.shared.graph import Node, normalise_text


def _confidence(g: Grounder, ranked: list[tuple[float, Line, Line]]) -> float:
    if not ranked:
        return 0.0
    s0, r0, c0 = ranked[0]
    text0 = normalise_text(value_cell(g.graph, r0, c0).text)
    runner = next(
        (s for s, r, c in ranked[1:] if normalise_text(value_cell(g.graph, r, c).text) != text0), 0.0
    )
    cov = g.coverage(r0, c0)
    margin = min(1.0, (s0 - runner) / 0.15) if s0 > 0 else 0.0
    return round(max(0.0, min(1.0, 0.5 * cov + 0.5 * margin)), 3)


def solve_lookup(g: Grounder) -> Plan:
    ranked = ranked_cells(g)
    if not ranked:
        return Plan([], [], [], "lookup", 0.0, "no cell matched")
    _, row, col = ranked[0]
    conf = _confidence(g, ranked)
    asks_time, asks_name = bool(TIME_QUESTION.search(g.qnorm)), wants_label(g.qnorm)
    quoted = quoted_row(g) if asks_time or asks_name else None
    row = quoted or row
    if asks_time:
        when = _time_answer(g, row)
        if when is not None:
            hdrs = [i for i in headers_for(g, [row]) if i != when.id]
            return Plan([when.text.strip()], [when.id], hdrs, "lookup_time", conf, "year of the row",
                        row_headers=hdrs)
    # `which note discloses inventories`: the asked noun heads the chosen column (`Notes`), whose
    # figure on the row is the answer, not one of the row's labels (a name there is a row note,
    # answered as a label)
    cell = value_cell(g.graph, row, col)
    attribute = (asks_name and cell not in row.notes
                 and g.asked_noun in label_tokens(col.label.text if col.label else ""))
    label = None if attribute else _label_answer(g, row, "row") if asks_name else _named_label(g, row)
    if label is not None:
        hdrs = headers_for(g, [col])
        return Plan([label.text.strip()], [label.id], hdrs, "lookup_label", conf, "row label",
                    row_headers=[], col_headers=hdrs)
    rh, ch = headers_for(g, [row]), headers_for(g, [col])
    plan = Plan([cell.text.strip()], [cell.id], rh + [i for i in ch if i not in rh], "lookup", conf,
                f"cell at row {row.index}, column {col.index}", rh, ch)
    if g.unfilled is not None and g.unfilled[0] > ranked[0][0]:
        plan.shadowed = g.unfilled[1].id
    return plan


def quoted_row(g: Grounder) -> Line | None:
    """The one row holding two or more of the figures the question quotes (`when did he make 44
    receptions for 523 yards`): a question giving a row's figures asks for that row's name or year."""
    quoted = stated_values(g.qnorm)
    if len(quoted) < 2:
        return None
    counts: list[tuple[int, Line]] = []
    for row in g.rows:
        values = {num.value for c in range(g.h.header_cols, g.graph.n_cols)
                  if g.h.is_data(cell := g.graph.node_at(row.index, c)) and (num := g.number(cell))}
        counts.append((len(quoted & values), row))
    best = max((k for k, _ in counts), default=0)
    rows = [row for k, row in counts if k == best]
    return rows[0] if best >= 2 and len(rows) == 1 else None


def wants_label(qnorm: str) -> bool:
    """A which/who question, unless an amount is asked first: `what was the rate of manitoba,
    which had the highest rate?` wants the rate (the `which` clause only describes the item)."""
    return ops.asks_label(qnorm) and not ops.amount_before_name(qnorm)


_WHAT_NOUNS = re.compile(r"^\s*what\s+(?!(?:was|were|is|are|did|do|does|has|have|had|will|would)\b)"
                         r"([^\W\d_]+(?:\s+[^\W\d_]+){0,2})")
"""`what <noun> …` (`what employee group`); `what was …` names no noun."""


def _named_label(g: Grounder, row: Line) -> Node | None:
    """`What employee group … was represented by AFA?`: the words after `what` are the header over
    the first column of row labels (`Employee Group`), so the row's name there is asked, not a
    figure; unless the question already names it (`what club did he join after eastleigh`). So is a
    label beside the row's name (`What are the payment terms for Bluewater?`: its `Net 45` under
    `Terms`; `What was Duke's rank …`: its `11` under `Rank`)."""
    m = _WHAT_NOUNS.match(g.qnorm) or _POSSESSED.match(g.qnorm)
    first = row.path[0] if row.path else None
    if m is not None and first is not None and first.c0 == 0 and has_value(first) and g.mention(first) < 1.0:
        words = m.group(1).split()  # (the row's `Rank` asked of it by name: a measure's header too)
        if _heads(g, first, [words[:k] for k in range(1, len(words) + 1)], measures=m.re is _POSSESSED):
            return first
    m = _WHAT_THE_NOUNS.match(g.qnorm) or _POSSESSED.match(g.qnorm)
    beside = [n for n in row.path if on_line(row, n)]  # under a section too (`Housing and controls`)
    if m is None or len(beside) < 2:
        return None
    named = set(label_tokens(m.group(1)))  # `what is the unit cost of …` names the column `Unit Cost`:
    if any(ln.label is not None and set(label_tokens(ln.label.text)) == named
           and g.number(value_cell(g.graph, row, ln)) is not None for ln in g.cols):
        return None  # its figure is asked, not the row's `Unit` (`EA`)
    words = m.group(1).split()
    spans = [words[i:j] for i in range(len(words)) for j in range(i + 1, len(words) + 1)]
    return next((n for n in beside[1:] if has_value(n) and g.mention(n) < 1.0 and _heads(g, n, spans)),
                None)


def _heads(g: Grounder, label: Node, spans: list[list[str]], measures: bool = False) -> bool:
    """One of the word spans is the header over `label`'s column (a measure's header aside, unless
    `measures`)."""
    corners = {frozenset(label_tokens(c.text)) for c in g.h.col_path(label)
               if measures or not ops.is_measure_label(c.text)}
    return any(frozenset(toks) in corners for span in spans if (toks := label_tokens(" ".join(span))))


_WHAT_THE_NOUNS = re.compile(r"^\s*what\s+(?:is|are|was|were)\s+(?:the\s+)?([^\W\d_]+(?:\s+[^\W\d_]+){0,2})"
                             r"\s+(?:of|for)\b")
"""`what are the payment terms for …`: the noun asked of a named row."""
_POSSESSED = re.compile(r"^\s*what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:[^\W\d_][\w.&-]*\s+){0,4}?"
                        r"[^\W\d_][\w.&-]*['’]s\s+([^\W\d_]+(?:\s+[^\W\d_]+){0,2})")
"""`what was Duke's rank …`: the noun asked of a row named before it."""


def _label_answer(g: Grounder, line: Line, axis: str) -> Node | None:
    """For which/who questions: the label of `line` that the question asks for.

    A name cell of the row under a column the asked noun names (`which league …` → the row's
    `premier league` under `league`); the left-band column (or top-band row) whose corner/outer
    header the question mentions; else the outermost unmentioned label when the question names the
    others (`which club … in 2012-13`), the innermost when it names none; None when every label is
    mentioned (it then asks for a value).
    """
    path = [n for n in line.path if has_value(n)]
    if not path:
        return None
    who = axis == "row" and _WHO.match(g.qnorm) is not None
    if axis == "row":
        for note in line.notes:  # `which league …`: the row's name under a `league` column
            if g.asked_noun in {t for c in g.h.col_path(note) for t in label_tokens(c.text)}:
                return note
        best, best_m = None, (0.0, 0)
        for n in path:
            if who and is_code(n.text):  # `who`: a name, never a code or a date
                continue
            corner = g.h.col_path(n)  # the header the question mentions most, then by more words
            m = max(((g.mention(c), len(g.matched(c))) for c in corner), default=(0.0, 0))
            if g.mention(n) < 1.0 and (m > best_m or (  # (`principal investigator` over `site`); of
                    m == best_m and best is not None and _rather(line, n, best))):
                best, best_m = n, m  # two headers the question names alike, the row's own name
        if best is not None and best_m[0] >= 0.5:
            return best
    unmentioned = [n for n in path if g.mention(n) < 0.5]
    if not unmentioned:
        return None
    if who and len(unmentioned) > 1:  # a name, under a header naming who (`Contractor`) first
        named = [n for n in unmentioned if not is_code(n.text)]
        roles = [n for n in named
                 if _WHO_HEADERS & {t for c in g.h.col_path(n) for t in label_tokens(c.text)}]
        unmentioned = roles[:1] or named or unmentioned
    return unmentioned[-1] if len(unmentioned) == len(path) else unmentioned[0]


def _rather(line: Line, label: Node, other: Node) -> bool:
    """`label` names the row rather than `other`: not a section's heading on a row above it
    (`Winnipeg`, not `Prairies`; a club merged beside its seasons is no heading), a name, not a
    code (`Bow River at Banff`, not `05BB001`)."""
    def rank(n: Node) -> tuple[bool, bool]:
        return n.r1 >= line.index, not is_code(n.text)

    return rank(label) > rank(other)


_WHO = re.compile(r"^\s*(?:to\s+)?(?:who|whom)\b")
_WHO_HEADERS = frozenset(t for w in vocabulary()["who"]["headers"] for t in label_tokens(w))
"""Stems of the headers over the names a `who` question asks for (vocabulary `[who]`)."""


TIME_QUESTION = re.compile(r"^when\b|\bwhen (?:did|was|were|is|does|do|has|had)\b|\b(?:what|which) year\b")
"""A question asking for a point in time: answered by the year of the grounded row."""


def _time_answer(g: Grounder, row: Line) -> Node | None:
    """The first unmentioned year-bearing label of the row, else its first year-bearing data cell."""
    cells = [g.graph.node_at(row.index, c) for c in range(g.h.header_cols, g.graph.n_cols)]
    for n in [*row.path, *(c for c in cells if g.h.is_data(c))]:
        if YEAR.search(n.text) and g.mention(n) < 0.5:
            return n
    return None


FIXED_TRIES = 3
"""Best-grounded lines of the other axis tried, in order, until every listed item has a value."""


def solve_respectively(g: Grounder) -> Plan | None:
    """`… A and B respectively`: one lookup per listed item, in question order.

    The items are the largest set of fully mentioned sibling headers on one axis (`listed_items`);
    the other axis contributes its best-grounded line on which every item has a value (a
    suppressed `..` is never an answer).
    """
    options = [(axis, listed_items(g, lines), other)
               for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols))]
    axis, items, other = max(options, key=lambda o: len(o[1]))
    if len(items) < 2:
        return None
    chosen = [ln for _, ln in items]
    for _, fixed in g.best(other)[:FIXED_TRIES]:
        nodes = [value_cell(g.graph, ln, fixed) if axis == "row" else value_cell(g.graph, fixed, ln)
                 for ln in chosen]
        if all(g.h.is_data(n) and has_value(n) for n in nodes):
            break
    else:
        return None
    conf = round(min(0.9, 0.4 + 0.6 * g.coverage(*chosen, fixed)), 3)
    return Plan([n.text.strip() for n in nodes], [n.id for n in nodes],
                headers_for(g, [*chosen, fixed]), "lookup_each", conf, f"{len(nodes)} lookups along {axis}s")


def listed_items(g: Grounder, lines: list[Line]) -> list[tuple[Node, Line]]:
    """The largest set of sibling header nodes the question fully mentions, each with its best line.

    Siblings sit on one header level (a header row for columns, a header column for rows) under the
    same outer path. A label whose tokens are a strict subset of another item's is dropped (`has
    access` inside `does not have access`) unless the question says its words again outside it
    (`disagreed or strongly disagreed`). Items come in question order.
    """
    said = Counter(word_stems(g.qnorm))
    groups: dict[tuple[int, tuple[int, ...]], dict[str, Node]] = {}
    for ln in lines:
        for depth, node in enumerate(ln.path):
            if g.mention(node) >= 0.99:
                key = (node.r0 if ln.axis == "col" else node.c0, tuple(n.id for n in ln.path[:depth]))
                groups.setdefault(key, {}).setdefault(normalise_text(node.text), node)
    best: list[tuple[Node, Line]] = []
    best_key = (2, 0.0)
    for found in groups.values():
        toks = {n.id: set(label_tokens(n.text)) for n in found.values()}
        items = [n for n in found.values() if not any(toks[n.id] < t and not all(
            said[x] > 1 for x in toks[n.id]) for t in toks.values())]
        chosen = [(n, _best_under(g, n, lines)) for n in items]
        key = (len(chosen), sum(g.line_score(ln) for _, ln in chosen))
        if key > best_key:
            best, best_key = chosen, key
    return sorted(best, key=lambda item: question_position(g, item[0]))


def _best_under(g: Grounder, node: Node, lines: list[Line]) -> Line:
    """The best-grounded line whose path holds `node` (`women > percent` rather than its CI)."""
    under = [ln for ln in lines if any(n.id == node.id for n in ln.path)]
    return max(under, key=lambda ln: (g.line_score(ln), -ln.index))
