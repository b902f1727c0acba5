"""Request helpers every handler uses: the JSON body, allowed query parameters, the caller,
the microversion and the family the middleware found."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import Request

from flavorsmith import jsonsafe
from flavorsmith.api.auth import Identity
from flavorsmith.api.families import Family
from flavorsmith.api.microversions import Version
from flavorsmith.api.query import check_repeats
from flavorsmith.errors import Invalid, NotAuthenticated, UnsupportedMediaType

JSON_TYPES = ("application/json", "application/json-patch+json")


async def json_body(request: Request) -> Any:
    """The parsed JSON body; 415 for another content type, 400 for malformed JSON or a value
    beyond the request limits (see jsonsafe), naming its path."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await request.body()
    if content_type not in JSON_TYPES:
        shown = content_type or "none"
        raise UnsupportedMediaType(
            f"Content-Type {shown!r} is not supported; send application/json"
        )
    if not raw.strip():
        raise Invalid("The request body is empty; a JSON document is required")
    return jsonsafe.loads(raw)


def check_query(request: Request, allowed: Iterable[str]) -> None:
    """400 for a query parameter the endpoint does not take, naming it and what is allowed,
    and for one sent twice where the family's service refuses that (query.check_repeats)."""
    allowed_set = set(allowed)
    for name in request.query_params:
        if name not in allowed_set:
            choices = ", ".join(sorted(allowed_set)) or "none"
            raise Invalid(f"Unknown query parameter {name!r}; allowed: {choices}")
    check_repeats(request, family(request))


def identity(request: Request) -> Identity:
    found: Identity | None = request.scope.get("state", {}).get("identity")
    if found is None:
        raise NotAuthenticated("Authentication required")
    return found


def microversion(request: Request) -> Version:
    version: Version = request.scope["state"]["microversion"]
    return version


def family(request: Request) -> Family:
    found: Family = request.scope["state"]["family"]
    return found


def request_id(request: Request) -> str:
    return str(request.scope.get("state", {}).get("request_id", ""))
