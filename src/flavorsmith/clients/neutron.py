"""A real Neutron's service flavors, read and written through openstacksdk's network proxy:
flavors (``/v2.0/flavors``: a name, a ``service_type`` such as ``L3_ROUTER_NAT``, a
description, enabled), service profiles (``/v2.0/service_profiles``: a provider's driver and
its ``metainfo``), the associations between the two, and the routers that use a flavor, which a
plan that deletes or replaces a flavor counts.

Neutron has one API version (2.0) and no microversions. Its lists are paged with ``limit`` and
``marker`` (the ``pagination`` extension), and read here a page of :data:`PAGE` at a time.

Routers by flavor: Neutron 29 refuses ``GET /v2.0/routers?flavor_id=ID`` (``400 ['flavor_id']
is invalid attribute for filtering``, although openstacksdk documents the filter), so the
routers are listed with ``fields=id&fields=flavor_id`` and counted here. Only admins may
create, change or delete flavors (Neutron's default policy), and an admin's router list holds
every project's routers, so the count of a credential that can sync flavors is complete.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from flavorsmith.clients.sdk import SdkTarget
from flavorsmith.errors import TargetError

# Neutron's one API version (it has no microversions): what SdkTarget.request is given.
API = (2, 0)
# Neutron's lists, a page at a time.
PAGE = 500
# Neutron's conflicts that retrying cannot resolve: the object is in use, or already there.
LASTING_CONFLICTS = frozenset(
    {
        "FlavorInUse",
        "ServiceProfileInUse",
        "FlavorServiceProfileBindingExists",
    }
)


class NeutronTarget(SdkTarget):
    """Any Neutron with the ``flavors`` extension."""

    service = "network"
    label = "Neutron"
    microversions = False

    def fault(self, response: Any) -> str:
        """Neutron's error text: ``{"NeutronError": {"type", "message", "detail"}}``."""
        try:
            error = response.json()["NeutronError"]
            return f"{error['message']} ({error['type']})"
        except Exception:
            return super().fault(response)

    def explain(
        self, exc: TargetError, method: str, path: str, version: tuple[int, int]
    ) -> TargetError:
        """A conflict that lasts (in use, already associated) is no transient failure."""
        if exc.status == 409 and any(f"({kind})" in str(exc) for kind in LASTING_CONFLICTS):
            return TargetError(str(exc), status=exc.status)
        return exc

    # --- reading ---

    def _pages(self, collection: str, params: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Every object of ``/v2.0/<collection>`` (``service_profiles``, ``flavors``,
        ``routers``), following ``marker`` while a page says there is a next one."""
        base: dict[str, Any] = {**(params or {}), "limit": PAGE}
        query = dict(base)
        while True:
            body = self.request("GET", f"/{collection}", API, params=query)
            try:
                found = list(body[collection])
                links = body.get(f"{collection}_links") or []
            except (KeyError, TypeError):
                raise TargetError(
                    f"GET /v2.0/{collection}: not a list of {collection}: {str(body)[:200]}"
                ) from None
            yield from found
            if not found or not any(link.get("rel") == "next" for link in links):
                return
            query = {**base, "marker": found[-1]["id"]}

    def flavors(self, service_type: str | None = None) -> list[dict[str, Any]]:
        """Every flavor (of ``service_type``, if given), as Neutron shows them: ``id``,
        ``name``, ``description``, ``service_type``, ``enabled``, ``service_profiles`` (the
        associated profiles' ids)."""
        params = {} if service_type is None else {"service_type": service_type}
        return list(self._pages("flavors", params))

    def service_profiles(self) -> list[dict[str, Any]]:
        """Every service profile: ``id``, ``description``, ``driver``, ``metainfo``,
        ``enabled``."""
        return list(self._pages("service_profiles"))

    def routers_by_flavor(self) -> Counter[str]:
        """How many routers use each flavor (by flavor id), over every router the credential
        may list (every project's for an admin); one listing for the whole plan."""
        params = {"fields": ["id", "flavor_id"]}
        return Counter(
            str(router["flavor_id"])
            for router in self._pages("routers", params)
            if router.get("flavor_id")
        )

    def routers_using(self, flavor_id: str) -> int:
        """How many routers use the flavor ``flavor_id``."""
        return self.routers_by_flavor()[flavor_id]

    # --- writing ---

    def create_flavor(
        self, *, name: str, service_type: str, description: str = "", enabled: bool = True
    ) -> dict[str, Any]:
        """A new flavor; Neutron's answer (with its ``id``)."""
        body = {
            "flavor": {
                "name": name,
                "service_type": service_type,
                "description": description,
                "enabled": enabled,
            }
        }
        return self._one("POST", "/flavors", body, "flavor")

    def update_flavor(self, flavor_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Change a flavor's ``name``, ``description`` or ``enabled`` (its ``service_type``
        cannot change: Neutron refuses it, so a new type is a new flavor)."""
        return self._one("PUT", f"/flavors/{flavor_id}", {"flavor": dict(changes)}, "flavor")

    def delete_flavor(self, flavor_id: str) -> None:
        """Delete a flavor; a router that uses it makes Neutron refuse (409 FlavorInUse)."""
        self.request("DELETE", f"/flavors/{flavor_id}", API)

    def create_service_profile(
        self,
        *,
        driver: str = "",
        metainfo: str = "",
        description: str = "",
        enabled: bool = True,
    ) -> dict[str, Any]:
        """A new service profile; Neutron's answer (with its ``id``). Neutron refuses a
        ``driver`` that is no configured provider's (404 ServiceProfileDriverNotFound) and a
        profile with neither driver nor metainfo (400 ServiceProfileEmpty)."""
        body = {
            "service_profile": {
                "driver": driver,
                "metainfo": metainfo,
                "description": description,
                "enabled": enabled,
            }
        }
        return self._one("POST", "/service_profiles", body, "service_profile")

    def update_service_profile(self, profile_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Change a service profile; Neutron refuses while a flavor is associated with it
        (409 ServiceProfileInUse)."""
        return self._one(
            "PUT",
            f"/service_profiles/{profile_id}",
            {"service_profile": dict(changes)},
            "service_profile",
        )

    def delete_service_profile(self, profile_id: str) -> None:
        """Delete a service profile; refused while a flavor is associated with it."""
        self.request("DELETE", f"/service_profiles/{profile_id}", API)

    def associate(self, flavor_id: str, profile_id: str) -> None:
        """Associate a service profile with a flavor (``POST
        /v2.0/flavors/{id}/service_profiles``). Neutron 29 answers 201 with the flavor's id
        in the body's ``service_profile``, not the profile's; nothing here reads it."""
        body = {"service_profile": {"id": profile_id}}
        self.request("POST", f"/flavors/{flavor_id}/service_profiles", API, body=body)

    def disassociate(self, flavor_id: str, profile_id: str) -> None:
        """Remove a service profile from a flavor."""
        self.request("DELETE", f"/flavors/{flavor_id}/service_profiles/{profile_id}", API)

    def _one(self, method: str, path: str, body: Any, member: str) -> dict[str, Any]:
        answer = self.request(method, path, API, body=body)
        try:
            return dict(answer[member])
        except (KeyError, TypeError, ValueError):
            raise TargetError(
                f"{method} /v2.0{path}: no {member} in the answer: {str(answer)[:200]}"
            ) from None
