"""/ui: the dashboard's pages, stylesheet and scripts, served from the package itself.

Nothing here reads data: each page is static HTML with a small script that calls the /v1 APIs
with the caller's token (``X-Auth-Token``, kept in the tab's sessionStorage; never a cookie).
So the pages need no token, and every answer they show is authorized as any API call is. The
Content-Security-Policy allows only this service's own scripts, styles, images and API: a page
fetches nothing from elsewhere, and no inline script runs."""

from __future__ import annotations

import re
from importlib.resources import files

from fastapi import APIRouter
from starlette.responses import Response

from flavorsmith.errors import NotFound

router = APIRouter()

PREFIX = "/ui"
_ASSETS = files(__package__) / "static"
_NAME = re.compile(r"^[a-z][a-z0-9-]*\.(html|css|js|svg)$")
_TYPES = {
    "html": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "svg": "image/svg+xml",
}
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Revalidated on every load: an upgrade's new pages are never mixed with cached scripts.
    "Cache-Control": "no-cache",
}


def asset_names() -> list[str]:
    """Every file /ui serves, by name."""
    return sorted(p.name for p in _ASSETS.iterdir() if _NAME.match(p.name))


def _asset(name: str) -> Response:
    match = _NAME.match(name)
    resource = _ASSETS / name
    if match is None or not resource.is_file():
        raise NotFound(f"No such resource: {PREFIX}/{name}")
    return Response(resource.read_bytes(), media_type=_TYPES[match.group(1)], headers=HEADERS)


@router.get("", include_in_schema=False)
async def index() -> Response:
    """The dashboard's first page: capacity."""
    return _asset("index.html")


@router.get("/{name}", include_in_schema=False)
async def asset(name: str) -> Response:
    return _asset(name)
