"""Ironic's nodes and deploy templates as JSON Schema: what the handlers' contracts
(api/contract.py) declare they take and answer."""

from __future__ import annotations

from flavorsmith.api.baremetal import serialize as bm_serialize
from flavorsmith.api.contract import READ, WRITE
from flavorsmith.api.schema import (
    ANY_OBJECT,
    BOOL_WORDS,
    BOOLEAN,
    LINKS,
    QUERY_BOOL,
    QUERY_LIMIT,
    SORT_DIR,
    UUID,
    Schema,
    array,
    nullable,
    obj,
    string,
)
from flavorsmith.ironic import deploy_templates as template_rules
from flavorsmith.ironic import node_fields
from flavorsmith.ironic import nodes as node_rules
from flavorsmith.ironic import runbooks as runbook_rules
from flavorsmith.store import deploy_templates as template_store
from flavorsmith.store import nodes as node_store
from flavorsmith.store import runbooks as runbook_store

IRONIC_READ = (*READ, 406)
IRONIC_WRITE = (*WRITE, 406)
# A deploy template's fields, in the order Ironic shows them.
TEMPLATE_FIELDS = ("uuid", "name", "description", "steps", "extra", "created_at", "updated_at")


# A node flag: true/false, or one of Ironic's boolean words.
FLAG: Schema = {"anyOf": [BOOLEAN, string(enum=sorted(BOOL_WORDS))]}

NODE_FIELD_TYPES: dict[str, Schema] = {
    "uuid": UUID,
    "created_at": nullable(string()),
    "updated_at": nullable(string()),
    "description": nullable(string()),
    "driver": string(),
    "driver_info": ANY_OBJECT,
    "extra": ANY_OBJECT,
    "instance_info": ANY_OBJECT,
    "instance_uuid": nullable(string()),
    "last_error": nullable(string()),
    "maintenance": BOOLEAN,
    "maintenance_reason": nullable(string()),
    "name": nullable(string()),
    "power_state": nullable(string()),
    "properties": ANY_OBJECT,
    "provision_state": nullable(string()),
    "provision_updated_at": nullable(string()),
    "resource_class": nullable(string()),
    "target_power_state": nullable(string()),
    "target_provision_state": nullable(string()),
    "traits": array(string()),
    "chassis_uuid": nullable(UUID),
    "console_enabled": BOOLEAN,
    "reservation": nullable(string()),
    "driver_internal_info": ANY_OBJECT,
    "inspection_finished_at": nullable(string()),
    "inspection_started_at": nullable(string()),
    "clean_step": ANY_OBJECT,
    "raid_config": ANY_OBJECT,
    "target_raid_config": ANY_OBJECT,
    **{f: nullable(string()) for f in node_fields.INTERFACE_FIELDS},
    "fault": nullable(string()),
    "deploy_step": ANY_OBJECT,
    "conductor_group": string(),
    "automated_clean": nullable(BOOLEAN),
    "protected": BOOLEAN,
    "protected_reason": nullable(string()),
    "conductor": nullable(string()),
    "owner": nullable(string()),
    "allocation_uuid": nullable(UUID),
    "retired": BOOLEAN,
    "retired_reason": nullable(string()),
    "lessee": nullable(string()),
    "network_data": ANY_OBJECT,
    "boot_mode": nullable(string()),
    "secure_boot": nullable(BOOLEAN),
    "shard": nullable(string()),
    "parent_node": nullable(UUID),
    "service_step": ANY_OBJECT,
    "disable_power_off": BOOLEAN,
    "instance_name": nullable(string()),
    "health": nullable(string()),
}
NODE = obj(
    {**{f: NODE_FIELD_TYPES[f] for f in bm_serialize.FIELDS}, "links": LINKS},
    required=("links",),
    additional=False,
)
NODE_LIST = obj({"nodes": array(NODE), "next": string()}, required=("nodes",), additional=False)
FIELDS_LIST = string(pattern="^[a-z_]+(,[a-z_]+)*$")
TRAIT_LIST = string(pattern="^[A-Z0-9_]+(,[A-Z0-9_]+)*$")
NODE_QUERY_TYPES: dict[str, Schema] = {
    "fields": FIELDS_LIST,
    "limit": QUERY_LIMIT,
    "marker": UUID,
    "sort_key": string(enum=list(node_store.SORT_KEYS)),
    "sort_dir": SORT_DIR,
    "maintenance": QUERY_BOOL,
    "associated": QUERY_BOOL,
    "detail": QUERY_BOOL,
    "driver": string(),
    "traits": TRAIT_LIST,
    "traits-any": TRAIT_LIST,
    "not-traits": TRAIT_LIST,
    "not-traits-any": TRAIT_LIST,
    "retired": QUERY_BOOL,
    "sharded": QUERY_BOOL,
    "include_children": QUERY_BOOL,
}
NODE_WRITE_TYPES: dict[str, Schema] = {
    "uuid": UUID,
    "name": nullable(string(maxLength=255)),
    "driver": string(maxLength=255),  # one of the enabled drivers (serve --enabled-drivers)
    "driver_info": ANY_OBJECT,
    "extra": ANY_OBJECT,
    "properties": ANY_OBJECT,
    "instance_info": ANY_OBJECT,
    "instance_uuid": nullable(string(maxLength=36)),
    "resource_class": nullable(string(maxLength=80)),
    "description": nullable(string(maxLength=4096)),
    "maintenance": nullable(FLAG),
    "automated_clean": nullable(FLAG),
    "retired": nullable(FLAG),
    "disable_power_off": nullable(FLAG),
    "secure_boot": nullable(FLAG),
    "retired_reason": nullable(string()),
    "chassis_uuid": nullable(UUID),
    "conductor_group": nullable(string(pattern="^[a-zA-Z0-9_.-]*$", maxLength=255)),
    "owner": nullable(string(maxLength=255)),
    "lessee": nullable(string(maxLength=255)),
    "shard": nullable(string(maxLength=255)),
    "instance_name": nullable(string(minLength=1, maxLength=255)),
    "boot_mode": nullable(string(maxLength=16)),
    "parent_node": nullable(string(maxLength=36)),
    "network_data": nullable(ANY_OBJECT),
    **{f: nullable(string(minLength=1, maxLength=255)) for f in node_fields.INTERFACE_FIELDS},
}
NODE_CREATE = obj(
    {f: NODE_WRITE_TYPES[f] for f in sorted(node_rules.CREATE_FIELDS)},
    required=("driver",),
    additional=False,
)
TRAIT = string(pattern="^(CUSTOM_[A-Z0-9_]+|[A-Z][A-Z0-9_]*)$", maxLength=255)
VALIDATION = obj(
    {
        name: obj({"result": BOOLEAN, "reason": string()}, required=("result",))
        for name in node_rules.INTERFACES
    },
    required=node_rules.INTERFACES,
)
STEP = obj(
    {
        "interface": string(enum=list(template_rules.INTERFACES)),
        "step": string(minLength=1),
        "args": ANY_OBJECT,
        "priority": {"type": "integer", "minimum": 0},
    },
    required=tuple(sorted(template_rules.STEP_KEYS)),
    additional=False,
)
TEMPLATE_FIELD_TYPES: dict[str, Schema] = {
    "uuid": UUID,
    "name": string(),
    "description": nullable(string()),
    "steps": array(STEP),
    "extra": ANY_OBJECT,
    "created_at": nullable(string()),
    "updated_at": nullable(string()),
}
TEMPLATE = obj(
    {**{f: TEMPLATE_FIELD_TYPES[f] for f in TEMPLATE_FIELDS}, "links": LINKS},
    required=("links",),
    additional=False,
)
TEMPLATE_CREATE = obj(
    {
        "uuid": UUID,
        "name": TRAIT,
        "description": nullable(string(maxLength=255)),
        "steps": array(STEP, minItems=1),
        "extra": nullable(ANY_OBJECT),
    },
    required=("name", "steps"),
    additional=False,
)
TEMPLATE_QUERY = {
    "detail": QUERY_BOOL,
    "fields": FIELDS_LIST,
    "limit": QUERY_LIMIT,
    "marker": UUID,
    "sort_dir": SORT_DIR,
    "sort_key": string(enum=list(template_store.SORT_KEYS)),
}
# A runbook's fields, in the order Ironic 39 shows them (description and traits from 1.112).
RUNBOOK_FIELDS = (
    "uuid",
    "created_at",
    "updated_at",
    "name",
    "extra",
    "public",
    "owner",
    "disable_ramdisk",
    "description",
    "steps",
    "traits",
)
RUNBOOK_STEP = obj(
    {
        "interface": string(enum=list(runbook_rules.INTERFACES)),
        "step": string(minLength=1),
        "args": ANY_OBJECT,
        "order": {"anyOf": [{"type": "integer", "minimum": 0}, string(pattern="^[0-9]+$")]},
    },
    required=("interface", "step", "order"),
    additional=False,
)
RUNBOOK_FIELD_TYPES: dict[str, Schema] = {
    "uuid": UUID,
    "created_at": nullable(string()),
    "updated_at": nullable(string()),
    "name": string(),
    "extra": ANY_OBJECT,
    "public": BOOLEAN,
    "owner": nullable(string()),
    "disable_ramdisk": BOOLEAN,
    "description": nullable(string()),
    "steps": array(RUNBOOK_STEP),
    "traits": array(string()),
}
RUNBOOK = obj(
    {**RUNBOOK_FIELD_TYPES, "links": LINKS},
    required=("links",),
    additional=False,
)
RUNBOOK_CREATE = obj(
    {
        "uuid": nullable(string()),
        "name": string(minLength=1, maxLength=255),
        "description": nullable(string(maxLength=255)),
        "steps": array(RUNBOOK_STEP, minItems=1),
        "disable_ramdisk": nullable(BOOLEAN),
        "extra": nullable(ANY_OBJECT),
        "public": nullable(BOOLEAN),
        "owner": nullable(string(maxLength=255)),
    },
    required=("name", "steps"),
    additional=False,
)
RUNBOOK_QUERY = {
    "detail": QUERY_BOOL,
    "fields": FIELDS_LIST,
    "limit": QUERY_LIMIT,
    "marker": string(),
    "project": QUERY_BOOL,
    "sort_dir": SORT_DIR,
    "sort_key": string(enum=list(runbook_store.SORT_KEYS)),
}
RUNBOOK_TRAITS = obj({"traits": array(TRAIT)}, additional=False)
IRONIC_VERSION = obj(
    {
        "id": string(),
        "links": LINKS,
        "status": string(),
        "min_version": string(),
        "version": string(),
    },
    required=("id", "links", "status", "min_version", "version"),
)
