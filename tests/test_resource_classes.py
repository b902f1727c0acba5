"""Resource-class normalisation matches Nova/Placement (os-resource-classes)."""

from __future__ import annotations

import pytest

from flavorsmith.resource_classes import placement_name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("m1.small", "CUSTOM_M1_SMALL"),
        ("m1-small", "CUSTOM_M1_SMALL"),
        ("M1 Small", "CUSTOM_M1_SMALL"),
        ("baremetal..gold--x", "CUSTOM_BAREMETAL_GOLD_X"),
        ("g1.8xh100", "CUSTOM_G1_8XH100"),
        # Nova does not strip an existing prefix; neither do we.
        ("CUSTOM_GOLD", "CUSTOM_CUSTOM_GOLD"),
        ("größe", "CUSTOM_GR_E"),
    ],
)
def test_placement_name(name: str, expected: str) -> None:
    assert placement_name(name) == expected
