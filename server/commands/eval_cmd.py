"""`celltrace eval`: answer a JSONL data file and print its scores (a table, or `--json` the summary)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from celltrace.server.commands.render import print_table
from celltrace.shared.errors import UserError
from celltrace.shared.schemas import Engine

DEFAULT_JUDGE_CACHE = Path(".celltrace-cache") / "judge.jsonl"


def _prediction_text(prediction: dict[str, Any]) -> str:
    answer = prediction.get("answer")
    if prediction.get("status") != "answered" or not answer:
        return ""
    return answer if isinstance(answer, str) else ", ".join(str(a) for a in answer)


def eval_(
    data: Annotated[Path, typer.Argument(help="JSONL file in the ../shared/data record schema.")],
    engine: Annotated[Engine, typer.Option(help="Engine answering each record.")] = "auto",
    limit: Annotated[int | None, typer.Option(min=1, help="Answer only the first N records.")] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Records answered concurrently (default: CELLTRACE_CONCURRENCY threads, 16, for LLM "
            "engines; a process per core for offline on 16+ records per process).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Write one JSON line per record here.")] = None,
    resume: Annotated[bool, typer.Option(help="Skip record ids already present in --out.")] = False,
    judge: Annotated[
        bool, typer.Option(help="Add judge_acc: an LLM judge (stage JUDGE, Figure 15 prompt).")
    ] = False,
    judge_cache: Annotated[Path, typer.Option(help="Cache file of judge verdicts.")] = DEFAULT_JUDGE_CACHE,
    via_xlsx: Annotated[
        bool,
        typer.Option(
            "--via-xlsx",
            help="Write each table as a real-layout workbook (title line, blank rows, notes, a second "
            "table on the sheet) and answer from the whole sheet with table detection (no range).",
        ),
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON object (fields: README).")
    ] = False,
) -> None:
    """Answer every record from its table only, score it, and print the scores."""
    from celltrace.server.evaluation.harness import evaluate  # here: --help loads no engine

    verdict = None
    if judge:
        from celltrace.server.evaluation.judge import Judge
        from celltrace.server.infra.llm import UsageMeter
        from celltrace.server.infra.settings import Settings

        settings = Settings()
        if not settings.llm_configured:
            raise UserError("--judge needs an LLM endpoint (set CELLTRACE_MODEL or CELLTRACE_MODEL_JUDGE)")
        the_judge = Judge(settings, judge_cache)
        meter = UsageMeter()

        def verdict(row: dict[str, Any]) -> bool:
            return the_judge.verdict(
                row["question"], row.get("_gold") or "", _prediction_text(row["prediction"]), meter
            )

    summary = evaluate(data, engine, limit, workers, out, resume, verdict, via_xlsx)
    if json_out:
        print(json.dumps(summary))
        return
    nested = {k: v for k, v in summary.items() if isinstance(v, dict)}
    print_table(
        f"{data.name} ({engine})",
        ["metric", "value"],
        [(k, _number(v)) for k, v in summary.items() if k not in nested],
    )
    for key, groups in nested.items():
        rows = [(label, *(_number(x) for x in values.values())) for label, values in groups.items()]
        if rows:
            columns = list(next(iter(groups.values())))
            print_table(key, [key.removeprefix("by_"), *columns], rows)


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".")
    return "—" if value is None else str(value)
