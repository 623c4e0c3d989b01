"""Hints for common command-line mistakes: swapped arguments and a question about another sheet.

Hints never change what a command does; they go to stderr as one `celltrace: hint:` line each.
"""

from __future__ import annotations

import sys
from pathlib import Path

from celltrace.shared.a1 import quote_sheet
from celltrace.shared.errors import UserError
from celltrace.shared.table import Table

SCAN_CELLS = 50_000
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


def _words(texts: list[str]) -> set[str]:
    from celltrace.server.infra.retrieval import tokens

    return {t for text in texts for t in tokens(text) if not t.isdigit()}


def better_sheet(workbook: Path, table: Table, question: str) -> str | None:
    """Another visible worksheet whose text shares more of the question's words than `table` does
    (the best one), else None; says so on stderr."""
    wanted = _words([question])
    if not wanted:
        return None
    here = len(wanted & _words([t for row in table.text for t in row]))
    import openpyxl

    wb = openpyxl.load_workbook(workbook, read_only=True, data_only=True)
    try:
        best, best_hits = None, here
        for ws in wb.worksheets:
            if ws.title == table.sheet or ws.sheet_state != "visible":
                continue
            texts: list[str] = []
            for row in ws.iter_rows(values_only=True):
                texts += [v for v in row if isinstance(v, str)]
                if len(texts) > SCAN_CELLS:
                    break
            hits = len(wanted & _words(texts))
            if hits > best_hits:
                best, best_hits = ws.title, hits
    finally:
        wb.close()
    if best is not None:
        hint(
            f"answering from sheet {best!r}: the question matches it better than the active sheet "
            f"{table.sheet!r} ({best_hits} vs {here} of {len(wanted)} words); "
            f"add --sheet {_shell_word(table.sheet)} to ask there"
        )
    return best


def _shell_word(sheet: str) -> str:
    return sheet if quote_sheet(sheet) == sheet else "'" + sheet.replace("'", "'\\''") + "'"
