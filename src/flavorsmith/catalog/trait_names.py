"""Declared traits across files (pure): a trait declared in two files, and, once a catalog
declares its custom traits (hardware/traits/), every custom trait a file names that is not
declared.

A custom trait is named in a flavor's traits list (without CUSTOM_), in a flavor's extra specs
(``trait:CUSTOM_X`` or ``traitN:CUSTOM_X``), in a trait rule's ``add``, as a deploy template's
name, in a runbook's ``traits`` and as the key an extra-spec definition validates
(``trait:CUSTOM_X``). A name that looks like a standard trait but is none is each file's own
check (``filechecks``): it is refused whatever the catalog declares."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from flavorsmith import traits
from flavorsmith.catalog.document import Document, FieldPath
from flavorsmith.catalog.model import Catalog
from flavorsmith.diagnostics import Diagnostic
from flavorsmith.did_you_mean import closest

DECLARATIONS = "hardware/traits/"


@dataclass(frozen=True)
class Named:
    """One place a file names a custom trait."""

    doc: Document
    path: FieldPath
    trait: str  # full name, CUSTOM_ included
    short: bool  # written without CUSTOM_ (a flavor's traits list)
    at_key: bool  # the name is a mapping key (an extra spec)

    @property
    def written(self) -> str:
        return self.trait.removeprefix(traits.CUSTOM_PREFIX) if self.short else self.trait


def custom_names(catalog: Catalog) -> Iterator[Named]:
    """Every custom trait the flavors, trait rules, deploy templates, runbooks and extra-spec
    definitions name, where they name it. A flavor's trait written with CUSTOM_ or like a
    standard trait is left out: its own file's checks refuse it already."""
    for flavor in catalog.flavors:
        doc = flavor.doc
        if doc is None:
            continue
        for index, req in enumerate(flavor.traits):
            if req.trait.startswith(traits.CUSTOM_PREFIX) or traits.looks_standard(req.trait):
                continue
            yield Named(doc, ["traits", index, "trait"], req.full_name, True, False)
        for key, _ in flavor.extra_specs:
            match = traits.TRAIT_SPEC.fullmatch(key)
            if match is not None and match.group(2).startswith(traits.CUSTOM_PREFIX):
                yield Named(doc, ["extra_specs", key], match.group(2), False, True)
    for rule_set in catalog.trait_rules:
        if rule_set.doc is None:
            continue
        for index, rule in enumerate(rule_set.rules):
            for position, trait in enumerate(rule.add):
                if trait.startswith(traits.CUSTOM_PREFIX):
                    path: FieldPath = ["rules", index, "add", position]
                    yield Named(rule_set.doc, path, trait, False, False)
    for template in catalog.deploy_templates:
        if template.doc is not None and template.name.startswith(traits.CUSTOM_PREFIX):
            yield Named(template.doc, ["name"], template.name, False, False)
    for runbook in catalog.runbooks:
        if runbook.doc is None:
            continue
        for index, trait in enumerate(runbook.traits):
            if trait.startswith(traits.CUSTOM_PREFIX):
                yield Named(runbook.doc, ["traits", index], trait, False, False)
    for definitions in catalog.extra_specs:
        if definitions.doc is None:
            continue
        for index, spec in enumerate(definitions.data["validators"]):
            match = traits.TRAIT_SPEC.fullmatch(spec["name"])
            if match is not None and match.group(2).startswith(traits.CUSTOM_PREFIX):
                at: FieldPath = ["validators", index, "name"]
                yield Named(definitions.doc, at, match.group(2), False, False)


def check(catalog: Catalog) -> list[Diagnostic]:
    """A trait declared twice across files; with declarations, every undeclared custom trait
    named, with the declared or rule-set trait most like it."""
    out = _declared_twice(catalog)
    declared = catalog.declared_traits
    if not declared:
        return out  # no declarations: trait_use's warnings say what is unprovided
    by_rule = {
        trait
        for rule_set in catalog.trait_rules
        for rule in rule_set.rules
        for trait in rule.add
        if trait.startswith(traits.CUSTOM_PREFIX)
    }
    for named in custom_names(catalog):
        if named.trait in declared:
            continue
        known = (set(declared) | by_rule) - {named.trait}
        shown = {_written(t, named.short): t for t in sorted(known)}
        best = closest(named.written, shown)
        hint = f" (did you mean {best!r}?)" if best is not None else ""
        what = f"{named.written} ({named.trait})" if named.short else named.trait
        out.append(
            named.doc.diagnostic(
                named.path,
                f"{what} is not declared: this catalog declares its custom traits under "
                f"{DECLARATIONS}, and every custom trait its files name must be one of them"
                f"{hint}",
                code="trait-undeclared",
                at_key=named.at_key,
            )
        )
    return out


def _written(trait: str, short: bool) -> str:
    return trait.removeprefix(traits.CUSTOM_PREFIX) if short else trait


def _declared_twice(catalog: Catalog) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    first: dict[str, tuple[Document, int]] = {}
    for trait_set in catalog.trait_sets:
        doc = trait_set.doc
        if doc is None:
            continue
        for index, declaration in enumerate(trait_set.traits):
            earlier = first.get(declaration.name)
            if earlier is None:
                first[declaration.name] = (doc, index)
            elif earlier[0] is not doc:
                where = f"{earlier[0].display}:{earlier[0].position(['traits', earlier[1]])[0]}"
                out.append(
                    doc.diagnostic(
                        ["traits", index, "name"],
                        f"{declaration.name} is already declared at {where}; each trait is "
                        "declared once",
                        code="trait-declared-twice",
                    )
                )
    return out
