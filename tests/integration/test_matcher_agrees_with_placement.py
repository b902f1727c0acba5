"""The matcher agrees with the real Placement: for every generated flavor, the nodes the matcher
says the flavor can land on now are exactly the providers of ``GET /allocation_candidates``
(without ``limit``) for the request Nova 34 builds from the derived flavor.

One seeded inventory (fixed seed): 480 nodes of four resource classes and a few without one,
standard and custom traits (and a capability trait Nova's ironic driver removes), every
provision and power state that matters, maintenance, instances; loaded into the real Placement
16 as Nova's ironic driver reports them (tests/support/placement_api.py), once per module.
Sixty flavors (fixed seed) with the catalog's traits and extra specs drawn from a pool:
``trait:`` keys with standard and custom traits, numbered groups, ``group_policy``, amounts,
``hw:cpu_policy``, ``os:secure_boot``, ``hw:mem_encryption``, ``hw:tpm_*``. Each goes catalog
flavor → derived Nova flavor (nova/derive.py) → Nova's request (nova/placement_request.py) →
its query → Placement; and → FlavorRule → Index.match, restricted to the nodes Placement can
offer (matching/snapshot.py: not reserved or allocated by Nova's ironic driver). A Nova flavor
cannot ask for any-of traits, so requests with ``required=in:`` (Placement 1.39) are built
directly and checked the same way.
"""

from __future__ import annotations

import random
import uuid as uuidlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from flavorsmith.catalog.model import Flavor, ResourceClass, TraitRequirement
from flavorsmith.clients import placement
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, positions
from flavorsmith.matching.snapshot import from_records
from flavorsmith.nova.derive import derive_flavor
from flavorsmith.nova.placement_request import (
    PlacementRequest,
    RequestGroup,
    request_for,
)
from tests.support.placement_api import running_placement, seed

pytestmark = pytest.mark.slow

NODE_COUNT = 480
FLAVOR_COUNT = 60
CLASSES = {  # resource class: share of the nodes
    "baremetal.gold": 0.4,
    "bm-silver": 0.3,
    "gpu.large": 0.2,
    "compute_x": 0.1,
}
RESOURCE_CLASSES = {
    name: ResourceClass(name, 32, "AMD EPYC 9124", 262144, (960,), 2) for name in CLASSES
}
CUSTOM = ["NVME", "GPU_A100", "RAID10", "FAST_NET", "DEDICATED_POOL"]  # catalog names
STANDARD = [
    "HW_CPU_X86_SGX",
    "HW_CPU_X86_AVX2",
    "HW_CPU_X86_AVX512F",
    "HW_CPU_X86_AMD_SEV",
    "COMPUTE_SECURITY_UEFI_SECURE_BOOT",
    "COMPUTE_SECURITY_TPM_2_0",
    "COMPUTE_SECURITY_TPM_TIS",
    "COMPUTE_SECURITY_TPM_CRB",
]
# (weight, provision_state, power_state, maintenance, with an instance)
STATES = [
    (12, "available", "power off", False, False),
    (4, "available", "power on", False, False),
    (4, "active", "power on", False, True),
    (1, "available", "power off", True, False),
    (1, "active", "power on", True, True),
    (1, "available", "error", False, False),
    (1, "available", None, False, False),
    (1, "manageable", "power off", False, False),
    (1, "enroll", None, False, False),
    (1, "cleaning", "power on", False, False),
    (1, "deploying", "power on", False, True),
    (1, "available", "power on", False, True),  # an instance on an available node
]
# Extra specs a flavor draws from (each entry is added whole).
EXTRA_SPECS: list[dict[str, str]] = [
    {"trait:HW_CPU_X86_SGX": "required"},
    {"trait:HW_CPU_X86_AVX2": "required"},
    {"trait:HW_CPU_X86_AVX512F": "forbidden"},
    {"trait:HW_CPU_X86_AMD_SEV": "forbidden"},
    {"trait:CUSTOM_NVME": "required"},
    {"trait:CUSTOM_GPU_A100": "forbidden"},
    {"trait:CUSTOM_NOBODY_HAS_THIS": "forbidden"},
    {"trait:CUSTOM_NOBODY_HAS_THIS": "required"},
    {"trait:COMPUTE_VOLUME_MULTI_ATTACH": "forbidden"},  # Nova's driver removes it
    {"trait:COMPUTE_NODE": "required"},  # Nova sets it on every provider
    {"trait1:CUSTOM_RAID10": "required"},  # a trait-only numbered group
    {"resources1:CUSTOM_BM_SILVER": "1", "trait1:CUSTOM_NVME": "required"},
    {"resources2:CUSTOM_GPU_LARGE": "1", "resources3:CUSTOM_GPU_LARGE": "1"},
    {"group_policy": "isolate"},
    {"group_policy": "none"},
    {"resources:CUSTOM_BM_SILVER": "1"},  # a second class in the unsuffixed group
    {"resources:VCPU": "4"},  # the derived "0" stays: a catalog spec never replaces it
    {"resources1:CUSTOM_BAREMETAL_GOLD": "0"},  # a zero amount is dropped
    {"hw:cpu_policy": "dedicated"},
    {"hw:cpu_policy": "shared"},
    {"os:secure_boot": "required"},
    {"os:secure_boot": "disabled"},
    {"hw:mem_encryption": "true"},
    {"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-tis"},
    {"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb"},
]


def inventory() -> list[dict[str, Any]]:
    rnd = random.Random(1734)
    weights = [s[0] for s in STATES]
    nodes = []
    for i in range(NODE_COUNT):
        _, provision, power, maintenance, instance = rnd.choices(STATES, weights)[0]
        traits = {f"CUSTOM_{t}" for t in CUSTOM if rnd.random() < 0.3}
        traits |= {t for t in STANDARD if rnd.random() < 0.25}
        if rnd.random() < 0.05:
            traits.add("COMPUTE_VOLUME_MULTI_ATTACH")
        resource_class: str | None = rnd.choices(list(CLASSES), list(CLASSES.values()))[0]
        if i % 97 == 0:
            resource_class = None
        nodes.append(
            {
                "uuid": str(uuidlib.UUID(int=rnd.getrandbits(128), version=4)),
                "name": f"node-{i:03}",
                "resource_class": resource_class,
                "traits": sorted(traits),
                "provision_state": provision,
                "power_state": power,
                "maintenance": maintenance,
                "instance_uuid": str(uuidlib.UUID(int=rnd.getrandbits(128), version=4))
                if instance
                else None,
            }
        )
    return nodes


def flavors() -> list[Flavor]:
    rnd = random.Random(4417)
    made = []
    for i in range(FLAVOR_COUNT):
        traits = tuple(
            TraitRequirement(name, rnd.choice(["required", "required", "absent"]))
            for name in rnd.sample(CUSTOM, rnd.choice([0, 0, 1, 1, 2]))
        )
        specs: dict[str, str] = {}
        for chosen in rnd.sample(EXTRA_SPECS, rnd.choice([0, 1, 1, 2, 3])):
            specs.update(chosen)
        made.append(
            Flavor(
                name=f"gen-{i:02}",
                resource_class=rnd.choices(list(CLASSES), list(CLASSES.values()))[0],
                traits=traits,
                extra_specs=tuple(sorted(specs.items())),
            )
        )
    return made


def any_of_requests() -> list[tuple[str, str, PlacementRequest]]:
    """(name, resource class, request) with any-of traits, as Placement 1.39 reads them."""
    root = frozenset({"OWNER_NOVA"})
    made = []
    for i, (rc, choices, required) in enumerate(
        [
            ("baremetal.gold", {"CUSTOM_NVME", "CUSTOM_RAID10"}, set()),
            ("bm-silver", {"HW_CPU_X86_SGX", "HW_CPU_X86_AVX2"}, {"CUSTOM_FAST_NET"}),
            ("gpu.large", {"CUSTOM_GPU_A100", "CUSTOM_NOBODY_HAS_THIS"}, set()),
            ("compute_x", {"COMPUTE_SECURITY_TPM_2_0", "HW_CPU_X86_AMD_SEV"}, set()),
        ]
    ):
        group = RequestGroup(
            "",
            {RESOURCE_CLASSES[rc].placement_name: 1},
            required=frozenset(required),
            any_of=(frozenset(choices),),
        )
        request = PlacementRequest(
            groups=(group,),
            root_required=root,
            root_forbidden=frozenset({"COMPUTE_STATUS_DISABLED"}),
            microversion="1.39",
        )
        made.append((f"any-of-{i}", rc, request))
    return made


@dataclass(frozen=True)
class Seeded:
    reader: placement.PlacementReader
    index: Index


@pytest.fixture(scope="module")
def seeded() -> Iterator[Seeded]:
    nodes = inventory()
    with running_placement() as running:
        seed(running.url, nodes)
        index = Index.build(from_records(nodes))
        yield Seeded(placement.reader(None, running.url, token="admin"), index)


def matcher_answer(index: Index, rule: FlavorRule) -> set[str]:
    """The nodes the matcher says the rule can land on now: matching, and offered."""
    nodes = index.snapshot.nodes
    return {nodes[p].uuid for p in positions(index.match(rule) & index.available)}


def cases() -> list[tuple[str, str, PlacementRequest]]:
    made = []
    for flavor in flavors():
        derived = derive_flavor(flavor, RESOURCE_CLASSES[flavor.resource_class])
        made.append((flavor.name, flavor.resource_class, request_for(derived)))
    return made + any_of_requests()


def test_the_matcher_returns_what_placement_returns(seeded: Seeded) -> None:
    disagreements = []
    answers = []
    for name, resource_class, request in cases():
        rule = FlavorRule.from_request(name, resource_class, request)
        assert rule.unmodelled == (), f"{name}: {rule.unmodelled}"
        ours = matcher_answer(seeded.index, rule)
        theirs = seeded.reader.allocation_candidates(
            request.query(limit=False), request.microversion
        )
        answers.append(len(theirs))
        if ours != theirs:
            disagreements.append(
                f"{name} ({request.querystring(limit=False)} at {request.microversion}): "
                f"matcher {len(ours)}, Placement {len(theirs)}; only the matcher: "
                f"{len(ours - theirs)}, only Placement: {len(theirs - ours)}; never={rule.never}"
            )
    assert disagreements == []
    # The generated flavors reach both answers: many candidates, a few, and none.
    assert len(answers) >= 60
    assert sum(n > 50 for n in answers) >= 5
    assert sum(0 < n <= 50 for n in answers) >= 5
    assert sum(n == 0 for n in answers) >= 5


def test_the_seeded_inventory_has_every_kind_of_node(seeded: Seeded) -> None:
    nodes = seeded.index.snapshot.nodes
    states = {node.inventory_state for node in nodes}
    assert states == {"schedulable", "used", "reserved", "absent"}
    assert sum(node.available for node in nodes) > NODE_COUNT // 3
