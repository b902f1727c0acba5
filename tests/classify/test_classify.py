"""Every classification outcome, on the example inspection documents and catalog."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from flavorsmith.catalog.model import Catalog, ResourceClass, TraitRule, TraitRuleSet
from flavorsmith.catalog.repo import Repository
from flavorsmith.classify.classification import classify
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.trait_rules import evaluate
from flavorsmith.classify.vendors import cpu_model_matches, manufacturer, model
from flavorsmith.errors import Invalid
from tests.conftest import EXAMPLES
from tests.support.catalogs import RULES

INSPECTION = EXAMPLES / "inspection"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Repository(EXAMPLES, RULES).load().catalog


def load(name: str) -> Any:
    return json.loads((INSPECTION / name).read_text())


def checks_of(result: Any, resource_class: str) -> dict[str, tuple[bool, str]]:
    candidate = next(c for c in result.device.candidates if c.resource_class == resource_class)
    return {c.field: (c.ok, c.detail) for c in candidate.checks}


@pytest.mark.parametrize(
    ("name", "resource_class"),
    [
        ("r7615-m1-small.json", "m1.small"),
        ("r7615-m1-small-smt-off.json", "m1.small"),
        ("r7615-m1-small-socket-count.json", "m1.small"),
        ("r7615-m1-small-no-physical-mb.json", "m1.small"),
        ("r7615-m1-small-usb-stick.json", "m1.small"),
        ("r7615-m1-medium.json", "m1.medium"),
        ("dl360-c2-large.json", "c2.large"),
        ("dl360-c2-diskless.json", "c2.diskless"),
        ("xe9680-g1-8xh100.json", "g1.8xh100"),
    ],
)
def test_examples_match_exactly_one_resource_class(
    catalog: Catalog, name: str, resource_class: str
) -> None:
    result = classify(parse(load(name)), catalog)
    assert result.device.outcome == "matched"
    assert result.resource_class == resource_class
    assert [c.resource_class for c in result.device.candidates if c.ok] == [resource_class]


def test_cores_from_the_model_string(catalog: Catalog) -> None:
    result = classify(parse(load("r7615-m1-small.json")), catalog)
    assert checks_of(result, "m1.small")["cpu.cores"] == (
        True,
        "16 cores from the model string: 1 x 16-Core, 2 thread(s) per core (32 logical CPUs; "
        "SMT assumed on: no cpu.socket_count rules out 2 x 16-Core at 1 thread per core)",
    )
    smt_off = classify(parse(load("r7615-m1-small-smt-off.json")), catalog)
    assert checks_of(smt_off, "m1.small")["cpu.cores"][1].endswith(
        "1 thread(s) per core (16 logical CPUs)"
    )


def with_cores(catalog: Catalog, resource_class: str, cores: int) -> Catalog:
    return replace(
        catalog,
        device_types=tuple(
            replace(
                dt,
                resource_classes=tuple(
                    replace(rc, cpu_cores=cores) if rc.name == resource_class else rc
                    for rc in dt.resource_classes
                ),
            )
            for dt in catalog.device_types
        ),
    )


def test_cores_from_the_socket_count(catalog: Catalog) -> None:
    """An agent that reports cpu.socket_count (IPA 9.9 and later, lscpu's Socket(s)): the
    sockets come from the inventory, the cores per socket from the model string."""
    document = load("r7615-m1-small-socket-count.json")
    assert document["inventory"]["cpu"]["socket_count"] == 1
    result = classify(parse(document), catalog)
    assert result.resource_class == "m1.small"
    assert checks_of(result, "m1.small")["cpu.cores"] == (
        True,
        "16 cores from cpu.socket_count and the model string: 1 x 16-Core, 2 thread(s) per core "
        "(32 logical CPUs)",
    )


def test_cores_written_as_threads_do_not_match(catalog: Catalog) -> None:
    """A device type declaring 32 cores for a one-socket EPYC 9124 (16 cores, 32 threads) does
    not match its 32-thread box read as 2 x 16-Core at 1 thread per core."""
    threads_as_cores = with_cores(catalog, "m1.small", 32)
    socket_count = classify(parse(load("r7615-m1-small-socket-count.json")), threads_as_cores)
    assert socket_count.device.outcome == "no-match"
    checks = checks_of(socket_count, "m1.small")
    assert [f for f, (ok, _) in checks.items() if not ok] == ["cpu.cores"]
    assert checks["cpu.cores"][1] == (
        "16 cores from cpu.socket_count and the model string: 1 x 16-Core, 2 thread(s) per core "
        "(32 logical CPUs); the catalog says 32, the number of logical CPUs: "
        "declare physical cores"
    )
    # An older agent without cpu.socket_count: SMT on is assumed, and the detail says so.
    older = classify(parse(load("r7615-m1-small.json")), threads_as_cores)
    assert older.device.outcome == "no-match"
    checks = checks_of(older, "m1.small")
    assert [f for f, (ok, _) in checks.items() if not ok] == ["cpu.cores"]
    assert checks["cpu.cores"][1] == (
        "16 cores from the model string: 1 x 16-Core, 2 thread(s) per core (32 logical CPUs; "
        "SMT assumed on: no cpu.socket_count rules out 2 x 16-Core at 1 thread per core); "
        "the catalog says 32, the number of logical CPUs: declare physical cores"
    )


def test_two_sockets_without_smt_still_match(catalog: Catalog) -> None:
    """Guard: a real two-socket EPYC 9124 box with SMT off (32 logical CPUs, socket_count 2)
    matches 32 cores; the socket count rules out the one-socket reading."""
    document = load("r7615-m1-small-socket-count.json")
    document["inventory"]["cpu"]["socket_count"] = 2
    result = classify(parse(document), with_cores(catalog, "m1.small", 32))
    assert result.resource_class == "m1.small"
    assert checks_of(result, "m1.small")["cpu.cores"][1].endswith(
        "2 x 16-Core, 1 thread(s) per core (32 logical CPUs)"
    )


def test_logical_cpus_that_fit_no_socket_count_are_named(catalog: Catalog) -> None:
    """24 logical CPUs on one 16-Core socket are neither 1 nor 2 threads per core (cores
    switched off in the firmware): the detail says so instead of guessing."""
    document = load("r7615-m1-small-socket-count.json")
    document["inventory"]["cpu"]["count"] = 24
    result = classify(parse(document), catalog)
    assert result.device.outcome == "no-match"
    assert checks_of(result, "m1.small")["cpu.cores"] == (
        False,
        "24 logical CPUs are not 1 x 16-Core (cpu.socket_count and the model string) at 1 or 2 "
        "threads per core: cores disabled in the firmware?; the catalog says 16",
    )


def test_cores_from_threads_per_core(catalog: Catalog) -> None:
    result = classify(parse(load("dl360-c2-large.json")), catalog)
    assert checks_of(result, "c2.large")["cpu.cores"] == (
        True,
        "64 cores from threads per core: 128 logical CPUs at 2 thread(s) per core (the model string does not say)",
    )
    assert checks_of(result, "c2.large")["cpu.model"] == (
        True,
        "'Intel(R) Xeon(R) Gold 6430' names 'Intel Xeon Gold 6430'",
    )


def test_near_miss_raid_virtual_disk(catalog: Catalog) -> None:
    result = classify(parse(load("near-miss-r7615-raid1.json")), catalog)
    assert result.device.outcome == "no-match" and result.resource_class is None
    checks = checks_of(result, "m1.small")
    assert [f for f, (ok, _) in checks.items() if not ok] == ["drives"]
    assert checks["drives"][1] == (
        "disks of 480 GB do not match 480, 480 GB; one disk where several drives are expected: "
        "a RAID virtual disk? declare raid_level"
    )


def test_declared_raid_explains_the_virtual_disk(catalog: Catalog) -> None:
    device_type = next(dt for dt in catalog.device_types if dt.slug == "dell-poweredge-r7615")
    raided = tuple(
        replace(rc, raid_level="1") if rc.name == "m1.small" else rc
        for rc in device_type.resource_classes
    )
    changed = replace(catalog, device_types=(replace(device_type, resource_classes=raided),))
    result = classify(parse(load("near-miss-r7615-raid1.json")), changed)
    assert result.resource_class == "m1.small"
    assert checks_of(result, "m1.small")["drives"][1] == (
        "disks of 480 GB match 480 GB (RAID 1 of 2 x 480 GB appears as one 480 GB virtual disk)"
    )


def test_near_miss_memory(catalog: Catalog) -> None:
    result = classify(parse(load("near-miss-r7615-failed-dimm.json")), catalog)
    checks = checks_of(result, "m1.small")
    assert [f for f, (ok, _) in checks.items() if not ok] == ["memory.size"]
    assert checks["memory.size"][1] == (
        "98304 MB (memory.physical_mb) is not within 3% of 131072 MB"
    )


def test_memory_from_the_kernel_figure(catalog: Catalog) -> None:
    """An agent without memory.physical_mb (lshw failed: null): memory.total is what the kernel
    sees, 126,484 MB of a 128 GB box (3.5 % under), and it matches with the window for that
    figure; the detail names the figure."""
    document = load("r7615-m1-small-no-physical-mb.json")
    assert document["inventory"]["memory"]["physical_mb"] is None
    result = classify(parse(document), catalog)
    assert result.resource_class == "m1.small"
    assert checks_of(result, "m1.small")["memory.size"] == (
        True,
        "126484 MB (memory.total; the inventory has no memory.physical_mb) is within 6% under "
        "or 3% over 131072 MB",
    )


def test_the_kernel_figure_still_finds_a_failed_dimm(catalog: Catalog) -> None:
    """Guard: the wider window of memory.total still refuses 120 GB (one of sixteen 8 GB DIMMs
    failed) and 135 GB (more than is installed) against 128 GB."""
    document = load("r7615-m1-small-no-physical-mb.json")
    for mb in (120 * 1024, 135 * 1024):
        document["inventory"]["memory"]["total"] = mb * 1024 * 1024
        result = classify(parse(document), catalog)
        assert result.device.outcome == "no-match"
        checks = checks_of(result, "m1.small")
        assert [f for f, (ok, _) in checks.items() if not ok] == ["memory.size"]


def test_no_memory_figure_is_named(catalog: Catalog) -> None:
    """An inventory with neither memory figure says so instead of "0 MB"."""
    document = load("r7615-m1-small-no-physical-mb.json")
    document["inventory"]["memory"] = {}
    checks = checks_of(classify(parse(document), catalog), "m1.small")
    assert checks["memory.size"] == (
        False,
        "the inventory has neither memory.physical_mb nor memory.total; the catalog says 131072 MB",
    )


def test_a_missing_cpu_count_is_named(catalog: Catalog) -> None:
    """An agent inventory without cpu.count: the reason says so, instead of "0 logical CPUs
    give 0 cores"."""
    document = load("near-miss-r7615-no-cpu-count.json")
    assert "count" not in document["inventory"]["cpu"]
    result = classify(parse(document), catalog)
    assert result.device.outcome != "matched"
    checks = checks_of(result, "m1.small")
    assert [f for f, (ok, _) in checks.items() if not ok] == ["cpu.cores"]
    assert checks["cpu.cores"][1] == (
        "the inventory lacks the CPU count (inventory.cpu.count), so the cores cannot be "
        "checked; the catalog says 16"
    )


def test_a_usb_stick_is_not_a_drive(catalog: Catalog) -> None:
    """A 32 GB USB stick left in the box (lsblk's transport usb, IPA 11.2 and later) is not a
    third drive against the two declared; the detail lists it as left out."""
    document = load("r7615-m1-small-usb-stick.json")
    assert [d["tran"] for d in document["inventory"]["disks"]] == ["nvme", "nvme", "usb"]
    result = classify(parse(document), catalog)
    assert result.resource_class == "m1.small"
    assert checks_of(result, "m1.small")["drives"] == (
        True,
        "disks of 480, 480 GB match 480, 480 GB; left out: /dev/sda (31 GB SanDisk Ultra Fit, USB)",
    )


IDSDM = {
    "name": "/dev/sdb",
    "model": "Internal Dual SD",
    "size": 31914983424,
    "rotational": True,
    "wwn": None,
    "serial": "0123456789AB",
    "vendor": "DELL",
    "wwn_with_extension": None,
    "wwn_vendor_extension": None,
    "hctl": "7:0:0:0",
    "by_path": "/dev/disk/by-path/pci-0000:43:00.4-usb-0:2:1.0-scsi-0:0:0:0",
}


def test_usb_by_path_and_sd_cards_are_not_drives(catalog: Catalog) -> None:
    """An agent before transport (no tran): a Dell IDSDM's by-path names its USB bus; an SD or
    eMMC card is an mmcblk device. Neither counts, and both are listed."""
    document = load("r7615-m1-small.json")
    assert all("tran" not in d for d in document["inventory"]["disks"])
    sd_card = {**IDSDM, "name": "/dev/mmcblk0", "model": "", "by_path": None, "hctl": None}
    document["inventory"]["disks"] += [IDSDM, sd_card]
    result = classify(parse(document), catalog)
    assert result.resource_class == "m1.small"
    assert checks_of(result, "m1.small")["drives"][1] == (
        "disks of 480, 480 GB match 480, 480 GB; left out: /dev/sdb (32 GB DELL Internal Dual "
        "SD, USB), /dev/mmcblk0 (32 GB DELL, SD/MMC card)"
    )


def test_a_third_real_drive_still_counts(catalog: Catalog) -> None:
    """Guard: a SAS drive on a SCSI by-path is a drive, so three drives against two declared
    still do not match."""
    document = load("r7615-m1-small-usb-stick.json")
    sas = {
        **IDSDM,
        "name": "/dev/sdc",
        "model": "MZILT480HBHQ0D3",
        "size": 479559942144,
        "by_path": "/dev/disk/by-path/pci-0000:c1:00.0-sas-exp0x500056b3d0c7a4ff-phy2-lun-0",
        "tran": "sas",
    }
    document["inventory"]["disks"].append(sas)
    result = classify(parse(document), catalog)
    assert result.device.outcome == "no-match"
    checks = checks_of(result, "m1.small")
    assert [f for f, (ok, _) in checks.items() if not ok] == ["drives"]


def test_unknown_hardware_lists_every_candidate(catalog: Catalog) -> None:
    result = classify(parse(load("near-miss-supermicro.json")), catalog)
    assert result.device.outcome == "no-match"
    assert len(result.device.candidates) == 5  # every server resource class
    for candidate in result.device.candidates:
        assert {"manufacturer", "model"} <= {c.field for c in candidate.failed}


def test_two_matching_device_types_are_ambiguous(catalog: Catalog) -> None:
    r7615 = next(dt for dt in catalog.device_types if dt.slug == "dell-poweredge-r7615")
    twin = ResourceClass("m1.small.b", 16, "AMD EPYC 9124", 131072, (480, 480), 2)
    changed = replace(
        catalog, device_types=(replace(r7615, resource_classes=(*r7615.resource_classes, twin)),)
    )
    result = classify(parse(load("r7615-m1-small.json")), changed)
    assert result.device.outcome == "ambiguous" and result.resource_class is None
    assert result.device.summary == (
        "ambiguous: matches m1.small (dell-poweredge-r7615), m1.small.b (dell-poweredge-r7615); "
        "make the device types distinguishable"
    )


def test_trait_rules_and_their_reasons(catalog: Catalog) -> None:
    result = classify(parse(load("xe9680-g1-8xh100.json")), catalog)
    assert {
        "CUSTOM_GPU",
        "CUSTOM_GPU_NVIDIA_H100",
        "CUSTOM_NVME",
        "HW_CPU_X86_AVX512F",
    } <= result.traits.result
    reasons = {d.trait: d.reason for d in result.traits.decisions}
    assert reasons["CUSTOM_GPU_NVIDIA_H100"] == "PCI device 10de:2330 (class 030200)"
    assert reasons["CUSTOM_NVME"] == "disk /dev/nvme0n1 (3841 GB, NVMe)"
    nics = classify(parse(load("r7615-m1-small.json")), catalog)
    assert {d.trait: d.reason for d in nics.traits.decisions}["CUSTOM_NIC_MELLANOX_CX5"] == (
        "interface ens1f0np0 is 15b3:1017 (mlx5_core)"
    )


def test_a_speed_rule_names_the_speed_it_saw() -> None:
    speed = TraitRuleSet(
        "network-speed",
        "CUSTOM_NET_",
        None,
        (
            TraitRule("25G", {"interface": {"min_speed_mbps": 25000}}, ("CUSTOM_NET_25G",)),
            TraitRule("100G", {"interface": {"min_speed_mbps": 100000}}, ("CUSTOM_NET_100G",)),
        ),
    )
    decisions = evaluate([speed], parse(load("r7615-m1-small.json")))  # two 25 Gb/s ports
    assert [(d.trait, d.reason) for d in decisions] == [
        ("CUSTOM_NET_25G", "interface ens1f0np0 is 15b3:1017 (mlx5_core) at 25000 Mb/s")
    ]


def test_rules_own_their_prefix_and_nothing_else(catalog: Catalog) -> None:
    current = frozenset(
        {"CUSTOM_GPU", "CUSTOM_NIC_OLD", "CUSTOM_RACK_A01", "CUSTOM_IRONIC_NODE_PROJECT_B"}
    )
    result = classify(parse(load("r7615-m1-small.json")), catalog, current)
    assert result.traits.removed == {"CUSTOM_GPU", "CUSTOM_NIC_OLD"}
    assert result.traits.kept == {"CUSTOM_RACK_A01", "CUSTOM_IRONIC_NODE_PROJECT_B"}
    assert {
        "CUSTOM_RACK_A01",
        "CUSTOM_IRONIC_NODE_PROJECT_B",
        "CUSTOM_NVME",
    } <= result.traits.result
    assert "CUSTOM_GPU" not in result.traits.result


def test_vendor_normalisation() -> None:
    assert manufacturer("Dell Inc.") == manufacturer("Dell")
    assert manufacturer("HP") == manufacturer("HPE") == manufacturer("Hewlett Packard Enterprise")
    assert model("PowerEdge R7615 (SKU=0AF7;ModelName=PowerEdge R7615)") == model("PowerEdge R7615")
    assert cpu_model_matches("AMD EPYC 9124", "AMD EPYC 9124 16-Core Processor")
    assert not cpu_model_matches("AMD EPYC 912", "AMD EPYC 9124 16-Core Processor")
    assert cpu_model_matches("Intel Xeon Gold 6230R", "Intel(R) Xeon(R) Gold 6230R CPU @ 2.10GHz")


@pytest.mark.parametrize(
    "data", [[], "x", {"inventory": []}, {"inventory": {"cpu": {"count": "many"}}}]
)
def test_malformed_inspection_data(data: Any) -> None:
    with pytest.raises(Invalid):
        parse(data)
