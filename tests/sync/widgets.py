"""A sync kind that is no part of Flavorsmith, written the way a new kind is: one module with
its desired state, its pure plan, its steps, its targets and its ``KIND``. The tests register
it next to the real kinds to show that nothing else has to change.

A widget is a name on a shelf, one per catalog flavor; the shelf is an in-memory dict (both
targets), which is all this kind needs: it is the kind's own target, not a stand-in for one
of Flavorsmith's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from flavorsmith.catalog.model import Catalog
from flavorsmith.errors import TargetError
from flavorsmith.sync.engine import Kind, SpecCheck, Step


@dataclass(frozen=True)
class Widget:
    name: str
    managed: bool = True


@dataclass(frozen=True)
class WidgetAction:
    kind: str  # create, delete, keep, unmanaged, noop
    subject: str
    reason: str

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "delete")

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.kind, "widget": self.subject, "reason": self.reason}


class Shelf:
    """Where widgets are kept; ``origin`` is what the target was made from (an engine or an
    openstacksdk connection), kept so a test can see which factory made it."""

    def __init__(self, origin: object, held: dict[str, Widget] | None = None) -> None:
        self.origin = origin
        self.held = {} if held is None else held
        self.calls = 0

    def observe(self) -> dict[str, Widget]:
        self.calls += 1
        return dict(self.held)

    def put(self, name: str) -> None:
        self.calls += 1
        if name.startswith("broken"):
            raise TargetError(f"the shelf refuses {name}")
        self.held[name] = Widget(name)

    def take(self, name: str) -> None:
        self.calls += 1
        del self.held[name]


def desired(catalog: Catalog) -> list[str]:
    return sorted(f.name for f in catalog.flavors)


def plan(wanted: Sequence[str], observed: Mapping[str, Widget], prune: bool) -> list[WidgetAction]:
    actions = [
        WidgetAction("noop", n, "up to date")
        if n in observed
        else WidgetAction("create", n, "in the catalog, not on the shelf")
        for n in wanted
    ]
    for name, have in sorted(observed.items()):
        if name in wanted:
            continue
        if not have.managed:
            actions.append(WidgetAction("unmanaged", name, "not ours; left alone"))
        elif prune:
            actions.append(WidgetAction("delete", name, "no longer in the catalog"))
        else:
            actions.append(WidgetAction("keep", name, "no longer in the catalog"))
    return actions


def steps(action: WidgetAction, target: Shelf) -> list[Step]:
    if action.kind == "create":
        return [partial(target.put, action.subject)]
    if action.kind == "delete":
        return [partial(target.take, action.subject)]
    return []


def sdk_shelf(connection: Any, spec_check: SpecCheck) -> Shelf:
    return Shelf(connection)


def store_shelf(engine: Any, spec_check: SpecCheck) -> Shelf:
    return Shelf(engine)


KIND: Kind[list[str], Widget, WidgetAction, Shelf] = Kind(
    name="widgets",
    noun="widgets",
    subject="widget",
    service="compute",
    desired=desired,
    plan=plan,
    steps=steps,
    store_target=store_shelf,
    sdk_target=sdk_shelf,
)
