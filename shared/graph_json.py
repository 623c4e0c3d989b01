"""The graph JSON shape shared by `celltrace graph --json` and `POST /v1/graph`."""

from __future__ import annotations

from celltrace.shared.graph import graph_of
from celltrace.shared.schemas import GraphResult
from celltrace.shared.table import Table


def graph_result(table: Table, max_edges: int) -> GraphResult:
    """Nodes of `table`'s cell graph and, when there are at most `max_edges` of them, its edges.

    The edge count is computed without enumerating pairs; above the limit `edges` is None and a
    warning says how many there are.
    """
    graph = graph_of(table)
    warnings = list(table.warnings)
    n_edges = graph.edge_count()
    edges: list[dict[str, object]] | None = None
    if n_edges <= max_edges:
        edges = [{"a": a, "b": b, "relation": rel} for a, b, rel in graph.edges()]
    else:
        warnings.append(f"the graph has {n_edges:,} edges, more than max_edges={max_edges:,}; edges omitted")
    nodes = [
        {
            "id": n.id,
            "rows": list(n.rows),
            "cols": list(n.cols),
            "address": graph.area_address(n),
            "text": n.text,
            "value": n.value,
            "empty": n.empty,
        }
        for n in graph.nodes
    ]
    full = table.address(0, 0, table.n_rows - 1, table.n_cols - 1) if table.n_rows and table.n_cols else ""
    # one validation of plain dicts: several times faster than a model per node on large tables
    return GraphResult.model_validate(
        {"sheet": table.sheet, "range": full, "nodes": nodes, "edges": edges, "warnings": warnings,
         "region": table.region}
    )
