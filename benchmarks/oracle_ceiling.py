"""Machinery ceiling of the graph engine: a perfect model on HiTab dev single-cell lookups.

    python benchmarks/oracle_ceiling.py [--data ../shared/data/hitab_dev.jsonl] [--limit N] [--show 10]

An oracle model on the loopback `ScriptedLLM` (tests/llm_server.py, real openai client, json_schema
requests) knows each record's gold header cells and gold answer cell, and nothing else:

* TRACE_INIT names the gold header cells by address;
* step 1 intersects a gold row header and a gold column header of the answer cell
  (`GetSharedNeighbours`), or lists the neighbours of the one it has; step 2 is `AnswerQuestion`;
* ANSWER copies the answer cell's text **from the prompt** (the trace and history the engine
  rendered) and cites it and the headers by address; when the prompt does not show the cell it
  abstains.

So every loss is the machinery's: node names that do not resolve, observations that leave the cell
out (list caps), prompts that drop the finding (history compaction, budgets), evidence that does
not follow the cited cells. Records: aggregation "none" with exactly one gold answer cell. Also
reported: prompt characters per question against GraphOTTER's on the same trace, modelled from the
official prompt sizes (docs/methods.md §1.5): selection 1.4k + 9.2k examples + the tuple table
(1.5x its Markdown); Thought 3.1k + Markdown table + trace + last step; Action = Thought - 1.2k +
the thought; Answer = Thought's fixed part + Markdown table + trace + last step. Our trace
rendering stands in for theirs (theirs is the complete pairwise graph, so the model undercounts it).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from llm_server import ScriptedLLM  # noqa: E402

from celltrace.server.engine.api import answer_question  # noqa: E402
from celltrace.server.evaluation.metrics import em_lenient  # noqa: E402
from celltrace.server.infra.settings import STAGES, Settings  # noqa: E402
from celltrace.shared.graph import CellGraph  # noqa: E402
from celltrace.shared.table import Table  # noqa: E402

STAGE_OF = {f"oracle-{s.lower()}": s for s in STAGES}
_STEP = re.compile(r"give your Action step (\d+)")


class Oracle:
    """The responder for one record (module docstring)."""

    def __init__(self, record: dict[str, Any], graph: CellGraph) -> None:
        self.graph = graph
        ((ar, ac),) = record["answer_cells"]
        self.answer = graph.node_at(ar, ac)
        heads = [graph.node_at(r, c) for r, c in record["header_cells"]]
        self.heads = list({n.id: n for n in heads if n.id != self.answer.id}.values())
        self.row = next((h for h in self.heads if ar in h.rows and ac not in h.cols), None)
        self.col = next((h for h in self.heads if ac in h.cols and ar not in h.rows), None)

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> str:
        stage = STAGE_OF[model]
        prompt = "\n".join(str(m["content"]) for m in messages)
        if stage == "TRACE_INIT":
            return json.dumps({"nodes": [h.address for h in self.heads]})
        if stage == "THOUGHT":
            return "Intersect the row and column headers of the question, then answer."
        if stage == "ACTION":
            step = int(_STEP.search(messages[-1]["content"]).group(1))  # type: ignore[union-attr]
            return json.dumps({"actions": [self._action(step)]})
        if f"{self.answer.address} {self.answer.text!r}" not in prompt:  # not shown: abstain
            return json.dumps({"cells": [], "operation": "none", "explanation": "", "answer": []})
        cells = [self.answer.address, *(h.address for h in self.heads)]
        reply = {"cells": cells, "operation": "none", "explanation": "", "answer": [self.answer.text]}
        return json.dumps(reply)

    def _action(self, step: int) -> dict[str, Any]:
        if step == 1 and self.row is not None and self.col is not None:
            return _call("GetSharedNeighbours", [self.row.address, self.col.address])
        if step == 1 and (self.row or self.col) is not None:
            return _call("GetAllNeighbours", [(self.row or self.col).address])  # type: ignore[union-attr]
        if step == 1:
            return _call("VisitNode", [self.answer.address])
        return _call("AnswerQuestion", [])


def _call(name: str, params: list[str]) -> dict[str, Any]:
    return {"function_name": name, "parameters": params}


def markdown_chars(table: Table) -> int:
    """Characters of the table as a Markdown grid (`| a | b |` rows plus the rule)."""
    rows = [sum(len(t) + 3 for t in row) + 1 for row in table.text]
    return sum(rows) + (4 * table.n_cols + 1) + len(rows)


def graphotter_chars(table: Table, result: Any, thoughts: list[str], trace_chars: int) -> int:
    """GraphOTTER's prompt characters for the same episode (module docstring)."""
    md = markdown_chars(table)
    steps = [json.dumps(s.model_dump(), ensure_ascii=False) for s in result.steps]
    total = 1400 + 9200 + int(1.5 * md)
    last = ""
    for step, thought in zip(steps, thoughts, strict=False):
        thought_prompt = 3100 + md + trace_chars + len(last)
        total += thought_prompt + (thought_prompt - 1200 + len(thought))
        last = step
    return total + 3100 + md + trace_chars + len(last)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data" / "hitab_dev.jsonl")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--show", type=int, default=10, help="losses printed")
    args = parser.parse_args()
    records = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line]
    lookups = [r for r in records if r["aggregation"] == "none" and len(r["answer_cells"]) == 1]
    lookups = lookups[: args.limit]
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        api_key="oracle",
        dense_retrieval=False,
        max_retries=0,
        max_reasks=0,
        **{f"model_{s.lower()}": f"oracle-{s.lower()}" for s in STAGES},
    )
    reached = evidence_ok = heads_in = heads_equal = 0
    losses: Counter[str] = Counter()
    examples: list[str] = []
    ours: list[int] = []
    theirs: list[int] = []
    calls: list[int] = []
    started = time.monotonic()
    with ScriptedLLM() as llm:
        settings = settings.model_copy(update={"base_url": llm.base_url})
        for record in lookups:
            table = Table.from_record(record)
            graph = CellGraph(table)
            llm.responder = oracle = Oracle(record, graph)
            before = len(llm.chat_requests)
            result = answer_question(table, record["question"], "llm", settings)
            requests = llm.chat_requests[before:]
            calls.append(len(requests))
            ours.append(sum(len(str(m["content"])) for r in requests for m in r.messages))
            thoughts = [s.thought for s in result.steps]
            trace_chars = max((len(p) for p in _traces(requests)), default=0)
            theirs.append(graphotter_chars(table, result, thoughts, trace_chars))
            ((ar, ac),) = record["answer_cells"]
            gold_address = graph.node_at(ar, ac).address
            answer_cells = [e.address for e in result.evidence if e.role == "answer"]
            header_cells = {e.address for e in result.evidence if e.role == "header"}
            gold_heads = {h.address for h in oracle.heads}
            ok = result.status == "answered" and em_lenient(result.answer, record["answers"])
            reached += ok
            evidence_ok += answer_cells == [gold_address]
            heads_in += gold_heads <= header_cells
            heads_equal += gold_heads == header_cells
            if not ok:
                why = result.status if result.status != "answered" else "wrong answer"
                losses[why] += 1
                if len(examples) < args.show:
                    examples.append(
                        f"{record['id']}: {why}; gold {record['answers']} at {gold_address}, got "
                        f"{result.answer} ({result.error or ''}) steps "
                        f"{[[a.name for a in s.actions] for s in result.steps]}"
                    )
    n = len(lookups)
    print(f"single-cell lookups: {n}; gold answer reached {reached} ({reached / n:.1%}); "
          f"answer evidence = gold cell {evidence_ok} ({evidence_ok / n:.1%})")  # fmt: skip
    print(f"header evidence: holds every gold header cell {heads_in} ({heads_in / n:.1%}), "
          f"is exactly the gold header cells {heads_equal} ({heads_equal / n:.1%})")  # fmt: skip
    print(f"losses: {dict(losses)}")
    print(f"LLM calls per question: mean {statistics.mean(calls):.2f}")
    ratio = [o / t for o, t in zip(ours, theirs, strict=True)]
    print(f"prompt chars per question: ours median {statistics.median(ours):,.0f}, GraphOTTER (modelled) "
          f"median {statistics.median(theirs):,.0f}; ratio median {statistics.median(ratio):.2f}, "
          f"total {sum(ours) / sum(theirs):.2f}")  # fmt: skip
    print(f"{time.monotonic() - started:.1f} s")
    for line in examples:
        print("  " + line)


def _traces(requests: list[Any]) -> list[str]:
    out = []
    for request in requests:
        text = str(request.messages[-1]["content"])
        if "<<<BEGIN TRACE>>>" in text:
            out.append(text.split("<<<BEGIN TRACE>>>")[1].split("<<<END TRACE>>>")[0])
    return out


if __name__ == "__main__":
    main()
