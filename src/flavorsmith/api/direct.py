"""Hot routes answered without FastAPI's router: writes of a node's traits, which inventory
tools make for one node after another. Their handlers are the FastAPI routes' own, called
with the same ``Request`` and path parameters; what is skipped is the router walking every
route of every API family (twice for the router that matches) and FastAPI's per-request
dependency machinery, which together cost a write of traits as much as its database work.

Sits inside ServiceMiddleware and CrossSiteGuard (request id, body limit, authentication,
microversion, cross-site refusal, access log and metrics all happen as for every request)
and answers a domain error with the application's own handler (each API's error body). A
request for any other route, or another method on these paths, goes to FastAPI unchanged."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from starlette.convertors import Convertor
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from flavorsmith.errors import FlavorsmithError

ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]


class _Direct:
    """One route: its method, its full path pattern and what FastAPI would call."""

    def __init__(self, prefix: str, route: APIRoute) -> None:
        (method,) = route.methods or {""}
        self.method = method
        self.route = route
        regex, _, convertors = compile_path(prefix + route.path)
        self.regex: re.Pattern[str] = regex
        self.convertors: dict[str, Convertor[Any]] = convertors
        self.endpoint: Callable[..., Awaitable[Response]] = route.endpoint


class DirectRoutes:
    """ASGI middleware: serves ``routes`` (FastAPI routes of one method whose endpoints take
    the request and their path parameters and return a Response) itself."""

    def __init__(
        self,
        app: ASGIApp,
        routes: Sequence[tuple[str, APIRoute]],
        on_error: ErrorHandler,
    ) -> None:
        self.app = app
        self.routes = [_Direct(prefix, route) for prefix, route in routes]
        self.on_error = on_error

    def match(self, scope: Scope) -> tuple[_Direct, re.Match[str]] | None:
        """The route (and its path match) of an HTTP request this serves, else None."""
        method = scope["method"]
        path = scope["path"]
        for direct in self.routes:
            if direct.method != method:
                continue
            found = direct.regex.match(path)
            if found is not None:
                return direct, found
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            matched = self.match(scope)
            if matched is not None:
                await self._serve(*matched, scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _serve(
        self, direct: _Direct, found: re.Match[str], scope: Scope, receive: Receive, send: Send
    ) -> None:
        params = {
            name: direct.convertors[name].convert(value)
            for name, value in found.groupdict().items()
        }
        # As the router records them: the route (metrics and logs name the request by it).
        scope["route"] = direct.route
        scope["endpoint"] = direct.endpoint
        scope["path_params"] = params
        request = Request(scope, receive, send)
        try:
            response = await direct.endpoint(request, **params)
        except FlavorsmithError as exc:
            response = await self.on_error(request, exc)
        if not isinstance(response, Response):
            raise TypeError(f"{direct.route.path}: its handler must return a Response")
        await response(scope, receive, send)


def writes_of(prefix: str, routes: Sequence[Any]) -> list[tuple[str, APIRoute]]:
    """The writes (PUT, DELETE) among ``routes`` (a router's, included under ``prefix``), as
    DirectRoutes takes them: their handlers return a Response (no serializing to do)."""
    return [
        (prefix, route)
        for route in routes
        if isinstance(route, APIRoute)
        and route.methods is not None
        and len(route.methods) == 1
        and route.methods <= WRITES
    ]


WRITES = frozenset({"PUT", "DELETE"})


class Application(FastAPI):
    """FastAPI, with the direct routes' requests also kept out of FastAPI's own outer
    middleware (its server-error page, OpenTelemetry hook and body limit, each of which the
    service middleware does for every request in its own way) when ``hot`` is set: a second
    chain of the service's middleware (the same request id, limits, authentication,
    microversion, cross-site refusal, access log and metrics) ending in DirectRoutes.

    A request whose path only matches once the service middleware has normalised it (a
    trailing slash) takes FastAPI's way, where the same DirectRoutes serves it."""

    hot: tuple[DirectRoutes, ASGIApp] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hot = self.hot
        if hot is not None and scope["type"] == "http" and hot[0].match(scope) is not None:
            scope["app"] = self  # as Starlette records it: handlers find the services there
            await hot[1](scope, receive, send)
            return
        await super().__call__(scope, receive, send)
