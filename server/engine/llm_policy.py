"""The LLM policy: GraphOTTER's trace initialisation, Thought, Action and Answer stages (Figures 9-13).

Context budget: each prompt spends on dynamic content at most `settings.context_token_budget`
estimated tokens, and never more than the context window (`CELLTRACE_CONTEXT_TOKENS`, else the
server's) leaves after the stage's `max_tokens` and the fixed text (system, tools, template,
question), so prompt + max_tokens always fit the window. The thought gets up to a tenth, the trace
a quarter and the history half (the newest step with findings in full, earlier ones one line
each); the table gets what is left, in full when it fits, else as an outline (size, inferred
headers, sample rows) so that other cells are reached through actions. The Action and Answer
prompts get a short outline (at most `OUTLINE_SHARE` of the budget): the Action transcribes the
Thought, which saw the table, and the Answer rests on the trace and the newest finding (paper
§3.4), so neither needs the table again. Only the Thought prompt describes the functions; the Action
prompt names them (its schema's enum).

Trace initialisation: the model's picks ∩ the retriever's top `retrieval_pool` hits for the
question, in the model's order, at most `trace_init_k`. When the intersection is empty, a ranked
union: model pick 1, retriever hit 1, model pick 2, ... (deduplicated), first `trace_init_k`.
Without a retriever the model's picks are used alone.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, RootModel, field_validator, model_validator

from celltrace.prompts import load
from celltrace.server.engine.actions import ANSWER, CANONICAL, normalise_args, resolve
from celltrace.server.engine.evidence import split_evidence
from celltrace.server.engine.policy import Decision, FinalAnswer
from celltrace.server.engine.state import ReasoningState
from celltrace.server.infra.jsonparse import ParseError, parse_loose
from celltrace.server.infra.llm import LLMClient
from celltrace.server.infra.llm_probe import context_tokens
from celltrace.server.infra.prompting import (
    cell,
    data_block,
    fit_lines,
    history_lines,
    outline_lines,
    render,
    table_lines,
    truncate,
)
from celltrace.server.infra.tokens import estimate_tokens
from celltrace.shared.schemas import EngineName, StepAction

log = logging.getLogger(__name__)
_THOUGHT_PREFIX = re.compile(r"^\s*\**\s*thought(?:\s+step)?\s*\d*\s*\**\s*:\s*", re.IGNORECASE)
_CALL = re.compile(r"^\s*([A-Za-z_]+)\s*\((.*)\)\s*$", re.DOTALL)


# ---- reply schemas (tolerant: the shapes models actually produce) ----------------------------------
class _Pick(BaseModel):
    node: Any = Field(validation_alias=AliasChoices("tuple", "node", "cell", "Tuple", "Node"))
    explanation: str = ""

    @model_validator(mode="before")
    @classmethod
    def _bare(cls, value: Any) -> Any:
        return value if isinstance(value, dict) else {"tuple": value}


class _Picks(RootModel[list[_Pick]]):
    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, value: Any) -> Any:
        return _unwrap_list(value)


class _Action(BaseModel):
    name: str
    args: list[Any] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, value: Any) -> Any:
        if isinstance(value, str):
            return _parse_call(value)
        if not isinstance(value, dict):
            raise ValueError('an action must be an object like {"Function": {...}, "Explanation": ...}')
        low = {str(k).casefold(): v for k, v in value.items()}
        inner = low.get("function", low)
        if isinstance(inner, str):
            return _parse_call(inner) if "(" in inner else {"name": inner, "args": low.get("parameters")}
        if not isinstance(inner, dict):
            raise ValueError("Function must be an object with function_name and parameters")
        inner = {str(k).casefold(): v for k, v in inner.items()}
        name = next((inner[k] for k in ("function_name", "name", "action") if k in inner), None)
        args = next((inner[k] for k in ("parameters", "params", "args", "arguments") if k in inner), None)
        return {"name": name, "args": args}

    @field_validator("args", mode="before")
    @classmethod
    def _args(cls, value: Any) -> Any:
        if value is None:
            return []
        return value if isinstance(value, list) else [value]


class _Actions(RootModel[list[_Action]]):
    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, value: Any) -> Any:
        return _unwrap_list(value)


class _Answer(BaseModel):
    cells: list[Any] = Field(default_factory=list)
    operation: str = ""
    explanation: str = ""
    answer: list[str]

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k).casefold(): v for k, v in value.items()}
        return value

    @field_validator("answer", mode="before")
    @classmethod
    def _answer(cls, value: Any) -> list[str]:
        """A string stays one item (never split into characters); scalars become one item."""
        if value is None:
            return []
        items = value if isinstance(value, list) else [value]
        return [_scalar_text(v) for v in items if v is not None and str(v).strip() != ""]

    @field_validator("cells", mode="before")
    @classmethod
    def _cells(cls, value: Any) -> Any:
        if value is None:
            return []
        return value if isinstance(value, list) else [value]

    @field_validator("operation", "explanation", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)


OUTLINE_SHARE = 16
"""The Action and Answer prompts' outline takes at most 1/OUTLINE_SHARE of the dynamic budget."""
FIXED_MARGIN = 64
"""Tokens kept free for message framing and slot values not counted elsewhere (step numbers, k)."""


# ---- bounded JSON schemas sent as `response_format` (json_schema mode) ----------------------------------
NODE_CHARS, NOTE_CHARS, ANSWER_ITEMS = 40, 120, 8
"""Bounds that keep grammar-constrained replies short: small local models fill strings to the limit.
A node name or a VisitNode query gets `NODE_CHARS` (an address, or an address and a short text; a
longer text cut there still resolves by its position or by keywords)."""


def _strings(max_items: int, max_length: int) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "maxLength": max_length}, "maxItems": max_items}


def _object(**properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def picks_schema(k: int) -> dict[str, Any]:
    """TRACE_INIT: at most `k` node addresses."""
    return _object(nodes=_strings(k, NODE_CHARS))


ACTION_SCHEMA = _object(
    actions={
        "type": "array",
        "items": _object(
            function_name={"type": "string", "enum": list(CANONICAL)},
            parameters=_strings(2, NODE_CHARS),
        ),
        "minItems": 1,
        "maxItems": 3,
    }
)
ANSWER_SCHEMA = _object(
    cells=_strings(ANSWER_ITEMS, NODE_CHARS),
    operation={"type": "string", "maxLength": NODE_CHARS},
    explanation={"type": "string", "maxLength": NOTE_CHARS},
    answer=_strings(ANSWER_ITEMS, NODE_CHARS * 2),
)


def _scalar_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_scalar_text(v) for v in value)
    return str(value).strip()


def _unwrap_list(value: Any) -> Any:
    """A single object becomes a one-item list; `{"actions": [...]}`-style wrappers are opened."""
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(value) == 1 and len(lists) == 1:
            return lists[0]
        return [value]
    return value


def _parse_call(text: str) -> dict[str, Any]:
    """`GetAllNeighbours((1, 3, 'x'))` → name and argument list."""
    m = _CALL.match(text)
    if m is None:
        return {"name": text.strip(), "args": []}
    inner = m.group(2).strip()
    try:
        args = parse_loose(f"[{inner}]") if inner else []
    except ParseError:
        args = [inner]
    return {"name": m.group(1), "args": args}


# ---- the policy ---------------------------------------------------------------------------------------
class LLMPolicy:
    """GraphOTTER with an OpenAI-compatible model; one instance per question."""

    engine: EngineName = "llm"

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.settings = client.settings
        self._system = render("graph_system")
        self._tools = render("graph_tools")
        self._table: list[str] | None = None
        self._table_tokens = 0

    # -- Policy ----------------------------------------------------------------------------------
    def start(self, state: ReasoningState) -> list[int]:
        s = self.settings
        pool = state.retriever.search(state.question, s.retrieval_pool) if state.retriever else []
        budget = self._budget("TRACE_INIT", "graph_trace_init", state.question)
        table = self._table_block(state, budget // 2 if pool else budget)
        candidates = ""
        if pool and table.startswith("<<<BEGIN TABLE OUTLINE"):
            lines = fit_lines([cell(h.node) for h in pool], budget // 2, "candidates")
            candidates = "Cells retrieved for the question:\n" + data_block("RETRIEVED CELLS", lines)
        prompt = render(
            "graph_trace_init", table=table, candidates=candidates, question=state.question, k=s.trace_init_k
        )
        picks = self.client.complete_model(
            "TRACE_INIT", self._messages(prompt), _Picks, state.usage, picks_schema(s.trace_init_k)
        )
        chosen: list[int] = []
        for pick in picks.root:
            res = resolve(state.graph, state.retriever, pick.node)
            if res.node is None or res.node.empty:
                log.debug("trace init: dropped pick %r (%s)", pick.node, res.note)
            elif res.node.id not in chosen:
                chosen.append(res.node.id)
        if not pool:
            return chosen[: s.trace_init_k]
        top = [h.node.id for h in pool]
        both = [i for i in chosen if i in top][: s.trace_init_k]
        return both or _interleave(chosen, top)[: s.trace_init_k]

    def step(self, state: ReasoningState) -> Decision:
        number = len(state.steps) + 1
        context = self._context(state, "THOUGHT", None)
        prompt = render("graph_thought", tools=self._tools, step=number, **context)
        reply = self.client.complete("THOUGHT", self._messages(prompt), state.usage, cut_ok=True)
        thought = _THOUGHT_PREFIX.sub("", reply.strip(), count=1)
        context = self._context(state, "ACTION", thought)
        prompt = render("graph_action", step=number, **context)
        actions = self.client.complete_model(
            "ACTION", self._messages(prompt), _Actions, state.usage, ACTION_SCHEMA
        )
        return Decision(
            thought=thought,
            actions=[StepAction(name=a.name, args=normalise_args(a.name, a.args)) for a in actions.root],
        )

    def answer(self, state: ReasoningState) -> FinalAnswer:
        prompt = render("graph_answer", **self._context(state, "ANSWER", None))
        reply = self.client.complete_model(
            "ANSWER", self._messages(prompt), _Answer, state.usage, ANSWER_SCHEMA
        )
        cited = []
        for ref in reply.cells:
            res = resolve(state.graph, state.retriever, ref)
            if res.node is not None:
                cited.append(res.node)
        answer_ids, header_ids = split_evidence(
            state.graph, state.headers, cited, reply.answer, state.observed, state.trace
        )
        return FinalAnswer(
            status="answered" if reply.answer else "abstained",
            answer=reply.answer,
            answer_nodes=answer_ids,
            header_nodes=header_ids,
            explanation=" ".join(p for p in (reply.operation, reply.explanation) if p),
        )

    # -- rendering -------------------------------------------------------------------------------
    def _messages(self, prompt: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": self._system}, {"role": "user", "content": prompt}]

    def _budget(self, stage: str, template: str, question: str) -> int:
        """Dynamic-content tokens allowed in `stage`'s prompt (module docstring)."""
        s = self.settings
        tools = self._tools if stage == "THOUGHT" else ""
        fixed = sum(estimate_tokens(t) for t in (self._system, tools, load(template), question))
        room = context_tokens(s) - s.max_tokens_for(stage) - fixed - FIXED_MARGIN
        return max(min(s.context_token_budget, room), 0)

    def _context(self, state: ReasoningState, stage: str, thought: str | None) -> dict[str, str]:
        """Slots shared by the reasoning prompts, within the context budget (module docstring).

        `thought` (the Action prompt's current thought) is a slot only when given.
        """
        template = {"THOUGHT": "graph_thought", "ACTION": "graph_action"}.get(stage, "graph_answer")
        budget = self._budget(stage, template, state.question)
        thought = None if thought is None else truncate(thought, budget // 10)
        trace_lines = state.trace_graph.lines(self.settings.max_list_lines)
        trace = data_block("TRACE", fit_lines(trace_lines, budget // 4, "trace lines"))
        history = data_block("HISTORY", history_lines(state.steps, budget // 2, _last_finding(state)))
        notes = "".join(f"\nNote: {n}" for n in state.notes)
        used = sum(estimate_tokens(x) for x in (thought or "", trace, history, notes))
        slots = {
            "table": self._table_block(state, budget - used)
            if stage == "THOUGHT"
            else self._table_block(state, min(budget - used, budget // OUTLINE_SHARE), whole=False),
            "question": state.question,
            "trace": trace,
            "history": history,
            "notes": notes,
        }
        return slots if thought is None else {**slots, "thought": thought}

    def _table_block(self, state: ReasoningState, budget: int, whole: bool = True) -> str:
        """The whole table when `whole` and it fits `budget`, else its outline."""
        if self._table is None:
            self._table = table_lines(state.graph)
            self._table_tokens = sum(estimate_tokens(line) + 1 for line in self._table)
        if whole and self._table_tokens <= budget:
            return data_block("TABLE", self._table)
        lines = outline_lines(state.graph, state.headers, budget, self.settings.max_list_lines)
        return data_block("TABLE OUTLINE", lines)


def _last_finding(state: ReasoningState) -> int | None:
    """The newest step that did more than ask to answer (shown in full: it holds the findings)."""
    found = [i for i, step in enumerate(state.steps) if any(a.name != ANSWER for a in step.actions)]
    return found[-1] if found else None


def _interleave(first: list[int], second: list[int]) -> list[int]:
    out: list[int] = []
    for i in range(max(len(first), len(second))):
        for source in (first, second):
            if i < len(source) and source[i] not in out:
                out.append(source[i])
    return out
