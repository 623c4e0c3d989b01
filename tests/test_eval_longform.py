"""`celltrace eval` on long-form records (FeTaQA/QTSumm shape) runs the plan-and-execute engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import ScriptedLLM

from celltrace.server.evaluation.harness import evaluate

STAGES = ("PLAN", "PLAN_CHECK", "PROGRAM", "DEBUG", "SUB_ANSWER", "FINAL_ANSWER")
PROGRAM = """```python
def solve(table):
    rows = table.records()
    best = max(rows, key=lambda r: to_number(r["Votes"]))
    return {"party": best["Party"], "votes": to_number(best["Votes"])}
```"""


def responder(model: str, messages: list[dict[str, Any]]) -> str:
    """Each stage has its own model name (per-stage routing), so the reply depends on the model."""
    return {
        "m-plan": "Distinct facts: 1\n1. Which party received the most votes, and how many?",
        "m-plan_check": '{"reasoning": "the sub-answer covers the question", "finalized": true}',
        "m-program": PROGRAM,
        "m-sub_answer": "The Green party received the most votes, 5,120.",
        "m-final_answer": "The Green party won with 5,120 votes, ahead of 4,000 for Labour.",
    }[model]


def test_eval_longform_adds_text_metrics(
    llm_server: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.responder = responder
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    for stage in STAGES:
        monkeypatch.setenv(f"CELLTRACE_MODEL_{stage}", f"m-{stage.lower()}")
    monkeypatch.chdir(tmp_path)
    record = {
        "id": "feta-1",
        "dataset": "fetaqa",
        "table": {
            "title": "1999 election - Results",
            "cells": [["Party", "Votes"], ["Green", "5,120"], ["Labour", "3,900"]],
            "merges": [],
        },
        "question": "Which party won the election and with how many votes?",
        "answers": [],
        "answer_cells": [[1, 0], [1, 1]],
        "long_answer": "The Green party won the election with 5,120 votes.",
    }
    data = tmp_path / "feta.jsonl"
    data.write_text(json.dumps(record) + "\n", encoding="utf-8")

    summary = evaluate(data, engine="llm", out=tmp_path / "rows.jsonl")

    assert summary["n"] == 1 and summary["answered"] == 1
    assert summary["em_strict"] is None  # no short answers to match
    assert 0 < summary["rouge_l"] <= 100 and summary["bleu"] > 0
    assert summary["program_success_rate"] == 1.0
    assert summary["unsupported_rate"] == 1.0  # "4,000" was produced by no program and is in no cell
    assert summary["evidence_recall"] == 1.0
    row = json.loads((tmp_path / "rows.jsonl").read_text())
    assert row["prediction"]["unsupported_numbers"] == ["4,000"]
    assert row["prediction"]["plan"][0]["source"] == "program"
