"""/baremetal: Ironic's version discovery documents (the resources are in the sibling modules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.baremetal.schemas import IRONIC_VERSION
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.links import base, link
from flavorsmith.api.microversions import IRONIC
from flavorsmith.api.schema import LINKS, array, obj, string

router = APIRouter()

DESCRIPTION = (
    "Ironic is an OpenStack project which enables the provision and management of "
    "baremetal machines."
)


def _version(request: Request) -> dict[str, Any]:
    return {
        "id": "v1",
        "links": [link(f"{base(request)}/baremetal/v1/", "self")],
        "status": "CURRENT",
        "min_version": str(IRONIC.minimum),
        "version": str(IRONIC.maximum),
    }


VERSIONS = Contract(
    "Ironic's API versions",
    {200: obj({"default_version": IRONIC_VERSION, "versions": array(IRONIC_VERSION)})},
    errors=(406,),
)


@router.get("")
@router.get("/")
@declare(VERSIONS)
async def versions(request: Request) -> dict[str, Any]:
    version = _version(request)
    return {
        "name": "OpenStack Ironic API",
        "description": DESCRIPTION,
        "default_version": version,
        "versions": [version],
    }


V1 = Contract(
    "Ironic's v1 document",
    {200: obj({"id": string(), "links": LINKS}, required=("id", "links"))},
    errors=(406,),
)


@router.get("/v1")
@router.get("/v1/")
@declare(V1)
async def v1(request: Request) -> dict[str, Any]:
    root = f"{base(request)}/baremetal"
    resources = {
        name: [link(f"{root}/v1/{name}/", "self"), link(f"{root}/{name}/", "bookmark")]
        for name in ("nodes", "deploy_templates")
    }
    return {
        "id": "v1",
        "links": [
            link(f"{root}/v1/", "self"),
            link(
                "https://docs.openstack.org/ironic/latest/contributor/webapi.html",
                "describedby",
                type="text/html",
            ),
        ],
        "media_types": {
            "base": "application/json",
            "type": "application/vnd.openstack.ironic.v1+json",
        },
        **resources,
        "version": _version(request),
    }
