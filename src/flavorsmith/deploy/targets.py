"""Where a deploy-template sync writes: the service's own templates (its database), or any
Ironic API through openstacksdk. Both count the calls they make."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol
from urllib.parse import quote

from sqlalchemy import Engine

from flavorsmith.deploy.reconcile import ObservedTemplate
from flavorsmith.nova.targets import TargetError, sdk_proxy

MICROVERSION = (1, 55)  # deploy templates arrived in Ironic's API 1.55


class TemplateTarget(Protocol):
    calls: int

    def observe(self) -> dict[str, ObservedTemplate]: ...
    def create(self, body: dict[str, Any]) -> None: ...
    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None: ...
    def delete(self, uuid: str) -> None: ...


class DatabaseTemplates:
    """The service's own deploy templates, written through the same store as its API."""

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
            raise TargetError(exc.message, status=exc.status, transient=False) from None

    def observe(self) -> dict[str, ObservedTemplate]:
        from flavorsmith.store import deploy_templates as store

        rows: list[dict[str, Any]] = self._run(store.list_all, write=False)
        return {
            r["name"]: ObservedTemplate(
                r["uuid"], r["name"], r["steps"], r["extra"], r["description"]
            )
            for r in rows
        }

    def create(self, body: dict[str, Any]) -> None:
        from flavorsmith.ironic.deploy_templates import checked
        from flavorsmith.store import deploy_templates as store

        self._run(lambda c: store.create(c, checked(body)))

    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None:
        from flavorsmith.ironic.deploy_templates import apply_patch
        from flavorsmith.store import deploy_templates as store

        def work(connection: Any) -> None:
            row = store.find(connection, uuid, lock=True)
            store.save(connection, row, apply_patch(row, list(patch)))

        self._run(work)

    def delete(self, uuid: str) -> None:
        from flavorsmith.store import deploy_templates as store

        self._run(lambda c: store.remove(c, store.find(c, uuid, lock=True)))


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
        import keystoneauth1.exceptions as ksa

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
        import keystoneauth1.exceptions as ksa

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
