"""The offline solver: candidate plans for a question; the first answers with a calibrated confidence.

`solve(question, graph, headers, retriever)` is pure (no loop, no LLM):

1. **Intent** (`intent`): the operations the wording and the structure suggest, in detection order.
2. **Grounding** (`grounding`) and **operation** (`lookup`, `ranking`, `arithmetic`, `measures`): a
   plan per candidate with its answer, the data cells used (answer nodes) and the labels that
   qualified them (header nodes); the plain lookup is always the last candidate.
3. **Confidence** (`confidence`): each candidate gets the probability that it is right from a model
   fitted on train data only. The first candidate answers with its probability as its confidence,
   unless another is more probable by more than `SWITCH_MARGIN`; every candidate is reported
   (`Plan.considered`). A plain lookup standing in for an operation the question asks whose
   operands were not found keeps at most `UNMET_CAP`.
"""

from __future__ import annotations

from celltrace.server.infra.retrieval import Retriever
from celltrace.server.offline import confidence
from celltrace.server.offline import operations as ops
from celltrace.server.offline.grounding import Grounder, Plan
from celltrace.server.offline.intent import candidates
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import HeaderModel

SWITCH_MARGIN = 0.2
"""How much more probable than the first (detection-order) candidate another must be to answer
instead. Out of fold on hitab_train (7,233 questions) the switch gains 55 answers at margin 0, 37 at
0.1 and 29 at 0.2 (final model: 53.3 % → 53.6 % right, ECE unchanged), nearly all by turning an
operation the wording suggested into a lookup (`average age` is a label). The model learned HiTab,
where operations are mostly wrong, so the margin is wide and a derived measure or a share (`gross
margin`, `what percent of X was Y`: the question names the operation) is never overruled."""
EXPLICIT = frozenset({"measure", "percent_of"})
"""Operations the question names outright; `SWITCH_MARGIN` never overrules them."""
CAPPED_UNMET = ("change", "share", "ratio", "average")
UNMET_CAP = 0.5
"""The most confidence a plain lookup gets when the question asks a change, a share, a ratio or an
average (the word is no label of the cell read) whose operands were not found, or a count of members
against a stated bound or a named average (`how many derivatives had an IC50 below 10`) or of
the members of one side where no count was found (`in how many wards did …`): it reads some other
figure. On hitab_train such lookups are right 37.7 %, 31.1 %, 21.7 % and 53.3 % of the
time (159, 122, 23 and 30 questions; counts: 2 of 5; members counted: none is such a lookup); the
cap keeps them below the answer threshold when a table unlike the training tables grounds them well
(`the paid loss ratio at 48 months` read as the paid losses). So does any plan reading a label the
question negates (`not in the labour force` read at `Labour force`: its complement is asked)."""
UNSUPPORTED = 0.05
"""The most confidence an answer gets when the question names a derived measure whose lines the
table lacks (`free cash flow` on an income statement): whatever cell it reads is not that measure."""


def solve(question: str, graph: CellGraph, headers: HeaderModel, retriever: Retriever | None,
          *, compose: bool = True) -> Plan:
    """Answer `question` from the table structure alone (see the module docstring): the first
    candidate answers unless another is more probable by `SWITCH_MARGIN`, with the calibrated
    probability that it is right as its confidence.

    A derived measure (`gross margin`: no train question has one) and arithmetic over the years the
    question names (a change worded without percent, a percentage change, an average, a total) are
    right when the definition fits and every operand cell is: the probability is `composed` from the
    operand lookups' (asked as `Plan.parts`: `measures`, `arithmetic.span_parts`), taking the
    definition as fitting, unless members are counted (`how many chapters saw exports decline`).
    `compose=False` (those lookups themselves) keeps the model's.
    """
    candidates = candidate_plans(question, graph, headers, retriever)
    probs = confidence.probabilities([f for _, f in candidates])
    count = ops.count_condition(question)
    counted = count is not None and count.against in ("stated", "aggregate")  # `how many … below 10`
    members = any(plan.operation == "count" and plan.answer for plan, _ in candidates)
    for i, (plan, feats) in enumerate(candidates):
        if compose and plan.parts and not members:  # members counted: arithmetic is not what is asked
            probs[i] = composed(plan, graph, headers, retriever)
        if (plan.operation == "lookup" and (counted or plan.stats.get("counted_members") or any(
                feats[f"unmet_{kind}"] for kind in CAPPED_UNMET))) or plan.stats.get("negated_label"):
            probs[i] = min(probs[i], UNMET_CAP)
    if candidates[0][0].unsupported:  # every candidate reads something other than what was asked
        probs = [min(p, UNSUPPORTED) for p in probs]
    best = max(range(len(candidates)), key=lambda i: (probs[i], -i))
    switch = candidates[0][0].operation not in EXPLICIT and bool(candidates[best][0].answer)
    chosen = best if switch and probs[best] > probs[0] + SWITCH_MARGIN else 0
    plan = candidates[chosen][0]
    plan.stats["heuristic_confidence"] = plan.confidence
    plan.confidence = round(probs[chosen], 4) if plan.answer else 0.0
    plan.considered = [(p.operation, p.answer, round(q, 4))
                       for (p, _), q in zip(candidates, probs, strict=True)]
    return plan


def composed(plan: Plan, graph: CellGraph, headers: HeaderModel, retriever: Retriever | None) -> float:
    """The least of the operand lookups' probabilities (0 for one answered from another cell).

    Lookups on one table fail together (the same header reading, the same period): on hitab_train,
    of 6,183 pairs of lookup questions whose gold cells share a line, both were right about as
    often as the less sure one predicts (55.1 % right, 53.4 % predicted, ECE 0.042; a logistic fit
    weighs the lesser probability 0.99 and the greater −0.03); the product predicts 41.9 % (ECE
    0.134) (`benchmarks/fit_confidence.py pairs`)."""
    subs = [solve(part, graph, headers, retriever, compose=False) for part in plan.parts]
    return min((sub.confidence if sub.answer_nodes[:1] == [node] else 0.0
                for sub, node in zip(subs, plan.answer_nodes, strict=True)), default=0.0)


def candidate_plans(question: str, graph: CellGraph, headers: HeaderModel,
                    retriever: Retriever | None) -> list[tuple[Plan, dict[str, float]]]:
    """Every candidate plan (`intent.candidates`: the operations the wording suggests in detection
    order, then the plain lookup) with the features its calibrated probability is computed from."""
    g = Grounder(question, graph, headers, retriever)
    plans = candidates(g)
    feats = [confidence.features(g, p) for p in plans]
    for i, f in enumerate(feats):
        f["priority"] = float(i)
        f["n_candidates"] = float(len(plans))
        f["first_heuristic"] = plans[0].confidence
        f["best_other_heuristic"] = max((p.confidence for j, p in enumerate(plans) if j != i), default=-1.0)
    return list(zip(plans, feats, strict=True))
