"""/load-balancer: Octavia's version discovery document, and (later issues) its flavors."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.links import base, link

router = APIRouter()

# Octavia lists every minor API version it has published; v2.0 is the base document.
VERSIONS = (("v2.0", "2016-12-11T00:00:00Z"),)


@router.get("")
@router.get("/")
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
