"""Public shapes of a long-form answer (`celltrace longform --json`, eval rows, HTTP, SSE events)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from celltrace.shared.schemas import EvidenceCell, Usage

Source = Literal["program", "llm_fallback", "error"]


class PlanItem(BaseModel):
    """One sub-question of the QA-based plan with its provenance.

    `source` says where `answer` comes from: a program run in the sandbox (`program_output` holds
    its JSON value; an empty result leaves `answer` null), the opt-in LLM fallback after every
    program failed (`llm_fallback`, not grounded in a program), or nothing (`error`).
    """

    question: str
    answer: str | None = None
    program: str | None = None
    program_output: Any = None
    source: Source = "error"
    error: str | None = None


class LongformResult(BaseModel):
    """`celltrace longform --json` (exact contract) and the eval harness's long-form prediction."""

    question: str
    status: Literal["answered", "failed"]
    error: str | None = None
    answer: str = ""
    plan: list[PlanItem] = Field(default_factory=list)
    iterations: int = 0
    evidence: list[EvidenceCell] = Field(default_factory=list)
    unsupported_numbers: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0
    error_code: str | None = None


class LongformStep(BaseModel):
    """A progress event for `on_step` (SSE): the initial plan, one executed item, or a plan check.

    `kind="plan"`: `plan` is the plan about to run. `kind="item"`: `index` and `item` are the plan
    item just executed. `kind="check"`: `finalized`, `reasoning` and the (possibly revised) `plan`.
    """

    kind: Literal["plan", "item", "check"]
    iteration: int
    plan: list[str] = Field(default_factory=list)
    index: int | None = None
    item: PlanItem | None = None
    finalized: bool | None = None
    reasoning: str | None = None
