"""Pydantic models at the boundaries: the TABLE payload, graph JSON and the `ask` result.

These shapes are public contracts (CLI `--json`, HTTP routes, add-in); change them only with care.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from celltrace.shared.table import Origin, Table

Status = Literal["answered", "abstained", "failed"]
Role = Literal["answer", "header"]


class OriginModel(BaseModel):
    workbook: str | None = None
    sheet: str
    address: str


class TablePayload(BaseModel):
    """TABLE: the ../shared/data `table` schema plus raw values and origin."""

    model_config = ConfigDict(extra="ignore")

    cells: list[list[str]]
    values: list[list[Any]] | None = None
    merges: list[list[int]] = Field(default_factory=list)
    title: str | None = None
    origin: OriginModel | None = None

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
    id: int
    rows: list[int]
    cols: list[int]
    address: str
    text: str
    value: Any = None
    empty: bool


class GraphEdgeModel(BaseModel):
    a: int
    b: int
    relation: Literal["same_row", "same_column"]


class GraphResult(BaseModel):
    """`celltrace graph --json` and `POST /v1/graph`."""

    sheet: str
    range: str
    nodes: list[GraphNodeModel]
    edges: list[GraphEdgeModel] | None
    warnings: list[str] = Field(default_factory=list)
    region: str | None = Field(
        default=None, description="sheet address of the table block used (`'Sheet'!A3:H28`)"
    )


class TraceCell(BaseModel):
    sheet: str
    address: str
    rows: list[int]
    cols: list[int]
    text: str


class EvidenceCell(TraceCell):
    role: Role


class StepAction(BaseModel):
    name: str
    args: list[Any] = Field(default_factory=list)


class Step(BaseModel):
    thought: str = ""
    actions: list[StepAction] = Field(default_factory=list)
    observations: list[str] = Field(default_factory=list)


class StageUsage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Usage(BaseModel):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    by_stage: dict[str, StageUsage] = Field(default_factory=dict)


class AskResult(BaseModel):
    """`celltrace ask --json` (exact contract) and the body of `POST /v1/ask` (plus actions)."""

    question: str
    status: Status
    error: str | None = None
    engine: Literal["llm", "offline"]
    answer: list[str] = Field(default_factory=list)
    """The answer as the user reads it (source number format); an abstained result keeps its best
    guess here."""
    value: float | None = None
    """The number answered, as Excel stores it (`3.8%` → 0.038…), when the answer is one number."""
    unit: str | None = None
    """The answer's unit (`%`, `$`, `$ millions`) from the number format or a caption, when known."""
    confidence: float | None = None
    """The engine's confidence that the answer is right (0–1); None when it failed."""
    evidence: list[EvidenceCell] = Field(default_factory=list)
    trace: list[TraceCell] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0
    error_code: str | None = None
    """Machine-readable kind of an LLM failure (`llm_unreachable`, `llm_timeout`, `llm_error`, ...)."""
    region: str | None = Field(
        default=None, description="sheet address of the table block answered from (`'Sheet'!A3:H28`)"
    )
    warnings: list[str] = Field(default_factory=list)
    """Caveats of the result: what the reader and the table detection noticed (a guessed table,
    uncached formulas, clipped ranges), `auto` answering offline because the model failed."""
