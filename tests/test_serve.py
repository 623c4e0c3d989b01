"""`celltrace serve` as a real subprocess: health, an offline ask, a 413 without memory growth, SIGTERM."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from celltrace.server.commands.serve_cmd import is_loopback

TABLE = {
    "cells": [["", "2019", "2020"], ["Revenue", "100", "120"], ["Cost", "80", "90"]],
    "origin": {"workbook": "book.xlsx", "sheet": "P&L", "address": "B2:D4"},
}
STARTUP_S = 30
ONE_OFF_BYTES = 2 * 1024 * 1024
"""RSS a first large request may add besides its body (worker thread, allocator arenas)."""


def _celltrace() -> list[str]:
    exe = shutil.which("celltrace", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-c", "from celltrace.server.cli import main; main()"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def server_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's own temporary folder (TMPDIR)."""
    return tmp_path_factory.mktemp("server-tmp")


@pytest.fixture(scope="module")
def server(server_tmp: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = _free_port()
    env = {
        **os.environ,
        "TMPDIR": str(server_tmp),
        "CELLTRACE_DENSE_RETRIEVAL": "false",  # start-up in seconds: no embedding model to load
        "CELLTRACE_TOKEN": "",
        "CELLTRACE_MODEL": "",
        "OPENAI_BASE_URL": "",
    }
    proc = subprocess.Popen(
        [*_celltrace(), "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_S
    while True:
        try:
            httpx.get(f"{url}/v1/health", timeout=1)
            break
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"server did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.1)
    try:
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_health_and_offline_ask(server: tuple[subprocess.Popen[bytes], str]) -> None:
    _, url = server
    health = httpx.get(f"{url}/v1/health").json()
    assert health["status"] == "ok" and health["engines"] == ["offline"] and health["sandbox"]
    response = httpx.post(
        f"{url}/v1/ask", json={"question": "What was revenue in 2020?", "table": TABLE}, timeout=30
    )
    body = response.json()
    assert response.status_code == 200 and body["answer"] == ["120"]
    assert [e["address"] for e in body["evidence"] if e["role"] == "answer"] == ["D3"]


def test_300k_cells_rejected_fast_without_memory_growth(server: tuple[subprocess.Popen[bytes], str]) -> None:
    """Rejected from the raw body, no JSON objects built: three such requests together grow the server
    by about one body buffer (which the allocator may keep for reuse) plus one-off start-up costs."""
    proc, url = server
    rows = [[f"{r * 300 + c:06d}" for c in range(300)] for r in range(1000)]
    body = json.dumps({"question": "Total?", "table": {"cells": rows}}).encode()
    growth, seconds = [], []
    for _ in range(3):
        before = _rss_bytes(proc.pid)
        started = time.monotonic()
        response = httpx.post(f"{url}/v1/ask", content=body, headers={"content-type": "application/json"})
        seconds.append(time.monotonic() - started)
        growth.append(_rss_bytes(proc.pid) - before)
        assert response.status_code == 413 and response.json()["error"]["code"] == "too_many_cells"
    assert max(seconds) < 3, f"413 took {seconds} s"
    assert sum(growth) < len(body) + ONE_OFF_BYTES, f"RSS grew {growth} B on a {len(body):,} B body"


def test_sigterm_exits_cleanly(server: tuple[subprocess.Popen[bytes], str], server_tmp: Path) -> None:
    proc, _ = server
    assert [p.name for p in server_tmp.iterdir() if p.name.startswith("celltrace-sbx-")]  # a warm zygote
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0
    assert time.monotonic() - started < 5
    assert not list(server_tmp.iterdir())  # the zygote's work folder went with it


def test_non_loopback_host_needs_a_token() -> None:
    env = {**os.environ, "CELLTRACE_TOKEN": ""}
    out = subprocess.run(
        [*_celltrace(), "serve", "--host", "0.0.0.0", "--port", str(_free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2 and "CELLTRACE_TOKEN" in out.stderr


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
     ("0.0.0.0", False), ("192.168.1.4", False), ("example.com", False), ("::", False)],
)  # fmt: skip
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
