"""HTTP server settings (pydantic-settings): environment variables with prefix `CELLTRACE_`, and `.env`.

Engine and LLM knobs live in `celltrace.server.infra.settings.Settings`; these only shape the local server.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class ServerSettings(BaseSettings):
    """Auth, limits, concurrency and CORS of `celltrace serve`; defaults are documented per field."""

    model_config = SettingsConfigDict(env_prefix="CELLTRACE_", env_file=".env", extra="ignore")

    token: SecretStr | None = Field(
        default=None, description="bearer token required on every /v1 route except health (unset: no auth)"
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["localhost", "127.0.0.1", "::1"],
        description="Host header names served, comma-separated (the bound address always; * = any); else 421",
    )
    header_timeout: float = Field(
        default=10.0, gt=0, description="seconds to receive a request's headers (else the connection closes)"
    )
    body_timeout: float = Field(default=30.0, gt=0, description="seconds to receive a request body (408)")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="allowed browser origins, comma-separated (empty: CORS off)"
    )
    max_body_bytes: int = Field(default=20_000_000, ge=1, description="request body limit (413)")
    max_cells: int = Field(default=250_000, ge=1, description="cells per table (413)")
    max_question_chars: int = Field(default=2_000, ge=1, description="question length (422)")
    request_deadline: float = Field(
        default=300.0,
        gt=0,
        description="seconds one question may take before 504 (engine stopped at next step)",
    )
    max_llm_inflight: int = Field(
        default=64, ge=1, description="LLM questions in flight at once; more wait in the queue"
    )
    max_queued: int = Field(
        default=256,
        ge=0,
        description="questions waiting for a slot (per kind); beyond it 429 with Retry-After",
    )
    retry_after: int = Field(default=5, ge=0, description="Retry-After seconds on 429")
    engine_threads: int = Field(
        default=4, ge=1, description="offline questions and graphs in flight at once; more wait in the queue"
    )
    engine_processes: int | None = Field(
        default=None,
        ge=0,
        description="worker processes running the engines (default: one per core; 0: threads of the "
        "HTTP process, as for tests with fake engines)",
    )
    graph_cache_size: int = Field(default=32, ge=0, description="LRU size of /v1/graph results")
    graph_max_edges: int = Field(default=100_000, ge=0, description="/v1/graph lists edges up to this many")
    preload: bool = Field(
        default=True, description="load the embedding model and probe the sandbox at start-up"
    )

    @field_validator("cors_origins", "allowed_hosts", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [o.strip() for o in value.split(",") if o.strip()]
        return value

    def token_value(self) -> str | None:
        """The configured bearer token ("" counts as unset)."""
        value = self.token.get_secret_value() if self.token else ""
        return value or None
