"""Placement's capacity rule on a provider read from Placement (matching/resource_providers)."""

from __future__ import annotations

from flavorsmith.matching.resource_providers import Inventory, Provider


def test_capacity_is_total_less_reserved_times_the_ratio() -> None:
    assert Inventory(total=4, reserved=1, allocation_ratio=2.0).capacity == 6
    assert Inventory(total=1, reserved=1).capacity == 0


def test_a_request_fits_within_units_steps_and_what_is_left() -> None:
    inventory = Inventory(total=8, reserved=2, max_unit=4, min_unit=2, step_size=2)
    assert inventory.fits(2) and inventory.fits(4)
    assert not inventory.fits(1)  # below min_unit
    assert not inventory.fits(3, 0)  # not a multiple of the step
    assert not inventory.fits(6)  # above max_unit
    assert inventory.fits(2, used=4) and not inventory.fits(4, used=4)  # 6 in all


def test_a_bare_metal_provider_takes_its_one_unit_once() -> None:
    free = Provider("u", "u", 3, {"CUSTOM_GOLD": Inventory(total=1)}, {"CUSTOM_GOLD": 0})
    assert free.fits("CUSTOM_GOLD", 1)
    assert not free.fits("CUSTOM_GOLD", 2)
    assert not free.fits("CUSTOM_SILVER", 1)
    taken = Provider("u", "u", 4, {"CUSTOM_GOLD": Inventory(total=1)}, {"CUSTOM_GOLD": 1})
    assert not taken.fits("CUSTOM_GOLD", 1)
    reserved = Provider("u", "u", 4, {"CUSTOM_GOLD": Inventory(total=1, reserved=1)})
    assert not reserved.fits("CUSTOM_GOLD", 1)
