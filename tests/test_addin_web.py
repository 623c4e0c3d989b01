"""`/addin/*` served by the API: manifest, pane assets, worksheet-function metadata, icons; the ask
request's answer cell and picture flags as the pane sends them."""

from __future__ import annotations

import json
import struct
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from celltrace.server.api.addin import ASSETS, ICON_SIZES
from celltrace.server.app import create_app
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.server.infra.settings import Settings

OFFICE = "{http://schemas.microsoft.com/office/appforoffice/1.1}"
TABLE = {
    "cells": [["", "2019", "2020"], ["Revenue", "100", "120"], ["Cost", "80", "90"]],
    "origin": {"sheet": "P&L", "address": "B2:D4"},
}


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(ServerSettings(preload=False, token="s3cret"), Settings(dense_retrieval=False))
    with TestClient(app, base_url="https://localhost:8765") as c:
        yield c


def test_manifest_is_valid_xml_on_the_requests_origin(client: TestClient) -> None:
    response = client.get("/addin/manifest.xml")  # no token: the add-in files are public
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/xml")
    root = ET.fromstring(response.text)
    assert root.get("{http://www.w3.org/2001/XMLSchema-instance}type") == "TaskPaneApp"
    source = root.find(f"{OFFICE}DefaultSettings/{OFFICE}SourceLocation")
    assert source is not None and source.get("DefaultValue") == "https://localhost:8765/addin/taskpane.html"
    urls = {e.get("id"): e.get("DefaultValue") for e in root.iter() if e.tag.endswith("}Url")}
    assert urls["Functions.Metadata.Url"] == "https://localhost:8765/addin/functions.json"
    assert "{origin}" not in response.text and "{version}" not in response.text
    assert root.find(f"{OFFICE}Version").text.count(".") == 3


def test_functions_metadata_declares_ask(client: TestClient) -> None:
    functions = client.get("/addin/functions.json").json()["functions"]
    assert [f["id"] for f in functions] == ["ASK"]
    assert [p["name"] for p in functions[0]["parameters"]] == ["question", "range", "details"]
    assert functions[0]["options"]["requiresParameterAddresses"] is True


def test_every_asset_is_served_with_a_strict_policy_and_nothing_else(client: TestClient) -> None:
    for name, media_type in ASSETS.items():
        response = client.get(f"/addin/{name}")
        assert response.status_code == 200 and response.headers["content-type"] == media_type, name
        assert "connect-src 'self'" in response.headers["content-security-policy"]
    html = client.get("/addin/taskpane.html").text
    scripts = [part.split('"')[0] for part in html.split('src="')[1:]]
    assert scripts[0] == "https://appsforoffice.microsoft.com/lib/1/hosted/office.js"
    assert all(src in ASSETS for src in scripts[1:])  # everything else is local
    for bad in ("nope.js", "..%2Fapp.py", "manifest.xml.bak"):
        assert client.get(f"/addin/{bad}").status_code == 404


@pytest.mark.parametrize("size", ICON_SIZES)
def test_icons_are_pngs_of_their_size(client: TestClient, size: int) -> None:
    png = client.get(f"/addin/icon-{size}.png").content
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (size, size)
    idat = png[png.index(b"IDAT") + 4 : png.index(b"IEND") - 8]
    assert len(zlib.decompress(idat)) == size * (3 * size + 1)
    assert client.get("/addin/icon-17.png").status_code == 404


def test_ask_plans_the_answer_cell_and_refuses_a_bad_one(client: TestClient) -> None:
    auth = {"Authorization": "Bearer s3cret"}
    body = {"question": "What was revenue in 2020?", "table": TABLE, "engine": "offline"}
    response = client.post("/v1/ask", json={**body, "answer_cell": "K2"}, headers=auth).json()
    written = [a for a in response["actions"] if a["kind"] == "set_value"]
    assert written == [  # a number cell in the source format, removed again by clear
        {"kind": "set_value", "sheet": "P&L", "address": "K2", "value": 120.0, "overwrite": False,
         "number_format": "0", "restorable": True}
    ]
    bad = client.post("/v1/ask", json={**body, "answer_cell": "not a cell"}, headers=auth)
    assert bad.status_code == 422 and "answer_cell" in json.dumps(bad.json())
    no_sheet = {**body, "table": {"cells": TABLE["cells"]}, "answer_cell": "K2"}
    assert client.post("/v1/ask", json=no_sheet, headers=auth).status_code == 422


def test_excel_sideload_writes_the_manifest_for_an_origin(tmp_path) -> None:
    from typer.testing import CliRunner

    from celltrace.server.cli import app, register_commands

    register_commands()
    out = tmp_path / "manifest.xml"
    run = CliRunner().invoke(app, ["excel", "sideload", "--url", "https://localhost:9443", "--out", str(out)])
    assert run.exit_code == 0 and "Upload My Add-in" in run.output and "wef" in run.output
    source = ET.parse(out).getroot().find(f"{OFFICE}DefaultSettings/{OFFICE}SourceLocation")
    assert source is not None and source.get("DefaultValue") == "https://localhost:9443/addin/taskpane.html"
    bad = CliRunner().invoke(app, ["excel", "sideload", "--url", "localhost", "--out", str(out)])
    assert bad.exit_code != 0


def test_the_pane_is_same_origin_so_other_origins_get_no_cors(client: TestClient) -> None:
    preflight = client.options(
        "/v1/ask",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers
    page = client.get("/addin/taskpane.html", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in page.headers
