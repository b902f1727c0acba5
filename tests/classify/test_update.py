"""What the inspection hook changes on a node: the resource class only on exactly one device
type match, only the traits rule files own, and a reason for each."""

from __future__ import annotations

import json

import pytest

from flavorsmith.catalog.model import Catalog
from flavorsmith.classify.classification import classify
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.update import NodeUpdate, node_update
from tests.conftest import EXAMPLES
from tests.support.catalogs import repository


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return repository(EXAMPLES).load().catalog


def update_for(
    catalog: Catalog, name: str, resource_class: str | None, traits: set[str]
) -> NodeUpdate:
    data = json.loads((EXAMPLES / "inspection" / name).read_text())
    result = classify(parse(data), catalog, frozenset(traits))
    return node_update(result, resource_class, node="node-1", provision_state="inspect wait")


def test_one_match_sets_the_resource_class_and_owned_traits(catalog: Catalog) -> None:
    update = update_for(catalog, "r7615-m1-small.json", None, {"CUSTOM_GPU", "CUSTOM_RACK_A01"})
    assert update.resource_class == "m1.small"
    assert update.add == (
        "CUSTOM_CPU_AVX512",
        "CUSTOM_NIC_MELLANOX_CX5",
        "CUSTOM_NVME",
        "HW_CPU_X86_AMD_SEV",
        "HW_CPU_X86_AVX2",
        "HW_CPU_X86_AVX512F",
    )
    assert update.remove == ("CUSTOM_GPU",)
    assert update.reasons[0].startswith(
        "resource class none -> m1.small: device type dell-poweredge-r7615, resource class m1.small ("
    )
    assert (
        "trait CUSTOM_NIC_MELLANOX_CX5: interface ens1f0np0 is 15b3:1017 (mlx5_core) (rules nics: Mellanox ConnectX-5)"
        in update.reasons
    )
    assert "trait CUSTOM_GPU removed: the rules that own it no longer set it" in update.reasons
    assert update.reasons[-1] == "traits no rule owns, kept: CUSTOM_RACK_A01"


def test_an_unchanged_node_changes_nothing(catalog: Catalog) -> None:
    first = update_for(catalog, "r7615-m1-small.json", None, set())
    again = update_for(catalog, "r7615-m1-small.json", "m1.small", set(first.add))
    assert (again.resource_class, again.add, again.remove, again.changes) == (None, (), (), False)
    assert again.reasons[0].startswith("resource class m1.small stays: device type")


def test_no_match_keeps_the_resource_class_and_says_why(catalog: Catalog) -> None:
    update = update_for(catalog, "near-miss-r7615-failed-dimm.json", "baremetal", set())
    assert update.resource_class is None
    assert update.reasons[0] == (
        "resource class baremetal left as it is: no device type matches; see each candidate's failed fields"
    )
    small = next(r for r in update.reasons if r.startswith("  m1.small (dell-poweredge-r7615): "))
    assert "memory" in small
    assert update.add  # the trait rules still apply: they do not depend on the device type


def test_a_new_resource_class_on_a_deployed_node_is_refused_in_ironics_words(
    catalog: Catalog,
) -> None:
    data = json.loads((EXAMPLES / "inspection" / "r7615-m1-small.json").read_text())
    result = classify(parse(data), catalog, frozenset())
    update = node_update(result, "baremetal", node="node-1", provision_state="active")
    assert update.resource_class == "m1.small"
    assert update.refused == (
        "Node node-1 can not have resource_class updated unless it is in one of allowed "
        "(enroll, inspecting, inspect wait, manageable, available) states. "
        "Current state is 'active'."
    )
    # A first resource class, or the same one, is no change Ironic refuses.
    assert node_update(result, None, node="n", provision_state="active").refused is None
    assert node_update(result, "m1.small", node="n", provision_state="active").refused is None
