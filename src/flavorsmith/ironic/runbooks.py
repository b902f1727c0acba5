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

import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flavorsmith import jsonsafe, traits
from flavorsmith.did_you_mean import closest
from flavorsmith.errors import Invalid
from flavorsmith.ironic import idents
from flavorsmith.ironic.deploy_templates import TemplateProblem
from flavorsmith.ironic.patch import patched
from flavorsmith.query_values import ascii_int

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


# The steps each hardware type of Ironic 39 offers a runbook with its default interfaces,
# read from Ironic 39's drivers (the methods its clean_step and service_step decorators mark,
# with their argsinfo), plus the agent's own clean steps on the deploy interface, which the
# ramdisk reports at run time. Ironic 39 ships no ilo or irmc hardware type any more.

# The ramdisk's (ironic-python-agent's) steps, and the agent RAID interface's.
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
    ("management", "set_bmc_clock", "target_datetime:string datetime_local_offset:string"),
    ("management", "update_firmware", "firmware_images*:array"),
    ("firmware", "update", "settings*:array"),
)
# idrac-redfish's management interface: Redfish's steps and the iDRAC's own.
IDRAC = REDFISH + _steps(
    ("management", "clear_job_queue", ""),
    ("management", "known_good_state", ""),
    ("management", "reset_idrac", ""),
)
BIOS = _steps(
    ("bios", "apply_configuration", "settings*:array"),
    ("bios", "factory_reset", ""),
)
# The IPMI vendor interface's raw command.
IPMI = AGENT + _steps(("vendor", "send_raw", "raw_bytes*:string"))

CATALOGUES: dict[str, tuple[ServiceStep, ...]] = {
    # Ironic's fake interfaces: BIOS (with its settings cache) and firmware clean steps, the
    # fake vendor interface's, no agent.
    "fake-hardware": BIOS
    + _steps(
        ("bios", "cache_bios_settings", ""),
        ("firmware", "update", "settings*:array"),
        ("vendor", "log_passthrough", ""),
        ("vendor", "trigger_servicewait", ""),
    ),
    "redfish": REDFISH,
    "idrac": IDRAC,
    "ipmi": IPMI,  # no BIOS or firmware interface over IPMI
    "intel-ipmi": IPMI,
    "manual-management": AGENT,
}


def catalogue(driver: str) -> tuple[ServiceStep, ...]:
    return CATALOGUES.get(driver, ())


def problems(
    values: Mapping[str, Any], catalogues: Mapping[str, Sequence[ServiceStep]] = CATALOGUES
) -> list[TemplateProblem]:
    """What is wrong with a well-shaped runbook (traits; steps of interface, step, args and
    order): a trait Ironic refuses, a step (interface and step) twice, as Ironic refuses it, an
    order twice, and each step against ``catalogues``."""
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
    pairs: dict[tuple[str, str], int] = {}
    for index, step in enumerate(values["steps"]):
        pair = (step["interface"], step["step"])
        if pair in pairs:
            out.append(
                TemplateProblem(
                    ("steps", index, "step"),
                    f"{pair[0]}.{pair[1]} is already steps[{pairs[pair]}]: Ironic refuses a "
                    "runbook with the same interface and step twice",
                    "runbook-duplicate-step",
                )
            )
        else:
            pairs[pair] = index
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


# The API's rules (Ironic 39's ironic/api/controllers/v1/runbook.py), in Ironic's words.

# The interfaces a runbook step may name: Ironic's CLEANING_INTERFACE_PRIORITY, in its order.
INTERFACES = ("vendor", "power", "management", "firmware", "deploy", "bios", "raid")
STEP_KEYS = ("interface", "step", "args", "order")
# What a create body may hold; ``description`` only from API 1.112 (``traits_api``).
CREATE_FIELDS = ("uuid", "name", "steps", "disable_ramdisk", "extra", "public", "owner")
# What a JSON patch may change, in the order Ironic lists them when it refuses a path.
PATCHABLE = ("disable_ramdisk", "extra", "name", "owner", "public", "steps")
# Ironic 1.112's name: URL-unreserved characters (before 1.112 a name is a trait).
_NAME_RE = re.compile(r"^[A-Za-z0-9\-._~]+$")


def _schema_error(message: str) -> Invalid:
    return Invalid(f"Schema error for runbook: {message}")


def check_ident(ident: str) -> str:
    """A runbook identifier in a path: a UUID or a name, else Ironic's 400."""
    return idents.check_ident(ident, "runbook")


def valid_name(name: Any, *, traits_api: bool) -> bool:
    """A runbook's name: from API 1.112 any 1-255 URL-unreserved characters; before, a trait
    (a standard os-traits name or CUSTOM_...), as Ironic's schemas ask."""
    if not isinstance(name, str) or not 1 <= len(name) <= 255:
        return False
    if traits_api:
        return bool(_NAME_RE.match(name))
    return traits.is_valid_node_trait(name)


def _check_name(name: Any, *, traits_api: bool) -> str:
    if valid_name(name, traits_api=traits_api):
        return str(name)
    if not isinstance(name, str):
        raise _schema_error(f"{name!r} is not of type 'string'")
    if traits_api:
        if not name:
            raise _schema_error("'' should be non-empty")
        if len(name) > 255:
            raise _schema_error(f"{name!r} is too long")
        raise _schema_error(f"{name!r} does not match {_NAME_RE.pattern!r}")
    raise _schema_error(
        f"{name!r} is not valid under any of the given schemas. Possible root cause: {name!r} "
        "does not match '^CUSTOM_[A-Z0-9_]+$'"
    )


def _check_order(value: Any) -> int:
    if isinstance(value, str):
        number = ascii_int(value) if value.isascii() and value.isdigit() else None
        if number is None:
            if value.isascii() and value.isdigit():  # beyond 64 bits: this service's limit
                raise _schema_error(f"{value!r} is more than {2**63 - 1}, the largest")
            if not value:
                raise _schema_error("'' should be non-empty")
            raise _schema_error(f"{value!r} does not match '^[0-9]+$'")
        return number
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON Schema's integer, as Ironic's: 1.0 is 1
    if isinstance(value, bool) or not isinstance(value, int):
        raise _schema_error(
            f"{value!r} is not valid under any of the given schemas. Possible root cause: "
            f"{value!r} is not of type 'integer'"
        )
    if value < 0:
        raise _schema_error(f"{value!r} is less than the minimum of 0")
    if value > 2**63 - 1:
        raise _schema_error(f"{value!r} is more than {2**63 - 1}, the largest")
    return value


def check_steps(steps: Any) -> list[dict[str, Any]]:
    """A runbook's steps in Ironic's shape, normalised: a non-empty list; each step has
    interface (one of :data:`INTERFACES`), step (a non-empty string) and order (an integer of
    at least 0, or a string of digits, stored as a number), and args (an object; ``{}`` when
    left out); no (interface, step) twice. Refused in Ironic's words."""
    if not isinstance(steps, list):
        raise _schema_error(f"{steps!r} is not of type 'array'")
    if not steps:
        raise _schema_error("[] should be non-empty")
    out: list[dict[str, Any]] = []
    for step in steps:
        if not isinstance(step, dict):
            raise _schema_error(f"{step!r} is not of type 'object'")
        unexpected = [k for k in step if k not in STEP_KEYS]
        if unexpected:
            raise _schema_error(
                f"Additional properties are not allowed ({unexpected[0]!r} was unexpected)"
            )
        for key in ("interface", "step", "order"):
            if key not in step:
                raise _schema_error(f"{key!r} is a required property")
        if not isinstance(step["interface"], str):
            raise _schema_error(f"{step['interface']!r} is not of type 'string'")
        if step["interface"] not in INTERFACES:
            raise _schema_error(f"{step['interface']!r} is not one of {list(INTERFACES)!r}")
        if not isinstance(step["step"], str):
            raise _schema_error(f"{step['step']!r} is not of type 'string'")
        if not step["step"]:
            raise _schema_error("'' should be non-empty")
        args = step.get("args", {})
        if not isinstance(args, dict):
            raise _schema_error(f"{args!r} is not of type 'object'")
        order = _check_order(step["order"])
        out.append(
            {"interface": step["interface"], "step": step["step"], "args": args, "order": order}
        )
    counts: dict[tuple[str, str], int] = {}
    for step in out:
        pair = (str(step["interface"]), str(step["step"]))
        counts[pair] = counts.get(pair, 0) + 1
    duplicates = [k for k, n in counts.items() if n > 1]
    if duplicates:
        listed = "; ".join(f"interface: {i}, step: {s}" for i, s in duplicates)
        raise Invalid(
            "Deploy template invalid: Duplicate deploy steps. A template cannot have multiple "
            f"deploy steps with the same interface and step. Duplicates: {listed}."
        )
    return out


def _check_optional(values: Mapping[str, Any], *, traits_api: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("disable_ramdisk", "public"):
        value = values.get(name)
        if value is not None and not isinstance(value, bool):
            raise _schema_error(f"{value!r} is not of type 'boolean', 'null'")
        out[name] = bool(value)
    extra = values.get("extra")
    if extra is not None and not isinstance(extra, dict):
        raise _schema_error(f"{extra!r} is not of type 'object', 'null'")
    out["extra"] = extra or {}
    owner = values.get("owner")
    if owner is not None and not isinstance(owner, str):
        raise _schema_error(f"{owner!r} is not of type 'string', 'null'")
    if owner is not None and len(owner) > 255:
        raise _schema_error(f"{owner!r} is too long")
    out["owner"] = owner
    if traits_api:
        description = values.get("description")
        if description is not None and not isinstance(description, str):
            raise _schema_error(f"{description!r} is not of type 'string', 'null'")
        if description is not None and len(description) > 255:
            raise _schema_error(f"{description!r} is too long")
        out["description"] = description
    return out


def checked_create(body: Any, *, traits_api: bool) -> dict[str, Any]:
    """A create request's body, validated as Ironic 39 does at the request's microversion
    (``traits_api``: 1.112 or later): the values to store (owner as sent: the caller's scope
    rules are the API's). Traits are never part of it (``/runbooks/{id}/traits``)."""
    if not isinstance(body, dict):
        raise _schema_error(f"{body!r} is not of type 'object'")
    allowed = (*CREATE_FIELDS, "description") if traits_api else CREATE_FIELDS
    unexpected = [k for k in body if k not in allowed]
    if unexpected:
        raise _schema_error(
            f"Additional properties are not allowed ({unexpected[0]!r} was unexpected)"
        )
    for required in ("steps", "name"):
        if required not in body:
            raise _schema_error(f"{required!r} is a required property")
    sent_uuid = body.get("uuid")
    if sent_uuid is not None and not isinstance(sent_uuid, str):
        raise _schema_error(f"{sent_uuid!r} is not of type 'string', 'null'")
    values: dict[str, Any] = {
        "name": _check_name(body["name"], traits_api=traits_api),
        "steps": check_steps(body["steps"]),
        **_check_optional(body, traits_api=traits_api),
    }
    if sent_uuid is not None:
        if not idents.is_uuid(sent_uuid):
            raise Invalid(f"Expected UUID for uuid: {sent_uuid}")
        values["uuid"] = str(uuid.UUID(sent_uuid))  # canonical: it fits its column
    _storable(values)
    return values


def _storable(values: Mapping[str, Any]) -> None:
    for name in ("name", "steps", "description", "extra", "owner"):
        jsonsafe.check_value(name, values.get(name))


def check_patch_paths(patch: Any, *, traits_api: bool) -> None:
    """A JSON patch's operations and paths, as Ironic checks them before it looks the
    runbook up: add, replace or remove of a patchable field (``description`` from 1.112)."""
    patchable = (*PATCHABLE, "description") if traits_api else PATCHABLE
    if not isinstance(patch, list) or not all(isinstance(op, dict) for op in patch):
        raise Invalid("A runbook update is a JSON patch: a list of operations")
    for op in patch:
        path = op.get("path")
        if op.get("op") not in ("add", "replace", "remove"):
            raise Invalid(
                f"Unsupported patch operation {op.get('op')!r}: use add, replace or remove"
            )
        top = path.split("/")[1] if isinstance(path, str) and path.startswith("/") else None
        if top not in patchable:
            raise Invalid(
                f"Cannot patch {path}. Only the following can be updated: {', '.join(patchable)}"
            )


def apply_patch(row: Mapping[str, Any], patch: Any, *, traits_api: bool) -> dict[str, Any]:
    """The changed fields after a JSON patch, as Ironic 39 applies one: only the patchable
    fields (``description`` from 1.112; never ``traits``, which have their own resource), an
    owner only as :func:`patch_refusal` allows, and ``public`` set clears the owner. Steps
    keep the order the patch leaves them in."""
    patchable = (*PATCHABLE, "description") if traits_api else PATCHABLE
    document = {name: row[name] for name in patchable}

    def apply(doc: Mapping[str, Any]) -> dict[str, Any]:
        return patched(
            doc,
            patch,
            noun="runbook",
            patchable=patchable,
            required={},  # a removed name or steps is the schema's refusal, below
            allow_empty=True,  # as Ironic: an empty patch changes nothing (200)
        )

    result = apply(document)  # the operations and their paths first, as Ironic
    refused = patch_refusal(bool(row["public"]), patch)
    if refused is not None:
        raise Invalid(f"Couldn't apply patch '{patch!r}'. Reason: {refused}")
    if resets_owner(patch):  # as Ironic: setting public clears the owner before the patch
        result = apply({**document, "owner": None})
    try:
        for name in ("steps", "name"):
            if name not in result:
                raise _schema_error(f"{name!r} is a required property")
        values = {
            # As Ironic: a patch is checked against 1.112's names whatever the version, so
            # a runbook named at 1.112 stays patchable below it.
            "name": _check_name(result["name"], traits_api=True),
            "steps": check_steps(result["steps"]),
            **_check_optional(result, traits_api=traits_api),
        }
    except Invalid as exc:
        if exc.message.startswith("Schema error for runbook: "):
            raise Invalid(exc.message.replace("for runbook", "for patch", 1)) from None
        raise
    _storable(values)
    return {k: v for k, v in values.items() if row[k] != v}


# The key words oslo.utils' mask_dict_password hides the values of (Ironic 39 shows a
# runbook's step arguments through it): any key containing one, in any case.
SECRET_WORDS = (
    "adminpass", "admin_pass", "password", "admin_password", "auth_token", "new_pass",
    "auth_password", "secret_uuid", "secret", "sys_pswd", "token", "configdrive",
    "chappassword", "encrypted_key", "private_key", "fernetkey", "sslkey", "passphrase",
    "cephclusterfsid", "octaviaheartbeatkey", "rabbitcookie", "cephmanilaclientkey",
    "pacemakerremoteauthkey", "designaterndckey", "cephadminkey", "heatauthencryptionkey",
    "cephclientkey", "keystonecredential", "barbicansimplecryptokek", "cephrgwkey",
    "swifthashsuffix", "migrationsshkey", "cephmdskey", "cephmonkey", "chapsecret",
)  # fmt: skip
MASK = "******"


def masked(args: Mapping[str, Any]) -> dict[str, Any]:
    """A step's arguments as Ironic 39 shows them: the value of a key that names a secret is
    ``******``, in nested objects too. (Ironic also masks ``password=...`` written inside a
    string value; such text is shown as it is here.)"""
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, Mapping):
            out[key] = masked(value)
        elif any(word in key.lower() for word in SECRET_WORDS):
            out[key] = MASK
        else:
            out[key] = value
    return out
