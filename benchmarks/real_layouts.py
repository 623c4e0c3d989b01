"""Clean tables vs the same tables as real-layout workbooks (whole sheet, table detection, no range).

Usage: python benchmarks/real_layouts.py [--data FILE.jsonl] [--limit N] [--workers N] [--engine offline]
       [--keep DIR]

Runs `celltrace eval` twice through the harness: on the dataset's clean grids, then `--via-xlsx`
(each table written by `celltrace.server.evaluation.layouts` with a title line, blank rows, notes, a
second table on some sheets, read back as the whole sheet). Prints both summaries' best-guess EM
(`em_best_guess`, whatever the status), strict EM (answered only) and evidence recall, the gap, and
how many records changed best-guess verdict in each direction. `--keep DIR`
also writes one workbook per layout kind there, to look at in Excel or LibreOffice.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from celltrace.server.evaluation.harness import evaluate, read_lines, write_workbooks

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "hitab_dev.jsonl"


def _rows(path: Path) -> dict[str, bool]:
    return {
        row["id"]: bool(row["scores"].get("em_best_guess"))
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--engine", default="offline", choices=["offline", "auto", "llm"])
    parser.add_argument("--keep", type=Path, default=None, help="write sample layout workbooks here")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        write_workbooks(read_lines(args.data, 12), args.keep)
    with tempfile.TemporaryDirectory() as tmp:
        clean_out, xlsx_out = Path(tmp) / "clean.jsonl", Path(tmp) / "xlsx.jsonl"
        clean = evaluate(args.data, args.engine, args.limit, args.workers, clean_out)
        xlsx = evaluate(args.data, args.engine, args.limit, args.workers, xlsx_out, via_xlsx=True)
        a, b = _rows(clean_out), _rows(xlsx_out)
    for name, s in (("clean", clean), ("via-xlsx", xlsx)):
        recall = s["evidence_recall"] or 0.0
        print(f"{name:>9}: n={s['n']} em_best_guess={s['em_best_guess']:.1f} em_strict={s['em_strict']:.1f} "
              f"evidence_recall={recall:.3f}")
    print(f"      gap: {xlsx['em_best_guess'] - clean['em_best_guess']:+.1f} points (best guess)")
    lost = sum(a[k] and not b.get(k, False) for k in a)
    gained = sum(b.get(k, False) and not a[k] for k in a)
    print(f"  records: {lost} right only on clean tables, {gained} right only on the workbooks")


if __name__ == "__main__":
    main()
