"""The offline solver: ground a question on the header structure, pick cells, compute the answer.

`solve(question, graph, headers, retriever)` is pure (no loop, no LLM) and returns a `Plan`:

1. **Grounding.** Question tokens (stemmed, stopwords dropped) are weighted by rarity among the
   table's header labels (idf). Each data row has a row-header path (labels + parents) and each data
   column a column-header path. A cell (row, col) scores by how much of the coverable question its
   two paths explain, plus how completely the innermost labels are mentioned (precision), plus an
   embedding match of the innermost labels against question n-grams when lexical evidence is weak.
2. **Operation** (see `operations`): lookup, label lookup (which/who), pair choice, argmax/argmin,
   difference, ratio, percent-of, sum, average, max/min, count.
3. **Evidence.** Answer nodes = every data cell used (or the label returned); header nodes = the
   labels that qualified them.
4. **Confidence** = grounding coverage × margin over the best cell with a different value; the policy
   abstains below the configured minimum.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from celltrace.server.offline import compose
from celltrace.server.offline import operations as ops
from celltrace.server.retrieval import STOPWORDS, Retriever, tokens
from celltrace.shared.graph import CellGraph, Node, normalise_text
from celltrace.shared.headers import HeaderModel, is_number_text

AGGREGATE_LABEL_WORDS = frozenset({"total", "all", "overall", "average", "mean", "sum", "subtotal"})
"""Labels of aggregate lines, skipped when ranking the members of a group (argmax, pair)."""
TITLE_WEIGHT = 0.5
"""Weight of question words the table title also holds: they often restate context, not a cell.
Unit words (`percent`, `number`) keep full weight: a title listing them names several columns."""
MAX_GRAMS = 48
"""Question n-grams embedded per question (bounds the per-question model time)."""
EMBED_MIN = 0.65
"""Cosine (MiniLM) above which a label counts as softly mentioned by a question n-gram (HiTab dev
lookups, dense: 0.55 → 67.2, 0.6 → 67.9, 0.65 → 68.1, 0.7 → 66.8; both table halves gain at 0.65)."""


@dataclass
class Line:
    """A data row or data column with its header path (outermost first).

    `notes` are the row's text data cells (names, not figures): matched like labels, never evidence.
    """

    axis: str  # "row" | "col"
    index: int
    path: list[Node]
    notes: list[Node] = field(default_factory=list)

    @property
    def label(self) -> Node | None:
        return self.path[-1] if self.path else None


@dataclass
class Plan:
    """The solver's result: answer, evidence, operation and the VisitNode phrases to replay."""

    answer: list[str]
    answer_nodes: list[int]
    header_nodes: list[int]
    operation: str
    confidence: float
    explanation: str = ""
    row_headers: list[int] = field(default_factory=list)
    col_headers: list[int] = field(default_factory=list)
    computed: ops.Computed | None = None
    """The number behind a computed answer (value, style, unit kind); None for lookups."""


class Grounder:
    """Per-question scoring of labels, rows, columns and cells against the question.

    Matching works on question *words*: a label matches a question word when they share a stem,
    when one abbreviates the other (`yds` ~ `yards`, `td` ~ `touchdown`: same first letter and a
    subsequence), or when one is the initials of consecutive words of the other (`asm` ~ `available
    seat miles`). Abbreviation matches count 0.8. Question words are weighted by rarity among labels.
    """

    def __init__(self, question: str, graph: CellGraph, headers: HeaderModel, retriever: Retriever | None):
        self.q = question
        self.graph, self.h, self.retriever = graph, headers, retriever
        self.qnorm = normalise_text(question)
        self.qwords = _quantity_words(self.qnorm, _content_words(question))
        self.qtoks = {s for _, s in self.qwords}
        self.rows = self._rows()
        self.cols = self._cols()
        label_nodes = {n.id: n for line in self.rows + self.cols for n in line.path + line.notes}
        self._match: dict[int, dict[str, float]] = {
            nid: _match_words(n.text, self.qwords) for nid, n in label_nodes.items()
        }
        df: dict[str, int] = {}
        for m in self._match.values():
            for t in m:
                df[t] = df.get(t, 0) + 1
        n_labels = max(len(label_nodes), 1)
        title = set(_label_tokens(graph.table.title or "")) - set(UNIT_CANON.values())
        self.w = {t: math.log(1 + n_labels / d) * (TITLE_WEIGHT if t in title else 1.0)
                  for t, d in df.items()}
        self.total_w = sum(self.w.values()) or 1.0
        headers = {n.id: n for line in self.rows + self.cols for n in line.path}
        self._soft = self._soft_matches(list(headers.values()))

    # ---- lines --------------------------------------------------------------------------------
    def _rows(self) -> list[Line]:
        h, g = self.h, self.graph
        out = []
        for r in range(h.header_rows, g.n_rows):
            if r in h.section_rows:
                continue
            cells = [g.node_at(r, c) for c in range(h.header_cols, g.n_cols)]
            data = [n for n in cells if h.is_data(n) and n.r0 == r]
            if not data:
                continue
            out.append(Line("row", r, h.row_path(data[0]), [n for n in data if _is_text_value(n)]))
        return out

    def _cols(self) -> list[Line]:
        h, g = self.h, self.graph
        out = []
        for c in range(h.header_cols, g.n_cols):
            data = [g.node_at(r, c) for r in range(h.header_rows, g.n_rows)]
            data = [n for n in data if h.is_data(n) and n.c0 == c]
            if not data:
                continue
            out.append(Line("col", c, h.col_path(data[0])))
        return out

    # ---- label matching -----------------------------------------------------------------------
    def matched(self, node: Node) -> dict[str, float]:
        m = self._match.get(node.id)
        if m is None:
            m = self._match[node.id] = _match_words(node.text, self.qwords)
        return m

    def mention(self, node: Node, known: frozenset[str] = frozenset()) -> float:
        """How completely the question mentions a label, in [0, 1].

        Tokens in `known` (those the label shares with its parents) are left out unless nothing
        else remains: `recent immigrant` under `immigrant` is mentioned only if `recent` is.
        """
        text = normalise_text(node.text)
        if not text:
            return 0.0
        if len(text) > 2 and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", self.qnorm):
            return 1.0
        if _acronym(text) & self.qtoks:
            return 1.0
        ltoks = _label_tokens(node.text)
        ltoks = [t for t in ltoks if t not in known] or ltoks
        lex = 0.0
        if ltoks:
            m = self.matched(node)
            got = sum(max((v for q, v in m.items() if _tok_hits(lt, q, v)), default=0.0) for lt in ltoks)
            lex = got / len(ltoks)
        return max(lex, self._soft.get(node.id, 0.0))

    def _soft_matches(self, nodes: list[Node]) -> dict[int, float]:
        """Embedding match of header labels with no lexical hit against the question n-grams that
        hold a question word no label explains lexically (none such: no model call)."""
        r = self.retriever
        if r is None or not r.dense:
            return {}
        cands = [n for n in nodes if not self.matched(n) and r.number.get(n.id, 0) is None]
        grams = self._unexplained_grams()
        if not cands or not grams:
            return {}
        vecs = r.node_vectors([n.id for n in cands])
        if vecs is None:
            return {}
        sims = (vecs @ r.embedder.encode(grams).T).max(axis=1)
        return {n.id: 0.8 * float(s) for n, s in zip(cands, sims, strict=True) if s >= EMBED_MIN}

    def _unexplained_grams(self) -> list[str]:
        """Question 1-3-grams holding a content word that no label (nor text cell) matches."""
        explained = {q for m in self._match.values() for q in m}
        asked = ops.asked_category(self.q)
        open_words = {raw for raw, st in self.qwords if st not in explained and raw != asked}
        words = re.findall(r"[\w'&-]+", self.qnorm)
        return list(dict.fromkeys(
            " ".join(words[i : i + k]) for k in (1, 2, 3) for i in range(len(words) - k + 1)
            if open_words & set(words[i : i + k])
        ))[:MAX_GRAMS]

    # ---- scores ------------------------------------------------------------------------------
    def coverage(self, *lines: Line | None) -> float:
        """Weighted share of the coverable question words explained by the lines' labels."""
        best: dict[str, float] = {}
        for line in lines:
            if line is None:
                continue
            for n in line.path + line.notes:
                for q, v in self.matched(n).items():
                    if v > best.get(q, 0.0):
                        best[q] = v
                if self._soft.get(n.id):
                    best[f"#soft{n.id}"] = self._soft[n.id]
        return sum(self.w.get(q, 1.0) * v for q, v in best.items()) / self.total_w

    def _label_bonus(self, line: Line) -> float:
        if line.label is None:
            return 0.0
        parents = sum(self.mention(n) for n in line.path[:-1]) / max(len(line.path) - 1, 1)
        known = frozenset(t for n in line.path[:-1] for t in _label_tokens(n.text))
        return 0.3 * self.mention(line.label, known) + 0.05 * parents

    def line_score(self, line: Line) -> float:
        """Coverage of the question by this line's path alone, plus label completeness.

        An aggregate line (total/all) gets a small default bonus: an unqualified question means it.
        """
        return self.coverage(line) + self._label_bonus(line) + 0.02 * _under_aggregate(line)

    def pair_score(self, row: Line, col: Line) -> float:
        agg = 0.02 * (_under_aggregate(row) + _under_aggregate(col))
        return self.coverage(row, col) + self._label_bonus(row) + self._label_bonus(col) + agg

    def best(self, lines: list[Line]) -> list[tuple[float, Line]]:
        scored = [(self.line_score(ln), ln) for ln in lines]
        scored.sort(key=lambda x: (-x[0], x[1].index))
        return scored


UNIT_CANON = {"percentag": "percent", "proport": "percent", "pct": "percent", "count": "number"}
"""General quantity words folded together (`percentage`/`proportion`/`%` ~ `percent`)."""
NEGATION_WORDS = frozenset({"not", "non", "without", "neither", "nor", "never"})
"""English negations: kept (as the token `not`) although function words, since they flip a label."""


ORDINALS = {w: str(i) for i, w in enumerate(
    ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"), start=1)}
"""English ordinal words, read as their number so that `second quarter` ~ `2nd quarter`."""


@functools.lru_cache(maxsize=65536)
def _stem_pairs(text: str) -> tuple[tuple[str, str], ...]:
    """(raw word, canonical stem) pairs; `%` reads as `percent` unless it follows a number (`95% ci`);
    ordinals read as numbers (`2nd`, `second` → `2`)."""
    t = re.sub(r"(\d)\s*%", r"\1", normalise_text(text)).replace("%", " percent ")
    t = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", t)
    t = re.sub(r"\b[a-z]+\b", lambda m: ORDINALS.get(m.group(0), m.group(0)), t)
    out = []
    for raw in re.findall(r"\d[\d,]*(?:\.\d+)?|[^\W\d_]+", t):
        if raw in NEGATION_WORDS:
            out.append((raw, "not"))
            continue
        if raw in STOPWORDS:
            continue
        st = tokens(raw)
        if st:
            out.append((raw, UNIT_CANON.get(st[0], st[0])))
    return tuple(out)


def _content_words(question: str) -> list[tuple[str, str]]:
    """(raw word, canonical stem) of the question's content words, first occurrence order."""
    seen: dict[str, tuple[str, str]] = {}
    for raw, st in _stem_pairs(question):
        seen.setdefault(st, (raw, st))
    return list(seen.values())


def _quantity_words(qnorm: str, qwords: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Add the quantity a `how many` question asks for: a percent (`how many percentage points`,
    also written without the space) when a percent word is present, else a count (`number`)."""
    if re.search(r"\bhow\s*many\s*percent", qnorm) and all(st != "percent" for _, st in qwords):
        return [*qwords, ("percent", "percent")]
    if re.search(r"\bhow many\b", qnorm) and all(st != "percent" for _, st in qwords):
        return [*qwords, ("number", "number")]
    return qwords


def _label_tokens(text: str) -> list[str]:
    return list(dict.fromkeys(st for _, st in _stem_pairs(text)))


def _abbreviates(short: str, long: str) -> bool:
    """`att` ~ `attempts`, `yds` ~ `yards`, `td` ~ `touchdown`: `short` (alphabetic, 2-5 letters,
    shorter) is a truncation of `long` (a prefix of 3+ letters) or a contraction: its first letter,
    then only consonants, in order (abbreviations drop vowels, so `ci` is not `canadian`)."""
    if not (2 <= len(short) <= 5 and short.isalpha() and len(long) > len(short) and short[0] == long[0]):
        return False
    if len(short) >= 3 and long.startswith(short):
        return True
    if any(ch in VOWELS for ch in short[1:]):
        return False
    it = iter(long)
    return all(ch in it for ch in short)


VOWELS = frozenset("aeiou")
"""English vowel letters (a contraction keeps consonants only after its first letter)."""


def _match_words(label: str, qwords: list[tuple[str, str]]) -> dict[str, float]:
    """Question stems matched by a label → strength (1.0 same stem, 0.8 abbreviation/initials)."""
    pairs = _stem_pairs(label)
    lstems = {st for _, st in pairs}
    lraw = [raw for raw, _ in pairs]
    out: dict[str, float] = {}
    qraw = [raw for raw, _ in qwords]
    for raw, st in qwords:
        if st in lstems:
            out[st] = 1.0
            continue
        if any(_derived(st, ls) or _derived(ls, st) for ls in lstems):
            out[st] = 0.8
            continue
        if any(_abbreviates(lr, raw) or _abbreviates(raw, lr) for lr in lraw):
            out[st] = 0.8
            continue
        if raw.isalpha() and 2 <= len(raw) <= 6 and any(_initials_in(a, lraw) for a in {raw, _singular(raw)}):
            out[st] = 0.8
    for lr in lraw:  # label initials of consecutive question words: `asm` ~ available seat miles
        if lr.isalpha() and 2 <= len(lr) <= 5:
            for i in range(len(qraw) - len(lr) + 1):
                if "".join(w[0] for w in qraw[i : i + len(lr)]) == lr:
                    for _, st in qwords[i : i + len(lr)]:
                        out.setdefault(st, 0.8)
    return out


DERIVATION_SUFFIXES = ("i", "n", "al", "an", "ian", "er", "or", "ion", "ic")
"""English derivational endings (on Snowball stems) relating two words: `guilt` ~ `guilty`,
`withdraw` ~ `withdrawn`/`withdrawal`, `canada` ~ `canadian`, `employ` ~ `employer`."""


def _derived(base: str, stem: str) -> bool:
    """`stem` is `base` plus a derivational ending (the base has at least 4 letters)."""
    return (len(base) >= 4 and base.isalpha() and stem.startswith(base)
            and stem[len(base):] in DERIVATION_SUFFIXES)


def _acronym(text: str) -> set[str]:
    """Stems of a parenthesised acronym of the words before it: `available seat miles (asms)` →
    {`asm`}. The acronym names the whole label, so a question using it mentions the label fully."""
    out: set[str] = set()
    for m in re.finditer(r"\(([a-z]{2,6})\)", text):
        before = re.findall(r"[a-z]+", text[: m.start()])
        if _initials_in(_singular(m.group(1)), before):
            out.update(tokens(m.group(1)) + tokens(_singular(m.group(1))))
    return out


def _singular(abbr: str) -> str:
    """`gars` → `gar`: the plural `s` of an initialism (kept when it is one of only two letters)."""
    return abbr[:-1] if len(abbr) > 2 and abbr.endswith("s") else abbr


def _initials_in(abbr: str, words: list[str]) -> bool:
    n = len(abbr)
    return any("".join(w[0] for w in words[i : i + n]) == abbr for i in range(len(words) - n + 1))


def _tok_hits(label_tok: str, q: str, strength: float) -> bool:
    return label_tok == q or strength < 1.0


def _is_text_value(node: Node) -> bool:
    """A data cell holding a name rather than a figure (`ALPA`, `first division`)."""
    return bool(re.search(r"[^\W\d_]{3}", node.text)) and not is_number_text(node.text)


def _value_cell(graph: CellGraph, row: Line, col: Line) -> Node:
    return graph.node_at(row.index, col.index)


def _is_aggregate(line: Line) -> bool:
    lab = line.label
    return lab is not None and bool(set(normalise_text(lab.text).split()) & AGGREGATE_LABEL_WORDS)


def _under_aggregate(line: Line) -> bool:
    """Some label of the path is an aggregate (`total > percent`): the default when unqualified."""
    return any(set(normalise_text(n.text).split()) & AGGREGATE_LABEL_WORDS for n in line.path)


def solve(question: str, graph: CellGraph, headers: HeaderModel, retriever: Retriever | None) -> Plan:
    """Answer `question` from the table structure alone (see the module docstring)."""
    g = Grounder(question, graph, headers, retriever)
    if not g.rows or not g.cols:
        return Plan([], [], [], "none", 0.0, "no data region found")
    if ops.asks_union(question):
        plan = _solve_union(g)
        if plan is not None:
            return plan
    pair = ops.pair_options(question)
    if pair is not None:
        plan = _solve_pair(g, pair)
        if plan is not None:
            return plan
    k = ops.top_k(question)
    if k is not None or (ops.asks_ranked_label(question) and ops.direction(question) is not None
                         and not ops.amount_before_name(question)):
        plan = _solve_argmax(g, k or 1)
        if plan is not None:
            return plan
    label_vocab = {t for text in [graph.table.title or "", *(n.text for n in headers.header_nodes())]
                   for t in _label_tokens(text)}
    qstems = {t for w in ops.words(question) for t in tokens(w)}

    def free(word_stems: set[str]) -> bool:
        """An op word counts only when it is not part of the table's own labels or title."""
        hits = word_stems & qstems
        return bool(hits) and not hits <= label_vocab

    lookup_is_percent = _lookup_is_percent(g)
    for op, test in (
        ("growth", lambda q: ops.asks_growth(q) and not lookup_is_percent),
        ("percent_of", lambda q: ops.asks_share(q) and not lookup_is_percent),
        ("ratio", lambda q: ops.has_phrase(q, ops.RATIO_PHRASES)),
        ("diff", lambda q: (ops.has_phrase(q, ops.DIFF_PHRASES) and free(_stems(ops.DIFF_PHRASES)))
         or (ops.asks_comparison_amount(q) and not _names_a_label(g, ops.comparison_phrase(q)))),
        ("average", lambda q: free(_stems(tuple(ops.AVERAGE_WORDS)))),
        ("sum", lambda q: free(_stems(tuple(ops.SUM_WORDS))) or _joined(q)),
    ):
        if test(question):
            plan = _solve_multi(g, op)  # type: ignore[arg-type]
            if plan is not None:
                return plan
    if "respectively" in ops.words(question):
        plan = _solve_respectively(g)
        if plan is not None:
            return plan
    return compose.opposite_of_decrease(_solve_lookup(g), question)


def _names_a_label(g: Grounder, phrase: str) -> bool:
    """Some header label holds `phrase` (`more medical care use than usual`): not an operation."""
    return bool(phrase) and any(phrase in normalise_text(n.text) for ln in g.rows + g.cols for n in ln.path)


def _joined(q: str) -> bool:
    """An explicit aggregate over listed items: `sum`/`combined`/`altogether`, or `total … and …`."""
    w = set(ops.words(q))
    return bool(w & {"sum", "combined", "altogether"}) or ("total" in w and "and" in w)


def _stems(phrases: tuple[str, ...]) -> set[str]:
    return {t for p in phrases for w in p.split() for t in tokens(w)}


def _lookup_is_percent(g: Grounder) -> bool:
    """The best single cell already is a percentage (shown with % or under a percent label)."""
    ranked = _ranked_cells(g)
    if not ranked:
        return False
    _, row, col = ranked[0]
    node = _value_cell(g.graph, row, col)
    labels = {t for n in row.path + col.path for t in _label_tokens(n.text)}
    return "%" in node.text or "percent" in labels


# ---- lookup -----------------------------------------------------------------------------------
def _ranked_cells(g: Grounder) -> list[tuple[float, Line, Line]]:
    """Candidate (row, column) intersections, best first; cells with no value (`..`, `-`) are skipped
    (statistical suppression marks are never the answer)."""
    rows = g.best(g.rows)[:12]
    cols = g.best(g.cols)[:12]
    out = []
    for _, r in rows:
        for _, c in cols:
            node = _value_cell(g.graph, r, c)
            if g.h.is_data(node) and re.search(r"\w", node.text):
                out.append((g.pair_score(r, c), r, c))
    out.sort(key=lambda x: (-x[0], x[1].index, x[2].index))
    return out


def _confidence(g: Grounder, ranked: list[tuple[float, Line, Line]]) -> float:
    if not ranked:
        return 0.0
    s0, r0, c0 = ranked[0]
    text0 = normalise_text(_value_cell(g.graph, r0, c0).text)
    runner = next(
        (s for s, r, c in ranked[1:] if normalise_text(_value_cell(g.graph, r, c).text) != text0), 0.0
    )
    cov = g.coverage(r0, c0)
    margin = min(1.0, (s0 - runner) / 0.15) if s0 > 0 else 0.0
    return round(max(0.0, min(1.0, 0.5 * cov + 0.5 * margin)), 3)


def _headers_for(g: Grounder, lines: list[Line]) -> list[int]:
    """The headers that qualify the chosen lines: each line's header path, outermost first, without
    labels spanning the whole table width (a title qualifies every cell, so it tells nothing)."""
    width = g.graph.n_cols - 1
    return list(
        dict.fromkeys(n.id for line in lines for n in line.path if not (n.c0 == 0 and n.c1 == width))
    )


def _solve_lookup(g: Grounder) -> Plan:
    ranked = _ranked_cells(g)
    if not ranked:
        return Plan([], [], [], "lookup", 0.0, "no cell matched")
    _, row, col = ranked[0]
    conf = _confidence(g, ranked)
    if TIME_QUESTION.search(g.qnorm):
        when = _time_answer(g, row)
        if when is not None:
            hdrs = [i for i in _headers_for(g, [row]) if i != when.id]
            return Plan([when.text.strip()], [when.id], hdrs, "lookup_time", conf, "year of the row",
                        row_headers=hdrs)
    if _wants_label(g.qnorm):
        label = _label_answer(g, row, "row")
        if label is not None:
            hdrs = _headers_for(g, [col])
            return Plan([label.text.strip()], [label.id], hdrs, "lookup_label", conf, "row label",
                        row_headers=[], col_headers=hdrs)
    node = _value_cell(g.graph, row, col)
    rh, ch = _headers_for(g, [row]), _headers_for(g, [col])
    return Plan([node.text.strip()], [node.id], rh + [i for i in ch if i not in rh], "lookup", conf,
                f"cell at row {row.index}, column {col.index}", rh, ch)


def _wants_label(qnorm: str) -> bool:
    """A which/who question, unless an amount is asked first: `what was the rate of manitoba,
    which had the highest rate?` wants the rate (the `which` clause only describes the item)."""
    return ops.asks_label(qnorm) and not ops.amount_before_name(qnorm)


def _solve_respectively(g: Grounder) -> Plan | None:
    """`… A and B respectively`: one lookup per listed item, in question order.

    The items are the largest set of fully mentioned sibling headers on one axis (`_listed_items`);
    the other axis contributes its best-grounded line.
    """
    options = [(axis, _listed_items(g, lines), other)
               for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols))]
    axis, items, other = max(options, key=lambda o: len(o[1]))
    if len(items) < 2:
        return None
    chosen = [ln for _, ln in items]
    fixed = g.best(other)[0][1]
    nodes = [_value_cell(g.graph, ln, fixed) if axis == "row" else _value_cell(g.graph, fixed, ln)
             for ln in chosen]
    if not all(g.h.is_data(n) for n in nodes):
        return None
    conf = round(min(0.9, 0.4 + 0.6 * g.coverage(*chosen, fixed)), 3)
    return Plan([n.text.strip() for n in nodes], [n.id for n in nodes],
                _headers_for(g, [*chosen, fixed]), "lookup_each", conf, f"{len(nodes)} lookups along {axis}s")


def _listed_items(g: Grounder, lines: list[Line]) -> list[tuple[Node, Line]]:
    """The largest set of sibling header nodes the question fully mentions, each with its best line.

    Siblings sit on one header level (a header row for columns, a header column for rows) under the
    same outer path. A label whose tokens are a strict subset of another item's is dropped (`has
    access` inside `does not have access`). Items come in question order.
    """
    groups: dict[tuple[int, tuple[int, ...]], dict[str, Node]] = {}
    for ln in lines:
        for depth, node in enumerate(ln.path):
            if g.mention(node) >= 0.99:
                key = (node.r0 if ln.axis == "col" else node.c0, tuple(n.id for n in ln.path[:depth]))
                groups.setdefault(key, {}).setdefault(normalise_text(node.text), node)
    best: list[tuple[Node, Line]] = []
    best_key = (2, 0.0)
    for found in groups.values():
        toks = {n.id: set(_label_tokens(n.text)) for n in found.values()}
        items = [n for n in found.values() if not any(toks[n.id] < t for t in toks.values())]
        chosen = [(n, _best_under(g, n, lines)) for n in items]
        key = (len(chosen), sum(g.line_score(ln) for _, ln in chosen))
        if key > best_key:
            best, best_key = chosen, key
    return sorted(best, key=lambda item: _question_position(g, item[0]))


def _best_under(g: Grounder, node: Node, lines: list[Line]) -> Line:
    """The best-grounded line whose path holds `node` (`women > percent` rather than its CI)."""
    under = [ln for ln in lines if any(n.id == node.id for n in ln.path)]
    return max(under, key=lambda ln: (g.line_score(ln), -ln.index))


def _question_position(g: Grounder, node: Node) -> int:
    """Where the question mentions a label: its text, else its first token (words × 5)."""
    pos = g.qnorm.find(normalise_text(node.text))
    if pos < 0:
        first = next(iter(tokens(node.text)), "")
        pos = next((i for i, w in enumerate(g.qnorm.split()) if first and w.startswith(first)), 999) * 5
    return pos


def _label_answer(g: Grounder, line: Line, axis: str) -> Node | None:
    """For which/who questions: the label of `line` that the question asks for.

    The left-band column (or top-band row) whose corner/outer header the question mentions; else the
    outermost unmentioned label when the question names the others (`which club … in 2012-13`), the
    innermost when it names none; None when every label is mentioned (it then asks for a value).
    """
    path = line.path
    if not path:
        return None
    if axis == "row":
        best, best_m = None, 0.0
        for n in path:
            corner = g.h.col_path(n)
            m = max((g.mention(c) for c in corner), default=0.0)
            if m > best_m and g.mention(n) < 1.0:
                best, best_m = n, m
        if best is not None and best_m >= 0.5:
            return best
    unmentioned = [n for n in path if g.mention(n) < 0.5]
    if not unmentioned:
        return None
    return unmentioned[-1] if len(unmentioned) == len(path) else unmentioned[0]


TIME_QUESTION = re.compile(r"^when\b|\bwhen (?:did|was|were|is|does|do|has|had)\b|\b(?:what|which) year\b")
"""A question asking for a point in time: answered by the year of the grounded row."""
_HAS_YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")


def _time_answer(g: Grounder, row: Line) -> Node | None:
    """The first unmentioned year-bearing label of the row, else its first year-bearing data cell."""
    cells = [g.graph.node_at(row.index, c) for c in range(g.h.header_cols, g.graph.n_cols)]
    for n in [*row.path, *(c for c in cells if g.h.is_data(c))]:
        if _HAS_YEAR.search(n.text) and g.mention(n) < 0.5:
            return n
    return None


# ---- argmax / pair ------------------------------------------------------------------------------
def _pick_side(g: Grounder) -> tuple[str, Line]:
    """The axis to rank over and the fixed line on the other axis (the better-grounded side)."""
    best_row = g.best(g.rows)[0]
    best_col = g.best(g.cols)[0]
    if len(g.cols) == 1 or (best_col[0] >= best_row[0] and len(g.rows) > 1):
        return "row", best_col[1]
    return "col", best_row[1]


def _group(lines: list[Line], fixed_parent: list[Node] | None) -> list[Line]:
    members = [ln for ln in lines if not _is_aggregate(ln)]
    return members or lines


def _is_aggregate_label(node: Node) -> bool:
    return bool(set(normalise_text(node.text).split()) & AGGREGATE_LABEL_WORDS)


def _members(g: Grounder, lines: list[Line]) -> list[tuple[Node, Line]]:
    """The members a ranking compares, each with the best-grounded line under it.

    A line's member is its innermost label that is not a qualifier repeated under several groups
    (`%`, `from`, `to` under each sex → the member is the sex). Aggregate members (total/all) are
    left out unless nothing else remains.
    """
    ids: dict[str, set[int]] = {}
    for ln in lines:
        for n in ln.path:
            ids.setdefault(normalise_text(n.text), set()).add(n.id)
    best: dict[int, tuple[Node, Line]] = {}
    for ln in lines:
        node = next((n for n in reversed(ln.path) if len(ids[normalise_text(n.text)]) == 1), ln.label)
        if node is None:
            continue
        cur = best.get(node.id)
        if cur is None or g.line_score(ln) > g.line_score(cur[1]):
            best[node.id] = (node, ln)
    members = list(best.values())
    return [m for m in members if not _is_aggregate_label(m[0])] or members


def _solve_argmax(g: Grounder, k: int = 1) -> Plan | None:
    """The label of the top (bottom) ranked member, or of the `k` top-ranked ones (`list the top 3`,
    ranked in the question's direction, `max` when it names none).

    Members that are mostly measures (`%`, `number`, `from`/`to` of an interval, `coefficient`) are
    not what a `which …` question compares: the other axis is ranked instead, at its best line.
    """
    axis, fixed = _pick_side(g)
    plan = _rank(g, axis, fixed, k)
    if plan is not None and _measure_answer(g, plan):
        fixed_other = g.best(g.rows if axis == "row" else g.cols)[0][1]
        other = _rank(g, "col" if axis == "row" else "row", fixed_other, k)
        if other is not None and not _measure_answer(g, other):
            return other
    return plan


def _measure_answer(g: Grounder, plan: Plan) -> bool:
    """Most labels a ranking answered are measure labels (`ops.is_measure_label`)."""
    labels = [g.graph.nodes[i].text for i in plan.answer_nodes]
    return bool(labels) and sum(ops.is_measure_label(t) for t in labels) * 2 > len(labels)


def _rank(g: Grounder, axis: str, fixed: Line, k: int) -> Plan | None:
    lines = _group(g.rows if axis == "row" else g.cols, None)
    # restrict to the best-grounded sibling group when the varying side is partly mentioned
    scored = g.best(lines)
    top = scored[0][0]
    if top > 0.2:
        parents = {tuple(n.id for n in ln.path[:-1]) for s, ln in scored if s >= top - 0.05}
        if len(parents) == 1:
            parent = next(iter(parents))
            lines = [ln for ln in lines if tuple(n.id for n in ln.path[:-1]) == parent]
    vals = []
    for label, ln in _members(g, lines):
        node = _value_cell(g.graph, ln, fixed) if axis == "row" else _value_cell(g.graph, fixed, ln)
        num = ops.parse(node.text)
        if num is not None and g.h.is_data(node):
            vals.append((num.value, label, node))
    if len(vals) < 2:
        return None
    want = ops.direction(g.q) or "max"
    if k > 1:
        if len(vals) <= k:
            return None
        top = sorted(vals, key=lambda v: -v[0] if want == "max" else v[0])[:k]
        return Plan([lab.text.strip() for _, lab, _ in top], [lab.id for _, lab, _ in top],
                    _headers_for(g, [fixed]), f"top{k}_{want}", 0.5,
                    f"top {k} by {want} over {len(vals)} {axis}s", col_headers=_headers_for(g, [fixed]))
    pick = max(vals, key=lambda v: v[0]) if want == "max" else min(vals, key=lambda v: v[0])
    _, label, node = pick
    ties = sum(1 for v in vals if v[0] == pick[0])
    conf = round(min(1.0, 0.4 + 0.6 * g.mention(fixed.label) if fixed.label else 0.4) / ties, 3)
    return Plan([label.text.strip()], [label.id],
                _headers_for(g, [fixed]), f"arg{want}", conf,
                f"{want} over {len(vals)} {axis}s", col_headers=_headers_for(g, [fixed]))


def _ground_option(g: Grounder, phrase: str, lines: list[Line],
                   shared: frozenset[str] = frozenset()) -> tuple[float, Node, Line] | None:
    """The header node (any level of a line's path) best matching an option phrase, and its line.

    Match = Jaccard of the phrase's and the label's content stems, negations kept (`non helmet users`
    ~ `does not always use a helmet`; exact text = 1); among the lines under the best-matching nodes
    (a label may repeat under several sections) the best-grounded one supplies the value (e.g.
    `current smoker > always uses helmet`, `females > percent` rather than its CI columns). Stems in
    `shared` (words every option repeats: `peripheral municipalities or central municipalities`) are
    left out when the phrase keeps others, so the options' distinguishing words decide.
    """
    ptoks = set(_label_tokens(phrase))
    if ptoks - shared:
        ptoks -= shared
    if not ptoks:
        return None
    found: list[tuple[float, Node, Line]] = []
    for ln in lines:
        for node in ln.path:
            ltoks = set(_label_tokens(node.text))
            if not ltoks:
                continue
            s = len(ltoks & ptoks) / len(ltoks | ptoks)
            if normalise_text(node.text) == normalise_text(phrase):
                s = 1.0
            if s > 0:
                found.append((s, node, ln))
    if not found:
        return None
    top = max(s for s, _, _ in found)
    return max((f for f in found if f[0] == top), key=lambda f: (g.line_score(f[2]), -f[2].index))


def _solve_pair(g: Grounder, pair: tuple[str, str]) -> Plan | None:
    a, b = pair
    shared = frozenset(_label_tokens(a)) & frozenset(_label_tokens(b))
    options = []
    for axis, lines in (("row", g.rows), ("col", g.cols)):
        ga, gb = _ground_option(g, a, lines, shared), _ground_option(g, b, lines, shared)
        if not (ga and gb):  # the distinguishing words alone match nothing: use the whole phrases
            ga, gb = _ground_option(g, a, lines), _ground_option(g, b, lines)
        if ga and gb and ga[1].id != gb[1].id and ga[2].index != gb[2].index:
            options.append((ga[0] + gb[0], axis, ga, gb))
    if not options:
        return None
    options.sort(key=lambda x: -x[0])
    score, axis, ga, gb = options[0]
    other = g.cols if axis == "row" else g.rows
    fixed = g.best(other)[0][1]
    cells = []
    for _, label, ln in (ga, gb):
        node = _value_cell(g.graph, ln, fixed) if axis == "row" else _value_cell(g.graph, fixed, ln)
        num = ops.parse(node.text)
        if num is None or not g.h.is_data(node):
            return None
        cells.append((num.value, label, node))
    want = ops.direction(g.q) or "max"
    first_wins = (cells[0][0] >= cells[1][0]) == (want == "max")
    _, label, _ = cells[0] if first_wins else cells[1]
    conf = round(min(1.0, score / 2) * (0.5 if cells[0][0] == cells[1][0] else 1.0), 3)
    hdrs = [n for n in _headers_for(g, [fixed]) if n != label.id]
    others = [lab.id for _, lab, _ in cells if lab.id != label.id]
    return Plan([label.text.strip()], [label.id], hdrs + others, f"pair_{want}", conf,
                f"compared {a!r} and {b!r} ({cells[0][2].text.strip()} vs {cells[1][2].text.strip()})",
                col_headers=hdrs)


# ---- multi-cell arithmetic -----------------------------------------------------------------------
def _mentioned_lines(g: Grounder, lines: list[Line]) -> list[tuple[int, Line]]:
    """Lines whose innermost label is fully mentioned, with the label's position in the question."""
    out = []
    seen_labels: set[str] = set()
    for ln in lines:
        lab = ln.label
        if lab is None or g.mention(lab) < 0.99:
            continue
        key = normalise_text(lab.text)
        pos = _question_position(g, lab)
        if key in seen_labels:
            continue
        seen_labels.add(key)
        out.append((pos, ln))
    out.sort(key=lambda x: x[0])
    # drop labels contained in a longer mentioned label ("revenue" inside "cargo revenue")
    keys = [normalise_text(ln.label.text) for _, ln in out]  # type: ignore[union-attr]
    return [x for x, k in zip(out, keys, strict=True) if not any(k != o and k in o for o in keys)]


def _solve_multi(g: Grounder, op: ops.Op) -> Plan | None:
    """Arithmetic over several cells: ≥ 2 mentioned lines on one axis × the best line on the other.

    With a single mentioned line, `average` (and an explicit `sum`) runs over every non-aggregate
    member of the other axis instead. A comparison (`rate of A lower than that of B`) grounds its two
    operands first (`compose.operand_pair`: labels at any level, the most specific on ties).
    """
    if op == "diff" and ops.asks_comparison_amount(g.q):
        plan = _solve_indirect(g, op)
        if plan is not None:
            return plan
    for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols)):
        mentioned = _mentioned_lines(g, lines)
        if len(mentioned) < 2:
            continue
        chosen = [ln for _, ln in mentioned]
        if op in ("diff", "ratio", "percent_of", "growth"):
            chosen = chosen[:2]
            if (op in ("diff", "growth") and _from_to(g.q)) or (op == "diff" and ops.comparison_is_less(g.q)):
                chosen = chosen[::-1]
            if op == "percent_of":
                if not any(_is_aggregate(ln) for ln in chosen):
                    continue  # "what percent of X were Y" without a total is usually a lookup
                if _is_aggregate(chosen[0]):
                    chosen = chosen[::-1]
        elif op == "sum" and not _joined(g.q):
            continue
        fixed = g.best(other)[0][1]
        plan = _compute_plan(g, op, axis, chosen, fixed)
        if plan is not None:
            return plan
    plan = _solve_indirect(g, op)
    if plan is not None:
        return plan
    if op == "average" or (op == "sum" and set(ops.words(g.q)) & {"sum", "combined", "altogether"}):
        _, best_row = g.best(g.rows)[0]
        _, best_col = g.best(g.cols)[0]
        if g.line_score(best_row) >= g.line_score(best_col):
            fixed, axis, members = best_row, "col", g.cols
        else:
            fixed, axis, members = best_col, "row", g.rows
        return _compute_plan(g, op, axis, [ln for ln in members if not _is_aggregate(ln)], fixed)
    return None


def _solve_union(g: Grounder) -> Plan | None:
    """An amount for alternatives together (`either A or B`): the sum over the listed sibling items.

    The items must include the alternative after the last `or`; None when a label the question
    names holds the `or` itself (`family member or acquaintance`).
    """
    alts = ops.alternatives(g.q)
    if not alts or any(" or " in f" {normalise_text(n.text)} " and g.mention(n) >= 0.99
                       for ln in g.rows + g.cols for n in ln.path):
        return None
    last = set(tokens(alts[-1]))
    options = [(axis, _listed_items(g, lines), other)
               for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows))]
    axis, items, other = max(options, key=lambda o: len(o[1]))
    if len(items) < 2 or not any(last & set(tokens(n.text)) for n, _ in items):
        return _union_of_options(g)
    return _compute_plan(g, "sum", axis, [ln for _, ln in items], g.best(other)[0][1])


UNION_MIN_MATCH = 0.3
"""Least Jaccard match of each alternative with its label when the labels are only paraphrased."""


def _union_of_options(g: Grounder) -> Plan | None:
    """Alternatives only paraphrased (`medium-sized centres or small metropolitan areas`): each one
    grounded like a pair option; they must be distinct sibling labels (one level, one parent)."""
    alts = ops.alternatives(g.q)
    if len(alts) < 2:
        return None
    shared = frozenset.intersection(*(frozenset(_label_tokens(a)) for a in alts))
    best: tuple[float, str, list[Line], list[Line]] | None = None
    for axis, lines, other in (("row", g.rows, g.cols), ("col", g.cols, g.rows)):
        found = [_ground_option(g, a, lines, shared) for a in alts]
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
    return _compute_plan(g, "sum", axis, chosen, g.best(other)[0][1])


def _solve_indirect(g: Grounder, op: ops.Op) -> Plan | None:
    """Two operands named at any header level (`compose`): a ratio, or the part of a whole."""
    if op == "percent_of":
        grounded = compose.part_and_whole(g)
    elif op == "ratio" and not _lookup_names(g, ops.RATIO_PHRASES):
        grounded = compose.operand_pair(g)
    elif op == "diff" and ops.asks_comparison_amount(g.q) and not _lookup_names(g, ops.DIFF_PHRASES):
        grounded = compose.operand_pair(g)  # a table's own change/difference column is a lookup
        if grounded is not None and ops.comparison_is_less(g.q):
            axis, (first, second), fixed = grounded
            grounded = (axis, [second, first], fixed)
    else:
        return None
    return None if grounded is None else _compute_plan(g, op, *grounded)


def _lookup_names(g: Grounder, phrases: tuple[str, ...]) -> bool:
    """The best single cell's headers already name the operation (a `ratio` column): a lookup."""
    ranked = _ranked_cells(g)
    if not ranked:
        return False
    _, row, col = ranked[0]
    labels = {t for n in row.path + col.path for t in _label_tokens(n.text)}
    return bool(labels & _stems(phrases))


def _compute_plan(g: Grounder, op: ops.Op, axis: str, chosen: list[Line], fixed: Line) -> Plan | None:
    nodes = [
        _value_cell(g.graph, ln, fixed) if axis == "row" else _value_cell(g.graph, fixed, ln) for ln in chosen
    ]
    nodes = [n for n in nodes if g.h.is_data(n)]
    nums = [ops.parse(n.text) for n in nodes]
    if len(nodes) < 2 or any(n is None for n in nums):
        return None
    computed = ops.compute(op, nums)  # type: ignore[arg-type]
    if computed is None:
        return None
    conf = min(0.9, 0.4 + 0.6 * g.coverage(*chosen, fixed))
    return Plan([computed.text], [n.id for n in nodes], _headers_for(g, [*chosen, fixed]), op,
                round(conf, 3), f"{op} of {len(nodes)} cells along {axis}s", computed=computed)


def _from_to(q: str) -> bool:
    """`… from A to B` / `between A and B` with change wording: the later value comes first (B − A)."""
    ql = q.lower()
    return bool(re.search(r"\bfrom\b.+\bto\b|\bbetween\b.+\band\b", ql)) and ops.has_phrase(
        q, ("change", "changed", "increase", "increased", "decrease", "decreased", "grew", "rise", "rose",
            "fell", "drop", "decline", "declined", "grow")
    )
