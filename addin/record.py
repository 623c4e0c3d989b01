"""`--record DIR`: dump what the reader saw in real Excel, so it can become a regression fixture.

A recording is one JSON file: the workbook, sheet and range read, the merge strategy used, the
number of Excel calls, the TABLE payload (plus hidden rows/columns and warnings) and every probe
with Excel's answer (`merges.Probes.log`: op, address, answer). `replay()` runs the same reader on
those answers (`merges.ReplayProbes`), without Excel; a test asserts it rebuilds the same payload.

The directory comes from `--record DIR`, else `CELLTRACE_RECORD_DIR` (environment or `.env`).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from celltrace.addin.merges import ReplayProbes
from celltrace.addin.reader import ReadResult, read_range
from celltrace.shared.a1 import parse_range
from celltrace.shared.schemas import TablePayload

FORMAT_VERSION = 2
"""2: reads ask each text column's indent levels (`indent_level`); older recordings lack them."""


def record_dir(explicit: str | Path | None = None) -> Path | None:
    """`explicit`, else the `CELLTRACE_RECORD_DIR` setting, else None (not recording)."""
    if explicit:
        return Path(explicit)
    from celltrace.addin.client import ClientSettings

    configured = ClientSettings().record_dir
    return Path(configured) if configured else None


def to_json(result: ReadResult, requested: str) -> dict[str, Any]:
    """The recording of one read; `requested` is the A1 range asked for (before clipping)."""
    table = result.table
    origin = table.origin
    return {
        "celltrace_recording": FORMAT_VERSION,
        "workbook": origin.workbook if origin else None,
        "sheet": origin.sheet if origin else "",
        "requested": requested,
        "strategy": result.strategy,
        "calls": result.calls,
        "payload": TablePayload.from_table(table).model_dump(),
        "hidden_rows": sorted(table.hidden_rows),
        "hidden_cols": sorted(table.hidden_cols),
        "warnings": table.warnings,
        "probes": result.probes.log,
    }


def dump(directory: str | Path, result: ReadResult, requested: str) -> Path:
    """Write the recording to `directory` (created if needed); returns the file."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    data = to_json(result, requested)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{data['workbook']}-{data['sheet']}-{requested}")
    path = directory / f"{datetime.now():%Y%m%d-%H%M%S}-{stem}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def replay(recording: dict[str, Any] | str | Path) -> ReadResult:
    """Run the reader on a recording's answers; it asks exactly what the recorded run asked."""
    data = recording if isinstance(recording, dict) else json.loads(Path(recording).read_text("utf-8"))
    if data.get("celltrace_recording") != FORMAT_VERSION:
        raise ValueError("not a celltrace recording (or from another celltrace version)")
    probes = ReplayProbes(data["probes"])
    return read_range(probes, data["sheet"], parse_range(data["requested"]), data["workbook"])
