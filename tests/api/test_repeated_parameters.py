"""A query parameter sent twice: refused where the real service refuses it (Ironic 39, Octavia,
and our own /v1), in its words; read as the last one where the real service does that (Nova 34).
Each case was checked against the real service."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from tests.api.test_errors import message

IRONIC = {"X-OpenStack-Ironic-API-Version": "latest"}
NOVA = {"OpenStack-API-Version": "compute 2.104"}
BOOL_WORDS = "'0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/baremetal/v1/nodes?limit=1&limit=2", "Expected an integer for limit: ['1', '2']"),
        ("/baremetal/v1/nodes?limit=1&limit=1", "Expected an integer for limit: ['1', '1']"),
        (
            "/baremetal/v1/nodes?resource_class=a&resource_class=b",
            "Expected string for resource_class: ['a', 'b']",
        ),
        (
            "/baremetal/v1/nodes/detail?driver=a&driver=b",
            "Expected string for driver: ['a', 'b']",
        ),
        ("/baremetal/v1/nodes?marker=a&marker=b", "Expected UUID for marker: ['a', 'b']"),
        (
            "/baremetal/v1/deploy_templates?marker=a&marker=b",
            "Expected name for marker: ['a', 'b']",
        ),
        (
            "/baremetal/v1/nodes?maintenance=true&maintenance=false",
            f"Invalid maintenance: Unrecognized value '['true', 'false']', acceptable values "
            f"are: {BOOL_WORDS}",
        ),
        (
            "/baremetal/v1/deploy_templates?detail=true&detail=false",
            f"Invalid detail: Unrecognized value '['true', 'false']', acceptable values "
            f"are: {BOOL_WORDS}",
        ),
        (
            "/baremetal/v1/nodes?sort_dir=asc&sort_dir=desc",
            "Expected string for sort_dir: ['asc', 'desc']",
        ),
        (
            "/v1/matrix?trait=CUSTOM_A&trait=CUSTOM_B",
            "Query parameter 'trait' was given 2 times (['CUSTOM_A', 'CUSTOM_B']); it takes one "
            "value (a list is one value, comma-separated)",
        ),
        (
            "/load-balancer/v2.0/lbaas/flavors?name=a&name=b",
            "One or more arguments are either duplicate or invalid",
        ),
    ],
)
def test_a_repeated_scalar_is_refused_in_the_family_words(
    client: TestClient, path: str, expected: str
) -> None:
    response = client.get(path, headers=IRONIC if path.startswith("/baremetal") else {})
    assert response.status_code == 400, response.text
    family = path.split("/")[1] if not path.startswith("/v1") else "native"
    assert message(family, response) == expected


def test_ironic_lists_count_every_value_sent(client: TestClient) -> None:
    """``fields`` and ``shard`` are lists in Ironic 39: every one sent counts."""
    tag = uuid.uuid4().hex[:8]
    names = [f"rp-{tag}-1", f"rp-{tag}-2"]
    for name in names:
        created = client.post(
            "/baremetal/v1/nodes",
            json={"name": name, "driver": "fake-hardware", "shard": name},
            headers=IRONIC,
        )
        assert created.status_code == 201, created.text
    listed = client.get(
        f"/baremetal/v1/nodes?fields=name&fields=uuid&shard={names[0]}", headers=IRONIC
    )
    assert listed.status_code == 200, listed.text
    assert [sorted(set(node) - {"links"}) for node in listed.json()["nodes"]] == [["name", "uuid"]]
    sharded = client.get(
        f"/baremetal/v1/nodes?shard={names[0]}&shard={names[1]}&fields=name", headers=IRONIC
    )
    assert sorted(n["name"] for n in sharded.json()["nodes"]) == names


def test_nova_reads_the_last_of_a_repeated_parameter(client: TestClient) -> None:
    """As Nova 34 does: ``limit=1&limit=2`` pages by 2, ``minRam`` and ``name`` filter by the
    last value sent."""
    tag = uuid.uuid4().hex[:8]
    base = 900_000_000 + int(tag, 16) % 1_000_000 * 10  # MB no other test's flavor has
    for number in (1, 2, 3):
        created = client.post(
            "/compute/v2.1/flavors",
            json={
                "flavor": {
                    "name": f"rp-{tag}-{number}",
                    "id": f"rp-{tag}-{number}",
                    "ram": base + number,
                    "vcpus": 1,
                    "disk": 1,
                }
            },
            headers=NOVA,
        )
        assert created.status_code == 200, created.text

    def names(query: str) -> list[str]:
        response = client.get(f"/compute/v2.1/flavors?minRam={base}&{query}", headers=NOVA)
        assert response.status_code == 200, response.text
        return [flavor["name"] for flavor in response.json()["flavors"]]

    ours = [f"rp-{tag}-{n}" for n in (1, 2, 3)]
    assert names("limit=1&limit=2") == ours[:2]
    assert names("limit=2&limit=1") == ours[:1]
    assert names(f"minRam={base + 3}&minRam={base}") == ours
    assert names(f"name=rp-{tag}-1&name=rp-{tag}-2") == ours[1:2]
