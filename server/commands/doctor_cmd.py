"""`celltrace doctor`: print environment facts (no secrets) and exit 1 when something essential fails."""

from __future__ import annotations

import platform
import sys
import time
from urllib.parse import urlsplit

import typer

from celltrace.server import __version__
from celltrace.server.api.runtime import available_engines, stage_models
from celltrace.server.commands.serve_cmd import load_server_settings
from celltrace.server.settings import Settings


def endpoint(base_url: str | None) -> str:
    """The LLM endpoint without credentials, query or fragment."""
    if not base_url:
        return "OpenAI default"
    parts = urlsplit(base_url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path}"


def _embedding() -> tuple[bool, str]:
    from celltrace.server.embedding import MODEL_ID, get_embedder

    started = time.monotonic()
    try:
        dim = get_embedder().encode(["doctor"]).shape[1]
    except Exception as exc:
        return False, f"{MODEL_ID}: NOT loadable ({type(exc).__name__}: {exc})"
    return True, f"{MODEL_ID}: loadable (dim {dim}, {time.monotonic() - started:.1f} s)"


def doctor() -> None:
    """Print version, Python, the LLM endpoint (model, context window, structured output: one
    `/v1/models` probe and a 1-token chat), models per stage, embedding model and sandbox isolation;
    exit 1 when the endpoint or the embedding model cannot be used."""
    from celltrace.server.sandbox import isolation_info

    engine = Settings()
    server = load_server_settings()
    lines = [
        f"celltrace {__version__}",
        f"python {platform.python_version()} ({platform.python_implementation()}) on {platform.platform()}",
        f"executable {sys.executable}",
    ]
    llm_ok = True
    if engine.llm_configured:
        from celltrace.server.llm_check import check_endpoint

        lines.append(f"llm: configured, endpoint {endpoint(engine.base_url)}, api key {_set(engine.api_key)}")
        llm_ok, checked = check_endpoint(engine)
        lines += checked
        lines += [f"  model {stage}: {model}" for stage, model in stage_models(engine).items()]
    else:
        lines.append("llm: not configured (set CELLTRACE_MODEL and/or OPENAI_BASE_URL); auto uses offline")
    lines.append(f"engines: {', '.join(available_engines(engine))}")
    ok, embedding = _embedding() if engine.dense_retrieval else (True, "dense retrieval off (not loaded)")
    lines.append(f"embedding model: {embedding}")
    isolation = isolation_info()
    lines.append(f"sandbox isolation: {isolation}")
    required = [x.strip() for x in engine.sandbox_require.split(",") if x.strip()]
    missing = [x for x in required if x not in isolation]
    lines.append(
        f"sandbox required (CELLTRACE_SANDBOX_REQUIRE): {', '.join(required) or 'nothing'}; "
        + (f"MISSING {', '.join(missing)}: generated programs will not run" if missing else "all present")
    )
    lines.append(
        f"server: token {_set(server.token_value())}, "
        f"CORS origins {', '.join(server.cors_origins) or 'none'}, "
        f"body ≤ {server.max_body_bytes:,} B, ≤ {server.max_cells:,} cells, question ≤ "
        f"{server.max_question_chars:,} chars, deadline {server.request_deadline:g} s, "
        f"LLM in flight ≤ {server.max_llm_inflight}"
    )
    typer.echo("\n".join(lines))
    if not (ok and llm_ok):
        raise typer.Exit(1)


def _set(value: str | None) -> str:
    return "set" if value else "not set"
