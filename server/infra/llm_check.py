"""`doctor`'s endpoint check: one `/v1/models` probe and one 1-token chat with a JSON schema."""

from __future__ import annotations

import httpx
import openai

from celltrace.server.infra.llm import shared_client
from celltrace.server.infra.llm_probe import DEFAULT_CONTEXT, probe
from celltrace.server.infra.settings import Settings

_PING_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}


def check_endpoint(settings: Settings) -> tuple[bool, list[str]]:
    """(usable, report lines): model, context size, structured-output support of the endpoint."""
    info = probe(settings)
    if not info.reachable:
        return False, [f"  endpoint: NOT reachable ({info.detail})"]
    model = settings.model_for("ANSWER")
    served = f" (served: {', '.join(info.models[:5])})" if info.models else ""
    if settings.context_tokens is not None:
        context = f"{settings.context_tokens} (CELLTRACE_CONTEXT_TOKENS)"
    elif info.server_context is not None:
        context = f"{info.server_context} (reported by the server)"
    else:
        context = f"{DEFAULT_CONTEXT} (assumed; set CELLTRACE_CONTEXT_TOKENS)"
    lines = [f"  model: {model}{served}", f"  context window: {context}"]
    lines.append(f"  tokenizer: {'server /tokenize' if info.tokenize_url else 'estimate, 2 chars a token'}")
    ok, support = _ping(settings, model)
    lines.append(f"  structured output: {support}")
    return ok, lines


def _ping(settings: Settings, model: str) -> tuple[bool, str]:
    """One 1-token chat asking for `json_schema` output: (usable, what the endpoint supports)."""
    try:
        shared_client(settings).chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": 'Reply {"ok": true}'}],
            max_tokens=1,
            temperature=0,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "ping", "schema": _PING_SCHEMA, "strict": True},
            },
            timeout=httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout),
        )
    except openai.APIStatusError as exc:
        if exc.status_code in (400, 422):
            return True, f"json_schema rejected (HTTP {exc.status_code}); json_object/prompt-only fallback"
        return False, f"NOT usable: HTTP {exc.status_code} ({' '.join(exc.message.split())[:160]})"
    except openai.APITimeoutError:
        return False, f"NOT usable: no reply within {settings.request_timeout:g} s"
    except openai.APIError as exc:
        return False, f"NOT usable: {type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
    mode = settings.structured_output
    return True, "json_schema supported" + (f" (forced mode: {mode})" if mode != "auto" else "")
