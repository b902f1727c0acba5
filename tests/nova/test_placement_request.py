"""The Placement request Nova 34 builds from a derived flavor (cross-checked against Nova's
own code in tests/integration/test_placement_request_nova.py)."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from flavorsmith.catalog.model import Flavor, ResourceClass
from flavorsmith.nova.derive import DerivedFlavor, derive_flavor
from flavorsmith.nova.placement_request import MICROVERSION, RequestGroup, request_for

RC = ResourceClass("gold", 16, "AMD EPYC 9124", 131072, (480,), 2)
BASE = {
    "resources:CUSTOM_GOLD": "1",
    "resources:VCPU": "0",
    "resources:MEMORY_MB": "0",
    "resources:DISK_GB": "0",
}
ROOT = "OWNER_NOVA,!COMPUTE_STATUS_DISABLED"


def flavor(**specs: str) -> DerivedFlavor:
    return DerivedFlavor("f", "f", None, True, (), 16, 131072, 480, {**BASE, **specs})


def query(**specs: str) -> dict[str, str]:
    return dict(request_for(flavor(**specs)).query())


def test_a_derived_flavor_asks_for_one_node_of_its_class() -> None:
    request = request_for(derive_flavor(Flavor("f", "gold"), RC))
    assert request.query() == [
        ("limit", "1000"),
        ("resources", "CUSTOM_GOLD:1"),
        ("root_required", ROOT),
    ]
    assert request.microversion == MICROVERSION == "1.36"
    assert request.querystring(limit=False) == (
        "resources=CUSTOM_GOLD%3A1&root_required=OWNER_NOVA%2C%21COMPUTE_STATUS_DISABLED"
    )


def test_flavor_sizes_become_resources_unless_overridden() -> None:
    bare = DerivedFlavor("f", "f", None, True, (), 4, 2048, 10, {}, swap=1500, ephemeral=5)
    assert dict(request_for(bare).query())["resources"] == "DISK_GB:17,MEMORY_MB:2048,VCPU:4"


def test_zero_amounts_are_stripped_and_empty_groups_dropped() -> None:
    request = request_for(flavor(**{"resources1:CUSTOM_GOLD": "0"}))
    assert [g.suffix for g in request.groups] == [""]
    assert request.groups[0].resources == {"CUSTOM_GOLD": 1}


def test_traits_and_suffixed_groups() -> None:
    q = query(
        **{
            "trait:HW_CPU_X86_SGX": "required",
            "trait:CUSTOM_GPU": "forbidden",
            "resources_NIC:CUSTOM_GOLD": "1",
            "trait_NIC:CUSTOM_FAST": "required",
            "group_policy": "none",
        }
    )
    assert q["required"] == "HW_CPU_X86_SGX,!CUSTOM_GPU"
    assert q["resources_NIC"] == "CUSTOM_GOLD:1"
    assert q["required_NIC"] == "CUSTOM_FAST"
    assert q["group_policy"] == "none"


@pytest.mark.parametrize(
    ("key", "value", "ignored"),
    [
        ("resources:GOLD", "1", "neither a standard resource class"),
        ("resources:CUSTOM_X", "-1", "not a non-negative integer"),
        ("resources:CUSTOM_X", "one", "not a non-negative integer"),
        ("trait:CUSTOM_X", "yes", "neither 'required' nor 'forbidden'"),
        ("group_policy", "strict", "neither 'none' nor 'isolate'"),
    ],
)
def test_malformed_specs_are_ignored_as_nova_does(key: str, value: str, ignored: str) -> None:
    request = request_for(flavor(**{key: value}))
    assert ignored in request.ignored[0]
    assert request.query() == [
        ("limit", "1000"),
        ("resources", "CUSTOM_GOLD:1"),
        ("root_required", ROOT),
    ]


@pytest.mark.parametrize(
    ("specs", "resources", "required", "root"),
    [
        ({"hw:cpu_policy": "dedicated"}, "CUSTOM_GOLD:1,PCPU:16", None, ""),
        (
            {"hw:cpu_policy": "dedicated", "hw:emulator_threads_policy": "isolate"},
            "CUSTOM_GOLD:1,PCPU:17",
            None,
            "",
        ),
        (
            {"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "^0-1"},
            "CUSTOM_GOLD:1,PCPU:14,VCPU:2",
            None,
            "",
        ),
        ({"hw:cpu_thread_policy": "require"}, "CUSTOM_GOLD:1", "HW_CPU_HYPERTHREADING", ""),
        ({"hw:cpu_thread_policy": "isolate"}, "CUSTOM_GOLD:1", "!HW_CPU_HYPERTHREADING", ""),
        ({"os:secure_boot": "required"}, "CUSTOM_GOLD:1", "COMPUTE_SECURITY_UEFI_SECURE_BOOT", ""),
        ({"os:secure_boot": "optional"}, "CUSTOM_GOLD:1", None, ""),
        (
            {"hw:maxphysaddr_mode": "emulate"},
            "CUSTOM_GOLD:1",
            "COMPUTE_ADDRESS_SPACE_EMULATED",
            "",
        ),
        (
            {"hw:pci_numa_affinity_policy": "socket"},
            "CUSTOM_GOLD:1",
            "COMPUTE_SOCKET_PCI_NUMA_AFFINITY",
            "",
        ),
        (
            {"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb"},
            "CUSTOM_GOLD:1",
            "COMPUTE_SECURITY_TPM_2_0,COMPUTE_SECURITY_TPM_CRB",
            "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER,",
        ),
        (
            {"hw:pmem": "4GB,4GB,SMALL"},
            "CUSTOM_GOLD:1,CUSTOM_PMEM_NAMESPACE_4GB:2,CUSTOM_PMEM_NAMESPACE_SMALL:1",
            None,
            "",
        ),
        ({"hw:virtio_packed_ring": "true"}, "CUSTOM_GOLD:1", None, "COMPUTE_NET_VIRTIO_PACKED,"),
        (
            {"hw:ephemeral_encryption": "yes", "hw:ephemeral_encryption_format": "luks"},
            "CUSTOM_GOLD:1",
            None,
            "COMPUTE_EPHEMERAL_ENCRYPTION,COMPUTE_EPHEMERAL_ENCRYPTION_LUKS,",
        ),
        ({"hw:sound_model": "virtio"}, "CUSTOM_GOLD:1", None, "COMPUTE_SOUND_MODEL_VIRTIO,"),
        ({"accel:device_profile": "p"}, "CUSTOM_GOLD:1", None, "COMPUTE_ACCELERATORS,"),
    ],
)
def test_implicit_translations(
    specs: dict[str, str], resources: str, required: str | None, root: str
) -> None:
    q = query(**specs)
    assert q["resources"] == resources
    assert q.get("required") == required
    assert q["root_required"] == root + ROOT


def test_memory_encryption_is_translated_and_refused_without_an_image() -> None:
    request = request_for(flavor(**{"hw:mem_encryption": "True"}))
    q = dict(request.query())
    assert q["resources"] == "CUSTOM_GOLD:1,MEM_ENCRYPTION_CONTEXT:1"
    assert q["required"] == "HW_CPU_X86_AMD_SEV"
    assert "hw_firmware_type=uefi" in request.refused[0]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hw:cpu_policy", "pinned"),
        ("hw:cpu_thread_policy", "never"),
        ("hw:emulator_threads_policy", "own"),
        ("hw:tpm_version", "3.0"),
        ("os:secure_boot", "yes"),
        ("hw:maxphysaddr_mode", "host"),
        ("hw:sound_model", "beep"),
    ],
)
def test_values_nova_refuses_are_a_finding_not_an_exception(key: str, value: str) -> None:
    request = request_for(flavor(**{key: value}))
    assert request.refused and key in request.refused[0]


def test_unmodelled_specs_are_named() -> None:
    assert "Cyborg" in request_for(flavor(**{"accel:device_profile": "p"})).unmodelled[0]


def test_any_of_and_aggregates_are_written_in_placement_syntax() -> None:
    group = RequestGroup(
        "1",
        {"CUSTOM_GOLD": 1},
        any_of=(frozenset({"CUSTOM_B", "CUSTOM_A"}),),
        member_of=(frozenset({"agg2", "agg1"}),),
        forbidden_aggregates=frozenset({"agg3"}),
    )
    assert group.params() == [
        ("resources1", "CUSTOM_GOLD:1"),
        ("required1", "in:CUSTOM_A,CUSTOM_B"),
        ("member_of1", "in:agg1,agg2"),
        ("member_of1", "!in:agg3"),
    ]


def test_a_trait_only_group_is_sent_with_empty_resources_as_nova_does() -> None:
    request = request_for(flavor(**{"trait1:CUSTOM_X": "required"}))
    assert ("resources1", "") in parse_qsl(request.querystring(), keep_blank_values=True)
