"""HTTP API (TestClient): every route, every error code, SSE order, auth, limits, CORS."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from llm_server import Fault, ScriptedLLM

from celltrace.server.api.deps import get_ask_engine
from celltrace.server.api.errors import redact, validation_message
from celltrace.server.api.limits import too_many_cells
from celltrace.server.app import create_app
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.server.infra.settings import Settings
from celltrace.shared.api_models import StepEvent
from celltrace.shared.graph_json import graph_result
from celltrace.shared.schemas import AskResult, Step, StepAction, TablePayload

TABLE: dict[str, Any] = {
    "cells": [["", "2019", "2020"], ["Revenue", "100", "120"], ["Cost", "80", "90"]],
    "title": "Results",
    "origin": {"workbook": "book.xlsx", "sheet": "P&L", "address": "B2:D4"},
}
QUESTION = "What was revenue in 2020?"
SECRET = "sk-test-secret-0123456789"


@contextmanager
def client(
    engine: Settings | None = None,
    fake: Callable[..., AskResult] | None = None,
    raise_server_exceptions: bool = True,
    **server: Any,
) -> Iterator[TestClient]:
    """A started app (no model preload, no dense retrieval unless given), optionally with a fake engine."""
    if fake is not None:  # a closure over the test's state: it runs in this process's threads
        server.setdefault("engine_processes", 0)
    app = create_app(ServerSettings(preload=False, **server), engine or Settings(dense_retrieval=False))
    if fake is not None:
        app.dependency_overrides[get_ask_engine] = lambda: fake
    with TestClient(app, raise_server_exceptions=raise_server_exceptions) as c:
        yield c


def llm_settings(**kw: Any) -> Settings:
    return Settings(
        **{"model": "test-model", "api_key": SECRET, "max_retries": 0, "dense_retrieval": False, **kw}
    )


def ask_body(question: str = QUESTION, engine: str = "auto", table: dict | None = None) -> dict:
    return {"question": question, "table": table or TABLE, "engine": engine}


def sse_events(text: str) -> list[tuple[str, dict]]:
    """(event, data) pairs of a text/event-stream body (keep-alive comments skipped)."""
    events = []
    for block in text.strip().split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln and not ln.startswith(":")]
        if not lines:
            continue
        event = next(ln[7:] for ln in lines if ln.startswith("event: "))
        data = "\n".join(ln[6:] for ln in lines if ln.startswith("data: "))
        events.append((event, json.loads(data)))
    return events


def scripted_engine(steps: int, sleep: float = 0.0, stopped: threading.Event | None = None):
    """A fake `answer_question`: `steps` steps (then an endless slow loop when `sleep`), then a result."""

    def engine(table, question, engine="auto", settings=None, on_step=None) -> AskResult:
        try:
            for i in range(steps):
                on_step(
                    Step(thought=f"Look at row {i}. Then more.", actions=[StepAction(name="VisitNode")]),
                    _State(),
                )
            while sleep:
                time.sleep(sleep)
                on_step(Step(thought="still going"), _State())
        finally:
            if stopped is not None:
                stopped.set()
        return AskResult(question=question, status="answered", engine="offline", answer=["120"])

    return engine


class _State:
    """The parts of `ReasoningState` the step events read."""

    def __init__(self) -> None:
        from celltrace.shared.graph import CellGraph

        self.table = TablePayload.model_validate(TABLE).to_table()
        self.graph = CellGraph(self.table)
        self.trace = [1]


# ---- health, docs, graph ---------------------------------------------------------------------------


def test_health_without_llm_lists_offline_only_and_needs_no_token() -> None:
    with client(token="t0ken") as c:
        body = c.get("/v1/health").json()
    assert body["status"] == "ok" and body["version"]
    assert body["engines"] == ["offline"] and body["models"] == {}
    assert isinstance(body["sandbox"], str)


def test_health_with_llm_lists_models_per_stage_without_secrets() -> None:
    with client(llm_settings(model_judge="judge-model", base_url="http://u:pw@127.0.0.1:9/v1")) as c:
        response = c.get("/v1/health")
    body = response.json()
    assert "llm" in body["engines"]
    assert body["models"]["thought"] == "test-model" and body["models"]["judge"] == "judge-model"
    assert SECRET not in response.text and "pw" not in response.text


def test_lifespan_loads_embedder_and_probes_sandbox_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    class FakeEmbedder:
        def encode(self, texts: list[str]) -> None:
            calls.append("encode")

    monkeypatch.setattr("celltrace.server.infra.embedding.get_embedder", lambda: FakeEmbedder())
    monkeypatch.setattr(
        "celltrace.server.infra.sandbox.isolation_info", lambda: calls.append("probe") or "fake-sandbox"
    )
    app = create_app(ServerSettings(preload=True, engine_processes=0), Settings(dense_retrieval=True))
    with TestClient(app) as c:
        for _ in range(3):
            assert c.get("/v1/health").json()["sandbox"] == "fake-sandbox"
    assert calls == ["encode", "probe"]


def test_openapi_and_docs() -> None:
    with client() as c:
        spec = c.get("/openapi.json").json()
        assert c.get("/docs").status_code == 200
    for path in (
        "/v1/health",
        "/v1/graph",
        "/v1/ask",
        "/v1/ask/stream",
        "/v1/longform",
        "/v1/longform/stream",
    ):
        assert path in spec["paths"]
    assert {"AskRequest", "AskResponse", "ErrorBody"} <= set(spec["components"]["schemas"])


def test_graph_matches_cli_json_and_is_cached() -> None:
    with client() as c:
        first = c.post("/v1/graph", json={"table": TABLE})
        second = c.post("/v1/graph", json={"table": TABLE})
        cache = c.app.state.runtime.graph_cache  # type: ignore[attr-defined]
        assert len(cache) == 1
    expected = graph_result(TablePayload.model_validate(TABLE).to_table(), 100_000).model_dump(mode="json")
    assert first.status_code == 200 and first.json() == expected == second.json()
    assert first.json()["range"] == "B2:D4"


# ---- ask ------------------------------------------------------------------------------------------


def test_ask_offline_returns_ask_json_plus_actions_with_sheet_addresses() -> None:
    with client() as c:
        response = c.post("/v1/ask", json=ask_body(engine="offline"))
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "answered" and body["answer"] == ["120"] and body["engine"] == "offline"
    assert set(body) == set(AskResult.model_fields) | {"actions", "picture"}
    answer_cells = [e["address"] for e in body["evidence"] if e["role"] == "answer"]
    assert answer_cells == ["D3"] and all(e["sheet"] == "P&L" for e in body["evidence"])
    kinds = [a["kind"] for a in body["actions"]]
    assert kinds[0] == "fill" and "note" in kinds and kinds[-1] == "select"


def test_ask_stream_sends_steps_then_result_matching_ask() -> None:
    with client() as c:
        plain = c.post("/v1/ask", json=ask_body(engine="offline")).json()
        with c.stream("POST", "/v1/ask/stream", json=ask_body(engine="offline")) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            events = sse_events(response.read().decode())
    names = [name for name, _ in events]
    assert names[-1] == "result" and set(names[:-1]) == {"step"} and len(names) >= 2
    steps = [data for name, data in events if name == "step"]
    assert [s["index"] for s in steps] == list(range(1, len(steps) + 1))
    assert all(s["message"] and s["step"]["thought"] for s in steps)
    assert steps[-1]["trace"] and steps[-1]["trace"][0]["sheet"] == "P&L"
    result = events[-1][1]
    result.pop("seconds"), plain.pop("seconds")
    assert result == plain


def test_stream_bridges_each_engine_step_with_a_sentence_and_trace() -> None:
    with client(fake=scripted_engine(2)) as c:
        response = c.post("/v1/ask/stream", json=ask_body())
    events = sse_events(response.text)
    assert [name for name, _ in events] == ["step", "step", "result"]
    assert events[0][1]["message"] == "Look at row 0."
    assert events[1][1]["trace"][0]["address"] == "C2"
    assert events[2][1]["answer"] == ["120"] and "actions" in events[2][1]


def test_closing_a_stream_stops_the_engine() -> None:
    stopped = threading.Event()
    with client(fake=scripted_engine(1, sleep=0.02, stopped=stopped)) as c:
        with c.stream("POST", "/v1/ask/stream", json=ask_body()) as response:
            assert next(response.iter_lines()) == "event: step"
        assert stopped.wait(5), "the engine kept running after the client went away"


# ---- errors ---------------------------------------------------------------------------------------


def test_413_body_too_large_by_content_length_and_while_streaming() -> None:
    big = json.dumps(ask_body(table={"cells": [["x" * 3000]]})).encode()
    with client(max_body_bytes=2000) as c:
        by_length = c.post("/v1/ask", content=big, headers={"content-type": "application/json"})
        chunked = c.post(
            "/v1/ask",
            content=(big[i : i + 500] for i in range(0, len(big), 500)),
            headers={"content-type": "application/json"},
        )
        small = c.post("/v1/ask", json=ask_body(engine="offline"))
    for response in (by_length, chunked):
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "body_too_large"
    assert small.status_code == 200


def test_413_too_many_cells_before_parsing() -> None:
    table = {"cells": [["a"] * 5 for _ in range(5)]}
    with client(max_cells=24) as c:
        response = c.post("/v1/ask", json=ask_body(table=table))
        graph = c.post("/v1/graph", json={"table": table})
        fits = c.post("/v1/graph", json={"table": {"cells": [["a"] * 4 for _ in range(6)]}})
    assert response.status_code == graph.status_code == 413
    assert response.json() == {
        "error": {
            "code": "too_many_cells",
            "message": "the table has more than 24 cells (the server's limit)",
        }
    }
    assert fits.status_code == 200


def test_cell_scan_counts_grids_only() -> None:
    cells = [["a,b", '[q"]', "x\\"], ["", "1", "{"]]
    body = json.dumps({"question": '"cells": [[1,2,3,4,5,6,7]]', "table": {"cells": cells, "title": "[,,,]"}})
    assert not too_many_cells(body.encode(), 6)
    assert too_many_cells(body.encode(), 5)
    values = json.dumps({"table": {"cells": [["a"]], "values": [[1, None, True, -2.5e3, "x"]]}})
    assert too_many_cells(values.encode(), 4) and not too_many_cells(values.encode(), 5)
    escaped = json.dumps({"table": {"cells": [['say "hi"', "a\\", 'x"],[']]}})
    assert too_many_cells(escaped.encode(), 2) and not too_many_cells(escaped.encode(), 3)
    assert not too_many_cells(b'{"table": {"merges": [[0,0,1,1],[2,2,3,3]]}}', 3)


def test_422_readable_validation_messages() -> None:
    with client(max_question_chars=50) as c:
        long_q = c.post("/v1/ask", json=ask_body(question="why " * 20))
        empty_q = c.post("/v1/ask", json=ask_body(question="  "))
        ragged = c.post("/v1/ask", json=ask_body(table={"cells": [["a", "b"], ["c"]]}))
        wrong_type = c.post("/v1/graph", json={"table": {"cells": [["a", 1]]}})
        bad_merge = c.post("/v1/graph", json={"table": {"cells": [["a"]], "merges": [[0, 0, 3, 3]]}})
        bad_json = c.post("/v1/ask", content=b"{nope", headers={"content-type": "application/json"})
        bad_engine = c.post("/v1/ask", json=ask_body(engine="gpt"))
    messages = {
        "long": long_q.json()["error"]["message"],
        "empty": empty_q.json()["error"]["message"],
        "ragged": ragged.json()["error"]["message"],
        "type": wrong_type.json()["error"]["message"],
        "merge": bad_merge.json()["error"]["message"],
        "json": bad_json.json()["error"]["message"],
        "engine": bad_engine.json()["error"]["message"],
    }
    for response in (long_q, empty_q, ragged, wrong_type, bad_merge, bad_json, bad_engine):
        assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_request"
    assert messages["long"] == "question: at most 50 characters (got 79)"
    assert messages["empty"].startswith("question: ")
    assert messages["ragged"] == "table.cells: rows must have equal length (found [1, 2])"
    assert messages["type"] == "table.cells[0][1]: Input should be a valid string"
    assert messages["merge"].startswith("table.merges: merge [0, 0, 3, 3] outside the 1x1 grid")
    assert messages["json"].startswith("body: invalid JSON at character 1")
    assert messages["engine"].startswith("engine: Input should be 'auto', 'llm' or 'offline'")


def test_validation_message_caps_the_list() -> None:
    errors = [{"loc": ("body", "table", "cells", i, 0), "msg": "bad", "type": "x"} for i in range(8)]
    assert validation_message(errors).endswith("table.cells[4][0]: bad (and 3 more)")


def test_504_timeout_returns_partial_steps_and_stops_the_engine() -> None:
    stopped = threading.Event()
    with client(fake=scripted_engine(2, sleep=0.02, stopped=stopped), request_deadline=0.3) as c:
        started = time.monotonic()
        response = c.post("/v1/ask", json=ask_body())
        elapsed = time.monotonic() - started
        assert stopped.wait(2), "the engine thread was not stopped after the timeout"
    body = response.json()
    assert response.status_code == 504 and body["error"]["code"] == "timeout"
    assert len(body["steps"]) >= 2 and body["steps"][0]["message"] == "Look at row 0."
    assert elapsed < 2


def test_504_in_a_stream_is_an_error_event_after_the_steps() -> None:
    with client(fake=scripted_engine(1, sleep=0.05), request_deadline=0.3) as c:
        events = sse_events(c.post("/v1/ask/stream", json=ask_body()).text)
    names = [name for name, _ in events]
    assert names[0] == "step" and names[-1] == "error" and "result" not in names
    assert events[-1][1]["error"]["code"] == "timeout" and events[-1][1]["steps"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_502_llm_unreachable_without_secrets() -> None:
    settings = llm_settings(base_url=f"http://127.0.0.1:{_closed_port()}/v1", request_timeout=2)
    with client(settings, token=SECRET) as c:
        response = c.post(
            "/v1/ask", json=ask_body(engine="llm"), headers={"Authorization": f"Bearer {SECRET}"}
        )
    assert response.status_code == 502, response.text
    assert response.json()["error"]["code"] == "llm_unreachable"
    assert "connection error" in response.json()["error"]["message"] and SECRET not in response.text


def test_502_llm_unauthorised_with_provider_message(llm_server: ScriptedLLM) -> None:
    llm_server.queue(Fault.status(401, message=f"Incorrect API key provided: {SECRET}"))
    with client(llm_settings(base_url=llm_server.base_url)) as c:
        response = c.post("/v1/ask", json=ask_body(engine="llm"))
    error = response.json()["error"]
    assert response.status_code == 502 and error["code"] == "llm_unauthorized"
    assert "Incorrect API key provided" in error["message"] and SECRET not in response.text


@pytest.mark.parametrize(
    ("fault", "code"), [(Fault.slow(3, "late"), "llm_timeout"), (Fault.status(500), "llm_error")]
)
def test_502_tells_a_timeout_from_an_http_error(llm_server: ScriptedLLM, fault: Fault, code: str) -> None:
    llm_server.queue(fault)
    with client(llm_settings(base_url=llm_server.base_url, request_timeout=0.5)) as c:
        response = c.post("/v1/ask", json=ask_body(engine="llm"))
    assert response.status_code == 502 and response.json()["error"]["code"] == code


def test_409_engine_not_available() -> None:
    with client() as c:
        llm = c.post("/v1/ask", json=ask_body(engine="llm"))
        llm_stream = c.post("/v1/ask/stream", json=ask_body(engine="llm"))
        longform = c.post("/v1/longform", json={"question": QUESTION, "table": TABLE})
    for response in (llm, llm_stream, longform):
        assert response.status_code == 409 and response.json()["error"]["code"] == "engine_unavailable"


@pytest.mark.parametrize("route", ["/v1/ask", "/v1/ask/stream", "/v1/graph", "/v1/longform"])
def test_401_when_token_set(route: str) -> None:
    body = ask_body(engine="offline")
    with client(token="s3cret-token") as c:
        missing = c.post(route, json=body)
        wrong = c.post(route, json=body, headers={"Authorization": "Bearer s3cret-tokeX"})
        basic = c.post(route, json=body, headers={"Authorization": "Basic s3cret-token"})
        right = c.post(route, json=body, headers={"Authorization": "Bearer s3cret-token"})
    for response in (missing, wrong, basic):
        assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"
        assert response.headers["www-authenticate"] == "Bearer"
    assert right.status_code != 401


def test_401_comes_before_body_validation_and_size_limits() -> None:
    with client(token="s3cret-token") as c:
        invalid = c.post("/v1/ask", json={"question": 3})
        oversized = c.post("/v1/graph", content=b"x" * 64, headers={"Content-Length": str(10**9)})
        public = c.get("/v1/health")
    assert invalid.status_code == oversized.status_code == 401
    assert public.status_code == 200


def test_no_auth_without_token() -> None:
    with client() as c:
        assert c.post("/v1/graph", json={"table": TABLE}).status_code == 200


def test_llm_questions_beyond_the_inflight_limit_queue_then_429_when_the_queue_is_full() -> None:
    release, entered = threading.Event(), threading.Event()

    def blocking(table, question, engine="auto", settings=None, on_step=None) -> AskResult:
        if engine == "llm":
            entered.set()
            release.wait(5)
        return AskResult(question=question, status="answered", engine="llm", answer=["x"])

    with client(llm_settings(), fake=blocking, max_llm_inflight=1, max_queued=1, retry_after=7) as c:
        slots = c.app.state.runtime.llm_slots
        replies: dict[str, Any] = {}
        threads = [
            threading.Thread(
                target=lambda n=n: replies.update({n: c.post("/v1/ask", json=ask_body(engine="llm"))})
            )
            for n in ("first", "queued")
        ]
        threads[0].start()
        assert entered.wait(5)
        threads[1].start()
        deadline = time.monotonic() + 5
        while slots.waiting < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        busy = c.post("/v1/ask", json=ask_body(engine="llm"))
        offline = c.post("/v1/ask", json=ask_body(engine="offline"))  # offline questions take no LLM slot
        release.set()
        for thread in threads:
            thread.join(5)
        after = c.post("/v1/ask", json=ask_body(engine="llm"))
    assert busy.status_code == 429 and busy.headers["retry-after"] == "7"
    assert busy.json()["error"]["code"] == "busy"
    assert offline.status_code == 200
    assert replies["first"].status_code == replies["queued"].status_code == after.status_code == 200
    assert slots.used == 0 and slots.waiting == 0


def test_500_is_an_error_body_without_traceback() -> None:
    def broken(*args: Any, **kwargs: Any) -> AskResult:
        raise RuntimeError("secret internals")

    with client(fake=broken, raise_server_exceptions=False) as c:
        response = c.post("/v1/ask", json=ask_body())
        streamed = sse_events(c.post("/v1/ask/stream", json=ask_body()).text)
    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "internal", "message": "internal server error (logged on the server)"}
    }
    assert streamed == [("error", response.json())]


def test_unknown_route_and_method_use_the_error_body() -> None:
    with client() as c:
        missing, wrong_method = c.get("/v1/nope"), c.get("/v1/ask")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert wrong_method.status_code == 405 and wrong_method.json()["error"]["code"] == "method_not_allowed"


def test_cors_off_by_default_and_allow_list() -> None:
    origin = "https://addin.example.com"
    preflight = {"Origin": origin, "Access-Control-Request-Method": "POST"}
    with client() as c:
        off = c.options("/v1/ask", headers=preflight)
    with client(cors_origins=[origin]) as c:
        on = c.options("/v1/ask", headers=preflight)
        other = c.options("/v1/ask", headers={**preflight, "Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in off.headers
    assert on.status_code == 200 and on.headers["access-control-allow-origin"] == origin
    assert "access-control-allow-origin" not in other.headers


def test_cors_origins_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CELLTRACE_CORS_ORIGINS", "https://a.example, https://b.example")
    assert ServerSettings().cors_origins == ["https://a.example", "https://b.example"]


def test_redact() -> None:
    text = (
        "HTTP 401: bad key sk-abcdef123456 for http://user:pw@host/v1, Authorization: Bearer xyz, token=abc"
    )
    out = redact(text, ["pw-unused", "host/v1"])
    assert "sk-abcdef" not in out and "user:pw" not in out and "xyz" not in out and "abc" not in out


def test_step_event_model_round_trip() -> None:
    event = StepEvent(index=1, message="m", step=Step(thought="t"))
    assert StepEvent.model_validate_json(event.model_dump_json()) == event


# ---- long form ------------------------------------------------------------------------------------

LONG_TABLE: dict[str, Any] = {
    "cells": [
        ["Company", "Industry", "Profit"],
        ["Walmart", "Retail", "$13,510"],
        ["Apple", "Electronics", "$57,511"],
    ],
    "origin": {"workbook": "book.xlsx", "sheet": "Companies", "address": "B2:D4"},
}
SUB_Q = "Which company has the highest profit, and how much is it?"
BEST = """Here is the program.
```python
def solve(table):
    best = max(table.records(), key=lambda r: to_number(r["Profit"]))
    return {"company": best["Company"], "profit": to_number(best["Profit"])}
```"""


def longform_settings(llm: ScriptedLLM) -> Settings:
    models = {
        f"model_{s}": f"m-{s}"
        for s in ("plan", "plan_check", "program", "debug", "sub_answer", "final_answer")
    }
    return llm_settings(base_url=llm.base_url, longform_max_iterations=1, **models)


def longform_responder(model: str, messages: list[dict[str, Any]]) -> str:
    if model == "m-program":
        return BEST
    if model == "m-sub_answer":
        return "Apple has the highest profit, 57511."
    assert model == "m-final_answer", model
    return "Apple earns the highest profit, $57,511 million."


def test_longform_answer_with_actions_and_stream(llm_server: ScriptedLLM) -> None:
    llm_server.responder = longform_responder
    body = {"question": "Who is most profitable?", "table": LONG_TABLE, "plan": [SUB_Q]}
    with client(longform_settings(llm_server)) as c:
        assert "longform" in c.get("/v1/health").json()["engines"]
        plain = c.post("/v1/longform", json=body)
        events = sse_events(c.post("/v1/longform/stream", json=body).text)
    result = plain.json()
    assert plain.status_code == 200, result
    assert result["status"] == "answered" and result["answer"].startswith("Apple earns")
    assert result["plan"][0]["source"] == "program"
    assert any(e["address"] == "D4" and e["sheet"] == "Companies" for e in result["evidence"])
    assert [a["kind"] for a in result["actions"]][-1] == "select"
    assert [name for name, _ in events] == ["step", "step", "result"]
    assert events[0][1]["message"] == f"Planned 1 sub-question(s): {SUB_Q}"
    assert events[1][1]["message"].startswith("Sub-question 1: ") and events[1][1]["detail"]["kind"] == "item"
    assert events[2][1]["answer"] == result["answer"]


def test_longform_502_when_the_llm_is_unreachable() -> None:
    settings = llm_settings(base_url=f"http://127.0.0.1:{_closed_port()}/v1", request_timeout=2)
    with client(settings) as c:
        response = c.post("/v1/longform", json={"question": "Summarise.", "table": LONG_TABLE})
    assert response.status_code == 502 and response.json()["error"]["code"] == "llm_unreachable"
    assert SECRET not in response.text


def test_longform_409_without_llm_and_422_on_empty_plan_items() -> None:
    with client() as c:
        no_llm = c.post("/v1/longform", json={"question": "Summarise.", "table": LONG_TABLE})
    with client(llm_settings()) as c:
        bad_plan = c.post("/v1/longform", json={"question": "Summarise.", "table": LONG_TABLE, "plan": [" "]})
    assert no_llm.status_code == 409 and no_llm.json()["error"]["code"] == "engine_unavailable"
    assert bad_plan.status_code == 422 and bad_plan.json()["error"]["message"].startswith("plan[0]: ")


SHEET = {
    "cells": [
        ["Results by year", "", ""],
        ["", "", ""],
        ["", "2019", "2020"],
        ["Revenue", "100", "120"],
        ["Cost", "80", "90"],
        ["Source: annual report", "", ""],
    ],
    "origin": {"workbook": "book.xlsx", "sheet": "P&L", "address": "A1:C6"},
}


def test_detect_finds_the_table_block_and_reports_region_and_warning() -> None:
    with client() as c:
        body = c.post("/v1/ask", json={**ask_body(engine="offline", table=SHEET), "detect": True}).json()
        graph = c.post("/v1/graph", json={"table": SHEET, "detect": True, "active_cell": "B4"}).json()
        plain = c.post("/v1/graph", json={"table": SHEET}).json()
        bad = c.post("/v1/graph", json={"table": SHEET, "detect": True, "active_cell": "nope"})
    assert body["answer"] == ["120"] and body["region"] == "'P&L'!A3:C5"
    assert any("detected the table" in w for w in body["warnings"])
    assert graph["region"] == "'P&L'!A3:C5" and graph["range"] == "A3:C5" and graph["warnings"]
    assert plain["region"] == "'P&L'!A1:C6" and not plain["warnings"]
    assert bad.status_code == 422
