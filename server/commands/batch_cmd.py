"""`celltrace batch`: answer a column of questions in a workbook, writing answers beside them.

One question per non-empty cell of `--questions` (a single column); a numeric answer is written as
a number in its source format, an abstention's best guess as `#ABSTAINED (best guess: …)` text on the
muted guess fill. Each question is isolated:
a broken question (empty after cleaning, over `MAX_QUESTION_CHARS`) or an engine exception
becomes a `#ERROR: <reason>` text in its answer cell and the run goes on. Answers go to
`--answers` (default: the column right of the questions), evidence addresses to `--evidence`
(default: the column right of the answers), one log row per question; a table of answers is
printed (`--json`: the summary object).
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import as_completed
from typing import Annotated, Any, Literal

import typer
from tqdm import tqdm

from celltrace.server.commands.common import (
    NameOpt,
    RangeOpt,
    SheetOpt,
    TableOpt,
    WorkbookArg,
    load_table,
)
from celltrace.server.commands.output import (
    InPlaceOpt,
    OutOpt,
    OverwriteOpt,
    check_empty,
    finish,
    prepare,
    read_values,
    target,
)
from celltrace.server.commands.render import echo, echo_json, print_table
from celltrace.server.infra.concurrency import default_workers, question_pool
from celltrace.server.infra.settings import Settings
from celltrace.shared.a1 import cell_ref, range_ref, sheet_address
from celltrace.shared.actions import (
    Action,
    Clear,
    Colours,
    SetValue,
    actions_for_answer,
    answer_cell_actions,
    answer_text,
    evidence_text,
    is_best_guess,
    log_entry,
    one_line,
    question_colours,
)
from celltrace.shared.errors import UserError
from celltrace.shared.safe_text import MAX_QUESTION_CHARS, clean_question
from celltrace.shared.schemas import AskResult, Engine, confidence_text
from celltrace.shared.table import Table

Highlight = Literal["none", "last", "all"]


def _answer(table: Table, question: str, engine: Engine) -> AskResult:
    """The engine seam (tests replace it)."""
    from celltrace.server.engine.api import answer_question

    return answer_question(table, question, engine=engine)


def ask_one(table: Table, raw: Any, engine: Engine) -> AskResult:
    """Answer one question cell; never raises (a broken question or a crash is a failed result)."""
    text = "" if raw is None else str(raw)
    try:
        return _answer(table, clean_question(text), engine)
    except Exception as exc:
        reason = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        return AskResult(
            question=text, status="failed", error=reason, engine="offline" if engine == "offline" else "llm"
        )


def run_questions(
    table: Table, questions: list[Any], engine: Engine, workers: int | None = None
) -> list[AskResult]:
    """Answer all questions on `workers` threads or processes (`question_pool`; default:
    `default_workers`), with a progress bar on stderr; input order kept."""
    settings = Settings()
    workers = workers or default_workers(engine, settings, len(questions))
    results: list[AskResult | None] = [None] * len(questions)
    with (
        question_pool(engine, workers, settings) as pool,
        tqdm(total=len(questions), file=sys.stderr, unit="q", desc="celltrace batch") as bar,
    ):
        futures = {pool.submit(ask_one, table, q, engine): i for i, q in enumerate(questions)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            bar.update()
    return [r for r in results if r is not None]


def batch(
    workbook: WorkbookArg,
    questions: Annotated[
        str,
        typer.Option(
            "--questions",
            help=f"Question cells in one column, SHEET!A2:A200 (each ≤ {MAX_QUESTION_CHARS:,} characters).",
            show_default=False,
        ),
    ],
    answers: Annotated[
        str | None,
        typer.Option("--answers", help="First answer cell, SHEET!B2 (default: right of the questions)."),
    ] = None,
    evidence: Annotated[
        str | None,
        typer.Option("--evidence", help="First evidence cell, SHEET!C2 (default: right of the answers)."),
    ] = None,
    sheet: SheetOpt = None,
    range_: RangeOpt = None,
    name: NameOpt = None,
    table: TableOpt = None,
    engine: Annotated[Engine, typer.Option("--engine", help="auto, llm or offline.")] = "auto",
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            help="Questions answered at once (default: CELLTRACE_CONCURRENCY threads, 16, for LLM engines; "
            "a process per core for offline on 16+ questions per process).",
            show_default=False,
        ),
    ] = None,
    highlight: Annotated[
        Highlight,
        typer.Option(
            "--highlight", help="Evidence fills: none, the last answer's, or all (best guesses in grey)."
        ),
    ] = "none",
    out: OutOpt = None,
    in_place: InPlaceOpt = False,
    overwrite: OverwriteOpt = False,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="Print the summary {n, answered, abstained, failed, output, seconds}."),
    ] = False,
) -> None:
    """Answer every question in a column; answers, evidence addresses and a log row per question.

    `--highlight all` gives each answered question its own colour and every best guess the muted grey;
    the log sheet's question cells show which.
    """
    started = time.perf_counter()
    plan = prepare(workbook, out, in_place)
    tbl = load_table(workbook, sheet, range_, name, table)
    q_sheet, (q0, qc, q1, qc1) = target(questions, sheet or tbl.sheet, "--questions")
    if qc1 != qc:
        raise UserError(f"--questions {questions!r} must be a single column")
    a_sheet, (a0, ac, _, _) = (
        target(answers, q_sheet, "--answers") if answers else (q_sheet, (q0, qc + 1, 0, 0))
    )
    e_sheet, (e0, ec, _, _) = (
        target(evidence, a_sheet, "--evidence") if evidence else (a_sheet, (a0, ac + 1, 0, 0))
    )
    values = read_values(workbook, q_sheet, (q0, qc, q1, qc))
    rows = [(q0 + i, row[0]) for i, row in enumerate(values) if row[0] not in (None, "")]
    if not rows:
        raise UserError(f"no questions in {q_sheet}!{range_ref(q0, qc, q1, qc)}")
    span = rows[-1][0] - q0
    if not overwrite:
        check_empty(workbook, a_sheet, (a0, ac, a0 + span, ac), "answer cell")
        check_empty(workbook, e_sheet, (e0, ec, e0 + span, ec), "evidence cell")

    results = run_questions(tbl, [q for _, q in rows], engine, workers)

    answered = [r for r in results if r.status == "answered"]
    guesses = [r for r in results if is_best_guess(r)]
    # best guesses first (muted), so an answer's colours win where their evidence overlaps
    shown = [] if highlight == "none" else answered[-1:] if highlight == "last" else guesses + answered
    colours = {id(r): question_colours(i) for i, r in enumerate(r for r in shown if r.status == "answered")}
    actions: list[Action] = [Clear()] if shown else []  # first: it would also undo this run's guess fills
    for (row, _), result in zip(rows, results, strict=True):
        offset = row - q0
        actions += answer_cell_actions(result, a_sheet, cell_ref(a0 + offset, ac), overwrite=overwrite)
        found = evidence_text(result.evidence, tbl.sheet) if result.status == "answered" else ""
        if found or overwrite:
            actions.append(
                SetValue(
                    sheet=e_sheet, address=cell_ref(e0 + offset, ec), value=found or None, overwrite=overwrite
                )
            )
    for result in shown:
        actions += actions_for_answer(result, colours=colours.get(id(result)))
    address = tbl.origin.address if tbl.origin else ""
    log = [
        log_entry(r, sheet=tbl.sheet, range_=address, colour=_answer_colour(colours, r, shown))
        for r in results
    ]
    report = finish(plan, actions, log)
    summary = {
        "n": len(results),
        "answered": len(answered),
        "abstained": sum(r.status == "abstained" for r in results),
        "failed": sum(r.status == "failed" for r in results),
        "output": str(report.output),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if json_out:
        echo_json(summary)
        return
    lines = [
        (
            sheet_address(q_sheet, cell_ref(row, qc)),
            one_line(str(q), 60),
            r.status,
            one_line(answer_text(r), 40),
            "" if r.confidence is None else confidence_text(r.confidence),
            evidence_text(r.evidence, tbl.sheet),
        )
        for (row, q), r in zip(rows, results, strict=True)
    ]
    columns = ["question cell", "question", "status", "answer", "confidence", "evidence"]
    print_table("Answers", columns, lines)
    echo(
        f"{summary['answered']} answered, {summary['abstained']} abstained, {summary['failed']} failed "
        f"of {summary['n']} in {summary['seconds']:.1f} s; written: {report.output}"
    )


def _answer_colour(colours: dict[int, Colours], result: AskResult, shown: list[AskResult]) -> str | None:
    """The legend colour: the question's answer colour, the muted fill of a best guess, None if unpainted."""
    if not any(r is result for r in shown):
        return None
    return colours[id(result)].answer if id(result) in colours else Colours().guess
