"""The kinds of catalog file: where each lives, its ConfigMap and its schema."""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_BASE = "https://flavorsmith.dev/schemas/v1/"


@dataclass(frozen=True)
class Kind:
    name: str  # as on the command line: "flavor", "device-type"
    folder: str  # under hardware/
    configmap: str  # the kustomize configMapGenerator name

    @property
    def schema_file(self) -> str:
        return f"{self.name}.schema.json"

    @property
    def schema_id(self) -> str:
        return SCHEMA_BASE + self.schema_file


DEVICE_TYPE = Kind("device-type", "device-types", "device-types")
FLAVOR = Kind("flavor", "flavors", "flavors")
TRAIT_RULE = Kind("trait-rule", "trait-rules", "trait-rules")
EXTRA_SPEC = Kind("extra-spec", "extra-specs", "extra-specs")
DEPLOY_TEMPLATE = Kind("deploy-template", "deploy-templates", "deploy-templates")
TRAIT = Kind("trait", "traits", "traits")
RUNBOOK = Kind("runbook", "runbooks", "runbooks")
# Octavia's flavor profiles, one file each with the flavors on it, and the providers'
# capabilities (Octavia's own answer, saved) the profiles are checked against.
LOAD_BALANCER_FLAVOR = Kind(
    "load-balancer-flavor", "load-balancer-flavors", "load-balancer-flavors"
)
LOAD_BALANCER_PROVIDER = Kind(
    "load-balancer-provider", "load-balancer-providers", "load-balancer-providers"
)
# Neutron's service flavors, one file each with the service profiles behind it.
NETWORK_FLAVOR = Kind("network-flavor", "network-flavors", "network-flavors")
KINDS: tuple[Kind, ...] = (
    DEVICE_TYPE,
    FLAVOR,
    TRAIT_RULE,
    EXTRA_SPEC,
    DEPLOY_TEMPLATE,
    TRAIT,
    RUNBOOK,
    LOAD_BALANCER_FLAVOR,
    LOAD_BALANCER_PROVIDER,
    NETWORK_FLAVOR,
)


def kind_named(name: str) -> Kind:
    for kind in KINDS:
        if kind.name == name:
            return kind
    raise KeyError(name)
