"""Cell-graph build time and peak memory on generated tables with 1 % of cells in merged areas.

    python benchmarks/graph_build.py            # in-memory tables: 2,000×30 and 10,000×50
    python benchmarks/graph_build.py --xlsx     # also write each table to .xlsx and read it back

Targets: CellGraph construction plus the edge count ≤ 1 s (2,000×30) and ≤ 5 s (10,000×50).
`graph_result` (the `graph --json` / `POST /v1/graph` shape) and `read_table` are timed for reference.
Peak memory is tracemalloc's peak for the step (Python allocations only), from a separate run.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celltrace.shared.graph import CellGraph
from celltrace.shared.graph_json import graph_result
from celltrace.shared.table import Merge, Table
from celltrace.shared.xlsx_read import read_table

SIZES = ((2_000, 30, 1.0), (10_000, 50, 5.0))


def make_table(n_rows: int, n_cols: int, seed: int = 0) -> Table:
    """Numeric grid with a header row; 2×2 or 1×3 merged areas covering about 1 % of the cells."""
    rng = random.Random(seed)
    values: list[list[Any]] = [[f"col {c}" for c in range(n_cols)]]
    values += [[rng.randint(-10_000, 10_000) for _ in range(n_cols)] for _ in range(n_rows - 1)]
    taken: set[tuple[int, int]] = set()
    merges: list[Merge] = []
    target = n_rows * n_cols // 100
    covered = 0
    while covered < target:
        h, w = rng.choice(((2, 2), (1, 3)))
        r0, c0 = rng.randrange(1, n_rows - h + 1), rng.randrange(0, n_cols - w + 1)
        area = {(r, c) for r in range(r0, r0 + h) for c in range(c0, c0 + w)}
        if area & taken:
            continue
        taken |= area
        merges.append((r0, c0, r0 + h - 1, c0 + w - 1))
        covered += len(area)
        for r, c in area - {(r0, c0)}:
            values[r][c] = None
    text = [["" if v is None else str(v) for v in row] for row in values]
    return Table(text=text, values=values, merges=merges)


def measure(step: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, seconds, peak MiB): timed in a plain call, peak memory from a second, traced call
    (tracemalloc slows allocation-heavy code several-fold)."""
    start = time.perf_counter()
    result = step()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    step()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def build(table: Table) -> tuple[CellGraph, int]:
    graph = CellGraph(table)
    return graph, graph.edge_count()


def write_xlsx(table: Table, path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    for row in table.values or []:
        ws.append(row)
    for r0, c0, r1, c1 in table.merges:
        ws.merge_cells(start_row=r0 + 1, start_column=c0 + 1, end_row=r1 + 1, end_column=c1 + 1)
    wb.save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xlsx", action="store_true", help="also time read_table on a written .xlsx")
    args = parser.parse_args()
    for n_rows, n_cols, target in SIZES:
        table = make_table(n_rows, n_cols)
        (graph, n_edges), seconds, peak = measure(lambda t=table: build(t))
        verdict = "ok" if seconds <= target else "SLOW"
        print(
            f"{n_rows:>6,}×{n_cols:<3} {len(table.merges):>5} merges  graph {len(graph):>7,} nodes "
            f"{n_edges:>13,} edges  {seconds:6.2f} s (target {target:.0f} s, {verdict})  peak {peak:7.1f} MiB"
        )
        result, seconds, peak = measure(lambda t=table: graph_result(t, max_edges=100_000))
        print(
            f"{'':>16} graph_result (JSON shape, {len(result.nodes):,} nodes) "
            f"{seconds:6.2f} s  peak {peak:7.1f} MiB"
        )
        if args.xlsx:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "bench.xlsx"
                write_xlsx(table, path)
                read, seconds, peak = measure(lambda p=path: read_table(p))
                print(
                    f"{'':>16} read_table from .xlsx ({read.n_rows}×{read.n_cols}) "
                    f"{seconds:6.2f} s  peak {peak:7.1f} MiB"
                )


if __name__ == "__main__":
    main()
