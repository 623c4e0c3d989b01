"""A1-style address helpers (column letters, cell and range references)."""

from __future__ import annotations

import re

_CELL_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")
_PLAIN_SHEET = re.compile(r"^[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_.\u00C0-\uFFFF]*$")
_R1C1_LIKE = re.compile(r"^(R\d*C?\d*|C\d*)$", re.IGNORECASE)
MAX_ROW = 1_048_576
MAX_COL = 16_384


class AddressError(ValueError):
    """A malformed or out-of-bounds A1 reference."""


def col_letter(col: int) -> str:
    """1-based column number → letters (1 → 'A', 27 → 'AA')."""
    if col < 1:
        raise AddressError(f"column {col} out of range")
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def col_number(letters: str) -> int:
    """Column letters → 1-based number ('A' → 1)."""
    n = 0
    for ch in letters.upper():
        if not "A" <= ch <= "Z":
            raise AddressError(f"bad column letters {letters!r}")
        n = n * 26 + ord(ch) - 64
    return n


def parse_cell(ref: str) -> tuple[int, int]:
    """'B3' → (row 3, col 2), both 1-based."""
    m = _CELL_RE.match(ref.strip())
    if not m:
        raise AddressError(f"malformed cell reference {ref!r}")
    row, col = int(m.group(2)), col_number(m.group(1))
    if not (1 <= row <= MAX_ROW and 1 <= col <= MAX_COL):
        raise AddressError(f"cell reference {ref!r} is outside the sheet")
    return row, col


def parse_range(ref: str) -> tuple[int, int, int, int]:
    """'A1:H20' (or a single cell) → 1-based inclusive (min_row, min_col, max_row, max_col)."""
    ref = ref.strip()
    if "!" in ref:
        ref = ref.rsplit("!", 1)[1]
    parts = ref.split(":")
    if len(parts) > 2 or not parts[0]:
        raise AddressError(f"malformed range {ref!r}")
    r0, c0 = parse_cell(parts[0])
    r1, c1 = parse_cell(parts[1]) if len(parts) == 2 else (r0, c0)
    return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)


def cell_ref(row: int, col: int) -> str:
    """1-based (row, col) → 'B3'."""
    return f"{col_letter(col)}{row}"


def range_ref(r0: int, c0: int, r1: int, c1: int) -> str:
    """1-based inclusive bounds → 'A1:H20' ('A1' for a single cell)."""
    first = cell_ref(r0, c0)
    return first if (r0, c0) == (r1, c1) else f"{first}:{cell_ref(r1, c1)}"


def split_sheet_ref(ref: str) -> tuple[str | None, str]:
    """"'My Sheet'!B2" → ("My Sheet", "B2"); "B2" → (None, "B2")."""
    if "!" not in ref:
        return None, ref.strip()
    sheet, addr = ref.rsplit("!", 1)
    sheet = sheet.strip()
    if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, addr.strip()


def quote_sheet(sheet: str) -> str:
    """A sheet name as Excel writes it in a reference: quoted ('Income Statement') when it holds
    anything but letters, digits, `_` and `.`, starts with a digit or looks like a cell reference."""
    plain = _PLAIN_SHEET.match(sheet) and not _CELL_RE.match(sheet) and not _R1C1_LIKE.match(sheet)
    return sheet if plain else "'" + sheet.replace("'", "''") + "'"


def sheet_address(sheet: str | None, address: str) -> str:
    """`'Income Statement'!B10`, pasteable into Excel's Go To box (`B10` without a sheet)."""
    return f"{quote_sheet(sheet)}!{address}" if sheet else address
