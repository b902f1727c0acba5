"""The bodies, query parameters and answers of each API family, as JSON Schema, built from
the constants the handlers check against."""

from __future__ import annotations

from collections.abc import Mapping

from flavorsmith.api.baremetal import deploy_templates as bm_templates
from flavorsmith.api.baremetal import nodes as bm_nodes
from flavorsmith.api.baremetal import serialize as bm_serialize
from flavorsmith.api.loadbalancer.common import PAGING
from flavorsmith.api.native import login as login_rules
from flavorsmith.api.openapi.schemas import (
    ANY_OBJECT,
    BOOL_WORDS,
    BOOLEAN,
    INTEGER,
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
from flavorsmith.store import deploy_templates as template_store
from flavorsmith.store import nodes as node_store
from flavorsmith.store import nova_flavors as nova_store

# --- Ironic

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
NODE_DETAIL_PARAMS = [p for p in bm_nodes.LIST_PARAMS if p not in ("fields", "detail")]
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
    {**{f: TEMPLATE_FIELD_TYPES[f] for f in bm_templates.FIELDS}, "links": LINKS},
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

# --- Nova

NOVA_FLAVOR = obj(
    {
        "id": string(),
        "name": string(),
        "ram": INTEGER,
        "disk": INTEGER,
        "swap": {"anyOf": [INTEGER, string(enum=[""])]},
        "OS-FLV-EXT-DATA:ephemeral": INTEGER,
        "OS-FLV-DISABLED:disabled": BOOLEAN,
        "vcpus": INTEGER,
        "os-flavor-access:is_public": BOOLEAN,
        "rxtx_factor": {"type": "number"},
        "links": LINKS,
        "description": nullable(string()),
        "extra_specs": obj(additional=string()),
    },
    required=("id", "name", "ram", "disk", "vcpus", "links"),
    additional=False,
)
NOVA_BRIEF = obj(
    {"id": string(), "name": string(), "links": LINKS, "description": nullable(string())},
    required=("id", "name", "links"),
    additional=False,
)
NOVA_INT = {"type": "integer", "minimum": 0, "maximum": 2147483647}
NOVA_FLAVOR_CREATE = obj(
    {
        "flavor": obj(
            {
                "name": string(minLength=1, maxLength=255, pattern=r"^\S(.*\S)?$"),
                "id": nullable(string(minLength=1, maxLength=255, pattern="^[a-zA-Z0-9._ -]+$")),
                "ram": {**NOVA_INT, "minimum": 1},
                "vcpus": {**NOVA_INT, "minimum": 1},
                "disk": NOVA_INT,
                "OS-FLV-EXT-DATA:ephemeral": NOVA_INT,
                "swap": NOVA_INT,
                "os-flavor-access:is_public": BOOLEAN,
                "rxtx_factor": {"type": "number", "exclusiveMinimum": 0, "maximum": 3.40282e38},
                "description": nullable(string(maxLength=65535)),
            },
            required=("name", "ram", "vcpus", "disk"),
            additional=False,
        )
    },
    required=("flavor",),
    additional=False,
)
NOVA_FLAVOR_UPDATE = obj(
    {
        "flavor": obj(
            {"description": nullable(string(maxLength=65535))},
            required=("description",),
            additional=False,
        )
    },
    required=("flavor",),
    additional=False,
)
SPEC_KEY = string(pattern="^[a-zA-Z0-9-_:. ]{1,255}$")
SPEC_VALUE = string(maxLength=255)
EXTRA_SPECS = obj(additional=SPEC_VALUE)
EXTRA_SPECS_BODY = obj(
    {"extra_specs": obj(additional=SPEC_VALUE)}, required=("extra_specs",), additional=False
)
ACCESS_LIST = obj(
    {
        "flavor_access": array(
            obj({"flavor_id": string(), "tenant_id": string()}, required=("flavor_id", "tenant_id"))
        )
    },
    required=("flavor_access",),
    additional=False,
)
TENANT = obj({"tenant": string(minLength=1, maxLength=255)}, required=("tenant",), additional=False)
ACCESS_ACTION = {
    "oneOf": [
        obj({"addTenantAccess": TENANT}, required=("addTenantAccess",), additional=False),
        obj({"removeTenantAccess": TENANT}, required=("removeTenantAccess",), additional=False),
    ]
}
NOVA_LIST_QUERY: dict[str, Schema] = {
    "is_public": string(enum=[*BOOL_WORDS, "none"]),
    "minRam": {"type": "integer", "minimum": 0},
    "minDisk": {"type": "integer", "minimum": 0},
    "sort_key": string(enum=list(nova_store.SORT_KEYS)),
    "sort_dir": SORT_DIR,
    "limit": {"type": "integer", "minimum": 0},
    "marker": string(),
    "name": string(maxLength=255),
}
NOVA_VERSION = obj(
    {
        "id": string(),
        "status": string(),
        "version": string(),
        "min_version": string(),
        "updated": string(),
        "links": LINKS,
        "media-types": array(ANY_OBJECT),
    },
    required=("id", "status", "version", "min_version", "links"),
)

# --- Octavia

PROFILE = obj(
    {
        "id": UUID,
        "name": string(),
        "provider_name": string(),
        "flavor_data": string(),
    },
    additional=False,
)
LB_FLAVOR = obj(
    {
        "id": UUID,
        "name": string(),
        "description": nullable(string()),
        "enabled": BOOLEAN,
        "flavor_profile_id": UUID,
    },
    additional=False,
)
TEXT_255 = string(maxLength=255)
PROFILE_WRITE_TYPES: dict[str, Schema] = {
    "id": UUID,
    "name": TEXT_255,
    "provider_name": string(),
    "flavor_data": string(maxLength=4096),
}
LB_FLAVOR_WRITE_TYPES: dict[str, Schema] = {
    "id": UUID,
    "name": TEXT_255,
    "description": nullable(TEXT_255),
    "enabled": BOOLEAN,
    "flavor_profile_id": UUID,
}


def wrapped(
    key: str, types: Mapping[str, Schema], names: set[str], required: tuple[str, ...]
) -> Schema:
    inner = obj({n: types[n] for n in sorted(names)}, required=required, additional=False)
    return obj({key: inner}, required=(key,), additional=False)


def octavia_list_query(filterable: tuple[str, ...]) -> dict[str, Schema]:
    types: dict[str, Schema] = {
        "fields": array(string(enum=list(filterable))),
        "sort": string(),
        "sort_key": string(enum=list(filterable)),
        "sort_dir": SORT_DIR,
        "limit": QUERY_LIMIT,
        "marker": UUID,
        "page_reverse": string(enum=["true", "false", "True", "False"]),
        "enabled": string(enum=["true", "false", "True", "False"]),
    }
    return {name: types.get(name, string()) for name in (*PAGING, *filterable)}


def octavia_list(collection: str, item: Schema) -> Schema:
    links = "flavorprofile_links" if collection == "flavorprofiles" else f"{collection}_links"
    return obj(
        {collection: array(item), links: LINKS}, required=(collection, links), additional=False
    )


CAPABILITY = obj({"name": string(), "description": string()}, additional=False)
OCTAVIA_FIELDS = {"fields": array(string(enum=["name", "description"]))}

# --- Native

DIAGNOSTIC = obj(
    {
        "path": nullable(string()),
        "line": nullable(INTEGER),
        "column": nullable(INTEGER),
        "field": nullable(string()),
        "severity": string(),
        "code": nullable(string()),
        "message": string(),
    },
    required=("severity", "message"),
)
CATALOG_SUMMARY = obj(
    {
        "repository": nullable(string()),
        "device_types": INTEGER,
        "flavors": INTEGER,
        "valid": BOOLEAN,
        "diagnostics": array(DIAGNOSTIC),
    },
    required=("repository", "device_types", "flavors", "valid", "diagnostics"),
)
SYNC_ROUND = obj(required=("diagnostics",))
RESOLVED = obj(
    {
        "flavor_id": string(),
        "flavor_name": string(),
        "flavor_profile_id": string(),
        "provider": string(),
        "flavor_data": ANY_OBJECT,
        "metadata": ANY_OBJECT,
    },
    required=("flavor_id", "flavor_name", "flavor_profile_id", "provider"),
)
ROOT_DOC = obj(
    {
        "name": string(),
        "version": string(),
        "apis": array(ANY_OBJECT),
        "links": LINKS,
    },
    required=("name", "version", "apis"),
)
# flavorsmith explain: one reason (matching.diagnosis.Finding), a node's, a flavor's.
EXPLAIN_LAYER = string(enum=["catalog", "ironic", "placement", "access", "scheduler"])
EXPLAIN_REASON = obj(
    {
        "layer": EXPLAIN_LAYER,
        "kind": string(),
        "subject": nullable(string()),
        "blocking": BOOLEAN,
        "detail": string(),
    },
    required=("layer", "kind", "subject", "blocking", "detail"),
    additional=False,
)
EXPLAIN_PLACEMENT = string(enum=["derived", "real"])
EXPLAIN_NODE = obj(
    {
        "flavor": string(),
        "node": obj(
            {
                "uuid": string(),
                "name": nullable(string()),
                "resource_class": nullable(string()),
                "provision_state": nullable(string()),
                "power_state": nullable(string()),
                "maintenance": BOOLEAN,
                "instance_uuid": nullable(string()),
                "owner": nullable(string()),
                "lessee": nullable(string()),
                "inventory": string(enum=["schedulable", "used", "reserved", "absent"]),
            },
            required=("uuid", "name", "inventory"),
        ),
        "project": nullable(string()),
        "placement": EXPLAIN_PLACEMENT,
        "schedulable": BOOLEAN,
        "reasons": array(EXPLAIN_REASON),
    },
    required=("flavor", "node", "project", "placement", "schedulable", "reasons"),
    additional=False,
)
EXPLAIN_FLAVOR = obj(
    {
        "flavor": string(),
        "project": nullable(string()),
        "placement": EXPLAIN_PLACEMENT,
        "nodes": INTEGER,
        "candidates": INTEGER,
        "summary": string(),
        "counts": array(
            obj(
                {
                    "reason": string(),
                    "subject": nullable(string()),
                    "count": INTEGER,
                    "text": string(),
                },
                required=("reason", "subject", "count", "text"),
                additional=False,
            )
        ),
        "reasons": array(EXPLAIN_REASON),
    },
    required=("flavor", "project", "placement", "nodes", "candidates", "summary", "counts"),
    additional=False,
)

# POST /v1/login (api/native/login.py): Keystone password credentials scoped to one project.
_LOGIN_TEXT = string(minLength=1, maxLength=login_rules.NAME_LENGTH)
LOGIN_BODY = obj(
    {
        "username": _LOGIN_TEXT,
        "password": string(minLength=1, maxLength=login_rules.PASSWORD_LENGTH, format="password"),
        "project_name": _LOGIN_TEXT,
        "project_id": _LOGIN_TEXT,
        "user_domain_name": _LOGIN_TEXT,
        "project_domain_name": _LOGIN_TEXT,
    },
    required=login_rules.REQUIRED,
    additional=False,
)
_KEYSTONE_NAMED = obj(
    {"id": nullable(string()), "name": nullable(string()), "domain": nullable(string())},
    required=("id", "name", "domain"),
    additional=False,
)
LOGIN = obj(
    {
        "token": string(),
        "expires_at": nullable(string()),
        "user": _KEYSTONE_NAMED,
        "project": _KEYSTONE_NAMED,
        "roles": array(string()),
    },
    required=("token", "expires_at", "user", "project", "roles"),
    additional=False,
)
