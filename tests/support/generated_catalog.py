"""A seeded catalog for the boot proof: flavors and operator node traits drawn at random, so
the proof is not tuned to the hand-written example catalog.

    nodes = [GenNode(n.name, n.resource_class, available) for n in lab]
    generated = generate(nodes, seed=DEFAULT_SEED)
    write_catalog(EXAMPLES, generated, repo)     # a catalog repository flavorsmith validates

What is drawn (``random.Random(seed)``, nothing else: the same seed and nodes give the same
catalog):

- operator traits (``CUSTOM_GEN_*``, no trait rule's prefix) on the lab's nodes, from a small
  pool, each node taking each with a fixed chance;
- flavors ``gen.<n>``: a resource class of the lab; required and forbidden traits from the
  operator pool and the traits the example trait rules set from the inspection documents,
  written in the ``traits`` list or as ``trait:NAME`` extra specs (``required`` or
  ``forbidden``, the form a standard trait takes); a private flavor with an access list.

Three flavors are built so the proof sees each case whatever the seed: one that several
available nodes take (an operator trait held by 2 or 3 available nodes of its class), one no
node can take (an operator trait no node of its class holds), and a private one (a dedicated
pool: the nodes with ``CUSTOM_GEN_DEDICATED``, which every public flavor of that class marks
absent). The device types, trait rules and extra-spec definitions are the examples'; the
catalog declares its custom traits (hardware/traits/generated.yaml), so a trait only the
operator sets is no warning.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

DEFAULT_SEED = 37
PREFIX = "gen."
# The operator's traits (no trait rule of the examples owns CUSTOM_GEN_).
POOL = ("CUSTOM_GEN_RACK_A", "CUSTOM_GEN_RACK_B", "CUSTOM_GEN_BURNED_IN", "CUSTOM_GEN_LOW_LATENCY")
DEDICATED = "CUSTOM_GEN_DEDICATED"
POOL_CHANCE = 0.3
# Traits the example trait rules set from the example inspection documents, per resource
# class, that a flavor may require or forbid (custom ones in the traits list, standard ones as
# extra specs).
RULE_TRAITS = {
    "m1.small": ("CUSTOM_NVME", "CUSTOM_NIC_MELLANOX_CX5", "CUSTOM_NICX", "HW_CPU_X86_AVX2"),
    "m1.medium": ("CUSTOM_CPU_AVX512", "HW_CPU_X86_AVX512F", "HW_CPU_X86_AVX2"),
    "c2.large": ("HW_CPU_X86_AVX2", "CUSTOM_CPU_AVX512"),
    "c2.diskless": ("HW_CPU_X86_AVX2",),
    "g1.8xh100": ("CUSTOM_GPU_NVIDIA_H100", "CUSTOM_GPU"),
}
RANDOM_FLAVORS = 2
# The private flavor's projects, the example private flavor's two: the boot proof boots it as
# the first (its DEDICATED_PROJECT) and names, for each, the id the cloud's Keystone made.
PROJECTS = ("4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d", "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a")


@dataclass(frozen=True)
class GenNode:
    """A lab node as the generator sees it."""

    name: str
    resource_class: str
    available: bool  # available and not in maintenance: a boot may land on it


@dataclass(frozen=True)
class GenFlavor:
    name: str
    resource_class: str
    required: tuple[str, ...] = ()  # full trait names
    forbidden: tuple[str, ...] = ()
    # Of the traits above, those written as ``trait:NAME`` extra specs (the others in the
    # flavor's traits list, custom ones only).
    in_extra_specs: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()  # a private flavor's access list (empty: public)
    what: str = ""

    @property
    def is_public(self) -> bool:
        return not self.projects

    def document(self) -> dict[str, Any]:
        """The flavor's file, as the catalog writes it."""
        out: dict[str, Any] = {
            "name": self.name,
            "resource_class": self.resource_class,
            "description": self.what or f"generated flavor on {self.resource_class}",
        }
        listed = [
            {"trait": t.removeprefix("CUSTOM_"), "state": state}
            for traits, state in ((self.required, "required"), (self.forbidden, "absent"))
            for t in traits
            if t not in self.in_extra_specs
        ]
        if listed:
            out["traits"] = listed
        if self.projects:
            out["is_public"] = False
            out["projects"] = list(self.projects)
        specs = {
            f"trait:{t}": "required" if t in self.required else "forbidden"
            for t in self.in_extra_specs
        }
        if specs:
            out["extra_specs"] = specs
        return out


@dataclass(frozen=True)
class GeneratedCatalog:
    seed: int
    flavors: tuple[GenFlavor, ...]
    node_traits: Mapping[str, tuple[str, ...]]  # node name -> operator traits to add
    several: str  # a flavor several available nodes take
    never: str  # a flavor no node can take
    private: str  # the private flavor

    def flavor(self, name: str) -> GenFlavor:
        return next(f for f in self.flavors if f.name == name)


def generate(nodes: Sequence[GenNode], seed: int = DEFAULT_SEED) -> GeneratedCatalog:
    """The catalog and node traits of ``seed`` for these nodes."""
    rng = random.Random(seed)
    nodes = sorted(nodes, key=lambda n: n.name)
    traits: dict[str, set[str]] = {
        n.name: {t for t in POOL if rng.random() < POOL_CHANCE} for n in nodes
    }
    # The classes a boot may use (a node with another class is only there to be skipped).
    classes = sorted({n.resource_class for n in nodes if n.available})

    def available(resource_class: str) -> list[GenNode]:
        return [n for n in nodes if n.resource_class == resource_class and n.available]

    # Room for the dedicated pool and the flavor several nodes take, should both draw it.
    roomy = [c for c in classes if len(available(c)) >= 4]
    if not roomy:
        raise ValueError("no resource class has 4 available nodes: nothing to generate for")
    # The dedicated pool: 2 available nodes of a class (and one that is not, if any).
    dedicated_class = rng.choice(roomy)
    pool_nodes = rng.sample(available(dedicated_class), 2)
    others = [n for n in nodes if n.resource_class == dedicated_class and not n.available]
    pool_nodes += rng.sample(others, min(1, len(others)))
    for node in pool_nodes:
        traits[node.name].add(DEDICATED)
    # The flavor several nodes take: an operator trait on 2 or 3 available nodes of a class
    # (outside the dedicated pool), on no other available node of it.
    several_class = rng.choice(roomy)
    several_trait = rng.choice(POOL)
    candidates = [n for n in available(several_class) if DEDICATED not in traits[n.name]]
    holders = rng.sample(candidates, min(len(candidates), rng.choice((2, 3))))
    for node in available(several_class):
        traits[node.name].discard(several_trait)
    for node in holders:
        traits[node.name].add(several_trait)
    # The flavor no node can take: an operator trait no node of its class holds.
    never_class = rng.choice(classes)
    never_trait = rng.choice(
        [t for t in POOL if t != several_trait or never_class != several_class]
    )
    for node in nodes:
        if node.resource_class == never_class:
            traits[node.name].discard(never_trait)

    def dedicated_absent(resource_class: str) -> tuple[str, ...]:
        return (DEDICATED,) if resource_class == dedicated_class else ()

    flavors = [
        GenFlavor(
            f"{PREFIX}1",
            several_class,
            required=(several_trait,),
            forbidden=dedicated_absent(several_class),
            what=f"{several_class} on the nodes the operator marked {several_trait}",
        ),
        GenFlavor(
            f"{PREFIX}2",
            never_class,
            required=(never_trait,),
            forbidden=dedicated_absent(never_class),
            in_extra_specs=(never_trait,) if rng.random() < 0.5 else (),
            what=f"{never_class} with {never_trait}, which no such node has",
        ),
        GenFlavor(
            f"{PREFIX}3",
            dedicated_class,
            required=(DEDICATED,),
            projects=PROJECTS,
            what=f"the dedicated {dedicated_class} pool of two projects",
        ),
    ]

    def selects(flavor: GenFlavor) -> tuple[str, frozenset[str], frozenset[str]]:
        return flavor.resource_class, frozenset(flavor.required), frozenset(flavor.forbidden)

    while len(flavors) < 3 + RANDOM_FLAVORS:
        drawn = _random_flavor(rng, f"{PREFIX}{len(flavors) + 1}", classes, dedicated_absent)
        if selects(drawn) not in {selects(f) for f in flavors}:  # no two select the same nodes
            flavors.append(drawn)
    # Numbered in a drawn order, so no name says which case a flavor is.
    order = list(range(len(flavors)))
    rng.shuffle(order)
    flavors = [replace(f, name=f"{PREFIX}{order[i] + 1}") for i, f in enumerate(flavors)]
    several, never, private = (f.name for f in flavors[:3])
    flavors.sort(key=lambda f: int(f.name.removeprefix(PREFIX)))
    return GeneratedCatalog(
        seed=seed,
        flavors=tuple(flavors),
        node_traits={n: tuple(sorted(t)) for n, t in traits.items() if t},
        several=several,
        never=never,
        private=private,
    )


def _random_flavor(
    rng: random.Random, name: str, classes: Sequence[str], dedicated_absent: Any
) -> GenFlavor:
    """A public flavor: one operator trait required (so few nodes take it), and by chance a
    trait the trait rules set, required or forbidden, and an operator trait forbidden."""
    resource_class = rng.choice(classes)
    required = [rng.choice(POOL)]
    forbidden: list[str] = list(dedicated_absent(resource_class))
    rule_traits = RULE_TRAITS.get(resource_class, ())
    if rule_traits and rng.random() < 0.7:
        trait = rng.choice(rule_traits)
        (required if rng.random() < 0.5 else forbidden).append(trait)
    if rng.random() < 0.5:
        forbidden.append(rng.choice([t for t in POOL if t not in required]))
    # Standard traits can only be asked for as extra specs; a custom one may be, by chance.
    in_extra_specs = [
        t
        for t in (*required, *forbidden)
        if not t.startswith("CUSTOM_") or (t != DEDICATED and rng.random() < 0.25)
    ]
    return GenFlavor(
        name,
        resource_class,
        required=tuple(required),
        forbidden=tuple(forbidden),
        in_extra_specs=tuple(in_extra_specs),
        what=f"generated: {resource_class}, required {', '.join(required)}"
        + (f", forbidden {', '.join(forbidden)}" if forbidden else ""),
    )


# --- the repository -----------------------------------------------------------------------------

# The example kinds the generated catalog keeps as they are; flavors and trait declarations
# are generated; deploy templates are left out (so a sync with --prune removes the example
# ones from Ironic), and runbooks and the other services' flavors, which the proof does not
# sync.
KEPT = ("device-types", "trait-rules", "extra-specs")


def write_catalog(examples: Path, generated: GeneratedCatalog, repo: Path) -> None:
    """The generated catalog as a repository at ``repo`` (which must not exist): the
    examples' kinds in ``KEPT``, the generated flavors, both kustomizations listing them."""
    hardware = repo / "hardware"
    for kind in KEPT:
        shutil.copytree(examples / "hardware" / kind, hardware / kind)
    flavors = hardware / "flavors"
    flavors.mkdir(parents=True)
    yaml = YAML()
    yaml.default_flow_style = False
    for flavor in generated.flavors:
        with (flavors / f"{flavor.name}.yaml").open("w") as out:
            out.write(
                "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/"
                f"flavor.schema.json\n# Generated (seed {generated.seed}).\n"
            )
            yaml.dump(flavor.document(), out)
    (hardware / "traits").mkdir()
    (hardware / "traits" / "generated.yaml").write_text(_declarations(hardware))
    listed = {
        kind: sorted(p.name for p in (hardware / kind).glob("*.yaml"))
        for kind in (*KEPT, "flavors", "traits")
    }
    (hardware / "base").mkdir()
    (hardware / "base" / "kustomization.yaml").write_text(
        _kustomization(listed, lambda kind, file: f"{file}=../{kind}/{file}", per_map=True)
    )
    (repo / "kustomization.yaml").write_text(
        _kustomization(listed, lambda kind, file: f"hardware/{kind}/{file}", per_map=False)
    )


def _declarations(hardware: Path) -> str:
    """The catalog's custom traits declared: the operator's pool and what the trait rules
    add (a catalog that declares its traits has no warning for a trait nothing sets)."""
    yaml = YAML(typ="safe")
    by_rules = sorted(
        {
            str(trait)
            for path in (hardware / "trait-rules").glob("*.yaml")
            for rule in yaml.load(path.read_text())["rules"]
            for trait in rule["add"]
            if str(trait).startswith("CUSTOM_")
        }
    )
    lines = [
        "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/trait.schema.json",
        "name: generated",
        "description: The operator's traits of the generated catalog, and the trait rules'",
        "traits:",
    ]
    for trait in (*POOL, DEDICATED):
        lines += [
            f"  - name: {trait}",
            "    description: set on the node by the operator (the boot proof)",
            "    set_by: operator",
        ]
    for trait in by_rules:
        lines += [
            f"  - name: {trait}",
            "    description: from the inspection data",
            "    set_by: trait-rule",
        ]
    return "\n".join(lines) + "\n"


def _kustomization(listed: Mapping[str, Sequence[str]], entry: Any, *, per_map: bool) -> str:
    lines = [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "",
    ]
    if not per_map:
        lines += ["generatorOptions:", "  disableNameSuffixHash: true", ""]
    lines.append("configMapGenerator:")
    for kind, files in listed.items():
        lines.append(f"- name: {kind}")
        if per_map:
            lines += ["  options:", "    disableNameSuffixHash: true"]
        lines.append("  files:")
        lines += [f"  - {entry(kind, file)}" for file in files]
    return "\n".join(lines) + "\n"
