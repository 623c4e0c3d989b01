"""Score the offline solver on the dev sets (strict EM, evidence P/R on correct answers, speed).

Usage: python benchmarks/offline_dev.py [--dataset hitab|aitqa|all] [--limit N] [--no-dense]
       [--show-fail N] [--header-agreement]

Gold fields are read only here, for scoring; the solver never sees them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import time
from collections import defaultdict

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from celltrace.server.evaluation.devdata import dev_data_dir
from celltrace.server.evaluation.metrics import em_strict, evidence_scores
from celltrace.server.infra.retrieval import Retriever
from celltrace.server.offline.solver import solve
from celltrace.shared.graph import CellGraph
from celltrace.shared.headers import infer_headers
from celltrace.shared.table import Table

DATA = dev_data_dir()


def run(dataset: str, limit: int | None, dense: bool, show_fail: int, min_conf: float) -> None:
    recs = [json.loads(line) for line in (DATA / f"{dataset}_dev.jsonl").open()]
    if limit:
        recs = recs[:limit]
    cache: dict[str, tuple[CellGraph, object, Retriever]] = {}
    by_agg: dict[str, list[int]] = defaultdict(list)
    halves: dict[str, list[int]] = defaultdict(list)
    prec, rec, conf_ok, fails = [], [], [], []
    t_total = 0.0
    for r in recs:
        key = json.dumps(r["table"]["cells"]) + json.dumps(r["table"]["merges"])
        if key not in cache:
            g = CellGraph(Table.from_record(r))
            retr = Retriever(g, dense=dense)
            if dense:
                retr.embedder.encode(["warm up"])  # model load only: label embedding is timed
            cache[key] = (g, infer_headers(g), retr)
        g, h, retr = cache[key]
        t = time.perf_counter()
        plan = solve(r["question"], g, h, retr)  # type: ignore[arg-type]
        t_total += time.perf_counter() - t
        answered = plan.confidence >= min_conf
        ok = answered and em_strict(plan.answer, r["answers"])
        conf_ok.append((plan.confidence, em_strict(plan.answer, r["answers"])))
        by_agg[r.get("aggregation") or "n/a"].append(int(ok))
        if r.get("aggregation") in ("none", None):
            halves[_half(r)].append(int(ok))
        if ok and r["answer_cells"]:
            areas = [(n.r0, n.c0, n.r1, n.c1) for n in (g.nodes[i] for i in plan.answer_nodes)]
            p, rc = evidence_scores(areas, [tuple(c) for c in r["answer_cells"]])
            if p is not None:
                prec.append(p)
            if rc is not None:
                rec.append(rc)
        if not ok:
            fails.append((r, plan, g))
    n = len(recs)
    em = sum(sum(v) for v in by_agg.values()) / n
    print(f"{dataset}: n={n} em_strict={100 * em:.1f}  s/q={t_total / n:.4f}")
    none = by_agg.get("none", [])
    aggs = [x for k, v in by_agg.items() if k not in ("none", "n/a") for x in v]
    if none:
        print(f"  lookups (none) {100 * sum(none) / len(none):.1f} (n={len(none)});"
              f" aggregations {100 * sum(aggs) / max(len(aggs), 1):.1f} (n={len(aggs)})")
    print("  lookups by table half: " + ", ".join(
        f"{k} {100 * sum(v) / len(v):.1f} (n={len(v)})" for k, v in sorted(halves.items())))
    for k, v in sorted(by_agg.items(), key=lambda kv: -len(kv[1]))[:12]:
        print(f"    {k:24s} {100 * sum(v) / len(v):5.1f}  n={len(v)}")
    if prec:
        print(f"  evidence on correct: P={sum(prec) / len(prec):.3f} R={sum(rec) / max(len(rec), 1):.3f}")
    for th in (0.2, 0.3, 0.4, 0.5, 0.6):
        kept = [ok for c, ok in conf_ok if c >= th]
        print(f"  conf>={th}: answered {len(kept)}, precision {sum(kept) / max(len(kept), 1):.3f}")
    random.Random(0).shuffle(fails)
    for r, plan, g in fails[:show_fail]:
        print("---", r["id"], r.get("aggregation"), "|", r["question"])
        print("   gold", r["answers"], r["answer_cells"], "pred", plan.answer, plan.operation,
              plan.confidence, [(g.nodes[i].r0, g.nodes[i].c0) for i in plan.answer_nodes])


def _half(rec: dict) -> str:
    """`tune` or `check`: the parity of the MD5 of the table cells (a fixed split by table)."""
    digest = hashlib.md5(json.dumps(rec["table"]["cells"]).encode()).hexdigest()
    return "tune" if int(digest, 16) % 2 == 0 else "check"


def header_agreement() -> None:
    """Inferred header band vs HiTab's `header_rows` (which often counts one data row too many)."""
    agree = total = 0
    for line in (DATA / "hitab_dev.jsonl").open():
        r = json.loads(line)
        h = infer_headers(CellGraph(Table.from_record(r)))
        total += 1
        agree += h.header_rows in (r["table"]["header_rows"], r["table"]["header_rows"] - 1)
    print(f"hitab header_rows agreement (annotation or annotation-1): {agree}/{total}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="all")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--no-dense", action="store_true")
    ap.add_argument("--show-fail", type=int, default=0)
    ap.add_argument("--min-conf", type=float, default=0.0)
    ap.add_argument("--header-agreement", action="store_true")
    a = ap.parse_args()
    for ds in ("aitqa", "hitab") if a.dataset == "all" else (a.dataset,):
        run(ds, a.limit, not a.no_dense, a.show_fail, a.min_conf)
    if a.header_agreement:
        header_agreement()


if __name__ == "__main__":
    main()
