"""Test helpers: the paper's case study (Figure 6 table, Table 7 steps) and a stage-aware responder.

`GraphScript` answers each chat request by the GraphOTTER stage its prompt belongs to, popping
that stage's next scripted reply (a string, or a `Reply`/`Fault` from `llm_server`), so tests
script stages independently of how many retries or re-asks happen in between.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from typing import Any

from llm_server import Scripted

from celltrace.server.infra.settings import Settings
from celltrace.shared.table import Table

QUESTION = (
    "in northern ontario, what proportion of workers who have worked in the restaurant and food "
    "services sector was french-language workers?"
)
FIGURE6_ROWS: list[list[Any]] = [
    ["sub-groups of the agri-food industry", "eastern ontario", None, "northern ontario", None],
    [None, "french-language workers", "other workers", "french-language workers", "other workers"],
    [None, "percent", None, None, None],
    ["input and service supply", 2.9, 2.1, 2.9, 1.3],
    ["food, beverage, and tobacco processing", 9.7, 6.0, 3.0, 3.3],
    ["food retail and wholesale", 35.3, 31.3, 39.1, 37.3],
    ["food service", 52.1, 60.6, 55.0, 58.1],
]
FIGURE6_MERGES = [(0, 0, 2, 0), (0, 1, 0, 2), (0, 3, 0, 4), (2, 1, 2, 4)]
CAPTION = "characteristics of small and medium-sized enterprises and their owners in the study sample"


def _text(value: Any) -> str:
    if value is None:
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


def figure6_table() -> Table:
    """The case-study table as a `Table` (numbers displayed as Excel's General format shows them)."""
    return Table(
        text=[[_text(v) for v in row] for row in FIGURE6_ROWS],
        values=[list(row) for row in FIGURE6_ROWS],
        merges=list(FIGURE6_MERGES),
        title=CAPTION,
    )


def action(name: str, *params: Any, explanation: str = "") -> str:
    """An Action-stage reply in the paper's schema."""
    return json.dumps(
        [{"Function": {"function_name": name, "parameters": list(params)}, "Explanation": explanation}]
    )


INIT_REPLY = (
    "```json\n"
    '[{"tuple": [1, 3, "french-language workers"], "explanation": "group asked about"},\n'
    ' {"tuple": [6, 0, "food service"], "explanation": "restaurant and food services"},\n'
    ' {"tuple": [0, 3, "northern ontario"], "explanation": "region"}]\n'
    "```"
)
THOUGHTS = [
    "Thought step 1: The graph includes 'northern ontario' and 'food service', but the percentages "
    "are not there yet, so look along the column of french-language workers.",
    "Thought step 2: Visit the 'percent' node to confirm the unit.",
    "Thought step 3: The shared neighbours of 'percent' and 'food service' hold the value.",
    "Thought step 4: 55.0 is the percentage of French-language workers in food service in northern ontario.",
]
ACTIONS = [
    action("GetAllNeighbours", [1, 3, "french-language workers"]),
    # the official code's alias, single quotes and a Python tuple: all accepted
    "[{'Function': {'function_name': 'SearchNode', 'parameters': ['Percent']}, 'Explanation': 'unit'}]",
    action("GetSharedNeighbours", [2, 3, "percent"], [6, 0, "food service"]),
    action("AnswerQuestion"),
]
ANSWER_REPLY = json.dumps(
    {
        "cells": [[6, 3, "55.0"], [6, 0, "food service"], [0, 3, "northern ontario"]],
        "operation": "none",
        "explanation": "the cell where food service meets northern ontario french-language workers",
        "answer": "55.0",
    }
)

STAGE_MARKERS = (
    ("REASK", "could not be used"),
    ("TRACE_INIT", "pick the nodes of the table"),
    ("THOUGHT", "write your Thought step"),
    ("ACTION", "give your Action step"),
    ("ANSWER", "give your answer"),
)


def stage_of(messages: list[dict[str, Any]]) -> str:
    """The GraphOTTER stage a request belongs to (a re-ask is reported as `REASK:<stage>`)."""
    last = str(messages[-1].get("content", ""))
    first_user = next(str(m["content"]) for m in messages if m["role"] == "user")
    for stage, marker in STAGE_MARKERS[1:]:
        if marker in first_user:
            return f"REASK:{stage}" if STAGE_MARKERS[0][1] in last else stage
    raise AssertionError(f"unknown stage for prompt: {first_user[:200]!r}")


class GraphScript:
    """A `ScriptedLLM` responder with one reply queue per stage (re-asks use the stage's queue)."""

    def __init__(
        self,
        init: Iterable[Scripted] = (INIT_REPLY,),
        thoughts: Iterable[Scripted] = THOUGHTS,
        actions: Iterable[Scripted] = ACTIONS,
        answers: Iterable[Scripted] = (ANSWER_REPLY,),
    ) -> None:
        self.queues = {
            "TRACE_INIT": deque(init),
            "THOUGHT": deque(thoughts),
            "ACTION": deque(actions),
            "ANSWER": deque(answers),
        }
        self.stages: list[str] = []

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> Scripted:
        stage = stage_of(messages)
        self.stages.append(stage)
        queue = self.queues[stage.removeprefix("REASK:")]
        if not queue:
            raise AssertionError(f"script ran out for {stage}")
        return queue.popleft() if len(queue) > 1 else queue[0]


def settings_for(base_url: str, **overrides: Any) -> Settings:
    """Settings pointing at the loopback server: 2 retries (the SDK's back-off), no embedding model."""
    values: dict[str, Any] = {
        "base_url": base_url,
        "api_key": "test",
        "model": "scripted-model",
        "request_timeout": 5.0,
        "max_retries": 2,
        "retry_max_wait": 0.05,
        "dense_retrieval": False,
        "raise_errors": True,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def _main() -> None:
    """Run the scripted case study and print every prompt sent, as JSON (for the hash-seed test)."""
    from llm_server import ScriptedLLM

    from celltrace.server.engine.api import answer_question

    with ScriptedLLM(GraphScript()) as llm:
        answer_question(figure6_table(), QUESTION, engine="llm", settings=settings_for(llm.base_url))
        print(json.dumps([r.messages for r in llm.chat_requests], ensure_ascii=False))


if __name__ == "__main__":
    _main()
