"""Pydantic models at the boundaries: the TABLE payload, graph JSON and the `ask` result.

These shapes are public contracts (CLI `--json`, HTTP routes, add-in); change them only with care.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from celltrace.shared.table import Origin, Table

Status = Literal["answered", "abstained", "failed"]
EngineName = Literal["llm", "offline"]
"""The engine that answered."""
Engine = Literal["auto", "llm", "offline"]
"""The engine asked for: `auto` tries offline first and calls the model only when that is not confident."""
Role = Literal["answer", "header"]


class OriginModel(BaseModel):
    """Where the table sits in its workbook, so evidence comes back as real sheet addresses."""

    workbook: str | None = Field(
        default=None, description="Workbook file or name (informational).", examples=["financials.xlsx"]
    )
    sheet: str = Field(description="Worksheet name.", examples=["Income Statement"])
    address: str = Field(
        description="A1 range the table spans; cells[0][0] is its top-left cell.", examples=["A1:H28"]
    )


class TablePayload(BaseModel):
    """TABLE: the ../shared/data `table` schema plus raw values and origin."""

    model_config = ConfigDict(extra="ignore")

    cells: list[list[str]] = Field(
        description="The grid as displayed, row by row (all rows equally long); the covered cells of a "
        "merged area are empty strings and its top-left cell holds the text.",
        examples=[[["", "2017", "2016"], ["Revenue", "$1,200", "$1,100"]]],
    )
    values: list[list[Any]] | None = Field(
        default=None,
        description="Optional raw values with the same shape as `cells` (numbers as numbers, for "
        "arithmetic); default: parsed from `cells`.",
        examples=[[[None, 2017, 2016], ["Revenue", 1200, 1100]]],
    )
    merges: list[list[int]] = Field(
        default_factory=list,
        description="Merged areas as [first_row, first_col, last_row, last_col], 0-based indexes into "
        "`cells`, inclusive, non-overlapping; e.g. [0, 1, 0, 2] spans the first row's 2nd and 3rd cells.",
        examples=[[[0, 1, 0, 2]]],
    )
    title: str | None = Field(
        default=None, description="Caption of the table, used as context.", examples=["Income statement"]
    )
    origin: OriginModel | None = Field(
        default=None, description="Where the grid sits in a workbook (else addresses start at A1)."
    )

    def to_table(self) -> Table:
        origin = Origin(**self.origin.model_dump()) if self.origin else None
        return Table(
            text=[list(r) for r in self.cells],
            values=[list(r) for r in self.values] if self.values is not None else None,
            merges=[tuple(m) for m in self.merges],  # type: ignore[misc]
            title=self.title,
            origin=origin,
        )

    @classmethod
    def from_table(cls, table: Table) -> TablePayload:
        o = table.origin
        return cls(
            cells=table.text,
            values=table.values,
            merges=[list(m) for m in table.merges],
            title=table.title,
            origin=OriginModel(workbook=o.workbook, sheet=o.sheet, address=o.address) if o else None,
        )


class GraphNodeModel(BaseModel):
    id: int = Field(description="Node id (edges refer to it).", examples=[4])
    rows: list[int] = Field(description="0-based table rows the node spans.", examples=[[1]])
    cols: list[int] = Field(description="0-based table columns the node spans.", examples=[[1, 2]])
    address: str = Field(description="Sheet A1 address of the cell or merged area.", examples=["B2:C2"])
    text: str = Field(description="Displayed text.", examples=["$1,200"])
    value: Any = Field(default=None, description="Raw value (number, text or null).", examples=[1200])
    empty: bool = Field(description="True for an empty cell.", examples=[False])


class GraphEdgeModel(BaseModel):
    a: int = Field(description="Node id.", examples=[4])
    b: int = Field(description="Node id.", examples=[7])
    relation: Literal["same_row", "same_column"] = Field(description="What the two nodes share.")


class GraphResult(BaseModel):
    """`celltrace graph --json` and `POST /v1/graph`."""

    sheet: str = Field(description="Worksheet of the table.", examples=["Operations"])
    range: str = Field(description="A1 range of the table.", examples=["A1:H28"])
    nodes: list[GraphNodeModel] = Field(description="One node per cell or merged area.")
    edges: list[GraphEdgeModel] | None = Field(description="Edges, or null when over the requested maximum.")
    warnings: list[str] = Field(default_factory=list, description="Reader warnings about the range.")
    region: str | None = Field(
        default=None, description="sheet address of the table block used (`'Sheet'!A3:H28`)"
    )


class TraceCell(BaseModel):
    sheet: str = Field(description="Worksheet name.", examples=["Income Statement"])
    address: str = Field(description="A1 address of the cell or merged area.", examples=["D6"])
    rows: list[int] = Field(description="0-based table rows it spans.", examples=[[5]])
    cols: list[int] = Field(description="0-based table columns it spans.", examples=[[3]])
    text: str = Field(description="Displayed text.", examples=["700"])


class EvidenceCell(TraceCell):
    role: Role = Field(description="`answer`: holds the answer; `header`: a header qualifying it.")


class StepAction(BaseModel):
    name: str = Field(description="Graph action.", examples=["VisitNode"])
    args: list[Any] = Field(
        default_factory=list,
        description="Arguments; a node is [row, col, text] with 0-based table indexes.",
        examples=[[[5, 1, "Cargo"]]],
    )


class Step(BaseModel):
    thought: str = Field(default="", description="The engine's reasoning for this step.")
    actions: list[StepAction] = Field(default_factory=list, description="Actions taken in this step.")
    observations: list[str] = Field(default_factory=list, description="What each action returned.")


class StageUsage(BaseModel):
    calls: int = Field(default=0, description="LLM calls of this stage.")
    prompt_tokens: int = Field(default=0, description="Prompt tokens of this stage.")
    completion_tokens: int = Field(default=0, description="Completion tokens of this stage.")


class Usage(BaseModel):
    llm_calls: int = Field(default=0, description="LLM calls in total (0 for the offline engine).")
    prompt_tokens: int = Field(default=0, description="Prompt tokens in total.")
    completion_tokens: int = Field(default=0, description="Completion tokens in total.")
    by_stage: dict[str, StageUsage] = Field(default_factory=dict, description="The same per LLM stage.")


def confidence_text(confidence: float) -> str:
    """A confidence as shown to people: two decimals rounded down, so an answer under the abstain
    threshold never shows as reaching it (0.818 under 0.82 shows 0.81)."""
    return f"{math.floor(confidence * 100 + 1e-9) / 100:.2f}"


class AskResult(BaseModel):
    """`celltrace ask --json` (exact contract) and the body of `POST /v1/ask` (plus actions)."""

    question: str = Field(description="The question as answered.", examples=["What was revenue in 2016?"])
    status: Status = Field(description="answered, abstained (not sure) or failed (see `error`).")
    error: str | None = Field(default=None, description="Why it failed or abstained.")
    engine: EngineName = Field(description="The engine that answered.")
    answer: list[str] = Field(
        default_factory=list,
        description="The answer as the user reads it (source number format); an abstained result keeps "
        "its best guess here.",
        examples=[["700"]],
    )
    value: float | None = Field(
        default=None,
        description="The number answered, as Excel stores it (`3.8%` → 0.038…), when it is one number.",
        examples=[700.0],
    )
    unit: str | None = Field(
        default=None,
        description="The answer's unit (`%`, `$`, `$ millions`) from the number format or a caption.",
        examples=["$ millions"],
    )
    confidence: float | None = Field(
        default=None,
        description="The engine's confidence that the answer is right (0–1); None when it failed.",
        examples=[0.93],
    )
    evidence: list[EvidenceCell] = Field(
        default_factory=list, description="The answer cells and the headers that qualify them."
    )
    trace: list[TraceCell] = Field(default_factory=list, description="Every cell the engine visited.")
    steps: list[Step] = Field(default_factory=list, description="The reasoning steps, in order.")
    usage: Usage = Field(default_factory=Usage, description="LLM calls and tokens.")
    seconds: float = Field(default=0.0, description="Wall time of the answer.", examples=[0.12])
    error_code: str | None = Field(
        default=None,
        description="Machine-readable kind of a failure (`llm_unreachable`, `llm_timeout`, …).",
    )
    region: str | None = Field(
        default=None, description="sheet address of the table block answered from (`'Sheet'!A3:H28`)"
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="Caveats of the result: what the reader and the table detection noticed (a guessed "
        "table, uncached formulas, clipped ranges), `auto` answering offline because the model failed.",
    )


# ---- long-form answers (`celltrace longform --json`, eval rows, HTTP, SSE events) ----------------
Source = Literal["program", "llm_fallback", "error"]


class PlanItem(BaseModel):
    """One sub-question of the QA-based plan with its provenance.

    `source` says where `answer` comes from: a program run in the sandbox (`program_output` holds
    its JSON value; an empty result leaves `answer` null), the opt-in LLM fallback after every
    program failed (`llm_fallback`, not grounded in a program), or nothing (`error`).
    """

    question: str = Field(description="The sub-question.", examples=["What was cargo revenue in 2016?"])
    answer: str | None = Field(default=None, description="Its answer (null when there is none).")
    program: str | None = Field(default=None, description="The program that computed it (Python source).")
    program_output: Any = Field(default=None, description="The program's JSON result.")
    source: Source = Field(
        default="error",
        description="Where the answer comes from: program, llm_fallback (not grounded) or error (none).",
    )
    error: str | None = Field(default=None, description="Why no program answered.")


class LongformResult(BaseModel):
    """`celltrace longform --json` (exact contract) and the eval harness's long-form prediction."""

    question: str = Field(description="The question as answered.", examples=["How did revenue develop?"])
    status: Literal["answered", "failed"] = Field(description="answered, or failed (see `error`).")
    error: str | None = Field(default=None, description="Why it failed.")
    answer: str = Field(default="", description="The answer paragraph.")
    plan: list[PlanItem] = Field(default_factory=list, description="The sub-questions with their answers.")
    iterations: int = Field(default=0, description="Rounds of solving and plan checking run.")
    evidence: list[EvidenceCell] = Field(
        default_factory=list, description="Answer cells of the program-backed sub-answers and their headers."
    )
    unsupported_numbers: list[str] = Field(
        default_factory=list, description="Numbers in the paragraph that no sub-answer or cell supports."
    )
    usage: Usage = Field(default_factory=Usage, description="LLM calls and tokens.")
    seconds: float = Field(default=0.0, description="Wall time of the answer.")
    error_code: str | None = Field(
        default=None, description="Machine-readable kind of an LLM failure (`llm_unreachable`, …)."
    )


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
