"""The small real cloud (tests/support/small_cloud.py) schedules as Nova does: a flavor that
requires a trait and one unit of a node's resource class boots once per node that has both,
each time on such a node, and the next boot fails with NoValidHost.

The servers go through the real nova-api, nova-conductor, nova-scheduler (Placement's
allocation candidates) and nova-compute's ironic driver onto Ironic fake-hardware nodes; the
landing node is read from Ironic (the node's instance_uuid) and from Placement (the server's
allocation)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support.small_cloud import Cloud, running_cloud

pytestmark = pytest.mark.slow

TRAIT = "CUSTOM_X"
RESOURCE_CLASS = "bm-small"  # Nova's name for it: CUSTOM_BM_SMALL


@pytest.fixture(scope="module")
def cloud() -> Iterator[Cloud]:
    with running_cloud() as running:
        yield running


def test_a_flavor_boots_once_per_matching_node_then_no_valid_host(cloud: Cloud) -> None:
    matching = cloud.enrol_nodes(
        [f"gold-{i}" for i in range(3)], resource_class=RESOURCE_CLASS, traits=[TRAIT]
    )
    # The same resource class without the trait: the scheduler must never choose it.
    plain = cloud.enrol_nodes(["plain-0"], resource_class=RESOURCE_CLASS, traits=[])
    cloud.wait_for_nodes([*matching, *plain])
    flavor = cloud.create_flavor(
        "bm.x",
        {
            f"trait:{TRAIT}": "required",
            "resources:CUSTOM_BM_SMALL": "1",
            "resources:VCPU": "0",
            "resources:MEMORY_MB": "0",
            "resources:DISK_GB": "0",
        },
    )

    landed: dict[str, str] = {}
    started = time.monotonic()
    for attempt in range(len(matching) + 1):
        server = cloud.boot(f"vm-{attempt}", flavor)
        outcome = cloud.wait_for_servers([server])[server]
        if outcome.status == "ERROR":
            break
        assert outcome.node in matching, (outcome, cloud.log_tail("nova-compute"))
        landed[server] = outcome.node
    boot_seconds = time.monotonic() - started

    assert sorted(landed.values()) == sorted(matching), landed
    assert outcome.status == "ERROR", "the boot after the last matching node did not fail"
    assert outcome.fault is not None and "No valid host" in outcome.fault, outcome
    for server, node in landed.items():
        code, allocations = cloud.placement_call(f"/allocations/{server}")
        assert code == 200
        assert {rp: a["resources"] for rp, a in allocations["allocations"].items()} == {
            node: {"CUSTOM_BM_SMALL": 1}
        }
    code, plain_node = cloud.ironic("GET", f"/nodes/{plain[0]}")
    assert plain_node["instance_uuid"] is None
    assert plain_node["provision_state"] == "available"
    print(f"{len(landed) + 1} boots in {boot_seconds:.1f}s")
