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
