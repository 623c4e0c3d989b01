"""HTTP API for people: offline docs, `/` → `/docs`, described fields, .xlsx uploads."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from test_api import client

from celltrace.server.api.docs import assets_dir

BOOK = Path(__file__).resolve().parents[1] / "examples" / "financials.xlsx"
QUESTION = "What was cargo revenue in 2016?"


def upload(path: Path = BOOK, **fields: str) -> dict[str, Any]:
    return {"files": {"file": (path.name, path.read_bytes())}, "data": {"question": QUESTION, **fields}}


def test_root_redirects_and_docs_use_only_local_assets() -> None:
    with client() as c:
        root = c.get("/", follow_redirects=False)
        assert root.status_code in (302, 307) and root.headers["location"] == "/docs"
        for page in ("/docs", "/redoc"):
            html = c.get(page).text
            urls = re.findall(r'(?:src|href)="([^"]+)"', html)
            assert urls and all(u.startswith("/") for u in urls), urls  # nothing from a CDN
            assert "http://" not in html and "https://" not in html
            for url in urls:
                asset = c.get(url)
                assert asset.status_code == 200 and len(asset.content) > 1000, url
    assert {"swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js"} <= {
        p.name for p in assets_dir().iterdir()
    }


def _fields(schema: dict, components: dict, seen: set[str]) -> list[tuple[str, dict]]:
    """(name, property schema) of every field reachable from `schema` through $refs."""
    out = []
    ref = schema.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[1]
        if name in seen:
            return []
        seen.add(name)
        schema = components[name]
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            out += _fields(sub, components, seen)
    if "items" in schema:
        out += _fields(schema["items"], components, seen)
    for field, prop in schema.get("properties", {}).items():
        out.append((field, prop))
        out += _fields(prop, components, seen)
    return out


@pytest.mark.parametrize("request_model", ["AskRequest", "LongformRequest", "GraphRequest"])
def test_every_request_and_table_field_is_described(request_model: str) -> None:
    with client() as c:
        spec = c.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    fields = _fields({"$ref": f"#/components/schemas/{request_model}"}, components, set())
    assert {"table", "cells", "merges", "origin", "sheet", "address"} <= {f for f, _ in fields}
    undocumented = [f for f, prop in fields if not prop.get("description")]
    assert undocumented == []
    merges = components["TablePayload"]["properties"]["merges"]
    assert "0-based" in merges["description"] and merges["examples"] == [[[0, 1, 0, 2]]]


@pytest.mark.parametrize(
    "response_model", ["AskResponse", "LongformResponse", "GraphResult", "HealthResponse"]
)
def test_every_response_field_is_described(response_model: str) -> None:
    with client() as c:
        spec = c.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    fields = _fields({"$ref": f"#/components/schemas/{response_model}"}, components, set())
    assert [f for f, prop in fields if not prop.get("description")] == []
    if response_model in ("AskResponse", "LongformResponse"):  # the write-back actions are walked too
        assert {"actions", "colour", "number_format", "restorable"} <= {f for f, _ in fields}


def test_ask_documents_the_multipart_form() -> None:
    with client() as c:
        spec = c.get("/openapi.json").json()
    for route in ("/v1/ask", "/v1/longform"):
        content = spec["paths"][route]["post"]["requestBody"]["content"]
        assert "application/json" in content
        form = content["multipart/form-data"]["schema"]
        assert {"file", "sheet", "range", "question"} <= set(form["properties"])
    assert not any(p.endswith("/xlsx") for p in spec["paths"])


def test_ask_with_an_uploaded_workbook() -> None:
    with client() as c:
        reply = c.post("/v1/ask", **upload(sheet="Operations", range="A1:H28", engine="offline"))
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["status"] in ("answered", "abstained") and body["answer"] and body["engine"] == "offline"
        assert {(e["sheet"], e["role"]) for e in body["evidence"]} >= {("Operations", "answer")}
        assert body["actions"]  # write-back actions like the JSON route's
        # without a range: the statement detected below its title lines, same answer
        detected = c.post("/v1/ask", **upload(engine="offline")).json()
        assert detected["answer"] == body["answer"] and body["region"] == "Operations!A1:H28"
        assert detected["region"] == "Operations!A3:H28" and "detected the table" in detected["warnings"][0]


def test_upload_errors_and_limits(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with client() as c:
        assert c.post("/v1/ask", **upload(sheet="Nope")).json()["error"]["code"] == "invalid_request"
        bad = c.post("/v1/ask", **upload(text))
        assert bad.status_code == 422 and "only .xlsx" in bad.json()["error"]["message"]
        missing = c.post("/v1/ask", data={"question": QUESTION}, files={"x": ("a", b"b")})
        assert missing.status_code == 422 and "file" in missing.json()["error"]["message"]
        empty = c.post("/v1/ask", **upload(question="   "))
        assert empty.status_code == 422
    with client(max_body_bytes=1_000) as c:
        assert c.post("/v1/ask", **upload()).status_code == 413
    with client(max_cells=20) as c:
        reply = c.post("/v1/ask", **upload())
        assert reply.status_code == 413 and reply.json()["error"]["code"] == "too_many_cells"
    bomb = tmp_path / "bomb.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "x"
    wb.save(bomb)
    with zipfile.ZipFile(bomb, "a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("padding.bin", b"\0" * 3_000_000)
    assert len(bomb.read_bytes()) < 100_000
    with client(max_body_bytes=100_000) as c:
        reply = c.post("/v1/ask", **upload(bomb))
        assert reply.status_code == 413 and "unpacks" in reply.json()["error"]["message"]


def test_longform_upload_needs_an_llm_like_json() -> None:
    with client() as c:
        reply = c.post("/v1/longform", **upload())
        assert reply.status_code == 409 and reply.json()["error"]["code"] == "engine_unavailable"
