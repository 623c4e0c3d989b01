"""Clean tables vs the same tables as real-layout workbooks (whole sheet, table detection, no range).

Usage: python benchmarks/real_layouts.py [--data FILE.jsonl] [--limit N] [--workers N] [--engine offline]
       [--keep DIR]

Runs `celltrace eval` three times through the harness: on the dataset's clean grids, then `--via-xlsx`
(each table written by `celltrace.server.evaluation.layouts` with a title line, blank rows, notes, a
second table on some sheets, read back as the whole sheet), then on records whose grid is that whole
sheet (a data set of real workbooks as JSONL; gold cells moved with the table). Prints the
summaries' best-guess EM (`em_best_guess`, whatever the status), strict EM (answered only) and
evidence recall, the gaps, and how many records changed best-guess verdict in each direction
(clean vs xlsx). `--keep DIR` also writes one workbook per layout kind there, to look at in Excel
or LibreOffice.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from celltrace.server.evaluation.harness import XLSX_KEY, evaluate, read_lines, write_workbooks
from celltrace.shared.a1 import parse_range
from celltrace.shared.xlsx_read import read_table

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "hitab_dev.jsonl"


def _rows(path: Path) -> dict[str, bool]:
    return {
        row["id"]: bool(row["scores"].get("em_best_guess"))
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }


def sheet_records(data: Path, limit: int | None, folder: Path, dst: Path) -> None:
    """`data`'s records with each grid replaced by its real-layout workbook's whole sheet as read."""
    with dst.open("w", encoding="utf-8") as fh:
        for _, line in write_workbooks(read_lines(data, limit), folder):
            record = json.loads(line) if XLSX_KEY in line else {}
            book = record.pop(XLSX_KEY, None)
            if book is None:  # a broken record stays as it is (eval scores it as failed)
                fh.write(line.rstrip("\n") + "\n")
                continue
            sheet = read_table(book["path"])
            assert sheet.origin is not None
            top, left, _, _ = parse_range(sheet.origin.address)
            rows, shift = [r - top for r in book["rows"]], book["left"] - left
            record["table"] = {"title": None, "cells": sheet.text, "merges": [list(m) for m in sheet.merges]}
            for key in ("answer_cells", "header_cells"):
                record[key] = [[rows[r], c + shift] for r, c in record.get(key) or []]
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


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
        sheets, sheets_out = Path(tmp) / "sheets.jsonl", Path(tmp) / "sheets_out.jsonl"
        clean = evaluate(args.data, args.engine, args.limit, args.workers, clean_out)
        xlsx = evaluate(args.data, args.engine, args.limit, args.workers, xlsx_out, via_xlsx=True)
        (Path(tmp) / "books").mkdir()
        sheet_records(args.data, args.limit, Path(tmp) / "books", sheets)
        grids = evaluate(sheets, args.engine, None, args.workers, sheets_out)
        a, b = _rows(clean_out), _rows(xlsx_out)
    for name, s in (("clean", clean), ("via-xlsx", xlsx), ("sheet grids", grids)):
        recall = s["evidence_recall"] or 0.0
        print(f"{name:>11}: n={s['n']} em_best_guess={s['em_best_guess']:.1f} em_strict={s['em_strict']:.1f} "
              f"evidence_recall={recall:.3f}")
    print(f"        gap: {xlsx['em_best_guess'] - clean['em_best_guess']:+.1f} points via xlsx, "
          f"{grids['em_best_guess'] - clean['em_best_guess']:+.1f} as sheet grids (best guess)")
    lost = sum(a[k] and not b.get(k, False) for k in a)
    gained = sum(b.get(k, False) and not a[k] for k in a)
    print(f"  records: {lost} right only on clean tables, {gained} right only on the workbooks")


if __name__ == "__main__":
    main()
