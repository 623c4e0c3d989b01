"""The HTTP transport under the openai SDK's own retries: per-attempt accounting, cancellation and
the failures that must not be retried.

The SDK retries (`max_retries`) 408/409/429/5xx, dropped connections and timeouts, with its own
back-off (0.5 s doubling, at most 8 s) or the server's Retry-After. Exceptions raised by a custom
transport are application exceptions, which the SDK propagates unchanged without retrying (its
documented contract); this transport uses that for what must fail at once: a refused connection
or a connect timeout (`LLMUnreachable`), and a read timeout unless `retry_timeouts` (`LLMTimeout`:
a slow server stays slow). A Retry-After longer than `retry_max_wait` is not waited for: the
response gets `x-should-retry: false` and fails as it is. Every attempt is counted in the
`Attempts` of the call in progress (a context variable: the SDK sends in the calling thread).
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import httpx

from celltrace.server.infra import cancel
from celltrace.server.infra.llm_errors import LLMTimeout, LLMUnreachable


@dataclass
class Attempts:
    """The HTTP attempts of one SDK call: its retry policy in; the count, failed attempts' seconds
    and the last attempt's start out."""

    retry_timeouts: bool
    max_wait: float
    count: int = 0
    failed: list[float] = field(default_factory=list)
    started: float = 0.0


_CURRENT: ContextVar[Attempts | None] = ContextVar("celltrace_llm_attempts", default=None)


@contextmanager
def counting(attempts: Attempts) -> Iterator[Attempts]:
    """Count the HTTP attempts made in the body (one SDK call and its retries) in `attempts`."""
    token = _CURRENT.set(attempts)
    try:
        yield attempts
    finally:
        _CURRENT.reset(token)


class Transport(httpx.BaseTransport):
    """`httpx.HTTPTransport` (with the environment's proxy for `base_url`) behind the rules above."""

    def __init__(self, base_url: str | None) -> None:
        # A client given a transport ignores HTTP(S)_PROXY, so the proxy is looked up here.
        self._inner = httpx.HTTPTransport(proxy=_env_proxy(base_url))

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        cancel.check()  # a cancelled job stops before its next attempt
        attempts = _CURRENT.get() or Attempts(retry_timeouts=True, max_wait=float("inf"))
        attempts.count += 1
        attempts.started = started = time.monotonic()
        try:
            response = self._inner.handle_request(request)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            attempts.failed.append(time.monotonic() - started)
            raise LLMUnreachable(f"connection error: {type(exc).__name__}: {exc}") from exc
        except httpx.TimeoutException as exc:
            attempts.failed.append(time.monotonic() - started)
            if not attempts.retry_timeouts:
                read = (request.extensions.get("timeout") or {}).get("read")
                raise LLMTimeout(f"timed out after {read:g}s" if read else "timed out") from exc
            raise
        except httpx.TransportError:
            attempts.failed.append(time.monotonic() - started)
            raise
        if response.status_code >= 400:
            attempts.failed.append(time.monotonic() - started)
            wait = retry_after(response.headers)
            if wait is not None and wait > attempts.max_wait:
                response.headers["x-should-retry"] = "false"
        return response

    def close(self) -> None:
        self._inner.close()


def retry_after(headers: httpx.Headers) -> float | None:
    """The server's Retry-After in seconds (`retry-after-ms` first), else None."""
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is not None:
            try:
                return max(float(value) * scale, 0.0)
            except ValueError:
                continue
    return None


def _env_proxy(base_url: str | None) -> str | None:
    """The HTTP(S)_PROXY for `base_url` (None when unset or NO_PROXY covers its host)."""
    url = httpx.URL(base_url or "https://api.openai.com/v1")
    if urllib.request.proxy_bypass(url.host):
        return None
    return urllib.request.getproxies().get(url.scheme)
