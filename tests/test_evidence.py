"""Evidence roles of the cells a model cites (`split_evidence`)."""

from __future__ import annotations

from celltrace.server.engine.context import headers_of
from celltrace.server.engine.evidence import split_evidence
from celltrace.shared.graph import CellGraph
from celltrace.shared.table import Table

ROWS = [
    ["group", "2019", "2020"],
    ["all workers", "100", "100"],  # the parent of the rows below (HiTab loses the indentation)
    ["women", "48", "49"],
    ["men", "52", "51"],
]


def test_a_cited_header_apart_from_the_answer_is_evidence_and_a_cited_data_cell_is_not() -> None:
    graph = CellGraph(Table(text=ROWS, title="workers"))
    node = {n.address: n for n in graph.nodes}
    cited = [node[a] for a in ("C3", "A2", "A3", "C1", "B4")]
    answer, header = split_evidence(graph, headers_of(graph), cited, ["49"], [], [])
    assert [graph.node(i).address for i in answer] == ["C3"]
    assert {graph.node(i).address for i in header} == {"A2", "A3", "C1"}
