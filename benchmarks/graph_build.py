"""Cell-graph and lexical-index build time, and `celltrace graph` against openpyxl's own load.

    python benchmarks/graph_build.py            # in memory: 2,000×30 and 10,000×50, 500 merges each
    python benchmarks/graph_build.py --cli      # also: `celltrace graph FILE.xlsx` vs openpyxl's load

In memory (warm: imports done, graph cache bypassed) it times `CellGraph` plus its edge count and
the lexical index (`Retriever(dense=False)`); target 2,000×30 ≤ 0.5 s for both together. Peak memory
is tracemalloc's peak (Python allocations only) from a separate, traced run.

`--cli` writes each table to an .xlsx and runs, alternately and `--runs` times each, the command
`celltrace graph FILE` and `python -c "openpyxl.load_workbook(FILE, data_only=True)"` (both new
processes, interpreter start included); it prints median wall and CPU seconds of each and their
ratio (target ≤ 2.0 for 10,000×50). The machine's load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from measure import load_average, run_process

from celltrace.server.infra.retrieval import Retriever
from celltrace.shared.graph import CellGraph
from celltrace.shared.table import Merge, Table

SIZES = ((2_000, 30), (10_000, 50))
WARM_TARGET_S = 0.5
"""2,000×30: graph plus lexical index, in memory."""
CLI_RATIO_TARGET = 2.0
"""10,000×50: `celltrace graph` over openpyxl's load of the same file."""


def make_table(n_rows: int, n_cols: int, n_merges: int = 500, seed: int = 0) -> Table:
    """Numeric grid under a header row with `n_merges` non-overlapping 2×2 or 1×3 merged areas."""
    rng = random.Random(seed)
    values: list[list[Any]] = [[f"col {c}" for c in range(n_cols)]]
    values += [[rng.randint(-10_000, 10_000) for _ in range(n_cols)] for _ in range(n_rows - 1)]
    taken: set[tuple[int, int]] = set()
    merges: list[Merge] = []
    while len(merges) < n_merges:
        h, w = rng.choice(((2, 2), (1, 3)))
        r0, c0 = rng.randrange(1, n_rows - h + 1), rng.randrange(0, n_cols - w + 1)
        area = {(r, c) for r in range(r0, r0 + h) for c in range(c0, c0 + w)}
        if area & taken:
            continue
        taken |= area
        merges.append((r0, c0, r0 + h - 1, c0 + w - 1))
        for r, c in area - {(r0, c0)}:
            values[r][c] = None
    text = [["" if v is None else str(v) for v in row] for row in values]
    return Table(text=text, values=values, merges=merges)


def median_seconds(step: Callable[[], Any], runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of `runs` calls (CPU time is less distorted by a busy machine)."""
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu)


def peak_mib(step: Callable[[], Any]) -> float:
    """tracemalloc's peak for one run (tracing slows allocation-heavy code several-fold)."""
    tracemalloc.start()
    step()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def build_graph(table: Table) -> tuple[CellGraph, int]:
    graph = CellGraph(table)
    return graph, graph.edge_count()


def build_both(table: Table) -> Retriever:
    return Retriever(build_graph(table)[0], dense=False)


def write_xlsx(table: Table, path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    for row in table.values or []:
        ws.append(row)
    for r0, c0, r1, c1 in table.merges:
        ws.merge_cells(start_row=r0 + 1, start_column=c0 + 1, end_row=r1 + 1, end_column=c1 + 1)
    wb.save(path)


def in_memory(runs: int) -> None:
    for n_rows, n_cols in SIZES:
        table = make_table(n_rows, n_cols)
        graph, n_edges = build_graph(table)
        t_graph = median_seconds(lambda t=table: build_graph(t), runs)
        t_index = median_seconds(lambda g=graph: Retriever(g, dense=False), runs)
        t_both = median_seconds(lambda t=table: build_both(t), runs)
        peak = peak_mib(lambda t=table: build_both(t))
        verdict = ""
        if (n_rows, n_cols) == SIZES[0]:
            verdict = f" (target {WARM_TARGET_S} s: {'ok' if t_both[0] <= WARM_TARGET_S else 'MISSED'})"
        print(
            f"{n_rows:>6,}×{n_cols:<3} {len(table.merges)} merges, {len(graph):,} nodes, {n_edges:,} edges; "
            f"seconds wall/CPU: graph {t_graph[0]:.3f}/{t_graph[1]:.3f}, lexical index "
            f"{t_index[0]:.3f}/{t_index[1]:.3f}, both {t_both[0]:.3f}/{t_both[1]:.3f}{verdict}; "
            f"peak {peak:.1f} MiB"
        )


def cli(runs: int) -> None:
    celltrace = shutil.which("celltrace") or "celltrace"
    with tempfile.TemporaryDirectory() as tmp:
        for n_rows, n_cols in SIZES:
            path = Path(tmp) / f"graph_{n_rows}x{n_cols}.xlsx"
            write_xlsx(make_table(n_rows, n_cols), path)
            load = f"import openpyxl; openpyxl.load_workbook({str(path)!r}, data_only=True)"
            ours: list[tuple[float, float, float]] = []
            theirs: list[tuple[float, float, float]] = []
            for _ in range(runs):  # alternate, so both see the same machine load
                ours.append(run_process([celltrace, "graph", str(path)], check=True))
                theirs.append(run_process([sys.executable, "-c", load], check=True))
            wall = [statistics.median(w for w, _, _ in x) for x in (ours, theirs)]
            cpu = [statistics.median(c for _, c, _ in x) for x in (ours, theirs)]
            ratio = wall[0] / wall[1]
            verdict = ""
            if (n_rows, n_cols) == SIZES[-1]:
                verdict = f" (target ≤ {CLI_RATIO_TARGET}: {'ok' if ratio <= CLI_RATIO_TARGET else 'MISSED'})"
            print(
                f"{n_rows:>6,}×{n_cols:<3} celltrace graph {wall[0]:.2f} s wall / {cpu[0]:.2f} s CPU; "
                f"openpyxl load {wall[1]:.2f} s / {cpu[1]:.2f} s; ratio wall {ratio:.2f}{verdict}, "
                f"CPU {cpu[0] / cpu[1]:.2f} (medians of {runs}; {load_average()})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", action="store_true", help="also compare `celltrace graph` with openpyxl")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args()
    print(load_average())
    in_memory(args.runs)
    if args.cli:
        cli(args.runs)


if __name__ == "__main__":
    main()
