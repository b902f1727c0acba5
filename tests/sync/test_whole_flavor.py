"""A flavor is written whole into the service's own database: created, replaced and repaired
with its extra specs and its project access in one transaction, so a sync that dies between
two of its steps leaves the flavor as it was (or absent), never half-made. A flavor left
half-made elsewhere (by an interrupted sync into a real Nova, or by an older version) is
recognised by the catalog's name and properties and repaired by the next round. Real
databases, SQLite then PostgreSQL; nothing of the store is replaced."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from flavorsmith.catalog.repo import Repository
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine, writer
from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.store import nova_flavors as flavor_store
from flavorsmith.sync.engine import Retry, run
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import MARKER, StoreFlavors, desired, desired_specs
from flavorsmith.visibility import OPERATOR
from tests.conftest import EXAMPLES, Invoke
from tests.database import throwaway_postgres
from tests.support.catalogs import RULES


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('whole') / 'flavorsmith.db'}"
        return
    with throwaway_postgres() as found:
        yield found


@pytest.fixture
def engine(url: str) -> Iterator[Engine]:
    """The module's database, migrated and without a flavor."""
    made = make_engine(url)
    migrate.upgrade(made)
    yield made
    with writer(made).begin() as connection:
        for row in flavor_store.list_flavors(
            connection, flavor_store.FlavorQuery(is_public=None), OPERATOR
        ):
            flavor_store.remove(connection, row)
    made.dispose()


@pytest.fixture
def repo(tmp_path: Path) -> Repository:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    return Repository(tmp_path / "deploy", RULES)


class Killed(BaseException):
    """The process dies: not an error the engine reports, nothing after it runs."""


@contextmanager
def dies_at(engine: Engine, table: str, nth: int = 1) -> Iterator[None]:
    """The process dies as its ``nth`` insert into ``table`` is sent: between that write and
    the one before it (the database's own, no part of the store replaced)."""
    left = [nth]

    def before(connection: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lower().startswith(f"insert into {table} "):
            left[0] -= 1
            if left[0] == 0:
                raise Killed(table)

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", before)


def stored(engine: Engine) -> dict[str, dict[str, Any]]:
    """Every flavor in the database: its row, extra specs and projects."""
    with engine.begin() as connection:
        rows = flavor_store.list_flavors(
            connection, flavor_store.FlavorQuery(is_public=None), OPERATOR
        )
        specs = flavor_store.extra_specs(connection, [r["id"] for r in rows])
        return {
            r["flavorid"]: {
                **r,
                "extra_specs": specs[r["id"]],
                "projects": flavor_store.projects(connection, r),
            }
            for r in rows
        }


def half_made(engine: Engine, repo: Repository) -> list[str]:
    """The stored flavors that are not exactly a catalog flavor: specs, marker and access."""
    wanted = {d.id: d for d in desired(repo.load().catalog)}
    out = []
    for flavor_id, row in stored(engine).items():
        want = wanted[flavor_id]
        projects = [] if want.is_public else sorted(want.projects)
        if row["extra_specs"] != desired_specs(want) or row["projects"] != projects:
            out.append(f"{flavor_id}: specs {row['extra_specs']}, projects {row['projects']}")
    return out


def converges(engine: Engine, repo: Repository) -> None:
    """The next round completes the catalog and the one after it writes nothing."""
    resumed = run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=True)
    assert resumed.report is not None and [o.as_dict() for o in resumed.report.failed] == []
    assert half_made(engine, repo) == []
    assert len(stored(engine)) == 12
    again = run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=True)
    assert again.report is not None and again.report.writes == 0


def test_a_create_killed_after_the_flavor_row_leaves_no_flavor(
    engine: Engine, repo: Repository
) -> None:
    with dies_at(engine, "flavor_extra_specs"), pytest.raises(Killed):
        run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=True)
    assert stored(engine) == {}  # the first flavor died with its extra specs unwritten
    converges(engine, repo)


def test_a_private_flavor_killed_before_its_access_is_not_there(
    engine: Engine, repo: Repository
) -> None:
    # m1.medium.dedicated is the only private flavor: its first project is the first grant.
    with dies_at(engine, "flavor_projects"), pytest.raises(Killed):
        run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=True)
    assert sorted(stored(engine)) == [  # the flavors before it, in the order they apply
        "c2.diskless",
        "c2.large",
        "c2.large.novmx-stripe",
        "c2.large.vmx-mirror",
        "g1.8xh100",
        "m1.medium",
    ]
    assert half_made(engine, repo) == []
    converges(engine, repo)


@pytest.mark.parametrize("table", ["flavors", "flavor_extra_specs"])
def test_a_replace_killed_between_steps_keeps_the_old_flavor(
    engine: Engine, repo: Repository, table: str
) -> None:
    """Killed after the old flavor's delete, then after the new one's row too."""
    assert run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=True).report
    before = stored(engine)["m1.medium.dedicated"]
    path = repo.hardware / "flavors" / "m1.medium.dedicated.yaml"
    private = "is_public: false\nprojects:\n  - 4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d\n"
    private += "  - 9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a\n"
    assert private in path.read_text()
    path.write_text(path.read_text().replace(private, ""))  # public now: a replace
    with dies_at(engine, table), pytest.raises(Killed):
        run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=True)
    after = stored(engine)["m1.medium.dedicated"]
    assert after == before  # private, with its specs and both projects, as it was
    replaced = run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=True)
    assert {a.flavor: a.kind for a in replaced.actions if a.writes} == {
        "m1.medium.dedicated": "replace"
    }
    now = stored(engine)["m1.medium.dedicated"]
    assert (now["is_public"], now["projects"], now["extra_specs"][MARKER]) == (True, [], "true")


def test_a_refused_extra_spec_leaves_no_flavor(engine: Engine, repo: Repository) -> None:
    """A refusal between two steps of a create (the compute API refuses an extra spec): the
    flavor is not created without its specs, and the failure is reported."""

    def refuses_gpus(key: str, value: str) -> str | None:
        return "no GPUs here" if "GPU" in key else None

    result = run(
        FLAVORS,
        repo,
        StoreFlavors(engine, refuses_gpus),
        prune=False,
        execute=True,
        retry=Retry(sleep=lambda s: None),
    )
    assert result.report is not None
    failed = {o.action.subject: o.error for o in result.report.failed}
    assert failed["g1.8xh100"] is not None and "no GPUs here" in failed["g1.8xh100"]
    assert "g1.8xh100" not in stored(engine)
    assert half_made(engine, repo) == []


def bare(engine: Engine, flavor: DerivedFlavor, specs: dict[str, str] | None = None) -> None:
    """A flavor with the catalog's id, name and properties, as the compute API's POST /flavors
    makes it (and an interrupted sync of an older version left it): no extra specs, no
    access, or only some of its specs."""
    values = {
        "flavorid": flavor.id,
        "name": flavor.name,
        "memory_mb": flavor.ram,
        "vcpus": flavor.vcpus,
        "root_gb": flavor.disk,
        "is_public": flavor.is_public,
        "description": flavor.description,
    }
    with writer(engine).begin() as connection:
        flavor_store.create(connection, values, specs)


def test_a_half_made_flavor_is_repaired_by_the_next_round(
    engine: Engine, repo: Repository, cli: Invoke, url: str
) -> None:
    wanted = {d.id: d for d in desired(repo.load().catalog)}
    bare(engine, wanted["m1.small"])
    gpu = wanted["g1.8xh100"]
    bare(engine, gpu, {k: v for k, v in gpu.extra_specs.items() if k.startswith("resources:")})
    bare(engine, wanted["m1.medium.dedicated"])
    args = ["--repo", str(repo.root), "--database", url]
    planned = cli("sync", "plan", *args, "-f", "json")
    assert planned.exit_code == 0, planned.output
    actions = {a["subject"]: a for a in json.loads(planned.stdout)["actions"]}
    assert {s for s, a in actions.items() if a["action"] == "repair"} == {
        "m1.small",
        "g1.8xh100",
        "m1.medium.dedicated",
    }
    assert "conflict" not in {a["action"] for a in actions.values()}
    small = actions["m1.small"]
    assert small["reason"] == (
        "half-made: the catalog's name and properties without the marker "
        "flavorsmith:managed=true (a sync interrupted between its steps); set its extra specs"
    )
    assert small["set_extra_specs"] == desired_specs(wanted["m1.small"])
    assert set(actions["g1.8xh100"]["set_extra_specs"]) == set(desired_specs(gpu)) - {
        k for k in gpu.extra_specs if k.startswith("resources:")
    }
    dedicated = actions["m1.medium.dedicated"]
    assert dedicated["add_projects"] == sorted(wanted["m1.medium.dedicated"].projects)
    assert dedicated["reason"].endswith("set its extra specs; give it its projects")

    diff = cli("sync", "plan", *args)
    assert '~ repair flavor m1.small\n    + extra_specs.flavorsmith:managed: "true"\n' in (
        diff.stdout
    )
    assert diff.stdout.splitlines()[-1].startswith("Plan: 12 changes (9 to create, 3 to repair)")

    applied = cli("sync", "apply", *args, "--yes")
    assert applied.exit_code == 0, applied.output
    assert half_made(engine, repo) == []
    again = cli("sync", "apply", *args, "--yes", "-f", "json")
    assert json.loads(again.stdout)["writes"] == 0


def test_a_flavor_with_foreign_specs_or_other_properties_is_not_repaired(
    engine: Engine, repo: Repository
) -> None:
    wanted = {d.id: d for d in desired(repo.load().catalog)}
    bare(engine, wanted["m1.small"], {"resources:CUSTOM_M1_SMALL": "2"})  # not the catalog's
    medium = wanted["m1.medium"]
    bare(engine, DerivedFlavor(**{**medium.__dict__, "ram": medium.ram + 1}))
    planned = run(FLAVORS, repo, StoreFlavors(engine), prune=False, execute=False)
    kinds = {a.flavor: a.kind for a in planned.actions}
    assert (kinds["m1.small"], kinds["m1.medium"]) == ("conflict", "conflict")
