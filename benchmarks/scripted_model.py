"""A slow scripted model for throughput benchmarks: the oracle of `oracle_ceiling.py` on the loopback
`ScriptedLLM` (tests/llm_server.py), answering each call after `delay` seconds.

HiTab dev single-cell lookups (aggregation "none", one gold answer cell): TRACE_INIT, then one or
two Thought/Action rounds and ANSWER — about 4–6 calls a question. Each call is routed to the
oracle of the question its prompt names, so any number of questions can run at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks")]

from llm_server import Fault, Scripted, ScriptedLLM  # noqa: E402
from oracle_ceiling import Oracle  # noqa: E402

from celltrace.server.evaluation.devdata import dev_data_dir  # noqa: E402
from celltrace.server.infra.settings import STAGES  # noqa: E402
from celltrace.shared.graph import CellGraph  # noqa: E402
from celltrace.shared.table import Table  # noqa: E402

__all__ = ["SlowOracle", "lookup_records", "model_env", "uptime"]


def lookup_records(n: int, tables: int | None = None) -> list[dict[str, Any]]:
    """`n` HiTab dev single-cell lookups (distinct questions, repeated when there are fewer). With
    `tables`, from the `tables` tables with the most lookups — questions about one workbook, as
    the add-in asks them; without, from as many tables as they come (each one cold)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    seen: set[str] = set()
    for line in (dev_data_dir() / "hitab_dev.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        lookup = record["aggregation"] == "none" and len(record["answer_cells"]) == 1
        if lookup and record["question"] not in seen:
            seen.add(record["question"])
            groups.setdefault(json.dumps(record["table"], sort_keys=True), []).append(record)
    if tables is None:
        records = [r for group in groups.values() for r in group]
    else:
        chosen = sorted(groups.values(), key=len, reverse=True)[:tables]
        records = [r for group in chosen for r in group]
    return [records[i % len(records)] for i in range(n)]


class SlowOracle:
    """The responder: the oracle of the question in the prompt, after `delay` seconds."""

    def __init__(self, records: list[dict[str, Any]], delay: float) -> None:
        self.delay = delay
        self.oracles = {r["question"]: Oracle(r, CellGraph(Table.from_record(r))) for r in records}

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> Scripted:
        prompt = "\n".join(str(m["content"]) for m in messages)
        oracle = next((o for q, o in self.oracles.items() if q in prompt), None)
        if oracle is None:
            raise LookupError("no scripted question in the prompt")
        reply = oracle(model, messages)
        return Fault.slow(self.delay, reply) if self.delay > 0 else reply


def model_env(llm: ScriptedLLM) -> dict[str, str]:
    """Environment for a `celltrace` process using the scripted model (no dense retrieval change)."""
    env = {f"CELLTRACE_MODEL_{s}": f"oracle-{s.lower()}" for s in STAGES}
    return {
        **env,
        "CELLTRACE_BASE_URL": llm.base_url,
        "OPENAI_API_KEY": "oracle",
        "CELLTRACE_MAX_RETRIES": "0",
    }


def uptime() -> str:
    """The machine's load (`uptime`), to report beside timings on a shared machine."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"load average {os.getloadavg()}"
