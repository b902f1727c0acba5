"""Who sees what a service flavor resolves to, on SQLite and PostgreSQL: as in Octavia, a
flavor's profile (its flavor data, and the metadata it expands to, such as node names) is for
admins and for the consuming service (Keystone's `service` role); readers and members get the
same resolution without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import ClientFactory
from tests.api.test_service_flavors import bm, flavor, profile, resolve, unique

TOKENS = {
    "admin": "admin-token",
    "service": "service-token",
    "member": "member-token",
    "reader": "reader-token",
}
PROFILE_KEYS = {"flavor_data", "metadata"}


@pytest.fixture
def clients(make_client: ClientFactory, tmp_path: Path) -> tuple[TestClient, TestClient]:
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(
        "admin-token: {user: alice, project: ops, roles: [admin]}\n"
        "service-token: {user: octavia, project: service, roles: [service]}\n"
        "member-token: {user: bob, project: p1, roles: [member]}\n"
        "reader-token: {user: carol, project: p1, roles: [reader]}\n"
    )
    return make_client(), make_client(auth="token-file", token_file=tokens)


def _node(setup: TestClient) -> str:
    name = unique("n-resolve")
    response = setup.post(
        "/baremetal/v1/nodes",
        json={"driver": "fake-hardware", "name": name, "resource_class": "c2.large"},
        headers={"X-OpenStack-Ironic-API-Version": "latest"},
    )
    assert response.status_code == 201, response.text
    return name


@pytest.mark.parametrize("role", ["admin", "service"])
def test_admin_and_service_get_the_profile(
    clients: tuple[TestClient, TestClient], role: str
) -> None:
    setup, client = clients
    node = _node(setup)
    made = flavor(setup, profile(setup, provider_name="baremetal", flavor_data=bm())["id"])
    response = resolve(client, made["id"], headers={"X-Auth-Token": TOKENS[role]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["flavor_data"] == {"resource_class": "c2.large"}
    assert node in body["metadata"]["nodes"]


@pytest.mark.parametrize("role", ["member", "reader"])
def test_readers_get_the_resolution_without_the_profile(
    clients: tuple[TestClient, TestClient], role: str
) -> None:
    setup, client = clients
    node = _node(setup)
    prof = profile(setup, provider_name="baremetal", flavor_data=bm())
    made = flavor(setup, prof["id"])
    headers = {"X-Auth-Token": TOKENS[role]}
    response = resolve(client, made["id"], {"provider": "baremetal"}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "flavor_id": made["id"],
        "flavor_name": made["name"],
        "flavor_profile_id": prof["id"],
        "provider": "baremetal",
    }
    assert node not in response.text and "c2.large" not in response.text
    # The profile itself stays out of reach, as in Octavia.
    shown = client.get(f"/load-balancer/v2/lbaas/flavorprofiles/{prof['id']}", headers=headers)
    assert shown.status_code == 403
    # Refusals are the same for everyone: a provider mismatch is still a 400.
    mismatch = resolve(client, made["id"], {"provider": "noop"}, headers=headers)
    assert mismatch.status_code == 400


def test_the_profile_rule_can_be_overridden(make_client: ClientFactory, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("reader-token: {user: carol, project: p1, roles: [reader]}\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text('"flavorsmith:service-flavor:resolve:profile": "role:reader"\n')
    setup = make_client()
    client = make_client(auth="token-file", token_file=tokens, policy_file=policy)
    made = flavor(setup, profile(setup)["id"])
    body = resolve(client, made["id"], headers={"X-Auth-Token": "reader-token"}).json()
    assert set(body) >= PROFILE_KEYS
