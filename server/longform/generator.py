"""Answer generator (TaPERA §4.3, Figures 5-6): sentences from program output, never new reasoning.

The sub-answer prompt sees only the sub-question and the program output; the final prompt sees
only the question and the finalised plan's sub-question/sub-answer pairs (unanswered ones marked
as such), so every fact in the answer comes from a program, or from an LLM-fallback item that is
labelled as one. The opt-in fallback answers a sub-question from the table directly (stage
SUB_ANSWER, template `longform_fallback`).
"""

from __future__ import annotations

from collections.abc import Sequence

from celltrace.server.infra.llm import LLMClient, UsageMeter
from celltrace.server.infra.prompting import data_block, render
from celltrace.shared.schemas import PlanItem


def user_message(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


def _ask(llm: LLMClient, meter: UsageMeter, stage: str, prompt: str) -> str | None:
    return llm.complete(stage, [user_message(prompt)], meter).strip() or None


def sub_answer(llm: LLMClient, meter: UsageMeter, question: str, output: str) -> str | None:
    """One sentence answering `question` from the program `output` (Figure 5)."""
    answer = data_block("PROGRAM OUTPUT", [output])
    return _ask(llm, meter, "SUB_ANSWER", render("longform_sub_answer", question=question, answer=answer))


def fallback_answer(
    llm: LLMClient, meter: UsageMeter, question: str, table: str, context: str
) -> str | None:
    """An LLM-only sub-answer from the table (only when every program attempt failed)."""
    prompt = render("longform_fallback", question=question, table=table, context=context)
    return _ask(llm, meter, "SUB_ANSWER", prompt)


def qa_plan(items: Sequence[PlanItem]) -> str:
    """`Sub-Question i:` / `Sub-Answer i:` pairs of the finalised plan (Figure 6's QA-based plan)."""
    lines = []
    for i, item in enumerate(items, 1):
        lines += [f"Sub-Question {i}: {item.question}",
                  f"Sub-Answer {i}: {item.answer or '(not answered: the table gave no result)'}", ""]
    return "\n".join(lines).strip()


def final_answer(llm: LLMClient, meter: UsageMeter, question: str, items: Sequence[PlanItem]) -> str | None:
    """The long-form answer synthesised from the plan (Figure 6)."""
    prompt = render("longform_final_answer", question=question, plan=qa_plan(items))
    return _ask(llm, meter, "FINAL_ANSWER", prompt)
