"""Traits as the catalog uses them: who sets each one, which flavors require or forbid it, and
the required traits nothing provides (pure).

A trait is *provided* when a trait-rule file adds it, a deploy template is named after it, Nova
sets it on the node's resource provider itself (``traits.NOVA_IRONIC_TRAITS``), or, when the
nodes are known, some node has it ("by hand" when nothing else sets it). A flavor mentions a
trait in its ``traits`` list (a CUSTOM_ trait, written without the prefix) or in its extra
specs (``trait:NAME`` or a granular ``traitN:NAME``, ``required`` or ``forbidden``: the way a
standard trait is asked for)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from flavorsmith import traits
from flavorsmith.catalog.document import Document, FieldPath
from flavorsmith.catalog.model import OUTSIDE_SETTERS, Catalog, Flavor
from flavorsmith.diagnostics import Diagnostic, Severity
from flavorsmith.did_you_mean import closest

TRAIT_SPEC = traits.TRAIT_SPEC

BY_HAND = "by hand"
DEPLOY_TEMPLATE = "deploy template"
NOVA = "Nova"

State = Literal["required", "forbidden"]


@dataclass(frozen=True)
class Mention:
    """One place a flavor file asks for a trait."""

    trait: str  # full name, as Placement sees it
    state: State
    path: FieldPath  # where in the flavor's file
    written: str  # as the file writes it
    in_extra_specs: bool


def mentions(flavor: Flavor) -> Iterator[Mention]:
    """Every trait ``flavor`` requires or forbids, from its traits list and its extra specs."""
    for index, req in enumerate(flavor.traits):
        yield Mention(
            req.full_name,
            "required" if req.state == "required" else "forbidden",
            ["traits", index, "trait"],
            req.trait,
            False,
        )
    for key, value in flavor.extra_specs:
        match = TRAIT_SPEC.fullmatch(key)
        if match is None or value not in ("required", "forbidden"):
            continue
        state: State = "required" if value == "required" else "forbidden"
        yield Mention(match.group(2), state, ["extra_specs", key], match.group(2), True)


@dataclass(frozen=True)
class KnownNodes:
    """What the nodes say about traits: how many nodes there are and how many have each trait."""

    total: int
    with_trait: Mapping[str, int]


def setters(catalog: Catalog) -> dict[str, list[str]]:
    """Trait -> who sets it in the catalog: trait-rule files (``trait-rules/<file>``), a deploy
    template, Nova."""
    out: dict[str, list[str]] = {}
    for rule_set in catalog.trait_rules:
        where = f"trait-rules/{_file_name(rule_set.doc, rule_set.canonical_file)}"
        for rule in rule_set.rules:
            for trait in rule.add:
                if where not in out.setdefault(trait, []):
                    out[trait].append(where)
    for template in catalog.deploy_templates:
        out.setdefault(template.name, []).append(DEPLOY_TEMPLATE)
    for trait in traits.NOVA_IRONIC_TRAITS:
        out.setdefault(trait, []).append(NOVA)
    return out


@dataclass(frozen=True)
class Owner:
    """Who decides one trait a node has: the trait-rule file whose prefix covers it (its
    classification sets or removes it), Nova, or nobody ("by hand": an operator or another
    tool set it, and classification keeps it); and the rules that add it."""

    trait: str
    owner: str  # "trait-rules/<file>", "Nova" or "by hand"
    rules: tuple[str, ...]  # the owning file's rules that add the trait

    def as_dict(self) -> dict[str, Any]:
        return {"trait": self.trait, "owner": self.owner, "rules": list(self.rules)}


def owners(catalog: Catalog, node_traits: Iterable[str]) -> list[Owner]:
    """The owner of each of a node's traits, in the order given. A trait-rule file owns the
    traits under its prefix (``TraitRuleSet.owns``) even when none of its rules adds this one:
    the next classification then removes it. A deploy template names a trait, it does not put
    it on a node: such a trait is set by hand (as in ``uses``)."""
    out = []
    for trait in node_traits:
        owner = BY_HAND
        rules: tuple[str, ...] = ()
        for rule_set in catalog.trait_rules:
            if rule_set.owns(trait):
                owner = f"trait-rules/{_file_name(rule_set.doc, rule_set.canonical_file)}"
                rules = tuple(r.name for r in rule_set.rules if trait in r.add)
                break
        else:
            if trait in traits.NOVA_IRONIC_TRAITS:
                owner = NOVA
        out.append(Owner(trait, owner, rules))
    return out


def _file_name(doc: Document | None, fallback: str) -> str:
    if doc is None:
        return fallback
    return doc.display.replace("\\", "/").rsplit("/", 1)[-1]


NOTHING_SETS = "nothing sets it"
NOTHING_USES = "nothing uses it"
NOT_DECLARED = "not declared"


@dataclass(frozen=True)
class TraitUse:
    trait: str
    set_by: tuple[str, ...]  # trait-rule files, "deploy template", "Nova", "by hand", declared
    nodes: int | None  # nodes that have it (None: the nodes are not known)
    required_by: tuple[str, ...]
    forbidden_by: tuple[str, ...]
    description: str | None = None  # its declaration's
    notes: tuple[str, ...] = ()  # NOTHING_SETS, NOTHING_USES, NOT_DECLARED

    def as_dict(self) -> dict[str, Any]:
        return {
            "trait": self.trait,
            "set_by": list(self.set_by),
            "nodes": self.nodes,
            "required_by": list(self.required_by),
            "forbidden_by": list(self.forbidden_by),
            "description": self.description,
            "notes": list(self.notes),
        }


def uses(catalog: Catalog, nodes: KnownNodes | None = None) -> list[TraitUse]:
    """Every trait the catalog mentions (flavors, trait rules, deploy templates, runbooks) or
    declares, by name, with who sets it and the flavors that require or forbid it. With the
    nodes, a trait that nodes have and no trait rule (nor Nova) sets is set "by hand": a
    deploy template names a trait, it does not put it on nodes.

    A declared trait shows its description and, when an operator, the inspection hook or an
    external tool sets it, that setter; its notes say when nothing sets it (no trait rule or
    deploy template of the catalog, and no known node, for one declared as set by them) and
    when nothing uses it (no flavor requires or forbids it, and no runbook names it). In a
    catalog that declares its traits, a custom trait named but not declared is noted so."""
    by_catalog = setters(catalog)
    declared = catalog.declared_traits
    required: dict[str, set[str]] = {}
    forbidden: dict[str, set[str]] = {}
    for flavor in catalog.flavors:
        for mention in mentions(flavor):
            side = required if mention.state == "required" else forbidden
            side.setdefault(mention.trait, set()).add(flavor.name)
    by_runbooks = {t for runbook in catalog.runbooks for t in runbook.traits}
    named = {t for t, who in by_catalog.items() if who != [NOVA]} | set(required) | set(forbidden)
    named |= by_runbooks
    out = []
    for trait in sorted(named | set(declared)):
        who = list(by_catalog.get(trait, []))
        count = None if nodes is None else nodes.with_trait.get(trait, 0)
        if count and all(w == DEPLOY_TEMPLATE for w in who):
            who.append(BY_HAND)  # a deploy template puts no trait on a node either
        declaration = declared.get(trait)
        notes: list[str] = []
        if declaration is not None:
            if declaration.set_by in OUTSIDE_SETTERS:
                who.append(declaration.setter)
            elif not who and not count:
                notes.append(NOTHING_SETS)
            if trait not in required and trait not in forbidden and trait not in by_runbooks:
                notes.append(NOTHING_USES)
        elif declared and _custom(trait):
            notes.append(NOT_DECLARED)
        out.append(
            TraitUse(
                trait,
                tuple(who),
                count,
                tuple(sorted(required.get(trait, ()))),
                tuple(sorted(forbidden.get(trait, ()))),
                declaration.description if declaration is not None else None,
                tuple(notes),
            )
        )
    return out


def check_unprovided(catalog: Catalog, nodes: KnownNodes | None = None) -> list[Diagnostic]:
    """A warning for each trait a flavor requires that nothing provides: no trait rule adds it,
    no deploy template is named after it, Nova does not set it and no known node has it.

    Without the nodes, a catalog without trait rules says nothing about who sets traits (they
    are all set by hand, or by another tool): then nothing is reported. A standard trait is
    checked like any other: one that nothing sets is on no node. A trait named like a deploy
    template (CUSTOM_BM_CONFIG_...) without one is left to ``checks.check_deploy_templates``.
    A declared trait that an operator, the inspection hook or an external tool sets is
    provided; an undeclared one, in a catalog that declares its traits, is an error of
    ``trait_names`` instead."""
    if nodes is None and not catalog.trait_rules:
        return []
    declared = catalog.declared_traits
    provided = set(setters(catalog))
    provided |= {t for t, d in declared.items() if d.set_by in OUTSIDE_SETTERS}
    if nodes is not None:
        provided |= {t for t, n in nodes.with_trait.items() if n}
    out: list[Diagnostic] = []
    for flavor in catalog.flavors:
        doc = flavor.doc
        if doc is None:
            continue
        for mention in mentions(flavor):
            if mention.state != "required" or mention.trait in provided:
                continue
            if declared and _custom(mention.trait) and mention.trait not in declared:
                continue  # trait_names refuses it: not declared
            if not mention.in_extra_specs and traits.looks_standard(mention.written):
                continue  # the flavor's own checks refuse it: like a standard trait's name
            if (
                mention.trait.startswith(traits.TEMPLATE_TRAIT_PREFIX)
                and not mention.in_extra_specs
            ):
                continue  # check_deploy_templates says no template defines it
            if nodes is None:
                why = (
                    "no trait rule adds it and no deploy template is named after it, so no node "
                    "has it unless it is set by hand (validate --database checks the nodes)"
                )
            else:
                why = (
                    "no trait rule adds it, no deploy template is named after it and none of "
                    f"the {nodes.total} known nodes has it: the flavor matches no node"
                )
            out.append(
                doc.diagnostic(
                    mention.path,
                    f"{mention.trait} is required but nothing provides it: {why}"
                    f"{_nearest(mention, provided)}",
                    severity=Severity.WARNING,
                    code="trait-not-provided",
                    at_key=mention.in_extra_specs,
                )
            )
    return out


def check_runbooks(catalog: Catalog, nodes: KnownNodes | None = None) -> list[Diagnostic]:
    """A warning for each runbook no node may run: none of its traits is added by a trait rule,
    set by Nova or by a declared outside setter (an operator, the inspection hook, a tool), nor,
    when the nodes are known, on any of them. Ironic lets a node run a runbook only when the
    node has one of the runbook's traits. As in :func:`check_unprovided`, a catalog without
    trait rules says nothing about who sets traits unless the nodes are known."""
    if nodes is None and not catalog.trait_rules:
        return []
    setters_of = setters(catalog)
    provided = {t for t, who in setters_of.items() if any(w != DEPLOY_TEMPLATE for w in who)} | {
        t for t, d in catalog.declared_traits.items() if d.set_by in OUTSIDE_SETTERS
    }
    if nodes is not None:
        provided |= {t for t, n in nodes.with_trait.items() if n}
    out: list[Diagnostic] = []
    for runbook in catalog.runbooks:
        if runbook.doc is None or provided & set(runbook.traits):
            continue
        on_nodes = (
            "and no node has them"
            if nodes is None
            else f"and none of the {nodes.total} known nodes has one"
        )
        out.append(
            runbook.doc.diagnostic(
                ["traits"],
                f"no node may run runbook {runbook.name}: no trait rule sets its traits "
                f"({', '.join(runbook.traits)}) {on_nodes} unless they are set by hand "
                "(a node needs one of them)",
                severity=Severity.WARNING,
                code="runbook-unreachable",
            )
        )
    return out


def _custom(trait: str) -> bool:
    return trait.startswith(traits.CUSTOM_PREFIX)


def _nearest(mention: Mention, provided: set[str]) -> str:
    """`` (did you mean 'X'?)``: the provided trait closest to the one asked for, written the
    way the flavor's file would write it."""
    shown: dict[str, str] = {}
    for trait in sorted(provided):
        if trait.startswith(traits.CUSTOM_PREFIX) and not mention.in_extra_specs:
            shown[trait.removeprefix(traits.CUSTOM_PREFIX)] = trait.removeprefix(
                traits.CUSTOM_PREFIX
            )
        else:
            shown[trait] = trait if mention.in_extra_specs else f"extra_specs trait:{trait}"
    best = closest(mention.written, shown)
    if best is not None:
        return f" (did you mean {shown[best]!r}?)"
    words = set(_words(mention.written))
    containing = [k for k in shown if words and words <= set(_words(k))][:2]
    if not containing:
        return ""
    return " (did you mean " + " or ".join(repr(shown[k]) for k in containing) + "?)"


def _words(name: str) -> list[str]:
    return [w for w in name.removeprefix(traits.CUSTOM_PREFIX).split("_") if w]
