"""Wall time of `celltrace batch` on LLM questions with default settings against a slow scripted model.

    python benchmarks/batch_load.py [--questions 40] [--delay 0.5] [--runs 3] [--baseline DIR]

A workbook holds the HiTab dev table with the most single-cell lookups (sheet `Data`, numbers as
numbers, merges kept) and `--questions` of its lookups in `Q!A2:A…` (repeated when there are
fewer). `celltrace batch --engine llm` answers them in a subprocess whose model is the scripted
oracle of `scripted_model.py` (loopback, `--delay` seconds per call); nothing else is set, so the
concurrency is the default. Prints each run's wall time and answers, the median, and with
`--baseline DIR` (a folder holding an older `celltrace` package) the same runs of that code first
and the ratio; `uptime` alongside.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openpyxl

sys.path.insert(0, str(Path(__file__).parent))

from scripted_model import ScriptedLLM, SlowOracle, lookup_records, model_env, uptime

from celltrace.server.evaluation.layouts import write_grid
from celltrace.shared.table import Table

RUN_TIMEOUT_S = 900


def build(path: Path, records: list[dict]) -> None:
    """Sheet `Data`: the records' table (numbers as numbers, in their formats); sheet `Q`: their
    questions from A2 down."""
    table = Table.from_record(records[0])
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    write_grid(ws, table, list(range(1, table.n_rows + 1)), 1)
    q = wb.create_sheet("Q")
    for i, record in enumerate(records):
        q.cell(i + 2, 1, record["question"])
    wb.save(path)


def run_batch(book: Path, n: int, env: dict[str, str]) -> tuple[float, dict]:
    """(wall seconds, the `--json` summary) of one `celltrace batch` run."""
    cmd = [
        sys.executable,
        "-c",
        "from celltrace.server.cli import main; main()",
        "batch",
        str(book),
        "--sheet",
        "Data",
        "--questions",
        f"Q!A2:A{n + 1}",
        "--engine",
        "llm",
        "--overwrite",
        "--json",
    ]
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"celltrace batch failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, json.loads(proc.stdout)


def runs(label: str, book: Path, n: int, env: dict[str, str], count: int) -> list[float]:
    walls = []
    for i in range(count):
        print(f"--- {label} run {i + 1}/{count}; {uptime()}")
        wall, summary = run_batch(book, n, env)
        walls.append(wall)
        print(
            f"{wall:.1f} s wall: {summary['answered']} answered, {summary['abstained']} abstained, "
            f"{summary['failed']} failed of {summary['n']}"
        )
    print(f"median of {count}, {label}: {statistics.median(walls):.1f} s")
    return walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per scripted model call")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="folder holding an older `celltrace` package")
    args = parser.parse_args()
    records = lookup_records(args.questions, tables=1)
    skip = ("CELLTRACE_", "OPENAI_")  # the defaults, not this shell's settings
    base = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    with (
        tempfile.TemporaryDirectory(prefix="celltrace-batch-") as tmp,
        ScriptedLLM(SlowOracle(records, args.delay)) as llm,
    ):
        book = Path(tmp) / "questions.xlsx"
        build(book, records)
        env = {**base, **model_env(llm)}
        old = None
        if args.baseline:
            old = runs(
                "baseline",
                book,
                args.questions,
                {**env, "PYTHONPATH": str(args.baseline.resolve())},
                args.runs,
            )
        new = runs("this checkout", book, args.questions, env, args.runs)
    if old:
        print(f"ratio this/baseline wall: {statistics.median(new) / statistics.median(old):.2f}")


if __name__ == "__main__":
    main()
