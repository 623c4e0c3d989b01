"""Server hardening: Host allow-list (DNS rebinding), body-read timeout, lone surrogates → 422, a
timed-out job stops calling the LLM (in a thread and in a worker process), queue places are freed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from llm_server import Fault, ScriptedLLM

from celltrace.server.api.errors import ApiError
from celltrace.server.api.hosts import split_host
from celltrace.server.api.limits import Busy, InflightSlots, RequestLimitsMiddleware
from celltrace.server.api.runner import EngineJob
from celltrace.server.api.workers import ProcessEngines, ThreadEngines
from celltrace.server.app import create_app
from celltrace.server.infra.llm import LLMClient, UsageMeter
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.server.infra.settings import Settings

TABLE = {"cells": [["Item", "Amount"], ["Revenue", "1,200"]]}


def _client(base_url: str, **server: Any) -> TestClient:
    app = create_app(ServerSettings(preload=False, **server), Settings(dense_retrieval=False))
    return TestClient(app, base_url=base_url)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "localhost.evil.example", "10.0.0.1"])
def test_foreign_host_header_is_not_served(host: str) -> None:
    with _client("http://localhost") as c:
        response = c.post("/v1/graph", json={"table": TABLE}, headers={"Host": host})
        health = c.get("/v1/health", headers={"Host": host})
    assert response.status_code == health.status_code == 421
    assert response.json()["error"]["code"] == "misdirected_request"


def test_loopback_names_and_the_servers_port_are_served() -> None:
    with _client("http://localhost") as c:  # TestClient's server port is 80
        for host in ("localhost", "127.0.0.1", "[::1]", "LOCALHOST:80", "127.0.0.1:80"):
            assert c.get("/v1/health", headers={"Host": host}).status_code == 200, host
        assert c.get("/v1/health", headers={"Host": "127.0.0.1:8080"}).status_code == 421
        assert c.get("/v1/health", headers={"Host": "127.0.0.1:x"}).status_code == 400


def test_allowed_hosts_setting() -> None:
    with _client("http://localhost", allowed_hosts=["excel.internal"]) as c:
        assert c.get("/v1/health", headers={"Host": "excel.internal"}).status_code == 200
        assert c.get("/v1/health", headers={"Host": "127.0.0.1"}).status_code == 421
    with _client("http://localhost", allowed_hosts=["*"]) as c:
        assert c.get("/v1/health", headers={"Host": "anything.example"}).status_code == 200
    assert ServerSettings(_env_file=None, allowed_hosts="a, b").allowed_hosts == ["a", "b"]


def test_split_host() -> None:
    assert split_host("[::1]:8765") == ("::1", 8765)
    assert split_host("Localhost") == ("localhost", None)
    assert split_host("::1") is None and split_host(":80") is None and split_host("a:99999") is None


def test_lone_surrogates_are_422() -> None:
    body = b'{"table": {"cells": [["\\ud800x", "1"]]}}'
    paired = b'{"table": {"cells": [["\\ud83d\\ude00", "1"]]}}'
    with _client("http://localhost") as c:
        bad = c.post("/v1/graph", content=body, headers={"Content-Type": "application/json"})
        question = c.post("/v1/ask", content=b'{"question": "\\udfff?", "table": {"cells": [["a"]]}}',
                          headers={"Content-Type": "application/json"})
        good = c.post("/v1/graph", content=paired, headers={"Content-Type": "application/json"})
    assert bad.status_code == question.status_code == 422
    assert bad.json()["error"]["code"] == "invalid_text"
    assert good.status_code == 200


def test_slow_body_is_cut_after_the_timeout() -> None:
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:  # never reached
        raise AssertionError("the app got a request whose body never finished")

    async def receive() -> dict[str, Any]:
        await anyio.sleep(0.2)
        return {"type": "http.request", "body": b"x", "more_body": True}  # a trickle, forever

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    middleware = RequestLimitsMiddleware(app, max_body_bytes=10**6, max_cells=10, body_timeout=0.5)
    scope = {"type": "http", "method": "POST", "path": "/v1/ask", "headers": []}
    started = time.monotonic()
    anyio.run(middleware, scope, receive, send)
    assert time.monotonic() - started < 2
    assert sent[0]["status"] == 408


def thirty_calls(base_url: str, emit: Any) -> list[str]:
    """A job that calls the LLM 30 times (each reply takes 0.3 s)."""
    llm = LLMClient(Settings(base_url=base_url, api_key="test", model="m", max_retries=0))
    return [llm.complete("PLAN", [{"role": "user", "content": "q"}], UsageMeter()) for _ in range(30)]


@pytest.mark.parametrize("processes", [0, 1], ids=["threads", "worker-process"])
def test_after_a_504_the_engine_stops_calling_the_llm(llm_server: ScriptedLLM, processes: int) -> None:
    llm_server.queue(*[Fault.slow(0.3, "ok") for _ in range(30)])
    slots = InflightSlots(1, 0)
    workers = ProcessEngines(processes, 2) if processes else ThreadEngines(2)

    async def run() -> int:
        await slots.acquire()
        job = EngineJob(thirty_calls, (llm_server.base_url,), workers, deadline=0.5, slot=slots)
        job.start()
        with pytest.raises(ApiError) as info:
            await job.result()
        assert info.value.status == 504
        return len(llm_server.chat_requests)

    try:
        at_timeout = asyncio.run(run())
        time.sleep(1.5)  # without cancellation about five more calls would be made meanwhile
        assert len(llm_server.chat_requests) <= at_timeout + 1
        freed = time.monotonic() + 10  # a busy machine may take a while to end the worker's job
        while slots.used and time.monotonic() < freed:
            time.sleep(0.1)
        assert slots.used == 0  # the worker ended and freed its LLM slot
        assert len(llm_server.chat_requests) <= at_timeout + 1
    finally:
        workers.close()


def test_a_client_that_goes_away_frees_its_queue_place_and_its_slot() -> None:
    slots = InflightSlots(1, 1)

    async def run() -> None:
        await slots.acquire()
        waiter = asyncio.ensure_future(slots.acquire())
        await asyncio.sleep(0.05)
        assert slots.waiting == 1
        with pytest.raises(Busy):
            await slots.acquire()  # the queue is full
        waiter.cancel()  # the client went away while it waited
        await asyncio.gather(waiter, return_exceptions=True)
        assert slots.waiting == 0 and slots.used == 1
        slots.release()
        assert slots.used == 0

    asyncio.run(run())
