"""What every Nova handler needs beside the request context: the root URL, microversion gates
and the viewer."""

from __future__ import annotations

from fastapi import Request

from flavorsmith.api.links import base
from flavorsmith.api.microversions import Version
from flavorsmith.api.requests import microversion
from flavorsmith.api.viewers import viewer
from flavorsmith.errors import NotFound

__all__ = ["at_least", "require", "root", "viewer"]


def root(request: Request) -> str:
    return f"{base(request)}/compute"


def at_least(request: Request, major: int, minor: int) -> bool:
    return microversion(request) >= Version(major, minor)


def require(request: Request, major: int, minor: int) -> None:
    """Resources that appear at a microversion are 404 before it, as in Nova."""
    if not at_least(request, major, minor):
        raise NotFound("The resource could not be found.")
