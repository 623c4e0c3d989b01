"""Caps checked while streaming a workbook's zip parts, before openpyxl builds anything in memory.

A 200 KB .xlsx can inflate to gigabytes (one huge cell, millions of rows). `check_workbook` reads
each part through the zip decompressor in 1 MiB chunks and stops at the first cap passed:

* `max_part_bytes` — uncompressed size of any one part (declared size checked first);
* `max_cells` — cells (`<c>` elements) in all worksheet parts together;
* `max_text_bytes` — bytes of any one run of XML text (a cell string, a shared string, a label).

Each cap is a setting (`CELLTRACE_MAX_PART_BYTES`, `CELLTRACE_MAX_READ_CELLS`,
`CELLTRACE_MAX_TEXT_BYTES`) and a breach is a one-line `WorkbookTooLarge` (a `UserError`: CLI exit
2, HTTP 413). Memory stays at one chunk per part; the reader and the writer's load both call it.
"""

from __future__ import annotations

import re
import zipfile
from typing import IO

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from celltrace.shared.errors import WorkbookError

CHUNK = 1 << 20
_CELL = re.compile(rb"<(?:\w+:)?c[\s>/]")
_OVERLAP = 16
"""Bytes kept from the previous chunk so a `<c ` tag split across chunks is still counted once."""


class ReadLimits(BaseSettings):
    """Workbook read caps (environment variables with prefix `CELLTRACE_`)."""

    model_config = SettingsConfigDict(env_prefix="CELLTRACE_", env_file=".env", extra="ignore")

    max_part_bytes: int = Field(default=100_000_000, ge=1, description="uncompressed bytes per workbook part")
    max_read_cells: int = Field(default=1_000_000, ge=1, description="cells in all worksheets of a workbook")
    max_text_bytes: int = Field(default=1_000_000, ge=1, description="bytes of one XML text run (cell text)")


class WorkbookTooLarge(WorkbookError):
    """A workbook passes one of the read caps."""


def check_workbook(source: str | IO[bytes], name: str, limits: ReadLimits | None = None) -> None:
    """Raise WorkbookTooLarge when a part of the zip `source` passes a cap (see the module docstring).

    Not-a-zip problems are left to the loader, which reports them in its own words.
    """
    limits = limits or ReadLimits()
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError):
        return
    cells = 0
    with archive:
        for info in archive.infolist():
            if info.file_size > limits.max_part_bytes:
                _too_large(name, info.filename, "CELLTRACE_MAX_PART_BYTES", limits.max_part_bytes, "bytes")
            if not info.filename.endswith((".xml", ".rels", ".vml")):
                continue
            try:
                cells = _scan(archive, info, name, limits, cells, info.filename.startswith("xl/worksheets/"))
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError):
                return


def _scan(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, limits: ReadLimits,
          cells: int, sheet: bool) -> int:
    """Stream one part; the running cell count (`cells` plus this part's when it is a worksheet)."""
    size, run, tail = 0, 0, b""
    with archive.open(info) as part:
        while chunk := part.read(CHUNK):
            size += len(chunk)
            if size > limits.max_part_bytes:
                _too_large(name, info.filename, "CELLTRACE_MAX_PART_BYTES", limits.max_part_bytes, "bytes")
            pieces = chunk.split(b"<")
            run += len(pieces[0])
            longest = max(run, *(len(p) for p in pieces[1:-1])) if len(pieces) > 1 else run
            run = len(pieces[-1]) if len(pieces) > 1 else run
            if max(longest, run) > limits.max_text_bytes:
                _too_large(name, info.filename, "CELLTRACE_MAX_TEXT_BYTES", limits.max_text_bytes,
                           "bytes of text in one cell or string")
            if sheet:
                window = tail + chunk
                cells += len(_CELL.findall(window)) - len(_CELL.findall(tail))
                tail = window[-_OVERLAP:]
                if cells > limits.max_read_cells:
                    _too_large(name, "the worksheets", "CELLTRACE_MAX_READ_CELLS", limits.max_read_cells,
                               "cells")
    return cells


def _too_large(name: str, part: str, setting: str, cap: int, unit: str) -> None:
    raise WorkbookTooLarge(f"{name}: {part}: more than {cap:,} {unit} (limit {setting})")
