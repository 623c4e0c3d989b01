"""`celltrace eval`: answer every record of a JSONL dev/test file from its table only, and score it.

A record is answered from `table.cells`, `table.merges`, `table.title` and `question` alone; the
annotations (`answers`, `answer_cells`, `header_cells`, `header_rows/cols`, `aggregation`, `meta`,
`long_answer`) are read only after the answer exists, for scoring. The grid is treated as a sheet's
used range: the table the question is about is found in it (`detect.locate`). Every record yields exactly one
output row; a broken record or an engine crash becomes a `failed` row, never an aborted run.
Records with a `long_answer` and no short `answers` (FeTaQA, QTSumm) go to the long-form engine.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from celltrace.server.evaluation.calibration import auroc, ece
from celltrace.server.evaluation.layouts import Placement, layout_for, map_evidence, write_layout
from celltrace.server.evaluation.metrics import (
    em_lenient,
    em_strict,
    evidence_scores,
    median,
    percentile,
    scored_answer,
)
from celltrace.server.infra.concurrency import default_workers, question_pool
from celltrace.server.infra.settings import Settings
from celltrace.shared.detect import locate
from celltrace.shared.errors import UserError
from celltrace.shared.schemas import AskResult, Engine, EngineName
from celltrace.shared.table import Origin, Table
from celltrace.shared.xlsx_read import read_table

XLSX_KEY = "_xlsx"
"""Record key (added by `write_workbooks`, never in data files) naming a record's layout workbook."""


def is_longform(record: dict[str, Any]) -> bool:
    """A record scored against a reference text rather than short answers."""
    return bool(record.get("long_answer")) and not record.get("answers")


def _areas(prediction: dict[str, Any]) -> list[tuple[int, int, int, int]]:
    return [
        (min(e["rows"]), min(e["cols"]), max(e["rows"]), max(e["cols"]))
        for e in prediction.get("evidence") or []
        if e.get("role") == "answer" and e.get("rows") and e.get("cols")
    ]


def score(record: dict[str, Any], prediction: dict[str, Any]) -> dict[str, Any]:
    """Per-record scores; keys absent from a record's kind are None."""
    gold_cells = [(c[0], c[1]) for c in record.get("answer_cells") or []]
    precision, recall = evidence_scores(_areas(prediction), gold_cells)
    if is_longform(record):
        return {"evidence_precision": precision, "evidence_recall": recall}
    answered = prediction.get("status") == "answered"
    answer = scored_answer(prediction.get("answer") or [], prediction.get("value"))
    gold = [str(a) for a in record.get("answers") or []]
    best_guess = bool(answer) and em_strict(answer, gold)
    return {
        "em_strict": answered and best_guess,
        "em_lenient": bool(answered and em_lenient(answer, gold)),
        "em_best_guess": best_guess,
        "evidence_precision": precision,
        "evidence_recall": recall,
    }


def _failed_prediction(question: str, engine: str, error: str) -> dict[str, Any]:
    kind: EngineName = "llm" if engine == "llm" else "offline"
    return AskResult(question=question, status="failed", error=error, engine=kind).model_dump()


def _record(line: str) -> dict[str, Any]:
    """The JSON object on a line, or {} when the line is not one."""
    try:
        record = json.loads(line)
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def _row(line_no: int, record: dict[str, Any], prediction: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(record.get("id") or f"line-{line_no}"),
        "dataset": record.get("dataset"),
        "question": str(record.get("question") or ""),
        "prediction": prediction,
        "scores": score(record, prediction),
        "_gold": record.get("long_answer") or ", ".join(str(a) for a in record.get("answers") or []),
        "_aggregation": record.get("aggregation"),
        "_longform": is_longform(record),
    }


def _crashed_row(line_no: int, line: str, engine: Engine, exc: BaseException) -> dict[str, Any]:
    """The row of a record whose worker died; scored like any failed answer."""
    record = _record(line)
    error = f"worker failed: {type(exc).__name__}: {exc}"
    return _row(line_no, record, _failed_prediction(str(record.get("question") or ""), engine, error))


def answer_line(line_no: int, line: str, engine: Engine) -> dict[str, Any]:
    """Answer and score one JSONL line; never raises (a broken line becomes a failed row)."""
    record = _record(line)
    question = str(record.get("question") or "")
    try:
        if not record:
            raise ValueError("the line is not a JSON object")
        table = Table.from_record({"table": record.get("table") or {}})
        workbook = record.get(XLSX_KEY)
        placement: Placement | None
        if workbook is not None:  # --via-xlsx: the whole sheet of the real-layout workbook
            table, placement = locate(read_table(workbook["path"]), question), Placement(
                tuple(workbook["rows"]), workbook["left"])
        else:  # a record's grid may be a whole sheet too (a title, blank rows, notes, two tables)
            table, placement = _located(table, question)
        prediction = _answer(table, question, engine, longform=is_longform(record))
        if placement is not None:
            prediction = map_evidence(prediction, placement)
    except Exception as exc:  # per-record isolation: any failure is this record's failure
        prediction = _failed_prediction(question, engine, f"{type(exc).__name__}: {exc}")
    return _row(line_no, record, prediction)


def _located(table: Table, question: str) -> tuple[Table, Placement | None]:
    """The table block of a record's grid the question is about (`detect.locate`, as for a sheet:
    a grid may hold a title, blank rows, a unit row, notes, two tables), with the placement that
    maps its evidence addresses back to grid rows and columns."""
    if not table.n_rows or not table.n_cols:
        return table, None
    whole = Origin(sheet="", address=table.address(0, 0, table.n_rows - 1, table.n_cols - 1))
    return locate(replace(table, origin=whole), question), Placement(tuple(range(1, table.n_rows + 1)), 1)


def _answer(table: Table, question: str, engine: Engine, longform: bool) -> dict[str, Any]:
    if longform:
        from celltrace.server.longform.engine import answer_longform

        settings = Settings()
        if engine == "offline" or not settings.llm_configured:
            return _failed_prediction(question, engine, "long-form answers need an LLM endpoint")
        return answer_longform(table, question, settings=settings).model_dump()
    from celltrace.server.engine.api import answer_question

    return answer_question(table, question, engine=engine).model_dump()


def write_workbooks(lines: list[tuple[int, str]], folder: Path) -> list[tuple[int, str]]:
    """Write each distinct table of `lines` as a real-layout workbook in `folder` (see `layouts`) and
    return the lines with the workbook and its placement under `XLSX_KEY`."""
    distinct: dict[str, int] = {}
    tables: list[Table] = []
    out = []
    for n, line in lines:
        record = _record(line)
        try:
            table = Table.from_record({"table": record.get("table") or {}})
        except Exception:  # a broken record fails in answer_line, like without --via-xlsx
            out.append((n, line))
            continue
        key = table.content_hash()
        if key not in distinct:
            distinct[key] = len(tables)
            tables.append(table)
        i = distinct[key]
        path = folder / f"table-{i}.xlsx"
        if not path.exists():
            other = tables[i - 1] if i else None
            placement = write_layout(path, table, layout_for(i), other)
            (folder / f"table-{i}.json").write_text(json.dumps([placement.rows, placement.left]))
        rows, left = json.loads((folder / f"table-{i}.json").read_text())
        record[XLSX_KEY] = {"path": str(path), "rows": rows, "left": left}
        out.append((n, json.dumps(record, ensure_ascii=False)))
    return out


def read_lines(path: Path, limit: int | None) -> list[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers, at most `limit` of them."""
    try:
        with path.open(encoding="utf-8") as fh:
            lines = [(i, line) for i, line in enumerate(fh, 1) if line.strip()]
    except FileNotFoundError as exc:
        raise UserError(f"{path}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read ({exc})") from exc
    return lines[:limit] if limit is not None else lines


def _line_id(line_no: int, line: str) -> str:
    return str(_record(line).get("id") or f"line-{line_no}")


def read_done(out: Path) -> dict[str, dict[str, Any]]:
    """Rows already written to `out` (for --resume), keyed by record id; unreadable lines skipped."""
    done: dict[str, dict[str, Any]] = {}
    if not out.exists():
        return done
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            done[str(row["id"])] = row
        except (ValueError, KeyError, TypeError):
            continue
    return done


def run_rows(
    lines: list[tuple[int, str]], engine: Engine, workers: int, on_row: Callable[[dict[str, Any]], None]
) -> None:
    """Answer `lines` on `workers` threads or processes (`question_pool`), calling `on_row` (in this
    thread) as each row completes."""
    with (
        question_pool(engine, workers, Settings()) as pool,
        tqdm(total=len(lines), desc="eval", unit="q", file=sys.stderr, disable=not lines) as bar,
    ):
        futures = {pool.submit(answer_line, n, line, engine): (n, line) for n, line in lines}
        for future in as_completed(futures):
            n, line = futures[future]
            try:
                row = future.result()
            except Exception as exc:  # a crashed worker process still yields this record's row
                row = _crashed_row(n, line, engine, exc)
            on_row(row)
            bar.update(1)


def _mean(xs: Iterable[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def _pct(flags: list[bool]) -> float:
    return 100.0 * sum(flags) / len(flags) if flags else 0.0


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The one JSON object `celltrace eval` prints."""
    preds = [r["prediction"] for r in rows]
    statuses = [p.get("status") for p in preds]
    short = [r for r in rows if not r.get("_longform")]
    strict = [bool(r["scores"].get("em_strict")) for r in short]
    lenient = [bool(r["scores"].get("em_lenient")) for r in short]
    has_gold = [r for r in rows if r["scores"].get("evidence_recall") is not None]
    correct = [r for r in has_gold if r["scores"].get("em_strict")]
    usage = [p.get("usage") or {} for p in preds]
    by_agg: dict[str, dict[str, Any]] = {}
    for r in short:
        label = r.get("_aggregation")
        if label is None:
            continue
        entry = by_agg.setdefault(str(label), {"n": 0, "hits": 0})
        entry["n"] += 1
        entry["hits"] += bool(r["scores"].get("em_strict"))
    summary: dict[str, Any] = {
        "n": len(rows),
        "answered": statuses.count("answered"),
        "abstained": statuses.count("abstained"),
        "failed": statuses.count("failed"),
        "em_strict": _pct(strict) if short else None,
        "em_lenient": _pct(lenient) if short else None,
        "evidence_precision": _mean(r["scores"]["evidence_precision"] for r in has_gold),
        "evidence_recall": _mean(r["scores"]["evidence_recall"] for r in has_gold),
        "evidence_precision_correct": _mean(r["scores"]["evidence_precision"] for r in correct),
        "evidence_recall_correct": _mean(r["scores"]["evidence_recall"] for r in correct),
        "llm_calls_median": median([u.get("llm_calls", 0) for u in usage]) or 0.0,
        "llm_calls_p95": percentile([u.get("llm_calls", 0) for u in usage], 95) or 0.0,
        "prompt_tokens_median": median([u.get("prompt_tokens", 0) for u in usage]) or 0.0,
        "seconds_median": median([p.get("seconds", 0.0) for p in preds]) or 0.0,
        "by_aggregation": {
            k: {"n": v["n"], "em_strict": 100.0 * v["hits"] / v["n"]} for k, v in sorted(by_agg.items())
        },
    }
    summary.update(honesty_summary(short, Settings().fast_path_confidence))
    longform = [r for r in rows if r.get("_longform")]
    if longform:
        summary.update(longform_summary(longform))
    return summary


def _offline(prediction: dict[str, Any]) -> bool:
    return prediction.get("status") == "answered" and prediction.get("engine") == "offline"


def honesty_summary(short: list[dict[str, Any]], fast_path: float) -> dict[str, Any]:
    """Whether the confidence can be trusted, over short-answer rows.

    `em_best_guess`: % of rows whose `answer` is right whatever the status (an abstention's best
    guess counts). `answered_precision`: share of answered rows that are right; `coverage`: share of
    rows answered. `confidence_auroc` / `ece` (10 bins): of `confidence` (a failed row: 0) against
    best-guess correctness. `fast_path_precision` / `fast_path_coverage`: the same for the offline
    answers `--engine auto` returns without the LLM (answered, confidence ≥ `fast_path`).
    """
    right = [bool(r["scores"].get("em_best_guess")) for r in short]
    conf = [float(r["prediction"].get("confidence") or 0.0) for r in short]
    answered = [r for r in short if r["prediction"].get("status") == "answered"]
    fast = [r for r, c in zip(short, conf, strict=True) if c >= fast_path and _offline(r["prediction"])]

    def precision(rows: list[dict[str, Any]]) -> float | None:
        return sum(bool(r["scores"].get("em_strict")) for r in rows) / len(rows) if rows else None

    return {
        "em_best_guess": _pct(right) if short else None,
        "answered_precision": precision(answered),
        "coverage": len(answered) / len(short) if short else None,
        "confidence_auroc": auroc(conf, right),
        "ece": ece(conf, right),
        "fast_path_confidence": fast_path,
        "fast_path_precision": precision(fast),
        "fast_path_coverage": len(fast) / len(short) if short else None,
    }


def longform_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """ROUGE-L, BLEU, unsupported-number rate and program success rate of long-form rows."""
    from celltrace.server.evaluation.longform_metrics import bleu, rouge_l

    preds = [str(r["prediction"].get("answer") or "") for r in rows]
    refs = [str(r.get("_gold") or "") for r in rows]
    answered = [r["prediction"] for r in rows if r["prediction"].get("status") == "answered"]
    items = [item for p in answered for item in p.get("plan") or []]
    return {
        "rouge_l": rouge_l(preds, refs),
        "bleu": bleu(preds, refs),
        "unsupported_rate": (
            sum(bool(p.get("unsupported_numbers")) for p in answered) / len(answered) if answered else None
        ),
        "program_success_rate": (
            sum(i.get("source") == "program" for i in items) / len(items) if items else None
        ),
    }


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if not k.startswith("_")}


def _restore_private(row: dict[str, Any], line: tuple[int, str] | None) -> dict[str, Any]:
    """Re-derive scoring-only fields of a resumed row from its source record."""
    if line is None:
        return row
    derived = _row(line[0], _record(line[1]), row["prediction"])
    return row | {k: v for k, v in derived.items() if k.startswith("_")}


def evaluate(
    data: Path,
    engine: Engine = "offline",
    limit: int | None = None,
    workers: int | None = None,
    out: Path | None = None,
    resume: bool = False,
    judge: Callable[[dict[str, Any]], bool] | None = None,
    via_xlsx: bool = False,
) -> dict[str, Any]:
    """Run the evaluation and return the summary; rows stream to `out` as they complete.

    `via_xlsx`: each table is written as a real-layout workbook (title, notes, a second table...)
    and read back as a whole sheet with table detection, as a user's file would be. `workers`
    defaults to `default_workers` (8 threads for LLM engines, processes for offline).
    """
    if resume and out is None:
        raise UserError("--resume needs --out (the file whose finished ids are skipped)")
    if workers is not None and workers < 1:
        raise UserError("--workers must be at least 1")
    lines = read_lines(data, limit)
    by_id = {_line_id(n, line): (n, line) for n, line in lines}
    done = read_done(out) if (resume and out is not None) else {}
    rows = [_restore_private(row, by_id.get(rid)) for rid, row in done.items() if rid in by_id]
    todo = [(n, line) for n, line in lines if _line_id(n, line) not in done]
    lock = threading.Lock()
    fh = out.open("a" if resume else "w", encoding="utf-8") if out is not None else None
    try:

        def on_row(row: dict[str, Any]) -> None:
            with lock:
                rows.append(row)
                if fh is not None:
                    fh.write(json.dumps(_public(row), ensure_ascii=False) + "\n")
                    fh.flush()

        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="celltrace-layouts-") as folder:
            if via_xlsx:
                todo = write_workbooks(todo, Path(folder))
            run_rows(todo, engine, workers or default_workers(engine, Settings(), len(todo)), on_row)
        elapsed = time.monotonic() - started
    finally:
        if fh is not None:
            fh.close()
    summary = summarise(rows)
    if judge is not None:
        summary["judge_acc"] = _pct([judge(r) for r in rows])
    print(f"eval: {len(todo)} answered in {elapsed:.1f} s, {len(rows) - len(todo)} resumed", file=sys.stderr)
    return summary
