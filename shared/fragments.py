"""Number fragments a sheet keeps in columns of their own: `$` | `2,979`, `12.5` | `%`, `(112` | `)`.

Statements pasted from HTML or PDF into Excel put the currency sign, the percent sign and the
closing parenthesis of a negative in cells of their own. A column whose every filled cell is such
a fragment is a fragment column: `join_fragments` moves each fragment into the number beside it
(`$2,979`, `12.5%`, `(112)`) and blanks its cell, so the values read as the statement shows them and
a `$` column does not make a row of figures look like a row of labels.
"""

from __future__ import annotations

import dataclasses

from celltrace.shared.numbers import is_number_text
from celltrace.shared.table import Table

CURRENCY_SIGNS = frozenset({"$", "us$", "c$", "a$", "€", "£", "¥"})
"""Signs written before the number they belong to."""
AFTER = frozenset({"%", ")"})
"""Fragments written after the number they belong to."""


def join_fragments(table: Table) -> Table:
    """`table` with each fragment column's signs moved into the numbers beside them (the same table
    when it has none). Merged areas are left alone."""
    merged = {(r, c) for m in table.merges for r in range(m[0], m[2] + 1) for c in range(m[1], m[3] + 1)}
    signs = {c: kinds for c in range(table.n_cols) if (kinds := _fragment_signs(table, c, merged))}
    # signs after numbers first, so that `$` then meets a whole `(112)`
    fragment_cols = sorted(signs, key=lambda c: bool(signs[c] & CURRENCY_SIGNS))
    if not fragment_cols:
        return table
    text = [list(row) for row in table.text]
    values = [list(row) for row in table.values or text]
    for c in fragment_cols:
        for r, row in enumerate(text):
            sign = row[c].strip()
            if not sign:
                continue
            step = 1 if sign.lower() in CURRENCY_SIGNS else -1
            n = next((k for k in range(c + step, -1 if step < 0 else len(row), step) if row[k].strip()), None)
            if n is None or (r, n) in merged:
                continue
            joined = sign + row[n].strip() if step > 0 else row[n].strip() + sign
            if not is_number_text(joined):
                continue
            row[n], row[c], values[r][c] = joined, "", None
            if isinstance(values[r][n], str):
                values[r][n] = joined
    return dataclasses.replace(table, text=text, values=values)


def _fragment_signs(table: Table, c: int, merged: set[tuple[int, int]]) -> frozenset[str]:
    """The signs of column `c` when every filled cell outside merged areas (a period merged over the
    sign and number columns) is a fragment sign: one currency sign, or signs written after numbers
    (`)` and `%` share the column after the figures); else none."""
    kinds = frozenset(table.text[r][c].strip().lower() for r in range(table.n_rows)
                      if table.text[r][c].strip() and (r, c) not in merged)
    fragment = kinds <= AFTER or (len(kinds) == 1 and kinds <= CURRENCY_SIGNS)
    return kinds if fragment else frozenset()
