"""Evidence roles: which cited cells hold the answer and which header cells qualify them.

Answer role: cells whose text equals an answer value (numbers compare by value, `55` = `55.0`);
failing that, cells seen during the episode whose text equals an answer value; failing that (a
computed answer), the numeric cells the model cited (the operands), else all cited cells.
Header role: cited, trace or header-inferred context nodes that share a row or column with an
answer cell (or lie on its inferred header path) and are not numeric data cells; and cited header
cells apart from the answer's row and column (section labels above its row: the evidence follows
what the model cited).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from celltrace.server.engine.actions import text_matches
from celltrace.shared.graph import CellGraph, Node
from celltrace.shared.headers import HeaderModel
from celltrace.shared.numbers import parse_number
from celltrace.shared.schemas import EvidenceCell, TraceCell
from celltrace.shared.table import Table

C = TypeVar("C", bound=TraceCell)


def cell_of(table: Table, node: Node, kind: type[C], **extra: str) -> C:
    """A node as a result cell (`TraceCell`/`EvidenceCell`) with its sheet address."""
    return kind(
        sheet=table.sheet,
        address=table.address(node.r0, node.c0, node.r1, node.c1),
        rows=list(node.rows),
        cols=list(node.cols),
        text=node.text,
        **extra,
    )


def evidence_cells(
    table: Table, graph: CellGraph, answer_ids: Sequence[int], header_ids: Sequence[int]
) -> list[EvidenceCell]:
    """Answer-role cells, then header-role cells that are not also answer cells."""
    kept = set(answer_ids)
    return [cell_of(table, graph.node(i), EvidenceCell, role="answer") for i in answer_ids] + [
        cell_of(table, graph.node(i), EvidenceCell, role="header") for i in header_ids if i not in kept
    ]


def split_evidence(
    graph: CellGraph,
    headers: HeaderModel,
    cited: list[Node],
    answers: list[str],
    seen: list[int],
    trace: list[int],
) -> tuple[list[int], list[int]]:
    """(answer node ids, header node ids) from the cited cells, answer values and the episode."""
    cited = [n for n in _unique(cited) if not n.empty]
    answer_nodes = [n for n in cited if any(text_matches(n, a) for a in answers)]
    if not answer_nodes:
        answer_nodes = _first_matches([graph.node(i) for i in [*trace, *seen]], answers)
    if not answer_nodes:
        answer_nodes = [n for n in cited if parse_number(n.text) is not None] or cited
    if not answer_nodes:
        return [], []
    answer_ids = {n.id for n in answer_nodes}
    on_path = {h.id for n in answer_nodes for h in headers.header_context(n)}
    cited_ids = {n.id for n in cited}
    related: list[Node] = []
    for node in _unique([*cited, *(graph.node(i) for i in trace)]):
        if node.id in answer_ids or node.empty:
            continue
        shares = any(graph.relation(node, a) is not None for a in answer_nodes)
        header = headers.is_header(node)
        is_data = parse_number(node.text) is not None and not header
        if node.id in on_path or (shares and not is_data) or (header and node.id in cited_ids):
            related.append(node)
    return [n.id for n in answer_nodes], sorted(n.id for n in related)


def _first_matches(pool: list[Node], answers: list[str]) -> list[Node]:
    """For each answer value, the first node in `pool` holding it."""
    out = []
    for value in answers:
        match = next((n for n in pool if not n.empty and text_matches(n, value)), None)
        if match is not None:
            out.append(match)
    return _unique(out)


def _unique(nodes: list[Node]) -> list[Node]:
    seen: set[int] = set()
    out = []
    for node in nodes:
        if node.id not in seen:
            seen.add(node.id)
            out.append(node)
    return out
