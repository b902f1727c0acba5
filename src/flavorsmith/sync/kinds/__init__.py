"""The registry of sync kinds. The command line (``sync plan|apply --only``), ``/v1/sync/*``
(``only=``), the targets (``--cloud``/``--endpoint`` or the service's own database) and the
watcher (``serve --sync``, ``sync apply --watch``) all go through it; adding a kind is one
module here (its desired state, plan, steps and both targets, in its ``KIND``) and one line
below."""

from __future__ import annotations

from flavorsmith.sync import default_kind
from flavorsmith.sync.engine import AnyKind
from flavorsmith.sync.kinds import (
    classification,
    deploy_templates,
    inspection_rules,
    load_balancer_flavors,
    network_flavors,
    nova_flavors,
    runbooks,
)

KINDS: tuple[AnyKind, ...] = (
    nova_flavors.KIND,
    deploy_templates.KIND,
    runbooks.KIND,
    classification.KIND,
    inspection_rules.KIND,
    load_balancer_flavors.KIND,
    network_flavors.KIND,
)

BY_NAME: dict[str, AnyKind] = {kind.name: kind for kind in KINDS}
NAMES: tuple[str, ...] = tuple(BY_NAME)
DEFAULT = nova_flavors.KIND.name
if DEFAULT != default_kind.DEFAULT:  # the command line's copy, kept light
    raise ImportError(
        f"sync.default_kind defaults to {default_kind.DEFAULT}, the registry to {DEFAULT}"
    )
# What the watcher keeps in sync (``serve --sync``, ``sync apply --watch``): the kinds that
# say so; the others run only when named.
WATCHED: tuple[AnyKind, ...] = tuple(kind for kind in KINDS if kind.watched)
CLASSIFICATION = classification.KIND.name  # what ``flavorsmith classify`` runs against Ironic
# What ``flavorsmith verify`` reads Nova's flavors with (either target of the flavors kind), and
# the extra spec a synced flavor carries, which verify expects on every catalog flavor.
FLAVORS = nova_flavors.KIND
FLAVOR_MARKER = {nova_flavors.MARKER: nova_flavors.MARKER_VALUE}
# What ``review`` plans between two catalogs: a Nova flavor as the flavors kind observes it.
ObservedFlavor = nova_flavors.ObservedFlavor
# What ``review`` plans between two catalogs' load-balancer flavors: the kind, and a profile
# and a flavor as it observes them (keyed as it keys them).
LOAD_BALANCERS = load_balancer_flavors.KIND
LbObserved = load_balancer_flavors.Observed
LbObservedProfile = load_balancer_flavors.ObservedProfile
LbObservedFlavor = load_balancer_flavors.ObservedFlavor
lb_profile_key = load_balancer_flavors.profile_key
lb_flavor_key = load_balancer_flavors.flavor_key
# What ``review`` plans between two catalogs' network flavors: the kind, a flavor and a service
# profile as it observes them (keyed as it keys them), and the marker a profile's description
# carries.
NETWORKS = network_flavors.KIND
NetObservedFlavor = network_flavors.ObservedFlavor
NetObservedProfile = network_flavors.ObservedProfile
net_flavor_key = network_flavors.flavor_key
net_marker = network_flavors.marker


class UnknownKind(ValueError):
    """A kind name not in the registry; the message lists the registry's default_kind."""

    def __init__(self, name: str) -> None:
        super().__init__(f"cannot sync {name!r}: choose one of {', '.join(NAMES)}")
        self.name = name


def choose(name: str) -> AnyKind:
    """The kind named ``name``, or UnknownKind."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownKind(name) from None
