"""`celltrace serve` as a real subprocess under hostile clients: SIGTERM while a question is in flight
(the client gets a JSON error, the server exits 0 at once, no traceback; the LLM is a slow loopback
server), slow headers and slow bodies cut after their timeouts, a foreign Host not served."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time

import httpx
from llm_server import Fault, ScriptedLLM
from test_serve import STARTUP_S, TABLE, _celltrace, _free_port


def test_sigterm_during_a_request_answers_json_and_exits_0(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.slow(30, "1. What is the revenue?"))
    port = _free_port()
    env = {**os.environ, "CELLTRACE_DENSE_RETRIEVAL": "false", "CELLTRACE_TOKEN": "", "CELLTRACE_MODEL": "m",
           "OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "test", "CELLTRACE_MAX_RETRIES": "0"}
    proc = subprocess.Popen([*_celltrace(), "serve", "--port", str(port), "--log-level", "warning"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        responses: list[httpx.Response] = []
        body = {"question": "What is the revenue?", "table": TABLE}
        client = threading.Thread(target=lambda: responses.append(
            httpx.post(f"{url}/v1/longform", json=body, timeout=60)))
        client.start()
        while not llm_server.chat_requests:  # the question is now waiting on the slow LLM
            time.sleep(0.05)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        client.join(timeout=15)
        assert time.monotonic() - started < 10
    finally:
        if proc.poll() is None:
            proc.kill()
    assert responses and responses[0].status_code == 503
    assert responses[0].json()["error"]["code"] == "shutting_down"
    assert b"Traceback" not in proc.stderr.read()


def _start(env_extra: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    env = {**os.environ, "CELLTRACE_DENSE_RETRIEVAL": "false", "CELLTRACE_TOKEN": "", "CELLTRACE_MODEL": "",
           "OPENAI_BASE_URL": "", **env_extra}
    proc = subprocess.Popen([*_celltrace(), "serve", "--port", str(port), "--log-level", "warning"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("the server did not start")


def test_slow_headers_and_slow_bodies_are_cut() -> None:
    proc, port = _start({"CELLTRACE_HEADER_TIMEOUT": "1", "CELLTRACE_BODY_TIMEOUT": "1"})
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow_head:
            slow_head.sendall(b"GET /v1/health HTTP/1.1\r\nHo")
            started = time.monotonic()
            assert slow_head.recv(1024) == b""  # closed by the server
            assert time.monotonic() - started < 5
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow_body:
            slow_body.sendall(b"POST /v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            started = time.monotonic()
            reply = b""
            while chunk := slow_body.recv(4096):
                reply += chunk
            assert reply.startswith(b"HTTP/1.1 408") and b"body_timeout" in reply
            assert time.monotonic() - started < 5
        assert httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=5).status_code == 200
        evil = httpx.get(f"http://127.0.0.1:{port}/v1/health", headers={"Host": "evil.example"}, timeout=5)
        assert evil.status_code == 421
    finally:
        proc.terminate()  # not kill: the server removes its temporary folders on the way out
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
