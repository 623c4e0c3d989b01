"""The offline engine (no LLM): solve the question from structure, then take the plan's steps.

`answer` solves (header inference + grounding + operation) from the labels' words alone first: when
that plan's calibrated confidence reaches `settings.offline_min_confidence` the lexical grounding is
decisive and the embedding model is never loaded; otherwise it solves again with embedding matches
(when dense retrieval is on). Then it walks the plan on the graph in the paper's action vocabulary,
each round executed like the GraphOTTER loop's (`loop.take_step`: observations, trace):

1. `VisitNode([r0, c0, text])` for every grounded header node (the trace starts empty);
2. `GetSharedNeighbours(row header, column header)` for every data cell used (the intersection that
   yields it), or `VisitNode` of the label when the answer is a label;
3. `AnswerQuestion()`.

The result is the plan's; its confidence is the calibrated probability that it is right
(`celltrace.server.offline.confidence`). Below `settings.offline_min_confidence` (env
`CELLTRACE_OFFLINE_MIN_CONFIDENCE`) the status is `abstained`, with the best guess kept in `answer`
and the reason in `error`. No LLM is ever called (`usage.llm_calls` stays 0).
"""

from __future__ import annotations

from typing import Any

from celltrace.server.engine.loop import OnStep, failed_on_error, take_step
from celltrace.server.engine.policy import Decision, FinalAnswer
from celltrace.server.engine.state import ReasoningState
from celltrace.server.infra.retrieval import Retriever
from celltrace.server.offline.grounding import Plan
from celltrace.server.offline.solver import solve
from celltrace.shared.graph import Node
from celltrace.shared.headers import HeaderModel
from celltrace.shared.schemas import EngineName, StepAction, confidence_text

ELSEWHERE_CAP = 0.5
"""The most confidence an answer gets when the question names what only another table on the sheet
shows (`Table.elsewhere`: `the export capital goods index above the import capital goods index` over
two stacked tables): read from one table, it is at best half of what is asked."""


def node_arg(node: Node) -> list[Any]:
    """Unambiguous action argument: `[r0, c0, text]` of the node's anchor."""
    return [node.r0, node.c0, node.text]


class OfflineEngine:
    """An `AnswerEngine` that answers without an LLM (see the module docstring)."""

    name: EngineName = "offline"

    def answer(self, state: ReasoningState, on_step: OnStep | None = None) -> FinalAnswer:
        return failed_on_error(lambda: self._answer(state, on_step))

    def _answer(self, state: ReasoningState, on_step: OnStep | None) -> FinalAnswer:
        plan = _solve(state)
        executed: dict[str, int] = {}
        for decision in replay(plan, state, state.headers)[: state.settings.max_steps]:
            take_step(state, decision, executed, on_step)
        return _final(plan, state.settings.offline_min_confidence)


def _solve(state: ReasoningState) -> Plan:
    """The plan from the labels' words; again with embeddings when that is not decisive."""
    retriever = state.retriever if isinstance(state.retriever, Retriever) else None
    if retriever is None:
        retriever = Retriever(state.graph, dense=False)
    plan = solve(state.question, state.graph, state.headers, retriever.lexical())
    if retriever.dense and plan.confidence < state.settings.offline_min_confidence:
        plan = solve(state.question, state.graph, state.headers, retriever)  # not decisive: embed
    if state.table.elsewhere:  # what the question names is partly in another table on the sheet
        plan.confidence = min(plan.confidence, ELSEWHERE_CAP)
        plan.unsupported = plan.unsupported or "the question names lines of another table on the sheet"
    return plan


def _final(plan: Plan, threshold: float) -> FinalAnswer:
    if not plan.answer:
        return FinalAnswer(
            status="abstained", answer=[], answer_nodes=[], header_nodes=plan.header_nodes,
            explanation=plan.explanation, error=plan.explanation or "no grounding found",
            confidence=0.0,
        )  # fmt: skip
    confident = plan.confidence >= threshold
    return FinalAnswer(
        status="answered" if confident else "abstained",
        answer=plan.answer,
        answer_nodes=plan.answer_nodes,
        header_nodes=[i for i in plan.header_nodes if i not in plan.answer_nodes],
        explanation=f"{plan.operation}: {plan.explanation}",
        error=None
        if confident
        else f"low confidence: {confidence_text(plan.confidence)} below the abstain threshold {threshold:.2f}"
        + (f"; {plan.unsupported}" if plan.unsupported else ""),
        confidence=max(0.0, min(1.0, plan.confidence)),
        value=plan.computed.value if plan.computed else None,
        same_unit=plan.computed.same_unit if plan.computed else True,
        difference=plan.computed.difference if plan.computed else False,
        shadowed=plan.shadowed,
    )


def replay(plan: Plan, state: ReasoningState, headers: HeaderModel) -> list[Decision]:
    """The plan as Thought → Action rounds (visit headers, intersect, answer)."""
    graph = state.graph
    decisions: list[Decision] = []
    hdr_nodes = [graph.node(i) for i in plan.header_nodes]
    if hdr_nodes:
        names = ", ".join(repr(n.text.strip()) for n in hdr_nodes)
        decisions.append(Decision(
            thought=f"The question refers to the header cells {names}; visit them.",
            actions=[StepAction(name="VisitNode", args=[node_arg(n)]) for n in hdr_nodes],
        ))  # fmt: skip
    actions: list[StepAction] = []
    for nid in plan.answer_nodes:
        node = graph.node(nid)
        if headers.is_header(node):
            actions.append(StepAction(name="VisitNode", args=[node_arg(node)]))
            continue
        row = headers.row_path(node)
        col = headers.col_path(node)
        if row and col:
            args = [node_arg(row[-1]), node_arg(col[-1])]
            actions.append(StepAction(name="GetSharedNeighbours", args=args))
        else:
            actions.append(StepAction(name="VisitNode", args=[node_arg(node)]))
    if actions:
        decisions.append(Decision(
            thought=f"Intersect the row and column headers to reach the {plan.operation} input cells.",
            actions=actions,
        ))  # fmt: skip
    weighed = "; ".join(f"{op} → {', '.join(ans) or 'nothing'} (p={p:.2f})" for op, ans, p in plan.considered)
    decisions.append(Decision(
        thought=f"Operation {plan.operation} gives {', '.join(plan.answer) or 'no answer'} "
        f"(confidence {confidence_text(plan.confidence)})."
        + (f" Candidates weighed: {weighed}." if weighed else ""),
        actions=[StepAction(name="AnswerQuestion")],
    ))  # fmt: skip
    return decisions
