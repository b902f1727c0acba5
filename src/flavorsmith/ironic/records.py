"""Node records as Ironic's tools print them, read into one shape: Ironic's field names.

A node import file is one of (recognised in this order, see :func:`read`):

* the body of ``GET /v1/nodes/detail`` — ``{"nodes": [...], "next": URL?}`` with every field
  of the node object, ``links`` and the ``ports``/``portgroups``/``states``/``volume`` link lists;
* the output of ``openstack baremetal node list --long -f json`` (or ``-f yaml``): a list of
  mappings, keyed by field name (python-ironicclient 6) or by the column headers older clients
  print (``"UUID"``, ``"Resource Class"``, ``"Provisioning State"``...; :data:`HEADERS`);
* the output of ``openstack baremetal node show -f json`` (or the body of ``GET
  /v1/nodes/{node}``): one mapping;
* Flavorsmith's own inventory (``examples/nodes.yaml``): a list, or ``{nodes: [...]}``.

A list or ``{nodes: [...]}`` is Ironic output when some entry has a CLI column header or an
Ironic node field the inventory format does not take (``links``, ``created_at``,
``chassis_uuid``...); otherwise it is an inventory, whose unknown keys stay errors (typos). In
Ironic output every field of Ironic's node (:data:`IRONIC_FIELDS`) is accepted; those
Flavorsmith does not store are ignored, and keys that are no Ironic field are ignored with a
note, never an error.

Secrets are never stored: ``driver_info`` (BMC addresses and credentials, masked as
``"******"`` by Ironic anyway; the matcher never uses it) is not read from Ironic output at
all (:data:`DROPPED`), and an inventory's ``driver_info`` loses every key whose name contains
one of :data:`SECRET_WORDS` (:func:`without_secrets`).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any


class Kind(enum.Enum):
    """What a node import file is, in the words the import's notes use."""

    INVENTORY = "a Flavorsmith inventory"
    API = "Ironic's node list (GET /v1/nodes/detail)"
    CLI_LIST = "`openstack baremetal node list --long` output"
    CLI_SHOW = "`openstack baremetal node show` output"

    @property
    def from_ironic(self) -> bool:
        return self is not Kind.INVENTORY


# Every field of Ironic 39's node as GET /v1/nodes/detail prints it at the latest microversion
# (1.99), with the column header older `openstack baremetal node list --long` releases keyed
# their JSON by ("" where the CLI has no column). The fields Flavorsmith stores are the ones its
# node store imports (flavorsmith.store.nodes.IMPORTED, plus uuid, name and traits); every other
# field here is accepted and ignored. Storing another one later means adding its column to
# IMPORTED: this table needs no change.
IRONIC_FIELDS: dict[str, str] = {
    "allocation_uuid": "Allocation UUID",
    "automated_clean": "Automated Clean",
    "bios_interface": "BIOS Interface",
    "boot_interface": "Boot Interface",
    "boot_mode": "Boot Mode",
    "chassis_uuid": "Chassis UUID",
    "clean_step": "Clean Step",
    "conductor": "Conductor",
    "conductor_group": "Conductor Group",
    "console_enabled": "Console Enabled",
    "console_interface": "Console Interface",
    "created_at": "Created At",
    "deploy_interface": "Deploy Interface",
    "deploy_step": "Deploy Step",
    "description": "Description",
    "disable_power_off": "Disable Power Off",
    "driver": "Driver",
    "driver_info": "Driver Info",
    "driver_internal_info": "Driver Internal Info",
    "extra": "Extra",
    "fault": "Fault",
    "firmware_interface": "Firmware Interface",
    "health": "Health",
    "inspect_interface": "Inspect Interface",
    "inspection_finished_at": "Inspection Finished At",
    "inspection_started_at": "Inspection Started At",
    "instance_info": "Instance Info",
    "instance_name": "Instance Name",
    "instance_uuid": "Instance UUID",
    "last_error": "Last Error",
    "lessee": "Lessee",
    "links": "",
    "maintenance": "Maintenance",
    "maintenance_reason": "Maintenance Reason",
    "management_interface": "Management Interface",
    "name": "Name",
    "network_data": "Network Configuration",
    "network_interface": "Network Interface",
    "owner": "Owner",
    "parent_node": "Parent Node",
    "portgroups": "",
    "ports": "",
    "power_interface": "Power Interface",
    "power_state": "Power State",
    "properties": "Properties",
    "protected": "Protected",
    "protected_reason": "Protected Reason",
    "provision_state": "Provisioning State",
    "provision_updated_at": "Provision Updated At",
    "raid_config": "Current RAID configuration",
    "raid_interface": "RAID Interface",
    "rescue_interface": "Rescue Interface",
    "reservation": "Reservation",
    "resource_class": "Resource Class",
    "retired": "Retired",
    "retired_reason": "Retired Reason",
    "secure_boot": "Secure Boot",
    "service_step": "",
    "shard": "",
    "states": "",
    "storage_interface": "Storage Interface",
    "target_power_state": "Target Power State",
    "target_provision_state": "Target Provision State",
    "target_raid_config": "Target RAID configuration",
    "traits": "Traits",
    "updated_at": "Updated At",
    "uuid": "UUID",
    "vendor_interface": "Vendor Interface",
    "volume": "",
}
# Column header -> field name.
HEADERS: dict[str, str] = {header: name for name, header in IRONIC_FIELDS.items() if header}
# Ironic fields never read from Ironic output, and why.
DROPPED: dict[str, str] = {
    "driver_info": "BMC addresses and credentials (secrets masked as '******'); "
    "the matcher never uses them",
}
# The columns of `openstack baremetal node list` without --long: too few to import from.
SHORT_LIST = frozenset(
    {"uuid", "name", "instance_uuid", "power_state", "provision_state", "maintenance"}
)
# A driver_info key whose name contains one of these (any case) holds a secret.
SECRET_WORDS = ("password", "secret", "token", "key")


class NotNodes(Exception):
    """The file is none of the representations: ``path`` says where, ``message`` what."""

    def __init__(self, path: list[str | int], message: str, *, at_key: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.at_key = at_key


@dataclass(frozen=True)
class Dump:
    """The entries of an import file and what the file is."""

    kind: Kind
    entries: list[Any]
    prefix: tuple[str, ...] = ()  # where the list of entries is in the document
    notes: tuple[str, ...] = ()

    def path(self, index: int) -> list[str | int]:
        """Where entry ``index`` is in the document."""
        return [] if self.kind is Kind.CLI_SHOW else [*self.prefix, index]


@dataclass(frozen=True)
class Record:
    """One node from Ironic output: the fields asked for, by Ironic field name."""

    fields: dict[str, Any]
    keys: dict[str, str] = field(default_factory=dict)  # field -> the key as written
    unknown: tuple[str, ...] = ()  # keys that are no field of Ironic's node
    dropped: tuple[str, ...] = ()  # DROPPED fields the entry had a value for


def _key_field(key: Any) -> str | None:
    """The Ironic field a key (a field name or a CLI column header) names, if any."""
    if not isinstance(key, str):
        return None
    if key in IRONIC_FIELDS:
        return key
    return HEADERS.get(key)


def _ironic_keys(entry: Any, only_ironic: frozenset[str]) -> bool:
    """Whether a mapping has one of the keys only Ironic output has."""
    return isinstance(entry, dict) and any(
        isinstance(key, str) and key in only_ironic for key in entry
    )


class Survey:
    """What a file's entries show about it, seen one entry at a time (:meth:`see`), so a
    file read as a stream is recognised as :func:`read` recognises a whole one
    (:meth:`recognise`); ``inventory_keys`` are the keys the inventory format takes."""

    def __init__(self, inventory_keys: Collection[str]) -> None:
        # A CLI header, or a field of Ironic's node that the inventory format does not take.
        self.only_ironic = frozenset(HEADERS) | (
            frozenset(IRONIC_FIELDS) - frozenset(inventory_keys)
        )
        self.ironic = False  # some entry has a key only Ironic output has
        self.short = True  # every entry has just the columns of a short node list
        self.count = 0

    def see(self, entry: Any) -> None:
        self.count += 1
        if not self.ironic and _ironic_keys(entry, self.only_ironic):
            self.ironic = True
        if self.short and not (
            isinstance(entry, dict) and {_key_field(k) for k in entry} == SHORT_LIST
        ):
            self.short = False

    def recognise(self, top: Any) -> tuple[Kind, tuple[str, ...], tuple[str, ...]]:
        """What the file is, where its entries are and notes to show, from the document
        ``top`` (its list of entries left out: seen) once every entry has been seen. A
        mapping without ``nodes`` is one node: CLI_SHOW (:meth:`see` it first). Raises
        NotNodes."""
        if isinstance(top, dict) and "nodes" in top:
            if not isinstance(top["nodes"], list):
                raise NotNodes(["nodes"], "expected a list of nodes")
            ironic = self.ironic or "next" in top
            extra = sorted(str(k) for k in top if k not in ("nodes", "next"))
            if not ironic and extra:
                raise NotNodes(
                    [extra[0]], f"unknown key {extra[0]!r}; the file has only 'nodes'", at_key=True
                )
            if not ironic:
                return Kind.INVENTORY, ("nodes",), ()
            self._refuse_short(("nodes",))
            notes = []
            if top.get("next"):
                notes.append(
                    f"the file is one page of Ironic's node list; the nodes after it "
                    f"({top['next']}) are not in it: fetch and import every page"
                )
            return Kind.API, ("nodes",), tuple(notes)
        if isinstance(top, list):
            self._refuse_short(())
            return (Kind.CLI_LIST if self.ironic else Kind.INVENTORY), (), ()
        if isinstance(top, dict) and _ironic_keys(top, self.only_ironic):
            return Kind.CLI_SHOW, (), ()
        raise NotNodes(
            [], "expected a list of nodes (or a mapping with 'nodes', or one Ironic node)"
        )

    def _refuse_short(self, prefix: tuple[str, ...]) -> None:
        if self.count and self.short:
            raise NotNodes(
                list(prefix),
                "this is `openstack baremetal node list` output without --long: it has no "
                "driver, resource class, properties or traits; dump with --long (or node show)",
            )


def entries_of(data: Any) -> list[Any]:
    """The entries of a parsed import file: its list, its ``nodes`` list, or none."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("nodes"), list):
        entries: list[Any] = data["nodes"]
        return entries
    return []


def read(data: Any, inventory_keys: Collection[str]) -> Dump:
    """Recognise the representation of a parsed import file (see the module docstring);
    ``inventory_keys`` are the keys the inventory format takes. Raises NotNodes."""
    survey = Survey(inventory_keys)
    entries = entries_of(data)
    for entry in entries:
        survey.see(entry)
    kind, prefix, notes = survey.recognise(data)
    return Dump(kind, [data] if kind is Kind.CLI_SHOW else entries, prefix, notes)


def record(entry: Mapping[Any, Any], wanted: Collection[str]) -> Record:
    """The fields of one Ironic-output entry that are in ``wanted`` (never a DROPPED one),
    by field name; a CLI traits column given as text ("A, B") becomes a list."""
    fields: dict[str, Any] = {}
    keys: dict[str, str] = {}
    unknown: list[str] = []
    dropped: list[str] = []
    for key, value in entry.items():
        name = _key_field(key)
        if name is None:
            unknown.append(str(key))
            continue
        if name in DROPPED:
            if value:
                dropped.append(name)
            continue
        if name not in wanted:
            continue
        if name == "traits" and isinstance(value, str):
            value = [t.strip() for t in value.split(",") if t.strip()]
        fields[name] = value
        keys[name] = str(key)
    return Record(fields, keys, tuple(unknown), tuple(dropped))


@functools.lru_cache(maxsize=4096)
def is_secret(key: str) -> bool:
    """Whether a driver_info key holds a secret (an inventory repeats a few keys on every
    node: each is looked at once)."""
    lowered = key.lower()
    return any(word in lowered for word in SECRET_WORDS)


def without_secrets(driver_info: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``driver_info`` without the keys that hold secrets, and those keys."""
    kept: dict[str, Any] = {}
    secrets: list[str] = []
    for key, value in driver_info.items():
        if is_secret(str(key)):
            secrets.append(str(key))
        else:
            kept[key] = value
    return kept, secrets


__all__ = [
    "DROPPED",
    "HEADERS",
    "IRONIC_FIELDS",
    "SECRET_WORDS",
    "SHORT_LIST",
    "Dump",
    "Kind",
    "NotNodes",
    "Record",
    "Survey",
    "entries_of",
    "is_secret",
    "read",
    "record",
    "without_secrets",
]
