"""sync plan/apply on the command line and over /v1, the watcher, and the example catalog as
the real `openstack flavor` CLI sees it after a sync."""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flavorsmith.catalog.repo import Repository
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.logs import fields_of
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import StoreFlavors
from flavorsmith.sync.watch import watch
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke
from tests.live import serving
from tests.support.catalogs import RULES
from tests.support.openstack_cli import run_openstack


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    return tmp_path / "deploy"


@pytest.fixture
def database(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'sync.db'}"


def test_cli_plan_apply_and_idempotence(cli: Invoke, repo: Path, database: str) -> None:
    args = ["--repo", str(repo), "--database", database]
    planned = cli("sync", "plan", *args, "-f", "json")
    assert planned.exit_code == 0
    assert {a["action"] for a in json.loads(planned.stdout)["actions"]} == {"create"}
    refused = cli("sync", "apply", *args)
    assert (refused.exit_code, refused.stderr) == (
        2,
        "error: 12 changes to apply; pass --yes to apply without a terminal\n",
    )
    applied = cli("sync", "apply", *args, "--yes")
    assert applied.exit_code == 0
    # One observation, then one transaction a flavor (with its extra specs and access).
    assert applied.stdout.splitlines()[-1] == "12 changes, 0 failed, 13 API calls"
    again = cli("sync", "apply", *args, "--yes", "-f", "json")
    body = json.loads(again.stdout)
    assert body["writes"] == 0 and body["api_calls"] == 1


def test_cli_refuses_a_broken_catalog(cli: Invoke, database: str) -> None:
    result = cli(
        "sync",
        "apply",
        "--repo",
        str(EXAMPLES / "broken" / "wrong-type"),
        "--database",
        database,
        "--yes",
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("the catalog has errors; nothing is planned:\n")


def test_api_plan_and_apply(repo: Path, tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'api.db'}")
    migrate.upgrade(engine)
    with TestClient(build_app(engine, repo=repo)) as client:
        plan = client.get("/v1/sync/plan").json()
        assert len(plan["actions"]) == 12 and "results" not in plan
        applied = client.post("/v1/sync/apply")
        assert applied.status_code == 200 and applied.json()["writes"] == 12
        flavor = client.get(
            "/compute/v2.1/flavors/m1.small", headers={"OpenStack-API-Version": "compute latest"}
        ).json()["flavor"]
        assert flavor["extra_specs"]["flavorsmith:managed"] == "true" and flavor["ram"] == 131072
        assert client.post("/v1/sync/apply").json()["writes"] == 0
        assert client.get("/v1/sync/plan?only=nodes").status_code == 400
        assert client.get("/v1/sync/plan?prune=maybe").status_code == 400
    engine.dispose()


def test_api_sync_needs_admin(repo: Path, tmp_path: Path, token_file_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'api.db'}")
    migrate.upgrade(engine)
    with TestClient(
        build_app(engine, repo=repo, auth="token-file", token_file=token_file_path)
    ) as client:
        assert (
            client.post("/v1/sync/apply", headers={"X-Auth-Token": "reader-token"}).status_code
            == 403
        )
        assert (
            client.get("/v1/sync/plan", headers={"X-Auth-Token": "member-token"}).status_code == 403
        )
        assert (
            client.get("/v1/sync/plan", headers={"X-Auth-Token": "admin-token"}).status_code == 200
        )
        # What each caller may do, as the dashboard asks before it shows Apply.
        allowed = {
            who: client.get("/v1/sync/allowed", headers={"X-Auth-Token": f"{who}-token"}).json()
            for who in ("admin", "member", "reader")
        }
        kinds = {who: answer.pop("kinds") for who, answer in allowed.items()}
        assert allowed == {
            "admin": {"plan": True, "apply": True},
            "member": {"plan": False, "apply": False},
            "reader": {"plan": False, "apply": False},
        }
        # The kinds this service syncs into its own database (the others go only into a real
        # cloud), in the registry's order, the same for every caller; the dashboard plans the
        # watched ones unless one is chosen.
        assert kinds["admin"] == kinds["member"] == kinds["reader"]
        assert [(k["name"], k["subject"], k["watched"]) for k in kinds["admin"]] == [
            ("flavors", "flavor", True),
            ("deploy-templates", "template", True),
            ("runbooks", "runbook", True),
            ("load-balancer-flavors", "load-balancer", False),
        ]
        assert client.get("/v1/sync/allowed").status_code == 401
        assert (
            client.get(
                "/v1/sync/allowed?only=flavors", headers={"X-Auth-Token": "admin-token"}
            ).status_code
            == 400
        )
    engine.dispose()


@pytest.fixture
def token_file_path(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.yaml"
    path.write_text(
        "admin-token: {user: a, project: p, roles: [admin]}\n"
        "member-token: {user: m, project: p, roles: [member]}\n"
        "reader-token: {user: r, project: p, roles: [reader]}\n"
    )
    return path


def test_watcher_applies_on_start_and_on_file_changes(
    repo: Path, database: str, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(database)
    migrate.upgrade(engine)
    repository = Repository(repo, RULES)
    stop = threading.Event()
    thread = threading.Thread(
        target=watch,
        args=(repository, lambda _kind: StoreFlavors(engine), engine),
        kwargs={
            "kinds": (FLAVORS,),
            "prune": False,
            "interval": 3600,
            "debounce": 0.2,
            "poll": 0.05,
            "stop": stop,
        },
    )
    caplog.set_level("INFO", logger="flavorsmith.sync")
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while (
            not any(fields_of(r).get("round") == 1 for r in caplog.records)
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        path = repo / "hardware" / "flavors" / "m1.small.yaml"
        path.write_text(path.read_text().replace("dual 480GB drives", "two drives"))
        while (
            not any(fields_of(r).get("round") == 2 for r in caplog.records)
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(10)
    lines = [fields_of(r) for r in caplog.records if fields_of(r).get("event") == "sync"]
    assert lines[0]["trigger"] == "start" and lines[0]["writes"] == 12
    assert lines[1]["trigger"] == "files" and lines[1]["writes"] == 1
    target = StoreFlavors(engine)
    assert target.observe()["m1.small"].description.endswith("two drives")  # type: ignore[union-attr]
    engine.dispose()


OPENSTACK = shutil.which("openstack", path=str(Path(sys.executable).parent))


def test_example_catalog_as_openstack_sees_it(cli: Invoke, tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'os.db'}")
    migrate.upgrade(engine)
    with serving(build_app(engine)) as url:
        result = cli(
            "sync",
            "apply",
            "--repo",
            str(EXAMPLES),
            "--endpoint",
            f"{url}/compute/v2.1",
            "--database",
            f"sqlite:///{tmp_path / 'lock.db'}",
            "--yes",
        )
        assert result.exit_code == 0, result.output
        config = tmp_path / "clouds.yaml"
        config.write_text(
            "clouds:\n  fs:\n    auth_type: none\n"
            f"    compute_endpoint_override: {url}/compute/v2.1\n"
            f'    identity_api_version: "3"\n    identity_endpoint_override: {url}/compute/v2.1\n'
        )
        env = {
            "PATH": str(Path(sys.executable).parent),
            "HOME": str(Path.home()),
            "OS_CLIENT_CONFIG_FILE": str(config),
        }
        assert OPENSTACK is not None

        def openstack(*args: str) -> object:
            done = run_openstack(["--os-cloud", "fs", "flavor", *args, "-f", "json"], env)
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)

        listed = openstack("list", "--all")
        assert sorted(f["Name"] for f in listed) == sorted(
            f.name for f in Repository(EXAMPLES, RULES).load().catalog.flavors
        )  # type: ignore[union-attr]
        shown = openstack("show", "m1.small")
        assert {k: shown[k] for k in ("vcpus", "ram", "disk", "description")} == {  # type: ignore[index]
            "vcpus": 16,
            "ram": 131072,
            "disk": 480,
            "description": "Small compute flavor with 16 cores, 128GB RAM, and dual 480GB drives",
        }
        assert shown["properties"] == {  # type: ignore[index]
            "flavorsmith:managed": "true",
            "resources:CUSTOM_M1_SMALL": "1",
            "resources:DISK_GB": "0",
            "resources:MEMORY_MB": "0",
            "resources:VCPU": "0",
        }
        # Users see a flavor's deploy customisation: the templates its traits select.
        assert openstack("show", "c2.large.vmx-mirror")["description"] == (  # type: ignore[index]
            "c2.large with VT-x on and the drives mirrored (RAID-1). Deploy templates: "
            "CUSTOM_BM_CONFIG_BIOS_VMX_ON, CUSTOM_BM_CONFIG_RAID_DISK_MIRROR."
        )
    engine.dispose()


def test_a_plan_over_the_api_changes_no_state(repo: Path, tmp_path: Path) -> None:
    """GET /v1/sync/plan plans the catalog on disk now, and leaves the service's loaded catalog
    (and everything in its database) as it was."""
    engine = make_engine(f"sqlite:///{tmp_path / 'api.db'}")
    migrate.upgrade(engine)
    with TestClient(build_app(engine, repo=repo)) as client:
        assert client.post("/v1/sync/apply").json()["writes"] == 12
        services = client.app.state.services  # type: ignore[attr-defined]
        loaded = services.catalog.view()
        before = client.get("/v1/catalog/flavors/m1.small").json()
        flavors_before = client.get("/compute/v2.1/flavors/detail?is_public=None").json()
        path = repo / "hardware" / "flavors" / "m1.small.yaml"
        path.write_text(path.read_text().replace("dual 480GB drives", "two drives"))
        plan = client.get("/v1/sync/plan")
        assert plan.status_code == 200
        by_flavor = {a["flavor"]: a for a in plan.json()["actions"]}
        assert by_flavor["m1.small"]["action"] == "update"  # planned from the disk, now
        assert services.catalog.view() is loaded  # the service's catalog was not reloaded
        assert client.get("/v1/catalog/flavors/m1.small").json() == before
        assert client.get("/compute/v2.1/flavors/detail?is_public=None").json() == flavors_before
        applied = client.post("/v1/sync/apply")  # an apply reloads it, then applies that
        assert applied.json()["writes"] == 1
        assert services.catalog.view() is not loaded
        unknown = client.get("/v1/sync/plan?only=nodes")
        assert unknown.status_code == 400
        assert "only=flavors or only=deploy-templates" in unknown.text
        # classification writes a real Ironic's nodes: the service's database is no target
        for answer in (
            client.get("/v1/sync/plan?only=classification"),
            client.post("/v1/sync/apply?only=classification"),
        ):
            assert answer.status_code == 400
            assert "classification cannot be synced into the service's own database" in (
                answer.text
            )
    engine.dispose()


def test_classification_runs_only_when_named_and_only_into_a_cloud(
    cli: Invoke, repo: Path, database: str
) -> None:
    """It writes nodes others write too: never watched, and not into the service's database
    (``flavorsmith classify --cloud/--ironic-endpoint --all`` is its command)."""
    args = ["--only", "classification", "--repo", str(repo), "--database", database]
    watched = cli("sync", "apply", *args, "--watch")
    assert watched.exit_code == 2
    assert "classification is synced only when named, never by the watcher" in " ".join(
        watched.stderr.split()
    )
    for command in (["plan"], ["apply", "--yes"]):
        result = cli("sync", *command, *args)
        assert (result.exit_code, result.stdout, result.stderr) == (
            1,
            "",
            "error: classification cannot be synced into the service's own database, only "
            "into a real cloud's baremetal service (give --cloud or --endpoint)\n",
        )
