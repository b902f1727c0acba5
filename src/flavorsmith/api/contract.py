"""One declaration per HTTP operation: what it takes and answers.

A handler is declared with its :class:`Contract` (``@declare(CONTRACT)`` under the route
decorator); the handler checks its query with the same contract (``CONTRACT.check_query``) and
the OpenAPI document (api/openapi.py) is generated from the contracts of the app's routes, so
the accepted parameters and the documented ones are one list. Each family declares its
contracts next to its handlers, its shapes in its ``schemas.py``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import APIRouter, Request

from flavorsmith.api.requests import check_query
from flavorsmith.api.schema import Schema, string

__all__ = [
    "READ",
    "WRITE",
    "Contract",
    "add_lists",
    "declare",
    "declared",
    "params",
]

# The error statuses every operation of a kind may answer (each family adds its own).
READ = (400, 401, 403)
WRITE = (400, 401, 403, 413, 415)

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
# Serves one of a collection's two lists: the request, that list's contract, and whether it is
# the detailed one.
Lister = Callable[[Request, "Contract", bool], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Contract:
    """One operation: its success answers, query parameters, body and error statuses."""

    summary: str
    ok: Mapping[int, Schema | None]  # status -> JSON body schema (None: no body)
    query: Mapping[str, Schema] = field(default_factory=dict)
    body: Schema | None = None
    body_required: bool = True
    patch: bool = False  # the body is a JSON patch: application/json-patch+json too
    errors: tuple[int, ...] = ()
    query_array: tuple[str, ...] = ()  # query parameters that may repeat (Octavia's fields)

    def check_query(self, request: Request) -> None:
        """400 for a query parameter this operation does not declare (and for one sent twice
        where the family's service refuses that): see ``requests.check_query``."""
        check_query(request, self.query)


_DECLARED: dict[Callable[..., Any], Contract] = {}


def declare(contract: Contract) -> Callable[[Endpoint], Endpoint]:
    """Declare a handler's contract (put it under the route decorator; a handler served on
    several paths has one contract)."""

    def mark(endpoint: Endpoint) -> Endpoint:
        _DECLARED[endpoint] = contract
        return endpoint

    return mark


def declared(endpoint: Callable[..., Any]) -> Contract | None:
    """The contract a handler was declared with, if any."""
    return _DECLARED.get(endpoint)


def add_lists(
    router: APIRouter,
    path: str,
    name: str,
    lister: Lister,
    brief: Contract,
    detailed: Contract,
) -> None:
    """Route a collection's two lists as Ironic and Nova serve them, ``path`` and
    ``path/detail``, both served by ``lister`` with their own contract (routes ``name`` and
    ``name_detail``). Call it before routing ``path/{ident}``, which would take ``detail``."""

    def served(contract: Contract, detail: bool) -> Callable[[Request], Awaitable[Any]]:
        @declare(contract)
        async def handler(request: Request) -> dict[str, Any]:
            return await lister(request, contract, detail)

        return handler

    router.add_api_route(path, served(brief, False), methods=["GET"], name=name)
    router.add_api_route(
        f"{path}/detail", served(detailed, True), methods=["GET"], name=f"{name}_detail"
    )


def params(names: Iterable[str], types: Mapping[str, Schema]) -> dict[str, Schema]:
    """Query parameters by name, each with its type in ``types`` or a string."""
    return {name: types.get(name, string()) for name in sorted(names)}
