"""What every Ironic handler needs: policy, node lookup by UUID or name, transactions."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from flavorsmith.api.links import base
from flavorsmith.api.microversions import Version
from flavorsmith.api.requests import identity, microversion
from flavorsmith.db.engine import writer
from flavorsmith.errors import Invalid, NotAcceptable
from flavorsmith.store import nodes as store
from flavorsmith.store.plumbing import Connection

T = TypeVar("T")
NAMES_SINCE = Version(1, 5)
TRAITS_SINCE = Version(1, 37)


def authorize(request: Request, rule: str) -> None:
    request.app.state.services.enforcer.authorize(rule, identity(request))


def root(request: Request) -> str:
    return f"{base(request)}/baremetal"


def require(request: Request, since: Version) -> Version:
    version = microversion(request)
    if version < since:
        raise NotAcceptable(
            f"This resource needs API version {since} or later (this request asked for {version})."
        )
    return version


@contextmanager
def _transaction(request: Request, write: bool) -> Iterator[Connection]:
    engine = request.app.state.services.engine
    with (writer(engine) if write else engine).begin() as connection:
        yield connection


async def run(request: Request, work: Callable[[Connection], T], *, write: bool) -> T:
    """Run ``work`` in one transaction on a worker thread (the database calls block)."""

    def call() -> T:
        with _transaction(request, write) as connection:
            return work(connection)

    return await run_in_threadpool(call)


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
