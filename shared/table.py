"""The table model: displayed text, raw values, merged areas and origin of a rectangular range."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from celltrace.shared.a1 import AddressError, parse_range, range_ref, sheet_address

Merge = tuple[int, int, int, int]
"""An inclusive, 0-based merged rectangle (first_row, first_col, last_row, last_col)."""


class TableError(ValueError):
    """The table data is inconsistent (ragged rows, overlapping merges, ...).

    ``field`` names the part at fault as the HTTP API spells it (``cells``, ``values``, ``merges``,
    ``origin.address``); the message then reads ``table.<field>: <detail>``.
    """

    def __init__(self, detail: str, field: str | None = None) -> None:
        super().__init__(f"table.{field}: {detail}" if field else detail)
        self.field = field


@dataclass(frozen=True)
class Origin:
    """Where a table came from: workbook path or name, sheet, and the A1 range it spans."""

    sheet: str
    address: str
    workbook: str | None = None

    @functools.cached_property
    def top_left(self) -> tuple[int, int]:
        """1-based (row, col) of the range's top-left cell (parsed once)."""
        r0, c0, _, _ = parse_range(self.address)
        return r0, c0


@dataclass
class Table:
    """A rectangular grid. Covered cells of a merged area hold "" / None; the anchor holds the value.

    `text` is what Excel displays, `values` the raw values (numbers stay numbers) for arithmetic.
    `title` is the caption above the table, `notes` the lines under it (notes, sources, a legend of
    quality flags: `shared.flags`).
    """

    text: list[list[str]]
    values: list[list[Any]] | None = None
    merges: list[Merge] = field(default_factory=list)
    title: str | None = None
    origin: Origin | None = None
    hidden_rows: frozenset[int] = frozenset()
    hidden_cols: frozenset[int] = frozenset()
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    elsewhere: tuple[str, ...] = ()
    """What the question names that only another table on the sheet shows (`detect.locate`: `Export`
    in the caption of the table below, `Total appropriations` on another table's line): an answer
    needing both tables is none this one gives."""

    def __post_init__(self) -> None:
        address = self.origin.address if self.origin else None
        self.merges = check_grid(self.text, self.values, self.merges, address)
        if self.values is None:
            self.values = [[cell if cell != "" else None for cell in row] for row in self.text]

    @property
    def n_rows(self) -> int:
        return len(self.text)

    @property
    def n_cols(self) -> int:
        return len(self.text[0]) if self.text else 0

    def content_hash(self) -> str:
        """Stable hash of everything that determines the graph (text, values, merges, title)."""
        payload = json.dumps(
            [self.title, self.text, self.values, self.merges], ensure_ascii=False, default=str
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def address(self, r0: int, c0: int, r1: int | None = None, c1: int | None = None) -> str:
        """Sheet A1 address of a 0-based area of this table (relative to A1 without an origin)."""
        top, left = self.origin.top_left if self.origin else (1, 1)
        r1 = r0 if r1 is None else r1
        c1 = c0 if c1 is None else c1
        return range_ref(top + r0, left + c0, top + r1, left + c1)

    @property
    def sheet(self) -> str:
        return self.origin.sheet if self.origin else ""

    @property
    def region(self) -> str | None:
        """Sheet address of the whole table (`'Income Statement'!A3:H28`); None without an origin."""
        return sheet_address(self.origin.sheet, self.origin.address) if self.origin else None

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Table:
        """Build from a ../shared/data record (or its `table` object); annotations are ignored."""
        table = record.get("table", record)
        cells = table.get("cells")
        if not isinstance(cells, list) or not all(isinstance(row, list) for row in cells):
            raise TableError("must be a list of rows", "cells")
        text = [["" if c is None else str(c) for c in row] for row in cells]
        merges = [tuple(int(x) for x in m) for m in table.get("merges") or []]
        return cls(text=text, merges=merges, title=table.get("title"))  # type: ignore[arg-type]


def check_grid(
    text: Sequence[Sequence[object]],
    values: Sequence[Sequence[object]] | None,
    merges: Sequence[Sequence[int]],
    origin_address: str | None = None,
) -> list[Merge]:
    """The one table validator (`Table` and the HTTP API's `TablePayload`): rows of equal length,
    values of the text's shape, merges in bounds and non-overlapping, an A1 origin address.
    Returns the normalised merges; raises `TableError` naming the field at fault."""
    widths = {len(row) for row in text}
    if len(widths) > 1:
        raise TableError(f"rows must have equal length (found {sorted(widths)})", "cells")
    if values is not None and (
        len(values) != len(text) or any(len(v) != len(t) for v, t in zip(values, text, strict=True))
    ):
        raise TableError("must have the same shape as table.cells", "values")
    normalised = normalise_merges(merges, len(text), widths.pop() if widths else 0)
    if origin_address is not None:
        try:
            parse_range(origin_address)
        except AddressError as exc:
            raise TableError(str(exc), "origin.address") from None
    return normalised


def normalise_merges(merges: Sequence[Sequence[int]], n_rows: int, n_cols: int) -> list[Merge]:
    """Validate merges (in bounds, non-overlapping), drop 1×1 areas, sort row-major by anchor."""
    out: list[Merge] = []
    owner: dict[tuple[int, int], int] = {}
    for m in merges:
        if len(m) != 4:
            raise TableError(f"merge {list(m)} must have 4 integers", "merges")
        r0, c0, r1, c1 = (int(x) for x in m)
        if not (0 <= r0 <= r1 < n_rows and 0 <= c0 <= c1 < n_cols):
            raise TableError(f"merge {[r0, c0, r1, c1]} outside the {n_rows}x{n_cols} grid", "merges")
        if (r0, c0) == (r1, c1):
            continue
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                if (r, c) in owner:
                    raise TableError(f"merge {[r0, c0, r1, c1]} overlaps another merged area", "merges")
                owner[(r, c)] = len(out)
        out.append((r0, c0, r1, c1))
    out.sort()
    return out
