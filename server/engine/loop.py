"""The engine seam (`AnswerEngine`) and the Thought → Action → Update loop (paper Algorithm 1).

Termination: an `AnswerQuestion` action; `NO_PROGRESS_LIMIT` consecutive steps without progress
(no action, or only actions repeating earlier ones, failed ones included); or `settings.max_steps`
steps. In the last two cases the policy's answer stage still runs ("forced answer", best effort)
with a note saying why.
Transport failures, unusable model output and other typed failures (`CelltraceError`) end the
episode as `failed` with their `error_code`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from celltrace.server.engine.actions import (
    ALL_NEIGHBOURS,
    ANSWER,
    ARITY,
    CANONICAL,
    SHARED_NEIGHBOURS,
    VISIT,
    canonical_action,
    resolve,
)
from celltrace.server.engine.policy import Decision, FinalAnswer, Policy
from celltrace.server.engine.state import ReasoningState
from celltrace.server.infra.prompting import cell, format_action, format_arg, node_list, shown_nodes
from celltrace.shared.errors import CelltraceError
from celltrace.shared.graph import Node
from celltrace.shared.schemas import EngineName, Step, StepAction

OnStep = Callable[[Step, ReasoningState], None]
NO_PROGRESS_LIMIT = 2
"""Consecutive steps without a new action before the loop stops."""


@dataclass
class Outcome:
    """One executed action: what the model is told, its repetition key, whether it asks to answer."""

    observation: str
    key: str
    answer: bool = False


class AnswerEngine(Protocol):
    """An engine answers the question of `state` (its table, graph, headers and retriever) and
    records the steps it really took in `state.steps`, calling `on_step` after each; typed failures
    (`CelltraceError`) are a failed answer with their `error_code`. Two implementations: the
    GraphOTTER loop over a policy (`PolicyLoop`) and the offline solver (`offline_engine.OfflineEngine`)."""

    name: EngineName

    def answer(self, state: ReasoningState, on_step: OnStep | None = None) -> FinalAnswer: ...


class PolicyLoop:
    """The GraphOTTER engine: Thought → Action → Update rounds chosen by a `Policy` (the LLM's)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.name: EngineName = policy.engine

    def answer(self, state: ReasoningState, on_step: OnStep | None = None) -> FinalAnswer:
        return failed_on_error(lambda: self._episode(state, on_step))

    def _episode(self, state: ReasoningState, on_step: OnStep | None) -> FinalAnswer:
        """Initialise the trace, loop until an answer or a stop condition, then answer."""
        for node_id in self.policy.start(state)[: state.settings.trace_init_k]:
            state.add_to_trace(node_id)
        stop = self._loop(state, on_step)
        if stop:
            state.notes = [f"{stop}: answer now with the information gathered so far."]
        return self.policy.answer(state)

    def _loop(self, state: ReasoningState, on_step: OnStep | None) -> str | None:
        """Run steps; None when the model chose AnswerQuestion, else the reason the loop stopped."""
        executed: dict[str, int] = {}
        stalled = 0
        while len(state.steps) < state.settings.max_steps:
            number = len(state.steps) + 1
            answer, progressed = take_step(state, self.policy.step(state), executed, on_step)
            if answer:
                return None
            stalled = 0 if progressed else stalled + 1
            if stalled >= NO_PROGRESS_LIMIT:
                return f"No progress in {stalled} steps"
            if stalled:
                state.notes.append(f"Step {number} added no new information; try another node or answer.")
        return f"The step limit ({state.settings.max_steps}) was reached"


def failed_on_error(run: Callable[[], FinalAnswer]) -> FinalAnswer:
    """`run()`, with a typed failure turned into a failed answer carrying its `error_code`."""
    try:
        return run()
    except CelltraceError as exc:
        return FinalAnswer(
            status="failed", answer=[], answer_nodes=[], header_nodes=[], error=str(exc),
            error_code=exc.error_code,
        )  # fmt: skip


def take_step(
    state: ReasoningState, decision: Decision, executed: dict[str, int], on_step: OnStep | None
) -> tuple[bool, bool]:
    """Execute one decision's actions on the graph as the next step (a repeat of an action in
    `executed`, failed ones included, is not run again but noted); (asked to answer, progressed)."""
    number = len(state.steps) + 1
    state.notes = []
    step = Step(thought=decision.thought)
    answer = progressed = False
    for action in _dedupe(decision.actions):
        out = execute(state, action)
        if out.key in executed:
            out = Outcome(
                f"{format_action(action)} repeats step {executed[out.key]}; its result is in the "
                "history. Choose a different action, or AnswerQuestion.",
                out.key,
            )
            state.notes.append(f"Step {number} repeated an earlier action.")
        else:
            executed[out.key] = number
            progressed |= not out.answer
        name = canonical_action(action.name)
        step.actions.append(action if name is None else StepAction(name=name, args=action.args))
        step.observations.append(out.observation)
        answer |= out.answer
    if not decision.actions:
        step.observations.append(f"no action given; call one of {', '.join(CANONICAL)}")
    state.steps.append(step)
    if on_step is not None:
        on_step(step, state)
    return answer, progressed


def _key(action: StepAction) -> str:
    return json.dumps([action.name, action.args], default=str, sort_keys=True, ensure_ascii=False)


def _dedupe(actions: list[StepAction]) -> list[StepAction]:
    seen: set[str] = set()
    out = []
    for action in actions:
        key = _key(action)
        if key not in seen:
            seen.add(key)
            out.append(action)
    return out


def execute(state: ReasoningState, action: StepAction) -> Outcome:
    """Execute one action on the graph; never raises on model input."""
    failed = f"failed:{_key(action)}"
    name = canonical_action(action.name)
    if name is None:
        return Outcome(f"unknown action {action.name!r}; use one of {', '.join(CANONICAL)}", failed)
    if name == ANSWER:
        return Outcome("answering the question", ANSWER, answer=True)
    args = action.args
    if len(args) < ARITY[name]:
        return Outcome(f"{name} needs {ARITY[name]} node argument(s), got {len(args)}", failed)
    limit = state.settings.max_list_lines
    nodes: list[Node] = []
    notes: list[str] = []
    for arg in args[: ARITY[name]]:
        res = resolve(state.graph, state.retriever, arg, search=name == VISIT)
        if res.node is None:
            state.observe(_shown_ids(res.candidates, limit))
            return Outcome(res.failure(arg, limit), failed)
        nodes.append(res.node)
        if res.note:
            notes.append(f"{format_arg(arg)} resolved to {cell(res.node)}: {res.note}")
    if name == VISIT:
        node = nodes[0]
        state.observe([node.id])
        added = state.add_to_trace(node.id)
        status = "added to the reasoning trace" if added else "already in the reasoning trace"
        out = Outcome(f"{cell(node)}: {status}", f"{name}:{node.id}")
    elif name == ALL_NEIGHBOURS:
        out = _all_neighbours(state, nodes[0], limit)
    else:
        out = _shared_neighbours(state, nodes[0], nodes[1], limit)
    if notes:
        out.observation += f" (note: {'; '.join(notes)})"
    return out


def _shown_ids(nodes: list[Node], limit: int) -> list[int]:
    """Ids of the nodes `node_list(nodes, limit)` shows."""
    return [n.id for part in shown_nodes(nodes, limit) for n in part]


def _all_neighbours(state: ReasoningState, node: Node, limit: int) -> Outcome:
    same_row, same_col = ([n for n in group if not n.empty] for group in state.graph.neighbours(node))
    state.observe(_shown_ids(same_row, limit) + _shown_ids(same_col, limit))
    text = f"neighbours of {cell(node)}: Same row: {node_list(same_row, limit)}. " + (
        f"Same column: {node_list(same_col, limit)}."
    )
    return Outcome(text, f"{ALL_NEIGHBOURS}:{node.id}")


def _shared_neighbours(state: ReasoningState, a: Node, b: Node, limit: int) -> Outcome:
    if a.id == b.id:
        return Outcome(
            f"{cell(a)} was given twice; GetSharedNeighbours needs two different nodes",
            f"failed:{SHARED_NEIGHBOURS}:{a.id}",
        )
    shared = [n for n in state.graph.shared_neighbours(a, b) if not n.empty]
    state.observe(_shown_ids(shared, limit))
    relation = state.graph.relation(a, b)
    if relation is None:
        text = f"[{cell(a)}, {cell(b)}] has the following shared neighbors: {node_list(shared, limit)}."
    else:
        rel = relation.replace("_", " ").upper()
        text = f"[{cell(a)}, {rel}, {cell(b)}]; their shared neighbors: {node_list(shared, limit)}."
    key = f"{SHARED_NEIGHBOURS}:{min(a.id, b.id)}:{max(a.id, b.id)}"
    return Outcome(text, key)
