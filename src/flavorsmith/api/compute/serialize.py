"""Flavors as Nova shows them at each microversion."""

from __future__ import annotations

from typing import Any

from flavorsmith.api.links import link
from flavorsmith.api.microversions import Version


def links(root: str, flavorid: str) -> list[dict[str, str]]:
    return [
        link(f"{root}/v2.1/flavors/{flavorid}", "self"),
        link(f"{root}/flavors/{flavorid}", "bookmark"),
    ]


def _rel(item: dict[str, str]) -> dict[str, str]:
    return {"rel": item["rel"], "href": item["href"]}


def brief(row: dict[str, Any], version: Version, root: str) -> dict[str, Any]:
    out: dict[str, Any] = {"id": row["flavorid"], "name": row["name"]}
    out["links"] = [_rel(x) for x in links(root, row["flavorid"])]
    if version >= Version(2, 55):
        out["description"] = row["description"]
    return out


def full(
    row: dict[str, Any], version: Version, root: str, specs: dict[str, str] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": row["flavorid"],
        "name": row["name"],
        "ram": row["memory_mb"],
        "disk": row["root_gb"],
        # Before 2.75 Nova shows no swap as an empty string.
        "swap": row["swap"] if row["swap"] or version >= Version(2, 75) else "",
        "OS-FLV-EXT-DATA:ephemeral": row["ephemeral_gb"],
    }
    if version < Version(2, 102):
        out["OS-FLV-DISABLED:disabled"] = row["disabled"]
    out["vcpus"] = row["vcpus"]
    out["os-flavor-access:is_public"] = row["is_public"]
    if version < Version(2, 102):
        out["rxtx_factor"] = row["rxtx_factor"]
    out["links"] = [_rel(x) for x in links(root, row["flavorid"])]
    if version >= Version(2, 55):
        out["description"] = row["description"]
    if version >= Version(2, 61):
        out["extra_specs"] = specs or {}
    return out
