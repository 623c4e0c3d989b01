"""The mutable state of one question's reasoning episode, shared by the loop and the policies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from celltrace.server.llm import UsageMeter
from celltrace.server.settings import Settings
from celltrace.shared.graph import CellGraph
from celltrace.shared.schemas import Step
from celltrace.shared.table import Table


@dataclass
class ReasoningState:
    """Question, table, graph and retriever, plus what the episode has gathered so far.

    `trace` holds visited node ids in visit order (deduplicated by id); `steps` the executed
    Thought/Action/Observation rounds; `usage` the LLM accounting of this question.
    `retriever` is a `celltrace.server.retrieval.Retriever` (or None when unavailable).
    """

    question: str
    table: Table
    graph: CellGraph
    settings: Settings
    retriever: Any = None
    trace: list[int] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    usage: UsageMeter = field(default_factory=UsageMeter)
    notes: list[str] = field(default_factory=list)
    """Loop feedback for the next decision (repeated action, no progress), cleared once shown."""

    def add_to_trace(self, node_id: int) -> bool:
        """Append a node to the trace unless present; True when it was new."""
        if node_id in self.trace:
            return False
        self.trace.append(node_id)
        return True
