"""Route templates (``/compute/v2.1/flavors/{flavorid}``, never the raw path): what metrics
and log lines name a request by, so their label sets stay bounded whatever clients send."""

from __future__ import annotations

import re
from collections.abc import Sequence

from starlette.routing import BaseRoute, compile_path
from starlette.types import Scope

from flavorsmith.api.families import PREFIXES

# The route of a request no route matches (a 404 for an unknown path).
UNMATCHED = "unmatched"


class RouteTable:
    """Every route with its full template (the prefix it is included under and its path)."""

    def __init__(self) -> None:
        self._templates: dict[int, str] = {}  # id(route) -> template
        self._routes: list[BaseRoute] = []  # keeps the ids above valid
        self._patterns: list[tuple[re.Pattern[str], frozenset[str] | None, str]] = []

    def add(self, prefix: str, routes: Sequence[BaseRoute]) -> None:
        for route in routes:
            path = getattr(route, "path", None)
            if not isinstance(path, str):
                continue
            template = prefix + path
            self._templates[id(route)] = template
            self._routes.append(route)
            methods = getattr(route, "methods", None)
            regex = compile_path(template)[0]
            self._patterns.append((regex, frozenset(methods) if methods else None, template))

    def template(self, scope: Scope) -> str:
        """The template of the route that served the request (the router names it in the
        scope), else of the route that would have (a request refused before routing: no
        token, a bad microversion), else UNMATCHED."""
        route = scope.get("route")
        if route is not None:
            found = self._templates.get(id(route))
            if found is not None:
                return found
            found = _included(route, scope["path"])  # a route included after the app was built
            if found is not None:
                return found
        partial = None
        for regex, methods, template in self._patterns:
            if regex.match(scope["path"]):
                if methods is None or scope["method"] in methods:
                    return template
                partial = partial or template  # the path matched, the method did not (405)
        return partial or UNMATCHED


def _included(route: BaseRoute, path: str) -> str | None:
    """The template of a route the table does not know, from the family prefix under which
    its own path matches the request's."""
    own = getattr(route, "path", None)
    if not isinstance(own, str):
        return None
    for prefix in ("", *PREFIXES.values()):
        if compile_path(prefix + own)[0].match(path):
            return prefix + own
    return None
