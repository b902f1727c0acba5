"""The index: resource class and trait -> set of node positions, as Python integers used as
bitmaps (bit i set = node i), so a flavor is a handful of AND / AND-NOT operations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from flavorsmith.matching.flavors import FlavorRule, unknown_forbidden
from flavorsmith.matching.snapshot import Snapshot


@dataclass(frozen=True)
class Index:
    snapshot: Snapshot
    by_class: dict[str, int]
    by_trait: dict[str, int]
    available: int  # schedulable as Placement would see it (NodeInfo.available)
    everything: int

    @classmethod
    def build(cls, snapshot: Snapshot) -> Index:
        by_class: dict[str, int] = {}
        by_trait: dict[str, int] = {}
        # Collect positions per key, then make each bitmap once (cheaper than OR per node).
        class_positions: dict[str, list[int]] = {}
        trait_positions: dict[str, list[int]] = {}
        available_positions: list[int] = []
        for position, node in enumerate(snapshot.nodes):
            rc = node.placement_class
            if rc is not None:
                class_positions.setdefault(rc, []).append(position)
            for trait in node.traits:
                trait_positions.setdefault(trait, []).append(position)
            if node.available:
                available_positions.append(position)
        for key, positions in class_positions.items():
            by_class[key] = bitmap(positions)
        for key, positions in trait_positions.items():
            by_trait[key] = bitmap(positions)
        everything = (1 << len(snapshot.nodes)) - 1
        return cls(snapshot, by_class, by_trait, bitmap(available_positions), everything)

    def match(self, flavor: FlavorRule) -> int:
        """The bitmap of nodes ``flavor`` can land on: those Placement returns as candidates."""
        if flavor.never or unknown_forbidden(flavor, self.by_trait):
            return 0
        result = self.by_class.get(flavor.placement_class, 0)
        for trait in flavor.required:
            if not result:
                return 0
            result &= self.by_trait.get(trait, 0)
        for trait in flavor.forbidden:
            result &= ~self.by_trait.get(trait, 0)
        for choices in flavor.any_of:
            anyone = 0
            for trait in choices:
                anyone |= self.by_trait.get(trait, 0)
            result &= anyone
        return result


def bitmap(positions: list[int]) -> int:
    """Bits set at ``positions`` (built through bytes: linear, not quadratic, in the count)."""
    if not positions:
        return 0
    data = bytearray((max(positions) >> 3) + 1)
    for position in positions:
        data[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(data, "little")


def positions(bits: int) -> Iterator[int]:
    """The positions set in ``bits``, ascending."""
    data = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
    for byte_index, byte in enumerate(data):
        while byte:
            low = byte & -byte
            yield (byte_index << 3) + low.bit_length() - 1
            byte ^= low
