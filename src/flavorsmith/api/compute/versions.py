"""/compute: Nova's version discovery documents (the resources are in the sibling modules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.links import base, link
from flavorsmith.api.microversions import NOVA

router = APIRouter()

UPDATED = "2013-07-23T11:33:21Z"


def _v21(request: Request) -> dict[str, Any]:
    return {
        "id": "v2.1",
        "status": "CURRENT",
        "version": str(NOVA.maximum),
        "min_version": str(NOVA.minimum),
        "updated": UPDATED,
        "links": [link(f"{base(request)}/compute/v2.1/", "self")],
    }


@router.get("")
@router.get("/")
async def versions(request: Request) -> dict[str, Any]:
    return {"versions": [_v21(request)]}


@router.get("/v2.1")
@router.get("/v2.1/")
async def v21(request: Request) -> dict[str, Any]:
    version = _v21(request)
    version["links"].append(link("http://docs.openstack.org/", "describedby", type="text/html"))
    version["media-types"] = [
        {"base": "application/json", "type": "application/vnd.openstack.compute+json;version=2.1"}
    ]
    return {"version": version}
