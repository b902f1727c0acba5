"""What every Ironic handler needs beside the request context: the root URL, microversion
gates, node lookup by UUID or name, and policy on a node (its owner and lessee)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from flavorsmith.api.baremetal.policies import node_target
from flavorsmith.api.context import context
from flavorsmith.api.links import base
from flavorsmith.api.microversions import Version
from flavorsmith.api.middleware import ROUTER_ANSWER
from flavorsmith.api.requests import microversion
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, NotAcceptable, NotFound
from flavorsmith.store import nodes as store

NAMES_SINCE = Version(1, 5)
TRAITS_SINCE = Version(1, 37)


def root(request: Request) -> str:
    return f"{base(request)}/baremetal"


def require(request: Request, since: Version) -> Version:
    version = microversion(request)
    if version < since:
        raise NotAcceptable(
            f"This resource needs API version {since} or later (this request asked for {version})."
        )
    return version


def load(
    connection: Connection,
    request: Request,
    ident: str,
    *,
    lock: bool = False,
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The node named in the path: names are accepted from API version 1.5, as in Ironic.
    ``columns``: only these of its stored columns (None: all)."""
    by_name = microversion(request) >= NAMES_SINCE
    try:
        return store.find(connection, ident, by_name=by_name, lock=lock, columns=columns)
    except Exception:
        if ident.endswith(".json"):
            # Ironic strips .json as a format suffix and then fails with a 500.
            raise Invalid(
                f"Node identifier {ident!r} ends in '.json', which is not part of any node's "
                f"name or UUID; use {ident.removesuffix('.json')!r}"
            ) from None
        raise


def may_act_on_some_node(request: Request, *rules: str) -> None:
    """Refuse (403) before the request is parsed unless one of ``rules`` could allow the
    caller on some node: on one its own project owned and leased, the most any project-scoped
    caller gets. The node itself is checked once it is loaded (``authorized_node``)."""
    ctx = context(request)
    project = ctx.identity.project_id
    best = {"node.owner": project, "node.lessee": project}
    if not any(ctx.allowed(rule, best) for rule in rules):
        ctx.authorize(rules[0], best)


def authorized_node(
    connection: Connection,
    request: Request,
    ident: str,
    rules: Sequence[str],
    *,
    lock: bool = False,
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The node named in the path, once policy allows the caller to see it
    (``baremetal:node:get``) and then each of ``rules``, on the node's owner and lessee, as
    Ironic checks them: a project-scoped caller who may not see the node gets 404, as if it
    did not exist; anyone else 403. ``columns``: only these of its stored columns (policy
    reads ``store.KEY_COLUMNS``); None: all."""
    row = load(connection, request, ident, lock=lock, columns=columns)
    ctx = context(request)
    target = node_target(row)
    if not ctx.allowed("baremetal:node:get", target):
        if ctx.identity.scope == "project":
            raise NotFound(f"Node {ident} could not be found.")
        ctx.authorize("baremetal:node:get", target)
    for rule in rules:
        ctx.authorize(rule, target)
    return row


def router_answer(request: Request, status: int, description: str) -> Response:
    """An answer of Ironic's router itself (pecan/webob: a 404 or 405 for what a version does
    not have): its body, and no version headers."""
    setattr(request.state, ROUTER_ANSWER, True)
    titles = {404: "Not Found", 405: "Method Not Allowed"}
    inner = {"code": status, "title": titles[status], "description": description}
    return JSONResponse({"error_message": json.dumps(inner)}, status_code=status)
