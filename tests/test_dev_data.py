"""Every development table (../shared/data beside the checkout) loads into a consistent cell graph."""

from __future__ import annotations

import json

import pytest

from celltrace.server.evaluation.devdata import dev_data_dir
from celltrace.shared.graph import CellGraph
from celltrace.shared.table import Table

DATA = dev_data_dir()
FILES = ("hitab_dev.jsonl", "aitqa_dev.jsonl", "fetaqa_dev.jsonl", "qtsumm_dev.jsonl")


@pytest.mark.parametrize("file_name", FILES)
def test_dev_tables_build_graphs(file_name: str) -> None:
    path = DATA / file_name
    if not path.exists():
        pytest.skip(f"development data not found at {path} (set CELLTRACE_DATA_DIR; see README)")
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
        # two nodes always share a row or a column unless one node covers the whole grid
        assert (graph.edge_count() > 0) == (len(graph) > 1), f"{file_name}:{line_no}"
    assert seen
