"""Text that celltrace writes or reads as input: never a formula, capped, free of control characters.

Answers, notes and questions come from an LLM and from cell text, so they are untrusted. A text
value is always stored as a string cell (openpyxl writes an inline string, never `<f>`), even when
it starts with `=`, `+`, `-`, `@`, tab or CR or equals an error code such as `#N/A`; such text also
gets Excel's quote prefix, so editing the cell in Excel keeps it text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from copy import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only annotations: `--help` and question cleaning need no openpyxl import
    from openpyxl.cell.cell import Cell

RISKY_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
EXCEL_CELL_MAX_CHARS = 32_767
MAX_QUESTION_CHARS = 2_000
"""Longer questions are refused (a table question is a sentence or two, not a document)."""
WRAP_OVER_CHARS = 60
_EXCEL_DEFAULT_WIDTH = 8.43
_LINE_POINTS = 15
_MAX_ROW_POINTS = 409
_ERROR_CODES = frozenset(
    {
        "#NULL!",
        "#DIV/0!",
        "#VALUE!",
        "#REF!",
        "#NAME?",
        "#NUM!",
        "#N/A",
        "#GETTING_DATA",
        "#SPILL!",
        "#CALC!",
        "#FIELD!",
        "#BLOCKED!",
        "#CONNECT!",
        "#BUSY!",
        "#UNKNOWN!",
        "#PYTHON!",
    }
)
# XML 1.0 forbids these; openpyxl raises IllegalCharacterError on them.
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def needs_guard(text: str) -> bool:
    """True when Excel could read `text` as a formula, DDE call or error value."""
    return text.startswith(RISKY_PREFIXES) or text.strip().upper() in _ERROR_CODES


def clean_text(text: str, limit: int = EXCEL_CELL_MAX_CHARS) -> str:
    """Drop characters XML cannot hold and cut to `limit` characters (with an ellipsis)."""
    text = _ILLEGAL_XML.sub("", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_value(cell: Cell, value: Any, *, wrap: bool = True) -> None:
    """Store `value` in an openpyxl cell; strings always as text, long or multi-line text wrapped."""
    if not isinstance(value, str):
        cell.value = value
        return
    text = clean_text(value)
    cell.value = text
    cell.data_type = "s"
    if needs_guard(text):
        cell.quotePrefix = True
    if wrap and (len(text) > WRAP_OVER_CHARS or "\n" in text):
        _wrap(cell, text)


def _wrap(cell: Cell, text: str) -> None:
    """Wrap text at the top of the cell and grow (never shrink) the row to about fit it."""
    alignment = copy(cell.alignment)
    alignment.wrap_text = True
    alignment.vertical = alignment.vertical or "top"
    cell.alignment = alignment
    ws = cell.parent
    letter = cell.column_letter
    width = ws.column_dimensions[letter].width if letter in ws.column_dimensions else _EXCEL_DEFAULT_WIDTH
    per_line = max(4, int(width))
    lines = sum(max(1, math.ceil(len(part) / per_line)) for part in text.split("\n"))
    row = ws.row_dimensions[cell.row]
    height = min(_MAX_ROW_POINTS, _LINE_POINTS * lines)
    if (row.height or _LINE_POINTS) < height:
        row.height = height


def clean_question(text: str) -> str:
    """A question from a cell, ready for the engine; ValueError with a one-line reason if broken.

    Control characters (tabs and line breaks included) become spaces and whitespace collapses;
    an empty question or one over `MAX_QUESTION_CHARS` is refused.
    """
    text = "".join(" " if unicodedata.category(ch) in ("Cc", "Cs") else ch for ch in text)
    text = " ".join(text.split())
    if not text:
        raise ValueError("empty question")
    if len(text) > MAX_QUESTION_CHARS:
        raise ValueError(f"question longer than {MAX_QUESTION_CHARS} characters ({len(text)})")
    return text


# ---- prompts ------------------------------------------------------------------------------------
# Untrusted text (cells, labels, titles, sheet names, model output) made inert for prompts:
# `neutralise` rewrites every sequence that could pass for prompt structure (runs of three or more
# `<` or `>`, i.e. our `<<<BEGIN X>>>` delimiters; chat-template role and special tokens such as
# `<|im_start|>`, `<s>`, `[INST]`, `<<SYS>>`, `<system>`) into full-width look-alikes (`＜ ＞ ｜ ［ ］`):
# the text reads the same to a model but cannot close a data block or start a chat role.
_ROLE = r"(?:system|user|assistant|tool|developer|s|im_start|im_end|bos|eos)"
_FORGERY = re.compile(
    r"<{3,}|>{3,}"  # block delimiters
    r"|<\|[^|<>\n]{0,40}\|>"  # <|im_start|>, <|eot_id|>, <|start_header_id|>
    r"|<\||\|>"  # a half of one
    r"|<\s*/?\s*" + _ROLE + r"\s*>"  # <s>, </s>, <system>, </assistant>
    + r"|\[\s*/?\s*INST\s*\]|<<\s*/?\s*SYS\s*>>",  # Llama-2 markers
    re.IGNORECASE,
)
_WIDE = str.maketrans({"<": "\uff1c", ">": "\uff1e", "|": "\uff5c", "[": "\uff3b", "]": "\uff3d"})


def neutralise(text: str) -> str:
    """`text` with every delimiter- or role-like sequence turned into full-width look-alikes."""
    return _FORGERY.sub(lambda m: m.group(0).translate(_WIDE), text)
