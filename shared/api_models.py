"""Request and response models of the local HTTP API (`celltrace serve`), shared with the add-in.

Every error body is `ErrorBody`: `{"error": {"code": str, "message": str}}` (a timeout adds the
partial `steps`). Streaming routes send `step` events (`StepEvent`), then one `result` event with
the same body as the non-streaming route, or one `error` event with an `ErrorBody`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, StringConstraints, model_validator

from celltrace.shared.actions import Action, parse_target
from celltrace.shared.schemas import AskResult, Engine, LongformResult, Step, TablePayload, TraceCell
from celltrace.shared.table import TableError, check_grid

Question = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


def _cell_address(value: str) -> str:
    parse_target(value, default_sheet="table")  # ValueError (422) when it is no cell address
    return value


CellAddress = Annotated[str, AfterValidator(_cell_address)]
"""`K2` or `Sheet!K2`."""


def check_table(table: TablePayload) -> None:
    """Raise ValueError with a readable `table.<field>: ...` message when the grid is inconsistent
    (`check_grid`, the same validator as `Table`)."""
    try:
        check_grid(table.cells, table.values, table.merges, table.origin.address if table.origin else None)
    except TableError as exc:
        raise ValueError(str(exc)) from None


class TableRequest(BaseModel):
    table: TablePayload = Field(description="The table: its displayed grid, merged areas and origin.")
    detect: bool = Field(
        default=False,
        description="`table` is a sheet's used range: find the table block in it (captions above kept as "
        "its title, notes below and other tables left out); the result reports `region` and a warning",
    )
    active_cell: CellAddress | None = Field(
        default=None,
        description="with `detect`: the selected cell (`C7` or `Sheet!C7`); the block holding it is used",
    )

    @model_validator(mode="after")
    def _consistent_table(self) -> TableRequest:
        check_table(self.table)
        return self


class GraphRequest(TableRequest):
    """`POST /v1/graph`."""


class AskRequest(TableRequest):
    """`POST /v1/ask` and `POST /v1/ask/stream`."""

    question: Question = Field(
        description="The question about the table (at most the server's question limit).",
        examples=["What was cargo revenue in 2016?"],
    )
    engine: Engine = Field(
        default="auto",
        description="offline: no LLM; llm: graph reasoning with the configured model; auto: offline when "
        "it is sure, else the model (offline when none is configured).",
    )
    picture: bool = Field(default=False, description="also return the trace picture (SVG) as `picture`")
    answer_cell: CellAddress | None = Field(
        default=None,
        description="`Sheet!K2` or `K2` (on the table's sheet): the actions also write the answer there",
    )


class LongformRequest(TableRequest):
    """`POST /v1/longform` and `POST /v1/longform/stream`; `plan` (sub-questions) skips planning."""

    question: Question = Field(
        description="The question, answered in a paragraph.", examples=["How did revenue develop?"]
    )
    plan: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]] | None = Field(
        default=None,
        description="Sub-questions replacing the generated initial plan (optional).",
        examples=[["What was revenue in 2016?", "What was revenue in 2017?"]],
    )


class AskResponse(AskResult):
    """The `ask --json` shape plus the write-back actions the add-in applies."""

    actions: list[Action] = Field(
        default_factory=list, description="Write-back actions (fills, note, answer value, selection)."
    )
    picture: str | None = Field(
        default=None, description="the trace picture as an SVG document, when the request asked for it"
    )


class LongformResponse(LongformResult):
    """The `longform --json` shape plus the write-back actions the add-in applies."""

    actions: list[Action] = Field(
        default_factory=list, description="Write-back actions (fills, note, selection)."
    )


class StepEvent(BaseModel):
    """One streamed progress event: a sentence saying what the engine did, plus the partial trace."""

    index: int = Field(description="1-based step (or plan item) number")
    message: str = Field(description="What the engine did, in one sentence.")
    step: Step | None = Field(default=None, description="The step (graph engine).")
    detail: dict[str, Any] | None = Field(default=None, description="engine-specific step data")
    trace: list[TraceCell] = Field(default_factory=list, description="Cells visited so far.")


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable error code.", examples=["too_many_cells"])
    message: str = Field(description="One readable sentence.")


class ErrorBody(BaseModel):
    error: ErrorDetail = Field(description="What went wrong.")
    steps: list[StepEvent] | None = Field(default=None, description="steps done before a timeout")


class HealthResponse(BaseModel):
    """`GET /v1/health`: never contains secrets."""

    status: Literal["ok"] = Field(default="ok", description="Always ok when the server answers.")
    version: str = Field(description="celltrace version.", examples=["0.1.0"])
    engines: list[str] = Field(description="Engines available.", examples=[["offline", "llm"]])
    models: dict[str, str] = Field(description="Model per LLM stage.")
    sandbox: str = Field(description="Isolation of generated programs.")
