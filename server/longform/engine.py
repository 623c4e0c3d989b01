"""`answer_longform`: THE entry point of the long-form engine (CLI, eval harness, HTTP/SSE).

Algorithm 1 of the TaPERA paper with the fixes of methods.md §2.3-2.4:

1. Plan P0: the given (user-edited) plan, else the PLAN stage (`planner.make_plan`).
2. Up to `settings.longform_max_iterations` rounds: every sub-question not answered yet is solved
   (`reasoner.solve`: PROGRAM → sandbox → DEBUG → SUB_ANSWER); sub-questions that are unchanged
   (`planner.normalise_question`) keep their answers and are never re-executed. After each round
   but the last, PLAN_CHECK sees the plan with every sub-answer (empty and failed ones included)
   and finalises it or revises it; a "revision" equal to the plan counts as finalised.
3. FINAL_ANSWER from the finalised plan's pairs, then the faithfulness check and the evidence.

Per-question isolation: never raises. LLM failures after the client's retries, a plan with no
answered sub-question, or an internal error give `status="failed"` with the reason (and the plan
so far); `settings.raise_errors` re-raises unexpected exceptions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from celltrace.server.engine.evidence import evidence_cells, split_evidence
from celltrace.server.infra.llm import LLMClient, UsageMeter
from celltrace.server.infra.settings import Settings
from celltrace.server.longform.faithfulness import parse_numbers, unsupported_numbers, values_in
from celltrace.server.longform.generator import final_answer
from celltrace.server.longform.planner import check_plan, make_plan, normalise_question
from celltrace.server.longform.reasoner import Solved, TableContext, is_empty, solve
from celltrace.shared.errors import CelltraceError
from celltrace.shared.numbers import format_number, parse_number
from celltrace.shared.schemas import EvidenceCell, LongformResult, LongformStep, PlanItem
from celltrace.shared.table import Table

log = logging.getLogger(__name__)
OnStep = Callable[[LongformStep], None]
MAX_EVIDENCE = 500
"""Answer-role evidence cells kept (in plan order); their header cells come on top."""
NOT_RUN = "not executed"


class _Run:
    """The mutable state of one question: the current plan and every solved sub-question."""

    def __init__(self, question: str, settings: Settings, on_step: OnStep | None) -> None:
        self.question = question
        self.settings = settings
        self.on_step = on_step
        self.meter = UsageMeter()
        self.plan: list[str] = []
        self.solved: dict[str, Solved] = {}
        self.iterations = 0

    def emit(self, step: LongformStep) -> None:
        if self.on_step is not None:
            self.on_step(step)

    def items(self) -> list[PlanItem]:
        out = []
        for q in self.plan:
            done = self.solved.get(normalise_question(q))
            out.append(done.item if done else PlanItem(question=q, error=NOT_RUN))
        return out

    def result(self, started: float, **fields: Any) -> LongformResult:
        return LongformResult(
            question=self.question,
            plan=self.items(),
            iterations=self.iterations,
            usage=self.meter.to_usage(),
            seconds=time.monotonic() - started,
            **fields,
        )


def answer_longform(
    table: Table,
    question: str,
    plan: Sequence[str] | None = None,
    settings: Settings | None = None,
    on_step: OnStep | None = None,
) -> LongformResult:
    """Answer `question` about `table` in long form; `plan` is a user-edited initial plan."""
    started = time.monotonic()
    settings = settings or Settings()
    run = _Run(question, settings, on_step)
    try:
        ctx = TableContext.build(table, settings)
        llm = LLMClient(settings)
        return _answer(run, ctx, llm, list(plan or []), started)
    except CelltraceError as exc:
        return run.result(started, status="failed", error=str(exc), error_code=exc.error_code)
    except Exception as exc:
        if settings.raise_errors:
            raise
        log.exception("long-form question failed: %s", question)
        return run.result(started, status="failed", error=f"internal error: {type(exc).__name__}: {exc}")


def _answer(run: _Run, ctx: TableContext, llm: LLMClient, plan: list[str], started: float) -> LongformResult:
    settings, meter = run.settings, run.meter
    run.plan = plan or make_plan(llm, meter, run.question, ctx.schema)
    run.emit(LongformStep(kind="plan", iteration=1, plan=list(run.plan)))
    for iteration in range(1, settings.longform_max_iterations + 1):
        run.iterations = iteration
        for index, sub_question in enumerate(run.plan):
            key = normalise_question(sub_question)
            if key in run.solved:
                continue
            context = _context(run, index)
            run.solved[key] = solve(llm, meter, ctx, settings, sub_question, context)
            run.emit(
                LongformStep(
                    kind="item",
                    iteration=iteration,
                    plan=list(run.plan),
                    index=index,
                    item=run.solved[key].item,
                )
            )
        if iteration == settings.longform_max_iterations:
            break
        answered = [(i.question, i.answer, i.error) for i in run.items()]
        check = check_plan(llm, meter, run.question, ctx.schema, answered)
        revised = check.plan if not check.finalized else run.plan
        final = check.finalized or [normalise_question(q) for q in revised] == [
            normalise_question(q) for q in run.plan
        ]
        run.emit(
            LongformStep(
                kind="check",
                iteration=iteration,
                plan=list(revised),
                finalized=final,
                reasoning=check.reasoning,
            )
        )
        if final:
            break
        run.plan = list(revised)
    items = run.items()
    if not any(item.answer for item in items):
        return run.result(started, status="failed", error="no sub-question could be answered from the table")
    answer = final_answer(llm, meter, run.question, items)
    if answer is None:
        return run.result(started, status="failed", error="the final answer came back empty")
    solved = [run.solved[normalise_question(q)] for q in run.plan]
    return run.result(
        started,
        status="answered",
        answer=answer,
        evidence=_evidence(ctx, solved),
        unsupported_numbers=_unsupported(ctx, run.question, answer, items),
    )


def _context(run: _Run, index: int) -> str:
    """Earlier sub-questions of the current plan with their answers, for the program prompt."""
    lines = []
    for q in run.plan[:index]:
        done = run.solved.get(normalise_question(q))
        if done is not None and done.item.answer:
            lines.append(f"- {q} → {done.item.answer}")
    return "\n".join(lines) or "(none)"


def _unsupported(ctx: TableContext, question: str, answer: str, items: list[PlanItem]) -> list[str]:
    """`faithfulness.unsupported_numbers` over the final plan's programs and the table."""
    grounded = [i for i in items if i.source == "program"]
    table_values: list[float] = []
    for node in ctx.graph.nodes:
        if node.empty:
            continue
        table_values += [v for s in parse_numbers(node.text) for v in (s.digits, s.value)]
        if isinstance(node.value, int | float) and not isinstance(node.value, bool):
            table_values.append(float(node.value))
    return unsupported_numbers(
        answer,
        question,
        [i.program_output for i in grounded],
        [i.answer for i in grounded if i.answer],
        table_values,
    )


def _scalars(output: Any) -> list[str]:
    """Non-numeric strings of a program output (the values a cell-less output may be matched by)."""
    out: list[str] = []
    stack = [output]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x.strip() and parse_number(x) is None:
                out.append(x)
        elif isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, list):
            stack += x
    return out[:20]


def _evidence(ctx: TableContext, solved: list[Solved]) -> list[EvidenceCell]:
    """Answer cells of every program-backed item (`split_evidence` over the cells its output carries;
    for an output that carries none, the first cells holding its text values), plus the inferred
    header paths of those cells, as in `ask`."""
    graph, headers = ctx.graph, ctx.headers
    answers: list[int] = []
    header_ids: list[int] = []
    for done in solved:
        item = done.item
        if item.source != "program" or is_empty(item.program_output):
            continue
        cited = [graph.node_at(r, c) for r, c in done.cells]
        values = _scalars(item.program_output)
        if cited:  # numbers pick the answer among cited cells, never among all cells (a count of 3)
            values += [format_number(v) for v in values_in(item.program_output)]
        pool = [] if cited else [n.id for n in graph.nodes if not n.empty]
        a, h = split_evidence(graph, headers, cited, values, pool, [])
        h += [n.id for i in a for n in headers.header_context(graph.node(i))]
        answers += [i for i in a if i not in answers]
        header_ids += [i for i in h if i not in header_ids]
    return evidence_cells(ctx.table, graph, answers[:MAX_EVIDENCE], header_ids)
