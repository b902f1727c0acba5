"""The runbook sync into the service's own database (what its ``/baremetal/v1/runbooks``
serves), on SQLite and PostgreSQL: three runbooks with their traits, an empty second plan, a
changed step as a diff, a replace where Ironic would refuse the change in place, prune and its
guard, the watcher; and on the command line (``--database``) with a saved plan."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.catalog.repo import Repository
from flavorsmith.db import migrate
from flavorsmith.db.engine import Engine, make_engine, writer
from flavorsmith.ironic.runbooks import PUBLIC_OWNER
from flavorsmith.store import runbooks as runbook_store
from flavorsmith.sync import store_target
from flavorsmith.sync.engine import run
from flavorsmith.sync.kinds import runbooks as kind
from flavorsmith.sync.watch import watch
from tests.api.conftest import build_app
from tests.conftest import Invoke
from tests.database import throwaway_postgres
from tests.live import serving
from tests.support.catalogs import RULES
from tests.support.runbook_catalog import NAMES, edit, remove, runbook_catalog


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('runbooks') / 'flavorsmith.db'}"
        return
    with throwaway_postgres() as found:
        yield found


@pytest.fixture
def engine(url: str) -> Iterator[Engine]:
    """The module's database, migrated and without a runbook."""
    made = make_engine(url)
    migrate.upgrade(made)
    yield made
    with writer(made).begin() as connection:
        for row in runbook_store.list_all(connection):
            runbook_store.remove(connection, row)
    made.dispose()


def rows(engine: Engine) -> dict[str, dict[str, Any]]:
    with engine.connect() as connection:
        return {r["name"]: r for r in runbook_store.list_all(connection)}


def test_sync_runbooks_into_the_own_database(engine: Engine, tmp_path: Path) -> None:
    root = runbook_catalog(tmp_path / "deploy")
    repository = Repository(root, RULES)
    target = store_target.target(kind.KIND, engine)
    assert isinstance(target, kind.StoreRunbooks)
    with writer(engine).begin() as connection:
        steps = [{"interface": "bios", "step": "factory_reset", "args": {}, "order": 1}]
        runbook_store.create(connection, {"name": "theirs", "steps": steps})

    first = run(kind.KIND, repository, target, prune=False, execute=True)
    assert first.report is not None and first.report.writes == 3 and not first.report.failed
    found = rows(engine)
    assert sorted(found) == sorted([*NAMES, "theirs"])
    assert found["firmware-update"]["traits"] == ["CUSTOM_GPU", "CUSTOM_NVME"]
    assert found["bios-servicing"]["public"] is True
    assert found["raid-rebuild"]["extra"] == {kind.MARKER: "true"}
    again = run(kind.KIND, repository, target, prune=False, execute=False)
    assert again.changes == 0 and {a.kind for a in again.actions} == {"noop", "unmanaged"}

    edit(root, "raid-rebuild", "order: 20", "order: 30")
    edit(root, "raid-rebuild", "[CUSTOM_NVME]", "[CUSTOM_NVME, CUSTOM_GPU]")
    edit(root, "bios-servicing", "public: true\n", "public: true\nowner: p1\n")
    planned = run(kind.KIND, repository, target, prune=False, execute=True)
    by_name = {a.subject: a for a in planned.actions}
    assert by_name["raid-rebuild"].kind == "update"
    assert [c.field for c in by_name["raid-rebuild"].changes] == ["steps[1].order", "traits"]
    assert by_name["bios-servicing"].kind == "replace"
    assert PUBLIC_OWNER in by_name["bios-servicing"].reason
    assert planned.report is not None and planned.report.writes == 2
    found = rows(engine)
    assert found["raid-rebuild"]["traits"] == ["CUSTOM_GPU", "CUSTOM_NVME"]
    assert [s["order"] for s in found["raid-rebuild"]["steps"]] == [10, 30]
    assert (found["bios-servicing"]["public"], found["bios-servicing"]["owner"]) == (True, "p1")
    assert found["bios-servicing"]["traits"] == ["CUSTOM_GPU"]

    remove(root, "firmware-update")
    kept = run(kind.KIND, repository, target, prune=False, execute=True)
    assert kept.report is not None and kept.report.writes == 0 and "firmware-update" in rows(engine)
    pruned = run(kind.KIND, repository, target, prune=True, execute=True)
    assert pruned.report is not None and pruned.report.writes == 1
    assert sorted(rows(engine)) == ["bios-servicing", "raid-rebuild", "theirs"]
    remove(root, "raid-rebuild")
    remove(root, "bios-servicing")
    guarded = run(kind.KIND, repository, target, prune=True, execute=True)
    assert guarded.report is None and guarded.refused == 2
    assert sorted(rows(engine)) == ["bios-servicing", "raid-rebuild", "theirs"]


def test_the_watcher_keeps_runbooks_in_sync(engine: Engine, tmp_path: Path) -> None:
    root = runbook_catalog(tmp_path / "deploy")
    watch(
        Repository(root, RULES),
        lambda chosen: store_target.target(chosen, engine),
        engine,
        kinds=(kind.KIND,),
        prune=False,
        rounds=1,
    )
    assert sorted(rows(engine)) == NAMES


def test_the_command_line_plans_saves_and_applies(cli: Invoke, tmp_path: Path) -> None:
    root = runbook_catalog(tmp_path / "deploy")
    args = [
        "--only",
        "runbooks",
        "--repo",
        str(root),
        "--database",
        f"sqlite:///{tmp_path / 's.db'}",
    ]
    saved = tmp_path / "plan.json"
    planned = cli("sync", "plan", *args, "--out", str(saved))
    assert planned.exit_code == 0, planned.stderr
    assert planned.stdout.startswith("+ create runbook bios-servicing\n")
    assert planned.stdout.endswith("Plan: 3 changes (3 to create).\n")
    applied = cli("sync", "apply", str(saved), *args[2:], "--yes", "-f", "json")
    assert applied.exit_code == 0, applied.stdout + applied.stderr
    assert json.loads(applied.stdout)["writes"] == 3
    assert cli("sync", "plan", *args).stdout == "No changes. 3 up to date.\n"
    # The same saved plan again: the runbooks it would create are there now.
    stale = cli("sync", "apply", str(saved), *args[2:], "--yes")
    assert stale.exit_code != 0 and "firmware-update" in stale.stdout + stale.stderr


def test_over_the_api(tmp_path: Path) -> None:
    root = runbook_catalog(tmp_path / "deploy")
    engine = make_engine(f"sqlite:///{tmp_path / 'api.db'}")
    migrate.upgrade(engine)
    with TestClient(build_app(engine, repo=root)) as client:
        plan = client.get("/v1/sync/plan?only=runbooks").json()
        assert [(a["action"], a["runbook"]) for a in plan["actions"]] == [
            ("create", name) for name in NAMES
        ]
        applied = client.post("/v1/sync/apply?only=runbooks")
        assert applied.status_code == 200 and applied.json()["writes"] == 3
        again = client.get("/v1/sync/plan?only=runbooks").json()
        assert again["summary"] == {"noop": 3}
    assert sorted(rows(engine)) == NAMES
    engine.dispose()


def test_into_the_own_ironic_api_over_http(cli: Invoke, tmp_path: Path) -> None:
    """The real-Ironic target against the service's own ``/baremetal`` API on loopback: the
    same calls (a POST, a PUT of the traits by name, a PATCH, a DELETE) as into Ironic 39."""
    root = runbook_catalog(tmp_path / "deploy")
    engine = make_engine(f"sqlite:///{tmp_path / 'served.db'}")
    migrate.upgrade(engine)
    with serving(build_app(engine, repo=root)) as url:
        args = ["--only", "runbooks", "--repo", str(root), "--endpoint", f"{url}/baremetal"]
        applied = cli("sync", "apply", *args, "--yes", "-f", "json")
        assert applied.exit_code == 0, applied.stdout + applied.stderr
        assert json.loads(applied.stdout)["writes"] == 3
        assert cli("sync", "plan", *args).stdout == "No changes. 3 up to date.\n"
        edit(root, "raid-rebuild", "create_root_volume: true", "create_root_volume: false")
        edit(root, "bios-servicing", "[CUSTOM_GPU]", "[CUSTOM_GPU, CUSTOM_NVME]")
        remove(root, "firmware-update")
        pruned = json.loads(cli("sync", "apply", *args, "--prune", "--yes", "-f", "json").stdout)
        assert (pruned["writes"], pruned["failed"]) == (3, 0), pruned
        assert cli("sync", "plan", *args, "--prune").stdout == "No changes. 2 up to date.\n"
    found = rows(engine)
    assert sorted(found) == ["bios-servicing", "raid-rebuild"]
    assert found["bios-servicing"]["traits"] == ["CUSTOM_GPU", "CUSTOM_NVME"]
    assert found["raid-rebuild"]["steps"][1]["args"] == {"create_root_volume": False}
    engine.dispose()
