"""QA-based content planner (TaPERA §4.1, Figure 3): decompose, then check and refine with sub-answers.

`parse_plan` turns a numbered-list reply into sub-questions: numbering and bullets are stripped
(`1.`, `1)`, `(1)`, `Q1:`, `Sub-question 1:`, `Step 1 -`, `-`, `*`), header lines are dropped (a
line ending in `:` or a short `label: value` line such as `Distinct facts: 2`), an unnumbered line
that does not end a sentence continues the previous item, and a one-line reply is split only at
numbers that count up from 1 (`in 2.5 hours? 2. How ...` keeps the decimal).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, field_validator, model_validator

from celltrace.server.infra.llm import LLMClient, UsageMeter
from celltrace.server.infra.prompting import render
from celltrace.server.longform.generator import user_message
from celltrace.shared.errors import UserError
from celltrace.shared.graph import normalise_text

MAX_SUBQUESTIONS = 8
_MARKER = re.compile(
    r"^(?:[-*•]\s+|\(?\d{1,2}[.):](?=\s|$)\s*|(?:sub-?questions?|questions?|step|q)\s*\d{1,2}\s*[:.)-]\s*)",
    re.IGNORECASE,
)
_LABEL_LINE = re.compile(r"^[^?]{1,40}:\s*\S{0,12}$")
_INLINE_NUMBER = re.compile(r"(?:(?<=\s)|^)(\d{1,2})[.)]\s+")


def normalise_question(text: str) -> str:
    """The key under which a sub-question counts as unchanged (case, spacing, end punctuation)."""
    return normalise_text(text).rstrip(" ?.!")


def _clean(line: str) -> str:
    return " ".join(line.replace("**", "").split()).strip(" \"'`")


def parse_plan(text: str) -> list[str]:
    """Sub-questions of a numbered-list reply (rules in the module docstring), de-duplicated."""
    items: list[str] = []
    for raw in text.splitlines():
        line = _clean(raw)
        if not line or line.startswith(("```", "#")):
            continue
        body, marked = _unmark(line)
        if not body or body.endswith(":") or (_LABEL_LINE.match(body) and not body.endswith("?")):
            continue
        if marked or not items or items[-1].endswith(("?", ".", "!")):
            items.append(body)
        else:
            items[-1] = f"{items[-1]} {body}"
    if len(items) == 1:
        items = _split_inline(items[0])
    return distinct(items)[:MAX_SUBQUESTIONS]


def distinct(questions: Sequence[str]) -> list[str]:
    """Sub-questions without repeats (by `normalise_question`), first occurrence kept."""
    out: list[str] = []
    seen: set[str] = set()
    for q in questions:
        key = normalise_question(q)
        if key and key not in seen:
            seen.add(key)
            out.append(q)
    return out


def _split_inline(line: str) -> list[str]:
    """Split `A? 2. B? 3. C?` at numbers counting up (from 1, or 2 when the line starts unnumbered)."""
    cuts: list[tuple[int, int]] = []
    expected = 2
    for m in _INLINE_NUMBER.finditer(line):
        n = int(m.group(1))
        if m.start() == 0 and n == 1:
            cuts.append((m.start(), m.end()))
        elif n == expected:
            cuts.append((m.start(), m.end()))
            expected += 1
    if sum(1 for start, _ in cuts if start > 0) == 0:
        return [line]
    pieces, pos = [], 0
    for start, end in cuts:
        pieces.append(line[pos:start])
        pos = end
    pieces.append(line[pos:])
    return [p for p in (_clean(p) for p in pieces) if p]


def user_plan(data: Any) -> list[str]:
    """A user-edited plan: a JSON list of sub-question strings, the `plan` array of an earlier
    `--json` output (objects with `question`), or that whole output. UserError when malformed."""
    if isinstance(data, dict) and "plan" in data:
        data = data["plan"]
    if not isinstance(data, list) or not data:
        raise UserError("the plan must be a non-empty JSON list of sub-questions")
    out: list[str] = []
    for entry in data:
        text = entry.get("question") if isinstance(entry, dict) else entry
        if not isinstance(text, str) or not text.strip():
            raise UserError(f"plan entry {json.dumps(entry)[:80]} is not a sub-question string")
        out.append(" ".join(text.split()))
    out = distinct(out)
    if len(out) > MAX_SUBQUESTIONS:
        raise UserError(f"the plan has {len(out)} sub-questions; at most {MAX_SUBQUESTIONS} are allowed")
    return out


class PlanCheck(BaseModel):
    """The PLAN_CHECK reply: chain-of-thought `reasoning`, then finalised or a revised plan."""

    reasoning: str = ""
    finalized: bool
    plan: list[str] = []

    @field_validator("plan")
    @classmethod
    def _items(cls, plan: list[str]) -> list[str]:
        return distinct([_strip_marker(q) for q in plan])[:MAX_SUBQUESTIONS]

    @model_validator(mode="after")
    def _revised_needs_plan(self) -> PlanCheck:
        if not self.finalized and not self.plan:
            raise ValueError("a plan that is not finalized needs the revised `plan` (sub-questions)")
        return self


def _unmark(line: str) -> tuple[str, bool]:
    """`line` without its list markers (`- 2.`, `* Q2:`), and whether it had one."""
    marked = False
    while m := _MARKER.match(line):
        line, marked = _clean(line[m.end():]), True
    return line, marked


def _strip_marker(text: str) -> str:
    return _unmark(_clean(text))[0]


def make_plan(llm: LLMClient, meter: UsageMeter, question: str, schema: str) -> list[str]:
    """Initial plan P0 (Figure 3); the question itself when the reply holds no sub-question."""
    prompt = render("longform_plan", question=question, table=schema)
    reply = llm.complete("PLAN", [user_message(prompt)], meter)
    return parse_plan(reply) or [question]


def plan_lines(items: Sequence[tuple[str, str | None, str | None]]) -> str:
    """`Sub-Question i` / `Sub-Answer i` lines; a missing answer says why (nothing found, or the error)."""
    lines = []
    for i, (question, answer, error) in enumerate(items, 1):
        lines.append(f"Sub-Question {i}: {question}")
        if answer:
            shown = answer
        elif error:
            shown = f"(no answer: the program failed: {error})"
        else:
            shown = "(no answer: the program found nothing in the table)"
        lines.append(f"Sub-Answer {i}: {shown}")
    return "\n".join(lines)


def check_plan(
    llm: LLMClient,
    meter: UsageMeter,
    question: str,
    schema: str,
    items: Sequence[tuple[str, str | None, str | None]],
) -> PlanCheck:
    """Finalise the plan or revise it, seeing every sub-answer (including empty and failed ones)."""
    prompt = render("longform_plan_check", question=question, table=schema, plan=plan_lines(items))
    return llm.complete_model("PLAN_CHECK", [user_message(prompt)], PlanCheck, meter)
