"""`celltrace eval --engine llm` end to end against the loopback OpenAI server (scripted replies)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from graphotter_script import FIGURE6_MERGES, QUESTION, GraphScript, figure6_table, stage_of
from llm_server import Scripted, ScriptedLLM

from celltrace.server.evaluation.harness import evaluate


class PerQuestion:
    """A fresh case-study script for every question (a TRACE_INIT request starts a new episode)."""

    def __init__(self) -> None:
        self.current = GraphScript()

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> Scripted:
        if stage_of(messages) == "TRACE_INIT":
            self.current = GraphScript()
        return self.current(model, messages)


def test_eval_llm_engine_reports_calls_and_tokens(
    llm_server: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.responder = PerQuestion()
    for name, value in {
        "OPENAI_BASE_URL": llm_server.base_url,
        "OPENAI_API_KEY": "test",
        "CELLTRACE_MODEL": "scripted-model",
        "CELLTRACE_DENSE_RETRIEVAL": "false",
        "CELLTRACE_REQUEST_TIMEOUT": "5",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    table = figure6_table()
    record = {
        "dataset": "hitab",
        "table": {"title": table.title, "cells": table.text, "merges": [list(m) for m in FIGURE6_MERGES]},
        "question": QUESTION,
        "answers": ["55"],
        "answer_cells": [[6, 3]],
        "aggregation": "none",
    }
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(record | {"id": f"q{i}"}) + "\n" for i in range(2)), encoding="utf-8")
    out = tmp_path / "rows.jsonl"

    summary = evaluate(data, engine="llm", out=out)

    assert summary["n"] == 2 and summary["answered"] == 2
    assert summary["em_strict"] == 100.0 and summary["em_lenient"] == 100.0
    assert summary["evidence_recall_correct"] == 1.0
    requests = len(llm_server.chat_requests)
    assert summary["llm_calls_median"] == requests / 2 > 0
    assert summary["prompt_tokens_median"] > 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sum(r["prediction"]["usage"]["llm_calls"] for r in rows) == requests
    assert all(r["prediction"]["engine"] == "llm" for r in rows)
