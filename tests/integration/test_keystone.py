"""`serve --auth keystone` against a real Keystone 30 (tests/support/keystone_api.py): tokens
validated by keystonemiddleware, 401s in each family's body with Keystone's challenge, and the
role x endpoint x method matrix with each real service's policy defaults."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openstack
import pytest
import requests

from flavorsmith.api.app import create_app
from flavorsmith.api.keystone import KeystoneAuth
from flavorsmith.catalog.repo import Repository
from flavorsmith.config import Settings
from flavorsmith.db import migrate
from flavorsmith.db.engine import Engine, make_engine
from flavorsmith.store import nodes
from flavorsmith.sync import engine as sync_engine
from flavorsmith.sync import store_target
from flavorsmith.sync.kinds import nova_flavors as flavor_kind
from tests.conftest import EXAMPLES
from tests.live import serving
from tests.support.catalogs import RULES
from tests.support.keystone_api import PASSWORD, Keystone
from tests.support.serve import serve_process

CACHE_SECONDS = 5
USERS = ("a-admin", "a-member", "a-reader", "b-member", "sys-admin", "sys-reader")
SYSTEM_USERS = ("sys-admin", "sys-reader")


@pytest.fixture(scope="module")
def keystone_conf(keystone: Keystone, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keystone-conf") / "flavorsmith.conf"
    path.write_text(keystone.authtoken_section(cache_seconds=CACHE_SECONDS))
    return path


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    folder = tmp_path_factory.mktemp("keystone-served")
    made = make_engine(f"sqlite:///{folder / 'flavorsmith.db'}")
    migrate.upgrade(made)
    yield made
    made.dispose()


def _owner(engine: Engine, node: str) -> str | None:
    with engine.begin() as connection:
        owner: str | None = nodes.find(connection, node, by_name=False)["owner"]
        return owner


@pytest.fixture(scope="module")
def server(keystone_conf: Path, engine: Engine) -> Iterator[str]:
    settings = Settings(
        database_url=str(engine.url), auth="keystone", keystone_config=keystone_conf, repo=EXAMPLES
    )
    app = create_app(settings, engine=engine, authenticator=KeystoneAuth.load(keystone_conf))
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def tokens(keystone: Keystone) -> dict[str, str]:
    return {user: keystone.token(user, system=user in SYSTEM_USERS) for user in (*USERS, "b-admin")}


def _call(
    server: str, method: str, path: str, token: str | None, body: Any = None, **headers: str
) -> requests.Response:
    sent = {"Accept": "application/json", **headers}
    if token is not None:
        sent["X-Auth-Token"] = token
    if body is not None:
        sent["Content-Type"] = "application/json"
    return requests.request(
        method,
        server + path,
        headers=sent,
        data=None if body is None else json.dumps(body),
        timeout=30,
    )


@pytest.fixture(scope="module")
def seeded(
    server: str, keystone: Keystone, tokens: dict[str, str], engine: Engine
) -> dict[str, str]:
    """A node owned by project A (created by the system admin; its owner set in the database,
    as the Ironic mirror sets it) and a public Nova flavor (made by project A's admin)."""
    ironic = {"X-OpenStack-Ironic-API-Version": "1.80"}
    made = _call(
        server,
        "POST",
        "/baremetal/v1/nodes",
        tokens["sys-admin"],
        {"driver": "fake-hardware"},
        **ironic,
    )
    assert made.status_code == 201, made.text
    node = made.json()["uuid"]
    with engine.begin() as connection:
        row = nodes.find(connection, node, by_name=False)
        nodes.save(connection, row, {"owner": keystone.projects["project-a"]})
    flavor = _call(
        server,
        "POST",
        "/compute/v2.1/flavors",
        tokens["a-admin"],
        {"flavor": {"name": f"ks-{uuid.uuid4().hex[:8]}", "ram": 1024, "vcpus": 1, "disk": 10}},
    )
    assert flavor.status_code == 200, flavor.text
    return {"node": node, "flavor": flavor.json()["flavor"]["id"]}


def test_version_documents_answer_without_a_token(server: str) -> None:
    for path in ("/", "/baremetal", "/baremetal/v1", "/compute/v2.1", "/load-balancer", "/v1"):
        response = _call(server, "GET", path, None)
        assert response.status_code == 200, (path, response.text)


# A path of each family, and where its error body says what went wrong.
FAMILY_PATHS = {
    "baremetal": "/baremetal/v1/nodes",
    "compute": "/compute/v2.1/flavors",
    "load-balancer": "/load-balancer/v2/lbaas/flavors",
    "native": "/v1/catalog",
}


def _message(family: str, response: requests.Response) -> str:
    body = response.json()
    if family == "baremetal":
        return str(json.loads(body["error_message"])["faultstring"])
    if family == "compute":
        return str(body["unauthorized"]["message"])
    if family == "load-balancer":
        return str(body["faultstring"])
    assert response.headers["content-type"].startswith("application/problem+json")
    assert body["status"] == 401
    return str(body["detail"])


@pytest.mark.parametrize("family", sorted(FAMILY_PATHS))
def test_a_missing_or_bad_token_is_a_401_in_the_familys_body(
    server: str, keystone: Keystone, family: str
) -> None:
    for token in (None, "not-a-token", "gAAAAABbogus"):
        response = _call(server, "GET", FAMILY_PATHS[family], token)
        assert response.status_code == 401, response.text
        assert response.headers["www-authenticate"] == f'Keystone uri="{keystone.url}"'
        assert "authentication" in _message(family, response).lower()


OK, DENIED, HIDDEN = "ok", 403, 404

# (family, method, path, body, expected per user: a-admin a-member a-reader b-member sys-admin
# sys-reader), from each real service's defaults. {node} and {flavor} are the seeded objects.
MATRIX: list[tuple[str, str, str, Any, tuple[Any, ...]]] = [
    # Ironic: the owner's project reads; B does not see the node; system readers read.
    ("baremetal", "GET", "/baremetal/v1/nodes/{node}", None, (OK, OK, OK, HIDDEN, OK, OK)),
    # Setting traits: a system member or an admin of the node's owner project. B's member
    # may set traits on no node at all, so it is refused before the node is looked up (the
    # service refuses before it parses; Ironic would look first and answer 404).
    (
        "baremetal",
        "PUT",
        "/baremetal/v1/nodes/{node}/traits/CUSTOM_KEYSTONE",
        None,
        (OK, DENIED, DENIED, DENIED, OK, DENIED),
    ),
    # B's admin may set traits on its own project's nodes, so it gets as far as the node,
    # which it may not see.
    ("baremetal", "GET", "/baremetal/v1/nodes/{node}/traits", None, (OK, OK, OK, HIDDEN, OK, OK)),
    # Deploy templates are system matters.
    ("baremetal", "GET", "/baremetal/v1/deploy_templates", None, (DENIED,) * 4 + (OK, OK)),
    # Nova: project-scoped; everyone reads flavors, extra specs are a project reader's read.
    ("compute", "GET", "/compute/v2.1/flavors/{flavor}", None, (OK,) * 6),
    (
        "compute",
        "GET",
        "/compute/v2.1/flavors/{flavor}/os-extra_specs",
        None,
        (OK, OK, OK, OK, DENIED, DENIED),
    ),
    (
        "compute",
        "POST",
        "/compute/v2.1/flavors/{flavor}/os-extra_specs",
        {"extra_specs": {"hw:cpu_policy": "dedicated"}},
        (OK, DENIED, DENIED, DENIED, DENIED, DENIED),
    ),
    # Octavia: project readers and members read flavors; profiles are for admins.
    ("load-balancer", "GET", "/load-balancer/v2/lbaas/flavors", None, (OK,) * 4 + (DENIED,) * 2),
    (
        "load-balancer",
        "GET",
        "/load-balancer/v2/lbaas/flavorprofiles",
        None,
        (OK,) + (DENIED,) * 5,
    ),
    # The native API: readers read the catalog, admins reload it.
    ("native", "GET", "/v1/catalog", None, (OK,) * 6),
    ("native", "POST", "/v1/catalog/reload", None, (OK, DENIED, DENIED, DENIED, OK, DENIED)),
]


def test_role_endpoint_method_matrix(
    server: str, tokens: dict[str, str], seeded: dict[str, str]
) -> None:
    headers = {"X-OpenStack-Ironic-API-Version": "1.80"}
    wrong: list[str] = []
    for family, method, template, body, expected in MATRIX:
        path = template.format(**seeded)
        for user, want in zip(USERS, expected, strict=True):
            response = _call(server, method, path, tokens[user], body, **headers)
            got = OK if 200 <= response.status_code < 300 else response.status_code
            if got != want:
                wrong.append(f"{user} {method} {path}: {response.status_code}, expected {want}")
            elif got == DENIED and family == "compute":
                assert "forbidden" in response.json()
    assert not wrong, "\n".join(wrong)


def test_a_project_scoped_node_list_shows_only_its_projects_nodes(
    server: str, tokens: dict[str, str], seeded: dict[str, str]
) -> None:
    def listed(user: str) -> set[str]:
        response = _call(server, "GET", "/baremetal/v1/nodes", tokens[user])
        assert response.status_code == 200, response.text
        return {n["uuid"] for n in response.json()["nodes"]}

    assert seeded["node"] in listed("a-reader")
    assert seeded["node"] not in listed("b-member")
    assert seeded["node"] in listed("sys-reader")


def test_a_project_admin_creates_nodes_its_project_owns(
    server: str, keystone: Keystone, tokens: dict[str, str], engine: Engine, seeded: dict[str, str]
) -> None:
    headers = {"X-OpenStack-Ironic-API-Version": "1.80"}
    made = _call(
        server,
        "POST",
        "/baremetal/v1/nodes",
        tokens["b-admin"],
        {"driver": "fake-hardware"},
        **headers,
    )
    assert made.status_code == 201, made.text
    assert _owner(engine, made.json()["uuid"]) == keystone.projects["project-b"]
    # It may set traits on its own nodes, and project A's node does not exist for it.
    own = f"/baremetal/v1/nodes/{made.json()['uuid']}/traits/CUSTOM_B"
    assert _call(server, "PUT", own, tokens["b-admin"], **headers).status_code == 204
    other = f"/baremetal/v1/nodes/{seeded['node']}/traits/CUSTOM_B"
    assert _call(server, "PUT", other, tokens["b-admin"], **headers).status_code == 404
    refused = _call(
        server,
        "POST",
        "/baremetal/v1/nodes",
        tokens["a-member"],
        {"driver": "fake-hardware"},
        **headers,
    )
    assert refused.status_code == 403


def test_a_revoked_token_is_refused_within_the_cache_time(server: str, keystone: Keystone) -> None:
    token = keystone.token("a-reader")
    assert _call(server, "GET", "/v1/catalog", token).status_code == 200  # now cached
    keystone.revoke(token)
    revoked = time.monotonic()
    while _call(server, "GET", "/v1/catalog", token).status_code == 200:
        assert time.monotonic() - revoked < CACHE_SECONDS + 1, "still accepted after the cache time"
        time.sleep(0.25)
    assert time.monotonic() - revoked <= CACHE_SECONDS + 1


def test_openstacksdk_with_a_password_cloud(
    server: str, keystone: Keystone, seeded: dict[str, str]
) -> None:
    conn = openstack.connect(
        auth_url=keystone.url,
        username="a-reader",
        password=PASSWORD,
        user_domain_id="default",
        project_name="project-a",
        project_domain_id="default",
        compute_endpoint_override=f"{server}/compute/v2.1",
        baremetal_endpoint_override=f"{server}/baremetal",
        load_balancer_endpoint_override=f"{server}/load-balancer",
        load_yaml_config=False,
        load_envvars=False,
    )
    assert seeded["flavor"] in {f.id for f in conn.compute.flavors()}
    assert seeded["node"] in {n.id for n in conn.baremetal.nodes()}
    list(conn.load_balancer.flavors())  # a reader of the project may list them


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "flavorsmith", "serve", "--port", "0", "--repo", str(EXAMPLES)]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_bad_keystone_configuration_is_one_line_at_start(
    tmp_path: Path, keystone: Keystone
) -> None:
    missing = _serve("--auth", "keystone", "--keystone-config", str(tmp_path / "none.conf"))
    assert missing.returncode == 2
    assert missing.stderr.strip().count("\n") == 0, missing.stderr
    assert "cannot read it" in missing.stderr

    no_section = tmp_path / "no-section.conf"
    no_section.write_text("[DEFAULT]\ndebug = true\n")
    result = _serve("--auth", "keystone", "--keystone-config", str(no_section))
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == f"error: keystone config {no_section}: no [keystone_authtoken] section"
    )

    unreachable = tmp_path / "unreachable.conf"
    unreachable.write_text(
        keystone.authtoken_section().replace(keystone.url, "http://127.0.0.1:9/v3")
    )
    result = _serve("--auth", "keystone", "--keystone-config", str(unreachable))
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert "cannot sign in as the service user" in result.stderr
    assert "Traceback" not in result.stderr

    wrong_password = tmp_path / "wrong-password.conf"
    wrong_password.write_text(keystone.authtoken_section().replace(PASSWORD, "nope"))
    result = _serve("--auth", "keystone", "--keystone-config", str(wrong_password))
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0, result.stderr


def test_flavor_access_for_a_project_keystone_does_not_know_is_refused_as_nova_does(
    server: str, keystone: Keystone, tokens: dict[str, str]
) -> None:
    made = _call(
        server,
        "POST",
        "/compute/v2.1/flavors",
        tokens["a-admin"],
        {
            "flavor": {
                "name": f"private-{uuid.uuid4().hex[:8]}",
                "ram": 1024,
                "vcpus": 1,
                "disk": 10,
                "os-flavor-access:is_public": False,
            }
        },
    )
    assert made.status_code == 200, made.text
    action = f"/compute/v2.1/flavors/{made.json()['flavor']['id']}/action"
    project_b = keystone.projects["project-b"]
    added = _call(
        server, "POST", action, tokens["a-admin"], {"addTenantAccess": {"tenant": project_b}}
    )
    assert added.status_code == 200, added.text
    typo = project_b[:-1] + ("0" if project_b[-1] != "0" else "1")
    refused = _call(
        server, "POST", action, tokens["a-admin"], {"addTenantAccess": {"tenant": typo}}
    )
    assert refused.status_code == 400, refused.text
    assert refused.json() == {
        "badRequest": {"code": 400, "message": f"Project ID {typo} is not a valid project."}
    }
    listed = _call(server, "GET", action.replace("/action", "/os-flavor-access"), tokens["a-admin"])
    assert [a["tenant_id"] for a in listed.json()["flavor_access"]] == [project_b]
    # Removing access is not checked (Nova lets a deleted project's access go).
    removed = _call(
        server, "POST", action, tokens["a-admin"], {"removeTenantAccess": {"tenant": typo}}
    )
    assert removed.status_code == 404, removed.text


def test_serve_sync_refuses_a_catalog_flavor_shared_with_an_unknown_project(
    keystone: Keystone, keystone_conf: Path, tmp_path: Path
) -> None:
    """The store target as `serve --sync` builds it under Keystone: a private flavor whose
    projects hold an id Keystone does not know is refused, naming the flavor and the id, and
    nothing of it is written; with real ids it is created and shared."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    dedicated = repo / "hardware" / "flavors" / "m1.medium.dedicated.yaml"
    project_a = keystone.projects["project-a"]
    text = dedicated.read_text()
    for old in ("4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d", "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a"):
        assert old in text
    dedicated.write_text(
        text.replace("4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d", project_a).replace(
            "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a", "no-such-project"
        )
    )
    # The service user may look projects up once it reads the system (Keystone's defaults).
    admin = keystone.admin()
    reader = admin.identity.find_role("reader")
    admin.identity.assign_system_role_to_user(
        user=keystone.users["flavorsmith"], role=reader, system="all"
    )
    admin.close()
    made = make_engine(f"sqlite:///{tmp_path / 'sync.db'}")
    migrate.upgrade(made)
    auth = KeystoneAuth.load(keystone_conf)
    target = store_target.target(flavor_kind.KIND, made, project_check=auth.catalog_project)
    try:
        first = sync_engine.run(
            flavor_kind.KIND, Repository(repo, RULES), target, prune=False, execute=True
        )
        assert first.report is not None
        failed = [o for o in first.report.outcomes if not o.ok and o.error]
        assert [o.action.subject for o in failed] == ["m1.medium.dedicated"]
        assert failed[0].error == (
            "flavor 'm1.medium.dedicated': projects: 'no-such-project' is not a Keystone "
            "project (give project ids, as `openstack project show NAME -f value -c id` "
            "prints them)"
        )
        names = {f.name for f in target.observe().values()}
        assert "m1.medium.dedicated" not in names and len(names) > 1  # the others were made

        project_b = keystone.projects["project-b"]
        dedicated.write_text(dedicated.read_text().replace("no-such-project", project_b))
        second = sync_engine.run(
            flavor_kind.KIND, Repository(repo, RULES), target, prune=False, execute=True
        )
        assert second.report is not None
        assert [o.error for o in second.report.outcomes if o.error] == []
        shared = {f.name: set(f.projects) for f in target.observe().values()}
        assert shared["m1.medium.dedicated"] == {project_a, project_b}
    finally:
        made.dispose()


def test_serve_sync_under_keystone_logs_the_refused_flavor_and_id(
    keystone: Keystone, keystone_conf: Path, tmp_path: Path
) -> None:
    """`serve --auth keystone --sync` itself: its first round refuses the flavor with the
    mistyped project and says which, in its log line (the service user reads the system,
    granted by the test above or here)."""
    admin = keystone.admin()
    reader = admin.identity.find_role("reader")
    admin.identity.assign_system_role_to_user(
        user=keystone.users["flavorsmith"], role=reader, system="all"
    )
    admin.close()
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    dedicated = repo / "hardware" / "flavors" / "m1.medium.dedicated.yaml"
    text = dedicated.read_text().replace("4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d", "typo-project")
    dedicated.write_text(
        text.replace("9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a", keystone.projects["project-a"])
    )
    options = [
        *("--database", f"sqlite:///{tmp_path / 'serve.db'}", "--auth", "keystone"),
        *("--keystone-config", str(keystone_conf), "--sync"),
    ]
    with serve_process(tmp_path, *options, repo=repo, ready="/healthz") as served:
        deadline = time.monotonic() + 40
        while '"kind": "flavors"' not in served.log():
            assert served.process.poll() is None, served.log()
            assert time.monotonic() < deadline, served.log()
            time.sleep(0.2)
    log = served.log()
    line = next(json.loads(t) for t in log.splitlines() if '"kind": "flavors"' in t)
    assert line["failed"] == 1, line
    assert line["errors"] == [
        "flavor 'm1.medium.dedicated': projects: 'typo-project' is not a Keystone project "
        "(give project ids, as `openstack project show NAME -f value -c id` prints them)"
    ]


def test_a_sync_over_the_api_checks_the_projects_with_the_callers_token(
    server: str, tokens: dict[str, str]
) -> None:
    """The example catalog's private flavor names two made-up project ids: POST /v1/sync/apply
    refuses that flavor (409, the body says why) and applies the others."""
    response = _call(server, "POST", "/v1/sync/apply?only=flavors", tokens["a-admin"])
    assert response.status_code == 409, response.text
    failed = [r for r in response.json()["results"] if r["outcome"] == "failed"]
    assert [(r["flavor"], r["error"]) for r in failed] == [
        (
            "m1.medium.dedicated",
            "flavor 'm1.medium.dedicated': projects: '4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d', "
            "'9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a' are not Keystone projects (give project ids, "
            "as `openstack project show NAME -f value -c id` prints them)",
        )
    ]
