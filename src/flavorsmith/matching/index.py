"""The index: resource class and trait -> set of node positions, as Python integers used as
bitmaps (bit i set = node i), so a flavor is a handful of AND / AND-NOT operations."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from flavorsmith.matching.flavor_rules import FlavorRule, unknown_forbidden
from flavorsmith.matching.snapshot import NodeInfo, Snapshot


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

    def updated(
        self, generation: int, removed: Collection[str], changed: Sequence[NodeInfo]
    ) -> Index:
        """This index after a change, equal to ``Index.build`` of the resulting snapshot: the
        nodes whose UUIDs are in ``removed`` gone (the nodes after them move down one position
        each), each node of ``changed`` in the place of the node with its UUID, or appended in
        the order given when there is none (the snapshot's order is the store's: a node created
        later sorts after every node it outlives). Only the bits of the nodes that changed are
        touched; many removals at once are a rebuild."""
        old = self.snapshot.nodes
        lookup = self.snapshot.positions

        def position(uuid: str) -> int | None:
            found = lookup.get(uuid)
            return found if found is not None and old[found].uuid == uuid else None

        gone = sorted({p for p in map(position, removed) if p is not None})
        gone_set = set(gone)
        nodes = [n for i, n in enumerate(old) if i not in gone_set] if gone else list(old)
        replaced: list[tuple[int, NodeInfo]] = []  # (position in nodes, the old record)
        appended: list[NodeInfo] = []
        for node in changed:
            at = position(node.uuid)
            if at is None or at in gone_set:
                appended.append(node)
                continue
            at -= bisect_left(gone, at)
            if nodes[at] != node:
                replaced.append((at, nodes[at]))
                nodes[at] = node
        start = len(nodes)
        nodes.extend(appended)
        if len(gone) > REBUILD_AFTER:
            return Index.build(Snapshot(tuple(nodes), generation))
        by_class = dict(self.by_class)
        by_trait = dict(self.by_trait)
        available = self.available
        for at in reversed(gone):  # highest first: each shift leaves the lower ones in place
            low = (1 << at) - 1
            for table in (by_class, by_trait):
                for key, bits in table.items():
                    table[key] = (bits & low) | ((bits >> (at + 1)) << at)
            available = (available & low) | ((available >> (at + 1)) << at)
        for at, before in replaced:
            bit = 1 << at
            if before.placement_class is not None:
                by_class[before.placement_class] &= ~bit
            for trait in before.traits:
                by_trait[trait] &= ~bit
            available &= ~bit
        for at in [at for at, _ in replaced] + list(range(start, len(nodes))):
            node = nodes[at]
            bit = 1 << at
            rc = node.placement_class
            if rc is not None:
                by_class[rc] = by_class.get(rc, 0) | bit
            for trait in node.traits:
                by_trait[trait] = by_trait.get(trait, 0) | bit
            if node.available:
                available |= bit
        for table in (by_class, by_trait):
            for key in [key for key, bits in table.items() if not bits]:
                del table[key]
        lookup = _lookup(self.snapshot, nodes, replaced, start)
        snapshot = Snapshot(tuple(nodes), generation, lookup)
        return Index(snapshot, by_class, by_trait, available, (1 << len(nodes)) - 1)

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


# More removed nodes than this in one update: rebuilding is cheaper than shifting every bitmap.
REBUILD_AFTER = 64


def _lookup(
    before: Snapshot, nodes: list[NodeInfo], replaced: list[tuple[int, NodeInfo]], start: int
) -> dict[str, int]:
    """The new snapshot's UUID-and-name lookup: the old one when no node was removed, renamed
    or added (the common trait change), extended when nodes were only added, else empty (the
    Snapshot computes it afresh)."""
    renamed = any((nodes[at].uuid, nodes[at].name) != (old.uuid, old.name) for at, old in replaced)
    if renamed or start != len(before.nodes):
        return {}
    if start == len(nodes):
        return before.positions
    lookup = dict(before.positions)
    for position in range(start, len(nodes)):  # as Snapshot.__post_init__ goes on
        node = nodes[position]
        lookup[node.uuid] = position
        if node.name is not None:
            lookup.setdefault(node.name, position)
    return lookup


def bitmap(positions: list[int]) -> int:
    """Bits set at ``positions`` (built through bytes: linear, not quadratic, in the count)."""
    if not positions:
        return 0
    data = bytearray((max(positions) >> 3) + 1)
    for position in positions:
        data[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(data, "little")


# The positions set in each byte value, ascending.
_BYTE_POSITIONS = tuple(tuple(b for b in range(8) if value >> b & 1) for value in range(256))


def positions(bits: int) -> Iterator[int]:
    """The positions set in ``bits``, ascending."""
    data = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
    base = -8
    for byte in data:
        base += 8
        if byte:
            for offset in _BYTE_POSITIONS[byte]:
                yield base + offset


def first_positions(bits: int, count: int) -> list[int]:
    """The first ``count`` positions set in ``bits``, ascending: a page of a flavor's nodes
    visits only the bytes before its last node."""
    return list(islice(positions(bits), max(count, 0)))
