"""Settings: environment names, defaults, per-stage models."""

from __future__ import annotations

from pathlib import Path

import pytest

from celltrace.server.infra.settings import STAGES, Settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no .env from the checkout
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CELLTRACE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for stage in STAGES:
        monkeypatch.delenv(f"CELLTRACE_MODEL_{stage}", raising=False)


def test_defaults() -> None:
    s = Settings()
    assert (s.temperature, s.seed, s.max_steps, s.trace_init_k) == (0.0, None, 6, 8)
    assert (s.context_token_budget, s.fast_path_confidence) == (6000, 0.9)
    assert not s.llm_configured
    assert s.model_for("THOUGHT") == "default"


def test_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("CELLTRACE_MODEL", "base")
    monkeypatch.setenv("CELLTRACE_MODEL_JUDGE", "judge")
    monkeypatch.setenv("CELLTRACE_MAX_STEPS", "3")
    monkeypatch.setenv("CELLTRACE_SEED", "42")
    s = Settings()
    assert (s.base_url, s.api_key, s.max_steps, s.seed) == ("http://127.0.0.1:9/v1", "k", 3, 42)
    assert s.model_for("JUDGE") == "judge" and s.model_for("ANSWER") == "base"
    assert s.llm_configured


def test_dotenv(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("CELLTRACE_MODEL_ACTION=m2\nCELLTRACE_TEMPERATURE=0.3\n")
    s = Settings()
    assert s.model_for("ACTION") == "m2" and s.temperature == 0.3 and s.llm_configured


def test_every_stage_has_an_override_field() -> None:
    s = Settings(model="m")
    assert {stage: s.model_for(stage) for stage in STAGES} == dict.fromkeys(STAGES, "m")


def test_the_local_profile_of_env_example_loads(tmp_path: Path) -> None:
    """The documented local profile (uncommented) is what the settings read: long timeouts, one
    retry and no timeout retries, one question at a time."""
    from celltrace.server.infra.server_settings import ServerSettings

    text = (Path(__file__).parents[1] / ".env.example").read_text(encoding="utf-8")
    block = text.split("# ---- local profile")[1].split("\n# ----")[0]
    lines = [line[2:] for line in block.splitlines()[1:] if line.startswith("# CELLTRACE_")]
    (tmp_path / ".env").write_text("\n".join(lines) + "\n", encoding="utf-8")
    s, server = Settings(), ServerSettings()
    assert (s.request_timeout, s.connect_timeout, s.max_retries, s.retry_timeouts) == (300, 5, 1, False)
    assert s.max_tokens_for("THOUGHT") == 256 and s.timeout_for("ANSWER") == 600 and s.max_steps == 4
    assert s.concurrency == 1 and server.max_llm_inflight == 1
