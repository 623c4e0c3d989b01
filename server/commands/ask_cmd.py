"""`celltrace ask`: answer one question about a workbook range, with its evidence cells."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
from celltrace.server.commands.hints import better_sheet, check_workbook_arg
from celltrace.server.commands.output import (
    AnswerCellOpt,
    InPlaceOpt,
    OutOpt,
    OverwriteOpt,
    prepare_ask_output,
    write_answer,
)
from celltrace.server.commands.render import echo, echo_json, spinner, step_lines
from celltrace.shared.a1 import sheet_address
from celltrace.shared.schemas import AskResult, Engine, confidence_text
from celltrace.shared.table import Table

EngineOpt = Annotated[
    Engine,
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

    check_workbook_arg(workbook, question)
    question = question_arg(question)
    tbl = load_table(workbook, sheet, range_, name, table, question)
    if sheet is None and range_ is None and name is None and table is None:
        better = better_sheet(workbook, tbl, question)
        tbl = load_table(workbook, better, question=question) if better else tbl
    output = prepare_ask_output(
        workbook, tbl, out=out, answer_cell=answer_cell, in_place=in_place, overwrite=overwrite
    )
    with spinner(f"Answering on {sheet_address(tbl.sheet, tbl.origin.address if tbl.origin else '')} …"):
        result = answer_question(tbl, question, engine=engine)
    if picture is not None:
        from celltrace.server.picture import trace_svg, write_picture

        typer.echo(f"picture: {write_picture(picture, trace_svg(tbl, result))}", err=True)
    written = None
    if output is not None and result.status != "failed":
        written = write_answer(output, tbl, result)
        typer.echo(f"written: {written}", err=True)
    if json_out:  # the AskResult, plus where the highlighted copy went
        data = result.model_dump(mode="json")
        echo_json({**data, "output": str(written)} if written is not None else data)
    else:
        for line in human(result, tbl):
            echo(line)
    if result.status == "failed":
        raise typer.Exit(1)


def human(result: AskResult, table: Table) -> list[str]:
    """Answer (with unit and confidence) first, then the table it was read from, evidence, steps, cost."""
    from celltrace.shared.actions import BEST_GUESS, is_best_guess, with_unit

    if result.status == "failed":
        lines = [f"Failed: {result.error}"]
    elif is_best_guess(result):
        lines = [f"{BEST_GUESS}: {with_unit(result, ', ')}"]
        lines += [f"Why: {result.error}"] if result.error else []
    elif result.status == "abstained":
        lines = ["No answer (abstained)."]
    else:
        lines = [f"Answer: {with_unit(result, ', ')}"]
    if result.confidence is not None and result.status != "failed":
        lines[0] += f" · confidence {confidence_text(result.confidence)}"
    if table.origin:
        lines.append(f"Table: {sheet_address(table.sheet, table.origin.address)}")
    if result.evidence:
        lines.append("Evidence:")
        width = max(len(sheet_address(e.sheet, e.address)) for e in result.evidence)
        for e in result.evidence:
            lines.append(f"  {sheet_address(e.sheet, e.address):<{width}}  {e.role:<6}  {e.text}")
    if result.steps:
        lines.append("Steps:")
        lines += step_lines(table, result.steps)
    lines += [f"Warning: {w}" for w in result.warnings]
    u = result.usage
    lines.append(
        f"Engine: {result.engine}; {u.llm_calls} LLM call(s), {u.prompt_tokens}+{u.completion_tokens} "
        f"tokens; {result.seconds:.2f} s"
    )
    return lines
