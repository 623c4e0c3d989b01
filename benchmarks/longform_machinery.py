"""Long-form machinery on QTSumm dev: program success, LLM calls and time per question, no real LLM.

Measured on the first 50 records (2 shared cores, bwrap sandbox): 76 plan items, program success
1.000 (27 empty outputs), 28 DEBUG rounds, 131 sandbox runs, 6.92 LLM calls per question (max 10),
42 answered / 8 failed (no sub-question answered), 0 false unsupported-number alarms, 0.67 s per
question.

    python benchmarks/longform_machinery.py [--limit 50] [--data ../shared/data] [--buggy 0.25]

The loopback `ScriptedLLM` (tests/llm_server.py, real openai client) plays every stage with
generic, question-independent behaviour, so this measures the engine (plan parsing, sandbox runs,
self-debug, plan check, evidence, faithfulness), not a model:

* PLAN splits the question into clauses ("Distinct facts: n" + a numbered list);
* PROGRAM writes a table-API program chosen by the sub-question's wording: count the rows that
  mention a question word ("how many"), the row with the largest value of the first numeric
  column ("highest", "most", "largest", ...), else the row whose first column best matches words
  of the sub-question (ties broken by the whole row; None without any match). A `--buggy` share
  of first attempts uses a column that does not exist, so the DEBUG round (which returns the
  correct program) is exercised;
* PLAN_CHECK finalises when every sub-question has an answer, else rewrites each unanswered one
  once ("... (in any row)"), which the next round executes;
* SUB_ANSWER / FINAL_ANSWER restate the program output / join the sub-answers, so the answer's
  numbers all come from programs: `unsupported` counts false alarms of the faithfulness check.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from llm_server import ScriptedLLM  # noqa: E402

from celltrace.server.evaluation.devdata import dev_data_dir  # noqa: E402
from celltrace.server.infra.settings import Settings  # noqa: E402
from celltrace.server.longform.engine import answer_longform  # noqa: E402
from celltrace.shared.table import Table  # noqa: E402

STAGES = ("PLAN", "PLAN_CHECK", "PROGRAM", "DEBUG", "SUB_ANSWER", "FINAL_ANSWER")
STAGE_OF = {f"bench-{s.lower()}": s for s in STAGES}
STOPWORDS = """a an the of in on at to for and or is are was were be been what which who whom whose how
many much did does do with by from as that this these those their its it than summarize describe provide
compare list give tell me about any row"""
STOP = frozenset(STOPWORDS.split())
COUNT = """
import re

WORDS = frozenset({words!r})


def solve(table):
    hits = [r for r in table.records()
            if WORDS & set(re.findall(r"[a-z0-9]+", " ".join(r.values()).lower()))]
    cite(hits)
    return len(hits)
"""
LARGEST = """
def _numeric_column(table):
    for c in range(table.n_cols):
        cells = table.column(c)
        if cells and sum(to_number(x) is not None for x in cells) * 2 > len(cells):
            return c
    return None


def solve(table):
    c = _numeric_column(table)
    if c is None:
        return None
    best = max(table.records(), key=lambda r: to_number(r[c], float("-inf")))
    return {"row": best[0], "column": table.columns[c], "value": to_number(best[c])}
"""
MATCH = """
import re

WORDS = frozenset({words!r})


def _words(text):
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _score(record):
    return 2 * len(WORDS & _words(record[0])) + len(WORDS & _words(" ".join(record.values())))


def solve(table):
    records = table.records()
    if not records:
        return None
    best = max(records, key=_score)
    if _score(best) == 0:
        return None
    return best
"""
BUG = '\n\ndef solve(table):\n    return [r["Total score (adjusted)"] for r in table.records()]\n'


def words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 2]


def target(prompt: str) -> str:
    m = re.search(r"### Target Question:\n(.+)", prompt)
    return m.group(1).strip() if m else ""


class Machinery:
    """The scripted responder (module docstring); counts first-attempt bugs."""

    def __init__(self, buggy: float) -> None:
        self.buggy = buggy

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> str:
        stage = STAGE_OF[model]
        first, last = messages[0]["content"], messages[-1]["content"]
        if stage == "PLAN":
            return self.plan(target(first))
        if stage == "PLAN_CHECK":
            return self.check(last)
        if stage in ("PROGRAM", "DEBUG"):
            return self.program(target(first), first_attempt=stage == "PROGRAM")
        if stage == "SUB_ANSWER":
            out = re.search(r"<<<BEGIN PROGRAM OUTPUT>>>\n(.*)\n<<<END PROGRAM OUTPUT>>>", last, re.S)
            return f"The table gives {out.group(1)[:300] if out else 'nothing'}."
        answers = re.findall(r"Sub-Answer \d+: (.+)", last.split("### Target QA-based Plan:")[-1])
        return " ".join(a for a in answers if not a.startswith("(not answered"))

    @staticmethod
    def plan(question: str) -> str:
        clauses = [c.strip(" ,.?") for c in re.split(r"\?|, and |; | and (?=how|what|which|who)", question)]
        clauses = [c for c in clauses if len(c.split()) >= 3][:4] or [question]
        return f"Distinct facts: {len(clauses)}\n" + "\n".join(f"{i}. {c}?" for i, c in enumerate(clauses, 1))

    @staticmethod
    def check(prompt: str) -> str:
        pairs = re.findall(r"Sub-Question \d+: (.+)\nSub-Answer \d+: (.+)", prompt)
        unanswered = [q for q, a in pairs if a.startswith("(no answer")]
        if not unanswered or any("(in any row)" in q for q in unanswered):
            return json.dumps({"reasoning": "complete", "finalized": True, "plan": []})
        plan = [q if not a.startswith("(no answer") else f"{q.rstrip('?')} (in any row)?" for q, a in pairs]
        return json.dumps({"reasoning": "rephrase the unanswered ones", "finalized": False, "plan": plan})

    def program(self, question: str, first_attempt: bool) -> str:
        digest = int(hashlib.sha256(question.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        if first_attempt and digest < self.buggy:
            return f"```python{BUG}```"
        lowered = question.lower()
        if re.search(r"\bhow many\b|\bnumber of\b", lowered):
            code = COUNT.format(words=sorted(words(question)))
        elif re.search(r"\b(highest|most|largest|biggest|top|best|maximum)\b", lowered):
            code = LARGEST
        else:
            code = MATCH.format(words=sorted(words(question)))
        return f"Program:\n```python\n{code.strip()}\n```"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--data", type=Path, default=dev_data_dir())
    parser.add_argument("--buggy", type=float, default=0.25, help="share of first programs with a bug")
    args = parser.parse_args()
    records = []
    with (args.data / "qtsumm_dev.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            records.append(json.loads(line))
            if len(records) >= args.limit:
                break

    rows = []
    with ScriptedLLM(Machinery(args.buggy)) as llm:
        settings = Settings(base_url=llm.base_url, api_key="bench",
                            **{f"model_{s.lower()}": m for m, s in STAGE_OF.items()})
        started = time.perf_counter()
        for record in records:
            t = time.perf_counter()
            result = answer_longform(Table.from_record(record), record["question"], settings=settings)
            rows.append((result, time.perf_counter() - t))
        wall = time.perf_counter() - started

    items = [i for r, _ in rows for i in r.plan]
    sources = Counter(i.source for i in items)
    calls = [r.usage.llm_calls for r, _ in rows]
    stage_calls = Counter()
    for r, _ in rows:
        for stage, usage in r.usage.by_stage.items():
            stage_calls[stage] += usage.calls
    runs = stage_calls["PROGRAM"] + stage_calls["DEBUG"]
    answered = [r for r, _ in rows if r.status == "answered"]
    seconds = [s for _, s in rows]
    n = len(rows)
    print(f"questions: {n} (qtsumm_dev, first {n}); answered {len(answered)}, failed {n - len(answered)}")
    print(f"plan items: {len(items)} ({len(items) / n:.2f} per question); sources: {dict(sources)}")
    print(f"program success rate: {sources['program'] / len(items):.3f} "
          f"(empty outputs: {sum(i.source == 'program' and i.answer is None for i in items)})")
    print(f"sandbox runs: {runs} ({runs / n:.2f} per question; DEBUG rounds {stage_calls['DEBUG']})")
    print(f"iterations: {Counter(r.iterations for r, _ in rows)}")
    print(f"LLM calls per question: mean {statistics.mean(calls):.2f}, median {statistics.median(calls)}, "
          f"max {max(calls)}; by stage {dict(sorted(stage_calls.items()))}")
    flagged = sum(bool(r.unsupported_numbers) for r in answered)
    print(f"answers with unsupported numbers (false alarms here): {flagged} of {len(answered)}; "
          "evidence cells per answer: "
          f"{statistics.mean(len(r.evidence) for r in answered) if answered else 0:.1f}")
    print(f"seconds per question: mean {statistics.mean(seconds):.2f}, "
          f"median {statistics.median(seconds):.2f}, max {max(seconds):.2f}; total {wall:.1f}")
    for r, _ in rows:
        if r.unsupported_numbers:
            print(f"  unsupported {r.unsupported_numbers} in: {r.answer[:160]}")


if __name__ == "__main__":
    main()
