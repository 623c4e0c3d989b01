"""The policy seam: what a reasoning policy (LLM or offline) must provide to the step loop."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

from celltrace.shared.schemas import EngineName, StepAction

if TYPE_CHECKING:
    from celltrace.server.engine.state import ReasoningState


class Decision(BaseModel):
    """One Thought → Action round: free-text thought plus the actions to execute on the graph."""

    thought: str
    actions: list[StepAction]


class FinalAnswer(BaseModel):
    """The answer stage's result; node ids refer to `state.graph`."""

    status: Literal["answered", "abstained", "failed"]
    answer: list[str]
    answer_nodes: list[int]
    header_nodes: list[int]
    explanation: str = ""
    error: str | None = None
    error_code: str | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    value: float | None = None
    """The engine's own number for a computed answer (Excel terms); None: read from the answer."""
    same_unit: bool = True
    """A computed value keeps its inputs' unit (a sum does; a ratio or a share does not)."""
    difference: bool = False
    """A computed value is one input minus another: a difference of percentages is in points."""
    shadowed: int | None = None
    """A cell the question names better than the answer's, showing no figure (`..`, `x`, `:`)."""


class Policy(Protocol):
    """Drives the loop: `start` picks the initial trace, `step` decides, `answer` concludes."""

    engine: EngineName

    def start(self, state: ReasoningState) -> list[int]:
        """Initial trace node ids (ordered, at most `settings.trace_init_k`)."""
        ...

    def step(self, state: ReasoningState) -> Decision:
        """The next thought and actions; an `AnswerQuestion` action ends the loop."""
        ...

    def answer(self, state: ReasoningState) -> FinalAnswer:
        """The final answer from the state (also called at the step limit: forced answer)."""
        ...
