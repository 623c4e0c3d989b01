"""What the benchmark scripts share: timing a child process and the machine's load average."""

from __future__ import annotations

import os
import resource
import subprocess
import time


def run_process(argv: list[str], *, check: bool = False, timeout: float = 900) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB of the largest child so far) of one child run to completion
    (output discarded; `check` raises on a non-zero exit)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024


def load_average() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
