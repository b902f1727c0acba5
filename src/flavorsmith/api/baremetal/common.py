"""What every Ironic handler needs beside the request context: the root URL, microversion
gates and node lookup by UUID or name."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from flavorsmith.api.links import base
from flavorsmith.api.microversions import Version
from flavorsmith.api.requests import microversion
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, NotAcceptable
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
    connection: Connection, request: Request, ident: str, *, lock: bool = False
) -> dict[str, Any]:
    """The node named in the path: names are accepted from API version 1.5, as in Ironic."""
    by_name = microversion(request) >= NAMES_SINCE
    try:
        return store.find(connection, ident, by_name=by_name, lock=lock)
    except Exception:
        if ident.endswith(".json"):
            # Ironic strips .json as a format suffix and then fails with a 500.
            raise Invalid(
                f"Node identifier {ident!r} ends in '.json', which is not part of any node's "
                f"name or UUID; use {ident.removesuffix('.json')!r}"
            ) from None
        raise
