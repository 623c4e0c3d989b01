"""The mutable state of one question's reasoning episode, shared by the loop and the policies."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from celltrace.server.engine.context import headers_of
from celltrace.server.infra.llm import UsageMeter
from celltrace.server.infra.prompting import cell, node_list
from celltrace.server.infra.settings import Settings
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import HeaderModel
from celltrace.shared.schemas import Step
from celltrace.shared.table import Table

if TYPE_CHECKING:  # networkx is imported when a trace starts (cold CLI start without it)
    import networkx as nx

SHARED_SHOWN = 6
"""Shared neighbours listed per trace relation line (the rest are counted)."""


class TraceGraph:
    """The reasoning trace as a networkx subgraph (paper §3.3 Update, rendered as Figure 14).

    A node joining the trace gets an edge to every earlier trace node it is directly connected to
    (SAME ROW / SAME COLUMN) or shares a non-empty neighbour with. Each edge's line is rendered
    once, when the node joins (incremental), and lines are ordered by (newer node's visit index,
    older node's visit index), so the rendering never depends on hashing.
    """

    def __init__(self, graph: CellGraph) -> None:
        import networkx as nx

        self.graph = graph
        self.g: nx.Graph = nx.Graph()
        self.order: list[int] = []

    def add(self, node_id: int) -> bool:
        """Add a node (dedupe by id) and its edges to earlier trace nodes; True when new."""
        if node_id in self.g:
            return False
        new = self.graph.node(node_id)
        self.g.add_node(node_id, index=len(self.order))
        for old_id in self.order:
            old = self.graph.node(old_id)
            relation = self.graph.relation(old, new)
            if relation is not None:
                line = f"[{cell(old)}, {relation.replace('_', ' ').upper()}, {cell(new)}]"
            else:
                shared = [n for n in self.graph.shared_neighbours(old, new) if not n.empty]
                if not shared:
                    continue
                line = (
                    f"[{cell(old)}, {cell(new)}] has the following shared neighbors: "
                    f"{node_list(shared, SHARED_SHOWN)}."
                )
            self.g.add_edge(old_id, node_id, relation=relation or "shared", line=line)
        self.order.append(node_id)
        return True

    def lines(self, limit: int) -> list[str]:
        """The trace rendering: its nodes in visit order, then up to `limit` relation lines."""
        import networkx as nx

        index = nx.get_node_attributes(self.g, "index")
        edges = sorted(
            self.g.edges(data="line"),
            key=lambda e: (max(index[e[0]], index[e[1]]), min(index[e[0]], index[e[1]])),
        )
        out = [f"Trace nodes in visit order: {', '.join(cell(self.graph.node(i)) for i in self.order)}"]
        out += [line for _, _, line in edges[:limit]]
        if len(edges) > limit:
            out.append(f"... {len(edges) - limit} more trace relations not shown")
        return out


@dataclass
class ReasoningState:
    """Question, table, graph and retriever, plus what the episode has gathered so far.

    `trace` holds visited node ids in visit order (deduplicated by id; change it only through
    `add_to_trace`); `steps` the executed Thought/Action/Observation rounds; `usage` the LLM
    accounting of this question; `observed` every node id shown in an observation (first-seen
    order); `notes` loop feedback for the next decision (repeated actions, no progress, step limit).
    `retriever` is a `celltrace.server.infra.retrieval.Retriever`, or None.
    """

    question: str
    table: Table
    graph: CellGraph
    settings: Settings
    retriever: Any = None
    trace: list[int] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    usage: UsageMeter = field(default_factory=UsageMeter)
    observed: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    trace_graph: TraceGraph = field(init=False)

    def __post_init__(self) -> None:
        self.trace_graph = TraceGraph(self.graph)
        for node_id in self.trace:
            self.trace_graph.add(node_id)

    @functools.cached_property
    def headers(self) -> HeaderModel:
        """Inferred header structure of the graph (computed once)."""
        return headers_of(self.graph)

    def add_to_trace(self, node_id: int) -> bool:
        """Append a node to the trace unless present; True when it was new."""
        if not self.trace_graph.add(node_id):
            return False
        self.trace.append(node_id)
        return True

    def observe(self, node_ids: list[int]) -> None:
        """Remember nodes shown to the model (for matching answer text to cells)."""
        for node_id in node_ids:
            if node_id not in self.observed:
                self.observed.append(node_id)
