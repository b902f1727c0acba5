"""Trait names: prefixing, the standard vocabulary and suggestions."""

from __future__ import annotations

import pytest

from flavorsmith import traits


def test_full_name_adds_custom_prefix() -> None:
    assert traits.full_name("NICX") == "CUSTOM_NICX"


def test_standard_traits_come_from_pinned_os_traits() -> None:
    standard = traits.standard_traits()
    assert "HW_CPU_X86_AVX2" in standard
    assert "CUSTOM_NICX" not in standard
    assert len(standard) == 377  # os-traits 3.9.0


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("HW_CPU_X86_AVX2", True),
        ("CUSTOM_NICX", True),
        ("CUSTOM_", False),
        ("CUSTOM_nicx", False),
        ("NICX", False),
        ("CUSTOM_" + "A" * 248, True),
        ("CUSTOM_" + "A" * 249, False),
    ],
)
def test_node_trait_validity(name: str, valid: bool) -> None:
    assert traits.is_valid_node_trait(name) is valid


@pytest.mark.parametrize(
    ("value", "suggestion"),
    [
        ("nicx", "NICX"),
        ("nic-mellanox cx5", "NIC_MELLANOX_CX5"),
        ("CUSTOM_gpu", "GPU"),
        ("NICX", None),
    ],
)
def test_suggest_short_name(value: str, suggestion: str | None) -> None:
    assert traits.suggest_short_name(value) == suggestion


@pytest.mark.parametrize(
    ("name", "lookalike"),
    [
        ("HW_CPU_X86_AVX512FF", True),
        ("COMPUTE_NODES", True),
        ("MISC_SHARES_VIA_AGGREGATES", True),
        ("HW_CPU_X86_AVX512F", False),  # standard
        ("COMPUTE_STATUS_DISABLED", False),  # standard, and Nova sets it
        ("CUSTOM_HW_RAID", False),  # custom
        ("NICX", False),  # no standard prefix
        ("MISC_RACK_A", False),  # MISC_ alone is no namespace of os-traits
    ],
)
def test_a_name_like_a_standard_traits(name: str, lookalike: bool) -> None:
    assert traits.looks_standard(name) is lookalike


def test_nova_sets_only_standard_traits() -> None:
    assert not any(traits.looks_standard(t) for t in traits.NOVA_IRONIC_TRAITS)
    assert traits.standard_traits() >= traits.NOVA_IRONIC_TRAITS


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "COMPUTE_NODES",
            "COMPUTE_NODES is not a standard trait of os-traits 3.9.0 (did you mean "
            "'COMPUTE_NODE'?)",
        ),
        (
            "STORAGE_DISK_SDD",
            "STORAGE_DISK_SDD is not a standard trait of os-traits 3.9.0 (did you mean "
            "'STORAGE_DISK_SSD' or 'STORAGE_DISK_HDD'?)",
        ),
        ("HW_XYZ_Q", "HW_XYZ_Q is not a standard trait of os-traits 3.9.0"),
    ],
)
def test_a_lookalike_is_named_with_the_nearest_standard_traits(name: str, message: str) -> None:
    assert traits.lookalike_message(name) == message
