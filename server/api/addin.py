"""`/addin/*`: the Office.js task pane, its manifest and the worksheet function, served by the API.

The pane and the API share one origin, so the pane needs no CORS. Files are package data of
`celltrace.addin` (`addin/web/`); only the names in `ASSETS` are served. The manifest's URLs are the
origin this request came to (`http(s)://host:port`), so a sideloaded manifest points at this server.
"""

from __future__ import annotations

from importlib.resources import files
from xml.sax.saxutils import escape

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from celltrace.addin.icon import icon_png
from celltrace.server import __version__
from celltrace.server.api.errors import ApiError

ASSETS = {
    "taskpane.html": "text/html; charset=utf-8",
    "taskpane.css": "text/css; charset=utf-8",
    "taskpane.js": "text/javascript; charset=utf-8",
    "api.js": "text/javascript; charset=utf-8",
    "excel.js": "text/javascript; charset=utf-8",
    "functions.js": "text/javascript; charset=utf-8",
    "functions.json": "application/json",
}
ICON_SIZES = (16, 32, 64, 80)
OFFICE_JS = "https://appsforoffice.microsoft.com"
CSP = (
    f"default-src 'self'; script-src 'self' {OFFICE_JS}; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'"
)
HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache", "Content-Security-Policy": CSP}

router = APIRouter(prefix="/addin", tags=["add-in"], include_in_schema=False)


def asset(name: str) -> bytes:
    return (files("celltrace.addin") / "web" / name).read_bytes()


def manifest_xml(origin: str) -> str:
    """The add-in-only XML manifest with every URL on `origin`."""
    version = ".".join([*__version__.split(".")[:3], "0"])
    text = asset("manifest.xml").decode("utf-8")
    return text.replace("{origin}", escape(origin, {'"': "&quot;"})).replace("{version}", version)


@router.get("/")
def pane_home() -> RedirectResponse:
    return RedirectResponse("/addin/taskpane.html")


@router.get("/manifest.xml")
def manifest(request: Request) -> Response:
    origin = f"{request.url.scheme}://{request.url.netloc}"
    return Response(manifest_xml(origin), media_type="application/xml", headers=HEADERS)


@router.get("/icon-{size}.png")
def icon(size: int) -> Response:
    if size not in ICON_SIZES:
        raise ApiError(404, "not_found", f"icons come in sizes {', '.join(map(str, ICON_SIZES))}")
    return Response(icon_png(size), media_type="image/png", headers=HEADERS)


@router.get("/{name}")
def static(name: str) -> Response:
    if name not in ASSETS:
        raise ApiError(404, "not_found", f"/addin/{name} does not exist")
    return Response(asset(name), media_type=ASSETS[name], headers=HEADERS)
