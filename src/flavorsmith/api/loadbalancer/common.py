"""What the Octavia-style handlers share: policy, transactions, and Octavia's list queries
(filters on any attribute, repeated ``fields``, ``sort``/``sort_key``/``sort_dir``,
``limit``/``marker``/``page_reverse`` with ``*_links``).

The store pages in SQL (keyset on the sort keys, then id): the order is total, so pages never
skip or repeat."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlencode

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from flavorsmith.api.links import base
from flavorsmith.api.requests import identity, json_body
from flavorsmith.db.engine import writer
from flavorsmith.errors import Invalid
from flavorsmith.jsonsafe import excerpt
from flavorsmith.params import ascii_int
from flavorsmith.store import service_flavors
from flavorsmith.store.plumbing import Connection

T = TypeVar("T")
PAGING = ("fields", "sort", "sort_key", "sort_dir", "limit", "marker", "page_reverse")
ROOTS = ("/v2/lbaas", "/v2.0/lbaas")


def authorize(request: Request, rule: str) -> None:
    request.app.state.services.enforcer.authorize(rule, identity(request))


async def run(request: Request, work: Callable[[Connection], T], *, write: bool) -> T:
    engine = request.app.state.services.engine

    def transaction() -> T:
        with (writer(engine) if write else engine).begin() as connection:
            return work(connection)

    return await run_in_threadpool(transaction)


async def wrapped_body(request: Request, key: str) -> dict[str, Any]:
    """The object inside Octavia's ``{"<key>": {...}}`` request body."""
    body = await json_body(request)
    if not isinstance(body, dict) or not isinstance(body.get(key), dict):
        raise Invalid(f'The request body must be {{"{key}": {{...}}}}')
    if set(body) != {key}:
        raise Invalid(f"Unknown attribute {sorted(set(body) - {key})[0]!r}")
    values: dict[str, Any] = body[key]
    return values


def collection_url(request: Request, name: str) -> str:
    path = request.url.path
    root = "/v2.0/lbaas" if "/v2.0/" in path else "/v2/lbaas"
    return f"{base(request)}/load-balancer{root}/{name}"


def _bool(name: str, raw: str) -> bool:
    lowered = raw.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise Invalid(f"Invalid value for {name}: {excerpt(raw)}; use true or false")


def fields_of(request: Request, known: tuple[str, ...]) -> list[str] | None:
    values = [v for raw in request.query_params.getlist("fields") for v in raw.split(",")]
    wanted = [v.strip() for v in values if v.strip()]
    if not wanted:
        return None
    unknown = [f for f in wanted if f not in known]
    if unknown:
        raise Invalid(f"Unknown field {unknown[0]!r} in fields; known: {', '.join(known)}")
    return list(dict.fromkeys(wanted))


def select_fields(row: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
    return dict(row) if fields is None else {f: row[f] for f in fields}


def _sort_keys(request: Request, known: tuple[str, ...]) -> list[tuple[str, bool]]:
    params = request.query_params
    keys: list[tuple[str, bool]] = []
    if "sort" in params:
        if "sort_key" in params or "sort_dir" in params:
            raise Invalid("Use either sort or sort_key/sort_dir, not both")
        for part in params["sort"].split(","):
            key, _, direction = part.strip().partition(":")
            keys.append((key, _direction(direction or "asc")))
    elif "sort_key" in params or "sort_dir" in params:
        ascending = _direction(params.get("sort_dir", "asc"))
        for key in params.get("sort_key", "id").split(","):
            keys.append((key.strip(), ascending))
    for key, _ in keys:
        if key not in known:
            raise Invalid(f"Invalid sort key {key!r}; sort by one of {', '.join(known)}")
    return keys


def _direction(value: str) -> bool:
    if value not in ("asc", "desc"):
        raise Invalid(f"Invalid sort direction {value!r}: use asc or desc")
    return value == "asc"


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
        if name not in ("fields",) and len(params.getlist(name)) > 1:
            raise Invalid("One or more arguments are either duplicate or invalid")
    fields = fields_of(request, known)
    filters: dict[str, str | bool] = {
        name: _bool(name, params[name]) if name == "enabled" else params[name]
        for name in filterable
        if name in params
    }
    sort = _sort_keys(request, known)
    limit: int | None = None
    if "limit" in params:
        limit = ascii_int(params["limit"])
        if limit is None:
            raise Invalid(f"Invalid limit {excerpt(params['limit'])}: use a positive integer")
        if limit < 1:
            raise Invalid(f"Invalid limit {limit}: use a positive integer")
    reverse = _bool("page_reverse", params["page_reverse"]) if "page_reverse" in params else False
    marker = params.get("marker")
    found = await run(
        request,
        lambda c: service_flavors.page(
            c, kind, filters=filters, sort=sort, marker=marker, limit=limit, reverse=reverse
        ),
        write=False,
    )
    page, more_back, more_forward = found.rows, found.more_before, found.more_after
    links = []
    url = collection_url(request, collection)
    query = [(k, v) for k, v in params.multi_items() if k not in ("marker", "page_reverse")]
    if more_forward and page:
        following = [*query, ("marker", page[-1]["id"])]
        links.append({"href": f"{url}?{urlencode(following)}", "rel": "next"})
    if more_back and page:
        previous = [*query, ("marker", page[0]["id"]), ("page_reverse", "True")]
        links.append({"href": f"{url}?{urlencode(previous)}", "rel": "previous"})
    return {
        collection: [select_fields(shown(r), fields) for r in page],
        links_key: links,
    }
