"""Every development table (../shared/data beside the checkout) loads into a consistent cell graph."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from celltrace.shared.graph import CellGraph
from celltrace.shared.table import Table

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FILES = ("hitab_dev.jsonl", "aitqa_dev.jsonl", "fetaqa_dev.jsonl", "qtsumm_dev.jsonl")


@pytest.mark.parametrize("file_name", FILES)
def test_dev_tables_build_graphs(file_name: str) -> None:
    path = DATA / file_name
    if not path.exists():
        pytest.skip(f"development data not found at {path} (expected ../shared/data beside the checkout)")
    seen: set[str] = set()
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        record = json.loads(line)
        key = json.dumps([record["table"]["cells"], record["table"].get("merges")])
        if key in seen:
            continue
        seen.add(key)
        table = Table.from_record(record)
        graph = CellGraph(table)
        covered = sum((m[2] - m[0] + 1) * (m[3] - m[1] + 1) - 1 for m in table.merges)
        assert len(graph) == table.n_rows * table.n_cols - covered, f"{file_name}:{line_no}"
        assert graph.edge_count() >= 0
    assert seen
