"""Runbooks as Ironic 39 runs them (pure): the clean and service steps each driver offers, a
runbook's problems against them, and which runbooks a node may run.

A runbook (API 1.92) is a named list of steps (interface, step, args, order) that
``openstack baremetal node clean|service --runbook NAME`` runs on a node. Since API 1.112 a
runbook has traits of its own, and Ironic lets a node run it only when the node has at least
one of them (``ironic.api.controllers.v1.node.NodeStatesController._handle_runbook``); a
runbook without traits runs on no node.

The catalog checks each step against the step catalogues of the drivers it knows: a step no
driver offers, an argument no driver accepts or of another type, a required one missing.
Ironic itself checks a runbook's steps only against the node's driver when it runs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flavorsmith import traits
from flavorsmith.did_you_mean import closest
from flavorsmith.ironic.deploy_templates import TemplateProblem

# An argument's JSON type -> the Python types a YAML or JSON value of it has.
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list, tuple),
    "boolean": (bool,),
    "string": (str,),
}


@dataclass(frozen=True)
class Arg:
    type: str  # a JSON type: object, array, boolean, string
    required: bool

    def accepts(self, value: Any) -> bool:
        return isinstance(value, _TYPES[self.type])


@dataclass(frozen=True)
class ServiceStep:
    """A clean or service step a driver offers (a runbook may run it)."""

    interface: str
    step: str
    args: dict[str, Arg]

    @property
    def key(self) -> tuple[str, str]:
        return (self.interface, self.step)


def _steps(*items: tuple[str, str, str]) -> tuple[ServiceStep, ...]:
    """Steps from ``(interface, step, "name*:type name:type")``; ``*`` marks required."""
    out = []
    for interface, step, args in items:
        parsed: dict[str, Arg] = {}
        for word in args.split():
            name, kind = word.split(":")
            parsed[name.rstrip("*")] = Arg(kind, name.endswith("*"))
        out.append(ServiceStep(interface, step, parsed))
    return tuple(out)


# The agent's clean steps on the deploy interface, and its RAID interface's steps.
AGENT = _steps(
    ("deploy", "erase_devices", ""),
    ("deploy", "erase_devices_metadata", ""),
    ("raid", "apply_configuration", "raid_config*:object delete_existing:boolean"),
    (
        "raid",
        "create_configuration",
        "create_root_volume:boolean create_nonroot_volumes:boolean delete_existing:boolean",
    ),
    ("raid", "delete_configuration", ""),
)
REDFISH = _steps(
    ("deploy", "erase_devices", ""),
    ("deploy", "erase_devices_metadata", ""),
    ("bios", "apply_configuration", "settings*:array"),
    ("bios", "factory_reset", ""),
    (
        "raid",
        "apply_configuration",
        "raid_config*:object delete_existing:boolean create_root_volume:boolean "
        "create_nonroot_volumes:boolean",
    ),
    (
        "raid",
        "create_configuration",
        "create_root_volume:boolean create_nonroot_volumes:boolean delete_existing:boolean",
    ),
    ("raid", "delete_configuration", ""),
    ("management", "reset_secure_boot_keys_to_default", ""),
    ("management", "clear_secure_boot_keys", ""),
    ("firmware", "update", "settings*:array"),
)
BIOS = _steps(
    ("bios", "apply_configuration", "settings*:array"),
    ("bios", "factory_reset", ""),
)

CATALOGUES: dict[str, tuple[ServiceStep, ...]] = {
    # Ironic's fake interfaces: BIOS and firmware clean steps, no agent.
    "fake-hardware": BIOS + _steps(("firmware", "update", "settings*:array")),
    "redfish": REDFISH,
    "idrac": REDFISH,  # idrac-redfish interfaces
    "ipmi": AGENT,  # no BIOS or firmware interface over IPMI
    "ilo": AGENT
    + BIOS
    + _steps(
        ("management", "update_firmware", "firmware_update_mode*:string firmware_images*:array")
    ),
    "irmc": AGENT + BIOS,
    "manual-management": AGENT,
}


def catalogue(driver: str) -> tuple[ServiceStep, ...]:
    return CATALOGUES.get(driver, ())


def problems(
    values: Mapping[str, Any], catalogues: Mapping[str, Sequence[ServiceStep]] = CATALOGUES
) -> list[TemplateProblem]:
    """What is wrong with a well-shaped runbook (traits; steps of interface, step, args and
    order): a trait Ironic refuses, an order twice, and each step against ``catalogues``."""
    out: list[TemplateProblem] = []
    for index, trait in enumerate(values["traits"]):
        if not traits.is_valid_node_trait(trait):
            out.append(
                TemplateProblem(
                    ("traits", index),
                    f"{trait!r} is not a trait Ironic accepts: a standard os-traits name or "
                    "CUSTOM_ followed by A-Z, 0-9 and _",
                    "runbook-trait",
                )
            )
    first: dict[int, int] = {}
    for index, step in enumerate(values["steps"]):
        order = step["order"]
        if order in first:
            out.append(
                TemplateProblem(
                    ("steps", index, "order"),
                    f"order {order} is already steps[{first[order]}]'s: each step of a runbook "
                    "has an order of its own",
                    "runbook-duplicate-order",
                )
            )
        else:
            first[order] = index
        out.extend(_against_catalogues(index, step, catalogues))
    return out


def _against_catalogues(
    index: int, step: Mapping[str, Any], catalogues: Mapping[str, Sequence[ServiceStep]]
) -> list[TemplateProblem]:
    key = (step["interface"], step["step"])
    label = f"{key[0]}.{key[1]}"
    offered = [found for steps in catalogues.values() for found in steps if found.key == key]
    if not offered:
        known = sorted(
            {s.step for steps in catalogues.values() for s in steps if s.interface == key[0]}
        )
        best = closest(key[1], known)
        hint = f" (did you mean {best!r}?)" if best is not None else ""
        return [
            TemplateProblem(
                ("steps", index, "step"),
                f"{label} is not a clean or service step of any known driver{hint}. Steps "
                f"on {key[0]}: {', '.join(known) or 'none'} (drivers: {', '.join(catalogues)})",
                "runbook-step-unknown",
            )
        ]
    args: Mapping[str, Any] = step.get("args") or {}
    accepted: dict[str, Arg] = {}
    for found in offered:
        for name, arg in found.args.items():
            accepted.setdefault(name, arg)
    out: list[TemplateProblem] = []
    unexpected = sorted(set(args) - set(accepted))
    if unexpected:
        out.append(
            TemplateProblem(
                ("steps", index, "args"),
                f"{label} does not accept {', '.join(unexpected)}: it takes "
                f"{', '.join(sorted(accepted)) or 'no arguments'}",
                "runbook-step-args",
            )
        )
    for name in sorted(set(args) & set(accepted)):
        if not accepted[name].accepts(args[name]):
            out.append(
                TemplateProblem(
                    ("steps", index, "args", name),
                    f"{label}'s argument {name} must be of type {accepted[name].type}, not "
                    f"{_json_type(args[name])}",
                    "runbook-step-arg-type",
                )
            )
    required = set.intersection(*({a for a, v in f.args.items() if v.required} for f in offered))
    missing = sorted(required - set(args))
    if missing:
        out.append(
            TemplateProblem(
                ("steps", index, "args"),
                f"{label} needs the argument(s) {', '.join(missing)}",
                "runbook-step-args",
            )
        )
    return out


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    for name, types in _TYPES.items():
        if isinstance(value, types):
            return name
    return type(value).__name__


@dataclass(frozen=True)
class RunbookChoice:
    """Whether a node may run one runbook, and why."""

    runbook: str
    allowed: bool
    matching: tuple[str, ...]  # the node's traits that are the runbook's
    reason: str


def may_run(runbook_traits: Iterable[str], node_traits: Iterable[str]) -> tuple[str, ...]:
    """The node's traits that let it run a runbook with ``runbook_traits`` (Ironic 39: at
    least one is needed)."""
    return tuple(sorted(set(runbook_traits) & set(node_traits)))


def choose(name: str, runbook_traits: Sequence[str], node_traits: Iterable[str]) -> RunbookChoice:
    """Ironic's rule for ``clean|service --runbook``: the node has one of the runbook's traits."""
    matching = may_run(runbook_traits, node_traits)
    if matching:
        return RunbookChoice(name, True, matching, f"the node has {', '.join(matching)}")
    return RunbookChoice(
        name,
        False,
        (),
        f"the node has none of its traits ({', '.join(sorted(runbook_traits)) or 'none'})",
    )


def runbook_plan(
    node: Mapping[str, Any], node_traits: Sequence[str], runbooks: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Which ``runbooks`` (as Ironic's API shows them: name, traits, steps) ``node`` (its uuid,
    name, driver) may run, because of which of its traits, and the steps each would run in
    their order; ``problems``: a step of a runbook it may run that its driver does not offer
    (Ironic fails that clean or service). A driver without a step catalogue here is not
    checked. ``flavorsmith runbook plan`` prints it."""
    driver = node["driver"]
    offered = {s.key for s in catalogue(driver)}
    entries: list[dict[str, Any]] = []
    found: list[str] = []
    for runbook in sorted(runbooks, key=lambda r: r["name"]):
        choice = choose(runbook["name"], runbook["traits"], node_traits)
        steps: list[dict[str, Any]] = []
        if choice.allowed:
            for step in sorted(runbook["steps"], key=lambda s: s["order"]):
                steps.append({k: step[k] for k in ("order", "interface", "step", "args")})
                key = (step["interface"], step["step"])
                if offered and key not in offered:
                    found.append(
                        f"runbook {runbook['name']}: {key[0]}.{key[1]} is not a clean or "
                        f"service step of driver {driver}: Ironic fails the runbook there"
                    )
        entries.append(
            {
                "runbook": choice.runbook,
                "allowed": choice.allowed,
                "because": list(choice.matching),
                "reason": choice.reason,
                "steps": steps,
            }
        )
    return {
        "node": node["name"] or node["uuid"],
        "driver": driver,
        "traits": sorted(node_traits),
        "runbooks": entries,
        "problems": found,
    }


# Ironic 39's words when a runbook's PATCH sets an owner while the runbook is or becomes public
# (``ironic.api.controllers.v1.runbook.RunbooksController.patch``).
PUBLIC_OWNER = "There cannot be an owner for a public runbook"


def patch_refusal(public: bool, patch: Sequence[Mapping[str, Any]]) -> str | None:
    """Why Ironic 39 refuses ``patch`` on a runbook whose ``public`` is as given, on account of
    the runbook's state, or None. The only such refusal: the patch sets ``/owner`` (to
    anything, null included; a ``remove`` does not count) while the runbook is public and the
    patch leaves ``/public`` alone, or while the patch makes it public. Its steps, traits,
    description and extra change in any state (a node cleaning or servicing with it runs
    the copy of the steps it took when it started)."""
    owners = [op.get("value") for op in patch if op["path"] == "/owner" and op["op"] != "remove"]
    if not owners:
        return None
    publics = [op.get("value") for op in patch if op["path"] == "/public" and op["op"] != "remove"]
    if (public and not publics) or (publics and publics[0]):
        return PUBLIC_OWNER
    return None


def resets_owner(patch: Sequence[Mapping[str, Any]]) -> bool:
    """Whether Ironic 39 sets the runbook's owner to null before applying ``patch``: any
    patch that sets ``/public`` (true or false) does, so a patch that changes ``public`` must
    set the owner again to keep it."""
    return any(op["path"] == "/public" and op["op"] != "remove" for op in patch)
