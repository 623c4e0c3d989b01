"""`celltrace serve`: run the local HTTP API (FastAPI on uvicorn) for the Excel add-in."""

from __future__ import annotations

import atexit
import ipaddress
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from celltrace.server.infra.server_settings import ServerSettings
from celltrace.shared.errors import UserError

APP_FACTORY = "celltrace.server.app:create_app"
GRACEFUL_SHUTDOWN_S = 5


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def load_server_settings() -> ServerSettings:
    """The server settings from the environment; a bad value is a user error."""
    try:
        return ServerSettings()
    except ValidationError as exc:
        problems = "; ".join(
            f"CELLTRACE_{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in exc.errors()
        )
        raise UserError(f"invalid server settings: {problems}") from None


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    """After uvicorn's graceful shutdown: exit 0 at once. Engine threads still waiting on an LLM
    reply were cancelled (their requests got a 503) and must not hold the process until it comes.
    The exit handlers run first (`os._exit` skips them): they stop the sandbox's warm zygotes and
    remove their work folders and multiprocessing's temporary folder."""
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def serve(
    host: Annotated[
        str, typer.Option(help="Address to bind; anything but loopback requires CELLTRACE_TOKEN.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8765,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    https: Annotated[
        bool,
        typer.Option(
            "--https",
            help="Serve HTTPS with a local certificate (created once, then reused), as Office add-ins "
            "require; prints how to trust it.",
        ),
    ] = False,
    cert_dir: Annotated[
        Path | None,
        typer.Option("--cert-dir", help="Where the local certificate lives (default ~/.celltrace/tls)."),
    ] = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json, docs at /docs) and the Office.js task pane
    (/addin/) until SIGTERM or Ctrl+C."""
    settings = load_server_settings()
    if not is_loopback(host) and settings.token_value() is None:
        raise UserError(
            f"refusing to listen on {host}: a non-loopback address requires CELLTRACE_TOKEN "
            "(clients then send 'Authorization: Bearer <token>'); or bind 127.0.0.1"
        )
    import uvicorn

    tls: dict[str, str] = {}
    if https:
        from celltrace.server.infra.tls import DEFAULT_DIR, ensure_certificate, trust_instructions

        local = ensure_certificate(cert_dir or DEFAULT_DIR)
        tls = {"ssl_certfile": str(local.cert), "ssl_keyfile": str(local.key)}
        origin = f"https://{'localhost' if is_loopback(host) else host}:{port}"
        state = "created now" if local.created else "reused"
        lines = [f"HTTPS: {local.cert}, signed by the local CA {local.ca} ({state})"]
        lines += trust_instructions(local.ca)
        lines.append(
            f"Task pane manifest: {origin}/addin/manifest.xml (celltrace excel sideload --url {origin})"
        )
        typer.echo("\n".join(lines), err=True)

    # uvicorn shuts down gracefully on these signals, then re-raises them: exit 0 after that.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _exit_cleanly)
    from celltrace.server.api.h11_timeout import HeaderTimeoutH11Protocol

    HeaderTimeoutH11Protocol.timeout = settings.header_timeout
    options: dict[str, Any] = {"factory": True, "host": host, "port": port, "workers": workers,
                               "log_level": log_level, "server_header": False,
                               "http": HeaderTimeoutH11Protocol,
                               "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_S, **tls}
    if workers > 1:
        uvicorn.run(APP_FACTORY, **options)
    else:
        _graceful_server(uvicorn.Config(APP_FACTORY, **options)).run()


def _graceful_server(config: Any) -> Any:
    """A uvicorn server whose shutdown first answers in-flight questions with a 503 JSON error."""
    import uvicorn

    from celltrace.server.api.runtime import begin_shutdown

    class GracefulServer(uvicorn.Server):
        async def shutdown(self, sockets: Any = None) -> None:
            begin_shutdown()
            await super().shutdown(sockets)

    return GracefulServer(config)
