"""Where a sync writes: the service's own flavors (its database), or any Nova compute API
through openstacksdk. Both count the calls they make."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol
from urllib.parse import quote

from sqlalchemy import Engine

from flavorsmith.nova.derive import NovaFlavor
from flavorsmith.nova.reconcile import ObservedFlavor


def sdk_proxy(connection: Any, service: str, label: str) -> Any:
    """``connection.<service>``, with endpoint discovery failures as a TargetError."""
    try:
        return getattr(connection, service)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise TargetError(f"cannot reach {label}: {first}", transient=True) from None


class TargetError(Exception):
    """A call the target refused; ``transient`` ones are worth retrying."""

    def __init__(self, message: str, *, transient: bool = False, status: int | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status


class Target(Protocol):
    calls: int

    def observe(self) -> dict[str, ObservedFlavor]: ...
    def create(self, flavor: NovaFlavor) -> None: ...
    def delete(self, flavor_id: str) -> None: ...
    def set_description(self, flavor_id: str, description: str | None) -> None: ...
    def set_specs(self, flavor_id: str, specs: Mapping[str, str]) -> None: ...
    def unset_spec(self, flavor_id: str, key: str) -> None: ...
    def add_project(self, flavor_id: str, project: str) -> None: ...
    def remove_project(self, flavor_id: str, project: str) -> None: ...


class DatabaseTarget:
    """The service's own compute API data, written through the same store as its handlers."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.calls = 0

    def _run(self, work: Callable[[Any], Any], write: bool = True) -> Any:
        from flavorsmith.db.engine import writer
        from flavorsmith.errors import FlavorsmithError

        self.calls += 1
        try:
            with (writer(self.engine) if write else self.engine).begin() as connection:
                return work(connection)
        except FlavorsmithError as exc:
            raise TargetError(exc.message, status=exc.status, transient=exc.status == 409) from None

    def observe(self) -> dict[str, ObservedFlavor]:
        from flavorsmith.store import nova_flavors as store
        from flavorsmith.visibility import OPERATOR

        def work(connection: Any) -> dict[str, ObservedFlavor]:
            rows = store.list_flavors(
                connection, store.FlavorQuery(is_public=None, limit=10**9), OPERATOR
            )
            specs = store.extra_specs(connection, [r["id"] for r in rows])
            out = {}
            for row in rows:
                projects = () if row["is_public"] else tuple(store.projects(connection, row))
                out[row["flavorid"]] = ObservedFlavor(
                    id=row["flavorid"],
                    name=row["name"],
                    vcpus=row["vcpus"],
                    ram=row["memory_mb"],
                    disk=row["root_gb"],
                    swap=row["swap"],
                    ephemeral=row["ephemeral_gb"],
                    is_public=row["is_public"],
                    description=row["description"],
                    extra_specs=specs[row["id"]],
                    projects=projects,
                )
            return out

        result: dict[str, ObservedFlavor] = self._run(work, write=False)
        return result

    def create(self, flavor: NovaFlavor) -> None:
        from flavorsmith.store import nova_flavors as store

        values = {
            "flavorid": flavor.id,
            "name": flavor.name,
            "memory_mb": flavor.ram,
            "vcpus": flavor.vcpus,
            "root_gb": flavor.disk,
            "swap": flavor.swap,
            "ephemeral_gb": flavor.ephemeral,
            "is_public": flavor.is_public,
            "description": flavor.description,
        }
        self._run(lambda c: store.create(c, values))

    def delete(self, flavor_id: str) -> None:
        from flavorsmith.store import nova_flavors as store

        self._run(lambda c: store.remove(c, store.get(c, flavor_id, lock=True)))

    def set_description(self, flavor_id: str, description: str | None) -> None:
        from flavorsmith.store import nova_flavors as store

        self._run(
            lambda c: store.set_description(c, store.get(c, flavor_id, lock=True), description)
        )

    def set_specs(self, flavor_id: str, specs: Mapping[str, str]) -> None:
        from flavorsmith.store import nova_flavors as store

        self._run(lambda c: store.merge_extra_specs(c, store.get(c, flavor_id, lock=True), specs))

    def unset_spec(self, flavor_id: str, key: str) -> None:
        from flavorsmith.store import nova_flavors as store

        self._run(lambda c: store.delete_extra_spec(c, store.get(c, flavor_id, lock=True), key))

    def add_project(self, flavor_id: str, project: str) -> None:
        from flavorsmith.store import nova_flavors as store

        self._run(lambda c: store.add_project(c, store.get(c, flavor_id, lock=True), project))

    def remove_project(self, flavor_id: str, project: str) -> None:
        from flavorsmith.store import nova_flavors as store

        self._run(lambda c: store.remove_project(c, store.get(c, flavor_id, lock=True), project))


class SdkTarget:
    """Any Nova compute API, through an openstacksdk connection (clouds.yaml or overrides).

    Flavors are created at microversion 2.55 (to carry the description); extra specs are
    written at 2.86 so Nova validates them too, except keys stock Nova refuses (Ironic's
    capabilities), which go at 2.85, where Nova stores extra specs without validating.
    """

    def __init__(self, connection: Any, nova_refuses: Callable[[str, str], bool]) -> None:
        self.connection = connection
        self.nova_refuses = nova_refuses
        self.calls = 0
        self._max: tuple[int, int] | None = None
        self._compute: Any = None

    @property
    def compute(self) -> Any:
        """The compute proxy, made on first use: openstacksdk discovers the endpoint then."""
        if self._compute is None:
            self._compute = sdk_proxy(self.connection, "compute", "Nova")
        return self._compute

    def _version(self, wanted: tuple[int, int]) -> str:
        if self._max is None:
            data = self.compute.get_endpoint_data()
            found = data.max_microversion or (2, 1)
            self._max = (int(found[0]), int(found[1]))
        major, minor = min(wanted, self._max)
        return f"{major}.{minor}"

    def _call(
        self, method: str, path: str, version: tuple[int, int], body: Any = None, params: Any = None
    ) -> Any:
        import keystoneauth1.exceptions as ksa

        self.calls += 1
        try:
            response = self.compute.request(
                path,
                method,
                json=body,
                params=params,
                microversion=self._version(version),
                raise_exc=False,
            )
        except (
            ksa.ConnectionError,
            ksa.ConnectTimeout,
            ksa.RetriableConnectionFailure,
        ) as exc:
            raise TargetError(f"cannot reach Nova: {exc}", transient=True) from None
        if response.status_code >= 400:
            try:
                message = next(iter(response.json().values()))["message"]
            except Exception:
                message = response.text[:200] or response.reason
            status = response.status_code
            raise TargetError(
                f"{method} {path}: {status} {message}",
                status=status,
                transient=status >= 500 or status == 409,
            )
        return response.json() if response.content else None

    def observe(self) -> dict[str, ObservedFlavor]:
        out: dict[str, ObservedFlavor] = {}
        params: dict[str, Any] | None = {"is_public": "None", "limit": 1000}
        path = "/flavors/detail"
        while True:
            body = self._call("GET", path, (2, 61), params=params)
            for item in body["flavors"]:
                swap = item.get("swap") or 0
                out[item["id"]] = ObservedFlavor(
                    id=item["id"],
                    name=item["name"],
                    vcpus=item["vcpus"],
                    ram=item["ram"],
                    disk=item["disk"],
                    swap=int(swap),
                    ephemeral=item.get("OS-FLV-EXT-DATA:ephemeral", 0),
                    is_public=item["os-flavor-access:is_public"],
                    description=item.get("description"),
                    extra_specs=item.get("extra_specs") or {},
                )
            links = body.get("flavors_links") or []
            if not links or not body["flavors"]:
                break
            params = {"is_public": "None", "limit": 1000, "marker": body["flavors"][-1]["id"]}
        for flavor_id, flavor in list(out.items()):
            if not flavor.is_public and flavor.managed:
                access = self._call(
                    "GET", f"/flavors/{quote(flavor_id, safe='')}/os-flavor-access", (2, 1)
                )
                projects = tuple(sorted(a["tenant_id"] for a in access["flavor_access"]))
                out[flavor_id] = ObservedFlavor(**{**flavor.__dict__, "projects": projects})
        return out

    def create(self, flavor: NovaFlavor) -> None:
        body: dict[str, Any] = {
            "id": flavor.id,
            "name": flavor.name,
            "ram": flavor.ram,
            "vcpus": flavor.vcpus,
            "disk": flavor.disk,
            "swap": flavor.swap,
            "OS-FLV-EXT-DATA:ephemeral": flavor.ephemeral,
            "os-flavor-access:is_public": flavor.is_public,
        }
        if flavor.description is not None:
            body["description"] = flavor.description
        self._call("POST", "/flavors", (2, 55), body={"flavor": body})

    def delete(self, flavor_id: str) -> None:
        self._call("DELETE", f"/flavors/{quote(flavor_id, safe='')}", (2, 1))

    def set_description(self, flavor_id: str, description: str | None) -> None:
        self._call(
            "PUT",
            f"/flavors/{quote(flavor_id, safe='')}",
            (2, 55),
            body={"flavor": {"description": description}},
        )

    def set_specs(self, flavor_id: str, specs: Mapping[str, str]) -> None:
        refused = {k: v for k, v in specs.items() if self.nova_refuses(k, v)}
        accepted = {k: v for k, v in specs.items() if k not in refused}
        path = f"/flavors/{quote(flavor_id, safe='')}/os-extra_specs"
        if accepted:
            self._call("POST", path, (2, 86), body={"extra_specs": accepted})
        if refused:
            self._call("POST", path, (2, 85), body={"extra_specs": refused})

    def unset_spec(self, flavor_id: str, key: str) -> None:
        self._call(
            "DELETE",
            f"/flavors/{quote(flavor_id, safe='')}/os-extra_specs/{quote(key, safe=':')}",
            (2, 1),
        )

    def add_project(self, flavor_id: str, project: str) -> None:
        self._call(
            "POST",
            f"/flavors/{quote(flavor_id, safe='')}/action",
            (2, 1),
            body={"addTenantAccess": {"tenant": project}},
        )

    def remove_project(self, flavor_id: str, project: str) -> None:
        self._call(
            "POST",
            f"/flavors/{quote(flavor_id, safe='')}/action",
            (2, 1),
            body={"removeTenantAccess": {"tenant": project}},
        )
