"""The matcher's view of a flavor: what a bare-metal node must have for Placement to return it.

A node is what Nova's ironic driver makes of it: one root provider, inventory of its one
resource class with total 1, its traits (plus those Nova sets itself,
``nova/ironic_provider.py``). ``FlavorRule.from_request`` reads the Placement request Nova
builds (``nova/placement_request.py``) as Placement 1.36 reads the query, and keeps what a
single such provider must satisfy; ``never`` says why no node can ever be a candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from flavorsmith.catalog.model import Flavor
from flavorsmith.nova import ironic_provider
from flavorsmith.nova.placement_request import PlacementRequest, RequestGroup
from flavorsmith.resource_classes import placement_name
from flavorsmith.traits import standard_traits

_CUSTOM_TRAIT = re.compile(r"^CUSTOM_[A-Z0-9_]+$")


@dataclass(frozen=True)
class FlavorRule:
    name: str
    resource_class: str  # as written in the catalog
    required: frozenset[str]
    forbidden: frozenset[str]
    # Each set: the node has at least one of these traits.
    any_of: tuple[frozenset[str], ...] = ()
    # Why no bare-metal node can ever be a candidate (empty: the traits decide).
    never: tuple[str, ...] = ()
    # What the matcher cannot model for this flavor (its answer may differ from Placement's).
    unmodelled: tuple[str, ...] = ()
    request: PlacementRequest | None = field(default=None, compare=False, repr=False)

    @cached_property
    def placement_class(self) -> str:
        return placement_name(self.resource_class)

    @classmethod
    def of(cls, flavor: Flavor) -> FlavorRule:
        """The catalog's own view (resource class and ``traits``), without Nova's request."""
        return cls(
            flavor.name, flavor.resource_class, flavor.required_traits, flavor.forbidden_traits
        )

    @classmethod
    def from_request(cls, name: str, resource_class: str, request: PlacementRequest) -> FlavorRule:
        """What one node of ``resource_class`` must have to be a candidate for ``request``."""
        return _Reader(name, resource_class, request).rule()


def _label(group: RequestGroup) -> str:
    return f"request group {group.suffix!r}" if group.suffix else "the unsuffixed request group"


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def parse_traits(value: str) -> tuple[set[str], set[str], str | None]:
    """A ``required`` value as Placement before 1.39 reads it (util.normalize_traits_qs_param):
    required and forbidden traits, or why Placement answers 400."""
    if value.startswith("in:"):
        return set(), set(), f"Placement answers 400: 'required=in:...' needs 1.39 ({value})"
    names = [part.strip() for part in value.split(",")]
    forbidden = {n.lstrip("!") for n in names if n.startswith("!")}
    if not all(names) or not all(forbidden):
        return set(), set(), f"Placement answers 400: an empty trait in {value!r}"
    return {n for n in names if not n.startswith("!")}, forbidden, None


class _Reader:
    def __init__(self, name: str, resource_class: str, request: PlacementRequest) -> None:
        self.name = name
        self.resource_class = resource_class
        self.request = request
        self.never: list[str] = list(request.refused)
        self.unmodelled: list[str] = list(request.unmodelled)
        self.required: set[str] = set()
        self.forbidden: set[str] = set()
        self.any_of: list[frozenset[str]] = []

    def rule(self) -> FlavorRule:
        request = self.request
        any_of_allowed = _version(request.microversion) >= (1, 39)
        for group in request.groups:
            self._group(group, any_of_allowed)
        if request.root_required or request.root_forbidden:
            root = sorted(request.root_required) + [f"!{t}" for t in sorted(request.root_forbidden)]
            required, forbidden, error = parse_traits(",".join(root))
            if error:
                self.never.append(f"root_required: {error}")
            self.required |= required
            self.forbidden |= forbidden
        self._groups_and_resources()
        self._nova_traits()
        self._trait_names()
        return FlavorRule(
            self.name,
            self.resource_class,
            frozenset(self.required),
            frozenset(self.forbidden),
            any_of=tuple(self.any_of),
            never=tuple(dict.fromkeys(self.never)),
            unmodelled=tuple(dict.fromkeys(self.unmodelled)),
            request=request,
        )

    def _group(self, group: RequestGroup, any_of_allowed: bool) -> None:
        label = _label(group)
        if not group.resources:
            self.never.append(
                f"{label} has traits but no resources: Nova sends an empty "
                f"'resources{group.suffix}=' and Placement answers 400"
            )
        if group.required or group.forbidden:
            value = ",".join(sorted(group.required) + [f"!{t}" for t in sorted(group.forbidden)])
            required, forbidden, error = parse_traits(value)
            if error:
                self.never.append(f"{label}: {error}")
            conflict = required & forbidden
            if conflict:
                self.never.append(
                    f"{label} both requires and forbids {', '.join(sorted(conflict))}: "
                    "Placement answers 400"
                )
            self.required |= required
            self.forbidden |= forbidden
        if group.any_of:
            if any_of_allowed:
                self.any_of.extend(group.any_of)
            else:
                self.never.append(
                    f"{label} asks for one of several traits, which Placement reads only from "
                    f"microversion 1.39; Nova asks at {self.request.microversion}"
                )
        if group.member_of or group.forbidden_aggregates:
            self.unmodelled.append(
                f"{label} names aggregates (member_of), which the matcher has no data for"
            )

    def _groups_and_resources(self) -> None:
        request = self.request
        numbered = request.numbered
        if len(numbered) > 1 and request.group_policy is None:
            self.never.append(
                f"{len(numbered)} numbered request groups without group_policy: "
                "Placement answers 400"
            )
        if len(numbered) > 1 and request.group_policy == "isolate":
            self.never.append(
                f"group_policy=isolate with {len(numbered)} numbered request groups needs "
                "as many providers; a bare-metal node is one"
            )
        merged = request.merged_resources()
        if not merged:
            self.never.append("the request asks for no resource at all: Placement answers 400")
        own = placement_name(self.resource_class)
        for rc, amount in sorted(merged.items()):
            if rc != own:
                self.never.append(
                    f"asks for {rc}:{amount}; a bare-metal node's provider has only its "
                    f"resource class ({own}), total 1"
                )
            elif amount > 1:
                self.never.append(
                    f"asks for {rc}:{amount} in all; a bare-metal node's provider has total 1"
                )

    def _nova_traits(self) -> None:
        for trait in sorted(self.required & ironic_provider.ADDED):
            self.required.discard(trait)
        for trait in sorted(self.required & ironic_provider.REMOVED):
            self.never.append(
                f"requires {trait}, which Nova's ironic driver removes from every provider"
            )
        if ironic_provider.STATUS_DISABLED in self.required:
            self.never.append(
                f"requires {ironic_provider.STATUS_DISABLED}: only providers of a disabled "
                "compute service have it (the matcher takes every service as enabled)"
            )
        for trait in sorted(self.forbidden & ironic_provider.ADDED):
            self.never.append(f"forbids {trait}, which Nova sets on every provider")
        self.forbidden -= ironic_provider.REMOVED | {ironic_provider.STATUS_DISABLED}
        self.required -= ironic_provider.REMOVED | {ironic_provider.STATUS_DISABLED}

    def _trait_names(self) -> None:
        named = self.required | self.forbidden | set().union(*self.any_of)
        for trait in sorted(named):
            if trait not in standard_traits() and not _CUSTOM_TRAIT.fullmatch(trait):
                self.never.append(
                    f"{trait!r} is neither a standard trait nor CUSTOM_[A-Z0-9_]+: "
                    "Placement has no such trait and answers 400"
                )


def unknown_forbidden(rule: FlavorRule, known: frozenset[str] | dict[str, int]) -> list[str]:
    """Custom traits the rule forbids, or lists among any-of choices, that no node has:
    Placement knows a custom trait only once a provider has had it, and answers 400 (no such
    trait) to a query naming another, whichever way it names it."""
    named = rule.forbidden.union(*rule.any_of)
    return sorted(t for t in named if t.startswith("CUSTOM_") and t not in known)
