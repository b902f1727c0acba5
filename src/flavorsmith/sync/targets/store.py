"""The service's own database as a sync target, written through the same stores as its API
handlers: its Nova flavors (flavors) and its deploy templates (deploy-templates)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flavorsmith.db.engine import Engine, writer
from flavorsmith.errors import FlavorsmithError
from flavorsmith.ironic.deploy_templates import apply_patch, checked
from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.store import deploy_templates as template_store
from flavorsmith.store import nova_flavors as flavor_store
from flavorsmith.sync.engine import AnyKind, Target, TargetError
from flavorsmith.sync.kinds import deploy_templates, flavors
from flavorsmith.sync.kinds.deploy_templates import ObservedTemplate
from flavorsmith.sync.kinds.flavors import ObservedFlavor
from flavorsmith.visibility import OPERATOR


class _Store:
    """One transaction per call; a store's refusal becomes a TargetError."""

    transient_conflicts = False  # whether a 409 is worth retrying

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.calls = 0

    def _run(self, work: Callable[[Any], Any], write: bool = True) -> Any:
        self.calls += 1
        try:
            with (writer(self.engine) if write else self.engine).begin() as connection:
                return work(connection)
        except FlavorsmithError as exc:
            transient = self.transient_conflicts and exc.status == 409
            raise TargetError(exc.message, status=exc.status, transient=transient) from None


class StoreFlavors(_Store):
    """The service's own compute API flavors."""

    transient_conflicts = True

    def observe(self) -> dict[str, ObservedFlavor]:
        def work(connection: Any) -> dict[str, ObservedFlavor]:
            rows = flavor_store.list_flavors(
                connection, flavor_store.FlavorQuery(is_public=None, limit=10**9), OPERATOR
            )
            specs = flavor_store.extra_specs(connection, [r["id"] for r in rows])
            out = {}
            for row in rows:
                projects = () if row["is_public"] else tuple(flavor_store.projects(connection, row))
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

    def create(self, flavor: DerivedFlavor) -> None:
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
        self._run(lambda c: flavor_store.create(c, values))

    def _locked(self, connection: Any, flavor_id: str) -> dict[str, Any]:
        return flavor_store.get(connection, flavor_id, lock=True)

    def delete(self, flavor_id: str) -> None:
        self._run(lambda c: flavor_store.remove(c, self._locked(c, flavor_id)))

    def set_description(self, flavor_id: str, description: str | None) -> None:
        self._run(
            lambda c: flavor_store.set_description(c, self._locked(c, flavor_id), description)
        )

    def set_specs(self, flavor_id: str, specs: Mapping[str, str]) -> None:
        self._run(lambda c: flavor_store.merge_extra_specs(c, self._locked(c, flavor_id), specs))

    def unset_spec(self, flavor_id: str, key: str) -> None:
        self._run(lambda c: flavor_store.delete_extra_spec(c, self._locked(c, flavor_id), key))

    def add_project(self, flavor_id: str, project: str) -> None:
        self._run(lambda c: flavor_store.add_project(c, self._locked(c, flavor_id), project))

    def remove_project(self, flavor_id: str, project: str) -> None:
        self._run(lambda c: flavor_store.remove_project(c, self._locked(c, flavor_id), project))


class StoreTemplates(_Store):
    """The service's own deploy templates."""

    def observe(self) -> dict[str, ObservedTemplate]:
        rows: list[dict[str, Any]] = self._run(template_store.list_all, write=False)
        return {
            r["name"]: ObservedTemplate(
                r["uuid"], r["name"], r["steps"], r["extra"], r["description"]
            )
            for r in rows
        }

    def create(self, body: dict[str, Any]) -> None:
        self._run(lambda c: template_store.create(c, checked(body)))

    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None:
        def work(connection: Any) -> None:
            row = template_store.find(connection, uuid, lock=True)
            template_store.save(connection, row, apply_patch(row, list(patch)))

        self._run(work)

    def delete(self, uuid: str) -> None:
        self._run(lambda c: template_store.remove(c, template_store.find(c, uuid, lock=True)))


TARGETS: dict[str, Callable[[Engine], Target]] = {
    flavors.KIND.name: StoreFlavors,
    deploy_templates.KIND.name: StoreTemplates,
}


def target(kind: AnyKind, engine: Engine) -> Any:
    """The service's own database as the target of ``kind``."""
    return TARGETS[kind.name](engine)
