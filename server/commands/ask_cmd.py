"""`celltrace ask`: answer one question about a workbook range, with its evidence cells."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

from celltrace.server.commands.common import (
    NameOpt,
    RangeOpt,
    SheetOpt,
    TableOpt,
    WorkbookArg,
    load_table,
    question_arg,
)
from celltrace.server.commands.output import (
    AnswerCellOpt,
    InPlaceOpt,
    OutOpt,
    OverwriteOpt,
    prepare_ask_output,
    write_answer,
)
from celltrace.shared.actions import BEST_GUESS, is_best_guess, with_unit
from celltrace.shared.schemas import AskResult

EngineOpt = Annotated[
    Literal["auto", "llm", "offline"],
    typer.Option(
        "--engine",
        help="llm: GraphOTTER with the configured model; offline: no LLM; "
        "auto: llm when a model or OPENAI_BASE_URL is configured (offline fast path first), else offline.",
    ),
]


def ask(
    workbook: WorkbookArg,
    question: Annotated[str, typer.Argument(help="The question, in quotes.", show_default=False)],
    sheet: SheetOpt = None,
    range_: RangeOpt = None,
    name: NameOpt = None,
    table: TableOpt = None,
    engine: EngineOpt = "auto",
    json_out: Annotated[bool, typer.Option("--json", help="Print exactly the AskResult JSON.")] = False,
    out: OutOpt = None,
    in_place: InPlaceOpt = False,
    answer_cell: AnswerCellOpt = None,
    overwrite: OverwriteOpt = False,
    picture: Annotated[
        Path | None,
        typer.Option(
            "--picture",
            help="Also draw the trace picture (grid, visited nodes, evidence, caption) to FILE.svg "
            "or FILE.png (PNG needs cairosvg).",
        ),
    ] = None,
) -> None:
    """Answer QUESTION about a table in WORKBOOK; exit code 1 when the engine failed."""
    from celltrace.server.engine.api import answer_question

    question = question_arg(question)
    tbl = load_table(workbook, sheet, range_, name, table, question)
    output = prepare_ask_output(
        workbook, tbl, out=out, answer_cell=answer_cell, in_place=in_place, overwrite=overwrite
    )
    result = answer_question(tbl, question, engine=engine)
    if picture is not None:
        from celltrace.server.picture import trace_svg, write_picture

        typer.echo(f"picture: {write_picture(picture, trace_svg(tbl, result))}", err=True)
    written = None
    if output is not None and result.status != "failed":
        written = write_answer(output, tbl, result)
        typer.echo(f"written: {written}", err=True)
    if json_out and written is not None:  # the AskResult plus where the highlighted copy went
        data = {**result.model_dump(mode="json"), "output": str(written)}
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        typer.echo(result.model_dump_json(indent=2) if json_out else _human(result))
    if result.status == "failed":
        raise typer.Exit(1)


def _human(result: AskResult) -> str:
    """Answer, evidence addresses, steps and cost, for a terminal."""
    from celltrace.server.prompting import format_action

    if result.status == "failed":
        lines = [f"Failed: {result.error}"]
    elif is_best_guess(result):
        lines = [f"{BEST_GUESS}: {with_unit(result, ', ')}"]
        lines += [f"Why: {result.error}"] if result.error else []
    elif result.status == "abstained":
        lines = ["No answer (abstained)."]
    else:
        lines = [f"Answer: {with_unit(result, ', ')}"]
    if result.evidence:
        lines.append("Evidence:")
        for e in result.evidence:
            lines.append(f"  {e.sheet + '!' if e.sheet else ''}{e.address}  {e.role:<6}  {e.text}")
    if result.steps:
        lines.append("Steps:")
        for i, step in enumerate(result.steps, 1):
            lines.append(f"  {i}. {'; '.join(format_action(a) for a in step.actions) or '(no action)'}")
            lines += [f"     → {o}" for o in step.observations]
    if result.region:
        lines.append(f"Table: {result.region}")
    lines += [f"Warning: {w}" for w in result.warnings]
    u = result.usage
    lines.append(
        f"Engine: {result.engine}; {u.llm_calls} LLM call(s), {u.prompt_tokens}+{u.completion_tokens} "
        f"tokens; {result.seconds:.2f} s"
    )
    return "\n".join(lines)
