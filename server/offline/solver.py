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

import math
import re
from dataclasses import dataclass, field

from celltrace.server.offline import operations as ops
from celltrace.server.retrieval import Retriever, tokens
from celltrace.shared.graph import CellGraph, Node, normalise_text
from celltrace.shared.headers import HeaderModel, is_year_text

AGGREGATE_LABEL_WORDS = frozenset({"total", "all", "overall", "average", "mean", "sum", "subtotal"})
"""Labels of aggregate lines, skipped when ranking the members of a group (argmax, pair)."""
EMBED_MIN = 0.6
"""Cosine (MiniLM) above which a label counts as softly mentioned by a question n-gram."""


@dataclass
class Line:
    """A data row or data column with its header path (outermost first)."""

    axis: str  # "row" | "col"
    index: int
    path: list[Node]
    toks: set[str]

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


class Grounder:
    """Per-question scoring of rows, columns and cells against the question."""

    def __init__(self, question: str, graph: CellGraph, headers: HeaderModel, retriever: Retriever | None):
        self.q = question
        self.graph, self.h, self.retriever = graph, headers, retriever
        self.qnorm = normalise_text(question)
        self.qtoks = set(tokens(question))
        self.rows = self._rows()
        self.cols = self._cols()
        label_nodes = {n.id: n for line in self.rows + self.cols for n in line.path}
        df: dict[str, int] = {}
        for n in label_nodes.values():
            for t in set(tokens(n.text)):
                df[t] = df.get(t, 0) + 1
        n_labels = max(len(label_nodes), 1)
        self.w = {t: math.log(1 + n_labels / d) for t, d in df.items()}
        self.coverable = {t for t in self.qtoks if t in self.w}
        self.total_w = sum(self.w[t] for t in self.coverable) or 1.0
        self._soft = self._soft_matches(list(label_nodes.values()))

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
            path = h.row_path(data[0])
            out.append(Line("row", r, path, {t for n in path for t in tokens(n.text)}))
        return out

    def _cols(self) -> list[Line]:
        h, g = self.h, self.graph
        out = []
        for c in range(h.header_cols, g.n_cols):
            data = [g.node_at(r, c) for r in range(h.header_rows, g.n_rows)]
            data = [n for n in data if h.is_data(n) and n.c0 == c]
            if not data:
                continue
            path = h.col_path(data[0])
            out.append(Line("col", c, path, {t for n in path for t in tokens(n.text)}))
        return out

    # ---- node matching ------------------------------------------------------------------------
    def mention(self, node: Node) -> float:
        """How completely the question mentions a label, in [0, 1]."""
        text = normalise_text(node.text)
        if not text:
            return 0.0
        if len(text) > 2 and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", self.qnorm):
            return 1.0
        toks = set(tokens(node.text))
        lex = 0.0
        if toks:
            tw = sum(self.w.get(t, 1.0) for t in toks)
            lex = sum(self.w.get(t, 1.0) for t in toks & self.qtoks) / tw
        return max(lex, self._soft.get(node.id, 0.0))

    def _soft_matches(self, nodes: list[Node]) -> dict[int, float]:
        """Embedding match of labels against question n-grams (only labels with no lexical hit)."""
        if self.retriever is None or not self.retriever.dense:
            return {}
        cands = [n for n in nodes if not (set(tokens(n.text)) & self.qtoks) and not is_year_text(n.text)]
        if not cands:
            return {}
        words = [w for w in re.findall(r"[\w'&-]+", self.qnorm)]
        grams = list(dict.fromkeys(
            " ".join(words[i : i + k]) for k in (1, 2, 3) for i in range(len(words) - k + 1)
            if not all(x in _STOP for x in words[i : i + k])
        ))
        if not grams:
            return {}
        import numpy as np

        emb = self.retriever.embedder
        label_vecs = emb.encode([normalise_text(n.text) for n in cands])
        gram_vecs = emb.encode(grams)
        sims = (label_vecs @ gram_vecs.T).max(axis=1)
        out = {}
        for n, s in zip(cands, np.asarray(sims), strict=True):
            if s >= EMBED_MIN:
                out[n.id] = 0.8 * float(s)
        return out

    def line_score(self, line: Line) -> float:
        """Coverage of the question by this line's path alone, plus label completeness."""
        cov = sum(self.w[t] for t in self.coverable & line.toks) / self.total_w
        lab = line.label
        return cov + (0.3 * self.mention(lab) if lab is not None else 0.0) + 0.05 * self._parents(line)

    def _parents(self, line: Line) -> float:
        return sum(self.mention(n) for n in line.path[:-1]) / max(len(line.path) - 1, 1)

    def pair_score(self, row: Line, col: Line) -> float:
        toks = row.toks | col.toks
        cov = sum(self.w[t] for t in self.coverable & toks) / self.total_w
        bonus = 0.0
        for line in (row, col):
            if line.label is not None:
                bonus += 0.3 * self.mention(line.label) + 0.05 * self._parents(line)
        return cov + bonus

    def coverage(self, row: Line | None, col: Line | None) -> float:
        toks = (row.toks if row else set()) | (col.toks if col else set())
        return sum(self.w[t] for t in self.coverable & toks) / self.total_w

    def best(self, lines: list[Line], exclude: set[str] = frozenset()) -> list[tuple[float, Line]]:  # type: ignore[assignment]
        scored = [(self.line_score(ln), ln) for ln in lines]
        scored.sort(key=lambda x: (-x[0], x[1].index))
        return scored


_STOP = frozenset(
    "a an the of in on at to for from by with and or as is are was were be been what which who how "
    "many much did does do that this these those it its their there than".split()
)


def _value_cell(graph: CellGraph, row: Line, col: Line) -> Node:
    return graph.node_at(row.index, col.index)


def _is_aggregate(line: Line) -> bool:
    lab = line.label
    return lab is not None and bool(set(normalise_text(lab.text).split()) & AGGREGATE_LABEL_WORDS)


def solve(question: str, graph: CellGraph, headers: HeaderModel, retriever: Retriever | None) -> Plan:
    """Answer `question` from the table structure alone (see the module docstring)."""
    g = Grounder(question, graph, headers, retriever)
    if not g.rows or not g.cols:
        return Plan([], [], [], "none", 0.0, "no data region found")
    pair = ops.pair_options(question)
    if pair is not None:
        plan = _solve_pair(g, pair)
        if plan is not None:
            return plan
    if ops.asks_label(question) and ops.direction(question) is not None:
        plan = _solve_argmax(g)
        if plan is not None:
            return plan
    for op, test in (
        ("percent_of", lambda q: ops.has_phrase(q, ops.PERCENT_OF_PHRASES)),
        ("ratio", lambda q: ops.has_phrase(q, ops.RATIO_PHRASES)),
        ("diff", lambda q: ops.has_phrase(q, ops.DIFF_PHRASES)),
        ("average", lambda q: bool(set(ops.words(q)) & ops.AVERAGE_WORDS)),
        ("sum", lambda q: bool(set(ops.words(q)) & ops.SUM_WORDS)),
    ):
        if test(question):
            plan = _solve_multi(g, op)  # type: ignore[arg-type]
            if plan is not None:
                return plan
    return _solve_lookup(g)


# ---- lookup -----------------------------------------------------------------------------------
def _ranked_cells(g: Grounder) -> list[tuple[float, Line, Line]]:
    rows = g.best(g.rows)[:12]
    cols = g.best(g.cols)[:12]
    out = []
    for _, r in rows:
        for _, c in cols:
            node = _value_cell(g.graph, r, c)
            if g.h.is_data(node):
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
    ids: list[int] = []
    for line in lines:
        mentioned = [n for n in line.path if g.mention(n) > 0]
        for n in mentioned or line.path[-1:]:
            if n.id not in ids:
                ids.append(n.id)
    return ids


def _solve_lookup(g: Grounder) -> Plan:
    ranked = _ranked_cells(g)
    if not ranked:
        return Plan([], [], [], "lookup", 0.0, "no cell matched")
    _, row, col = ranked[0]
    conf = _confidence(g, ranked)
    if ops.asks_label(g.q):
        label = _label_answer(g, row, "row")
        if label is not None:
            hdrs = _headers_for(g, [col])
            return Plan([label.text.strip()], [label.id], hdrs, "lookup_label", conf, "row label",
                        row_headers=[], col_headers=hdrs)
    node = _value_cell(g.graph, row, col)
    rh, ch = _headers_for(g, [row]), _headers_for(g, [col])
    return Plan([node.text.strip()], [node.id], rh + [i for i in ch if i not in rh], "lookup", conf,
                f"cell at row {row.index}, column {col.index}", rh, ch)


def _label_answer(g: Grounder, line: Line, axis: str) -> Node | None:
    """For which/who questions: the label of `line` that the question asks for.

    The left-band column (or top-band row) whose corner/outer header the question mentions; else
    None when every label of the line is already mentioned (the question then asks for a value).
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
    return unmentioned[-1] if unmentioned and len(unmentioned) == len(path) else None


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


def _solve_argmax(g: Grounder) -> Plan | None:
    axis, fixed = _pick_side(g)
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
    for ln in lines:
        node = _value_cell(g.graph, ln, fixed) if axis == "row" else _value_cell(g.graph, fixed, ln)
        num = ops.parse(node.text)
        if num is not None and g.h.is_data(node):
            vals.append((num.value, ln, node))
    if len(vals) < 2:
        return None
    want = ops.direction(g.q)
    pick = max(vals, key=lambda v: v[0]) if want == "max" else min(vals, key=lambda v: v[0])
    _, line, node = pick
    label = line.label
    if label is None:
        return None
    ties = sum(1 for v in vals if v[0] == pick[0])
    conf = round(min(1.0, 0.4 + 0.6 * g.mention(fixed.label) if fixed.label else 0.4) / ties, 3)
    return Plan([label.text.strip()], [label.id, node.id] if False else [label.id],
                _headers_for(g, [fixed]), f"arg{want}", conf,
                f"{want} over {len(vals)} {axis}s", col_headers=_headers_for(g, [fixed]))


def _ground_option(g: Grounder, phrase: str, lines: list[Line]) -> tuple[float, Line] | None:
    ptoks = set(tokens(phrase))
    if not ptoks:
        return None
    best: tuple[float, Line] | None = None
    for ln in lines:
        lab = ln.label
        if lab is None:
            continue
        ltoks = set(tokens(lab.text))
        if not ltoks:
            continue
        common = ltoks & ptoks
        s = len(common) / len(ltoks | ptoks)
        if normalise_text(lab.text) == normalise_text(phrase):
            s = 1.0
        if best is None or s > best[0]:
            best = (s, ln)
    return best if best and best[0] > 0 else None


def _solve_pair(g: Grounder, pair: tuple[str, str]) -> Plan | None:
    a, b = pair
    options = []
    for axis, lines in (("row", g.rows), ("col", g.cols)):
        ga, gb = _ground_option(g, a, lines), _ground_option(g, b, lines)
        if ga and gb and ga[1].index != gb[1].index:
            options.append((ga[0] + gb[0], axis, ga[1], gb[1]))
    if not options:
        return None
    options.sort(key=lambda x: -x[0])
    score, axis, la, lb = options[0]
    other = g.cols if axis == "row" else g.rows
    fixed = g.best(other)[0][1]
    cells = []
    for ln in (la, lb):
        node = _value_cell(g.graph, ln, fixed) if axis == "row" else _value_cell(g.graph, fixed, ln)
        cells.append((ops.parse(node.text), ln, node))
    if any(c[0] is None for c in cells):
        return None
    want = ops.direction(g.q) or "max"
    pick = cells[0] if (cells[0][0].value >= cells[1][0].value) == (want == "max") else cells[1]  # type: ignore[union-attr]
    label = pick[1].label
    assert label is not None
    conf = round(min(1.0, score / 2) * (0.5 if cells[0][0].value == cells[1][0].value else 1.0), 3)  # type: ignore[union-attr]
    hdrs = [n for n in _headers_for(g, [fixed]) if n != label.id]
    return Plan([label.text.strip()], [label.id], hdrs + [c[1].label.id for c in cells if c[1].label and c[1].label.id != label.id],
                f"pair_{want}", conf, f"compared {a!r} and {b!r}", col_headers=hdrs)


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
        pos = g.qnorm.find(key)
        if pos < 0:
            first = next(iter(tokens(lab.text)), "")
            pos = next((i for i, w in enumerate(g.qnorm.split()) if first and w.startswith(first)), 999) * 5
        if key in seen_labels:
            continue
        seen_labels.add(key)
        out.append((pos, ln))
    out.sort(key=lambda x: x[0])
    # drop labels contained in a longer mentioned label ("revenue" inside "cargo revenue")
    keys = [normalise_text(ln.label.text) for _, ln in out]  # type: ignore[union-attr]
    return [x for x, k in zip(out, keys, strict=True) if not any(k != o and k in o for o in keys)]


def _solve_multi(g: Grounder, op: ops.Op) -> Plan | None:
    for axis, lines, other in (("col", g.cols, g.rows), ("row", g.rows, g.cols)):
        mentioned = _mentioned_lines(g, lines)
        if len(mentioned) < 2:
            continue
        chosen = [ln for _, ln in mentioned]
        if op in ("diff", "ratio", "percent_of"):
            chosen = chosen[:2]
            if op == "diff" and _from_to(g.q):
                chosen = chosen[::-1]
            if op == "percent_of" and _is_aggregate(chosen[0]) and not _is_aggregate(chosen[1]):
                chosen = chosen[::-1]
        fixed = g.best(other)[0][1]
        nodes = [
            _value_cell(g.graph, ln, fixed) if axis == "row" else _value_cell(g.graph, fixed, ln)
            for ln in chosen
        ]
        nums = [ops.parse(n.text) for n in nodes]
        if any(n is None for n in nums) or not all(g.h.is_data(n) for n in nodes):
            continue
        value = ops.compute(op, nums)  # type: ignore[arg-type]
        if value is None:
            continue
        hdrs = _headers_for(g, [*chosen, fixed])
        conf = round(min(1.0, 0.5 + 0.5 * g.coverage(None, None) + 0.5 * g.mention(fixed.label or chosen[0].label)), 3)  # type: ignore[arg-type]
        return Plan([value], [n.id for n in nodes], hdrs, op, min(conf, 0.9),
                    f"{op} of {len(nodes)} cells along {axis}s")
    return None


def _from_to(q: str) -> bool:
    """`… from A to B` / `between A and B` with change wording: the later value comes first (B − A)."""
    ql = q.lower()
    return bool(re.search(r"\bfrom\b.+\bto\b", ql)) and ops.has_phrase(
        q, ("change", "changed", "increase", "increased", "decrease", "decreased", "grew", "rise", "rose",
            "fell", "drop")
    )
