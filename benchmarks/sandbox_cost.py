"""Per-program sandbox cost on this machine: `python benchmarks/sandbox_cost.py [runs] [--repeat 3]`.

Runs one honest table program through `run_function` with the table-API prelude (as the long-form
engine does) `runs` times after two warm-ups and prints the isolation layers and the median, p90,
min and max in milliseconds (SANDBOX.md, "Cost") — for each outer layer that works here (bwrap,
netns), once with a fresh process per program and once with the warm zygote (Linux), so the ratio
is measured in one run; the first program of a zygote (its start) is shown apart. `--repeat N`
repeats everything and prints the medians of the medians; `uptime` is printed alongside.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from celltrace.server.infra import sandbox
from celltrace.server.infra.sandbox import run_function
from celltrace.server.infra.settings import Settings
from celltrace.server.longform.reasoner import PRELUDE, TableContext
from celltrace.shared.table import Table

PROGRAM = (
    "def solve(table):\n"
    "    rows = [r for r in table.records() if r['Industry'].lower() == 'oil and gas']\n"
    "    best = max(rows, key=lambda r: to_number(r['Profit']))\n"
    "    return {'company': best['Company'], 'profit': to_number(best['Profit'])}\n"
)
TABLE = Table(
    text=[
        ["Company", "Industry", "Profit"],
        ["Walmart", "Retail", "$13,510"],
        ["National Petroleum", "Oil and gas", "$4,575"],
        ["Sinopec Group", "Oil and gas", "$6,205"],
        ["Apple", "Electronics", "$57,511"],
    ]
)


def measure(runs: int, payload: dict) -> tuple[str, float, list[float]]:
    """(mechanism, first program's ms, the next `runs` programs' ms after two more warm-ups)."""
    times: list[float] = []
    first = 0.0
    for i in range(runs + 3):
        started = time.perf_counter()
        result = run_function(PROGRAM, "solve", [payload], prelude_module=PRELUDE)
        if not result.ok:
            raise SystemExit(f"the program failed: {result.error}")
        elapsed = (time.perf_counter() - started) * 1000
        if i == 0:
            first = elapsed
        elif i >= 3:
            times.append(elapsed)
    return result.mechanism, first, sorted(times)


def main(runs: int = 20, repeat: int = 1) -> None:
    payload = TableContext.build(TABLE, Settings(dense_retrieval=False)).payload
    print(subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip())
    medians: dict[str, list[float]] = {}
    for _ in range(repeat):
        for wrapper in ("bwrap", "netns"):
            sandbox._wrapper.cache_clear()
            if wrapper == "netns":
                sandbox._wrapper = lambda: "netns"  # type: ignore[assignment]
            elif sandbox._wrapper() != "bwrap":
                continue
            for zygote in (False, True) if sandbox.ZYGOTE else (False,):
                sandbox.ZYGOTE = zygote
                sandbox.close_zygotes()
                mechanism, first, times = measure(runs, payload)
                label = f"{wrapper}, {'warm zygote' if zygote else 'fresh process'}"
                medians.setdefault(label, []).append(statistics.median(times))
                print(
                    f"{label}: first {first:.0f} ms, then median {statistics.median(times):.1f} ms, "
                    f"p90 {times[int(0.9 * (len(times) - 1))]:.1f} ms, min {times[0]:.1f} ms, "
                    f"max {times[-1]:.1f} ms  [{mechanism}]"
                )
            sandbox._wrapper = _WRAPPER
    if repeat > 1:
        for label, values in medians.items():
            print(f"median of {repeat} medians, {label}: {statistics.median(values):.1f} ms")
    for wrapper in ("bwrap", "netns"):
        fresh, warm = medians.get(f"{wrapper}, fresh process"), medians.get(f"{wrapper}, warm zygote")
        if fresh and warm:
            ratio = statistics.median(warm) / statistics.median(fresh)
            print(f"{wrapper}: warm zygote / fresh process = {ratio:.2f}")


_WRAPPER = sandbox._wrapper

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    cli = parser.parse_args()
    main(cli.runs, cli.repeat)
