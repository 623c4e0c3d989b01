"""The xlwings worksheet function `CELLTRACE_ASK` against a real `celltrace serve` (fake Excel)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_xlwings import FakeBook
from serve_process import free_port, running_server

from celltrace.addin.client import ClientSettings
from celltrace.addin.udfs import DETAIL_COLUMNS, ask_range

SAMPLE = Path(__file__).resolve().parents[1] / "addin" / "samples" / "segments.xlsx"
QUESTION = "What was the revenue of USA in 2024?"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server({"CELLTRACE_TOKEN": ""}) as (_, url):
        yield url


def _range():
    book = FakeBook.from_xlsx(SAMPLE)
    return next(s for s in book.sheets if s.name == "Report").range("A2:I10")


def settings(url: str) -> ClientSettings:
    return ClientSettings(url=url, token=None, engine="offline", client_timeout=120, record_dir=None)


def test_answer_text_and_detail_row(server: str) -> None:
    assert ask_range(QUESTION, _range(), settings=settings(server)) == "3,720"
    [row] = ask_range(QUESTION, _range(), details=True, settings=settings(server))
    assert len(row) == len(DETAIL_COLUMNS) and row[0] == "3,720" and row[-1] == "Report!F7"


def test_server_down_is_an_error_text_not_an_exception() -> None:
    text = ask_range(QUESTION, _range(), settings=settings(f"http://127.0.0.1:{free_port()}"))
    assert text.startswith("#ERROR: ") and "celltrace serve" in text
