"""Start-up and per-question time of the command line and the offline engine on this machine.

    python benchmarks/cold_start.py [--runs 3]

Prints, each as the median of `--runs` runs (new processes, so each run is cold):

* `celltrace --help` and `celltrace ask --help` (target < 1 s each);
* a one-shot `celltrace ask examples/financials.xlsx "What was cargo revenue in 2016?"` with the
  offline engine (target ≤ 4 s wall on an idle machine), with its peak resident memory;
* warm: in one process with the table already read and its graph built, the p50 over questions
  about the example (target ≤ 0.1 s per question); the first pass asks each question for the first
  time, later passes repeat them.

Wall and CPU seconds are both shown: on a busy machine wall time mostly measures the other processes
(the load average is printed with the figures).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

from measure import load_average, run_process

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "financials.xlsx"
QUESTIONS = (
    "What was cargo revenue in 2016?",
    "What was passenger revenue in 2017?",
    "What were total operating expenses in 2015?",
    "What was the operating margin in 2016?",
    "What was net income in 2017?",
    "What was interest income in 2015?",
    "How much were regional expenses in 2017?",
    "What was diluted earnings per share in 2016?",
    "What was the change in aircraft fuel cost from 2016 to 2017?",
    "What was total operating revenue in 2017?",
)
HELP_TARGET_S = 1.0
COLD_TARGET_S = 4.0
WARM_TARGET_S = 0.1


def processes(runs: int) -> None:
    celltrace = shutil.which("celltrace") or "celltrace"
    cases = (
        ("celltrace --help", [celltrace, "--help"], HELP_TARGET_S),
        ("celltrace ask --help", [celltrace, "ask", "--help"], HELP_TARGET_S),
        (
            "cold celltrace ask (offline)",
            [celltrace, "ask", str(EXAMPLE), QUESTIONS[0], "--engine", "offline"],
            COLD_TARGET_S,
        ),
    )
    for label, argv, target in cases:
        samples = [run_process(argv) for _ in range(runs)]
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        verdict = "ok" if wall <= target else "over (see CPU and load)"
        print(
            f"{label}: {wall:.2f} s wall, {cpu:.2f} s CPU, peak RSS ≤ {samples[-1][2]:.0f} MiB "
            f"(target {target:g} s: {verdict}; median of {runs}; {load_average()})"
        )


def warm(runs: int) -> None:
    from celltrace.server.engine.api import answer_question
    from celltrace.server.infra.settings import Settings
    from celltrace.shared.detect import locate
    from celltrace.shared.xlsx_read import read_table

    table = locate(read_table(EXAMPLE), QUESTIONS[0])
    settings = Settings()
    answer_question(table, QUESTIONS[0], engine="offline", settings=settings)  # graph, indexes, model
    for i in range(runs):
        wall: list[float] = []
        cpu: list[float] = []
        for question in QUESTIONS:
            started, started_cpu = time.perf_counter(), time.process_time()
            answer_question(table, question, engine="offline", settings=settings)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        p50 = statistics.median(wall)
        what = "new questions" if i == 0 else "repeated questions"
        print(
            f"warm pass {i + 1} ({what}): p50 {p50:.3f} s wall, {statistics.median(cpu):.3f} s CPU, "
            f"max {max(wall):.3f} s (target {WARM_TARGET_S} s: {'ok' if p50 <= WARM_TARGET_S else 'over'}; "
            f"{load_average()})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args()
    processes(args.runs)
    warm(args.runs)


if __name__ == "__main__":
    main()
