"""Nova's flavor-id rule, which every catalog flavor name must satisfy."""

from __future__ import annotations

import pytest

from flavorsmith import flavor_ids


@pytest.mark.parametrize(
    "name", ["m1.small", "m1.small.nicX", "g1_8x-h100", "bare metal gold", "x" * 255]
)
def test_valid(name: str) -> None:
    assert flavor_ids.is_valid(name)


@pytest.mark.parametrize(
    "name", ["", " m1", "m1 ", "m1+nvme", "m1/small", "größe", "x" * 256, "m1\tsmall"]
)
def test_invalid(name: str) -> None:
    assert not flavor_ids.is_valid(name)


def test_suggestion_replaces_forbidden_characters() -> None:
    assert flavor_ids.suggest("m1.small+nvme") == "m1.small-nvme"
    assert flavor_ids.suggest("m1.small") is None
