"""Who sets each trait, who asks for it, and the required traits nothing provides."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.trait_use import KnownNodes, check_unprovided, mentions, uses
from tests.conftest import EXAMPLES
from tests.support.catalogs import repository

RAID = """name: c2.large.raid
resource_class: c2.large
traits:
  - trait: RAID
    state: required
extra_specs:
  trait:HW_CPU_X86_SGX: required
  trait1:COMPUTE_IMAGE_TYPE_RAW: required
  trait:HW_CPU_X86_AVX2: forbidden
"""


def catalog_with(tmp_path: Path, text: str, *, trait_rules: bool = True) -> Catalog:
    root = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    if not trait_rules:
        shutil.rmtree(root / "hardware" / "trait-rules")
    (root / "hardware" / "flavors" / "c2.large.raid.yaml").write_text(text)
    return repository(root).load().catalog


def test_a_trait_nothing_provides_is_a_warning_with_the_nearest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = check_unprovided(catalog_with(tmp_path, RAID))
    assert [d.render() for d in found] == [
        "deploy/hardware/flavors/c2.large.raid.yaml:4:12: traits[0].trait: warning: CUSTOM_RAID "
        "is required but nothing provides it: no trait rule adds it and no deploy template is "
        "named after it, so no node has it unless it is set by hand (validate --database checks "
        "the nodes) (did you mean 'BM_CONFIG_RAID_DISK_MIRROR' or 'BM_CONFIG_RAID_DISK_STRIPE'?)",
        # A standard trait nothing sets is on no node either (COMPUTE_IMAGE_TYPE_RAW: Nova).
        "deploy/hardware/flavors/c2.large.raid.yaml:7:3: extra_specs.trait:HW_CPU_X86_SGX: "
        "warning: HW_CPU_X86_SGX is required but nothing provides it: no trait rule adds it and "
        "no deploy template is named after it, so no node has it unless it is set by hand "
        "(validate --database checks the nodes) (did you mean 'HW_CPU_X86_AVX2'?)",
    ]
    assert {d.code for d in found} == {"trait-not-provided"}


def test_with_nodes_a_trait_set_by_hand_is_provided(tmp_path: Path) -> None:
    catalog = catalog_with(tmp_path, RAID)
    by_hand = KnownNodes(10, {"CUSTOM_RAID": 2, "HW_CPU_X86_SGX": 0})
    found = check_unprovided(catalog, by_hand)
    assert [d.field for d in found] == ["extra_specs.trait:HW_CPU_X86_SGX"]
    assert "none of the 10 known nodes has it: the flavor matches no node" in found[0].message


def test_without_trait_rules_or_nodes_nothing_is_concluded(tmp_path: Path) -> None:
    catalog = catalog_with(tmp_path, RAID, trait_rules=False)
    assert check_unprovided(catalog) == []
    # With nodes (here none) every trait no template names and Nova does not set is reported.
    found = check_unprovided(catalog, KnownNodes(0, {}))
    assert sorted({d.message.split()[0] for d in found}) == [
        "CUSTOM_CPU_AVX512",
        "CUSTOM_GPU_NVIDIA_H100",
        "CUSTOM_NICX",
        "CUSTOM_NIC_MELLANOX_CX5",
        "CUSTOM_NVME",
        "CUSTOM_RAID",
        "HW_CPU_X86_SGX",
    ]


def test_the_example_catalog_requires_nothing_unprovided() -> None:
    catalog = repository(EXAMPLES).load().catalog
    assert check_unprovided(catalog) == []


def test_mentions_read_the_traits_list_and_the_extra_specs(tmp_path: Path) -> None:
    flavor = catalog_with(tmp_path, RAID).flavor("c2.large.raid")
    assert flavor is not None
    assert [(m.trait, m.state, m.written) for m in mentions(flavor)] == [
        ("CUSTOM_RAID", "required", "RAID"),
        ("HW_CPU_X86_SGX", "required", "HW_CPU_X86_SGX"),
        ("COMPUTE_IMAGE_TYPE_RAW", "required", "COMPUTE_IMAGE_TYPE_RAW"),
        ("HW_CPU_X86_AVX2", "forbidden", "HW_CPU_X86_AVX2"),
    ]


def test_uses_say_who_sets_each_trait_and_who_asks_for_it(tmp_path: Path) -> None:
    catalog = catalog_with(tmp_path, RAID)
    nodes = KnownNodes(5, {"CUSTOM_RAID": 1, "CUSTOM_BM_CONFIG_BIOS_VMX_ON": 2, "CUSTOM_NVME": 3})
    by_trait = {u.trait: u for u in uses(catalog, nodes)}
    assert by_trait["CUSTOM_RAID"].as_dict() == {
        "trait": "CUSTOM_RAID",
        "set_by": ["by hand"],
        "nodes": 1,
        "required_by": ["c2.large.raid"],
        "forbidden_by": [],
        "description": None,  # the catalog declares no traits
        "notes": [],
    }
    # A deploy template names a trait; the nodes that have it were given it by hand.
    assert by_trait["CUSTOM_BM_CONFIG_BIOS_VMX_ON"].set_by == ("deploy template", "by hand")
    assert by_trait["CUSTOM_BM_CONFIG_BIOS_VMX_OFF"].set_by == ("deploy template",)
    assert by_trait["CUSTOM_NVME"].set_by == ("trait-rules/storage.yaml",)
    assert by_trait["CUSTOM_CPU_AVX512"].required_by == ("m1.medium.dedicated",)
    assert by_trait["CUSTOM_CPU_AVX512"].forbidden_by == ("m1.medium",)
    assert by_trait["CUSTOM_GPU"].forbidden_by == ("m1.small.no-gpu", "m1.small.nvme-cx5-no-gpu")
    assert by_trait["HW_CPU_X86_SGX"].set_by == ()
    assert by_trait["HW_CPU_X86_AVX2"].forbidden_by == ("c2.large.raid",)
    assert by_trait["COMPUTE_IMAGE_TYPE_RAW"].set_by == ("Nova",)
    assert "COMPUTE_NODE" not in by_trait  # Nova's own, mentioned by no one
    assert by_trait["CUSTOM_GPU"].nodes == 0
    assert all(u.nodes is None for u in uses(catalog))
