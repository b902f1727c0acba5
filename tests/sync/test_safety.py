"""The sync engine never deletes by accident: a round whose catalog is missing or has errors is
never applied, and a prune that would delete every managed flavor (or deploy template) is
refused unless allowed explicitly — from the watcher, the CLI and /v1/sync, on both databases."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.catalog.repo import Repository
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.logs import fields_of
from flavorsmith.sync.kinds.deploy_templates import StoreTemplates
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import StoreFlavors
from flavorsmith.sync.watch import watch
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke
from tests.database import throwaway_postgres
from tests.support.catalogs import RULES


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    return tmp_path / "deploy"


def empty_but_valid(repo: Path) -> None:
    """The catalog still loads without errors, but defines nothing at all."""
    shutil.rmtree(repo / "hardware")
    (repo / "hardware").mkdir()
    assert not Repository(repo, RULES).load().diagnostics


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An empty, migrated database of its own (prune tests delete every managed flavor)."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
        migrate.upgrade(engine)
        yield engine
        engine.dispose()
        return
    with throwaway_postgres() as url:
        engine = make_engine(url)
        migrate.upgrade(engine)
        yield engine
        engine.dispose()


def managed(engine: Engine) -> set[str]:
    return {f.id for f in StoreFlavors(engine).observe().values() if f.managed}


def managed_templates(engine: Engine) -> set[str]:
    return {t.name for t in StoreTemplates(engine).observe().values() if t.managed}


def test_a_missing_hardware_folder_is_an_error_not_an_empty_catalog(tmp_path: Path) -> None:
    view = Repository(tmp_path / "gone", RULES).load()
    assert [d.code for d in view.diagnostics] == ["repository-missing"]
    assert view.diagnostics[0].severity == "error"
    assert "has no hardware/ folder" in view.diagnostics[0].message


def test_the_watcher_deletes_nothing_when_hardware_vanishes(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.db'}")
    migrate.upgrade(engine)
    stop = threading.Event()
    thread = threading.Thread(
        target=watch,
        args=(Repository(repo, RULES), lambda _kind: StoreFlavors(engine), engine),
        kwargs={
            "kinds": (FLAVORS,),
            "prune": True,
            "interval": 0.3,
            "debounce": 0.2,
            "poll": 0.05,
            "stop": stop,
        },
    )
    caplog.set_level("INFO", logger="flavorsmith.sync")

    def rounds() -> list[dict[str, object]]:
        return [fields_of(r) for r in caplog.records if fields_of(r).get("event") == "sync"]

    def wait_for(count: int) -> None:
        deadline = time.monotonic() + 20
        while len(rounds()) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(rounds()) >= count, rounds()

    thread.start()
    try:
        wait_for(1)
        assert len(managed(engine)) == 12
        # A git checkout moves hardware/ away for a moment: several rounds run meanwhile.
        (repo / "hardware").rename(tmp_path / "aside")
        seen = len(rounds())
        wait_for(seen + 3)
        assert len(managed(engine)) == 12
        # An empty hardware/ folder: a valid catalog without any flavor.
        (repo / "hardware").mkdir()
        seen = len(rounds())
        wait_for(seen + 2)
        assert len(managed(engine)) == 12
    finally:
        stop.set()
        thread.join(10)
    lines = rounds()
    gone = [line for line in lines if "no hardware/ folder" in str(line.get("blocked", ""))]
    assert gone and all("writes" not in line for line in gone)
    refused = [line for line in lines if "refused" in str(line.get("blocked", ""))]
    assert refused and "delete all 12 managed flavors" in str(refused[-1]["blocked"])
    engine.dispose()


def test_the_watcher_prunes_everything_only_when_allowed(repo: Path, tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.db'}")
    migrate.upgrade(engine)
    target = lambda _kind: StoreFlavors(engine)  # noqa: E731
    only = {"kinds": (FLAVORS,), "rounds": 1, "poll": 0}
    watch(Repository(repo, RULES), target, engine, prune=True, **only)  # type: ignore[arg-type]
    empty_but_valid(repo)
    watch(Repository(repo, RULES), target, engine, prune=True, **only)  # type: ignore[arg-type]
    assert len(managed(engine)) == 12
    watch(Repository(repo, RULES), target, engine, prune=True, allow_empty=True, **only)  # type: ignore[arg-type]
    assert managed(engine) == set()
    engine.dispose()


def test_api_refuses_a_prune_that_empties_a_kind(fresh_engine: Engine, repo: Path) -> None:
    with TestClient(build_app(fresh_engine, repo=repo)) as client:
        assert client.post("/v1/sync/apply").json()["writes"] == 12
        applied = client.post("/v1/sync/apply?only=deploy-templates")
        assert applied.json()["writes"] == 4
        empty_but_valid(repo)

        plan = client.get("/v1/sync/plan?prune=true")
        assert plan.status_code == 200
        assert plan.json()["refused_deletes"] == 12
        refused = client.post("/v1/sync/apply?prune=true")
        assert refused.status_code == 409
        body = refused.json()
        assert body["refused_deletes"] == 12 and "results" not in body
        assert body["error"].startswith("refused: pruning would delete all 12 managed flavors")
        assert "allow_empty=true" in body["error"]
        assert len(managed(fresh_engine)) == 12

        templates = client.post("/v1/sync/apply?only=deploy-templates&prune=true")
        assert templates.status_code == 409
        assert "delete all 4 managed deploy templates" in templates.json()["error"]
        assert len(managed_templates(fresh_engine)) == 4

        assert "error" not in client.get("/v1/sync/plan?prune=true&allow_empty=true").json()
        allowed = client.post("/v1/sync/apply?prune=true&allow_empty=true")
        assert allowed.status_code == 200 and allowed.json()["writes"] == 12
        assert managed(fresh_engine) == set()
        allowed = client.post("/v1/sync/apply?only=deploy-templates&prune=true&allow_empty=1")
        assert allowed.status_code == 200 and allowed.json()["writes"] == 4
        assert managed_templates(fresh_engine) == set()
        assert client.post("/v1/sync/apply?allow_empty=maybe").status_code == 400


def test_api_never_applies_a_vanished_catalog(fresh_engine: Engine, repo: Path) -> None:
    with TestClient(build_app(fresh_engine, repo=repo)) as client:
        assert client.post("/v1/sync/apply").json()["writes"] == 12
        shutil.rmtree(repo / "hardware")
        for allow in ("false", "true"):
            refused = client.post(f"/v1/sync/apply?prune=true&allow_empty={allow}")
            assert refused.status_code == 409
            body = refused.json()
            assert [d["code"] for d in body["diagnostics"]] == ["repository-missing"]
            assert body["actions"] == [] and "results" not in body
        assert len(managed(fresh_engine)) == 12
        catalog = client.get("/v1/catalog").json()
        assert catalog["valid"] is False


def test_cli_prune_to_empty_needs_allow_empty(cli: Invoke, repo: Path, tmp_path: Path) -> None:
    args = ["--repo", str(repo), "--database", f"sqlite:///{tmp_path / 'cli.db'}"]
    assert cli("sync", "apply", *args, "--yes").exit_code == 0
    empty_but_valid(repo)
    planned = cli("sync", "plan", *args, "--prune")
    assert planned.exit_code == 1
    assert planned.stderr.startswith(
        "error: refused: pruning would delete all 12 managed flavors and leave none"
    )
    assert "delete" in planned.stdout  # the plan is still shown
    refused = cli("sync", "apply", *args, "--prune", "--yes")
    assert refused.exit_code == 1 and "--allow-empty" in refused.stderr
    assert cli("sync", "plan", *args, "--prune", "--allow-empty").exit_code == 0
    allowed = cli("sync", "apply", *args, "--prune", "--allow-empty", "--yes", "-f", "json")
    assert allowed.exit_code == 0 and json.loads(allowed.stdout)["writes"] == 12
