"""The one middleware: request id, body limit, authentication, microversions, access log and
request metrics (by route template, never by raw path: the label set stays bounded)."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, QueryParams
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flavorsmith import metrics
from flavorsmith.api.auth import Authenticator
from flavorsmith.api.families import Family, error_response, family_of
from flavorsmith.api.log_throttle import LogThrottle, left_out_note
from flavorsmith.api.microversions import IRONIC, NOVA, MicroversionSpec
from flavorsmith.api.routes import RouteTable
from flavorsmith.db.outage import outage
from flavorsmith.errors import FlavorsmithError, Invalid, PayloadTooLarge
from flavorsmith.jsonsafe import excerpt
from flavorsmith.logs import REQUEST_ID, event
from flavorsmith.query_values import ascii_int

log = logging.getLogger("flavorsmith.api")
# C0 controls and DEL: never part of an identifier, a name or a filter value.
_CONTROL = re.compile("[\x00-\x1f\x7f]")

# What a client is told to wait before retrying while the database is out of reach.
DATABASE_RETRY_AFTER = 5
# A request whose client went away before its body arrived is no server error: recorded with
# nginx's 499 ("client closed request"), or the 408 the server answered when the body took
# longer than --body-timeout (it sets BODY_TIMED_OUT in the request's state).
CLIENT_CLOSED_REQUEST = 499
BODY_TIMED_OUT = "body_timed_out"
# Set in a request's state by a handler that answers as the real service's router does
# (see baremetal/common.py's router_answer): no version headers then.
ROUTER_ANSWER = "router_answer"

# Version documents and probes answer without a token, as OpenStack services do; so do the
# service's auth mode and its login (which is how a caller gets a token).
PUBLIC_PATHS = frozenset(
    {
        "/",
        "/v1/auth",
        "/v1/login",
        "/healthz",
        "/readyz",
        "/openapi.json",
        "/v1",
        "/v1/openapi.json",
        "/baremetal",
        "/baremetal/",
        "/baremetal/v1",
        "/baremetal/v1/",
        "/compute",
        "/compute/",
        "/compute/v2.1",
        "/compute/v2.1/",
        "/load-balancer",
        "/load-balancer/",
        "/load-balancer/v2",
        "/load-balancer/v2/",
        "/load-balancer/v2.0",
        "/load-balancer/v2.0/",
    }
)
# The dashboard's static pages: they hold no data (their scripts call the APIs with a token).
PUBLIC_TREE = "/ui"
# The headers each real service carries its request id in.
REQUEST_ID_HEADERS = {
    Family.IRONIC: ("x-openstack-request-id", "openstack-request-id"),
    Family.NOVA: ("x-openstack-request-id", "x-compute-request-id"),
    Family.OCTAVIA: ("x-openstack-request-id",),
    Family.NATIVE: ("x-openstack-request-id",),
}
# Where each microversioned API lives.
VERSIONED: dict[Family, tuple[str, MicroversionSpec]] = {
    Family.IRONIC: ("/baremetal", IRONIC),
    Family.NOVA: ("/compute/v2.1", NOVA),
}


class ServiceMiddleware:
    """Runs around every request, in this order: id, limits, identity, version, app, log."""

    def __init__(
        self,
        app: ASGIApp,
        authenticator: Authenticator,
        max_body_bytes: int,
        routes: RouteTable | None = None,
        outage_log: LogThrottle | None = None,
    ) -> None:
        self.app = app
        self.authenticator = authenticator
        self.max_body_bytes = max_body_bytes
        self.outage_log = outage_log or LogThrottle()
        self.routes = routes or RouteTable()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = f"req-{uuid.uuid4()}"
        token = REQUEST_ID.set(request_id)
        status_seen = [500]
        try:
            scope = await self._serve(scope, receive, send, request_id, status_seen)
        finally:
            REQUEST_ID.reset(token)
        seconds = time.perf_counter() - started
        route = self.routes.template(scope)
        family = scope["state"]["family"]
        metrics.record_request(family.value, route, scope["method"], status_seen[0], seconds)
        self._log(scope, route, status_seen[0], seconds, request_id)

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, request_id: str, status_seen: list[int]
    ) -> Scope:
        """Answer the request; returns the scope it was served with (the app's router
        records its route there)."""
        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/"):
            # OpenStack services answer with or without a trailing slash; no redirects.
            path = path.rstrip("/") or "/"
            scope = {**scope, "path": path, "raw_path": path.encode()}
        family = family_of(path)
        state = scope.setdefault("state", {})
        state.update(request_id=request_id, family=family)
        extra_headers = {key: request_id for key in REQUEST_ID_HEADERS[family]}
        version_headers: set[str] = set()
        headers = Headers(scope=scope)

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_seen[0] = message["status"]
                raw = list(message.get("headers", []))
                present = {k.lower() for k, _ in raw}
                # An answer of the real service's router itself (its 404 or 405 for a path
                # a version does not have) carries no version headers there.
                bare = state.get(ROUTER_ANSWER, False)
                for key, value in extra_headers.items():
                    if bare and key in version_headers:
                        continue
                    if key.lower().encode() not in present:
                        raw.append((key.lower().encode(), value.encode()))
                message = {**message, "headers": raw}
            await send(message)

        try:
            self._check_length(headers)
            _check_characters(path, scope.get("query_string", b""))
            versioned = VERSIONED.get(family)
            if versioned is not None and _under(path, versioned[0]):
                spec = versioned[1]
                try:
                    version = spec.negotiate(headers)
                finally:
                    extra_headers.update(spec.range_headers())
                state["microversion"] = version
                extra_headers.update(spec.response_headers(version))
                version_headers.update(spec.response_headers(version))
            if path not in PUBLIC_PATHS and not _under(path, PUBLIC_TREE):
                if self.authenticator.blocking:  # Keystone: network I/O, off the event loop
                    state["identity"] = await run_in_threadpool(
                        self.authenticator.authenticate, headers
                    )
                else:
                    state["identity"] = self.authenticator.authenticate(headers)
        except FlavorsmithError as exc:
            response = error_response(family, exc.status, exc.message, exc.headers)
            await response(scope, receive, send_wrapper)
            return scope
        except Exception as exc:
            await self._unhandled(exc, scope, receive, send_wrapper, family, request_id)
            return scope
        try:
            await self.app(scope, self._limited(receive), send_wrapper)
        except ClientDisconnect:
            # Nothing to answer (the socket is gone) and nothing to log as an error.
            timed_out = state.get(BODY_TIMED_OUT, False)
            status_seen[0] = 408 if timed_out else CLIENT_CLOSED_REQUEST
        except Exception as exc:
            await self._unhandled(exc, scope, receive, send_wrapper, family, request_id)
        return scope

    async def _unhandled(
        self,
        error: Exception,
        scope: Scope,
        receive: Receive,
        send: Send,
        family: Family,
        request_id: str,
    ) -> None:
        """A 503 with Retry-After when the database is out of reach (the pool reconnects by
        itself when it is back), else a 500; in the family's body with the request id. The
        log line escapes the method and path (a %0A in a path must not start a forged log
        line)."""
        reason = outage(error)
        if reason is not None:
            response = self._unavailable(reason, family, request_id)
        else:
            log.exception(
                "unhandled error in %s %s [%s]",
                loggable(str(scope.get("method", ""))),
                loggable(str(scope.get("path", ""))),
                request_id,
            )
            response = error_response(
                family,
                500,
                f"An unexpected error occurred; the service log has the details ({request_id}).",
            )
        await response(scope, receive, send)

    def _unavailable(self, reason: str, family: Family, request_id: str) -> Response:
        left_out = self.outage_log.admit()
        if left_out is not None:
            log.warning(
                "database unavailable, answering 503: %s [%s]%s",
                loggable(reason, 300),
                request_id,
                left_out_note(left_out),
            )
        return error_response(
            family,
            503,
            "The database is unavailable; try again in "
            f"{DATABASE_RETRY_AFTER} seconds ({request_id}).",
            {"Retry-After": str(DATABASE_RETRY_AFTER)},
        )

    def _check_length(self, headers: Headers) -> None:
        length = headers.get("content-length")
        number = ascii_int(length) if length is not None else None
        if number is not None and number > self.max_body_bytes:
            raise PayloadTooLarge(
                f"Request body is {length} bytes; at most {self.max_body_bytes} bytes are accepted"
            )

    def _limited(self, receive: Receive) -> Callable[[], Any]:
        seen = [0]
        limit = self.max_body_bytes

        async def wrapped() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                seen[0] += len(message.get("body", b""))
                if seen[0] > limit:
                    raise PayloadTooLarge(
                        f"Request body is larger than {limit} bytes, the most accepted"
                    )
            return message

        return wrapped

    def _log(self, scope: Scope, route: str, status: int, seconds: float, request_id: str) -> None:
        identity = scope.get("state", {}).get("identity")
        log.info(
            "request",
            extra=event(
                "request",
                request_id=request_id,
                method=scope["method"],
                path=scope["path"],
                route=route,
                status=status,
                ms=round(seconds * 1000, 2),
                user=getattr(identity, "user_id", None),
                project=getattr(identity, "project_id", None),
            ),
        )


def loggable(text: str, limit: int = 200) -> str:
    """User-controlled text for a log line: escaped (no line breaks or control characters
    survive) and shortened."""
    escaped = text.encode("unicode_escape").decode("ascii")
    return escaped if len(escaped) <= limit else f"{escaped[:limit]}… ({len(text)} characters)"


def _check_characters(path: str, query_string: bytes) -> None:
    """400 for a control character (NUL, line breaks, ...) in a path segment or a query
    parameter: no identifier or filter holds one, and PostgreSQL refuses NUL in text."""
    for segment in path.split("/"):
        bad = _CONTROL.search(segment)
        if bad:
            raise Invalid(
                f"The path segment {excerpt(segment)} holds a control character "
                f"(U+{ord(bad.group()):04X}); identifiers and names never do"
            )
    if not query_string:
        return
    for name, value in QueryParams(query_string).multi_items():
        bad = _CONTROL.search(name) or _CONTROL.search(value)
        if bad:
            raise Invalid(
                f"The query parameter {excerpt(name)} holds a control character "
                f"(U+{ord(bad.group()):04X}); no filter or option takes one"
            )


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")
