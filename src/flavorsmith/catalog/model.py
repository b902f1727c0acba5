"""The catalog's typed model: device types, their resource classes, and flavors."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from flavorsmith import traits
from flavorsmith.catalog.document import Document
from flavorsmith.resource_classes import placement_name

TraitState = Literal["required", "absent"]


def _spec_value(value: Any) -> str:
    """Extra-spec values are strings in Nova; YAML booleans and numbers are written as such."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ByName:
    """A definition named by its ``name`` field; every definition has a ``key`` (what names
    it in its kind: its file is KEY.yaml), the ``key_field`` that holds it, and a ``noun``."""

    name: str
    key_field: ClassVar[str] = "name"

    @property
    def key(self) -> str:
        return self.name


@dataclass(frozen=True)
class TraitRequirement:
    trait: str  # as written, without CUSTOM_
    state: TraitState

    @property
    def full_name(self) -> str:
        return traits.full_name(self.trait)


@dataclass(frozen=True)
class Flavor(ByName):
    name: str
    resource_class: str
    description: str | None = None
    traits: tuple[TraitRequirement, ...] = ()
    is_public: bool = True
    projects: tuple[str, ...] = ()
    extra_specs: tuple[tuple[str, str], ...] = ()
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "flavor"

    @property
    def required_traits(self) -> frozenset[str]:
        return frozenset(t.full_name for t in self.traits if t.state == "required")

    @property
    def forbidden_traits(self) -> frozenset[str]:
        return frozenset(t.full_name for t in self.traits if t.state == "absent")

    @property
    def canonical_file(self) -> str:
        return f"{self.name}.yaml"

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> Flavor:
        return cls(
            name=data["name"],
            resource_class=data["resource_class"],
            description=data.get("description"),
            traits=tuple(TraitRequirement(t["trait"], t["state"]) for t in data.get("traits", [])),
            is_public=data.get("is_public", True),
            projects=tuple(data.get("projects", [])),
            extra_specs=tuple((k, _spec_value(v)) for k, v in data.get("extra_specs", {}).items()),
            doc=doc,
        )


@dataclass(frozen=True)
class ResourceClass:
    name: str
    cpu_cores: int
    cpu_model: str
    memory_mb: int
    drives_gb: tuple[int, ...]
    nic_count: int
    raid_level: str | None = None

    @property
    def placement_name(self) -> str:
        return placement_name(self.name)


@dataclass(frozen=True)
class DeviceType:
    device_class: str
    manufacturer: str
    model: str
    u_height: float
    is_full_depth: bool
    resource_classes: tuple[ResourceClass, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "device type"
    key_field: ClassVar[str] = "model"

    @property
    def key(self) -> str:
        return self.slug

    @property
    def slug(self) -> str:
        """``<manufacturer>-<model>``, lower case, whitespace as '-': its file name stem.

        Path separators also become '-', so a model such as ``PA-5410/X`` stays one file.
        """
        return re.sub(r"[\s/\\]+", "-", f"{self.manufacturer} {self.model}".strip().lower())

    @property
    def canonical_file(self) -> str:
        return f"{self.slug}.yaml"

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> DeviceType:
        return cls(
            device_class=data["class"],
            manufacturer=data["manufacturer"],
            model=data["model"],
            u_height=data["u_height"],
            is_full_depth=data["is_full_depth"],
            resource_classes=tuple(
                ResourceClass(
                    name=rc["name"],
                    cpu_cores=int(rc["cpu"]["cores"]),
                    cpu_model=rc["cpu"]["model"],
                    memory_mb=int(rc["memory"]["size"]),
                    drives_gb=tuple(int(d["size"]) for d in rc["drives"]),
                    nic_count=int(rc["nic_count"]),
                    raid_level=rc.get("raid_level"),
                )
                for rc in data.get("resource_class", [])
            ),
            data=data,
            doc=doc,
        )


@dataclass(frozen=True)
class TraitRule:
    name: str
    when: dict[str, Any]
    add: tuple[str, ...]


@dataclass(frozen=True)
class TraitRuleSet(ByName):
    """One trait-rules file: its rules and the trait prefix it owns."""

    name: str
    prefix: str
    description: str | None
    rules: tuple[TraitRule, ...]
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "trait rules"

    @property
    def canonical_file(self) -> str:
        return f"{self.name}.yaml"

    def owns(self, trait: str) -> bool:
        return trait.startswith(self.prefix)

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> TraitRuleSet:
        return cls(
            name=data["name"],
            prefix=data["prefix"],
            description=data.get("description"),
            rules=tuple(
                TraitRule(r["name"], dict(r["when"]), tuple(r["add"])) for r in data["rules"]
            ),
            doc=doc,
        )


@dataclass(frozen=True)
class ExtraSpecSet:
    """One extra-spec definitions file: validators for a namespace of the operator's."""

    namespace: str
    data: dict[str, Any] = field(compare=False, repr=False)
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "extra-spec definitions"
    key_field: ClassVar[str] = "namespace"

    @property
    def key(self) -> str:
        return self.namespace

    @property
    def name(self) -> str:
        return self.namespace

    @property
    def canonical_file(self) -> str:
        return f"{self.namespace}.yaml"


@dataclass(frozen=True)
class DeployTemplateDef(ByName):
    """One deploy-template file: an Ironic deploy template, named by the trait that asks
    for it (the full trait name, CUSTOM_ included, exactly as Ironic stores it)."""

    name: str
    steps: tuple[dict[str, Any], ...]
    description: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "deploy template"

    @property
    def canonical_file(self) -> str:
        return f"{self.name}.yaml"

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> DeployTemplateDef:
        return cls(
            name=data["name"],
            steps=tuple(
                {
                    "interface": s["interface"],
                    "step": s["step"],
                    "args": _plain(s.get("args", {})),
                    "priority": _priority(s["priority"]),
                }
                for s in data["steps"]
            ),
            description=data.get("description"),
            extra=_plain(data.get("extra", {})),
            doc=doc,
        )

    def as_api(self) -> dict[str, Any]:
        """The body Ironic's deploy template API takes (without uuid)."""
        return {
            "name": self.name,
            "steps": [dict(s) for s in self.steps],
            "description": self.description,
            "extra": dict(self.extra),
        }


@dataclass(frozen=True)
class RunbookDef(ByName):
    """One runbook file: an Ironic runbook, the ordered clean or service steps a node may run
    when it has one of the runbook's traits."""

    name: str
    traits: tuple[str, ...]
    steps: tuple[dict[str, Any], ...]
    description: str | None = None
    public: bool = False
    owner: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "runbook"

    @property
    def canonical_file(self) -> str:
        return f"{self.name}.yaml"

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> RunbookDef:
        return cls(
            name=data["name"],
            traits=tuple(data["traits"]),
            steps=tuple(
                {
                    "interface": s["interface"],
                    "step": s["step"],
                    "args": _plain(s.get("args", {})),
                    "order": _priority(s["order"]),
                }
                for s in data["steps"]
            ),
            description=data.get("description"),
            public=data.get("public", False),
            owner=data.get("owner"),
            extra=_plain(data.get("extra", {})),
            doc=doc,
        )

    def as_api(self) -> dict[str, Any]:
        """The runbook as Ironic's API shows it (API 1.112, without uuid)."""
        return {
            "name": self.name,
            "description": self.description,
            "traits": list(self.traits),
            "steps": [dict(s) for s in self.steps],
            "public": self.public,
            "owner": self.owner,
            "extra": dict(self.extra),
        }

    def ordered_steps(self) -> list[dict[str, Any]]:
        """The steps in the order Ironic runs them: ascending ``order``."""
        return sorted(self.steps, key=lambda s: s["order"])


@dataclass(frozen=True)
class LoadBalancerFlavor:
    """One load-balancer flavor on a profile: what users choose when creating one."""

    name: str
    description: str | None = None
    enabled: bool = True


# What marks a profile as the catalog's where only admins see profiles: in Octavia, where a
# flavor profile has no description nor extra field, its name is PROFILE_PREFIX + the
# catalog's name (a flavor is the catalog's when its profile is); in Neutron, a service
# profile's description starts with PROFILE_PREFIX + its flavor's name (a flavor is the
# catalog's when a profile so marked for it is associated with it).
PROFILE_PREFIX = "flavorsmith:"


@dataclass(frozen=True)
class LoadBalancerProfileDef(ByName):
    """One load-balancer-flavors file: an Octavia flavor profile (its provider and the flavor
    data given to it) and the flavors that use it."""

    name: str
    provider: str
    flavor_data: dict[str, Any]
    flavors: tuple[LoadBalancerFlavor, ...]
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "load-balancer flavor profile"

    @property
    def canonical_file(self) -> str:
        return f"{self.name}.yaml"

    @property
    def octavia_name(self) -> str:
        """The profile's name in Octavia, with the catalog's marker."""
        return PROFILE_PREFIX + self.name

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> LoadBalancerProfileDef:
        return cls(
            name=data["name"],
            provider=data["provider"],
            flavor_data=_plain(data["flavor_data"]),
            flavors=tuple(
                LoadBalancerFlavor(f["name"], f.get("description"), f.get("enabled", True))
                for f in data["flavors"]
            ),
            doc=doc,
        )


@dataclass(frozen=True)
class LoadBalancerProviderDef:
    """One load-balancer-providers file: an enabled Octavia provider and its flavor
    capabilities, as ``GET /v2/lbaas/providers/{provider}/flavor_capabilities`` answers."""

    provider: str
    description: str | None
    capabilities: tuple[tuple[str, str], ...]  # (name, description), in Octavia's order
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "load-balancer provider"
    key_field: ClassVar[str] = "provider"

    @property
    def key(self) -> str:
        return self.provider

    @property
    def name(self) -> str:
        return self.provider

    @property
    def canonical_file(self) -> str:
        return f"{self.provider}.yaml"

    @property
    def capability_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.capabilities)

    @classmethod
    def from_data(
        cls, data: dict[str, Any], doc: Document | None = None
    ) -> LoadBalancerProviderDef:
        return cls(
            provider=data["provider"],
            description=data.get("description"),
            capabilities=tuple(
                (c["name"], c.get("description", "")) for c in data["flavor_capabilities"]
            ),
            doc=doc,
        )


@dataclass(frozen=True)
class NetworkServiceProfile:
    """One Neutron service profile behind a network flavor: a configured provider's driver
    and the options (``metainfo``, text) given to it."""

    driver: str
    metainfo: str = ""
    description: str | None = None
    enabled: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "driver": self.driver,
            "metainfo": self.metainfo,
            "description": self.description or "",
            "enabled": self.enabled,
        }


@dataclass(frozen=True)
class NetworkFlavorDef(ByName):
    """One network-flavors file: a Neutron flavor (its service type, what users see of it) and
    the service profiles associated with it."""

    name: str
    service_type: str
    service_profiles: tuple[NetworkServiceProfile, ...]
    description: str | None = None
    enabled: bool = True
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "network flavor"

    @property
    def canonical_file(self) -> str:
        return f"{self.name}.yaml"

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> NetworkFlavorDef:
        return cls(
            name=data["name"],
            service_type=data["service_type"],
            service_profiles=tuple(
                NetworkServiceProfile(
                    p["driver"], p.get("metainfo", ""), p.get("description"), p.get("enabled", True)
                )
                for p in data["service_profiles"]
            ),
            description=data.get("description"),
            enabled=data.get("enabled", True),
            doc=doc,
        )


def _priority(value: Any) -> Any:
    """A step's priority (or a runbook step's order) as a number: the schema lets a string of
    at most 19 digits stand for one, as Ironic's API does."""
    return int(value) if isinstance(value, str) else value


def _plain(value: Any) -> Any:
    """YAML mappings and sequences as plain dicts and lists (for JSON and comparison)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


SetBy = Literal["trait-rule", "inspection-hook", "deploy-template", "operator", "external"]
# Setters outside the catalog: the catalog cannot tell whether they set the trait.
OUTSIDE_SETTERS: frozenset[str] = frozenset({"inspection-hook", "operator", "external"})


@dataclass(frozen=True)
class TraitDeclaration:
    """One declared custom trait: its full name (CUSTOM_ included), what it means, who sets
    it on nodes (and, in free text, which tool)."""

    name: str
    description: str
    set_by: SetBy
    tool: str | None = None

    @property
    def setter(self) -> str:
        """Who sets it, as ``trait list`` shows it: ``operator``, ``external: <tool>``."""
        return f"{self.set_by}: {self.tool}" if self.tool else self.set_by


@dataclass(frozen=True)
class TraitSet(ByName):
    """One trait-declarations file (hardware/traits/<name>.yaml)."""

    name: str
    description: str | None
    traits: tuple[TraitDeclaration, ...]
    doc: Document | None = field(default=None, compare=False, repr=False)
    noun: ClassVar[str] = "trait declarations"

    @property
    def canonical_file(self) -> str:
        return f"{self.name}.yaml"

    @classmethod
    def from_data(cls, data: dict[str, Any], doc: Document | None = None) -> TraitSet:
        return cls(
            name=data["name"],
            description=data.get("description"),
            traits=tuple(
                TraitDeclaration(t["name"], t["description"], t["set_by"], t.get("tool"))
                for t in data["traits"]
            ),
            doc=doc,
        )


Definition = (
    Flavor
    | DeviceType
    | TraitRuleSet
    | ExtraSpecSet
    | DeployTemplateDef
    | TraitSet
    | RunbookDef
    | LoadBalancerProfileDef
    | LoadBalancerProviderDef
    | NetworkFlavorDef
)


def label(definition: Definition) -> str:
    """How a message names a definition: its kind and key ("flavor 'm1.small'")."""
    return f"{definition.noun} {definition.key!r}"


def answers_to(definition: Definition, name: str) -> bool:
    """Whether ``name`` names the definition: its key, exactly; a device type also by
    'manufacturer model', in any case."""
    if isinstance(definition, DeviceType):
        return name.casefold() in (
            definition.slug,
            f"{definition.manufacturer} {definition.model}".casefold(),
        )
    return definition.key == name


@dataclass(frozen=True)
class Catalog:
    device_types: tuple[DeviceType, ...] = ()
    flavors: tuple[Flavor, ...] = ()
    trait_rules: tuple[TraitRuleSet, ...] = ()
    extra_specs: tuple[ExtraSpecSet, ...] = ()
    deploy_templates: tuple[DeployTemplateDef, ...] = ()
    trait_sets: tuple[TraitSet, ...] = ()
    runbooks: tuple[RunbookDef, ...] = ()
    load_balancer_profiles: tuple[LoadBalancerProfileDef, ...] = ()
    load_balancer_providers: tuple[LoadBalancerProviderDef, ...] = ()
    network_flavors: tuple[NetworkFlavorDef, ...] = ()

    @property
    def declared_traits(self) -> dict[str, TraitDeclaration]:
        """Full trait name -> its first declaration (empty: the catalog declares none)."""
        out: dict[str, TraitDeclaration] = {}
        for trait_set in self.trait_sets:
            for declaration in trait_set.traits:
                out.setdefault(declaration.name, declaration)
        return out

    @classmethod
    def of(cls, definitions: Iterable[Definition | None]) -> Catalog:
        """The catalog of ``definitions``, each kind in the order given (None: a file that
        did not load)."""
        found = [d for d in definitions if d is not None]
        return cls(
            device_types=tuple(d for d in found if isinstance(d, DeviceType)),
            flavors=tuple(d for d in found if isinstance(d, Flavor)),
            trait_rules=tuple(d for d in found if isinstance(d, TraitRuleSet)),
            extra_specs=tuple(d for d in found if isinstance(d, ExtraSpecSet)),
            deploy_templates=tuple(d for d in found if isinstance(d, DeployTemplateDef)),
            trait_sets=tuple(d for d in found if isinstance(d, TraitSet)),
            runbooks=tuple(d for d in found if isinstance(d, RunbookDef)),
            load_balancer_profiles=tuple(d for d in found if isinstance(d, LoadBalancerProfileDef)),
            load_balancer_providers=tuple(
                d for d in found if isinstance(d, LoadBalancerProviderDef)
            ),
            network_flavors=tuple(d for d in found if isinstance(d, NetworkFlavorDef)),
        )

    def flavor(self, name: str) -> Flavor | None:
        return next((f for f in self.flavors if f.name == name), None)

    def resource_class(self, name: str) -> tuple[DeviceType, ResourceClass] | None:
        """The definition of a resource class: by exact name, else by its Placement name."""
        by_placement: list[tuple[DeviceType, ResourceClass]] = []
        wanted = placement_name(name)
        for device_type in self.device_types:
            for rc in device_type.resource_classes:
                if rc.name == name:
                    return device_type, rc
                if rc.placement_name == wanted:
                    by_placement.append((device_type, rc))
        return by_placement[0] if len(by_placement) == 1 else None
