"""A real Nova, read and written through an openstacksdk connection: what every Nova target
shares (the microversion it negotiates down to, Nova's error text) and the servers that use a
flavor, which a plan that deletes or replaces a flavor counts
(``GET /servers?all_tenants=1&flavor=ID``, paged; the credential's own project only when it
may not list every project's)."""

from __future__ import annotations

from typing import Any

from flavorsmith.clients.sdk import SdkTarget
from flavorsmith.errors import TargetError
from flavorsmith.servers_in_use import OWN_PROJECT, Servers


class NovaTarget(SdkTarget):
    """Any Nova compute API: each call at the microversion it wants, or the highest the
    endpoint offers when that is lower."""

    service = "compute"
    label = "Nova"

    def __init__(self, connection: Any) -> None:
        super().__init__(connection)
        self._max: tuple[int, int] | None = None

    def microversion(self, wanted: tuple[int, int]) -> str:
        if self._max is None:
            self._max = self.max_microversion() or (2, 1)
        major, minor = min(wanted, self._max)
        return f"{major}.{minor}"

    def fault(self, response: Any) -> str:
        try:
            return str(next(iter(response.json().values()))["message"])
        except Exception:
            return super().fault(response)

    def servers_using(self, flavor_id: str) -> Servers:
        """How many servers use the flavor: every project's (an admin credential), else the
        credential's own project's (Nova answers 403 to ``all_tenants`` for others), else
        unknown, with why. Never raises: the plan goes on without the count."""
        try:
            return Servers(self._count_servers(flavor_id, every_project=True))
        except TargetError as exc:
            if exc.status != 403:
                return Servers(None, None, f"cannot count the servers: {exc}")
        try:
            count = self._count_servers(flavor_id, every_project=False)
        except TargetError as exc:
            return Servers(None, None, f"cannot count the servers: {exc}")
        return Servers(
            count,
            OWN_PROJECT,
            "this credential may not list other projects' servers (Nova answered 403 to "
            "all_tenants)",
        )

    def _count_servers(self, flavor_id: str, *, every_project: bool) -> int:
        """The servers with that flavor, every page (Nova's index: ids and names only)."""
        base: dict[str, Any] = {"flavor": flavor_id, "limit": 1000}
        if every_project:
            base["all_tenants"] = "1"
        params = dict(base)
        count = 0
        while True:
            try:
                body = self.request("GET", "/servers", (2, 1), params=params)
            except ValueError as exc:  # a 2xx that is not JSON
                raise TargetError(f"GET /servers: not JSON: {exc}") from None
            try:
                servers = body["servers"]
                count += len(servers)
                if not servers or not body.get("servers_links"):
                    return count
                params = {**base, "marker": servers[-1]["id"]}
            except (KeyError, TypeError, IndexError):
                raise TargetError(f"GET /servers: not a server list: {str(body)[:200]}") from None
