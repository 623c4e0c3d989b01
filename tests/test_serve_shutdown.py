"""SIGTERM while a question is in flight: the client gets a JSON error, the server exits 0 at once
and prints no traceback (a real `celltrace serve` subprocess, its LLM a slow loopback server)."""

from __future__ import annotations

import os
import signal
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
