"""Hints for common command-line mistakes: swapped arguments and a question about another sheet.

Hints never change what a command does; they go to stderr as one `celltrace: hint:` line each.
"""

from __future__ import annotations

import sys
from pathlib import Path

from celltrace.shared.a1 import quote_sheet
from celltrace.shared.errors import UserError
from celltrace.shared.numbers import is_number_text
from celltrace.shared.table import Table

SCAN_CELLS = 50_000
MIN_FIGURES = 2
"""The fewest figures a sheet shows to be answered from in place of the active one."""
"""Cells read per other sheet when looking for a better match (keeps the hint under a second)."""
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm")


def hint(message: str) -> None:
    print(f"celltrace: hint: {message}", file=sys.stderr)


def check_workbook_arg(workbook: Path, question: str, command: str = "ask") -> None:
    """A UserError with the likely fix when WORKBOOK is not a file but looks like the question."""
    if workbook.exists():
        return
    usage = f'the workbook comes first: celltrace {command} WORKBOOK "QUESTION"'
    if Path(question).suffix.lower() in WORKBOOK_SUFFIXES and Path(question).is_file():
        raise UserError(f"{workbook}: no such file; the arguments look swapped ({usage})")
    text = str(workbook)
    if workbook.suffix.lower() not in WORKBOOK_SUFFIXES and (" " in text or text.endswith("?")):
        raise UserError(f"{str(workbook)!r} is not a file but looks like a question ({usage})")


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")


def _words(texts: list[str]) -> set[str]:
    """Stemmed words of `texts`, a month as its first three letters (`Dec` = `December`); of numbers,
    only years (`2019`)."""
    from celltrace.server.infra.retrieval import tokens

    def word(t: str) -> str:
        month = next((m for m in _MONTHS if len(t) >= 3 and m.startswith(t)), None)
        return month[:3] if month else t

    return {word(t) for text in texts for t in tokens(text)
            if not t.isdigit() or (len(t) == 4 and YEARS[0] <= int(t) <= YEARS[1])}


YEARS = (1900, 2100)
"""Whole numbers read as years (`2019`, also stored as a number in a header cell): words a question
says, unlike other figures."""


def better_sheet(workbook: Path, table: Table, question: str) -> str | None:
    """Another visible worksheet whose text shares more of the question's words than the sheet of
    `table` does (the best one; each sheet's whole text, titles included), else None; says so on
    stderr. A sheet showing no figures (`Notes`, definitions) is never the better one: no answer is
    read from it."""
    wanted = _words([question])
    if not wanted:
        return None
    import openpyxl

    wb = openpyxl.load_workbook(workbook, read_only=True, data_only=True)
    try:
        hits: dict[str, int] = {}
        for ws in wb.worksheets:
            if ws.title != table.sheet and ws.sheet_state != "visible":
                continue
            texts: list[str] = []
            figures = 0
            for row in ws.iter_rows(values_only=True):
                texts += [v if isinstance(v, str) else str(v) for v in row if isinstance(v, str) or (
                    isinstance(v, int) and not isinstance(v, bool) and YEARS[0] <= v <= YEARS[1])]
                figures += sum((isinstance(v, (int, float)) and not isinstance(v, bool)) or (
                    isinstance(v, str) and is_number_text(v)) for v in row)
                if len(texts) > SCAN_CELLS:
                    break
            if ws.title == table.sheet or figures >= MIN_FIGURES:
                hits[ws.title] = len(wanted & _words(texts))
    finally:
        wb.close()
    here = hits.get(table.sheet, 0)
    best = max((s for s in hits if s != table.sheet), key=lambda s: hits[s], default=None)
    if best is None or hits[best] <= here:
        return None
    hint(
        f"answering from sheet {best!r}: the question matches it better than the active sheet "
        f"{table.sheet!r} ({hits[best]} vs {here} of {len(wanted)} words); "
        f"add --sheet {_shell_word(table.sheet)} to ask there"
    )
    return best


def _shell_word(sheet: str) -> str:
    return sheet if quote_sheet(sheet) == sheet else "'" + sheet.replace("'", "'\\''") + "'"
