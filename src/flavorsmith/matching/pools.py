"""Dedicated pools that leak: a private flavor's nodes that a flavor other projects use can
also land on (pure).

A *pool* is a private flavor with an access list (``is_public: false`` and ``projects``): the
nodes it matches are meant for those projects. Another flavor *reaches* the pool when it can
land on some of those nodes and other projects may use it: a public flavor, or a private one
whose access list holds a project the pool's does not. (A private flavor without projects is
for admins only: it is neither a pool nor a way in.)

With the nodes (an :class:`Index`), a leak is an actual overlap of the two flavors' node sets,
counted. Without them the check is static: same Placement resource class, and neither flavor
forbids a trait the other requires, so nothing keeps the other flavor off the pool's nodes; such
a finding says "can reach" and counts nothing.

The fix named is the trait to mark ``absent`` in the reaching flavor: one the pool's flavor
requires (so every node of the pool has it) that the reaching flavor neither requires nor
forbids already, CUSTOM_ traits first, then the one that takes the fewest other nodes from the
reaching flavor (a trait only the pool's nodes carry takes none), then by name. When there is no
such trait, the pool needs a trait of its own. Nova's isolated aggregates close a leak too:
``isolated`` names the traits the operator sets as ``trait:NAME=required`` on aggregates with
``[scheduler]enable_isolated_aggregate_filtering``; a flavor that does not require such a trait
cannot land on the aggregate's hosts, assumed here to be the nodes that have the trait.

``leaks`` is the one entry point; ``validate``, ``capacity`` and ``verify`` call it."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from flavorsmith.catalog.model import Flavor
from flavorsmith.diagnostics import Diagnostic, Severity
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index
from flavorsmith.traits import CUSTOM_PREFIX

ISOLATED_AGGREGATES = "[scheduler]enable_isolated_aggregate_filtering"


@dataclass(frozen=True)
class Leak:
    pool: str  # the private flavor
    reached_by: str  # the flavor that reaches its nodes
    audience: str  # who uses that flavor: "public", or the projects outside the pool's list
    nodes: int | None  # pool nodes it can land on (None: checked without nodes)
    pool_nodes: int | None  # nodes of the pool
    close_with: str | None  # the trait to mark absent in ``reached_by`` (full name)
    costs: int | None  # other nodes marking it absent takes from ``reached_by``

    @property
    def static(self) -> bool:
        return self.nodes is None

    def summary(self) -> str:
        """One line: who reaches which pool, and how much of it."""
        who = f"{self.reached_by!r} ({self.audience})"
        if self.nodes is None:
            return (
                f"{who} can reach the nodes of private flavor {self.pool!r}: same resource "
                "class, and no trait one requires is forbidden by the other (checked without "
                "nodes)"
            )
        return f"{who} reaches {self.nodes} of the {self.pool_nodes} nodes of {self.pool!r}"

    def fixes(self) -> tuple[str, str]:
        """What to change, in the catalog's words; then Nova's alternative."""
        if self.close_with is None:
            trait = f"CUSTOM_POOL_{_marker(self.pool)}"
            first = (
                f"give the pool's nodes a trait of their own (e.g. {trait}), require it in "
                f"{self.pool!r} and mark it absent in {self.reached_by!r}"
            )
        elif self.close_with.startswith(CUSTOM_PREFIX):
            trait = self.close_with
            short = trait.removeprefix(CUSTOM_PREFIX)
            first = f"mark {short} absent in {self.reached_by!r} (trait: {short}, state: absent)"
        else:
            trait = self.close_with
            first = f"forbid {trait} in {self.reached_by!r} (extra_specs trait:{trait}: forbidden)"
        if self.costs:
            first += f", which also takes {self.costs} other nodes from it"
        return first, (
            f"put the pool's nodes in a Nova aggregate with trait:{trait}=required "
            f"and set {ISOLATED_AGGREGATES}"
        )

    def fix(self) -> str:
        first, alternative = self.fixes()
        return f"{first}; or {alternative}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "reached_by": self.reached_by,
            "audience": self.audience,
            "nodes": self.nodes,
            "pool_nodes": self.pool_nodes,
            "close_with": self.close_with,
            "costs": self.costs,
            "summary": self.summary(),
            "fix": self.fix(),
        }


def is_pool(flavor: Flavor) -> bool:
    """A private flavor with an access list: its nodes are meant for those projects."""
    return not flavor.is_public and bool(flavor.projects)


def outsiders(pool: Flavor, other: Flavor) -> str | None:
    """Who may use ``other`` without being in ``pool``'s access list: "public", the projects
    (comma-separated), or None when nobody."""
    if other.is_public:
        return "public"
    extra = sorted(set(other.projects) - set(pool.projects))
    return f"projects {', '.join(extra)}" if extra else None


def leaks(
    flavors: Sequence[Flavor],
    index: Index | None = None,
    *,
    isolated: Collection[str] = (),
) -> list[Leak]:
    """Every (pool, flavor reaching it) pair, by pool then flavor name; with ``index`` the node
    counts, without it the static check (see the module's docstring)."""
    kept_off = frozenset(isolated)
    rules = {f.name: FlavorRule.of(f) for f in flavors}
    bits = {name: index.match(rule) for name, rule in rules.items()} if index else {}
    out: list[Leak] = []
    for pool in sorted(flavors, key=lambda f: f.name):
        if not is_pool(pool):
            continue
        p = rules[pool.name]
        for other in sorted(flavors, key=lambda f: f.name):
            audience = outsiders(pool, other) if other.name != pool.name else None
            if audience is None:
                continue
            q = rules[other.name]
            if (p.required & kept_off) - q.required:
                continue  # an isolated aggregate keeps it off the pool's nodes
            if index is None:
                if not _can_overlap(p, q):
                    continue
                overlap = None
            else:
                overlap = (bits[pool.name] & bits[other.name]).bit_count()
                if not overlap:
                    continue
            trait, costs = _closing_trait(p, q, index, bits)
            out.append(
                Leak(
                    pool=pool.name,
                    reached_by=other.name,
                    audience=audience,
                    nodes=overlap,
                    pool_nodes=bits[pool.name].bit_count() if index else None,
                    close_with=trait,
                    costs=costs,
                )
            )
    return out


def _can_overlap(p: FlavorRule, q: FlavorRule) -> bool:
    return (
        p.placement_class == q.placement_class
        and not p.required & q.forbidden
        and not q.required & p.forbidden
    )


def _closing_trait(
    p: FlavorRule, q: FlavorRule, index: Index | None, bits: dict[str, int]
) -> tuple[str | None, int | None]:
    """The trait to mark absent in ``q`` and how many of ``q``'s other nodes that costs."""
    candidates = sorted(p.required - q.required - q.forbidden)
    if not candidates:
        return None, None

    def cost(trait: str) -> int:
        if index is None:
            return 0
        return (bits[q.name] & index.by_trait.get(trait, 0) & ~bits[p.name]).bit_count()

    best = min(candidates, key=lambda t: (not t.startswith(CUSTOM_PREFIX), cost(t), t))
    return best, cost(best) if index is not None else None


def _marker(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.upper())


def diagnostics(flavors: Sequence[Flavor], found: Sequence[Leak]) -> list[Diagnostic]:
    """Each leak as a warning on the pool flavor's file, at its ``is_public``."""
    docs = {f.name: f.doc for f in flavors}
    out = []
    for leak in found:
        doc = docs.get(leak.pool)
        if doc is not None:
            out.append(
                doc.diagnostic(
                    ["is_public"],
                    f"pool leak: {leak.summary()}; fix: {leak.fix()}",
                    severity=Severity.WARNING,
                    code="pool-leak",
                )
            )
    return out
