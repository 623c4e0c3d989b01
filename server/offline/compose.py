"""Operand grounding for arithmetic questions whose operands are named indirectly.

A ratio or difference question names its two operands anywhere in the header hierarchy (`how many
times did non-indigenous csds have as many businesses as first nations` → the column groups
`non-indigenous …` and `first nations`, each qualified by inner labels the question also names). A
share question (`what percentage of … was theft`) names the part; the whole is the line it names
(`percentage of revenue`), else the table's aggregate line on the same axis. A decrease asked as a
magnitude (`how much did X decline`) whose cell shows a negative change answers with the opposite
sign.

Every function returns lines (or a rewritten plan); the arithmetic itself is `operations.compute`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, TypeAlias

from celltrace.server.infra.retrieval import tokens
from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import is_period_label, period_end
from celltrace.server.offline.lexicon import NEGATION_WORDS, label_tokens, word_stems
from celltrace.server.offline.lines import (
    AGGREGATE_LABEL_WORDS,
    VARIANCE_LABEL,
    group_totals,
    is_aggregate,
    labels_recur,
)
from celltrace.server.offline.operations import Op
from celltrace.server.offline.polarity import polar_label
from celltrace.shared.graph import Node, normalise_text, phrase_spans, words
from celltrace.shared.units import parse_unit

if TYPE_CHECKING:
    from celltrace.server.offline.grounding import Grounder, Plan
    from celltrace.server.offline.lines import Line

Operand = tuple[Node, frozenset[int]]
"""A named header node and the indices of the lines under it."""
OPERAND_MIN_MENTION = 0.5
"""A header node counts as a named operand when the question mentions at least this much of it."""
FULL_MENTION = 0.99
"""A mention this complete names the label whole."""


def position(g: Grounder, node: Node) -> int:
    """Where the question mentions a label: its text, else its first word the question holds or
    names through the vocabulary (999: not found)."""
    text = normalise_text(node.text)
    if found := re.search(rf"(?<!\w){re.escape(text)}(?!\w)", g.qnorm):  # `men` is not in `women`
        return found.start()
    polar = polar_label(text)
    if polar is not None:  # `Yes`/`No`: where the question says the characteristic, or negates it
        return g.polar.get(polar, 999)
    stems, own = set(label_tokens(node.text)), set(tokens(node.text))
    offset = 0
    for word in g.qnorm.split():  # not a word negating the label (`non-resident` for `Residents`)
        extra = (said := set(tokens(word))) - own
        if said & stems and not (extra and extra <= NEGATION_WORDS):
            return offset
        offset += len(word) + 1
    matched = g.matched(node)  # a word matched through the vocabulary (`women` ~ `Females`)
    return min((m.start() for word, stem in g.qwords if stem in matched
                for m in re.finditer(rf"\b{re.escape(word)}\b", g.qnorm)), default=999)


def operand_nodes(g: Grounder, lines: list[Line]) -> list[Operand]:
    """Header nodes (any level) the question names that single out a subset of `lines`.

    A label repeated under several groups (`employer` under each community type) qualifies rather
    than names an operand and is skipped, as is a label that spans every line or whose text lies
    inside a longer named label (not its own total line's under it: `Current assets` in `Total
    current assets`; `West Total` of a pivot table is no line under `West`).
    """
    under: dict[int, set[int]] = {}
    nodes: dict[int, Node] = {}
    for ln in lines:
        for n in ln.path:
            nodes[n.id] = n
            under.setdefault(n.id, set()).add(ln.index)
    texts = [normalise_text(n.text) for n in nodes.values()]
    held = Counter(t for n in nodes.values() for t in set(label_tokens(n.text)))
    full = {nid: period_end(n.text) is not None and g.mention(n) >= FULL_MENTION for nid, n in nodes.items()}
    said: dict[int, bool] = {}  # under a period the question names (`FY2024 > Digital`)
    for ln in lines:
        for j, n in enumerate(ln.path):
            said[n.id] = said.get(n.id, False) or any(full[p.id] for p in ln.path[:j])
    alike = Counter(texts)
    named_alike = Counter(normalise_text(n.text) for n in nodes.values() if said[n.id])

    def single(n: Node) -> bool:  # one of its text, or the one under a period the question names
        text = normalise_text(n.text)  # (not a unit: `number` under `Owner | Renter` names neither)
        return alike[text] == 1 or (said[n.id] and named_alike[text] == 1 and parse_unit(n.text) is None)

    named = [
        n for n in nodes.values()
        if len(under[n.id]) < len(lines) and single(n)
        and not VARIANCE_LABEL.search(n.text)  # `Fcst vs Budget` compares the two, it is neither
        and (g.mention(n) >= OPERAND_MIN_MENTION or _first_word_named(g, n, held))
    ]
    named = [n for n in named if not any(  # `Forecast` over the months beside `FY2024 Fcst` for `the
        o.id != n.id and len(under[n.id]) > 1 == len(under[o.id]) and not under[o.id] & under[n.id]
        and set() < set(g.matched(n)) < set(g.matched(o))
        and set(g.matched(o)) - set(g.matched(n)) - NEGATION_WORDS for o in named)]  # (`the full-year
    # forecast`): a heading over several lines whose words a line's own label says and more (not
    # only its negation: `Residents` beside `Non-residents`; a month named as such, `May`, matches no word)
    by_key = {normalise_text(n.text): n for n in named}

    def own_total(k: str, o: str) -> bool:  # `Total current assets`, a line under `Current assets`
        return set(words(o)) - set(words(k)) <= AGGREGATE_LABEL_WORDS and under[by_key[o].id] <= under[
            by_key[k].id]

    return [
        (n, frozenset(under[n.id])) for k, n in by_key.items()
        if not said_only_inside(g.qnorm, k, [o for o in by_key if k != o and f" {k} " in f" {o} "
                                             and not own_total(k, o)])
    ]


def _total_after(lines: list[Line], heading: Node, members: frozenset[int]) -> frozenset[int]:
    """The total line right after a heading's lines, outside it, that says the heading's words
    (`Total Client Solutions` after `Client Solutions Group (CSG):` > `Commercial`, `Consumer`): the
    heading's one line as an operand."""
    if len(members) < 2 or any(ln.label is heading for ln in lines):  # a heading with figures of its own
        return frozenset()
    last = max(i for i, ln in enumerate(lines) if ln.index in members)
    nxt = lines[last + 1] if last + 1 < len(lines) else None
    if nxt is None or nxt.label is None or heading in nxt.path or not is_aggregate(nxt):
        return frozenset()
    said = set(label_tokens(nxt.label.text)) - set(label_tokens(" ".join(AGGREGATE_LABEL_WORDS)))
    return frozenset({nxt.index}) if said and said <= set(label_tokens(heading.text)) else frozenset()


def _first_word_named(g: Grounder, node: Node, held: Counter[str]) -> bool:
    """The question says the label's first word, which no other label here holds: a name by its
    first word (`Atlanta` for `Atlanta Hartsfield-Jackson (ATL)`)."""
    toks = label_tokens(node.text)
    return bool(toks) and held[toks[0]] == 1 and g.matched(node).get(toks[0], 0.0) >= 1.0


def said_only_inside(question: str, label: str, longer: list[str]) -> bool:
    """Whether `label` is only part of the `longer` labels here: true unless the question says one
    of them outright and says `label` outright outside it too (`percentage of revenue was cost of
    revenue` names `revenue` as well as `cost of revenue`; `cargo revenue` names only the longer)."""
    said = [span for o in longer for span in phrase_spans(question, o)]
    if not longer or not said:
        return bool(longer)
    covered = {i for start, end in said for i in range(start, end)}
    return all(start in covered for start, _ in phrase_spans(question, label))


def _parallel_lines(g: Grounder, lines: list[Line], a: Operand, b: Operand) -> tuple[Line, Line]:
    """The best-grounded line under each operand, preferring lines with the same inner labels."""
    ops_ids = {a[0].id, b[0].id}

    def inner(ln: Line) -> tuple[str, ...]:
        return tuple(normalise_text(n.text) for n in ln.path if n.id not in ops_ids)

    pairs = [(x, y) for x in lines if x.index in a[1] for y in lines if y.index in b[1]]
    return max(
        pairs,
        key=lambda p: (g.line_score(p[0]) + g.line_score(p[1]) + 0.5 * (inner(p[0]) == inner(p[1])),
                       -p[0].index, -p[1].index),
    )


def operand_pair(g: Grounder) -> tuple[str, list[Line], Line] | None:
    """Two disjoint named operands on one axis, in question order, and the fixed line on the other.

    Returns (axis of the operands, [first, second] lines, fixed line) or None.
    """
    best: tuple[float, str, list[Line], Line] | None = None
    for axis, every, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        found = next(((pairs, lines) for lines in (every, *_named_groups(g, every))
                      if (pairs := _pairs(g, operand_nodes(g, lines)))), None)
        if found is None:
            continue
        pairs, lines = found
        # equal mention: the labels whose every word (stopwords too) the question holds (`not a
        # visible minority`, not `other visible minority`, for `did not belong to a visible minority`)
        score, _, a, sa, b, sb = max(pairs, key=lambda p: (p[0], p[1]))
        if best is not None and score <= best[0]:
            continue
        ordered = sorted([(a, _total_after(lines, a, sa) or sa), (b, _total_after(lines, b, sb) or sb)],
                         key=lambda op: position(g, op[0]))
        first, second = _parallel_lines(g, lines, *ordered)
        best = (score, axis, [first, second], g.best(other)[0][1])
    return None if best is None else best[1:]


_Pair = tuple[float, float, Node, frozenset[int], Node, frozenset[int]]


def _pairs(g: Grounder, named: list[Operand]) -> list[_Pair]:
    """Pairs of disjoint operands each named apart from the other, with their mention and cover."""
    return [(g.mention(a) + g.mention(b), _literal_cover(g, a) + _literal_cover(g, b), a, sa, b, sb)
            for i, (a, sa) in enumerate(named) for b, sb in named[i + 1:]
            if not sa & sb and _named_apart(g, a, b) and _named_apart(g, b, a)]


def _named_groups(g: Grounder, lines: list[Line]) -> list[list[Line]]:
    """The lines under each label the question names that heads several of them, the best named
    first: the labels that repeat in other groups (`Males`, `Females` under `2011` and under `2021`;
    `Owner`, `Renter` over `number` and over `percent`) name operands of their own within the named
    group (`… in 2021`, `how many` → `number`). Sought only when no pair is named across every line."""
    groups: dict[int, list[Line]] = {}
    nodes: dict[int, Node] = {}
    for ln in lines:
        for n in ln.path:
            groups.setdefault(n.id, []).append(ln)
            nodes[n.id] = n
    named = [i for i, sub in groups.items()
             if 1 < len(sub) < len(lines) and g.mention(nodes[i]) >= OPERAND_MIN_MENTION]
    return [groups[i] for i in sorted(named, key=lambda i: -g.mention(nodes[i]))]


def _named_apart(g: Grounder, node: Node, other: Node) -> bool:
    """`node` is named by a word of its own, not only by words it shares with `other` (`first
    nations living off reserve` is not named by `… living on reserve`), unless said outright or
    `other` is its negation and its words are said more often than the negation (`ratio of
    non-resident to resident nights`)."""
    mine, theirs = set(g.matched(node)), set(g.matched(other))
    if mine - theirs or phrase_spans(g.qnorm, normalise_text(node.text)):
        return True
    said = Counter(word_stems(g.qnorm))
    return bool(mine) and theirs - mine == {"not"} and min(said[t] for t in mine) > said["not"]


def _literal_cover(g: Grounder, node: Node) -> float:
    """Share of the label's words, stopwords included, that the question holds (same word or stem)."""
    qwords = set(words(g.qnorm))
    qstems = {t for w in qwords for t in tokens(w)}
    label = [w for w in words(node.text) if w.isalpha()]
    if not label:
        return 0.0
    return sum(w in qwords or bool(set(tokens(w)) & qstems) for w in label) / len(label)


Grounded: TypeAlias = "tuple[str, list[Line], Line]"
"""The axis of the operands, the operand lines, and the fixed line on the other axis."""


def part_and_whole(g: Grounder) -> tuple[Op, str, list[Line], Line] | None:
    """A share `part / whole`: the named part nearest the question's percent wording, and its whole
    on the same axis (`percent_of`); with the operation to apply.

    The whole is the line the question names as such (`what percentage of revenue was …`: any line,
    total or not; the part is then named outside that phrase). Else it is an aggregate line: the
    one in the part's own group when there is one, else the most mentioned, then the most generic
    (fewest words), then the last aggregate line of the axis. A part named only by a total line (a
    group's own, `West Total` in a pivot table) is a part of the other totals (`Grand Total`). With no
    whole on its axis, a part whose line the whole's phrase names on the other is a share of it and
    its siblings together (`percent_of_all`: `women` of `physics doctorate recipients`, no total).
    """
    found = (g.qnorm.find(w) for w in ("percent", "proportion", "share", "fraction"))
    anchor = min((p for p in found if p >= 0), default=0)
    phrase = ops.share_whole(g.qnorm) is not None
    return next((found for strict in ((True, False) if phrase else (False,))
                 if (found := _part_and_whole(g, anchor, phrase, strict))), None)


def _part_and_whole(g: Grounder, anchor: int, phrase: bool,
                    strict: bool) -> tuple[Op, str, list[Line], Line] | None:
    """`part_and_whole` on the axis whose part is nearest `anchor`. A label said only inside the
    whole's phrase qualifies the whole, not a part: when `strict` (`percentage of engineering
    students were women`: the part is `Women`, of the `Total` on Engineering's line; tried first),
    else when it is a period (`share of 2023 sales`) or the whole is named on its axis."""
    best: tuple[int, Op, str, list[Line], Line] | None = None
    kindred: tuple[Op, str, list[Line], Line] | None = None  # no whole on either axis: the siblings'
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        whole_named = _named_whole(g, lines)
        totals = [whole_named] if whole_named else [ln for ln in lines if is_aggregate(ln)]
        inside = strict or whole_named is not None
        named = [(n, s) for n, s in operand_nodes(g, lines) if not _all_aggregate(lines, s)
                 and not (whole_named and s <= {whole_named.index})
                 and not (len(s) > 1 and is_period_label(n.text))  # `in 2023` over a group: no part
                 and not (g.matched(n) and g.matched(n).keys() <= PERCENT_STEMS)  # nor `Percent of employed`
                 # named by `percentage` alone, nor a percentage itself (`RN share of nursing FTEs`)
                 and not PERCENT_STEMS & set(label_tokens(n.text)) and "%" not in n.text
                 and (_said_beside(g, n) or not (inside or (phrase and is_period_label(n.text))))]
        if not named and not whole_named and not strict:
            # a group's own total named (`West Total` of a pivot table) is a part of the other totals
            named = [(n, s) for n, s in operand_nodes(g, lines) if _all_aggregate(lines, s)]
            totals = [ln for ln in totals if not any(ln.index in s for _, s in named)]
        if not named and whole_named is not None:
            named = _part_in_named_group(g, lines, whole_named)
        if not named:
            continue
        # a label the question names whole before one it names in part (`Current assets`, not
        # `Intangible assets` by the `assets` of `total assets`); equally near: one it says verbatim
        # (`Net income`, not `Other income, net`), then the most said (`Line E - Packaging` of `Line E`)
        node, members = min(named, key=lambda ns: (g.mention(ns[0]) < FULL_MENTION,
                                                   _distance(position(g, ns[0]), anchor),
                                                   not g.verbatim(ns[0]), -g.mention(ns[0])))
        dist = _distance(position(g, node), anchor)
        if best is not None and dist >= best[0]:
            continue
        part = max((ln for ln in lines if ln.index in members), key=lambda ln: (g.line_score(ln), -ln.index))
        parts = _heading_members(node, [ln for ln in lines if ln.index in members], lines) or [part]
        wholes = [ln for ln in totals if ln.index != part.index]  # a share of itself is none
        if is_aggregate(part):  # a group's own total (`Total, Northern Region`) is a part of a total
            wholes = [ln for ln in wholes if len(ln.path) < len(part.path)] or wholes  # above it
        fixed = _count_line(g, other)
        # no total line of its own: the total of the part's group among other headings (`Total >
        # Dec 2024` over the locations)
        wholes = wholes or group_totals(g.graph, part, lines, other)
        if wholes:
            whole = max(wholes, key=lambda ln: _whole_rank(g, part, ln))
            best = (dist, "percent_of", axis, [*parts, whole], fixed)
        elif strict and len(parts) == 1 and (kin := _kin(part, lines)):
            kindred = kindred or ("percent_of_all", axis, [part, *kin], fixed)
    return best[1:] if best is not None else kindred


MAX_KIN = 5
"""The most siblings a part is a share of together: the categories of one breakdown shown side by
side (`Male | Female`, `Residents | Non-residents`, the types of a decision)."""


def _kin(part: Line, lines: list[Line]) -> list[Line]:
    """The part's siblings where no line totals them (`Male` beside `Female` under `2023`): with the
    part, the whole a share of its own line's figures divides by (`what percentage of physics
    doctorate recipients were women`). None when a sibling is a total, a percentage, a period or a
    measure (years and measures are no parts of a whole), or heads lines of its own, or when there are
    more than `MAX_KIN` (a long list of lines, subtotals unmarked among them, is no partition)."""
    kin = [ln for ln in lines if ln is not part and ln.parent_ids == part.parent_ids]
    heads = {n.id for ln in lines for n in ln.path[:-1]}
    if len(kin) > MAX_KIN or any(
            is_aggregate(ln) or ln.label is None or ln.label.id in heads or "%" in ln.label.text
            or PERCENT_STEMS & set(label_tokens(ln.label.text)) or is_period_label(ln.label.text)
            or ops.is_measure_label(ln.label.text) for ln in [part, *kin]):
        return []
    return kin


def _heading_members(node: Node, members: list[Line], lines: list[Line]) -> list[Line]:
    """The lines a heading with no line of its own stands for (`Surgical` over its departments, no
    `Total surgical` among them): the part is their sum. None when the heading labels a line itself,
    its group shows a total of its own (which is the part), or its lines are measures, their labels
    repeated under other headings (`Hospital > number | row % | column %`, again under
    `Non-hospital`)."""
    if len(members) < 2 or labels_recur(members, lines) or any(
            (ln.label is not None and ln.label.id == node.id) or is_aggregate(ln) for ln in members):
        return []
    return members


def _part_in_named_group(g: Grounder, lines: list[Line], whole: Line) -> list[Operand]:
    """Lines said beside the whole's phrase under the heading that phrase names most (`Foreign` under
    `Income before income taxes:` for `percentage of income before income taxes … in foreign
    jurisdictions`, not the `Foreign` lines of the provision), else under the whole's own label
    (`Intramural` under `All agencies`): a label repeated under several headings, which
    `operand_nodes` leaves out."""
    phrase = set(label_tokens(ops.share_whole(g.qnorm) or ""))
    found = [((len(phrase & {t for n in ln.path[:-1] for t in label_tokens(n.text)}),
               whole.label is not None and whole.label in ln.path[:-1]), ln) for ln in lines
             if ln.label is not None and ln.index != whole.index and _said_beside(g, ln.label)]
    most = max((k for k, _ in found), default=(0, False))
    return [(ln.label, frozenset({ln.index})) for k, ln in found if any(most) and k == most and ln.label]


PERCENT_STEMS = frozenset(label_tokens("percent percentage share proportion"))
"""Stems of the words that ask for a percentage (a label they match is named by no other word)."""


def _named_whole(g: Grounder, lines: list[Line]) -> Line | None:
    """The line the question names as the whole (`what percentage of revenue was …` → `Revenue`;
    `of Canada's employment` → `Canada`): its label is the named phrase or its possessor, a leading
    `total`/`all` aside; the first such line. Else the total line, or the line heading a group,
    whose other words the phrase all says (`Total fatalities` for `all traffic fatalities`, not
    `Total nonoccupants`; `Water` over its kinds for `water tonnage`), the fullest. Else the one
    outer total line when the title says every word of the phrase (the table's whole)."""
    phrase = ops.share_whole(g.qnorm)
    if phrase is None:
        return None
    bare = _TOTAL_PREFIX.sub("", normalise_text(phrase))
    owner = _POSSESSOR.match(bare)  # `canada's employment`: the whole is Canada
    names = {bare, owner.group(1)} if owner else {bare}
    labelled = [(ln, _TOTAL_PREFIX.sub("", normalise_text(ln.label.text)))
                for ln in lines if ln.label is not None]
    found = next((ln for ln, text in labelled if text in names), None)
    if found is not None:
        return found
    said = set(label_tokens(bare))
    heads = {n.id for ln in lines for n in ln.path[:-1]}
    partial = [(len(own), -ln.index, ln) for ln, text in labelled if (is_aggregate(ln) or (
        ln.label is not None and ln.label.id in heads)) and (own := set(label_tokens(text))) and own <= said]
    if partial:
        return max(partial)[2]
    totals = [ln for ln in lines if is_aggregate(ln) and len(ln.path) == 1]
    title = label_tokens(g.graph.table.title or "")
    initials = "".join(t[0] for t in title)  # `R&D` is said by `research and development`
    return totals[0] if len(totals) == 1 and said and all(
        t in title or (t.isalpha() and len(t) >= 2 and t in initials) for t in said) else None
    # `all federal R&D obligations` under `Federal obligations for research and development …`


_POSSESSOR = re.compile(r"^(.+?)'s\b")


def _said_beside(g: Grounder, node: Node) -> bool:
    """Whether the question names a word of the label outside the whole it names with its leading
    `total` or `all` (the word itself, or one the label matches through the vocabulary or as
    initials: `nasa`)."""
    m = ops.SHARE_WHOLE.search(g.qnorm)  # `percentage of total headcount` left out
    rest = g.qnorm[:m.start()] + " " + g.qnorm[m.end(1):] if m else g.qnorm
    matched, said = g.matched(node), set(words(rest))
    return bool(set(label_tokens(node.text)) & set(label_tokens(rest))) or any(
        stem in matched and word in said for word, stem in g.qwords)


_TOTAL_PREFIX = re.compile(r"^(?:(?:the|all|total)\s+)+")


def _distance(pos: int, anchor: int) -> int:
    """Text distance, a label after the anchor preferred over one before it."""
    return pos - anchor if pos >= anchor else 500 + anchor - pos


def _all_aggregate(lines: list[Line], members: frozenset[int]) -> bool:
    return all(is_aggregate(ln) for ln in lines if ln.index in members)


def _whole_rank(g: Grounder, part: Line, total: Line) -> tuple[int, float, int, int]:
    """The part's own group's total when the question names the group (not only by words of the
    part's own label: `Fairhaven Unified School District` names no `School Districts`), then the
    most mentioned, the most generic (fewest words), the last."""
    shared = 0
    for x, y in zip(part.path[:-1], total.path[:-1], strict=False):
        if x.id != y.id:
            break
        shared += bool(set(label_tokens(x.text)) - set(label_tokens(part.label.text if part.label else ""))
                       & {st for _, st in g.qwords})  # said apart from the part's own label
    label = total.label
    mention = round(g.mention(label), 1) if label else 0.0
    n_words = len(label_tokens(label.text)) if label else 0
    return shared, mention, -n_words, total.index


def _count_line(g: Grounder, lines: list[Line]) -> Line:
    """The best-grounded line that holds counts rather than percentages (a share is computed)."""
    ranked = [ln for _, ln in g.best(lines)]
    counts = [ln for ln in ranked if not any(PERCENT_STEMS & set(label_tokens(n.text)) or "%" in n.text
                                             for n in ln.path)]  # nor a share (`… share of lunches`)
    return (counts or ranked)[0]


_SIGNED_CHANGE = re.compile(r"\bchang|\bdiffer(?!ent\b)")


def opposite_of_decrease(g: Grounder, plan: Plan) -> Plan:
    """A decrease asked as an amount (`how much did X decline`) or an outflow (`how much was spent
    on X`: a statement shows `(150)`) on a negative cell: its magnitude. A decrease word of a label
    the question quotes whole (`Churned and contraction ARR`) asks none."""
    question = g.q
    outflow = ops.asks_outflow(question) and not _SIGNED_CHANGE.search(g.qnorm)  # `how much did paid
    # claims change` asks a signed change, not what was paid
    quoted = [g.graph.node(i) for i in plan.header_nodes if g.verbatim(g.graph.node(i))]
    own = {w for n in quoted for w in ops.words(n.text)}
    decrease = ops.asks_decrease(question) and not (ops.DECREASE_WORDS & set(ops.words(question))) <= own
    if plan.operation != "lookup" or len(plan.answer) != 1 or not (outflow or decrease):
        return plan
    num = ops.parse(plan.answer[0])
    if num is None or num.value >= 0:
        return plan
    plan.answer = [ops.magnitude(num)]
    plan.operation = "opposite"
    plan.explanation += " (an outflow, given as a positive amount)" if outflow else (
        " (a decrease, given as a positive amount)")
    return plan
