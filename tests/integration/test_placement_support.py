"""The real Placement 16 of the test support (tests/support/placement_api.py), seeded as Nova's
ironic driver reports 50 nodes of varied states, read back through Flavorsmith's Placement
client (clients/placement.py); and the same Placement behind a real Keystone, found through
a clouds.yaml cloud and Keystone's catalog."""

from __future__ import annotations

import random
import uuid as uuidlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from flavorsmith.clients import placement
from flavorsmith.errors import TargetError
from flavorsmith.matching.resource_providers import Inventory
from tests.support.keystone_api import ADMIN_PASSWORD, REGION, Keystone
from tests.support.placement_api import (
    DRIVER_TRAITS,
    NOVA_TRAITS,
    Placement,
    can_host,
    running_placement,
    seed,
)

pytestmark = pytest.mark.slow

STATES = [
    # (provision_state, power_state, maintenance, with an instance)
    ("available", "power off", False, False),
    ("available", "power on", False, False),
    ("active", "power on", False, True),
    ("available", "power on", True, False),  # maintenance
    ("available", "error", False, False),  # bad power state
    ("available", None, False, False),  # no power state
    ("manageable", "power off", False, False),
    ("cleaning", "power on", False, False),
    ("deploying", "power on", False, True),
    ("active", "power on", True, True),  # an instance and maintenance
]
CLASSES = ["baremetal.gold", "bm-silver", "BAREMETAL_X86"]
TRAITS = ["CUSTOM_NVME", "CUSTOM_GPU_A100", "HW_CPU_X86_SGX", "HW_CPU_X86_AVX512F"]


def fifty_nodes() -> list[dict[str, Any]]:
    """Every state of STATES with every class, traits drawn with a fixed seed, one node with
    no resource class and one whose compute service is disabled."""
    rnd = random.Random(17)
    nodes = []
    for i in range(50):
        provision, power, maintenance, instance = STATES[i % len(STATES)]
        nodes.append(
            {
                "uuid": str(uuidlib.UUID(int=rnd.getrandbits(128), version=4)),
                "name": f"node-{i:02}",
                "resource_class": CLASSES[i % len(CLASSES)],
                "traits": sorted(rnd.sample(TRAITS, rnd.randint(0, 3))),
                "provision_state": provision,
                "power_state": power,
                "maintenance": maintenance,
                "instance_uuid": str(uuidlib.UUID(int=rnd.getrandbits(128), version=4))
                if instance
                else None,
            }
        )
    nodes[11]["resource_class"] = None
    nodes[21]["compute_disabled"] = True
    # Nova removes a capability trait its driver does not support, and the disabled trait of
    # an enabled service, even when the Ironic node has them.
    nodes[22]["traits"] = [*nodes[22]["traits"], "COMPUTE_VOLUME_MULTI_ATTACH"]
    nodes[23]["traits"] = [*nodes[23]["traits"], "COMPUTE_STATUS_DISABLED"]
    return nodes


NODES = fifty_nodes()


@pytest.fixture(scope="module")
def seeded() -> Iterator[Placement]:
    with running_placement() as running:
        seed(running.url, NODES)
        yield running


@pytest.fixture
def reader(seeded: Placement) -> placement.PlacementReader:
    return placement.reader(None, seeded.url, token="admin")


def normalized(resource_class: str) -> str:
    return {
        "baremetal.gold": "CUSTOM_BAREMETAL_GOLD",
        "bm-silver": "CUSTOM_BM_SILVER",
        "BAREMETAL_X86": "CUSTOM_BAREMETAL_X86",
    }[resource_class]


def test_providers_read_back_as_nova_reports_the_nodes(
    reader: placement.PlacementReader,
) -> None:
    providers = {p.uuid: p for p in reader.providers()}
    assert set(providers) == {n["uuid"] for n in NODES}
    for node in NODES:
        found = providers[node["uuid"]]
        assert found.name == node["uuid"]  # Nova names the provider by the node's uuid
        if node["resource_class"] is None:
            assert (found.inventories, found.usages, found.traits) == ({}, {}, frozenset())
            continue
        rc = normalized(node["resource_class"])
        in_use = node["instance_uuid"] is not None
        held = (
            in_use
            or node["maintenance"]
            or node["power_state"] in ("error", None)
            or node["provision_state"] != "available"
        )
        assert found.inventories == {rc: Inventory(total=1, reserved=int(held), max_unit=1)}
        assert found.usages == {rc: int(in_use)}
        disabled = {"COMPUTE_STATUS_DISABLED"} if node.get("compute_disabled") else set()
        own = set(node["traits"]) - {"COMPUTE_VOLUME_MULTI_ATTACH", "COMPUTE_STATUS_DISABLED"}
        assert found.traits == {*own, *NOVA_TRAITS, *DRIVER_TRAITS, *disabled}
    assert "COMPUTE_STATUS_DISABLED" in providers[NODES[21]["uuid"]].traits
    assert "COMPUTE_VOLUME_MULTI_ATTACH" not in providers[NODES[22]["uuid"]].traits
    assert "COMPUTE_STATUS_DISABLED" not in providers[NODES[23]["uuid"]].traits


def test_what_the_seeding_made_of_the_states(reader: placement.PlacementReader) -> None:
    providers = {p.uuid: p for p in reader.providers()}
    by_name = {n["name"]: providers[n["uuid"]] for n in NODES}
    free = by_name["node-00"]
    assert free.inventories["CUSTOM_BAREMETAL_GOLD"].reserved == 0
    assert free.fits("CUSTOM_BAREMETAL_GOLD", 1)
    in_use = by_name["node-02"]  # active, with an instance: allocated and reserved
    assert in_use.usages == {"CUSTOM_BAREMETAL_X86": 1}
    assert in_use.inventories["CUSTOM_BAREMETAL_X86"].reserved == 1
    assert not in_use.fits("CUSTOM_BAREMETAL_X86", 1)
    assert not by_name["node-03"].fits("CUSTOM_BAREMETAL_GOLD", 1)  # maintenance: reserved
    assert sum(p.generation > 0 for p in providers.values()) == 49  # all but the classless one


def test_one_provider_reads_as_the_listing_does(reader: placement.PlacementReader) -> None:
    listed = {p.uuid: p for p in reader.providers()}
    for node in (NODES[0], NODES[2], NODES[11], NODES[21]):
        before = reader.calls
        one = reader.provider(node["uuid"])
        assert reader.calls - before == 4  # the provider, inventories, usages, traits
        assert one == listed[node["uuid"]]
    before = reader.calls
    assert reader.provider(str(uuidlib.UUID(int=17, version=4))) is None  # 404: no provider
    assert reader.calls - before == 1


def expected(resource_class: str, required: set[str], forbidden: set[str]) -> set[str]:
    return {
        n["uuid"]
        for n in NODES
        if n["resource_class"] == resource_class
        and can_host(n)
        and required <= set(n["traits"]) | set(NOVA_TRAITS) | set(DRIVER_TRAITS)
        and not forbidden & set(n["traits"])
    }


def test_allocation_candidates_are_the_free_nodes_with_the_traits(
    reader: placement.PlacementReader,
) -> None:
    gold = reader.allocation_candidates({"resources": "CUSTOM_BAREMETAL_GOLD:1"})
    assert gold == expected("baremetal.gold", set(), set())
    assert 0 < len(gold) < sum(n["resource_class"] == "baremetal.gold" for n in NODES)

    nvme = reader.allocation_candidates(
        [("resources", "CUSTOM_BM_SILVER:1"), ("required", "CUSTOM_NVME,COMPUTE_NODE")]
    )
    assert nvme == expected("bm-silver", {"CUSTOM_NVME", "COMPUTE_NODE"}, set())

    without = reader.allocation_candidates(
        {"resources": "CUSTOM_BM_SILVER:1", "required": "!CUSTOM_NVME"}, "1.22"
    )
    assert without == expected("bm-silver", set(), {"CUSTOM_NVME"})
    assert nvme | without == expected("bm-silver", set(), set()) and not nvme & without

    assert reader.allocation_candidates({"resources": "CUSTOM_BM_SILVER:2"}) == set()
    # Placement refuses what it does not know (400); Nova ends that in NoValidHost.
    assert reader.allocation_candidates({"resources": "CUSTOM_UNKNOWN:1"}) == set()
    unknown_trait = {"resources": "CUSTOM_BM_SILVER:1", "required": "CUSTOM_NOBODY_HAS_IT"}
    assert reader.allocation_candidates(unknown_trait) == set()


def test_refusals_are_one_line(seeded: Placement, reader: placement.PlacementReader) -> None:
    with pytest.raises(TargetError) as version:
        reader.allocation_candidates({"resources": "CUSTOM_BM_SILVER:1"}, "1.99")
    assert str(version.value) == (
        f"Placement at {seeded.url} does not offer microversion 1.99 (it offers 1.0 to 1.39)"
    )
    # A query Placement refuses has no candidate (Nova: NoValidHost), and says why.
    bad = reader.candidates({"resources": "CUSTOM_BM_SILVER:x"})
    assert bad.providers == frozenset()
    assert (
        bad.refused
        == "Requested resource CUSTOM_BM_SILVER expected positive integer amount. Got: x."
    )
    trait_only = reader.candidates(
        {"resources": "CUSTOM_BM_SILVER:1", "resources1": "", "required1": "CUSTOM_NVME"}
    )
    assert trait_only.providers == frozenset() and "Got: empty string" in str(trait_only.refused)
    good = reader.candidates({"resources": "CUSTOM_BM_SILVER:1"})
    assert good.refused is None and good.providers == expected("bm-silver", set(), set())
    with pytest.raises(TargetError) as notation:
        reader.allocation_candidates({"resources": "CUSTOM_BM_SILVER:1"}, "latest")
    assert "'latest' is not a Placement microversion" in str(notation.value)


def test_an_endpoint_nothing_answers_on_is_one_line() -> None:
    with pytest.raises(TargetError) as down:
        placement.reader(None, "http://127.0.0.1:9", token="admin").providers()
    assert str(down.value) == (
        "cannot reach Placement at http://127.0.0.1:9: no Placement answers there"
        " (is it running, and is this its URL?)"
    )
    assert down.value.transient


def test_a_token_the_policy_refuses_is_one_line(seeded: Placement) -> None:
    with pytest.raises(TargetError) as refused:
        placement.reader(None, seeded.url, token="somebody").providers()
    assert str(refused.value) == (
        f"Placement at {seeded.url} does not let these credentials GET /resource_providers (403)"
    )


@dataclass(frozen=True)
class Guarded:
    """A Placement that validates tokens with a real Keystone, in Keystone's catalog."""

    url: str
    clouds: Path


@pytest.fixture(scope="module")
def guarded(keystone: Keystone, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Guarded]:
    admin = keystone.admin()
    service = admin.identity.create_service(name="placement", type="placement")
    admin.close()
    with running_placement(workers=1, authtoken=keystone.authtoken_section()) as running:
        admin = keystone.admin()
        admin.identity.create_endpoint(
            service_id=service.id, interface="public", url=running.url, region_id=REGION
        )
        admin.close()
        token = keystone.token("admin", project="admin")
        seed(running.url, NODES[:10], token=token)

        def cloud(password: str) -> dict[str, object]:
            auth = {
                "auth_url": keystone.url,
                "username": "admin",
                "password": password,
                "user_domain_id": "default",
                "project_name": "admin",
                "project_domain_id": "default",
            }
            return {"auth": auth, "region_name": REGION, "identity_api_version": 3}

        clouds = tmp_path_factory.mktemp("clouds") / "clouds.yaml"
        body = {"clouds": {"admin": cloud(ADMIN_PASSWORD), "wrong": cloud("not-it")}}
        clouds.write_text(yaml.safe_dump(body))
        try:
            yield Guarded(running.url, clouds)
        finally:  # the session's Keystone keeps no endpoint of a stopped Placement
            admin = keystone.admin()
            admin.identity.delete_service(service)
            admin.close()


def test_a_cloud_finds_placement_in_keystones_catalog(
    guarded: Guarded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(guarded.clouds))
    reader = placement.reader("admin")
    assert [p.uuid for p in reader.providers()] == sorted(n["uuid"] for n in NODES[:10])
    gold = reader.allocation_candidates({"resources": "CUSTOM_BAREMETAL_GOLD:1"})
    assert gold == {
        n["uuid"] for n in NODES[:10] if n["resource_class"] == "baremetal.gold" and can_host(n)
    }


def test_credentials_keystone_refuses_are_one_line(
    guarded: Guarded, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(TargetError) as token:
        placement.reader(None, guarded.url, token="not-a-token").providers()
    assert str(token.value) == (
        f"Placement at {guarded.url} refused the credentials (401); check the cloud's auth or token"
    )
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(guarded.clouds))
    with pytest.raises(TargetError) as password:
        placement.reader("wrong").providers()
    assert str(password.value) == (
        "the cloud's credentials were refused (401) while looking Placement up in the catalog;"
        " check the cloud's auth in clouds.yaml"
    )
