"""What the Octavia-style handlers share: policy, transactions, and Octavia's list queries
(filters on any attribute, repeated ``fields``, ``sort``/``sort_key``/``sort_dir``,
``limit``/``marker``/``page_reverse`` with ``*_links``).

The store pages in SQL (keyset on the sort keys, then id): the order is total, so pages never
skip or repeat."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Request

from flavorsmith.api.context import run
from flavorsmith.api.families import Family
from flavorsmith.api.links import base
from flavorsmith.api.paging import octavia_links
from flavorsmith.api.query import OCTAVIA, Query, boolean, check_repeats
from flavorsmith.api.requests import json_body
from flavorsmith.errors import Invalid
from flavorsmith.store import service_flavors

PAGING = ("fields", "sort", "sort_key", "sort_dir", "limit", "marker", "page_reverse")
ROOTS = ("/v2/lbaas", "/v2.0/lbaas")
# The name of the body argument of Octavia 19's controllers (flavor_profiles.py line 94,
# flavors.py line 86), which wsme puts in its unknown-attribute message.
ARGUMENTS = {"flavorprofile": "flavor_profile_", "flavor": "flavor_"}


async def wrapped_body(
    request: Request, key: str, allowed: frozenset[str] | None = None
) -> dict[str, Any]:
    """The object inside Octavia's ``{"<key>": {...}}`` request body.

    An attribute outside ``allowed`` is refused in wsme's words, naming the controller's
    argument (``flavor_profile_`` or ``flavor_``) as Octavia 19 does: its POST bodies have no
    ``id`` (api/v2/types/flavor_profile.py line 42, types/flavors.py line 43), so a
    client-supplied id is such an attribute."""
    body = await json_body(request)
    if not isinstance(body, dict) or not isinstance(body.get(key), dict):
        raise Invalid(f'The request body must be {{"{key}": {{...}}}}')
    if set(body) != {key}:
        raise Invalid(f"Unknown attribute {sorted(set(body) - {key})[0]!r}")
    values: dict[str, Any] = body[key]
    if allowed is not None:
        unknown = [name for name in values if name not in allowed]
        if unknown:
            argument = ARGUMENTS.get(key, key)
            raise Invalid(f"Unknown attribute for argument {argument}.{key}: {unknown[0]}")
    return values


def collection_url(request: Request, name: str) -> str:
    path = request.url.path
    root = "/v2.0/lbaas" if "/v2.0/" in path else "/v2/lbaas"
    return f"{base(request)}/load-balancer{root}/{name}"


def fields_of(request: Request, known: tuple[str, ...]) -> list[str] | None:
    """Octavia's ``fields`` (repeatable, comma lists); None for every field."""
    fields = Query(request, OCTAVIA).fields(
        known, "Unknown field {first!r} in fields; known: {known}"
    )
    return fields or None


def select_fields(row: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
    return dict(row) if fields is None else {f: row[f] for f in fields}


async def listing(
    request: Request,
    kind: str,
    *,
    collection: str,
    links_key: str,
    known: tuple[str, ...],
    filterable: tuple[str, ...],
    shown: Callable[[dict[str, Any]], dict[str, Any]] = dict,
) -> dict[str, Any]:
    params = request.query_params
    for name in params:
        if name not in (*PAGING, *filterable):
            raise Invalid("One or more arguments are either duplicate or invalid")
    check_repeats(request, Family.OCTAVIA)
    query = Query(request, OCTAVIA)
    fields = fields_of(request, known)
    filters: dict[str, str | bool] = {
        name: boolean(OCTAVIA, name, params[name]) if name == "enabled" else params[name]
        for name in filterable
        if name in params
    }
    sort = query.sorting(known)
    limit = query.limit()
    reverse = query.flag("page_reverse") or False
    marker = params.get("marker")
    found = await run(
        request,
        lambda c: service_flavors.page(
            c, kind, filters=filters, sort=sort, marker=marker, limit=limit, reverse=reverse
        ),
        write=False,
    )
    links = octavia_links(request, collection_url(request, collection), found, _id)
    return {
        collection: [select_fields(shown(r), fields) for r in found.rows],
        links_key: links,
    }


def _id(row: dict[str, Any]) -> str:
    ident: str = row["id"]
    return ident
