"""`celltrace longform`: a paragraph answer planned into sub-questions, each computed by a program."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
from celltrace.server.commands.hints import check_workbook_arg
from celltrace.server.commands.output import finish, prepare
from celltrace.server.commands.render import spinner
from celltrace.shared.errors import UserError
from celltrace.shared.table import Table

if TYPE_CHECKING:
    from celltrace.shared.schemas import LongformResult
    from celltrace.shared.xlsx_write import OutputPlan

ENGINE = "longform"

OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Also write a copy of the workbook here: evidence highlighted, the answer as a note on the "
        "first evidence cell and in full in a row of the `celltrace` log sheet.",
        rich_help_panel="Output",
        show_default=False,
    ),
]
PlanOpt = Annotated[
    Path | None,
    typer.Option(
        "--plan",
        help="A user-edited plan: a JSON list of sub-questions, or the `plan` array of an earlier --json "
        "output. It replaces the generated initial plan.",
        show_default=False,
    ),
]


def longform(
    workbook: WorkbookArg,
    question: Annotated[str, typer.Argument(help="The question, in quotes.", show_default=False)],
    sheet: SheetOpt = None,
    range_: RangeOpt = None,
    name: NameOpt = None,
    table: TableOpt = None,
    plan: PlanOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print exactly the LongformResult JSON.")] = False,
    out: OutOpt = None,
) -> None:
    """Answer QUESTION about a table in WORKBOOK in long form (TaPERA); exit code 1 when it failed."""
    from celltrace.server.longform.engine import answer_longform
    from celltrace.server.longform.planner import user_plan

    check_workbook_arg(workbook, question, "longform")
    question = question_arg(question)
    initial = user_plan(_read_json(plan)) if plan is not None else None
    tbl = load_table(workbook, sheet, range_, name, table, question)
    output = prepare(workbook, out, in_place=False) if out is not None else None
    with spinner("Planning and answering …"):
        result = answer_longform(tbl, question, plan=initial)
    if output is not None and result.status == "answered":
        typer.echo(f"written: {write_longform(output, tbl, result)}", err=True)
    typer.echo(result.model_dump_json(indent=2) if json_out else _human(result))
    if result.status == "failed":
        raise typer.Exit(1)


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"--plan {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise UserError(f"--plan {path}: not valid JSON ({exc})") from exc


def write_longform(output: OutputPlan, table: Table, result: LongformResult) -> Path:
    """Highlights and a note on the first evidence cell (replacing earlier highlights), and a log row
    with the answer in full."""
    from celltrace.shared.actions import LogEntry, evidence_text, plan_actions

    actions = plan_actions(
        question=result.question,
        answer=result.answer,
        evidence=result.evidence,
        engine=ENGINE,
        default_sheet=table.sheet,
        clear_previous=True,
    )
    entry = LogEntry(
        timestamp=datetime.now().astimezone().isoformat(timespec="seconds"),
        sheet=table.sheet,
        range=table.origin.address if table.origin else "",
        question=result.question,
        answer=result.answer,
        status=result.status,
        evidence=evidence_text(result.evidence, table.sheet),
        engine=ENGINE,
        llm_calls=result.usage.llm_calls,
    )
    written = finish(output, actions, [entry]).output
    assert written is not None  # write_workbook names the file it wrote
    return written


def _human(result: LongformResult) -> str:
    """Answer, plan with provenance, unsupported numbers, evidence and cost, for a terminal."""
    from celltrace.shared.actions import evidence_text

    lines = [f"Failed: {result.error}"] if result.status == "failed" else [result.answer]
    if result.plan:
        lines.append(f"Plan ({result.iterations} iteration(s)):")
        for i, item in enumerate(result.plan, 1):
            lines.append(f"  {i}. {item.question}")
            lines.append(f"     → {item.answer or '(no answer)'}  [{item.source}]")
            if item.error:
                lines.append(f"     error: {item.error}")
    if result.unsupported_numbers:
        lines.append(f"Unsupported numbers: {', '.join(result.unsupported_numbers)}")
    if result.evidence:
        lines.append(f"Evidence: {evidence_text(result.evidence, result.evidence[0].sheet)}")
    u = result.usage
    lines.append(
        f"Engine: {ENGINE}; {u.llm_calls} LLM call(s), {u.prompt_tokens}+{u.completion_tokens} tokens; "
        f"{result.seconds:.2f} s"
    )
    return "\n".join(lines)
