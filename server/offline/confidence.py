"""Calibrated confidence of an offline answer: features of the solve, then a model fitted on train.

`features(g, plan)` describes how the answer was reached (operation family, grounding coverage and
margin, ties between different values, label completeness, table shape, general question cues);
`probabilities(rows)` maps them to the probability that the answer is right with a gradient-boosted
model fitted on `hitab_train.jsonl` only (`benchmarks/fit_confidence.py`; the model is the data file
`confidence_model.json`). Dev files are never used for fitting.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from celltrace.server.offline import operations as ops
from celltrace.server.offline import trees
from celltrace.server.offline.grounding import ASKS_CHANGE, YEAR, ranked_cells
from celltrace.server.offline.intent import UNMET
from celltrace.server.offline.lexicon import label_tokens
from celltrace.server.offline.lines import adds_up_to_amount, under_aggregate, value_cell
from celltrace.shared.graph import Node, normalise_text

if TYPE_CHECKING:
    from celltrace.server.offline.grounding import Grounder, Plan
    from celltrace.server.offline.lines import Line

OP_FAMILIES = (
    "lookup", "lookup_label", "lookup_time", "lookup_each", "opposite", "arg", "top", "pair",
    "sum", "diff", "ratio", "percent_of", "growth", "average", "none",
)
"""Operation families of `Plan.operation` (`argmax`/`argmin` → `arg`, `top3_max` → `top`, …)."""

CUES = {
    "cue_which": r"^\s*(?:in\s+)?(?:which|who|whom)\b|,\s*which\b",
    "cue_how_many": r"\bhow\s+many\b",
    "cue_how_much": r"\bhow\s+much\b",
    "cue_percent": ops.PERCENT_WORDING.pattern,
    "cue_than": r"\bthan\b",
    "cue_or": r"\bor\b",
    "cue_and": r"\band\b",
    "cue_total": r"\btotal|\bcombined|\baltogether|\bsum\b",
    "cue_average": r"\baverage|\bmean\b",
    "cue_change": ASKS_CHANGE.pattern,
    "cue_times": r"\btimes\b|\bratio\b|\bfold\b",
    "cue_superlative": r"\b(?:most|least|highest|lowest|largest|smallest|greatest|biggest|top)\b",
    "cue_comparative": r"\b(?:more|less|higher|lower|larger|smaller|greater|fewer)\b",
    "cue_when": r"^when\b|\bwhat year\b|\bwhich year\b",
    "cue_year": YEAR.pattern,
    "cue_plural_verb": r"\b(?:were|are)\b",
    "cue_each": r"\brespectively\b|\beach\b|\bboth\b",
    "cue_in_addition": r"^\s*(?:in addition|also|besides|meanwhile)\b",
}
"""General English cues of the question (their weights are learned on train, not set by hand)."""
_CUES = {k: re.compile(v) for k, v in CUES.items()}


def family(operation: str) -> str:
    """The operation family of a plan's operation name."""
    if operation.startswith("arg") or operation in ("max", "min"):  # a ranking's member or figure
        return "arg"
    if operation.startswith("top"):
        return "top"
    if operation.startswith("pair"):
        return "pair"
    if operation == "measure":
        return "ratio"
    if operation == "cagr":
        return "growth"
    return operation if operation in OP_FAMILIES else "none"


def features(g: Grounder, plan: Plan) -> dict[str, float]:
    """The numeric description of one candidate plan (names are stable: the model refers to them)."""
    fam = family(plan.operation)
    out: dict[str, float] = {f"op_{f}": float(f == fam) for f in OP_FAMILIES}
    qn = g.qnorm
    out.update({k: float(bool(rx.search(qn))) for k, rx in _CUES.items()})
    out["heuristic"] = plan.confidence
    out["n_answers"] = float(len(plan.answer))
    out["n_answer_nodes"] = float(len(plan.answer_nodes))
    out["n_header_nodes"] = float(len(plan.header_nodes))
    out["answer_numeric"] = float(bool(plan.answer) and all(
        ops.parse(g.figure(a)) is not None for a in plan.answer))
    out["answer_percent"] = float(any("%" in g.graph.node(i).text or "percent" in label_tokens(
        " ".join(n.text for n in g.h.col_path(g.graph.node(i)) + g.h.row_path(g.graph.node(i))))
        for i in plan.answer_nodes[:4]))
    out["answer_is_label"] = float(bool(plan.answer_nodes) and all(
        g.h.is_header(g.graph.node(i)) for i in plan.answer_nodes))
    money = out["op_lookup"] > 0 and ops.counted_noun(g.q) is not None and any(  # units read for
        c in (g.h.unit_for(g.graph.node(i)) or "") for i in plan.answer_nodes[:4] for c in "$€£¥")  # counts
    out["type_mismatch"] = _type_mismatch(g.q, out, money) or float(
        out["op_lookup"] > 0 and _MONEY_ASKED.search(g.qnorm) is not None and _money_beside(g, plan))
    out["q_words"] = float(len(g.qwords))
    out["rows"] = math.log1p(len(g.rows))
    out["cols"] = math.log1p(len(g.cols))
    out["header_rows"] = float(g.h.header_rows)
    out["header_cols"] = float(g.h.header_cols)
    # how much of the question the table's labels can explain at all (fsum: the same in any set order)
    explained = g.explained_words()
    out["explainable"] = math.fsum(g.w.get(q, 1.0) for q in explained) / g.total_w if g.w else 0.0
    out["unexplained_words"] = float(sum(1 for _, st in g.qwords if st not in explained))
    out["soft_labels"] = float(len(g.soft))
    out.update(_lookup_features(g))
    for key in ("rank_gap", "rank_ties", "rank_members", "pair_score", "pair_equal", "operands",
                "operand_coverage"):
        out[key] = float(plan.stats.get(key, -1.0))
    for kind in sorted(set(UNMET.values())):  # an operation asked whose operands were not found
        out[f"unmet_{kind}"] = float(plan.stats.get(f"unmet_{kind}", 0.0))
    return out


def _type_mismatch(question: str, out: dict[str, float], money: bool) -> float:
    """The answer is not the kind of thing asked: a name (which/who/where …) answered with a figure
    that is no label, an amount (`how many`, `what was the percentage`) answered with a label, or a
    count of members (`how many customers`) answered with a percentage or with money (`money`: the
    answer's unit is a currency)."""
    q = question.lower()
    asks_name = ops.asks_label(q)
    asks_amount = bool(ops.QUANTITY.search(q) or ops.AMOUNT_ASKED.match(q))
    figure = out["answer_numeric"] > 0 and not out["answer_is_label"]
    answered = out["n_answers"] > 0
    counted = ops.counted_noun(q) is not None and figure and out["op_lookup"] > 0 and (
        out["answer_percent"] > 0 or money)  # a percentage or an amount of money read for a count
    return float((asks_name and figure) or (asks_amount and not asks_name and not figure and answered)
                 or counted)


_MONEY_ASKED = re.compile(
    r"\bhow much\b.*\b(?:raised|spent|paid|earned|collected|donated|invested|generated)\b")
"""`how much was raised from donors …`: an amount of money is asked."""


def _money_beside(g: Grounder, plan: Plan) -> bool:
    """The answer cell holds no money while another figure on its row does (`Donors 11 | Dollars
    $3,764,200`): a count read where money is asked."""
    if not plan.answer_nodes:
        return False
    cell = g.graph.node(plan.answer_nodes[0])

    def money(node: Node) -> bool:
        return any(c in node.text or c in (g.h.unit_for(node) or "") for c in "$€£¥")

    row = [g.graph.node_at(cell.r0, c) for c in range(g.h.header_cols, g.graph.n_cols)]
    return not money(cell) and any(money(n) for n in row if n.id != cell.id and g.h.is_data(n))


OPERATION_STEMS = frozenset((
    "total", "sum", "combin", "altogeth", "averag", "mean", "differ", "chang", "increas", "decreas",
    "declin", "grow", "grew", "rise", "rose", "fell", "drop", "gap", "ratio", "time", "fold", "percent",
    "proport", "share",
))
"""Stems of operation words; when the best cell's own labels hold one the question uses, the word
names the cell (`average age`, `total revenue`) rather than asking for arithmetic."""


def _lookup_features(g: Grounder) -> dict[str, float]:
    """Grounding of the best single cell: score, margin over the best cell with another value,
    cells tied with it that hold other values, coverage and label completeness."""
    ranked = ranked_cells(g)
    if not ranked:
        return {"top_score": 0.0, "margin": 0.0, "ties_other": 0.0, "near_other": 0.0,
                "coverage": 0.0, "row_mention": 0.0, "col_mention": 0.0, "aggregate_line": 0.0,
                "candidates": 0.0, "op_word_in_labels": 0.0, "op_words": float(len(_operation_stems(g))),
                "row_margin": 0.0, "col_margin": 0.0, "unexplained_by_cell": float(len(g.qwords)),
                "year_conflict": 0.0, "year_unmatched": 0.0, "percent_mismatch": 0.0,
                "number_unmatched": 0.0, "exact_row": 0.0, "exact_col": 0.0, "row_depth": 0.0,
                "col_depth": 0.0, "row_ties": 0.0, "col_ties": 0.0, "answer_kind": -1.0,
                "answer_chars": 0.0, "label_mentions": 0.0, "amounts_add_up": 0.0}
    s0, r0, c0 = ranked[0]
    path_words = {t for n in r0.path + c0.path + r0.notes for t in label_tokens(n.text)}
    unexplained = [st for _, st in g.qwords if st not in path_words and not any(
        st in g.matched(n) for n in r0.path + c0.path + r0.notes)]
    q_years = g.q_years
    path_text = normalise_text(" ".join(n.text for n in r0.path + c0.path + r0.notes))
    path_years = set(YEAR.findall(path_text))
    def shown(row: Line, col: Line) -> str:
        return normalise_text(g.figure(value_cell(g.graph, row, col).text))

    text0 = shown(r0, c0)
    percent_cell = "percent" in path_words or "%" in text0 or "percent" in (  # a unit row or caption
        g.h.unit_for(value_cell(g.graph, r0, c0)) or "")  # says so too (`Percent` over the table)
    q_numbers = set(_NUMBER.findall(g.qnorm)) - q_years
    others = [s for s, r, c in ranked[1:] if shown(r, c) != text0]
    runner = others[0] if others else 0.0
    return {
        "top_score": s0,
        "margin": s0 - runner,
        "ties_other": float(sum(1 for s in others if s >= s0 - 1e-9)),
        "near_other": float(sum(1 for s in others if s >= s0 - 0.05)),
        "coverage": g.coverage(r0, c0),
        "row_mention": g.mention(r0.label) if r0.label else 0.0,
        "col_mention": g.mention(c0.label) if c0.label else 0.0,
        "aggregate_line": float(under_aggregate(r0) or under_aggregate(c0)),
        "candidates": math.log1p(len(ranked)),
        "op_word_in_labels": float(bool(_operation_stems(g) & path_words)),
        "row_margin": _line_margin(g, g.rows, r0), "col_margin": _line_margin(g, g.cols, c0),
        "unexplained_by_cell": float(len(unexplained)),
        "year_conflict": float(bool(q_years and path_years and not q_years & path_years)),
        "year_unmatched": float(bool(q_years - path_years)),
        "percent_mismatch": float(("percent" in g.qtoks) != percent_cell),
        "op_words": float(len(_operation_stems(g))),
        "number_unmatched": float(len(q_numbers - set(_NUMBER.findall(path_text)))),
        "exact_row": float(r0.label is not None and g.verbatim(r0.label)),
        "exact_col": float(c0.label is not None and g.verbatim(c0.label)),
        "row_depth": float(len(r0.path)), "col_depth": float(len(c0.path)),
        "row_ties": _ties(g, g.rows, r0), "col_ties": _ties(g, g.cols, c0),
        "answer_kind": _kind(text0), "answer_chars": math.log1p(len(text0)),
        "label_mentions": float(sum(g.mention(n) >= 0.99 for n in r0.path + c0.path)),
        "amounts_add_up": float(adds_up_to_amount(g.graph, r0, g.rows, c0)
                                or adds_up_to_amount(g.graph, c0, g.cols, r0)),
    }


_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")
_KINDS = (
    (re.compile(r"^(?:1[89]|20)\d\d$"), 1.0),  # a year
    (re.compile(r"^(?:0|0\.0+|-|\.\.|\.\.\.|x|f|e|n/?a)$"), 2.0),  # zero, dash or a suppression mark
    (re.compile(r"%$"), 3.0),
    (re.compile(r"^[-(]?[$€£¥]?\(?\d[\d,]*\)?$"), 4.0),  # a whole number
    (re.compile(r"^[-(]?[$€£¥]?\(?\d[\d,]*\.\d+\)?$"), 5.0),  # a decimal
)


def _kind(text: str) -> float:
    """What the answer cell holds: year 1, empty-ish 2, percent 3, whole 4, decimal 5, words 0."""
    return next((k for rx, k in _KINDS if rx.search(text)), 0.0)


def _ties(g: Grounder, lines: list[Line], chosen: Line) -> float:
    """Other lines scoring the same as the chosen one (the question does not tell them apart)."""
    mine = g.line_score(chosen)
    return float(sum(1 for ln in lines if ln.index != chosen.index and g.line_score(ln) >= mine - 1e-9))


def _line_margin(g: Grounder, lines: list[Line], chosen: Line) -> float:
    """How far the chosen line's own score is ahead of the best other line (negative: behind)."""
    mine = g.line_score(chosen)
    return mine - max((g.line_score(ln) for ln in lines if ln.index != chosen.index), default=0.0)


def _operation_stems(g: Grounder) -> set[str]:
    return {st for _, st in g.qwords} & OPERATION_STEMS


def probabilities(rows: list[dict[str, float]]) -> list[float]:
    """P(answer right | features) of each candidate, from the boosted trees fitted on train
    (`confidence_model.json`)."""
    model = trees.load("confidence_model")
    return [float(p) for p in model.probabilities(model.matrix(rows))]
