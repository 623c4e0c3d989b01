"""`=CELLTRACE_ASK(question, range, [details])`: the worksheet function of the xlwings add-in (Windows).

The desktop twin of the task pane's `=CELLTRACE.ASK()` (VBA names cannot hold a dot, hence the
underscore). Import it once with the xlwings ribbon's *Import Functions* (UDF module
`celltrace.addin.udfs`). It reads the range with the add-in's reader (merged areas, display text,
values), asks `celltrace serve` and returns the answer text; `details=TRUE` spills one row: answer,
value, unit, confidence, evidence address. Like every worksheet function it cannot format cells, so
highlighting stays on the ribbon's Ask button. Only xlwings' BSD part is used.
"""

from __future__ import annotations

from typing import Any

import xlwings as xw

from celltrace.addin.client import Client, ClientSettings
from celltrace.addin.merges import Probes
from celltrace.addin.reader import range_bounds, read_range
from celltrace.shared.actions import answer_text
from celltrace.shared.errors import UserError
from celltrace.shared.schemas import AskResult, TablePayload

DETAIL_COLUMNS = ("answer", "value", "unit", "confidence", "evidence")


def detail_row(result: AskResult) -> list[Any]:
    """answer, value, unit, confidence, first answer-evidence address (fields the engine leaves out
    are empty)."""
    evidence = next((f"{e.sheet}!{e.address}" for e in result.evidence if e.role == "answer"), "")
    return [answer_text(result), result.value, result.unit, result.confidence, evidence]


def ask_range(question: str, rng: Any, details: bool = False, settings: ClientSettings | None = None) -> Any:
    """The function's value for `question` about the xlwings range `rng` (errors as `#ERROR: …` text)."""
    try:
        sheet = rng.sheet
        table = read_range(Probes(sheet), sheet.name, range_bounds(rng), sheet.book.name).table
        with Client(settings or ClientSettings()) as client:
            result = client.ask(TablePayload.from_table(table), str(question))
    except UserError as exc:
        text = f"#ERROR: {exc}"
        return [[text, None, None, None, ""]] if details else text
    return [detail_row(result)] if details else answer_text(result)


@xw.func(category="celltrace")
@xw.arg("table", xw.Range)
@xw.arg("details", doc="TRUE: one row with answer, value, unit, confidence, evidence address")
def CELLTRACE_ASK(question: str, table: Any, details: bool = False) -> Any:
    """Ask celltrace a question about a table range; returns the answer."""
    return ask_range(question, table, bool(details))
