"""Host-header allow-list, checked first: a DNS-rebinding page (`Host: evil.example`) is not served.

A request is served when its `Host` names an allowed host (`CELLTRACE_ALLOWED_HOSTS`, default the
loopback names; `*` allows any) or the address the connection came in on, and, when it carries a
port, that port is the server's. Anything else gets 421 `misdirected_request` (400 when the
header is missing or malformed).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from celltrace.server.api.errors import error_response


def split_host(value: str) -> tuple[str, int | None] | None:
    """(host, port) of a Host header value (`[::1]:8765`, `localhost`); None when malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        host, sep, rest = value[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:]
    elif value.count(":") > 1:
        return None
    else:
        host, _, port_text = value.partition(":")
    if not host:
        return None
    if not port_text:
        return host, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None
    return host, int(port_text)


class HostAllowListMiddleware:
    """421/400 for HTTP requests whose Host header is not allowed (rules in the module docstring)."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        self.app = app
        self.any_host = "*" in allowed_hosts
        self.allowed = frozenset(h.strip().lower().strip("[]") for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.any_host:
            await self.app(scope, receive, send)
            return
        values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"]
        parsed = split_host(values[0]) if len(values) == 1 else None
        if parsed is None:
            await error_response(400, "bad_host", "missing or malformed Host header")(scope, receive, send)
            return
        host, port = parsed
        server_host, server_port = (scope.get("server") or (None, None))[:2]
        names_us = host in self.allowed or (server_host is not None and host == str(server_host).lower())
        if names_us and (port is None or server_port is None or port == server_port):
            await self.app(scope, receive, send)
            return
        message = f"this server does not answer for host {host!r} (allowed: CELLTRACE_ALLOWED_HOSTS)"
        await error_response(421, "misdirected_request", message)(scope, receive, send)
