"""What an endpoint tells about itself: models, context window, tokenizer (probed once per process).

Probed only for a configured `base_url` (local and self-hosted servers): `GET /v1/models` (vLLM's
`max_model_len`, llama.cpp's `meta.n_ctx_train`), then llama.cpp's `GET /props`
(`default_generation_settings.n_ctx`, the window the server really runs) and `POST /tokenize`.
The context window is `Settings.context_tokens` when set, else the server's, else `DEFAULT_CONTEXT`.
A failed probe is not cached (the next call probes again) and never raises.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from celltrace.server.infra.settings import Settings
from celltrace.server.infra.tokens import estimate_tokens

if TYPE_CHECKING:  # imported where a request is made: the offline engine never loads it
    import httpx

log = logging.getLogger(__name__)
DEFAULT_CONTEXT = 16384
"""Context window assumed when neither the settings nor the server give one."""


@dataclass(frozen=True)
class EndpointInfo:
    """Facts about one endpoint; `reachable` is False when the probe could not connect."""

    models: list[str] = field(default_factory=list)
    server_context: int | None = None
    tokenize_url: str | None = None
    reachable: bool = True
    detail: str = ""


_lock = threading.Lock()
_cache: dict[tuple[str | None, str | None], EndpointInfo] = {}


def endpoint_info(settings: Settings) -> EndpointInfo:
    """The probed facts of the settings' endpoint (cached when the probe reached it)."""
    key = (settings.base_url, settings.api_key)
    with _lock:
        info = _cache.get(key)
    if info is None:
        info = probe(settings)
        if info.reachable:
            with _lock:
                _cache[key] = info
    return info


def context_tokens(settings: Settings) -> int:
    """The context window bounding prompt + max_tokens (see the module docstring)."""
    if settings.context_tokens is not None:
        return settings.context_tokens
    return endpoint_info(settings).server_context or DEFAULT_CONTEXT


def count_tokens(settings: Settings, text: str) -> int:
    """Tokens of `text` by the server's tokenizer when it offers one, else the pessimistic estimate."""
    url = endpoint_info(settings).tokenize_url
    if url is not None:
        import httpx

        try:
            reply = httpx.post(url, json={"content": text}, timeout=settings.connect_timeout * 2)
            tokens = reply.json().get("tokens") if reply.status_code == 200 else None
            if isinstance(tokens, list):
                return len(tokens)
        except (httpx.HTTPError, ValueError) as exc:
            log.debug("tokenize failed (%s); estimating", exc)
    return estimate_tokens(text)


def probe(settings: Settings) -> EndpointInfo:
    """Ask the endpoint about itself (nothing is asked of the default OpenAI endpoint)."""
    if not settings.base_url:
        return EndpointInfo(detail="OpenAI default endpoint (not probed)")
    import httpx

    base = settings.base_url.rstrip("/")
    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    timeout = httpx.Timeout(settings.connect_timeout * 2, connect=settings.connect_timeout)
    try:
        with httpx.Client(headers=headers, timeout=timeout) as http:
            models = _get(http, f"{base}/models")
            root = base[: -len("/v1")] if base.endswith("/v1") else base
            props = _get(http, f"{root}/props")
            tokenize = None
            if props is not None:
                reply = http.post(f"{root}/tokenize", json={"content": "1"})
                if reply.status_code == 200 and isinstance(reply.json().get("tokens"), list):
                    tokenize = f"{root}/tokenize"
    except httpx.TransportError as exc:
        return EndpointInfo(reachable=False, detail=f"{type(exc).__name__}: {exc}")
    except ValueError as exc:
        return EndpointInfo(detail=f"unreadable reply: {exc}")
    data = (models or {}).get("data") or []
    ids = [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]
    return EndpointInfo(ids, _server_context(data, props), tokenize)


def _get(http: httpx.Client, url: str) -> dict[str, Any] | None:
    reply = http.get(url)
    if reply.status_code != 200:
        return None
    body = reply.json()
    return body if isinstance(body, dict) else None


def _server_context(models: list[Any], props: dict[str, Any] | None) -> int | None:
    if props is not None:
        settings = props.get("default_generation_settings") or {}
        for value in (settings.get("n_ctx"), props.get("n_ctx")):
            if isinstance(value, int) and value > 0:
                return value
    for model in models:
        if not isinstance(model, dict):
            continue
        meta = model.get("meta") or {}
        for value in (model.get("max_model_len"), meta.get("n_ctx"), meta.get("n_ctx_train")):
            if isinstance(value, int) and value > 0:
                return value
    return None
