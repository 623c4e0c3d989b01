"""Engine and LLM settings (pydantic-settings): environment variables with prefix `CELLTRACE_`, and `.env`.

The endpoint uses the standard OpenAI variables `OPENAI_API_KEY` and `OPENAI_BASE_URL`. The default
model is `CELLTRACE_MODEL`; each stage may override it with `CELLTRACE_MODEL_<STAGE>` (see `STAGES`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

STAGES: tuple[str, ...] = (
    "TRACE_INIT",
    "THOUGHT",
    "ACTION",
    "ANSWER",
    "PLAN",
    "PLAN_CHECK",
    "PROGRAM",
    "DEBUG",
    "SUB_ANSWER",
    "FINAL_ANSWER",
    "JUDGE",
)
"""Every LLM stage; a stage named here gets the field `model_<stage>` (env `CELLTRACE_MODEL_<STAGE>`)."""


class Settings(BaseSettings):
    """All knobs of the LLM client and the reasoning engine; defaults are documented per field."""

    model_config = SettingsConfigDict(
        env_prefix="CELLTRACE_",
        env_file=".env",
        extra="ignore",
        protected_namespaces=(),
        populate_by_name=True,
    )

    # ---- endpoint ------------------------------------------------------------------------------
    api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "CELLTRACE_API_KEY")
    )
    base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "CELLTRACE_BASE_URL")
    )
    model: str | None = None
    model_trace_init: str | None = None
    model_thought: str | None = None
    model_action: str | None = None
    model_answer: str | None = None
    model_plan: str | None = None
    model_plan_check: str | None = None
    model_program: str | None = None
    model_debug: str | None = None
    model_sub_answer: str | None = None
    model_final_answer: str | None = None
    model_judge: str | None = None

    # ---- sampling and transport ----------------------------------------------------------------
    temperature: float = 0.0
    seed: int | None = None
    max_completion_tokens: int = Field(default=1024, ge=16)
    stage_max_tokens: dict[str, int] = Field(
        default_factory=dict, description='per-stage max_tokens, JSON such as {"THOUGHT": 256}'
    )
    request_timeout: float = Field(default=60.0, gt=0, description="seconds per HTTP attempt (read)")
    stage_timeouts: dict[str, float] = Field(
        default_factory=dict, description='per-stage request timeout, JSON such as {"ANSWER": 120}'
    )
    connect_timeout: float = Field(
        default=5.0, gt=0, description="seconds to connect; a refused or timed-out connect is never retried"
    )
    max_retries: int = Field(
        default=3, ge=0, description="the openai SDK's retries on 408/409/429/5xx and dropped connections"
    )
    retry_timeouts: bool = Field(
        default=False, description="also retry a request that timed out (off: a slow server stays slow)"
    )
    structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = Field(
        default="auto",
        description="auto: json_schema, stepping down to json_object, then prompt-only on HTTP 400/422",
    )
    context_tokens: int | None = Field(
        default=None,
        ge=512,
        description="context window bounding prompt + max_tokens (default: the server's, else 16384)",
    )
    retry_max_wait: float = Field(
        default=8.0,
        ge=0,
        description="longest Retry-After waited for; a server asking for more fails the call at once "
        "(the SDK's own back-off: 0.5 s doubling, at most 8 s)",
    )
    max_reasks: int = Field(default=2, ge=0, description="re-asks with the validation error per stage")

    # ---- engine ----------------------------------------------------------------------------------
    max_steps: int = Field(
        default=6, ge=1, description="Thought/Action rounds before a forced answer (official code: 4+1)"
    )
    trace_init_k: int = Field(default=8, ge=1, description="at most this many initial trace nodes")
    context_token_budget: int = Field(
        default=6000, ge=200, description="table tokens allowed in a prompt; beyond it, an outline"
    )
    retrieval_pool: int = Field(
        default=24, ge=1, description="retriever hits intersected with the model's start cells"
    )
    dense_retrieval: bool = Field(default=True, description="embedding tier of node retrieval")
    max_list_lines: int = Field(
        default=60,
        ge=1,
        description="cap of neighbour/search/trace lists; a longer list keeps its first cells and its "
        "last quarter (60: on hitab_train oracle lookups 6 of 1,707 answer cells left out, 40: 25)",
    )
    offline_min_confidence: float = Field(
        default=0.82,
        ge=0,
        le=1,
        description="the offline engine abstains (best guess kept) below this calibrated confidence "
        "(0.82: answered precision 0.9 on hitab_train, out of fold)",
    )
    fast_path_confidence: float = Field(
        default=0.9,
        ge=0,
        le=1,
        description="auto mode returns the offline answer without calling the LLM at or above this "
        "calibrated confidence (0.9: precision 0.95 on hitab_train, out of fold)",
    )

    # ---- long-form (TaPERA) ----------------------------------------------------------------------
    longform_max_iterations: int = Field(
        default=3, ge=1, description="plan → execute → check rounds before the plan is used as is"
    )
    longform_debug_rounds: int = Field(
        default=3, ge=0, description="self-debug rounds per failing program"
    )
    longform_llm_fallback: bool = Field(
        default=False, description="answer a sub-question LLM-only (labelled) when its program fails"
    )
    sandbox_require: str = Field(
        default="restricted-python,audit-hook",
        description="comma-separated isolation layers a generated program must get, else it does not run"
        " (restricted-python, audit-hook, rlimits, landlock, seccomp, bwrap)",
    )

    concurrency: int = Field(
        default=16,
        ge=1,
        le=64,
        description="questions batch and eval answer at once with an LLM engine when --workers is not given",
    )

    raise_errors: bool = Field(
        default=False, description="re-raise unexpected exceptions instead of status failed (tests)"
    )

    @property
    def llm_configured(self) -> bool:
        """True when a model or an endpoint is configured."""
        return bool(self.model or self.base_url or any(self.model_for_stage(s) for s in STAGES))

    def model_for_stage(self, stage: str) -> str | None:
        """The stage override `CELLTRACE_MODEL_<STAGE>`, else None."""
        return getattr(self, f"model_{stage.lower()}")

    def max_tokens_for(self, stage: str) -> int:
        """`stage_max_tokens[stage]`, else `max_completion_tokens`."""
        return self.stage_max_tokens.get(stage, self.max_completion_tokens)

    def timeout_for(self, stage: str) -> float:
        """`stage_timeouts[stage]`, else `request_timeout`."""
        return self.stage_timeouts.get(stage, self.request_timeout)

    def model_for(self, stage: str) -> str:
        """The model a stage uses: its override, else `CELLTRACE_MODEL`, else "default"."""
        return self.model_for_stage(stage) or self.model or "default"
