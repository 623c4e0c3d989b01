"""`celltrace doctor`: print environment facts (no secrets) and exit 1 when something essential fails."""

from __future__ import annotations

import platform
import sys
import time
from typing import Annotated
from urllib.parse import urlsplit

import typer

from celltrace.server import __version__
from celltrace.server.commands.render import echo, echo_json, spinner
from celltrace.server.commands.serve_cmd import load_server_settings
from celltrace.server.infra.settings import Settings


def endpoint(base_url: str | None) -> str:
    """The LLM endpoint without credentials, query or fragment."""
    if not base_url:
        return "OpenAI default"
    parts = urlsplit(base_url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path}"


def _embedding() -> tuple[bool, str]:
    from celltrace.server.infra.embedding import MODEL_ID, get_embedder

    started = time.monotonic()
    try:
        dim = get_embedder().encode(["doctor"]).shape[1]
    except Exception as exc:
        return False, f"{MODEL_ID}: NOT loadable ({type(exc).__name__}: {exc})"
    return True, f"{MODEL_ID}: loadable (dim {dim}, {time.monotonic() - started:.1f} s)"


def doctor(
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the checks as one JSON object {check: value, ..., ok}.")
    ] = False,
) -> None:
    """Print version, Python, the LLM endpoint (model, context window, structured output: one
    `/v1/models` probe and a 1-token chat), models per stage, embedding model and sandbox isolation;
    exit 1 when the endpoint or the embedding model cannot be used."""
    from celltrace.server.api.runtime import available_engines, stage_models  # loads the web stack
    from celltrace.server.infra.sandbox import isolation_info

    engine = Settings()
    server = load_server_settings()
    facts: dict[str, str] = {
        "celltrace": __version__,
        "python": f"{platform.python_version()} ({platform.python_implementation()}) "
        f"on {platform.platform()}",
        "executable": sys.executable,
    }
    llm_ok = True
    if engine.llm_configured:
        from celltrace.server.infra.llm_check import check_endpoint

        facts["llm"] = f"configured, endpoint {endpoint(engine.base_url)}, api key {_set(engine.api_key)}"
        with spinner("Contacting the LLM endpoint …"):
            llm_ok, checked = check_endpoint(engine)
        for line in checked:  # "  model: …", "  context window: …", …
            check, _, value = line.strip().partition(": ")
            facts[f"llm {check}"] = value
        facts |= {f"model {stage}": model for stage, model in stage_models(engine).items()}
    else:
        facts["llm"] = "not configured (set CELLTRACE_MODEL and/or OPENAI_BASE_URL); auto uses offline"
    facts["engines"] = ", ".join(available_engines(engine))
    with spinner("Loading the embedding model …"):
        ok, embedding = _embedding() if engine.dense_retrieval else (True, "dense retrieval off (not loaded)")
    facts["embedding model"] = embedding
    isolation = isolation_info()
    facts["sandbox isolation"] = isolation
    required = [x.strip() for x in engine.sandbox_require.split(",") if x.strip()]
    missing = [x for x in required if x not in isolation]
    facts["sandbox required (CELLTRACE_SANDBOX_REQUIRE)"] = f"{', '.join(required) or 'nothing'}; " + (
        f"MISSING {', '.join(missing)}: generated programs will not run" if missing else "all present"
    )
    facts["server"] = (
        f"token {_set(server.token_value())}, "
        f"CORS origins {', '.join(server.cors_origins) or 'none'}, "
        f"body ≤ {server.max_body_bytes:,} B, ≤ {server.max_cells:,} cells, question ≤ "
        f"{server.max_question_chars:,} chars, deadline {server.request_deadline:g} s, "
        f"LLM in flight ≤ {server.max_llm_inflight}"
    )
    if json_out:
        echo_json({**facts, "ok": ok and llm_ok})
    else:
        for check, value in facts.items():
            echo(f"{check}: {value}")
    if not (ok and llm_ok):
        raise typer.Exit(1)


def _set(value: str | None) -> str:
    return "set" if value else "not set"
