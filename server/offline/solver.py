"""The offline solver: candidate plans for a question, the calibrated most probable one answers.

`solve(question, graph, headers, retriever)` is pure (no loop, no LLM):

1. **Intent** (`intent`): the operation the wording and the structure suggest.
2. **Grounding** (`grounding`) and **operation** (`lookup`, `ranking`, `arithmetic`): the plan with its
   answer, the data cells used (answer nodes) and the labels that qualified them (header nodes).
3. **Confidence** (`confidence`): when the operation is not a plain lookup, the plain lookup is a
   second candidate; each gets a calibrated probability of being right (a model fitted on train
   data only) and the more probable one answers with that probability as its confidence.
"""

from __future__ import annotations

from celltrace.server.offline import confidence
from celltrace.server.offline.grounding import Grounder, Plan
from celltrace.server.offline.intent import candidates
from celltrace.server.retrieval import Retriever
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import HeaderModel


def solve(question: str, graph: CellGraph, headers: HeaderModel, retriever: Retriever | None) -> Plan:
    """Answer `question` from the table structure alone (see the module docstring); the plan's
    confidence is the calibrated probability that its answer is right."""
    scored = [(confidence.probability(f) if p.answer else 0.0, p)
              for p, f in candidate_plans(question, graph, headers, retriever)]
    prob, plan = max(scored, key=lambda sp: sp[0])  # first (the operation's plan) on ties
    plan.stats["heuristic_confidence"] = plan.confidence
    plan.confidence = round(prob, 4)
    plan.considered = [(p.operation, p.answer, round(q, 4)) for q, p in scored]
    return plan


def candidate_plans(question: str, graph: CellGraph, headers: HeaderModel,
                    retriever: Retriever | None) -> list[tuple[Plan, dict[str, float]]]:
    """Every candidate plan (`intent.candidates`: the operations the wording suggests, then the plain
    lookup) with the features its calibrated probability is computed from. The most probable one
    answers, so an operation word that is part of a label (`average age`) loses to the lookup."""
    g = Grounder(question, graph, headers, retriever)
    plans = candidates(g)
    feats = [confidence.features(g, p) for p in plans]
    for i, f in enumerate(feats):
        f["priority"] = float(i)
        f["n_candidates"] = float(len(plans))
        f["first_heuristic"] = plans[0].confidence
        f["best_other_heuristic"] = max((p.confidence for j, p in enumerate(plans) if j != i), default=-1.0)
    return list(zip(plans, feats, strict=True))
