"""Sync plan/apply end to end through openstacksdk against a live compute API, on SQLite and
PostgreSQL: create, update, replace (same id), prune, unmanaged flavors untouched,
idempotence (zero writes, counted), and convergence after injected 503s and a killed run."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openstack
import pytest
from starlette.types import Receive, Scope, Send

from flavorsmith.catalog.edit import delete
from flavorsmith.catalog.kinds import FLAVOR
from flavorsmith.catalog.repo import Repository
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.extra_specs.builtin import build
from flavorsmith.sync.engine import Retry, run
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import MARKER, SdkFlavors
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES
from tests.database import throwaway_postgres
from tests.live import serving
from tests.support.catalogs import RULES


class Flaky:
    """Answers 503 to every third write to the compute API (the other calls pass)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.writes = 0
        self.failed = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] != "GET"
            and scope["path"].startswith("/compute/")
        ):
            self.writes += 1
            if self.writes % 3 == 0:
                self.failed += 1
                await send(
                    {
                        "type": "http.response.start",
                        "status": 503,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send(
                    {
                        "type": "http.response.body",
                        "body": b'{"serviceUnavailable": {"code": 503, "message": "try later"}}',
                    }
                )
                return
        await self.app(scope, receive, send)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'sync.db'}"
        return
    with throwaway_postgres() as url:
        yield url


@pytest.fixture
def repo(tmp_path: Path) -> Repository:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    return Repository(tmp_path / "deploy", RULES)


class Live:
    def __init__(self, url: str, flaky: Flaky | None) -> None:
        self.url = url
        self.flaky = flaky
        self.conn = openstack.connect(
            auth_type="none",
            compute_endpoint_override=f"{url}/compute/v2.1",
            load_yaml_config=False,
            load_envvars=False,
        )
        registry = build()
        self.refuses = lambda k, v: not registry.verdict(k, v).allowed("nova")

    def target(self) -> SdkFlavors:
        return SdkFlavors(self.conn, self.refuses)


def live(database_url: str, flaky: bool = False) -> Iterator[Live]:
    engine = make_engine(database_url)
    migrate.upgrade(engine)
    app = build_app(engine)
    wrapped = Flaky(app) if flaky else None
    with serving(wrapped or app) as url:  # type: ignore[arg-type]
        yield Live(url, wrapped)
    engine.dispose()


@pytest.fixture
def server(database_url: str) -> Iterator[Live]:
    yield from live(database_url)


@pytest.fixture
def flaky_server(database_url: str) -> Iterator[Live]:
    yield from live(database_url, flaky=True)


def edit(repo: Repository, name: str, old: str, new: str) -> None:
    path = repo.hardware / name
    path.write_text(path.read_text().replace(old, new))


def test_create_update_replace_prune_and_idempotence(server: Live, repo: Repository) -> None:
    server.conn.compute.create_flavor(name="hand-made", ram=1, vcpus=1, disk=1, id="hand-made")
    first = run(FLAVORS, repo, server.target(), prune=False, execute=True)
    assert first.report is not None and first.report.failed == []
    assert sorted(a.flavor for a in first.actions if a.kind == "create") == sorted(
        f.name for f in repo.load().catalog.flavors
    )
    small = server.conn.compute.get_flavor("m1.small")
    assert (small.vcpus, small.ram, small.disk) == (16, 131072, 480)
    assert server.conn.compute.fetch_flavor_extra_specs(small).extra_specs[MARKER] == "true"
    dedicated = server.conn.compute.get_flavor_access("m1.medium.dedicated")
    assert sorted(a["tenant_id"] for a in dedicated) == [
        "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d",
        "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a",
    ]

    again = run(FLAVORS, repo, server.target(), prune=False, execute=True)
    assert again.report is not None and again.report.writes == 0
    assert {a.kind for a in again.actions} == {"noop", "unmanaged"}
    assert again.report.calls == 2  # one list, one access list for the private managed flavor

    edit(repo, "flavors/m1.small.yaml", "dual 480GB drives", "two 480GB drives")
    edit(
        repo, "device-types/dell-poweredge-r7615.yaml", "size: 262144 # MB (256 GB)", "size: 393216"
    )
    delete(repo, FLAVOR, "c2.diskless")
    changed = run(FLAVORS, repo, server.target(), prune=True, execute=True)
    by_flavor = {a.flavor: a.kind for a in changed.actions}
    assert by_flavor["m1.small"] == "update"
    assert by_flavor["m1.medium"] == "replace" and by_flavor["m1.medium.dedicated"] == "replace"
    assert by_flavor["c2.diskless"] == "delete"
    assert by_flavor["hand-made"] == "unmanaged"
    assert (
        server.conn.compute.get_flavor("m1.small").description
        == "Small compute flavor with 16 cores, 128GB RAM, and two 480GB drives"
    )
    medium = server.conn.compute.get_flavor("m1.medium")
    assert (medium.id, medium.ram) == ("m1.medium", 393216)
    assert len(server.conn.compute.get_flavor_access("m1.medium.dedicated")) == 2
    assert server.conn.compute.find_flavor("c2.diskless") is None
    assert server.conn.compute.get_flavor("hand-made").ram == 1
    final = run(FLAVORS, repo, server.target(), prune=True, execute=True)
    assert final.report is not None and final.report.writes == 0


def test_transient_failures_are_retried(flaky_server: Live, repo: Repository) -> None:
    slept: list[float] = []
    retry = Retry(sleep=slept.append)  # the backoff is asked for, never slept
    result = run(FLAVORS, repo, flaky_server.target(), prune=False, execute=True, retry=retry)
    assert flaky_server.flaky is not None and flaky_server.flaky.failed > 0
    assert slept and all(0 <= s <= 0.8 for s in slept)  # jittered, up to 0.2 * 2**n
    assert result.report is not None and result.report.failed == []
    assert run(FLAVORS, repo, flaky_server.target(), prune=False, execute=True).report.writes == 0  # type: ignore[union-attr]


class Killed(Exception):
    pass


def test_a_killed_run_converges(server: Live, repo: Repository) -> None:
    target = server.target()
    original = target.set_specs
    calls = {"n": 0}

    def dies_on_third(flavor_id: str, specs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise Killed  # the process dies between creating a flavor and marking it
        original(flavor_id, specs)

    target.set_specs = dies_on_third  # type: ignore[method-assign]
    with pytest.raises(Killed):
        run(FLAVORS, repo, target, prune=False, execute=True)
    resumed = run(FLAVORS, repo, server.target(), prune=False, execute=True)
    assert resumed.report is not None and resumed.report.failed == []
    assert "conflict" not in {a.kind for a in resumed.actions}
    assert run(FLAVORS, repo, server.target(), prune=False, execute=True).report.writes == 0  # type: ignore[union-attr]


def test_a_catalog_with_errors_is_never_applied(server: Live, repo: Repository) -> None:
    edit(repo, "flavors/m1.small.yaml", "resource_class: m1.small", "resource_class: m1.smal")
    result = run(FLAVORS, repo, server.target(), prune=True, execute=True)
    assert result.blocked and result.actions == [] and result.report is None
    assert list(server.conn.compute.flavors()) == []
