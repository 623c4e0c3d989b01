"""`celltrace serve --https`: a local CA and a localhost certificate, created once and reused; a real
HTTPS server that serves the task pane's manifest with https URLs."""

from __future__ import annotations

import datetime as dt
import ssl
import stat
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
from cryptography import x509
from serve_process import running_server

from celltrace.server.infra.tls import ensure_certificate, trust_instructions

OFFICE = "{http://schemas.microsoft.com/office/appforoffice/1.1}"


def test_created_once_then_reused_and_chained_to_the_local_ca(tmp_path: Path) -> None:
    first = ensure_certificate(tmp_path)
    assert first.created
    cert_bytes = first.cert.read_bytes()
    again = ensure_certificate(tmp_path)
    assert not again.created and again.cert.read_bytes() == cert_bytes
    ca = x509.load_pem_x509_certificate(first.ca.read_bytes())
    leaf = x509.load_pem_x509_certificate(cert_bytes)
    leaf.verify_directly_issued_by(ca)
    names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    assert {str(ip) for ip in names.get_values_for_type(x509.IPAddress)} == {"127.0.0.1", "::1"}
    for key in (first.key, tmp_path / "ca-key.pem"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert any("certutil" in line for line in trust_instructions(first.ca))


def test_server_certificate_is_renewed_near_expiry_under_the_same_ca(tmp_path: Path) -> None:
    first = ensure_certificate(tmp_path)
    ca_bytes = first.ca.read_bytes()
    later = ensure_certificate(tmp_path, now=dt.datetime.now(dt.UTC) + dt.timedelta(days=380))
    assert not later.created and later.ca.read_bytes() == ca_bytes
    leaf = x509.load_pem_x509_certificate(later.cert.read_bytes())
    assert leaf.not_valid_after_utc > dt.datetime.now(dt.UTC) + dt.timedelta(days=700)


def test_serve_https_serves_the_manifest_over_tls(tmp_path: Path) -> None:
    with running_server({"CELLTRACE_TOKEN": ""}, https_dir=tmp_path) as (_, url):
        assert url.startswith("https://")
        context = ssl.create_default_context(cafile=str(tmp_path / "ca.pem"))
        response = httpx.get(f"{url}/addin/manifest.xml", verify=context, timeout=10)
    source = ET.fromstring(response.text).find(f"{OFFICE}DefaultSettings/{OFFICE}SourceLocation")
    assert source is not None and source.get("DefaultValue") == f"{url}/addin/taskpane.html"
