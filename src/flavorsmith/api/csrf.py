"""No write from another web site: state-changing requests that a browser sends on behalf of
another site's page are refused before any handler runs.

A web page cannot read our answers without CORS (we send no CORS headers), but it can still
*send* a "simple" request: a form post, or a ``fetch`` with a form content type. Under
``noauth`` that alone could prune every managed flavor. So a POST, PUT, PATCH or DELETE is a
403 when

- its ``Origin`` is not the origin the request was addressed to (scheme, host and port);
  ``Origin: null`` (sandboxed frames, ``file:`` pages) is foreign too;
- ``Sec-Fetch-Site`` says anything but ``same-origin`` or ``none`` (``same-site`` is another
  origin on the same site, e.g. another port on localhost, and is refused too);
- its body has a content type a plain HTML form sends without a CORS preflight
  (``application/x-www-form-urlencoded``, ``multipart/form-data``, ``text/plain``); no API here
  takes those, they only ever come from a browser.

API clients (the ``openstack`` CLI, openstacksdk) send no ``Origin`` and JSON bodies, so they
are unaffected. Reads (GET, HEAD, OPTIONS) are never refused here.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from flavorsmith.api.families import error_response, family_of

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data", "text/plain"})
TRUSTED_FETCH_SITES = frozenset({"same-origin", "none"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


class CrossSiteGuard:
    """ASGI middleware: 403 in the API family's error body for a cross-site write."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE_METHODS:
            reason = refusal(scope)
            if reason is not None:
                path: str = scope["path"]
                response = error_response(family_of(path), 403, reason)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def refusal(scope: Scope) -> str | None:
    """Why this state-changing request looks sent by another site's page, or None."""
    headers = Headers(scope=scope)
    origins = headers.getlist("origin")
    if origins:  # (the service's own origin worked out only when there is one to compare)
        own = own_origin(scope, headers)
        for origin in origins:
            if _normalise(origin) != own:
                return (
                    f"Cross-site request refused: Origin {_shown(origin)} is not this "
                    f"service's origin ({_format(own)}); {scope['method']} requests are "
                    "accepted only from the service's own origin or from clients that send "
                    "no Origin"
                )
    for site in headers.getlist("sec-fetch-site"):
        if site.strip().lower() not in TRUSTED_FETCH_SITES:
            return (
                f"Cross-site request refused: Sec-Fetch-Site is {_shown(site)}; "
                f"{scope['method']} requests are accepted only from the same origin"
            )
    for content_type in headers.getlist("content-type"):
        media_type = content_type.split(";", 1)[0].strip().lower()
        if media_type in FORM_TYPES:
            return (
                f"Request refused: a {media_type} body can be sent by any web page, so it is "
                "never accepted for a state-changing request; send application/json"
            )
    return None


Origin = tuple[str, str, int | None]


def own_origin(scope: Scope, headers: Headers) -> Origin:
    """The origin the request was addressed to: its scheme, and the Host it was sent to."""
    scheme = str(scope.get("scheme", "http")).lower()
    host = headers.get("host")
    if host is None:
        server = scope.get("server")
        host = f"{server[0]}:{server[1]}" if server else ""
    return _normalise(f"{scheme}://{host}") or (scheme, "", None)


def _normalise(origin: str) -> Origin | None:
    """scheme, lower-case host and port (the scheme's default filled in); None if malformed
    or ``null``."""
    text = origin.strip()
    if text.lower() == "null":
        return None
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not scheme or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS.get(scheme)


def _format(origin: Origin) -> str:
    scheme, host, port = origin
    shown = f"[{host}]" if ":" in host else host
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{shown}"
    return f"{scheme}://{shown}:{port}"


def _shown(value: str) -> str:
    """A header value quoted for a message: short, with control characters escaped."""
    short = value if len(value) <= 100 else value[:100] + "…"
    return repr(short)
