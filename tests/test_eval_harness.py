"""The eval harness: isolation of bad records, scoring, --out/--resume, summary shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from celltrace.server.evaluation import harness
from celltrace.shared.schemas import AskResult, EvidenceCell

SUMMARY_KEYS = {
    "n", "answered", "abstained", "failed", "em_strict", "em_lenient", "evidence_precision",
    "evidence_recall", "evidence_precision_correct", "evidence_recall_correct", "llm_calls_median",
    "llm_calls_p95", "prompt_tokens_median", "seconds_median", "by_aggregation", "em_best_guess",
    "answered_precision", "coverage", "confidence_auroc", "ece", "fast_path_confidence",
    "fast_path_precision", "fast_path_coverage",
}  # fmt: skip


def _record(rid: str, question: str, answers: list[str], cell: tuple[int, int], agg: str) -> dict[str, Any]:
    return {
        "id": rid,
        "dataset": "hitab",
        "table": {"title": "t", "cells": [["", "2017"], ["cargo", "5"], ["mail", "7"]], "merges": []},
        "question": question,
        "answers": answers,
        "answer_cells": [list(cell)],
        "aggregation": agg,
    }


def _fake_answer(table: Any, question: str, engine: str, longform: bool) -> dict[str, Any]:
    """Reads the table (never the gold): answers with the cell whose row label is in the question."""
    if "crash" in question:
        raise RuntimeError("engine exploded")
    for r, row in enumerate(table.text):
        if row[0] and row[0] in question:
            address = table.address(r, 1)
            ev = EvidenceCell(sheet="", address=address, rows=[r], cols=[1], text=row[1], role="answer")
            return AskResult(
                question=question, status="answered", engine="llm", answer=[row[1]], evidence=[ev]
            ).model_dump()
    return AskResult(question=question, status="abstained", engine="llm", answer=[]).model_dump()


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(harness, "_answer", _fake_answer)
    lines = [
        json.dumps(_record("a", "cargo in 2017?", ["5"], (1, 1), "none")),
        json.dumps(_record("b", "mail in 2017?", ["7"], (2, 1), "none")),
        json.dumps(_record("c", "mail in 2017?", ["8"], (2, 1), "sum")),  # wrong answer
        json.dumps(_record("d", "crash please", ["1"], (1, 1), "none")),  # engine raises
        "{not json",  # broken line
        json.dumps(_record("e", "nothing here", ["5"], (1, 1), "diff")),  # abstains
    ]
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_summary_counts_every_record_and_isolates_failures(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    summary = harness.evaluate(data, engine="llm", workers=2, out=out)
    assert set(summary) == SUMMARY_KEYS
    assert summary["n"] == 6
    assert (summary["answered"], summary["abstained"], summary["failed"]) == (3, 1, 2)
    assert summary["em_strict"] == pytest.approx(100 * 2 / 6)
    assert summary["by_aggregation"] == {
        "diff": {"n": 1, "em_strict": 0.0},
        "none": {"n": 3, "em_strict": pytest.approx(200 / 3)},
        "sum": {"n": 1, "em_strict": 0.0},
    }
    # evidence: a, b, c hit their gold cell; d and e predict nothing (precision needs predictions)
    assert summary["evidence_recall"] == pytest.approx(3 / 5)
    assert summary["evidence_precision_correct"] == 1.0
    assert summary["evidence_recall_correct"] == 1.0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == ["a", "b", "c", "d", "e", "line-5"]
    crashed = next(r for r in rows if r["id"] == "d")
    assert crashed["prediction"]["status"] == "failed"
    assert "engine exploded" in crashed["prediction"]["error"]
    assert all(not k.startswith("_") for r in rows for k in r)


def test_resume_skips_finished_ids_and_keeps_their_scores(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    harness.evaluate(data, engine="llm", limit=2, out=out)
    calls: list[str] = []

    def counting(table: Any, question: str, engine: str, longform: bool) -> dict[str, Any]:
        calls.append(question)
        return _fake_answer(table, question, engine, longform)

    harness._answer = counting  # the fixture's monkeypatch restores the original
    summary = harness.evaluate(data, engine="llm", out=out, resume=True)
    assert "cargo in 2017?" not in calls and len(calls) == 3  # c, d, e (line 5 is not JSON)
    assert summary["n"] == 6
    assert summary["em_strict"] == pytest.approx(100 * 2 / 6)
    assert len(out.read_text().splitlines()) == 6


def test_resume_without_out_is_a_user_error(data: Path) -> None:
    from celltrace.shared.errors import UserError

    with pytest.raises(UserError, match="--resume needs --out"):
        harness.evaluate(data, resume=True)


def test_gold_fields_never_reach_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    def spy(table: Any, question: str, engine: str, longform: bool) -> dict[str, Any]:
        seen.append((table.text, table.merges, table.title, question))
        return _fake_answer(table, question, engine, longform)

    monkeypatch.setattr(harness, "_answer", spy)
    record = _record("x", "cargo?", ["5"], (1, 1), "none")
    record["table"]["header_rows"] = 1
    record["meta"] = {"sub_sentence": "cargo was 5"}
    row = harness.answer_line(1, json.dumps(record), "llm")
    assert row["scores"]["em_strict"] is True
    blob = json.dumps(seen)
    assert "sub_sentence" not in blob and "header_rows" not in blob and "cargo was 5" not in blob


def _row(status: str, right: bool, confidence: float | None, engine: str = "offline") -> dict[str, Any]:
    prediction = {"status": status, "engine": engine, "confidence": confidence}
    scores = {"em_strict": right and status == "answered", "em_best_guess": right}
    return {"prediction": prediction, "scores": scores}


def test_honesty_summary_scores_best_guesses_confidence_and_the_fast_path() -> None:
    rows = [
        _row("answered", True, 0.95),
        _row("answered", True, 0.92, engine="llm"),  # not a fast-path answer
        _row("answered", False, 0.6),
        _row("abstained", True, 0.1),  # a right best guess
        _row("abstained", False, 0.05),
        _row("failed", False, None),
    ]
    out = harness.honesty_summary(rows, fast_path=0.9)
    assert out["em_best_guess"] == pytest.approx(100 * 3 / 6)
    assert out["answered_precision"] == pytest.approx(2 / 3)
    assert out["coverage"] == pytest.approx(3 / 6)
    # right: 0.95, 0.92, 0.1; wrong: 0.6, 0.05, 0 → 8 of 9 pairs ordered (0.1 < 0.6)
    assert out["confidence_auroc"] == pytest.approx(8 / 9)
    assert 0 <= out["ece"] <= 1
    assert (out["fast_path_precision"], out["fast_path_coverage"]) == (1.0, pytest.approx(1 / 6))


def test_a_rendered_number_is_scored_by_its_value() -> None:
    record = {"answers": ["0.038283"], "answer_cells": []}
    prediction = {"status": "abstained", "answer": ["3.8%"], "value": 0.0382831, "evidence": []}
    scores = harness.score(record, prediction)
    assert scores["em_best_guess"] and not scores["em_strict"]  # right, but abstained
