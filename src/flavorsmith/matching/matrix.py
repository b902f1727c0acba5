"""Flavors by node groups: which flavor can land on which kind of node, counted, for the
dashboard's matrix.

A node group is every node with the same resource class and the same traits: the matcher
decides on those alone, so a flavor either lands on every node of a group or on none. Groups
are made once per index, with their nodes counted per provision state, and the nodes by
resource class and provision state as bitmaps: a flavor's totals under any filter are a few
ANDs of bitmaps, and filtering and paging the columns touch groups, never nodes. After a
change, an index's groups follow the previous index's: only the groups of the nodes that
changed, came or went are made again (the others keep their objects, moved down when nodes
before them went), equal to grouping every node afresh."""

from __future__ import annotations

import hashlib
import threading
from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from flavorsmith.errors import Invalid
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, bitmap
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

Key = tuple[str | None, frozenset[str]]  # a group's resource class and traits


@dataclass
class Group:
    resource_class: str | None
    trait_set: frozenset[str]
    position: int  # its first node (a flavor matches it iff it matches the group)
    example: str  # that node's name, else its UUID
    # provision state -> [nodes, available nodes]
    states: dict[str | None, list[int]] = field(default_factory=dict)

    @cached_property
    def traits(self) -> tuple[str, ...]:
        return tuple(sorted(self.trait_set))

    @cached_property
    def id(self) -> str:
        return group_id(self.resource_class, self.traits)

    def counts(self, provision_state: str | None) -> tuple[int, int]:
        """(nodes, available nodes) of the group, in one provision state when given."""
        if provision_state is not None:
            found = self.states.get(provision_state, [0, 0])
            return found[0], found[1]
        return sum(c[0] for c in self.states.values()), sum(c[1] for c in self.states.values())


def group_id(resource_class: str | None, traits: Sequence[str]) -> str:
    """A stable short name for a group (the same in every generation; a page marker)."""
    text = f"{resource_class or ''}\n{','.join(traits)}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Groups:
    """The node groups of one index, and its nodes by Ironic resource class and by provision
    state as bitmaps (the index has them by trait)."""

    groups: list[Group]
    by_class: dict[str | None, int]
    by_state: dict[str | None, int]
    # Each group's nodes (UUIDs), what the next index's groups follow from.
    members: dict[Key, frozenset[str]] = field(default_factory=dict, repr=False)
    by_key: dict[Key, Group] = field(default_factory=dict, repr=False, compare=False)


# The groups of the last indexes (newest last): two, so that a request still holding the
# previous index while the next one is grouped neither waits for nor evicts the newer groups.
KEPT = 2
_groups_cache: list[tuple[Index, Groups]] = []
# Grouping is single-flight: one thread groups an index, any other asking for the same index
# (a page request beside the warming thread) waits for that answer instead of grouping again.
_grouping = threading.Lock()
# How many times an index was grouped (each index once: what the single flight guarantees),
# and how many of those followed the previous index's groups rather than grouping every node.
builds = 0
followed = 0


def _kept(index: Index) -> Groups | None:
    for held, made in _groups_cache:
        if held is index:
            return made
    return None


def groups(index: Index) -> Groups:
    """Every node group of ``index``, ordered by resource class then first node, and the bitmaps
    the filters need (made once per index, by one thread at a time; the last ones are kept)."""
    global _groups_cache, builds, followed
    found = _kept(index)  # without the lock: the list is replaced whole, never changed
    if found is not None:
        return found
    with _grouping:
        found = _kept(index)  # made while this thread waited
        if found is not None:
            return found
        made = None
        if _groups_cache:
            made = follow(*_groups_cache[-1], index)
            followed += made is not None
        if made is None:
            made = group_all(index)
        builds += 1
        _groups_cache = [*_groups_cache, (index, made)][-KEPT:]
        return made


def group_all(index: Index) -> Groups:
    """Every node of ``index`` grouped afresh."""
    by_key: dict[Key, Group] = {}
    members: dict[Key, set[str]] = {}
    class_positions: dict[str | None, list[int]] = {}
    state_positions: dict[str | None, list[int]] = {}
    for position, node in enumerate(index.snapshot.nodes):
        key = (node.resource_class, node.traits)
        group = by_key.get(key)
        if group is None:
            group = by_key[key] = Group(node.resource_class, node.traits, position, node.label)
            members[key] = set()
        members[key].add(node.uuid)
        counts = group.states.get(node.provision_state)
        if counts is None:
            counts = group.states[node.provision_state] = [0, 0]
        counts[0] += 1
        if node.available:
            counts[1] += 1
        class_positions.setdefault(node.resource_class, []).append(position)
        state_positions.setdefault(node.provision_state, []).append(position)
    return Groups(
        sorted(by_key.values(), key=lambda g: (g.resource_class or "", g.position)),
        {key: bitmap(found) for key, found in class_positions.items()},
        {key: bitmap(found) for key, found in state_positions.items()},
        {key: frozenset(found) for key, found in members.items()},
        by_key,
    )


# Past this many removed nodes, or changed and added ones past a tenth of the nodes, grouping
# afresh is as fast as following (each removal shifts every bitmap).
FOLLOW_REMOVED = 64


def _sort_key(group: Group) -> tuple[str, int]:
    return group.resource_class or "", group.position


def follow(before: Index, made: Groups, index: Index) -> Groups | None:
    """``index``'s groups from ``before``'s (``made``), equal to :func:`group_all`: only the
    groups of the nodes that changed, came or went are made again. None when ``index`` is not
    ``before`` changed as ``Index.updated`` changes it (survivors in their order, new nodes
    after them) or too much changed: then grouping afresh is the answer."""
    old, new = before.snapshot.nodes, index.snapshot.nodes
    diff = _diff(before.snapshot, index.snapshot)
    if diff is None:
        return None
    gone, changed = diff
    if len(gone) > FOLLOW_REMOVED or len(changed) > max(1000, len(new) // 10):
        return None
    # The groups whose nodes changed: made again from a copy of their members and counts.
    states: dict[Key, dict[str | None, list[int]]] = {}
    uuids_of: dict[Key, set[str]] = {}
    by_key = made.by_key

    def touch(key: Key) -> tuple[set[str], dict[str | None, list[int]]]:
        if key not in states:
            group = by_key.get(key)
            kept = {} if group is None else {s: list(c) for s, c in group.states.items()}
            states[key] = kept
            uuids_of[key] = set(made.members.get(key, ()))
        return uuids_of[key], states[key]

    def count(node: NodeInfo, step: int) -> None:
        uuids, counts = touch((node.resource_class, node.traits))
        if step < 0:
            uuids.discard(node.uuid)
        else:
            uuids.add(node.uuid)
        counted = counts.setdefault(node.provision_state, [0, 0])
        counted[0] += step
        counted[1] += step if node.available else 0
        if not counted[0]:
            del counts[node.provision_state]

    for at in gone:
        count(old[at], -1)
    for was, _ in changed:
        if was is not None:
            count(was, -1)
    for _, at in changed:
        count(new[at], 1)

    positions = index.snapshot.positions
    remade = {id(by_key[key]) for key in states if key in by_key}
    groups = [g for g in made.groups if id(g) not in remade]
    by_key = dict(by_key)
    if gone:  # the groups after a removed node move down
        for at, group in enumerate(groups):
            moved = group.position - bisect_left(gone, group.position)
            if moved != group.position:
                groups[at] = group = Group(
                    group.resource_class, group.trait_set, moved, group.example, group.states
                )
                by_key[group.resource_class, group.trait_set] = group
    members = dict(made.members)
    for key, counts in states.items():
        uuids = uuids_of[key]
        if not uuids:
            members.pop(key, None)
            by_key.pop(key, None)
            continue
        first = min(map(positions.__getitem__, uuids))
        members[key] = frozenset(uuids)
        group = by_key[key] = Group(key[0], key[1], first, new[first].label, counts)
        insort(groups, group, key=_sort_key)

    by_class, by_state = dict(made.by_class), dict(made.by_state)
    for table in (by_class, by_state):
        for at in reversed(gone):  # highest first: each shift leaves the lower ones in place
            low = (1 << at) - 1
            for name, bits in table.items():
                table[name] = (bits & low) | ((bits >> (at + 1)) << at)
    for was, at in changed:
        bit = 1 << at
        if was is not None:
            by_class[was.resource_class] &= ~bit
            by_state[was.provision_state] &= ~bit
        node = new[at]
        by_class[node.resource_class] = by_class.get(node.resource_class, 0) | bit
        by_state[node.provision_state] = by_state.get(node.provision_state, 0) | bit
    for table in (by_class, by_state):
        for name in [name for name, bits in table.items() if not bits]:
            del table[name]
    return Groups(groups, by_class, by_state, members, by_key)


def _diff(
    before: Snapshot, after: Snapshot
) -> tuple[list[int], list[tuple[NodeInfo | None, int]]] | None:
    """(the positions in ``before`` of the nodes gone, ascending; each node changed or added
    as (its record before, or None when new; its position in ``after``)), or None when
    ``after`` is not ``before`` changed in place, with nodes removed and others appended."""
    old, new = before.nodes, after.nodes
    if len(old) == len(new):  # the common change: nodes changed in place (identity is fast)
        moved = [at for at, (a, b) in enumerate(zip(old, new, strict=True)) if a is not b]
        if all(old[at].uuid == new[at].uuid for at in moved):
            return [], [(old[at], at) for at in moved if old[at] != new[at]]
    lookup = before.positions
    seen = bytearray(len(old))
    changed: list[tuple[NodeInfo | None, int]] = []
    last = -1
    appending = False
    for at, node in enumerate(new):
        was = lookup.get(node.uuid)
        if was is None or old[was].uuid != node.uuid:
            appending = True
            changed.append((None, at))
            continue
        if was <= last or appending:
            return None  # reordered, or a new node before an old one
        last = was
        seen[was] = 1
        if old[was] is not node and old[was] != node:
            changed.append((old[was], at))
    return [at for at, kept in enumerate(seen) if not kept], changed


@dataclass(frozen=True)
class Filters:
    resource_class: str | None = None
    traits: tuple[str, ...] = ()  # the node has every one
    provision_state: str | None = None

    def admit(self, group: Group) -> bool:
        if self.resource_class is not None and group.resource_class != self.resource_class:
            return False
        if not group.trait_set.issuperset(self.traits):
            return False
        return self.provision_state is None or self.provision_state in group.states

    def as_dict(self) -> dict[str, Any]:
        return {
            "resource_class": self.resource_class,
            "traits": list(self.traits),
            "provision_state": self.provision_state,
        }


@dataclass(frozen=True)
class MatrixPage:
    body: dict[str, Any]
    last: str | None  # the page's last group, when groups follow it


def matrix(
    index: Index,
    rules: Sequence[FlavorRule],
    filters: Filters,
    *,
    marker: str | None,
    limit: int,
) -> MatrixPage:
    """The flavors (rows, every one) by the node groups the filters admit (columns, a page of
    at most ``limit`` after the group ``marker``): in each cell the nodes of the group the
    flavor can land on; each flavor's totals count every admitted group, not only the page's."""
    made = groups(index)
    admitted = [g for g in made.groups if filters.admit(g)]
    start = 0
    if marker is not None:
        ids = [g.id for g in admitted]
        if marker not in ids:
            raise Invalid(f"Marker {marker!r} is not one of the matrix's node groups")
        start = ids.index(marker) + 1
    page = admitted[start : start + limit]
    more = start + limit < len(admitted)
    # The admitted nodes as one bitmap: a flavor's totals are two ANDs, whatever the groups.
    nodes = index.everything
    if filters.resource_class is not None:
        nodes &= made.by_class.get(filters.resource_class, 0)
    for trait in filters.traits:
        nodes &= index.by_trait.get(trait, 0)
    if filters.provision_state is not None:
        nodes &= made.by_state.get(filters.provision_state, 0)
    available = nodes & index.available
    counts = [g.counts(filters.provision_state) for g in page]
    rows = []
    for rule in rules:
        bits = index.match(rule)
        rows.append(
            {
                "flavor": rule.name,
                "resource_class": rule.resource_class,
                "nodes": (bits & nodes).bit_count(),
                "available": (bits & available).bit_count(),
                "cells": [
                    count[0] if (bits >> g.position) & 1 else 0
                    for g, count in zip(page, counts, strict=True)
                ],
            }
        )
    body = {
        "generation": index.snapshot.generation,
        "filters": filters.as_dict(),
        "nodes": nodes.bit_count(),
        "group_count": len(admitted),
        "groups": [
            {
                "id": g.id,
                "resource_class": g.resource_class,
                "traits": list(g.traits),
                "nodes": count[0],
                "available": count[1],
                "example": g.example,
            }
            for g, count in zip(page, counts, strict=True)
        ],
        "flavors": rows,
    }
    return MatrixPage(body, page[-1].id if more and page else None)
