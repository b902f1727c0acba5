"""Any OpenStack cloud as a sync target, through openstacksdk: a Nova's flavors (flavors) and
an Ironic's deploy templates (deploy-templates). The only module that imports openstacksdk
or keystoneauth."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import keystoneauth1.exceptions as ksa
import openstack

from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.sync.engine import AnyKind, Target, TargetError
from flavorsmith.sync.kinds import deploy_templates, flavors
from flavorsmith.sync.kinds.deploy_templates import ObservedTemplate
from flavorsmith.sync.kinds.flavors import ObservedFlavor, SpecCheck

MICROVERSION = (1, 55)  # deploy templates arrived in Ironic's API 1.55


def connect(cloud: str | None, service: str, endpoint: str | None = None) -> Any:
    """An openstacksdk connection: the clouds.yaml ``cloud``, else ``endpoint`` (of the
    ``service`` type, without auth). A configuration it cannot use is a TargetError."""
    try:
        if cloud:
            return openstack.connect(cloud=cloud)
        options: dict[str, Any] = {
            "auth_type": "none",
            "load_yaml_config": False,
            "load_envvars": False,
            f"{service}_endpoint_override": str(endpoint),
        }
        return openstack.connect(**options)
    except Exception as exc:
        raise TargetError(f"cannot configure the target: {exc}") from None


def sdk_proxy(connection: Any, service: str, label: str) -> Any:
    """``connection.<service>``, with endpoint discovery failures as a TargetError."""
    try:
        return getattr(connection, service)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise TargetError(f"cannot reach {label}: {first}", transient=True) from None


class SdkFlavors:
    """Any Nova compute API, through an openstacksdk connection (clouds.yaml or overrides).

    Flavors are created at microversion 2.55 (to carry the description); extra specs are
    written at 2.86 so Nova validates them too, except keys stock Nova refuses (Ironic's
    capabilities), which go at 2.85, where Nova stores extra specs without validating.
    """

    def __init__(self, connection: Any, nova_refuses: SpecCheck) -> None:
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

    def create(self, flavor: DerivedFlavor) -> None:
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


class SdkTemplates:
    """Any Ironic API (1.55 or later), through an openstacksdk connection.

    A real Ironic drops a template's description, so descriptions are sent on create but
    never compared (Flavorsmith's own API keeps them)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.calls = 0
        self._checked = False
        self._baremetal: Any = None

    @property
    def baremetal(self) -> Any:
        """The baremetal proxy, made on first use: openstacksdk discovers the endpoint then."""
        if self._baremetal is None:
            self._baremetal = sdk_proxy(self.connection, "baremetal", "Ironic")
        return self._baremetal

    def _call(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        if not self._checked:
            self._check_version()
        self.calls += 1
        try:
            response = self.baremetal.request(
                path,
                method,
                json=body,
                params=params,
                microversion=f"{MICROVERSION[0]}.{MICROVERSION[1]}",
                raise_exc=False,
            )
        except (ksa.ConnectionError, ksa.ConnectTimeout, ksa.RetriableConnectionFailure) as exc:
            raise TargetError(f"cannot reach Ironic: {exc}", transient=True) from None
        except ksa.ClientException as exc:
            raise TargetError(f"cannot reach Ironic: {exc}") from None
        if response.status_code >= 400:
            status = response.status_code
            raise TargetError(
                f"{method} {path}: {status} {_fault(response)}",
                status=status,
                transient=status >= 500 or status in (409, 503),
            )
        return response.json() if response.content else None

    def _check_version(self) -> None:
        try:
            data = self.baremetal.get_endpoint_data()
        except ksa.ClientException as exc:
            raise TargetError(f"cannot reach Ironic: {exc}", transient=True) from None
        found = data.max_microversion if data is not None else None
        if found is not None and (int(found[0]), int(found[1])) < MICROVERSION:
            raise TargetError(
                f"this Ironic's API goes up to {found[0]}.{found[1]}; deploy templates need "
                f"{MICROVERSION[0]}.{MICROVERSION[1]}"
            )
        self._checked = True

    def observe(self) -> dict[str, ObservedTemplate]:
        out: dict[str, ObservedTemplate] = {}
        params: dict[str, Any] = {"detail": "True", "limit": 1000}
        while True:
            body = self._call("GET", "/deploy_templates", params=params)
            for item in body["deploy_templates"]:
                out[item["name"]] = ObservedTemplate(
                    item["uuid"],
                    item["name"],
                    item["steps"],
                    item.get("extra") or {},
                    item.get("description"),
                    keeps_description="description" in item,
                )
            if not body.get("next") or not body["deploy_templates"]:
                return out
            params = {**params, "marker": body["deploy_templates"][-1]["uuid"]}

    def create(self, body: dict[str, Any]) -> None:
        self._call("POST", "/deploy_templates", body=body)

    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None:
        self._call("PATCH", f"/deploy_templates/{quote(uuid, safe='')}", body=list(patch))

    def delete(self, uuid: str) -> None:
        self._call("DELETE", f"/deploy_templates/{quote(uuid, safe='')}")


def _fault(response: Any) -> str:
    """Ironic's error text: a JSON document inside ``error_message``."""
    try:
        outer = response.json()["error_message"]
        return str(json.loads(outer)["faultstring"]) if isinstance(outer, str) else str(outer)
    except Exception:
        is_json = "json" in response.headers.get("content-type", "")
        text = str(response.text[:200]) if is_json else ""
        return text or f"{response.reason} (is this an Ironic API endpoint?)"


def _refuses_nothing(key: str, value: str) -> bool:
    return False


TARGETS: dict[str, Callable[[Any, SpecCheck], Target]] = {
    flavors.KIND.name: SdkFlavors,
    deploy_templates.KIND.name: lambda connection, _check: SdkTemplates(connection),
}


def target(kind: AnyKind, connection: Any, *, spec_check: SpecCheck | None = None) -> Any:
    """The cloud behind ``connection`` as the target of ``kind``; ``spec_check`` tells which
    extra specs a real Nova refuses (none, when not given)."""
    return TARGETS[kind.name](connection, spec_check or _refuses_nothing)
