"""Nova's flavor visibility on every /v1 view of a catalog flavor, on both databases: a private
flavor is shown to admins and to the projects in its access list, and to nobody else, not
even through counts, competition numbers or diagnostics."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke

PRIVATE = "m1.medium.dedicated"
PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"  # in its access list
OTHER_PROJECT = "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a"  # also in its access list
NODE = "r7615-b01-u01"  # matches m1.medium and the private flavor

ADMIN = {"X-Auth-Token": "admin-token"}
INSIDER = {"X-Auth-Token": "insider-token"}  # a reader of a project with access
OUTSIDER = {"X-Auth-Token": "outsider-token"}  # a reader of another project
MEMBER = {"X-Auth-Token": "member-token"}  # a member of another project

# Every /v1 GET that shows a catalog flavor.
LISTS = (
    "/v1/catalog",
    "/v1/catalog/nova-flavors",
    "/v1/capacity",
    f"/v1/nodes/{NODE}/flavors",
)
DIRECT = (
    f"/v1/catalog/flavors/{PRIVATE}",
    f"/v1/flavors/{PRIVATE}/nodes",
    f"/v1/flavors/{PRIVATE}/nodes/{NODE}",
    f"/v1/flavors/{PRIVATE}/explain",
    f"/v1/flavors/{PRIVATE}/nodes/{NODE}/explain",
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog with the private flavor's file misnamed, so it has a diagnostic, and
    the public m1.medium reaching the private flavor's nodes again (the leak the example closes),
    so that the two compete for nodes."""
    root = tmp_path_factory.mktemp("visibility") / "deploy"
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    flavors = root / "hardware" / "flavors"
    medium = flavors / "m1.medium.yaml"
    medium.write_text(medium.read_text().split("traits:")[0])
    (flavors / f"{PRIVATE}.yaml").rename(flavors / "dedicated-pool.yaml")
    kustomization = root / "hardware" / "base" / "kustomization.yaml"
    text = kustomization.read_text().replace(
        f"../flavors/{PRIVATE}.yaml", "../flavors/dedicated-pool.yaml"
    )
    kustomization.write_text(text)
    return root


@pytest.fixture(scope="module")
def client(
    example_engine: Engine, repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    tokens = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    tokens.write_text(
        "admin-token: {user: alice, project: ops, roles: [admin]}\n"
        f"insider-token: {{user: ivan, project: {PROJECT}, roles: [reader]}}\n"
        "outsider-token: {user: olga, project: p1, roles: [reader]}\n"
        "member-token: {user: bob, project: p1, roles: [member]}\n"
    )
    app = build_app(example_engine, repo=repo, auth="token-file", token_file=tokens)
    with TestClient(app) as test_client:
        yield test_client


@pytest.mark.parametrize("headers", [OUTSIDER, MEMBER], ids=["reader", "member"])
def test_another_project_sees_no_private_flavor_anywhere(
    client: TestClient, headers: dict[str, str]
) -> None:
    for path in LISTS:
        response = client.get(path, headers=headers)
        assert response.status_code == 200, path
        for secret in (PRIVATE, PROJECT, OTHER_PROJECT, "dedicated-pool"):
            assert secret not in response.text, (path, secret)
    for path in DIRECT:
        response = client.get(path, headers=headers)
        assert response.status_code == 404, path
        assert response.json()["detail"] == f"No flavor named {PRIVATE!r} in the catalog"

    catalog = client.get("/v1/catalog", headers=headers).json()
    assert catalog["flavors"] == 11 and catalog["diagnostics"] == []
    assert catalog["diagnostics_withheld"] == 1
    nova = client.get("/v1/catalog/nova-flavors", headers=headers).json()["nova_flavors"]
    assert len(nova) == 11 and all("projects" not in f for f in nova)
    assert client.get(f"/v1/nodes/{NODE}/flavors", headers=headers).json()["flavors"] == [
        "m1.medium"
    ]


def test_capacity_of_another_project_counts_only_what_it_sees(client: TestClient) -> None:
    """The public flavor the private one competes with looks uncontended to an outsider (no
    count betrays the hidden flavor); the operator sees the real competition."""
    seen = {f["flavor"]: f for f in client.get("/v1/capacity", headers=OUTSIDER).json()["flavors"]}
    assert seen["m1.medium"] | {"available": 0} == {
        "flavor": "m1.medium",
        "resource_class": "m1.medium",
        "matching": 80,
        "available": 0,
        "exclusive": 80,
        "shared": 0,
        "competition": {"1": 80},
    }
    real = {f["flavor"]: f for f in client.get("/v1/capacity", headers=ADMIN).json()["flavors"]}
    assert real["m1.medium"]["exclusive"] == 32 and real["m1.medium"]["competition"] == {
        "1": 32,
        "2": 48,
    }
    assert real[PRIVATE]["matching"] == 48


@pytest.mark.parametrize("who", ["insider", "admin"])
def test_access_list_project_and_admin_see_it(client: TestClient, who: str) -> None:
    headers = INSIDER if who == "insider" else ADMIN
    for path in DIRECT:
        assert client.get(path, headers=headers).status_code == 200, path
    shown = client.get(f"/v1/catalog/flavors/{PRIVATE}", headers=headers).json()
    assert shown["is_public"] is False
    nova = client.get("/v1/catalog/nova-flavors", headers=headers).json()["nova_flavors"]
    assert PRIVATE in [f["name"] for f in nova]
    assert client.get(f"/v1/nodes/{NODE}/flavors", headers=headers).json()["flavors"] == [
        "m1.medium",
        PRIVATE,
    ]
    assert PRIVATE in [
        f["flavor"] for f in client.get("/v1/capacity", headers=headers).json()["flavors"]
    ]
    assert client.get(f"/v1/flavors/{PRIVATE}/nodes", headers=headers).json()["count"] == 48
    catalog = client.get("/v1/catalog", headers=headers).json()
    assert catalog["flavors"] == 12
    assert [d["code"] for d in catalog["diagnostics"]] == ["file-name"]
    assert "diagnostics_withheld" not in catalog
    if who == "admin":  # the access list: only with Nova's os-flavor-access rule
        assert shown["projects"] == [PROJECT, OTHER_PROJECT]
        assert {f["name"]: f for f in nova}[PRIVATE]["projects"] == sorted([PROJECT, OTHER_PROJECT])
    else:
        assert "projects" not in shown
        assert OTHER_PROJECT not in client.get("/v1/catalog/nova-flavors", headers=headers).text


def test_access_list_follows_the_flavor_access_policy(
    example_engine: Engine, repo: Path, tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(f"insider-token: {{user: ivan, project: {PROJECT}, roles: [reader]}}\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text('"os_compute_api:os-flavor-access": "role:reader"\n')
    app = build_app(
        example_engine, repo=repo, auth="token-file", token_file=tokens, policy_file=policy
    )
    with TestClient(app) as client:
        shown = client.get(f"/v1/catalog/flavors/{PRIVATE}", headers=INSIDER).json()
    assert shown["projects"] == [PROJECT, OTHER_PROJECT]


def test_pool_leaks_as_each_caller_may_see_them(
    client: TestClient, cli: Invoke, repo: Path, example_db_url: str
) -> None:
    """The leak of the private pool, as ``capacity -f json`` reports it (with ``--project``
    for a project): admins and the pool's projects see it, another project does not."""
    args = ["capacity", "--repo", str(repo), "--database", example_db_url, "-f", "json"]

    def leaks(headers: dict[str, str]) -> list[dict[str, object]]:
        response = client.get("/v1/capacity", headers=headers)
        assert response.status_code == 200
        found: list[dict[str, object]] = response.json()["findings"]["pool_leaks"]
        return found

    def command(*extra: str) -> list[dict[str, object]]:
        result = cli(*args, *extra)
        assert result.exit_code == 0, result.output
        found: list[dict[str, object]] = json.loads(result.stdout)["findings"]["pool_leaks"]
        return found

    everything = leaks(ADMIN)
    assert [(x["pool"], x["reached_by"], x["nodes"]) for x in everything] == [
        (PRIVATE, "m1.medium", 48)
    ]
    assert everything == command()
    assert leaks(INSIDER) == everything == command("--project", PROJECT)
    assert leaks(OUTSIDER) == [] == command("--project", "p1")
    assert leaks(MEMBER) == []
