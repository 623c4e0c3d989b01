"""`celltrace serve` as a real subprocess on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
    env: dict[str, str], startup_s: float = 90, https_dir: Path | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Start `celltrace serve` (no LLM, no preload, plus `env`; `--https` with its certificate in
    `https_dir`); yield (process, URL); stop it."""
    port = free_port()
    full_env = {k: v for k, v in os.environ.items() if k not in NO_LLM}
    full_env |= {"CELLTRACE_PRELOAD": "false", **env}
    cmd = [sys.executable, "-c", "from celltrace.server.cli import main; main()", "serve"]
    cmd += ["--port", str(port), "--log-level", "warning"]
    if https_dir is not None:
        cmd += ["--https", "--cert-dir", str(https_dir)]
    proc = subprocess.Popen(cmd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"{'https' if https_dir else 'http'}://127.0.0.1:{port}"
    verify: ssl.SSLContext | bool = True
    try:
        deadline = time.monotonic() + startup_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"celltrace serve exited: {proc.stdout.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if https_dir is not None and verify is True and (https_dir / "ca.pem").exists():
                    verify = ssl.create_default_context(cafile=str(https_dir / "ca.pem"))
                if httpx.get(f"{url}/v1/health", timeout=1, verify=verify).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            pytest.fail(f"celltrace serve did not start in {startup_s:.0f} s")
        yield proc, url
    finally:
        stop(proc)
