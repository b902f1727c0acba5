"""/load-balancer: Octavia's version discovery document (the resources are in the sibling
modules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.links import base, link
from flavorsmith.api.schema import ANY_OBJECT, array, obj, string

router = APIRouter()

# Octavia lists every minor API version it has published, each pointing at /v2; the last is
# CURRENT. The flavor API this service implements is unchanged since v2.6.
VERSIONS = (
    ("v2.0", "2016-12-11T00:00:00Z"),
    ("v2.1", "2018-04-20T00:00:00Z"),
    ("v2.2", "2018-07-31T00:00:00Z"),
    ("v2.3", "2018-12-18T00:00:00Z"),
    ("v2.4", "2018-12-19T00:00:00Z"),
    ("v2.5", "2019-01-21T00:00:00Z"),
    ("v2.6", "2019-01-25T00:00:00Z"),
    ("v2.7", "2018-01-25T12:00:00Z"),
    ("v2.8", "2019-02-12T00:00:00Z"),
    ("v2.9", "2019-03-04T00:00:00Z"),
    ("v2.10", "2019-03-05T00:00:00Z"),
    ("v2.11", "2019-06-24T00:00:00Z"),
    ("v2.12", "2019-09-11T00:00:00Z"),
    ("v2.13", "2019-09-13T00:00:00Z"),
    ("v2.14", "2019-11-10T00:00:00Z"),
    ("v2.15", "2020-03-10T00:00:00Z"),
    ("v2.16", "2020-03-15T00:00:00Z"),
    ("v2.17", "2020-04-29T00:00:00Z"),
    ("v2.18", "2020-04-29T01:00:00Z"),
    ("v2.19", "2020-05-12T00:00:00Z"),
    ("v2.20", "2020-08-02T00:00:00Z"),
    ("v2.21", "2020-09-03T00:00:00Z"),
    ("v2.22", "2020-09-04T00:00:00Z"),
    ("v2.23", "2020-09-07T00:00:00Z"),
    ("v2.24", "2020-10-15T00:00:00Z"),
    ("v2.25", "2021-10-02T00:00:00Z"),
    ("v2.26", "2022-08-29T00:00:00Z"),
    ("v2.27", "2023-05-05T00:00:00Z"),
    ("v2.28", "2023-11-08T00:00:00Z"),
    ("v2.29", "2024-10-15T00:00:00Z"),
    ("v2.30", "2025-02-26T00:00:00Z"),
)


LIST_VERSIONS = Contract("Octavia's API versions", {200: obj({"versions": array(ANY_OBJECT)})})


@router.get("")
@router.get("/")
@declare(LIST_VERSIONS)
async def versions(request: Request) -> dict[str, Any]:
    href = f"{base(request)}/load-balancer/v2"
    return {
        "versions": [
            {
                "id": version_id,
                "status": "CURRENT" if index == len(VERSIONS) - 1 else "SUPPORTED",
                "updated": updated,
                "links": [link(href, "self")],
            }
            for index, (version_id, updated) in enumerate(VERSIONS)
        ]
    }


V2 = Contract('Octavia\'s v2 document (the string "v2")', {200: string()})


@router.get("/v2")
@router.get("/v2/")
@router.get("/v2.0")
@router.get("/v2.0/")
@declare(V2)
async def v2() -> str:
    """Octavia answers its versioned root with the bare string "v2"; clients accept that."""
    return "v2"
