"""Interactive API docs that work offline: Swagger UI at `/docs`, ReDoc at `/redoc`, `/` → `/docs`.

The JavaScript and CSS come from the `fastapi-offline` package's bundled copies (served under
`/docs-assets/`), never from a CDN, so the pages load with the network off.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs-assets"
OPENAPI_URL = "/openapi.json"


def assets_dir() -> Path:
    """The folder holding swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js, favicon.png."""
    return Path(str(files("fastapi_offline") / "static"))


router = APIRouter(include_in_schema=False)


@router.get("/")
async def root() -> RedirectResponse:
    return RedirectResponse("/docs")


@router.get("/docs")
async def swagger_ui() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=OPENAPI_URL,
        title="celltrace API",
        swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS_URL}/favicon.png",
        swagger_ui_parameters={"validatorUrl": None},  # no call to the public validator service
    )


@router.get("/redoc")
async def redoc() -> HTMLResponse:
    return get_redoc_html(
        openapi_url=OPENAPI_URL,
        title="celltrace API",
        redoc_js_url=f"{ASSETS_URL}/redoc.standalone.js",
        redoc_favicon_url=f"{ASSETS_URL}/favicon.png",
        with_google_fonts=False,
    )


def install(app: FastAPI) -> None:
    """Add the docs pages and their local assets (create the app with `docs_url=None, redoc_url=None`)."""
    app.include_router(router)
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")
