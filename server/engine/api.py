"""`answer_question`: THE entry point of the graph reasoning engine (CLI, eval harness, HTTP, batch).

Engines (`loop.AnswerEngine`): `llm` (the GraphOTTER loop, `loop.PolicyLoop`, over the LLM policy
with an OpenAI-compatible model), `offline` (no LLM calls, `offline_engine.OfflineEngine`), `auto` =
`llm` when an LLM is configured (`Settings.llm_configured`), else `offline`. With an LLM configured,
`auto` first runs the offline engine as a zero-call fast path and returns its result when its
confidence is at least `settings.fast_path_confidence` (default 0.9); otherwise it runs the LLM.
When the model fails (`error_code` set: unreachable, timeout, HTTP error, unusable replies), `auto`
returns the offline result instead, with a `warnings` entry saying the model was not used.

Per-question error isolation: the function never raises; any failure is an `AskResult` with status
`failed` and the reason in `error` (`settings.raise_errors` re-raises unexpected exceptions, for
tests and debugging).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from celltrace.server.engine.context import table_context
from celltrace.server.engine.evidence import cell_of, evidence_cells
from celltrace.server.engine.loop import AnswerEngine, PolicyLoop
from celltrace.server.engine.policy import FinalAnswer
from celltrace.server.engine.state import ReasoningState
from celltrace.server.engine.terms import flag_warnings, in_user_terms
from celltrace.server.infra.settings import Settings
from celltrace.shared.schemas import AskResult, Engine, EngineName, Step, TraceCell
from celltrace.shared.table import Table

log = logging.getLogger(__name__)
OnStep = Callable[[Step, ReasoningState], None]


def answer_question(
    table: Table,
    question: str,
    engine: Engine = "auto",
    settings: Settings | None = None,
    on_step: OnStep | None = None,
) -> AskResult:
    """Answer `question` about `table`; evidence and trace cells carry sheet addresses."""
    started = time.monotonic()
    settings = settings or Settings()
    chosen: EngineName = "offline" if engine == "offline" else "llm"
    if engine == "auto" and not settings.llm_configured:
        chosen = "offline"
    state: ReasoningState | None = None
    try:
        ctx = table_context(table, dense=settings.dense_retrieval)
        graph, retriever = ctx.graph, ctx.retriever
        offline = None
        if engine == "auto" and chosen == "llm":
            offline = _offline_episode(ReasoningState(question, table, graph, settings, retriever))
            if offline is not None and _confident(*offline):
                return _result(question, "offline", *_replayed(offline, on_step), started)
        state = ReasoningState(question, table, graph, settings, retriever)
        final = engine_for(chosen, settings).answer(state, on_step)
        if final.error_code is not None and offline is not None:
            warning = f"the model was not used ({final.error_code}: {final.error}); offline answer"
            return _result(question, "offline", *_replayed(offline, on_step), started, [warning])
        return _result(question, chosen, state, final, started)
    except Exception as exc:
        if settings.raise_errors:
            raise
        log.exception("question failed: %s", question)
        final = _failed(f"internal error: {type(exc).__name__}: {exc}")
        if state is None:
            return AskResult(
                question=question, status="failed", error=final.error, engine=chosen,
                seconds=time.monotonic() - started, region=table.region, warnings=list(table.warnings),
            )  # fmt: skip
        return _result(question, chosen, state, final, started)


Episode = tuple[ReasoningState, FinalAnswer]


def _offline_episode(state: ReasoningState) -> Episode | None:
    """`auto`'s offline run: the zero-call fast path, and the fallback when the model fails."""
    try:
        return state, engine_for("offline", state.settings).answer(state)
    except Exception:
        if state.settings.raise_errors:
            raise
        log.exception("offline fast path failed; using the LLM")
        return None


def _confident(state: ReasoningState, final: FinalAnswer) -> bool:
    return final.status == "answered" and final.confidence >= state.settings.fast_path_confidence


def _replayed(episode: Episode, on_step: OnStep | None) -> Episode:
    """`episode` after replaying its steps to `on_step`."""
    state = episode[0]
    for step in state.steps:
        if on_step is not None:
            on_step(step, state)
    return episode


def _failed(reason: str) -> FinalAnswer:
    return FinalAnswer(status="failed", answer=[], answer_nodes=[], header_nodes=[], error=reason)


def engine_for(name: EngineName, settings: Settings) -> AnswerEngine:
    """The engine called `name`: the GraphOTTER loop over the LLM policy, or the offline engine."""
    if name == "offline":
        from celltrace.server.engine.offline_engine import OfflineEngine

        return OfflineEngine()
    from celltrace.server.engine.llm_policy import LLMPolicy
    from celltrace.server.infra.llm import LLMClient

    return PolicyLoop(LLMPolicy(LLMClient(settings)))


def _result(
    question: str,
    engine: EngineName,
    state: ReasoningState,
    final: FinalAnswer,
    started: float,
    warnings: list[str] | None = None,
) -> AskResult:
    table, graph = state.table, state.graph
    evidence = evidence_cells(table, graph, final.answer_nodes, final.header_nodes)
    answer, value, unit = in_user_terms(final, table, graph, state.headers)
    return AskResult(
        question=question,
        status=final.status,
        error=final.error,
        error_code=final.error_code,
        warnings=[*table.warnings, *(warnings or []), *flag_warnings(final, table, graph)],
        engine=engine,
        answer=answer,
        value=value,
        unit=unit,
        confidence=None if final.status == "failed" else final.confidence,
        evidence=evidence,
        trace=[cell_of(table, graph.node(i), TraceCell) for i in state.trace],
        steps=state.steps,
        usage=state.usage.to_usage(),
        seconds=time.monotonic() - started,
        region=table.region,
    )
