"""One declaration per HTTP operation: what it takes and answers.

A handler is declared with its :class:`Contract` (``@declare(CONTRACT)`` under the route
decorator); the handler checks its query with the same contract (``CONTRACT.check_query``),
reads its body through it where the family's words allow (``CONTRACT.body_of``: checked
against the declared schema, api/body_check.py), and the OpenAPI document (api/openapi.py) is
generated from the contracts of the app's routes, so the accepted parameters and the
documented ones are one list. Each family declares its contracts next to its handlers, its
shapes in its ``schemas.py``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from jsonschema import Draft202012Validator

from flavorsmith.api import body_check
from flavorsmith.api.requests import check_query, json_body
from flavorsmith.api.schema import Schema, string
from flavorsmith.errors import Invalid

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
    body_noun: str = "request"  # what a message about the body calls it ("the login's ...")

    def check_query(self, request: Request) -> None:
        """400 for a query parameter this operation does not declare (and for one sent twice
        where the family's service refuses that): see ``requests.check_query``."""
        check_query(request, self.query)

    async def body_of(self, request: Request) -> Any:
        """The JSON body checked against the declared ``body`` schema: a 400 that names the
        field and what it takes (api/body_check.py); None for an optional body not sent. The
        compatible families whose replays check the real services' own words for a body
        keep their handlers' parsers for those checks (see docs/architecture.md)."""
        if not self.body_required and not (await request.body()).strip():
            return None
        data = await json_body(request)
        if self.body is not None:
            found = body_check.problem(self._body_checker, data, self.body_noun)
            if found is not None:
                raise Invalid(found)
        return data

    @cached_property
    def _body_checker(self) -> Draft202012Validator:
        return body_check.validator(self.body or {})


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
