"""Per-program sandbox cost on this machine: `python benchmarks/sandbox_cost.py [runs]`.

Runs one honest table program through `run_function` with the table-API prelude (as the long-form
engine does) `runs` times after two warm-ups and prints the isolation layers and the median, p90,
min and max in milliseconds (SANDBOX.md, "Cost").
"""

from __future__ import annotations

import statistics
import sys
import time

from celltrace.server.longform.reasoner import PRELUDE, TableContext
from celltrace.server.sandbox import run_function
from celltrace.server.settings import Settings
from celltrace.shared.table import Table

PROGRAM = (
    "def solve(table):\n"
    "    rows = [r for r in table.records() if r['Industry'].lower() == 'oil and gas']\n"
    "    best = max(rows, key=lambda r: to_number(r['Profit']))\n"
    "    return {'company': best['Company'], 'profit': to_number(best['Profit'])}\n"
)
TABLE = Table(text=[
    ["Company", "Industry", "Profit"],
    ["Walmart", "Retail", "$13,510"],
    ["National Petroleum", "Oil and gas", "$4,575"],
    ["Sinopec Group", "Oil and gas", "$6,205"],
    ["Apple", "Electronics", "$57,511"],
])


def main(runs: int = 20) -> None:
    payload = TableContext.build(TABLE, Settings(dense_retrieval=False)).payload
    times: list[float] = []
    for i in range(runs + 2):
        started = time.perf_counter()
        result = run_function(PROGRAM, "solve", [payload], prelude_module=PRELUDE)
        if not result.ok:
            raise SystemExit(f"the program failed: {result.error}")
        if i >= 2:
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    print(f"{result.mechanism}: median {statistics.median(times):.0f} ms, "
          f"p90 {times[int(0.9 * (len(times) - 1))]:.0f} ms, min {times[0]:.0f} ms, max {times[-1]:.0f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
