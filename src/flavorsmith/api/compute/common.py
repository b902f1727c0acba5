"""What every Nova handler needs: policy, the viewer, transactions, the flavor in the path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from flavorsmith.api.auth import Identity
from flavorsmith.api.links import base
from flavorsmith.api.microversions import Version
from flavorsmith.api.requests import identity, microversion
from flavorsmith.api.viewers import viewer
from flavorsmith.db.engine import Connection, writer
from flavorsmith.errors import NotFound

T = TypeVar("T")
__all__ = ["at_least", "authorize", "require", "root", "run", "viewer"]


def authorize(request: Request, rule: str, target: dict[str, Any] | None = None) -> Identity:
    who = identity(request)
    request.app.state.services.enforcer.authorize(rule, who, target)
    return who


def root(request: Request) -> str:
    return f"{base(request)}/compute"


def at_least(request: Request, major: int, minor: int) -> bool:
    return microversion(request) >= Version(major, minor)


def require(request: Request, major: int, minor: int) -> None:
    """Resources that appear at a microversion are 404 before it, as in Nova."""
    if not at_least(request, major, minor):
        raise NotFound("The resource could not be found.")


async def run(request: Request, work: Callable[[Connection], T], *, write: bool) -> T:
    engine = request.app.state.services.engine

    def call() -> T:
        with (writer(engine) if write else engine).begin() as connection:
            return work(connection)

    return await run_in_threadpool(call)
