"""GET /v1/nodes/{ident}/matches: a node, and for every flavor the matcher's verdict and
reasons, the same as the pair endpoint's and the node's flavors'."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.matching.conftest import load_examples


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    engine: Engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('n') / 'examples.db'}")
    load_examples(engine)
    with TestClient(build_app(engine)) as test_client:
        yield test_client
    engine.dispose()


@pytest.mark.parametrize(
    "node", ["dl360-c01-u01", "unknown-z01-u01", "xe9680-g01-u06", "r7615-a02-u06"]
)
def test_every_flavor_s_verdict_is_the_pair_s(client: TestClient, node: str) -> None:
    body = client.get(f"/v1/nodes/{node}/matches").json()
    names = [f["flavor"] for f in client.get("/v1/capacity").json()["flavors"]]
    assert [f["flavor"] for f in body["flavors"]] == names
    for verdict in body["flavors"]:
        assert verdict == client.get(f"/v1/flavors/{verdict['flavor']}/nodes/{node}").json()
    served = client.get(f"/v1/nodes/{node}/flavors").json()
    assert [f["flavor"] for f in body["flavors"] if f["match"]] == served["flavors"]
    shown = body["node"]
    assert {k: shown[k] for k in served["node"]} == served["node"]
    assert shown["name"] == node and shown["traits"] == sorted(shown["traits"])


def test_a_node_no_flavor_uses_says_why_and_what_holds_it(client: TestClient) -> None:
    body = client.get("/v1/nodes/unknown-z01-u01/matches").json()
    assert not any(f["match"] for f in body["flavors"])
    assert all(any(r["kind"] == "resource-class" for r in f["reasons"]) for f in body["flavors"])
    node = body["node"]
    assert (node["resource_class"], node["provision_state"], node["inventory"]) == (
        "baremetal",
        "enroll",
        "reserved",
    )
    assert [h["kind"] for h in node["holds"]] == ["power-state", "provision-state"]


def test_an_unknown_node_is_not_found(client: TestClient) -> None:
    assert client.get("/v1/nodes/no-such-node/matches").status_code == 404


def test_each_trait_s_owner(client: TestClient) -> None:
    """The trait-rule file whose prefix covers a trait owns it (with the rules that add it);
    a trait only a deploy template names is set by hand."""
    owners = client.get("/v1/nodes/dl360-c01-u01/matches").json()["trait_owners"]
    hand = {"owner": "by hand", "rules": []}
    assert owners == [
        {"trait": "CUSTOM_BM_CONFIG_BIOS_VMX_OFF", **hand},
        {"trait": "CUSTOM_BM_CONFIG_BIOS_VMX_ON", **hand},
        {"trait": "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR", **hand},
        {"trait": "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE", **hand},
        {
            "trait": "CUSTOM_NIC_MELLANOX_CX5",
            "owner": "trait-rules/nics.yaml",
            "rules": ["Mellanox ConnectX-5", "Mellanox ConnectX-5 Ex"],
        },
        {"trait": "CUSTOM_NVME", "owner": "trait-rules/storage.yaml", "rules": ["NVMe disk"]},
        {
            "trait": "HW_CPU_X86_AVX512F",
            "owner": "trait-rules/cpu-standard.yaml",
            "rules": ["AVX-512 foundation"],
        },
    ]
