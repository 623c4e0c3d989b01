"""The restore record: what every cell celltrace touched looked like before, so `clear` is exact.

Format (version 1), engine-neutral: a list of JSON objects, one per touched cell and kind.

    {"kind": "fill", "sheet": "Data", "cell": "B7",
     "original": {"colour": "#C6EFCE" | null, "ooxml": "<fill>...</fill>" | null},
     "applied": "#FFD966"}
    {"kind": "note", "sheet": "Data", "cell": "B7",
     "original": {"text": "...", "author": "..."} | null,
     "applied": "<the full note text celltrace wrote>"}
    {"kind": "value", "sheet": "Data", "cell": "K2", "original": null | "text" | 12.5 | true,
     "applied": "<the answer celltrace wrote>" | 12.5, "formula": false}

`original` is taken the first time celltrace touches the cell and never replaced while the record
lives, so re-highlighting a highlighted cell never records celltrace's own fill as the original.
`applied` is what celltrace last wrote: `clear` restores a cell only while it still shows that,
so an edit made in Excel afterwards is kept. A value entry is an answer written into a cell
(`--answer-cell`); a date or time original comes back as its ISO text. `ooxml` is the exact
`<fill>` element (file mode); clients that only know colours use `colour` (None = no fill).

In a workbook the record lives in the very hidden sheet `_celltrace`: cell A1 holds the header
`{"celltrace_record": 1}`, then one entry per row in column A (a JSON text longer than
`CHUNK_CHARS` continues in B, C, ...). `clear` restores every entry and deletes the sheet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

RECORD_SHEET = "_celltrace"
RECORD_VERSION = 1
CHUNK_CHARS = 30_000
HEADER = json.dumps({"celltrace_record": RECORD_VERSION})


class RecordError(ValueError):
    """The stored record is unreadable or from a newer celltrace."""


class FillState(BaseModel):
    colour: str | None = None
    ooxml: str | None = None


class NoteState(BaseModel):
    text: str
    author: str | None = None


class FillEntry(BaseModel):
    kind: Literal["fill"] = "fill"
    sheet: str
    cell: str
    original: FillState
    applied: str


class NoteEntry(BaseModel):
    kind: Literal["note"] = "note"
    sheet: str
    cell: str
    original: NoteState | None
    applied: str


Scalar = str | bool | int | float | None


class ValueEntry(BaseModel):
    kind: Literal["value"] = "value"
    sheet: str
    cell: str
    original: Scalar
    applied: Scalar
    formula: bool = False
    """The original was a formula (restored as one); otherwise text is restored as text."""


AnyEntry = FillEntry | NoteEntry | ValueEntry
Entry = Annotated[AnyEntry, Field(discriminator="kind")]
_ENTRY = TypeAdapter(Entry)


class RestoreRecord:
    """Entries keyed by (kind, sheet, cell), in first-touched order."""

    def __init__(self, entries: Iterable[AnyEntry] = ()) -> None:
        self._entries: dict[tuple[str, str, str], AnyEntry] = {}
        for entry in entries:
            self._entries[(entry.kind, entry.sheet, entry.cell)] = entry

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[AnyEntry]:
        return iter(list(self._entries.values()))

    def get(self, kind: str, sheet: str, cell: str) -> AnyEntry | None:
        return self._entries.get((kind, sheet, cell))

    def remember(self, entry: AnyEntry) -> None:
        """Add `entry`; if the cell is already recorded keep its original, update `applied`."""
        key = (entry.kind, entry.sheet, entry.cell)
        old = self._entries.get(key)
        self._entries[key] = old.model_copy(update={"applied": entry.applied}) if old else entry

    def to_rows(self) -> list[str]:
        """Header then one JSON text per entry."""
        return [HEADER] + [e.model_dump_json() for e in self._entries.values()]

    @classmethod
    def from_rows(cls, rows: list[str]) -> RestoreRecord:
        if not rows:
            return cls()
        try:
            version = json.loads(rows[0]).get("celltrace_record")
        except (ValueError, AttributeError) as exc:
            raise RecordError("the celltrace record has no valid header") from exc
        if version != RECORD_VERSION:
            raise RecordError(f"celltrace record version {version!r} is not supported")
        try:
            return cls([_ENTRY.validate_json(row) for row in rows[1:] if row])
        except ValueError as exc:
            raise RecordError(f"the celltrace record is damaged: {exc}") from exc


def split_chunks(text: str) -> list[str]:
    """A row's JSON text cut into cell-sized chunks."""
    return [text[i : i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)] or [""]
