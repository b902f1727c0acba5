"""GET /v1/review: the document ``flavorsmith review -f json`` prints, for two Git revisions
of the catalog the service reads, on its own nodes and as the caller may see the catalog;
GET /v1/review/refs: the revisions to choose from."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke
from tests.matching.conftest import load_examples
from tests.review.conftest import commit, edit, git

TOKENS = (
    "admin-token: {user: alice, project: ops, roles: [admin]}\n"
    "reader-token: {user: carol, project: p1, roles: [reader]}\n"
)
DEDICATED = "m1.medium.dedicated"  # private to two projects, neither of them p1


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog tagged ``base``, then one commit (tagged ``head``) making m1.small
    and the private m1.medium.dedicated require NVMe, the GPU nodes run firmware-update, the
    active-standby load-balancer profile's amphorae on a larger compute flavor,
    lb.standalone disabled, router.ha disabled and router.standard on the distributed
    driver."""
    repo = tmp_path_factory.mktemp("review") / "catalog"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "base")
    flavors = repo / "hardware" / "flavors"
    with (flavors / "m1.small.yaml").open("a") as file:
        file.write("traits:\n  - trait: NVME\n    state: required\n")
    required = "  - trait: CPU_AVX512\n    state: required\n"
    edit(
        flavors / f"{DEDICATED}.yaml", required, required + "  - trait: NVME\n    state: required\n"
    )
    edit(
        repo / "hardware" / "runbooks" / "firmware-update.yaml",
        "traits: [CUSTOM_NVME]",
        "traits: [CUSTOM_GPU, CUSTOM_NVME]",
    )
    profiles = repo / "hardware" / "load-balancer-flavors"
    edit(
        profiles / "amphora-active-standby.yaml",
        "compute_flavor: amphora.medium",
        "compute_flavor: amphora.large",
    )
    with (profiles / "amphora-single.yaml").open("a") as file:
        file.write("    enabled: false\n")
    networks = repo / "hardware" / "network-flavors"
    edit(networks / "router.ha.yaml", "service_type:", "enabled: false\nservice_type:")
    edit(networks / "router.standard.yaml", "single_node.SingleNodeDriver", "dvr.DvrDriver")
    commit(repo, "head")
    return repo


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    made = make_engine(f"sqlite:///{tmp_path_factory.mktemp('db') / 'examples.db'}")
    load_examples(made)
    yield made
    made.dispose()


def serve(engine: Engine, repo: Path, tokens: Path) -> TestClient:
    return TestClient(build_app(engine, repo=repo, auth="token-file", token_file=tokens))


@pytest.fixture(scope="module")
def tokens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    path.write_text(TOKENS)
    return path


@pytest.fixture(scope="module")
def client(engine: Engine, catalog: Path, tokens: Path) -> Iterator[TestClient]:
    with serve(engine, catalog, tokens) as test_client:
        yield test_client


def get(client: TestClient, url: str, token: str = "admin-token") -> tuple[int, dict[str, Any]]:
    response = client.get(url, headers={"X-Auth-Token": token})
    return response.status_code, response.json()


def test_the_same_document_as_the_command(
    client: TestClient, engine: Engine, catalog: Path, cli: Invoke
) -> None:
    status, body = get(client, "/v1/review?base=base&head=head")
    assert status == 200
    url = engine.url.render_as_string(hide_password=False)
    command = cli(
        "review", "--repo", str(catalog), "--base", "base", "--head", "head",
        "--database", url, "-f", "json",
    )  # fmt: skip
    assert command.exit_code == 0, command.output
    assert json.loads(command.stdout) == body
    changed = {f["flavor"]: f["available"] for f in body["flavors"]}
    assert set(changed) == {"m1.small", DEDICATED}
    assert changed["m1.small"]["change"] < 0
    (runbook,) = body["runbooks"]
    assert (runbook["runbook"], runbook["fields"]) == ("firmware-update", ["traits"])
    assert runbook["nodes"]["losing"] == []
    assert runbook["nodes"]["after"] > runbook["nodes"]["before"]
    assert (
        len(runbook["nodes"]["gaining"]) == runbook["nodes"]["after"] - runbook["nodes"]["before"]
    )
    lbs = body["load_balancer_flavors"]
    assert [(p["profile"], p["replaced"]) for p in lbs["profiles"]] == [
        ("amphora-active-standby", True)
    ]
    assert {f["flavor"]: f["replaced"] for f in lbs["flavors"]} == {
        "lb.ha": True,
        "lb.ha.trial": True,
        "lb.standalone": False,
    }
    assert [(f["flavor"], f["replaced"]) for f in body["network_flavors"]] == [
        ("router.ha", False),
        ("router.standard", False),
    ]
    ha, standard = body["network_flavors"]
    assert ha["changes"] == [{"field": "enabled", "before": True, "after": False}]
    assert [c["field"] for c in standard["changes"]] == ["service_profiles[0].driver"]
    assert [p["driver"].rsplit(".", 1)[1] for p in standard["profiles"]["made"]] == ["DvrDriver"]
    assert [p["driver"].rsplit(".", 1)[1] for p in standard["profiles"]["removed"]] == [
        "SingleNodeDriver"
    ]
    assert body["head"] == "head" and body["base"] == "base"


def test_the_head_defaults_to_the_working_tree(client: TestClient) -> None:
    status, body = get(client, "/v1/review?base=base")
    assert status == 200
    assert body["head"] == "working tree"
    _, committed = get(client, "/v1/review?base=base&head=head")
    assert body["flavors"] == committed["flavors"]
    status, same = get(client, "/v1/review?base=head")
    assert (status, same["flavors"], same["headline"]) == (
        200,
        [],
        "no change to what can be sold",
    )


def test_a_project_does_not_see_the_private_flavors_hidden_from_it(client: TestClient) -> None:
    status, body = get(client, "/v1/review?base=base&head=head", "reader-token")
    assert status == 200
    assert [f["flavor"] for f in body["flavors"]] == ["m1.small"]
    assert DEDICATED not in json.dumps(body)
    assert "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d" not in json.dumps(body)


def test_a_project_does_not_see_the_runbooks_ironic_would_hide_from_it(
    client: TestClient,
) -> None:
    """The example runbooks are private and owned by no project: an admin sees the change to
    firmware-update, a project's reader sees no runbook at all (Ironic's rule)."""
    status, body = get(client, "/v1/review?base=base&head=head")
    assert status == 200
    assert [r["runbook"] for r in body["runbooks"]] == ["firmware-update"]
    status, body = get(client, "/v1/review?base=base&head=head", "reader-token")
    assert status == 200
    assert body["runbooks"] == []
    assert "firmware-update" not in json.dumps(body)


def test_a_reader_sees_the_network_flavors_but_not_their_service_profiles(
    client: TestClient,
) -> None:
    """Neutron shows service profiles to its admins only: a project's reader sees router.ha
    disabled, and not router.standard, whose only change is its profile's driver."""
    _, admin = get(client, "/v1/review?base=base&head=head")
    status, body = get(client, "/v1/review?base=base&head=head", "reader-token")
    assert status == 200
    assert body["network_flavors"] == [admin["network_flavors"][0]]
    assert body["network_flavors"][0]["flavor"] == "router.ha"
    assert "Driver" not in json.dumps(body)
    assert "router.standard" not in json.dumps(body)
    assert "; network flavor router.ha changed (enabled); " in body["headline"]


def test_refs_are_checked_before_git_reads_them(client: TestClient) -> None:
    status, body = get(client, "/v1/review?base=no-such-branch")
    assert status == 404
    assert "'no-such-branch'" in str(body["detail"])
    for ref in ("--output=/tmp/x", "-p"):
        status, body = get(client, f"/v1/review?base={ref}")
        assert status == 400, ref
    assert get(client, "/v1/review")[0] == 400
    assert get(client, "/v1/review?base=base&cloud=lab")[0] == 400
    # A folder is no revision here: the server reads only its own repository's history.
    status, _ = get(client, f"/v1/review?base={EXAMPLES}")
    assert status == 404


def test_readers_only(client: TestClient) -> None:
    assert client.get("/v1/review?base=base").status_code == 401
    assert client.get("/v1/review/refs").status_code == 401


def test_the_refs_to_choose_from(client: TestClient) -> None:
    status, body = get(client, "/v1/review/refs", "reader-token")
    assert status == 200
    assert {r["name"] for r in body["refs"]} == {"main", "base", "head"}
    assert [c["subject"] for c in body["commits"]] == ["head", "base"]


def test_a_catalog_outside_git_has_no_revisions(
    engine: Engine, tokens: Path, tmp_path: Path
) -> None:
    mounted = tmp_path / "configmap"
    shutil.copytree(EXAMPLES / "hardware", mounted / "hardware")
    with serve(engine, mounted, tokens) as client:
        for url in ("/v1/review?base=base", "/v1/review/refs"):
            status, body = get(client, url)
            assert status == 409, url
            assert "not in a Git repository" in str(body["detail"])


def test_a_repository_without_commits_has_no_refs_yet(
    engine: Engine, tokens: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh"
    shutil.copytree(EXAMPLES / "hardware", fresh / "hardware")
    git(fresh, "init", "-q", "-b", "main")
    with serve(engine, fresh, tokens) as client:
        assert get(client, "/v1/review/refs") == (200, {"refs": [], "commits": []})
        status, body = get(client, "/v1/review?base=main")
        assert status == 404
        assert "'main'" in body["detail"]


def test_a_reader_sees_the_load_balancer_flavors_but_not_their_profiles(
    client: TestClient,
) -> None:
    """Octavia shows flavor profiles to its admins only: a project's reader sees the flavors
    that change, and neither the profile's provider nor its flavor data."""
    _, admin = get(client, "/v1/review?base=base&head=head")
    status, body = get(client, "/v1/review?base=base&head=head", "reader-token")
    assert status == 200
    assert body["load_balancer_flavors"] == {
        "profiles": [],
        "flavors": admin["load_balancer_flavors"]["flavors"],
    }
    assert "amphora.large" not in json.dumps(body)
    assert "load-balancer profile" not in body["headline"]
    assert "load-balancer profile amphora-active-standby" in admin["headline"]
