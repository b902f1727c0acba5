"""Checks across files, on models built in memory (no repository needed)."""

from __future__ import annotations

from pathlib import Path

from flavorsmith.catalog.checks import check_catalog
from flavorsmith.catalog.kinds import DEVICE_TYPE, FLAVOR
from flavorsmith.catalog.load import load_bytes
from flavorsmith.catalog.model import DeviceType, Flavor
from tests.support.catalogs import RULES


def device_type(name: str, *classes: str) -> DeviceType:
    rcs = "".join(
        f"- name: {rc}\n  cpu: {{cores: 8, model: X}}\n  memory: {{size: 1024}}\n"
        "  drives: []\n  nic_count: 1\n"
        for rc in classes
    )
    text = (
        f"class: server\nmanufacturer: Acme\nmodel: {name}\nu_height: 1\n"
        f"is_full_depth: true\nresource_class:\n{rcs}"
    )
    model = load_bytes(
        text.encode(), DEVICE_TYPE, Path(f"{name}.yaml"), f"{name}.yaml", rules=RULES
    ).model
    assert isinstance(model, DeviceType)
    return model


def flavor(name: str, rc: str, traits: str = "", extra: str = "") -> Flavor:
    text = f"name: {name}\nresource_class: {rc}\n{extra}"
    if traits:
        text += "traits:\n" + "".join(
            f"- {{trait: {t.lstrip('!')}, state: {'absent' if t.startswith('!') else 'required'}}}\n"
            for t in traits.split()
        )
    model = load_bytes(
        text.encode(), FLAVOR, Path(f"{name}.yaml"), f"{name}.yaml", rules=RULES
    ).model
    assert isinstance(model, Flavor)
    return model


def messages(dts: list[DeviceType], fls: list[Flavor]) -> list[str]:
    return [d.render() for d in check_catalog(dts, fls)]


def test_clean_catalog() -> None:
    assert messages([device_type("a", "m1.small")], [flavor("f", "m1.small", "NICX")]) == []


def test_resource_class_defined_twice_in_one_device_type() -> None:
    assert messages([device_type("a", "rc1", "rc1")], []) == [
        "a.yaml:12:9: resource_class[1].name: resource class 'rc1' is already defined at "
        "a.yaml:7; each resource class belongs to exactly one device type"
    ]


def test_spelling_variant_of_a_resource_class_is_a_warning() -> None:
    assert messages([device_type("a", "m1.small")], [flavor("f", "m1-small")]) == [
        "f.yaml:2:17: resource_class: warning: 'm1-small' is written differently from the device "
        "type's 'm1.small'; both are CUSTOM_M1_SMALL to Placement, but write 'm1.small'"
    ]


def test_same_selection_counts_trait_order_and_state() -> None:
    dts = [device_type("a", "m1")]
    assert messages(dts, [flavor("f1", "m1", "A !B"), flavor("f2", "m1", "A B")]) == []
    assert messages(dts, [flavor("f1", "m1", "A !B"), flavor("f2", "m1", "!B A")]) == [
        "f2.yaml:1:7: name: warning: flavor 'f2' selects exactly the nodes of 'f1' (f1.yaml:1): "
        "same resource class and traits"
    ]


def test_private_twin_of_a_public_flavor_is_deliberate() -> None:
    private = flavor("f2", "m1", extra="is_public: false\nprojects: [p1]\n")
    assert messages([device_type("a", "m1")], [flavor("f1", "m1"), private]) == []


def test_undefined_resource_class_lists_what_exists() -> None:
    assert messages([device_type("a", "gpu.large", "m1")], [flavor("f", "gpu-larg")]) == [
        "f.yaml:2:17: resource_class: resource class 'gpu-larg' is not defined by any device type "
        "(did you mean 'gpu.large'?); defined: gpu.large, m1"
    ]


def test_device_type_slug_is_one_file_name() -> None:
    model = device_type("PA-5410/X  Rev 2", "fw1")
    assert model.slug == "acme-pa-5410-x-rev-2"
    assert model.canonical_file == "acme-pa-5410-x-rev-2.yaml"


def cpu_diagnostics(cores: int, model: str) -> list[str]:
    text = (
        "class: server\nmanufacturer: Dell\nmodel: PowerEdge R7615\nu_height: 1\n"
        "is_full_depth: true\nresource_class:\n- name: m1.small\n"
        f"  cpu: {{cores: {cores}, model: {model}}}\n  memory: {{size: 131072}}\n"
        "  drives: []\n  nic_count: 2\n"
    )
    loaded = load_bytes(text.encode(), DEVICE_TYPE, Path("r.yaml"), "r.yaml", rules=RULES)
    return [d.render() for d in loaded.diagnostics]


def test_cores_that_are_not_whole_sockets_are_a_warning() -> None:
    """24 cores of a 16-Core model are one and a half sockets: threads counted as cores, or
    the wrong model."""
    assert cpu_diagnostics(24, "AMD EPYC 9124 16-Core Processor") == [
        "r.yaml:8:16: resource_class[0].cpu.cores: warning: 24 cores are not whole sockets of "
        "'AMD EPYC 9124 16-Core Processor' (16 cores per socket): cores counts the physical cores "
        "of all sockets, not threads (one socket at 2 threads per core shows 32 logical CPUs)"
    ]


def test_whole_sockets_and_unsaid_core_counts_are_quiet() -> None:
    """Guard: one or two whole sockets, or a model string without N-Core, give no warning."""
    assert cpu_diagnostics(16, "AMD EPYC 9124 16-Core Processor") == []
    assert cpu_diagnostics(32, "AMD EPYC 9124 16-Core Processor") == []
    assert cpu_diagnostics(24, "AMD EPYC 9124") == []
