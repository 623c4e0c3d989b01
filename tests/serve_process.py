"""`celltrace serve` as a real subprocess on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

NO_LLM = ("CELLTRACE_MODEL", "OPENAI_BASE_URL", "CELLTRACE_BASE_URL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextmanager
def running_server(
    env: dict[str, str], startup_s: float = 90
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Start `celltrace serve` (no LLM, no preload, plus `env`); yield (process, URL); stop it."""
    port = free_port()
    full_env = {k: v for k, v in os.environ.items() if k not in NO_LLM} | {
        "CELLTRACE_PRELOAD": "false",
        **env,
    }
    cmd = [
        sys.executable,
        "-c",
        "from celltrace.server.cli import main; main()",
        "serve",
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(
        [*cmd, "--log-level", "warning"], env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"celltrace serve exited: {proc.stdout.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            pytest.fail(f"celltrace serve did not start in {startup_s:.0f} s")
        yield proc, url
    finally:
        stop(proc)
