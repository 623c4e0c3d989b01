"""`celltrace graph`: print the cell graph of a workbook range."""

from __future__ import annotations

from typing import Annotated

import typer

from celltrace.server.commands.common import (
    NameOpt,
    RangeOpt,
    SheetOpt,
    TableOpt,
    WorkbookArg,
    load_table,
)
from celltrace.shared.graph import graph_of, render_node
from celltrace.shared.table import Table

SAMPLE_NODES = 12
SAMPLE_MERGES = 8


def graph(
    workbook: WorkbookArg,
    sheet: SheetOpt = None,
    range_: RangeOpt = None,
    name: NameOpt = None,
    table: TableOpt = None,
    json: Annotated[bool, typer.Option("--json", help="Print the graph as JSON.")] = False,
    max_edges: Annotated[
        int, typer.Option("--max-edges", min=0, help="List edges only up to this many (else null).")
    ] = 100_000,
) -> None:
    """Print the cell graph of a range: one node per cell or merged area, edges by shared row/column."""
    tbl = load_table(workbook, sheet, range_, name, table)
    if json:
        from celltrace.shared.graph_json import graph_result  # pydantic models: only for --json

        typer.echo(graph_result(tbl, max_edges).model_dump_json())
    else:
        typer.echo(summary(tbl))


def summary(table: Table) -> str:
    """Readable overview: size, nodes, merged areas, edge counts, warnings and a few nodes."""
    graph = graph_of(table)
    o = table.origin
    where = f"{o.workbook} · {o.sheet}!{o.address}" if o else "table"
    merged = [n for n in graph.nodes if n.merged]
    counts = graph.edge_counts()
    lines = [
        f"{where}: {table.n_rows} rows × {table.n_cols} columns",
        f"nodes: {len(graph):,} ({len(merged)} merged areas, {sum(n.empty for n in graph.nodes):,} empty)",
        f"edges: {sum(counts.values()):,} ({counts['same_row']:,} same_row, "
        f"{counts['same_column']:,} same_column)",
    ]
    if merged:
        shown = ", ".join(graph.area_address(n) for n in merged[:SAMPLE_MERGES])
        more = f", … {len(merged) - SAMPLE_MERGES} more" if len(merged) > SAMPLE_MERGES else ""
        lines.append(f"merged areas: {shown}{more}")
    lines += [f"warning: {w}" for w in table.warnings]
    filled = [n for n in graph.nodes if not n.empty]
    lines.append("first nodes (rows, cols, text):")
    lines += [f"  {render_node(n, max_chars=60)}" for n in filled[:SAMPLE_NODES]]
    if len(filled) > SAMPLE_NODES:
        lines.append(f"  … {len(filled) - SAMPLE_NODES:,} more non-empty nodes")
    return "\n".join(lines)
