"""Checks across catalog files: names, resource classes and trait sets that must agree."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from flavorsmith import traits
from flavorsmith.catalog import trait_names
from flavorsmith.catalog.document import Document
from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.catalog.model import (
    Catalog,
    DeployTemplateDef,
    DeviceType,
    ExtraSpecSet,
    Flavor,
    LoadBalancerProfileDef,
    LoadBalancerProviderDef,
    NetworkFlavorDef,
    RunbookDef,
    TraitRuleSet,
)
from flavorsmith.diagnostics import Diagnostic, Severity
from flavorsmith.did_you_mean import closest, did_you_mean
from flavorsmith.resource_classes import placement_name

W = Severity.WARNING


def _where(doc: Document | None, path: list[str | int]) -> str:
    if doc is None:
        return "elsewhere"
    return f"{doc.display}:{doc.position(path)[0]}"


class _InFile(Protocol):
    """A definition read from a catalog file (``doc``: the file, None when built in code)."""

    @property
    def doc(self) -> Document | None: ...


D = TypeVar("D", bound=_InFile)


def _first_of_each(
    items: Iterable[D], key: Callable[[D], str], at: str, said: Callable[[str, str], str]
) -> tuple[dict[str, D], list[Diagnostic]]:
    """The first definition of each ``key`` and a ``duplicate-name`` error at field ``at`` of
    every later one; ``said(name, where_first)`` words it (what keeps one of each, and where)."""
    first: dict[str, D] = {}
    out: list[Diagnostic] = []
    for item in items:
        name = key(item)
        earlier = first.setdefault(name, item)
        if earlier is not item and item.doc is not None:
            where = _where(earlier.doc, [at])
            out.append(item.doc.diagnostic([at], said(name, where), code="duplicate-name"))
    return first, out


def across_files(
    catalog: Catalog,
    rules: CatalogRules,
    *,
    unchecked_resource_classes: frozenset[str] = frozenset(),
) -> list[Diagnostic]:
    """Every check across files, in order: device types and flavors, trait-rule prefixes,
    extra specs, deploy templates, runbooks, load-balancer flavors, network flavors, declared
    traits (see each)."""
    return [
        *check_catalog(
            catalog.device_types,
            catalog.flavors,
            unchecked_resource_classes=unchecked_resource_classes,
        ),
        *check_trait_rule_sets(catalog.trait_rules),
        *check_extra_specs(catalog.flavors, catalog.extra_specs, rules),
        *check_deploy_templates(catalog.flavors, catalog.deploy_templates),
        *check_runbooks(catalog.runbooks),
        *check_load_balancer(catalog.load_balancer_profiles, catalog.load_balancer_providers),
        *check_network_flavors(catalog.network_flavors),
        *trait_names.check(catalog),
    ]


def check_catalog(
    device_types: Sequence[DeviceType],
    flavors: Sequence[Flavor],
    *,
    unchecked_resource_classes: frozenset[str] = frozenset(),
) -> list[Diagnostic]:
    """Diagnostics across files. A later definition is reported against an earlier one.

    ``unchecked_resource_classes`` are names from device-type files that have errors of their
    own: flavors using them are not reported again as using an undefined resource class.
    """
    return [
        *_check_resource_classes(device_types),
        *_check_flavors(device_types, flavors, unchecked_resource_classes),
    ]


def _check_resource_classes(device_types: Sequence[DeviceType]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    by_name: dict[str, tuple[DeviceType, int]] = {}
    by_placement: dict[str, tuple[DeviceType, int]] = {}
    for device_type in device_types:
        doc = device_type.doc
        if doc is None:
            continue
        for index, rc in enumerate(device_type.resource_classes):
            at: list[str | int] = ["resource_class", index, "name"]
            if rc.name in by_name:
                first, first_index = by_name[rc.name]
                where = _where(first.doc, ["resource_class", first_index, "name"])
                out.append(
                    doc.diagnostic(
                        at,
                        f"resource class {rc.name!r} is already defined at {where}; "
                        "each resource class belongs to exactly one device type",
                        code="resource-class-duplicate",
                    )
                )
                continue
            by_name[rc.name] = (device_type, index)
            if rc.placement_name in by_placement:
                first, first_index = by_placement[rc.placement_name]
                other = first.resource_classes[first_index].name
                where = _where(first.doc, ["resource_class", first_index, "name"])
                out.append(
                    doc.diagnostic(
                        at,
                        f"resource class {rc.name!r} and {other!r} ({where}) are both "
                        f"{rc.placement_name} to Placement; rename one",
                        code="resource-class-collision",
                    )
                )
                continue
            by_placement[rc.placement_name] = (device_type, index)
    return out


def _check_flavors(
    device_types: Sequence[DeviceType], flavors: Sequence[Flavor], unchecked: frozenset[str]
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    names = {rc.name: rc.placement_name for dt in device_types for rc in dt.resource_classes}
    placement_to_name: dict[str, list[str]] = {}
    for name, placement in names.items():
        placement_to_name.setdefault(placement, []).append(name)
    first_by_name: dict[str, Flavor] = {}
    first_by_selection: dict[tuple[object, ...], Flavor] = {}
    for flavor in flavors:
        doc = flavor.doc
        if doc is None:
            continue
        if flavor.name in first_by_name:
            where = _where(first_by_name[flavor.name].doc, ["name"])
            out.append(
                doc.diagnostic(
                    ["name"],
                    f"flavor {flavor.name!r} is already defined at {where}",
                    code="flavor-duplicate",
                )
            )
            continue
        first_by_name[flavor.name] = flavor
        if flavor.resource_class not in unchecked:
            out.extend(_check_flavor_resource_class(doc, flavor, names, placement_to_name))
        placement = names.get(flavor.resource_class) or placement_name(flavor.resource_class)
        # Same nodes and same audience: a private twin of a public flavor is a deliberate pool.
        selection = (
            placement,
            frozenset((t.full_name, t.state) for t in flavor.traits),
            flavor.is_public,
            frozenset(flavor.projects),
            frozenset(flavor.extra_specs),  # e.g. a UEFI twin is a different offer
        )
        if selection in first_by_selection:
            twin = first_by_selection[selection]
            out.append(
                doc.diagnostic(
                    ["name"],
                    f"flavor {flavor.name!r} selects exactly the nodes of {twin.name!r} "
                    f"({_where(twin.doc, ['name'])}): same resource class and traits",
                    severity=W,
                    code="flavor-same-selection",
                )
            )
        else:
            first_by_selection[selection] = flavor
    return out


def _check_flavor_resource_class(
    doc: Document,
    flavor: Flavor,
    names: dict[str, str],
    placement_to_name: dict[str, list[str]],
) -> list[Diagnostic]:
    rc = flavor.resource_class
    if rc in names:
        return []
    same = placement_to_name.get(placement_name(rc), [])
    if len(same) == 1:
        return [
            doc.diagnostic(
                ["resource_class"],
                f"{rc!r} is written differently from the device type's {same[0]!r}; both are "
                f"{placement_name(rc)} to Placement, but write {same[0]!r}",
                severity=W,
                code="resource-class-spelling",
            )
        ]
    match = closest(rc, names)
    hint = f" (did you mean {match!r}?)" if match else ""
    known = ", ".join(sorted(names)) or "none"
    return [
        doc.diagnostic(
            ["resource_class"],
            f"resource class {rc!r} is not defined by any device type{hint}; defined: {known}",
            code="resource-class-undefined",
        )
    ]


def check_trait_rule_sets(rule_sets: Sequence[TraitRuleSet]) -> list[Diagnostic]:
    """Each trait prefix has one owner: overlapping prefixes would fight over traits."""
    out: list[Diagnostic] = []
    seen: list[TraitRuleSet] = []
    for rule_set in rule_sets:
        doc = rule_set.doc
        if doc is None:
            continue
        for other in seen:
            if rule_set.prefix.startswith(other.prefix) or other.prefix.startswith(rule_set.prefix):
                out.append(
                    doc.diagnostic(
                        ["prefix"],
                        f"prefix {rule_set.prefix} overlaps {other.prefix} of trait rules "
                        f"{other.name!r} ({_where(other.doc, ['prefix'])}); "
                        "each trait has one owner",
                        code="trait-rule-prefix-overlap",
                    )
                )
                break
        else:
            seen.append(rule_set)
    return out


def derived_keys(flavor: Flavor) -> set[str]:
    """The extra specs the derivation writes for ``flavor`` (a catalog may not set them)."""
    keys = {
        f"resources:{placement_name(flavor.resource_class)}",
        "resources:VCPU",
        "resources:MEMORY_MB",
        "resources:DISK_GB",
        "flavorsmith:managed",
    }
    return keys | {f"trait:{t.full_name}" for t in flavor.traits}


def check_extra_specs(
    flavors: Sequence[Flavor], definition_sets: Sequence[ExtraSpecSet], rules: CatalogRules
) -> list[Diagnostic]:
    """Definition files that clash with registered keys, and every flavor's extra specs checked
    in strict mode against the registry those files complete."""
    extra_specs = rules.extra_specs(definition_sets)
    out: list[Diagnostic] = []
    for definition_set in definition_sets:
        doc = definition_set.doc
        if doc is None:
            continue
        names = extra_specs.refused_definitions(doc.display)
        for index, spec in enumerate(definition_set.data["validators"]):
            if spec["name"] in names:
                out.append(
                    doc.diagnostic(
                        ["validators", index, "name"],
                        f"{spec['name']} is already defined (built-in, plugin or another file); "
                        "the first definition stays",
                        code="extra-spec-clash",
                    )
                )
    for flavor in flavors:
        doc = flavor.doc
        if doc is None:
            continue
        reserved = derived_keys(flavor)
        settable = [(k, v) for k, v in flavor.extra_specs if not _reserved(k, reserved)]
        found = {problem.key: problem for problem in extra_specs.problems(settable)}
        for key, _ in flavor.extra_specs:
            at: list[str | int] = ["extra_specs", key]
            problem = found.get(key)
            if _reserved(key, reserved):
                out.append(
                    doc.diagnostic(
                        at,
                        f"{key} is derived from the catalog (resource class, traits, ownership); "
                        "it cannot be set by hand",
                        code="extra-spec-reserved",
                        at_key=True,
                    )
                )
            elif problem is not None and problem.refused:
                out.append(
                    doc.diagnostic(
                        at,
                        problem.message.removeprefix(f"{key}: "),
                        code=f"extra-spec-{problem.status}",
                        at_key=problem.status != "invalid-value",
                    )
                )
            elif problem is not None and problem.deprecated:
                out.append(
                    doc.diagnostic(
                        at,
                        f"{key} is deprecated: use {problem.deprecated}",
                        severity=W,
                        code="extra-spec-deprecated",
                    )
                )
    return out


def _reserved(key: str, reserved: set[str]) -> bool:
    return key in reserved or key.startswith("resources:")


# A flavor requiring a trait named like a deploy template with no template behind it
# configures nothing.
TEMPLATE_TRAIT_PREFIX = traits.TEMPLATE_TRAIT_PREFIX


def check_deploy_templates(
    flavors: Sequence[Flavor], templates: Sequence[DeployTemplateDef]
) -> list[Diagnostic]:
    """Templates against each other and against the flavors that request them."""
    by_name, out = _first_of_each(
        templates,
        lambda template: template.name,
        "name",
        lambda name, where: (
            f"deploy template {name} is already defined at {where}: "
            "Ironic keeps one template per trait"
        ),
    )
    requested: set[str] = set()
    for flavor in flavors:
        owners: dict[tuple[str, str], str] = {}
        for index, req in enumerate(flavor.traits):
            if req.state != "required":
                continue
            wanted = by_name.get(req.full_name)
            if wanted is None:
                if req.full_name.startswith(TEMPLATE_TRAIT_PREFIX) and flavor.doc is not None:
                    out.append(
                        flavor.doc.diagnostic(
                            ["traits", index, "trait"],
                            f"{req.full_name} is named like a deploy template but no "
                            "hardware/deploy-templates/ file defines it: Ironic will configure "
                            "nothing for it",
                            severity=W,
                            code="deploy-template-missing",
                        )
                    )
                continue
            requested.add(wanted.name)
            for step in wanted.steps:
                key = (step["interface"], step["step"])
                other = owners.setdefault(key, wanted.name)
                if other != wanted.name and flavor.doc is not None:
                    out.append(
                        flavor.doc.diagnostic(
                            ["traits", index, "trait"],
                            f"deploy templates {other} and {wanted.name} both request "
                            f"{key[0]}.{key[1]}: Ironic refuses to deploy this flavor",
                            code="deploy-template-conflict",
                        )
                    )
    for template in by_name.values():
        if template.name not in requested and template.doc is not None:
            out.append(
                template.doc.diagnostic(
                    ["name"],
                    f"no flavor requires the trait {template.name}, so Nova never asks for "
                    "this template (add it to a flavor's traits as required)",
                    severity=W,
                    code="deploy-template-unused",
                )
            )
    return out


def check_runbooks(runbooks: Sequence[RunbookDef]) -> list[Diagnostic]:
    """Each runbook name once (Ironic keeps one runbook per name)."""
    _first, out = _first_of_each(
        runbooks,
        lambda runbook: runbook.name,
        "name",
        lambda name, where: (
            f"runbook {name} is already defined at {where}: Ironic keeps one runbook per name"
        ),
    )
    return out


PROVIDERS_FOLDER = "load-balancer-providers"


def check_load_balancer(
    profiles: Sequence[LoadBalancerProfileDef], providers: Sequence[LoadBalancerProviderDef]
) -> list[Diagnostic]:
    """Each provider's capabilities saved once; each profile's provider enabled (it has a
    capabilities file) and its flavor data only that provider's capabilities; each profile
    and each load-balancer flavor named once across files."""
    enabled, out = _first_of_each(
        providers,
        lambda provider: provider.provider,
        "provider",
        lambda name, where: f"the capabilities of provider {name} are already saved at {where}",
    )
    names = sorted(enabled)
    _profiles, twice = _first_of_each(
        profiles,
        lambda profile: profile.name,
        "name",
        lambda name, where: f"load-balancer flavor profile {name} is already defined at {where}",
    )
    out += twice
    flavors_at: dict[str, tuple[LoadBalancerProfileDef, int]] = {}
    for profile in profiles:
        doc = profile.doc
        if doc is None:
            continue
        for index, flavor in enumerate(profile.flavors):
            seen = flavors_at.setdefault(flavor.name, (profile, index))
            if seen[0] is not profile:
                out.append(
                    doc.diagnostic(
                        ["flavors", index, "name"],
                        f"load-balancer flavor {flavor.name} is already defined at "
                        f"{_where(seen[0].doc, ['flavors', seen[1], 'name'])}: Octavia keeps "
                        "one flavor per name",
                        code="duplicate-name",
                    )
                )
        found = enabled.get(profile.provider)
        if found is None:
            out.append(
                doc.diagnostic(
                    ["provider"],
                    f"provider {profile.provider!r} is not enabled: there is no "
                    f"{PROVIDERS_FOLDER}/{profile.provider}.yaml with its flavor capabilities; "
                    f"enabled: {', '.join(names) or 'none'}"
                    f"{did_you_mean(profile.provider, names)} (save Octavia's answer to GET "
                    f"/v2/lbaas/providers/{profile.provider}/flavor_capabilities there)",
                    code="load-balancer-provider-not-enabled",
                )
            )
            continue
        allowed = found.capability_names
        saved = found.doc.display if found.doc is not None else "its capabilities file"
        for key in profile.flavor_data:
            if key not in allowed:
                out.append(
                    doc.diagnostic(
                        ["flavor_data", key],
                        f"{key!r} is not a flavor capability of provider {found.provider} "
                        f"(as saved in {saved}); "
                        f"allowed: {', '.join(allowed) or 'none'}{did_you_mean(key, allowed)}",
                        code="load-balancer-unknown-capability",
                        at_key=True,
                    )
                )
    return out


def check_network_flavors(flavors: Sequence[NetworkFlavorDef]) -> list[Diagnostic]:
    """Each network flavor named once across files: Neutron would hold two flavors of one
    name, and ``openstack router create --flavor NAME`` could not tell them apart."""
    _first, out = _first_of_each(
        flavors,
        lambda flavor: flavor.name,
        "name",
        lambda name, where: (
            f"network flavor {name} is already defined at {where}: Neutron would hold two "
            "flavors of this name, and a router created --flavor NAME could not say which"
        ),
    )
    return out
