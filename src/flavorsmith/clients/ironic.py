"""A real Ironic, read and written through an openstacksdk connection: what every Ironic
target shares (the microversion check, Ironic's error text) and the node calls that the node
sources, the mirror and classification use.

Nodes are listed in pages of :data:`PAGE` with ``fields=`` so that only what is needed
crosses the wire: never ``driver_info`` (BMC credentials) nor ``instance_info``'s secrets
unless a caller asks for that field by name. Ironic's list has no "changed since" filter, so
a full read is ⌈N/1000⌉ GETs, plus one empty page when N is a multiple of 1000 (Ironic puts a
``next`` link on every full page)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import quote

from flavorsmith.clients.sdk import SdkTarget
from flavorsmith.errors import TargetError
from flavorsmith.ironic.mirror import FIELDS as MIRROR_FIELDS

# Ironic's default (and usual) largest page.
PAGE = 1000
# The node fields the mirror keeps and the node sources read (docs/how-to/your-cloud.md):
# the mirror's rules own the list.
NODE_FIELDS = MIRROR_FIELDS
# The lowest microversion that has every field above (lessee came last, at 1.65).
NODES_VERSION = (1, 65)
# GET /v1/nodes/{node}/inventory (inspection data kept by Ironic itself).
INVENTORY_VERSION = (1, 81)
# Runbooks with their traits (``/v1/runbooks/{runbook}/traits``) and a description.
RUNBOOKS_VERSION = (1, 112)


class IronicTarget(SdkTarget):
    """Any Ironic API, at ``version`` or later: a lower maximum is a clear error."""

    service = "baremetal"
    label = "Ironic"
    version: tuple[int, int] = NODES_VERSION
    needs = "this call needs"

    def __init__(self, connection: Any) -> None:
        super().__init__(connection)
        self._checked = False

    def microversion(self, wanted: tuple[int, int]) -> str:
        if not self._checked:
            found = self.max_microversion()
            if found is not None and found < self.version:
                raise TargetError(
                    f"this Ironic's API goes up to {found[0]}.{found[1]}; {self.needs} "
                    f"{self.version[0]}.{self.version[1]}"
                )
            self._checked = True
        return f"{wanted[0]}.{wanted[1]}"

    def fault(self, response: Any) -> str:
        """Ironic's error text: a JSON document inside ``error_message``."""
        try:
            outer = response.json()["error_message"]
            return str(json.loads(outer)["faultstring"]) if isinstance(outer, str) else str(outer)
        except Exception:
            is_json = "json" in response.headers.get("content-type", "")
            text = str(response.text[:200]) if is_json else ""
            return text or f"{response.reason} (is this an Ironic API endpoint?)"


def _path(node: str, *rest: str) -> str:
    return "/".join(["/nodes", quote(node, safe=""), *(quote(p, safe="") for p in rest)])


class IronicNodes(IronicTarget):
    """Ironic's nodes: list (paged, ``fields=``), one node, its inventory, and the writes
    classification makes (resource class, one trait at a time)."""

    needs = "reading nodes with their traits, owner and lessee needs"

    def pages(
        self,
        fields: Sequence[str] = NODE_FIELDS,
        *,
        query: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[list[dict[str, Any]]]:
        """Every node (the first ``limit`` ones when given), one page at a time, sorted by UUID
        (a stable order to page by) unless ``query`` names a ``sort_key``."""
        params: dict[str, Any] = {
            "fields": ",".join(fields),
            "limit": PAGE if limit is None else min(PAGE, limit),
            "sort_key": "uuid",
            **(query or {}),
        }
        left = limit
        while True:
            body = self.request("GET", "/nodes", NODES_VERSION, params=params)
            page = body.get("nodes") if isinstance(body, dict) else None
            if not isinstance(page, list):
                raise TargetError("GET /nodes: the answer has no node list (is this Ironic?)")
            if left is not None:
                page = page[:left]
                left -= len(page)
            yield page
            if not page or not body.get("next") or len(page) < params["limit"] or left == 0:
                return
            size = PAGE if left is None else min(PAGE, left)
            params = {**params, "marker": page[-1]["uuid"], "limit": size}

    def nodes(
        self,
        fields: Sequence[str] = NODE_FIELDS,
        *,
        query: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        return [node for page in self.pages(fields, query=query, limit=limit) for node in page]

    def node(self, ident: str, fields: Sequence[str] = NODE_FIELDS) -> dict[str, Any]:
        """One node by name or UUID; a missing one is a TargetError with status 404."""
        params = {"fields": ",".join(fields)}
        found = self.request("GET", _path(ident), NODES_VERSION, params=params)
        if not isinstance(found, dict):
            raise TargetError(f"GET /nodes/{ident}: the answer is not a node")
        return found

    def inventory(self, ident: str) -> dict[str, Any]:
        """The inspection data Ironic keeps for the node: ``{"inventory": …, "plugin_data": …}``."""
        found = self.request("GET", _path(ident, "inventory"), INVENTORY_VERSION)
        if not isinstance(found, dict):
            raise TargetError(f"GET /nodes/{ident}/inventory: the answer is not an inventory")
        return found

    def deploy_templates(self) -> list[dict[str, Any]]:
        """Every deploy template with its steps (1.55 or later)."""
        out: list[dict[str, Any]] = []
        params: dict[str, Any] = {"detail": "True", "limit": PAGE}
        while True:
            body = self.request("GET", "/deploy_templates", (1, 55), params=params)
            page = body["deploy_templates"]
            out += page
            if not page or not body.get("next"):
                return out
            params = {**params, "marker": page[-1]["uuid"]}

    def set_resource_class(self, uuid: str, resource_class: str) -> None:
        patch = [{"op": "replace", "path": "/resource_class", "value": resource_class}]
        self.request("PATCH", _path(uuid), NODES_VERSION, body=patch)

    def add_trait(self, uuid: str, trait: str) -> None:
        """One trait added; traits others set meanwhile are untouched (Ironic's PUT of one)."""
        self.request("PUT", _path(uuid, "traits", trait), NODES_VERSION)

    def remove_trait(self, uuid: str, trait: str) -> None:
        self.request("DELETE", _path(uuid, "traits", trait), NODES_VERSION)


class IronicRunbooks(IronicTarget):
    """Ironic's runbooks at API 1.112 (traits of their own, a description): all of them
    (paged), and the writes a sync makes. A runbook's traits are not part of its body in a
    create or a patch (Ironic refuses them there): they are replaced as a whole by a PUT of
    ``/runbooks/{runbook}/traits``."""

    version = RUNBOOKS_VERSION
    needs = "runbooks with traits need"

    def runbooks(self) -> list[dict[str, Any]]:
        """Every runbook with its steps and traits, in pages of :data:`PAGE`."""
        out: list[dict[str, Any]] = []
        params: dict[str, Any] = {"detail": "True", "limit": PAGE}
        while True:
            body = self.request("GET", "/runbooks", RUNBOOKS_VERSION, params=params)
            page = body.get("runbooks") if isinstance(body, dict) else None
            if not isinstance(page, list):
                raise TargetError("GET /runbooks: the answer has no runbook list (is this Ironic?)")
            out += page
            if not page or not body.get("next"):
                return out
            params = {**params, "marker": page[-1]["uuid"]}

    def create_runbook(self, body: dict[str, Any]) -> None:
        self.request("POST", "/runbooks", RUNBOOKS_VERSION, body=body)

    def patch_runbook(self, ident: str, patch: Sequence[dict[str, Any]]) -> None:
        self.request("PATCH", _runbook(ident), RUNBOOKS_VERSION, body=list(patch))

    def delete_runbook(self, ident: str) -> None:
        self.request("DELETE", _runbook(ident), RUNBOOKS_VERSION)

    def set_runbook_traits(self, ident: str, traits: Sequence[str]) -> None:
        """The runbook's traits replaced by ``traits`` (one call)."""
        body = {"traits": list(traits)}
        self.request("PUT", _runbook(ident, "traits"), RUNBOOKS_VERSION, body=body)


def _runbook(ident: str, *rest: str) -> str:
    return "/".join(["/runbooks", quote(ident, safe=""), *rest])


__all__ = [
    "INVENTORY_VERSION",
    "NODES_VERSION",
    "NODE_FIELDS",
    "PAGE",
    "RUNBOOKS_VERSION",
    "IronicNodes",
    "IronicRunbooks",
    "IronicTarget",
]
