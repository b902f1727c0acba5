"""A plan that deletes or replaces a flavor counts the servers that use it, asking the real Nova
34 compute API of the test support (``GET /servers?all_tenants=1&flavor=ID``, paged), and
`sync apply` refuses a flavor in use unless forced.

That Nova runs no compute service, so it can boot nothing: the servers are rows written into
its cell0 database (where Nova keeps the servers that never reached a host) and the API
database's instance mappings, as Nova's own schema holds them; Nova's own API code lists them.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from flavorsmith.catalog.edit import delete
from flavorsmith.catalog.kinds import FLAVOR
from flavorsmith.catalog.repo import Repository
from flavorsmith.clients.cloud import connect
from flavorsmith.db.engine import make_engine
from flavorsmith.logs import fields_of
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import SdkFlavors
from flavorsmith.sync.report import Servers
from flavorsmith.sync.watch import watch
from tests.conftest import EXAMPLES, Invoke
from tests.support import nova_api
from tests.support.catalogs import RULES

ADMIN, MEMBER = "nova-admin", "nova-member"


@dataclass(frozen=True)
class Nova:
    url: str
    state: Path
    clouds_yaml: Path


@pytest.fixture(scope="module")
def nova(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Nova]:
    folder = tmp_path_factory.mktemp("nova-servers")
    with nova_api.running(folder / "nova") as url:
        clouds = {
            "clouds": {
                name: {
                    "auth_type": "admin_token",
                    "auth": {"endpoint": url, "token": token},
                    "compute_endpoint_override": url,
                }
                for name, token in ((ADMIN, "admin:admin"), (MEMBER, "alice:p1"))
            }
        }
        (folder / "clouds.yaml").write_text(json.dumps(clouds))
        yield Nova(url, folder / "nova", folder / "clouds.yaml")


@pytest.fixture
def repo(tmp_path: Path) -> Repository:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    return Repository(tmp_path / "deploy", RULES)


@pytest.fixture
def clouds(nova: Nova, monkeypatch: pytest.MonkeyPatch) -> Iterator[Nova]:
    """The clouds.yaml of that Nova; the servers a test made are gone after it."""
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(nova.clouds_yaml))
    monkeypatch.delenv("OS_CLOUD", raising=False)
    yield nova
    nova_api.remove_servers(nova.state)


def boot(nova: Nova, flavor_id: str, projects: list[str]) -> list[str]:
    """Servers of ``flavor_id`` in ``projects`` (one each)."""
    return nova_api.add_servers(nova.state, flavor_id, projects)


def database(repo: Repository) -> str:
    return f"sqlite:///{repo.root.parent / 'sync.db'}"


def edit(repo: Repository, name: str, old: str, new: str) -> None:
    path = repo.hardware / name
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))


PLAN = """\
-/+ replace flavor g1.8xh100 (is_public forces replacement; 1 server uses it)
    ~ is_public: true → false (forces replacement)
- delete flavor c2.diskless (3 servers use it): managed by Flavorsmith and no longer in the \
catalog
Plan: 2 changes (1 to replace, 1 to delete). 10 up to date.
"""

REFUSED = (
    "error: refused: the plan deletes or replaces 2 flavors in use: g1.8xh100 (1 server), "
    "c2.diskless (3 servers); nothing applied. Resize those servers to another flavor first, "
    "or apply anyway with --force\n"
)


def private_warning(repo: Repository) -> str:
    """The catalog's one warning, which sync prints above its plan: g1.8xh100 made private
    without projects."""
    return (
        f"{repo.root}/hardware/flavors/g1.8xh100.yaml:3:12: is_public: warning: a private "
        "flavor without projects can be used by admins only\n0 errors, 1 warning\n"
    )


def test_a_flavor_in_use_is_counted_and_refused_unless_forced(
    cli: Invoke, clouds: Nova, repo: Repository
) -> None:
    args = ["--cloud", ADMIN, "--repo", str(repo.root), "--database", database(repo)]
    first = cli("sync", "apply", *args, "--prune", "--yes", "--force")  # whatever ran before
    assert first.exit_code == 0, first.output
    boot(clouds, "c2.diskless", ["p1", "p1", "p2"])
    boot(clouds, "g1.8xh100", ["p2"])
    edit(repo, "flavors/g1.8xh100.yaml", "name: g1.8xh100\n", "name: g1.8xh100\nis_public: false\n")
    delete(repo, FLAVOR, "c2.diskless")

    plan = cli("sync", "plan", *args, "--prune")
    warned = private_warning(repo)
    assert (plan.exit_code, plan.stdout, plan.stderr) == (0, PLAN, warned)

    body = json.loads(cli("sync", "plan", *args, "--prune", "-f", "json").stdout)
    assert [(a["action"], a["subject"], a.get("servers")) for a in body["actions"]][-1] == (
        "delete",
        "c2.diskless",
        {"count": 3, "scope": "all_projects"},
    )
    replaced = next(a for a in body["actions"] if a["action"] == "replace")
    assert replaced["servers"] == {"count": 1, "scope": "all_projects"}
    others = [a for a in body["actions"] if a["action"] not in ("delete", "replace")]
    assert others and all("servers" not in a for a in others)

    refused = cli("sync", "apply", *args, "--prune", "--yes")
    assert (refused.exit_code, refused.stdout, refused.stderr) == (1, PLAN, warned + REFUSED)
    unasked = cli("sync", "apply", *args, "--prune")  # refused before it would ask
    assert (unasked.exit_code, unasked.stdout, unasked.stderr) == (1, PLAN, warned + REFUSED)
    as_json = cli("sync", "apply", *args, "--prune", "--yes", "-f", "json")
    assert as_json.exit_code == 1
    refusal = json.loads(as_json.stdout)
    assert (refusal["error"], refusal["refused_in_use"], "results" in refusal) == (
        REFUSED.removeprefix("error: ").rstrip("\n"),
        {"g1.8xh100": 1, "c2.diskless": 3},
        False,
    )
    admin = connect(ADMIN, "compute")
    assert admin.compute.get_flavor("c2.diskless").is_public is True  # nothing applied
    assert admin.compute.get_flavor("g1.8xh100").is_public is True

    # A saved plan is refused the same way; --force applies it.
    saved = repo.root.parent / "plan.json"
    assert cli("sync", "plan", *args, "--prune", "--out", str(saved)).exit_code == 0
    again = cli("sync", "apply", str(saved), *args)
    assert (again.exit_code, again.stderr) == (1, warned + REFUSED)
    forced = cli("sync", "apply", str(saved), *args, "--force")
    assert forced.exit_code == 0, forced.output
    assert admin.compute.find_flavor("c2.diskless") is None
    assert admin.compute.get_flavor("g1.8xh100").is_public is False
    # The servers keep running; the new g1.8xh100 is another flavor to Nova: none use it.
    after = cli("sync", "plan", *args, "--prune")
    assert (after.exit_code, after.stdout) == (0, "No changes. 11 up to date.\n")
    target = SdkFlavors(admin, lambda k, v: None)
    assert target.servers_using("g1.8xh100") == Servers(0, "all_projects")
    listed = target.request("GET", "/servers", (2, 1), params={"all_tenants": "1"})
    assert len(listed["servers"]) == 4


def test_a_credential_that_may_not_list_every_project_counts_its_own(
    cli: Invoke, clouds: Nova, repo: Repository
) -> None:
    admin = ["--cloud", ADMIN, "--repo", str(repo.root), "--database", database(repo)]
    assert cli("sync", "apply", *admin, "--prune", "--yes", "--force").exit_code == 0
    boot(clouds, "c2.large", ["p1", "p1", "p2"])
    delete(repo, FLAVOR, "c2.large")
    # A private flavor the member's project was not given: Nova hides it from that member, whose
    # plan would create it again. Out of the catalog, it is out of this plan.
    delete(repo, FLAVOR, "m1.medium.dedicated")
    member = ["--cloud", MEMBER, *admin[2:]]
    plan = cli("sync", "plan", *member, "--prune")
    assert (plan.exit_code, plan.stderr) == (0, "")
    assert plan.stdout == (
        "- delete flavor c2.large (2 servers use it in this credential's project; other "
        "projects not counted): managed by Flavorsmith and no longer in the catalog\n"
        "    # this credential may not list other projects' servers (Nova answered 403 to "
        "all_tenants)\n"
        "Plan: 1 change (1 to delete). 10 up to date.\n"
    )
    body = json.loads(cli("sync", "plan", *member, "--prune", "-f", "json").stdout)
    assert [a["servers"] for a in body["actions"] if a["action"] == "delete"] == [
        {
            "count": 2,
            "scope": "own_project",
            "note": "this credential may not list other projects' servers (Nova answered 403 "
            "to all_tenants)",
        }
    ]


def test_every_page_of_servers_is_counted(clouds: Nova, repo: Repository) -> None:
    """Nova pages server lists (1000 a page by default); the count follows the marker."""
    admin = connect(ADMIN, "compute")
    admin.compute.create_flavor(name="paged", ram=512, vcpus=1, disk=1, id="paged")
    boot(clouds, "paged", [f"p{n % 7}" for n in range(1003)])
    target = SdkFlavors(admin, lambda k, v: None)
    assert target.servers_using("paged") == Servers(1003, "all_projects")
    assert target.calls == 2
    assert target.servers_using("no-such-flavor") == Servers(0, "all_projects")
    admin.compute.delete_flavor("paged")


def test_a_compute_api_that_cannot_list_servers_says_unknown_and_refuses_nothing(
    cli: Invoke, sqlite_server: str, repo: Repository
) -> None:
    """Flavorsmith's own compute API holds flavors, never servers, and serves no /servers: a
    plan through --endpoint cannot count them; it says so and goes on, and apply is not
    refused for it."""
    args = ["--endpoint", f"{sqlite_server}/compute/v2.1", "--repo", str(repo.root)]
    args += ["--database", database(repo)]
    assert cli("sync", "apply", *args, "--yes").exit_code == 0
    delete(repo, FLAVOR, "c2.diskless")
    plan = cli("sync", "plan", *args, "--prune")
    assert (plan.exit_code, plan.stdout, plan.stderr) == (
        0,
        "- delete flavor c2.diskless (servers using it: unknown): managed by Flavorsmith and no "
        "longer in the catalog\n"
        "    # cannot count the servers: GET /servers: 404 The resource could not be found.\n"
        "Plan: 1 change (1 to delete). 11 up to date.\n",
        "",
    )
    body = json.loads(cli("sync", "plan", *args, "--prune", "-f", "json").stdout)
    assert [a["servers"] for a in body["actions"] if a["action"] == "delete"] == [
        {
            "count": None,
            "scope": None,
            "note": "cannot count the servers: GET /servers: 404 The resource could not be found.",
        }
    ]
    applied = cli("sync", "apply", *args, "--prune", "--yes")
    assert applied.exit_code == 0, applied.output
    assert "c2.diskless" not in cli("sync", "plan", *args, "--prune").stdout


def test_a_watcher_logs_the_refusal_and_writes_nothing(
    cli: Invoke, clouds: Nova, repo: Repository, caplog: pytest.LogCaptureFixture
) -> None:
    args = ["--cloud", ADMIN, "--repo", str(repo.root), "--database", database(repo)]
    assert cli("sync", "apply", *args, "--prune", "--yes", "--force").exit_code == 0
    boot(clouds, "m1.small.nicX", ["p1"])
    delete(repo, FLAVOR, "m1.small.nicX")
    admin = connect(ADMIN, "compute")
    engine = make_engine(database(repo))
    caplog.set_level("INFO", logger="flavorsmith.sync")
    try:
        watch(
            repo,
            lambda kind: SdkFlavors(admin, lambda k, v: None),
            engine,
            kinds=(FLAVORS,),
            prune=True,
            rounds=1,
        )
    finally:
        engine.dispose()
    (line,) = [fields_of(r) for r in caplog.records if fields_of(r).get("event") == "sync"]
    assert (line["blocked"], line["actions"]) == (
        "refused: the plan deletes or replaces a flavor in use: m1.small.nicX (1 server); "
        "nothing applied. Resize those servers to another flavor first, or apply anyway with "
        "--force",
        1,
    )
    assert admin.compute.get_flavor("m1.small.nicX").name == "m1.small.nicX"
