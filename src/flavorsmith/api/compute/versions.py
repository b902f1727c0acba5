"""/compute: Nova's version discovery documents (the resources are in the sibling modules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.compute.schemas import NOVA_VERSION
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.links import base, link
from flavorsmith.api.microversions import NOVA
from flavorsmith.api.schema import array, obj

router = APIRouter()

UPDATED = "2013-07-23T11:33:21Z"
V20_UPDATED = "2025-07-04T12:00:00Z"  # as Nova 34 dates its v2.0 entry


def _v21(request: Request) -> dict[str, Any]:
    return {
        "id": "v2.1",
        "status": "CURRENT",
        "version": str(NOVA.maximum),
        "min_version": str(NOVA.minimum),
        "updated": UPDATED,
        "links": [link(f"{base(request)}/compute/v2.1/", "self")],
    }


def _v20(request: Request) -> dict[str, Any]:
    """Nova 34 still lists the legacy v2.0 API (deprecated, no microversions); this service
    does not serve it."""
    return {
        "id": "v2.0",
        "status": "DEPRECATED",
        "version": "",
        "min_version": "",
        "updated": V20_UPDATED,
        "links": [link(f"{base(request)}/compute/v2/", "self")],
    }


VERSIONS = Contract("Nova's API versions", {200: obj({"versions": array(NOVA_VERSION)})})


@router.get("")
@router.get("/")
@declare(VERSIONS)
async def versions(request: Request) -> dict[str, Any]:
    return {"versions": [_v20(request), _v21(request)]}


V21 = Contract(
    "Nova's v2.1 document",
    {200: obj({"version": NOVA_VERSION}, required=("version",))},
    errors=(400, 406),
)


@router.get("/v2.1")
@router.get("/v2.1/")
@declare(V21)
async def v21(request: Request) -> dict[str, Any]:
    version = _v21(request)
    version["links"].append(link("http://docs.openstack.org/", "describedby", type="text/html"))
    version["media-types"] = [
        {"base": "application/json", "type": "application/vnd.openstack.compute+json;version=2.1"}
    ]
    return {"version": version}
