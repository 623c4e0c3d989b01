"""The add-in's macros, called from the ribbon through xlwings' `RunPython`:

    RunPython "import celltrace.addin.macros as m; m.ask()"

Each takes an optional book (default `xw.Book.caller()`, the workbook the button was pressed in):

* `ask()` — the table is the selection (or the current region around a single selected cell),
  the question comes from Excel's input box; the local server answers; fills, a note, the log
  row and the selection of the first answer cell are applied at once; a message box shows the
  answer. If the server is not running, a message box says so with the command that starts it.
* `ask_long()` — the same with a paragraph answer (`/v1/longform`).
* `batch()` — the selection is a column of questions; the table is asked for; answers go to the
  column right of the questions and evidence addresses to the next one (as `celltrace batch`).
* `clear()` — remove every celltrace highlight and note, restoring what was there before.

Nothing is written before every answer is in; the writer applies all changes or none. Errors
become a message box (`UserError`s as they are, anything else with its type), never a traceback
half-way through, and screen updating is always restored.
"""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from celltrace.addin import record
from celltrace.addin.client import Client, ClientSettings, ServerUnavailable
from celltrace.addin.reader import ReadResult, Target, range_bounds, read, resolve
from celltrace.addin.writer import apply_actions
from celltrace.shared.a1 import range_ref
from celltrace.shared.actions import (
    Action,
    Clear,
    LogEntry,
    SetValue,
    answer_cell_actions,
    answer_text,
    evidence_text,
    log_entry,
    parse_target,
)
from celltrace.shared.backend import WriteReport
from celltrace.shared.errors import UserError
from celltrace.shared.safe_text import clean_question
from celltrace.shared.schemas import AskResult, TablePayload

TITLE = "celltrace"
T = TypeVar("T")


class UI(Protocol):
    """How a macro talks to the user: Excel dialogs, or the terminal for `celltrace excel`."""

    def prompt(self, message: str, default: str = "") -> str | None: ...

    def tell(self, message: str, error: bool = False) -> None: ...

    def confirm(self, message: str) -> bool: ...


class ExcelUI:
    """Excel's own dialogs: `Application.InputBox` through `.api`, `app.alert` (MsgBox)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def prompt(self, message: str, default: str = "") -> str | None:
        answer = self.app.api.InputBox(message, TITLE, default, Type=2)
        return None if answer is False or answer is None else str(answer)

    def tell(self, message: str, error: bool = False) -> None:
        self.app.alert(message, TITLE, mode="critical" if error else "info")

    def confirm(self, message: str) -> bool:
        return self.app.alert(message, TITLE, buttons="yes_no") == "yes"


class TerminalUI:
    """`celltrace excel ask`: the question is given, messages go to the terminal."""

    def prompt(self, message: str, default: str = "") -> str | None:
        return None

    def tell(self, message: str, error: bool = False) -> None:
        print(message, file=sys.stderr if error else sys.stdout)

    def confirm(self, message: str) -> bool:
        return False


@dataclass
class Outcome:
    """What a macro did (for the terminal command and tests)."""

    results: list[Any] = field(default_factory=list)
    write: WriteReport | None = None
    read: ReadResult | None = None


def _caller(book: Any) -> Any:
    if book is not None:
        return book
    import xlwings as xw

    return xw.Book.caller()


def _guarded(book: Any, ui: UI | None, work: Callable[[Any, UI], T]) -> T | None:
    """Run `work`; errors become one message; screen updating is on afterwards."""
    book = _caller(book)
    ui = ui or ExcelUI(book.app)
    try:
        return work(book, ui)
    except UserError as exc:
        ui.tell(str(exc), error=True)
    except Exception as exc:
        traceback.print_exc()
        ui.tell(f"celltrace failed: {type(exc).__name__}: {exc}", error=True)
    finally:
        with contextlib.suppress(Exception):  # Excel may be gone; nothing left to restore
            book.app.screen_updating = True
    return None


def _read_table(book: Any, target: Target, settings: ClientSettings, record_to: str | None) -> ReadResult:
    directory = record.record_dir(record_to or settings.record_dir)
    result = read(book, target, record=directory is not None)
    if directory is not None:
        record.dump(directory, result, range_ref(*target.bounds))
    return result


def _question(ui: UI, question: str | None, long: bool) -> str | None:
    """The question (asked for when not given), cleaned; None when the user cancels."""
    kind = "Long answer" if long else "Ask"
    text = question if question is not None else ui.prompt(f"{kind}: your question about the selected table")
    if text is None or not text.strip():
        return None
    try:
        return clean_question(text)
    except ValueError as exc:
        raise UserError(f"question: {exc}") from None


def _ask(
    kind: Literal["ask", "long"],
    book: Any,
    ui: UI | None,
    question: str | None,
    target: str | None,
    answer_cell: str | None,
    settings: ClientSettings | None,
    record_to: str | None,
) -> Outcome | None:
    settings = settings or ClientSettings()

    def work(book: Any, ui: UI) -> Outcome | None:
        table = _table_target(book, target) if target else resolve(book)
        with Client(settings) as client:
            client.health()  # fail fast: before the user types a question or a large table is read
            text = _question(ui, question, kind == "long")
            if text is None:
                return None
            result = _read_table(book, table, settings, record_to)
            payload = TablePayload.from_table(result.table)
            reply = client.ask(payload, text) if kind == "ask" else client.longform(payload, text)
        if isinstance(reply, AskResult):  # what the reader noticed (the server sees only the cells)
            reply.warnings = list(dict.fromkeys([*result.table.warnings, *reply.warnings]))
        actions: list[Action] = [Clear(), *reply.actions]
        origin = result.table.origin
        sheet, table_range = (origin.sheet, origin.address) if origin else (table.sheet.name, "")
        if answer_cell:
            where, addr = parse_target(answer_cell, sheet)
            if isinstance(reply, AskResult):
                actions += answer_cell_actions(reply, where, addr, overwrite=True)
            else:
                actions.append(SetValue(sheet=where, address=addr, value=reply.answer, overwrite=True))
        written = apply_actions(book, actions, log=[_log(reply, sheet, table_range)])
        ui.tell(_summary(reply, sheet))
        return Outcome(results=[reply], write=written, read=result)

    return _guarded(book, ui, work)


def _log(reply: Any, sheet: str, table_range: str) -> LogEntry:
    if isinstance(reply, AskResult):
        return log_entry(reply, sheet=sheet, range_=table_range)
    as_result = AskResult(
        question=reply.question,
        status=reply.status,
        error=reply.error,
        engine="llm",
        answer=[reply.answer] if reply.answer else [],
        evidence=reply.evidence,
        usage=reply.usage,
    )
    return log_entry(as_result, sheet=sheet, range_=table_range)


def _summary(reply: Any, sheet: str) -> str:
    shown = answer_text(reply) if isinstance(reply, AskResult) else reply.answer or f"#ERROR: {reply.error}"
    warnings = "".join(f"\n\nWarning: {w}" for w in getattr(reply, "warnings", []))
    if reply.status != "answered":
        return shown + warnings
    return f"{shown}\n\nEvidence: {evidence_text(reply.evidence, sheet)}{warnings}"


def ask(
    book: Any = None,
    *,
    ui: UI | None = None,
    question: str | None = None,
    target: str | None = None,
    answer_cell: str | None = None,
    settings: ClientSettings | None = None,
    record_to: str | None = None,
) -> Outcome | None:
    """Ask about the selected table (or `target`: an address, defined name or Excel table); None when
    cancelled or after an error message."""
    return _ask("ask", book, ui, question, target, answer_cell, settings, record_to)


def ask_long(
    book: Any = None,
    *,
    ui: UI | None = None,
    question: str | None = None,
    target: str | None = None,
    answer_cell: str | None = None,
    settings: ClientSettings | None = None,
    record_to: str | None = None,
) -> Outcome | None:
    """A paragraph answer about the selected table (`/v1/longform`)."""
    return _ask("long", book, ui, question, target, answer_cell, settings, record_to)


def ask_hex(question_hex: str, long: bool = False, book: Any = None) -> Outcome | None:
    """macOS ribbon entry: the VBA asks the question and passes it as UTF-16 hex (safe to quote)."""
    question = bytes.fromhex(question_hex).decode("utf-16-be")
    return (ask_long if long else ask)(book, question=question)


def batch(
    book: Any = None,
    *,
    ui: UI | None = None,
    table: str | None = None,
    settings: ClientSettings | None = None,
) -> Outcome | None:
    """Answer the selected column of questions; answers and evidence go to the next two columns."""
    settings = settings or ClientSettings()

    def work(book: Any, ui: UI) -> Outcome | None:
        questions = book.selection
        if questions is None:
            raise UserError("select the column of questions first")
        q0, qc, q1, qc1 = range_bounds(questions)
        if qc != qc1:
            raise UserError("select one column of questions (several columns are selected)")
        q_sheet = questions.sheet
        where = table or ui.prompt("Batch: the table to ask about (e.g. Report!A2:I10 or a defined name)")
        if not where:
            return None
        target = _table_target(book, where)
        values = q_sheet.range(range_ref(q0, qc, q1, qc)).options(ndim=2).value
        rows = [(q0 + i, row[0]) for i, row in enumerate(values) if row[0] not in (None, "")]
        if not rows:
            raise UserError(f"no questions in {q_sheet.name}!{range_ref(q0, qc, q1, qc)}")
        out = q_sheet.range(range_ref(rows[0][0], qc + 1, rows[-1][0], qc + 2)).options(ndim=2).value
        if any(v not in (None, "") for row in out for v in row) and not ui.confirm(
            "The answer and evidence columns are not empty. Overwrite them?"
        ):
            return None
        with Client(settings) as client:
            client.health()
            result = _read_table(book, target, settings, None)
            payload = TablePayload.from_table(result.table)
            replies = [_ask_one(client, payload, q) for _, q in rows]
        origin = result.table.origin
        sheet, table_range = (origin.sheet, origin.address) if origin else (target.sheet.name, "")
        actions: list[Action] = []
        for (row, _), reply in zip(rows, replies, strict=True):
            found = evidence_text(reply.evidence, sheet) if reply.status == "answered" else None
            answer_at = range_ref(row, qc + 1, row, qc + 1)
            actions += answer_cell_actions(reply, q_sheet.name, answer_at, overwrite=True)
            actions += [
                SetValue(
                    sheet=q_sheet.name,
                    address=range_ref(row, qc + 2, row, qc + 2),
                    value=found or None,
                    overwrite=True,
                ),
            ]
        logs = [log_entry(r, sheet=sheet, range_=table_range) for r in replies]
        written = apply_actions(book, actions, log=logs)
        answered = sum(r.status == "answered" for r in replies)
        ui.tell(f"Answered {answered} of {len(replies)} question(s).")
        return Outcome(results=replies, write=written, read=result)

    return _guarded(book, ui, work)


def _table_target(book: Any, where: str) -> Target:
    """An A1 address (`Sheet!A1:H20`) or else a defined name or an Excel table."""
    with contextlib.suppress(UserError):
        return resolve(book, address=where)
    try:
        return resolve(book, name=where)
    except UserError:
        return resolve(book, table=where)


def _ask_one(client: Client, payload: TablePayload, raw: Any) -> AskResult:
    """One batch question; a broken question or a server refusal becomes a failed result."""
    text = "" if raw is None else str(raw)
    try:
        return client.ask(payload, clean_question(text))
    except ServerUnavailable:
        raise
    except (ValueError, UserError) as exc:
        return AskResult(question=text, status="failed", error=str(exc), engine="offline")


def clear(book: Any = None, *, ui: UI | None = None) -> Outcome | None:
    """Remove every celltrace highlight and note, restoring the original fills and notes."""

    def work(book: Any, ui: UI) -> Outcome:
        written = apply_actions(book, [Clear()])
        ui.tell(f"Cleared celltrace highlights: {written.restored} cell(s) restored.")
        return Outcome(write=written)

    return _guarded(book, ui, work)
