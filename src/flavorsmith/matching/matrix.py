"""Flavors by node groups: which flavor can land on which kind of node, counted, for the
dashboard's matrix.

A node group is every node with the same resource class and the same traits: the matcher
decides on those alone, so a flavor either lands on every node of a group or on none. Groups
are made once per index, with their nodes counted per provision state, and the nodes by
resource class and provision state as bitmaps: a flavor's totals under any filter are a few
ANDs of bitmaps, and filtering and paging the columns touch groups, never nodes."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from flavorsmith.errors import Invalid
from flavorsmith.matching.flavors import FlavorRule
from flavorsmith.matching.index import Index, bitmap


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


# The groups of the last indexes (newest last): two, so that a request still holding the
# previous index while the next one is grouped neither waits for nor evicts the newer groups.
KEPT = 2
_groups_cache: list[tuple[Index, Groups]] = []
# Grouping is single-flight: one thread groups an index, any other asking for the same index
# (a page request beside the warming thread) waits for that answer instead of grouping again.
_grouping = threading.Lock()
# How many times an index was grouped (each index once: what the single flight guarantees).
builds = 0


def _kept(index: Index) -> Groups | None:
    for held, made in _groups_cache:
        if held is index:
            return made
    return None


def groups(index: Index) -> Groups:
    """Every node group of ``index``, ordered by resource class then first node, and the bitmaps
    the filters need (made once per index, by one thread at a time; the last ones are kept)."""
    global _groups_cache, builds
    found = _kept(index)  # without the lock: the list is replaced whole, never changed
    if found is not None:
        return found
    with _grouping:
        found = _kept(index)  # made while this thread waited
        if found is not None:
            return found
        made = _group(index)
        builds += 1
        _groups_cache = [*_groups_cache, (index, made)][-KEPT:]
        return made


def _group(index: Index) -> Groups:
    by_key: dict[tuple[str | None, frozenset[str]], Group] = {}
    class_positions: dict[str | None, list[int]] = {}
    state_positions: dict[str | None, list[int]] = {}
    for position, node in enumerate(index.snapshot.nodes):
        key = (node.resource_class, node.traits)
        group = by_key.get(key)
        if group is None:
            group = by_key[key] = Group(node.resource_class, node.traits, position, node.label)
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
    )


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
