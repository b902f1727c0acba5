"""Checks within one definition that JSON Schema cannot express."""

from __future__ import annotations

from flavorsmith import flavor_ids, traits
from flavorsmith.catalog.document import Document
from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.catalog.model import (
    DeployTemplateDef,
    DeviceType,
    ExtraSpecSet,
    Flavor,
    LoadBalancerProfileDef,
    LoadBalancerProviderDef,
    NetworkFlavorDef,
    ResourceClass,
    RunbookDef,
    TraitRuleSet,
    TraitSet,
)
from flavorsmith.cpu_brands import cores_per_socket
from flavorsmith.diagnostics import Diagnostic, Severity
from flavorsmith.resource_classes import IRONIC_MAX_LENGTH

W = Severity.WARNING


def check_flavor(doc: Document, flavor: Flavor) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if not flavor_ids.is_valid(flavor.name):
        suggestion = flavor_ids.suggest(flavor.name)
        hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
        out.append(
            doc.diagnostic(
                ["name"],
                f"{flavor.name!r} cannot be a Nova flavor id, which the name becomes: "
                f"allowed are {flavor_ids.RULE}{hint}",
                code="flavor-name-nova",
            )
        )
    seen: dict[str, int] = {}
    for index, req in enumerate(flavor.traits):
        at: list[str | int] = ["traits", index, "trait"]
        if req.trait.startswith(traits.CUSTOM_PREFIX):
            short = req.trait[len(traits.CUSTOM_PREFIX) :]
            out.append(
                doc.diagnostic(
                    at,
                    f"{req.trait!r} would be sent as {traits.full_name(req.trait)}: "
                    f"write {short}; CUSTOM_ is added for you",
                    code="trait-custom-prefix",
                )
            )
        elif len(req.full_name) > traits.MAX_TRAIT_LENGTH:
            out.append(
                doc.diagnostic(
                    at,
                    f"{req.full_name} is {len(req.full_name)} characters; "
                    f"Ironic and Placement allow at most {traits.MAX_TRAIT_LENGTH}",
                    code="trait-too-long",
                )
            )
        elif traits.looks_standard(req.trait):
            out.append(
                doc.diagnostic(
                    at,
                    f"{traits.lookalike_message(req.trait)}; the traits list asks for CUSTOM_ "
                    "traits: ask for a standard trait in extra_specs (trait:"
                    f"{(traits.nearest_standard(req.trait) or ['NAME'])[0]}: required), and for "
                    f"this name as a custom trait there too (trait:{req.full_name}: required)",
                    code="trait-standard-lookalike",
                )
            )
        elif req.trait in traits.standard_traits():
            out.append(
                doc.diagnostic(
                    at,
                    f"{req.trait} is a standard os-traits name, but catalog traits are custom: "
                    f"this flavor matches nodes on {req.full_name}, not {req.trait}",
                    severity=W,
                    code="trait-standard-name",
                )
            )
        if req.trait in seen:
            first = flavor.traits[seen[req.trait]]
            line = doc.position(["traits", seen[req.trait], "trait"])[0]
            if first.state == req.state:
                message = f"{req.trait} is listed twice (first at line {line})"
                code = "trait-duplicate"
            else:
                message = f"{req.trait} is both {first.state} (line {line}) and {req.state}"
                code = "trait-conflict"
            out.append(doc.diagnostic(at, message, code=code))
        else:
            seen[req.trait] = index
    if flavor.projects and flavor.is_public:
        out.append(
            doc.diagnostic(
                ["projects"],
                "projects only apply to a private flavor: set is_public: false, or remove projects",
                code="projects-on-public",
            )
        )
    if not flavor.is_public and not flavor.projects:
        out.append(
            doc.diagnostic(
                ["is_public"],
                "a private flavor without projects can be used by admins only",
                severity=W,
                code="private-without-projects",
            )
        )
    return out


def check_device_type(doc: Document, device_type: DeviceType) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if device_type.device_class == "server" and not device_type.resource_classes:
        out.append(
            doc.diagnostic(
                ["resource_class"],
                "a server must define at least one resource class",
                code="server-without-resource-class",
            )
        )
    for index, rc in enumerate(device_type.resource_classes):
        at: list[str | int] = ["resource_class", index, "name"]
        # Ironic's 80 characters also keep the Placement name (CUSTOM_ + 80) under its 255.
        if len(rc.name) > IRONIC_MAX_LENGTH:
            out.append(
                doc.diagnostic(
                    at,
                    f"resource class is {len(rc.name)} characters; "
                    f"Ironic allows at most {IRONIC_MAX_LENGTH}",
                    code="resource-class-too-long",
                )
            )
        out.extend(_check_cores(doc, index, rc))
    return out


def _check_cores(doc: Document, index: int, rc: ResourceClass) -> list[Diagnostic]:
    """Cores that are not whole sockets of a model whose string says its cores per socket."""
    per_socket = cores_per_socket(rc.cpu_model)
    if per_socket is None or rc.cpu_cores % per_socket == 0:
        return []
    return [
        doc.diagnostic(
            ["resource_class", index, "cpu", "cores"],
            f"{rc.cpu_cores} cores are not whole sockets of {rc.cpu_model!r} ({per_socket} cores "
            "per socket): cores counts the physical cores of all sockets, not threads (one "
            f"socket at 2 threads per core shows {2 * per_socket} logical CPUs)",
            severity=W,
            code="resource-class-cores-per-socket",
        )
    ]


def check_trait_rules(doc: Document, rules: TraitRuleSet) -> list[Diagnostic]:
    """Every trait a rule adds is a valid node trait inside the file's prefix."""
    out: list[Diagnostic] = []
    for index, rule in enumerate(rules.rules):
        for position, trait in enumerate(rule.add):
            at: list[str | int] = ["rules", index, "add", position]
            if traits.looks_standard(trait):
                out.append(
                    doc.diagnostic(
                        at,
                        f"{traits.lookalike_message(trait)}; Ironic accepts a standard trait, "
                        "or CUSTOM_ followed by A-Z, 0-9 and _",
                        code="trait-standard-lookalike",
                    )
                )
            elif not traits.is_valid_node_trait(trait):
                out.append(
                    doc.diagnostic(
                        at,
                        f"{trait!r} is not a trait Ironic accepts: use a standard os-traits name "
                        "or CUSTOM_ followed by A-Z, 0-9 and _",
                        code="trait-rule-invalid-trait",
                    )
                )
            elif not rules.owns(trait):
                out.append(
                    doc.diagnostic(
                        at,
                        f"{trait} is outside this file's prefix {rules.prefix}: a rule file may "
                        "only set the traits it owns",
                        code="trait-rule-outside-prefix",
                    )
                )
    return out


def check_extra_specs(
    doc: Document, definitions: ExtraSpecSet, rules: CatalogRules
) -> list[Diagnostic]:
    """The definitions as the extra-spec registry checks them; a trait key's name like a
    standard trait's that os-traits does not know."""
    out = [
        doc.diagnostic(path, message, code="extra-spec-definition")
        for path, message in rules.extra_spec_definitions(definitions.data)
    ]
    for index, spec in enumerate(definitions.data["validators"]):
        match = traits.TRAIT_SPEC.fullmatch(spec["name"])
        if match is not None and traits.looks_standard(match.group(2)):
            out.append(
                doc.diagnostic(
                    ["validators", index, "name"],
                    f"{traits.lookalike_message(match.group(2))}; Placement refuses a trait it "
                    "does not know",
                    code="trait-standard-lookalike",
                )
            )
    return out


def check_deploy_template(
    doc: Document, template: DeployTemplateDef, rules: CatalogRules
) -> list[Diagnostic]:
    """Ironic's rules for one template, and its steps against the driver step catalogues,
    both as ``rules`` holds them; a name like a standard trait's is named as such."""
    lookalike = traits.looks_standard(template.name)
    out = (
        [
            doc.diagnostic(
                ["name"],
                f"{traits.lookalike_message(template.name)}; a deploy template is named by a "
                "trait Ironic accepts: a standard one, or CUSTOM_ followed by A-Z, 0-9 and _",
                code="trait-standard-lookalike",
            )
        ]
        if lookalike
        else []
    )
    out += [
        doc.diagnostic(
            list(problem.path),
            problem.message,
            severity=W if problem.warning else Severity.ERROR,
            code=problem.code,
        )
        for problem in rules.deploy_template(template.as_api())
        if not (lookalike and problem.code == "deploy-template-name")
    ]
    return out


def check_runbook(doc: Document, runbook: RunbookDef, rules: CatalogRules) -> list[Diagnostic]:
    """Ironic's rules for one runbook and its steps against the driver step catalogues, as
    ``rules`` holds them; a trait named like a standard trait is named as such."""
    lookalikes = {i for i, t in enumerate(runbook.traits) if traits.looks_standard(t)}
    out = [
        doc.diagnostic(
            ["traits", index],
            f"{traits.lookalike_message(runbook.traits[index])}; Ironic refuses it on a "
            "node, so no node has it to run this runbook",
            code="trait-standard-lookalike",
        )
        for index in sorted(lookalikes)
    ]
    out += [
        doc.diagnostic(
            list(problem.path),
            problem.message,
            severity=W if problem.warning else Severity.ERROR,
            code=problem.code,
        )
        for problem in rules.runbook(runbook.as_api())
        if not (problem.path[0] == "traits" and problem.path[1] in lookalikes)
    ]
    return out


def check_trait_set(doc: Document, trait_set: TraitSet) -> list[Diagnostic]:
    """Each trait is declared once in a file (across files: ``trait_names.check``)."""
    out: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for index, declaration in enumerate(trait_set.traits):
        if declaration.name in seen:
            line = doc.position(["traits", seen[declaration.name], "name"])[0]
            out.append(
                doc.diagnostic(
                    ["traits", index, "name"],
                    f"{declaration.name} is declared twice (first at line {line})",
                    code="trait-declared-twice",
                )
            )
        else:
            seen[declaration.name] = index
    return out


def check_load_balancer_profile(doc: Document, profile: LoadBalancerProfileDef) -> list[Diagnostic]:
    """Each flavor named once in the file (across files: ``checks.check_load_balancer``)."""
    out: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for index, flavor in enumerate(profile.flavors):
        if flavor.name in seen:
            line = doc.position(["flavors", seen[flavor.name], "name"])[0]
            out.append(
                doc.diagnostic(
                    ["flavors", index, "name"],
                    f"load-balancer flavor {flavor.name} is listed twice (first at line {line}): "
                    "Octavia keeps one flavor per name",
                    code="duplicate-name",
                )
            )
        else:
            seen[flavor.name] = index
    return out


def check_load_balancer_provider(
    doc: Document, provider: LoadBalancerProviderDef
) -> list[Diagnostic]:
    """Each capability listed once."""
    out: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for index, name in enumerate(provider.capability_names):
        if name in seen:
            line = doc.position(["flavor_capabilities", seen[name], "name"])[0]
            out.append(
                doc.diagnostic(
                    ["flavor_capabilities", index, "name"],
                    f"capability {name} is listed twice (first at line {line})",
                    code="duplicate-name",
                )
            )
        else:
            seen[name] = index
    return out


def check_network_flavor(doc: Document, flavor: NetworkFlavorDef) -> list[Diagnostic]:
    """Each service profile (a driver with its metainfo) listed once."""
    out: list[Diagnostic] = []
    seen: dict[tuple[str, str], int] = {}
    for index, profile in enumerate(flavor.service_profiles):
        key = (profile.driver, profile.metainfo)
        if key in seen:
            line = doc.position(["service_profiles", seen[key], "driver"])[0]
            out.append(
                doc.diagnostic(
                    ["service_profiles", index, "driver"],
                    f"service profile {profile.driver}"
                    f"{f' with metainfo {profile.metainfo!r}' if profile.metainfo else ''} is "
                    f"listed twice (first at line {line}): list each driver and metainfo once",
                    code="duplicate-name",
                )
            )
        else:
            seen[key] = index
    return out
