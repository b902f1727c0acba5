"""A flavor the sync writes into the service's own database is whole or absent: created,
replaced (and deleted) in one transaction with its extra specs and its access, so a failure
part-way leaves no flavor that is public, unmarked or without its scheduling rule, on SQLite
and PostgreSQL. (A process killed part-way: tests/sync/test_killed_apply.py.)"""

from __future__ import annotations

import uuid

from sqlalchemy import Engine

from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.sync.engine import carry_out
from flavorsmith.sync.kinds.nova_flavors import Action, StoreFlavors, plan, steps


def _flavor(name: str, *, specs: dict[str, str], projects: tuple[str, ...] = ()) -> DerivedFlavor:
    return DerivedFlavor(name, name, "d", not projects, projects, 1, 1024, 1, specs)


def _apply(target: StoreFlavors, *actions: Action) -> list[str | None]:
    report = carry_out(list(actions), lambda a: steps(a, target), lambda: target.calls)
    return [o.error for o in report.outcomes]


def _refusing(key: str, value: str) -> str | None:
    return f"{key}: refused" if key == "bad:key" else None


def test_a_create_that_fails_part_way_leaves_nothing(migrated_engine: Engine) -> None:
    target = StoreFlavors(migrated_engine, _refusing)
    name = f"f-{uuid.uuid4().hex[:8]}"
    refused = _flavor(name, specs={"resources:CUSTOM_X": "1", "bad:key": "1"})
    shared_twice = _flavor(f"{name}-p", specs={"resources:CUSTOM_X": "1"}, projects=("p1", "p1"))
    errors = _apply(
        target,
        Action("create", refused.id, "new", refused),
        Action("create", shared_twice.id, "new", shared_twice),
    )
    assert all(errors), errors
    observed = target.observe()
    assert refused.id not in observed and shared_twice.id not in observed


def test_a_replace_that_fails_keeps_the_old_flavor(migrated_engine: Engine) -> None:
    target = StoreFlavors(migrated_engine, _refusing)
    name = f"r-{uuid.uuid4().hex[:8]}"
    old = _flavor(name, specs={"resources:CUSTOM_X": "1"})
    assert _apply(target, Action("create", old.id, "new", old)) == [None]
    before = target.observe()[name]
    new = _flavor(name, specs={"resources:CUSTOM_X": "1", "bad:key": "1"})
    new = DerivedFlavor(name, name, "d", True, (), 2, 1024, 1, new.extra_specs)
    (action,) = plan([new], {name: before})
    assert action.kind == "replace"
    assert all(_apply(target, action))
    assert target.observe()[name] == before
