"""The OpenAPI document: what every operation takes and answers, declared in one table.

Handlers read the request themselves (``check_query``, ``json_body``), so FastAPI sees no
parameters. ``OPERATIONS`` declares, for every route of the app keyed by (method, path), its
query parameters, its request body and the statuses it answers; ``document()`` merges that
into FastAPI's generated document and adds what every operation of an API family shares (the
microversion headers, ``X-Auth-Token``, the family's error body). Query parameter names come
from the constants the handlers check against, so the document follows the code; a test
checks that every route is declared and that the declared names are exactly those accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from starlette.requests import Request

from flavorsmith import __version__
from flavorsmith.api.baremetal import deploy_templates as bm_templates
from flavorsmith.api.baremetal import nodes as bm_nodes
from flavorsmith.api.baremetal import serialize as bm_serialize
from flavorsmith.api.compute import flavors as nova_flavors
from flavorsmith.api.flavours import Flavour, flavour_of
from flavorsmith.api.loadbalancer.common import PAGING
from flavorsmith.api.microversions import IRONIC, NOVA, MicroversionSpec, Version
from flavorsmith.api.middleware import PUBLIC_PATHS, VERSIONED
from flavorsmith.deploy import store as template_store
from flavorsmith.deploy import templates as template_rules
from flavorsmith.extra_specs.registry import MODES
from flavorsmith.inventory import query as node_query
from flavorsmith.inventory import rules as node_rules
from flavorsmith.nova import store as nova_store
from flavorsmith.providers import service as provider_service
from flavorsmith.providers import store as provider_store

Schema = dict[str, Any]
JSON = "application/json"
JSON_PATCH = "application/json-patch+json"
PROBLEM = "application/problem+json"
# Where the document is served: the service root, and beside the native API.
DOCUMENT_PATHS = ("/openapi.json", "/v1/openapi.json")

# ----------------------------------------------------------------------------- schema helpers


def string(**extra: Any) -> Schema:
    return {"type": "string", **extra}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def obj(
    properties: Mapping[str, Schema] | None = None,
    *,
    required: tuple[str, ...] = (),
    additional: bool | Schema = True,
) -> Schema:
    out: Schema = {"type": "object", "properties": dict(properties or {})}
    if required:
        out["required"] = list(required)
    out["additionalProperties"] = additional
    return out


def array(items: Schema, **extra: Any) -> Schema:
    return {"type": "array", "items": items, **extra}


INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}
ANY_OBJECT = obj()
UUID = string(format="uuid")
LINKS = array(obj({"href": string(), "rel": string()}, required=("href", "rel")))
BOOL_WORDS = sorted({"true", "false", "1", "0", "yes", "no", "on", "off", "t", "f", "y", "n"})
QUERY_BOOL = string(enum=BOOL_WORDS)
QUERY_LIMIT = {"type": "integer", "minimum": 1}
SORT_DIR = string(enum=["asc", "desc"])
# A JSON patch (RFC 6902) restricted to what Ironic applies: add, replace, remove.
JSON_PATCH_BODY = array(
    obj(
        {
            "op": string(enum=["add", "replace", "remove"]),
            "path": string(pattern="^/"),
            "value": {},
        },
        required=("op", "path"),
        additional=False,
    ),
    minItems=1,
)

# ----------------------------------------------------------------------------- error bodies

ERROR_SCHEMAS: dict[Flavour, tuple[str, Schema]] = {
    # Ironic's error_message holds a JSON document (faultcode, faultstring, debuginfo).
    Flavour.IRONIC: (
        JSON,
        obj({"error_message": string()}, required=("error_message",), additional=False),
    ),
    # Nova: one key naming the fault ("badRequest", "itemNotFound", ...).
    Flavour.NOVA: (
        JSON,
        {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": obj(
                {"code": INTEGER, "message": string()}, required=("code", "message")
            ),
        },
    ),
    Flavour.OCTAVIA: (
        JSON,
        obj(
            {"faultcode": string(), "faultstring": string(), "debuginfo": {"type": "null"}},
            required=("faultcode", "faultstring"),
            additional=False,
        ),
    ),
    Flavour.NATIVE: (
        PROBLEM,
        obj(
            {"type": string(), "title": string(), "status": INTEGER, "detail": string()},
            required=("type", "title", "status", "detail"),
            additional=False,
        ),
    ),
}
STATUS_TEXT = {
    400: "Invalid request: a malformed body, parameter or header value, named in the message",
    401: "No valid X-Auth-Token",
    403: "Refused by policy, or a cross-site request",
    404: "No such resource",
    405: "Not allowed at this API version",
    406: "The requested API version (or a field) is not available",
    409: "Conflicts with the current state",
    413: "The request body is larger than the service accepts",
    415: "The request body is not JSON",
    502: "A provider driver failed",
    503: "The service cannot answer now (catalog with errors, no catalog, database down)",
}

# ----------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class Operation:
    """One operation: its success responses, query parameters, body and error statuses."""

    summary: str
    ok: Mapping[int, Schema | None]  # status -> JSON body schema (None: no body)
    query: Mapping[str, Schema] = field(default_factory=dict)
    body: Schema | None = None
    body_required: bool = True
    patch: bool = False  # the body is a JSON patch: application/json-patch+json too
    errors: tuple[int, ...] = ()
    query_array: tuple[str, ...] = ()  # query parameters that may repeat (Octavia's fields)


def _params(names: tuple[str, ...] | set[str] | list[str], types: Mapping[str, Schema]) -> Schema:
    return {name: types.get(name, string()) for name in sorted(names)}


# --- Ironic

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
}
NODE = obj(
    {**{f: NODE_FIELD_TYPES[f] for f in bm_serialize.FIELDS}, "links": LINKS},
    required=("uuid", "links"),
    additional=False,
)
NODE_LIST = obj({"nodes": array(NODE), "next": string()}, required=("nodes",), additional=False)
FIELDS_LIST = string(pattern="^[a-z_]+(,[a-z_]+)*$")
TRAIT_LIST = string(pattern="^[A-Z0-9_]+(,[A-Z0-9_]+)*$")
NODE_QUERY_TYPES: dict[str, Schema] = {
    "fields": FIELDS_LIST,
    "limit": QUERY_LIMIT,
    "marker": UUID,
    "sort_key": string(enum=list(node_query.SORT_KEYS)),
    "sort_dir": SORT_DIR,
    "maintenance": QUERY_BOOL,
    "associated": QUERY_BOOL,
    "detail": QUERY_BOOL,
    "driver": string(enum=list(node_rules.DRIVERS)),
    "traits": TRAIT_LIST,
    "traits-any": TRAIT_LIST,
    "not-traits": TRAIT_LIST,
    "not-traits-any": TRAIT_LIST,
}
NODE_DETAIL_PARAMS = [p for p in bm_nodes.LIST_PARAMS if p not in ("fields", "detail")]
NODE_WRITE_TYPES: dict[str, Schema] = {
    "uuid": UUID,
    "name": nullable(string(maxLength=255)),
    "driver": string(enum=list(node_rules.DRIVERS)),
    "driver_info": ANY_OBJECT,
    "extra": ANY_OBJECT,
    "properties": ANY_OBJECT,
    "instance_info": ANY_OBJECT,
    "instance_uuid": nullable(string(maxLength=36)),
    "resource_class": nullable(string(maxLength=80)),
    "description": nullable(string(maxLength=4096)),
}
NODE_CREATE = obj(
    {f: NODE_WRITE_TYPES[f] for f in sorted(bm_nodes.CREATE_FIELDS)},
    required=("driver",),
    additional=False,
)
TRAIT = string(pattern="^(CUSTOM_[A-Z0-9_]+|[A-Z][A-Z0-9_]*)$", maxLength=255)
VALIDATION = obj(
    {
        name: obj({"result": BOOLEAN, "reason": string()}, required=("result",))
        for name in bm_nodes.INTERFACES
    },
    required=bm_nodes.INTERFACES,
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


def _wrapped(
    key: str, types: Mapping[str, Schema], names: set[str], required: tuple[str, ...]
) -> Schema:
    inner = obj({n: types[n] for n in sorted(names)}, required=required, additional=False)
    return obj({key: inner}, required=(key,), additional=False)


def _octavia_list_query(filterable: tuple[str, ...]) -> dict[str, Schema]:
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


def _octavia_list(collection: str, item: Schema) -> Schema:
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

# --- the table

READ = (400, 401, 403)
WRITE = (400, 401, 403, 413, 415)
IRONIC_READ = (*READ, 406)
IRONIC_WRITE = (*WRITE, 406)
NOVA_READ = (*READ, 406)
NOVA_WRITE = (*WRITE, 406)


def _operations() -> dict[tuple[str, str], Operation]:
    node_list_query = _params(bm_nodes.LIST_PARAMS, NODE_QUERY_TYPES)
    node_detail_query = _params(NODE_DETAIL_PARAMS, NODE_QUERY_TYPES)
    fields = {"fields": FIELDS_LIST}
    ops: dict[tuple[str, str], Operation] = {
        ("GET", "/"): Operation(
            "The APIs this service serves, and where to find this document",
            {200: ROOT_DOC},
        ),
        ("GET", "/healthz"): Operation(
            "Liveness", {200: obj({"status": string()}, required=("status",))}
        ),
        ("GET", "/readyz"): Operation(
            "Readiness: the database answers and its migrations are current",
            {200: obj({"status": string()}, required=("status",))},
        ),
        ("GET", "/v1"): Operation("The Flavorsmith API's version document", {200: ANY_OBJECT}),
        # Ironic
        ("GET", "/baremetal"): Operation(
            "Ironic's API versions",
            {200: obj({"default_version": IRONIC_VERSION, "versions": array(IRONIC_VERSION)})},
            errors=(406,),
        ),
        ("GET", "/baremetal/v1"): Operation(
            "Ironic's v1 document",
            {200: obj({"id": string(), "links": LINKS}, required=("id", "links"))},
            errors=(406,),
        ),
        ("GET", "/baremetal/v1/nodes"): Operation(
            "List nodes", {200: NODE_LIST}, query=node_list_query, errors=IRONIC_READ
        ),
        ("GET", "/baremetal/v1/nodes/detail"): Operation(
            "List nodes with every field",
            {200: NODE_LIST},
            query=node_detail_query,
            errors=IRONIC_READ,
        ),
        ("POST", "/baremetal/v1/nodes"): Operation(
            "Enroll a node", {201: NODE}, body=NODE_CREATE, errors=(*IRONIC_WRITE, 409)
        ),
        ("GET", "/baremetal/v1/nodes/{ident}"): Operation(
            "Show a node (by UUID, or by name from 1.5)",
            {200: NODE},
            query=fields,
            errors=(*IRONIC_READ, 404),
        ),
        ("PATCH", "/baremetal/v1/nodes/{ident}"): Operation(
            "Update a node with a JSON patch",
            {200: NODE},
            body=JSON_PATCH_BODY,
            patch=True,
            errors=(*IRONIC_WRITE, 404, 409),
        ),
        ("DELETE", "/baremetal/v1/nodes/{ident}"): Operation(
            "Delete a node", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("GET", "/baremetal/v1/nodes/{ident}/validate"): Operation(
            "Validate a node's interfaces", {200: VALIDATION}, errors=(*IRONIC_READ, 404)
        ),
        ("GET", "/baremetal/v1/nodes/{ident}/traits"): Operation(
            "List a node's traits (from 1.37)",
            {200: obj({"traits": array(string())}, required=("traits",), additional=False)},
            errors=(*IRONIC_READ, 404),
        ),
        ("PUT", "/baremetal/v1/nodes/{ident}/traits"): Operation(
            "Replace a node's traits",
            {204: None},
            body=obj({"traits": array(TRAIT, maxItems=50)}, required=("traits",), additional=False),
            errors=(*IRONIC_WRITE, 404, 409),
        ),
        ("DELETE", "/baremetal/v1/nodes/{ident}/traits"): Operation(
            "Remove all of a node's traits", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("PUT", "/baremetal/v1/nodes/{ident}/traits/{trait}"): Operation(
            "Add one trait", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("DELETE", "/baremetal/v1/nodes/{ident}/traits/{trait}"): Operation(
            "Remove one trait", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("GET", "/baremetal/v1/deploy_templates"): Operation(
            "List deploy templates (from 1.55)",
            {
                200: obj(
                    {"deploy_templates": array(TEMPLATE), "next": string()},
                    required=("deploy_templates",),
                    additional=False,
                )
            },
            query=TEMPLATE_QUERY,
            errors=(*IRONIC_READ, 404),
        ),
        ("POST", "/baremetal/v1/deploy_templates"): Operation(
            "Create a deploy template",
            {201: TEMPLATE},
            body=TEMPLATE_CREATE,
            errors=(*IRONIC_WRITE, 405, 409),
        ),
        ("GET", "/baremetal/v1/deploy_templates/{ident}"): Operation(
            "Show a deploy template (by UUID or name)",
            {200: TEMPLATE},
            query=fields,
            errors=(*IRONIC_READ, 404),
        ),
        ("PATCH", "/baremetal/v1/deploy_templates/{ident}"): Operation(
            "Update a deploy template with a JSON patch",
            {200: TEMPLATE},
            body=JSON_PATCH_BODY,
            patch=True,
            errors=(*IRONIC_WRITE, 404, 405, 409),
        ),
        ("DELETE", "/baremetal/v1/deploy_templates/{ident}"): Operation(
            "Delete a deploy template", {204: None}, errors=(*IRONIC_READ, 404, 405)
        ),
        # Nova
        ("GET", "/compute"): Operation(
            "Nova's API versions", {200: obj({"versions": array(NOVA_VERSION)})}
        ),
        ("GET", "/compute/v2.1"): Operation(
            "Nova's v2.1 document",
            {200: obj({"version": NOVA_VERSION}, required=("version",))},
            errors=(400, 406),
        ),
        ("GET", "/compute/v2.1/flavors"): Operation(
            "List flavors",
            {
                200: obj(
                    {"flavors": array(NOVA_BRIEF), "flavors_links": LINKS},
                    required=("flavors",),
                    additional=False,
                )
            },
            query=_params(nova_flavors.LIST_PARAMS, NOVA_LIST_QUERY),
            errors=NOVA_READ,
        ),
        ("GET", "/compute/v2.1/flavors/detail"): Operation(
            "List flavors with every field",
            {
                200: obj(
                    {"flavors": array(NOVA_FLAVOR), "flavors_links": LINKS},
                    required=("flavors",),
                    additional=False,
                )
            },
            query=_params(nova_flavors.LIST_PARAMS, NOVA_LIST_QUERY),
            errors=NOVA_READ,
        ),
        ("POST", "/compute/v2.1/flavors"): Operation(
            "Create a flavor",
            {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
            body=NOVA_FLAVOR_CREATE,
            errors=(*NOVA_WRITE, 409),
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}"): Operation(
            "Show a flavor",
            {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
            errors=(*NOVA_READ, 404),
        ),
        ("PUT", "/compute/v2.1/flavors/{flavorid}"): Operation(
            "Update a flavor's description (from 2.55)",
            {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
            body=NOVA_FLAVOR_UPDATE,
            errors=(*NOVA_WRITE, 404),
        ),
        ("DELETE", "/compute/v2.1/flavors/{flavorid}"): Operation(
            "Delete a flavor", {202: None}, errors=(*NOVA_READ, 404, 409)
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}/os-extra_specs"): Operation(
            "List a flavor's extra specs",
            {200: obj({"extra_specs": EXTRA_SPECS}, required=("extra_specs",), additional=False)},
            errors=(*NOVA_READ, 404),
        ),
        ("POST", "/compute/v2.1/flavors/{flavorid}/os-extra_specs"): Operation(
            "Set extra specs (merged with the flavor's)",
            {200: obj({"extra_specs": EXTRA_SPECS}, required=("extra_specs",), additional=False)},
            query={"validation": string(enum=list(MODES))},
            body=EXTRA_SPECS_BODY,
            errors=(*NOVA_WRITE, 404, 409),
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}/os-extra_specs/{key}"): Operation(
            "Show one extra spec", {200: EXTRA_SPECS}, errors=(*NOVA_READ, 404)
        ),
        ("PUT", "/compute/v2.1/flavors/{flavorid}/os-extra_specs/{key}"): Operation(
            "Set one extra spec: the body holds exactly the key in the path",
            {200: EXTRA_SPECS},
            query={"validation": string(enum=list(MODES))},
            body=obj(additional=SPEC_VALUE) | {"minProperties": 1, "maxProperties": 1},
            errors=(*NOVA_WRITE, 404, 409),
        ),
        ("DELETE", "/compute/v2.1/flavors/{flavorid}/os-extra_specs/{key}"): Operation(
            "Remove one extra spec", {200: None}, errors=(*NOVA_READ, 404, 409)
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}/os-flavor-access"): Operation(
            "List the projects of a private flavor", {200: ACCESS_LIST}, errors=(*NOVA_READ, 404)
        ),
        ("POST", "/compute/v2.1/flavors/{flavorid}/action"): Operation(
            "addTenantAccess or removeTenantAccess",
            {200: ACCESS_LIST},
            body=ACCESS_ACTION,
            errors=(*NOVA_WRITE, 404, 409),
        ),
        # Octavia
        ("GET", "/load-balancer"): Operation(
            "Octavia's API versions", {200: obj({"versions": array(ANY_OBJECT)})}
        ),
    }
    for root in ("/load-balancer/v2", "/load-balancer/v2.0"):
        lbaas = f"{root}/lbaas"
        profile_create = _wrapped(
            "flavorprofile",
            PROFILE_WRITE_TYPES,
            provider_service.PROFILE_CREATE,
            ("name", "provider_name", "flavor_data"),
        )
        profile_update = _wrapped(
            "flavorprofile", PROFILE_WRITE_TYPES, provider_service.PROFILE_UPDATE, ()
        )
        flavor_create = _wrapped(
            "flavor",
            LB_FLAVOR_WRITE_TYPES,
            provider_service.FLAVOR_CREATE,
            ("name", "flavor_profile_id"),
        )
        flavor_update = _wrapped(
            "flavor", LB_FLAVOR_WRITE_TYPES, provider_service.FLAVOR_UPDATE, ()
        )
        ops |= {
            ("GET", root): Operation('Octavia\'s v2 document (the string "v2")', {200: string()}),
            ("GET", f"{lbaas}/providers"): Operation(
                "List enabled providers",
                {200: obj({"providers": array(CAPABILITY)}, required=("providers",))},
                query=OCTAVIA_FIELDS,
                errors=READ,
                query_array=("fields",),
            ),
            ("GET", f"{lbaas}/providers/{{provider}}/flavor_capabilities"): Operation(
                "List a provider's flavor capabilities",
                {
                    200: obj(
                        {"flavor_capabilities": array(CAPABILITY)},
                        required=("flavor_capabilities",),
                    )
                },
                query={**OCTAVIA_FIELDS, "name": string(), "description": string()},
                errors=READ,
                query_array=("fields",),
            ),
            ("GET", f"{lbaas}/providers/{{provider}}/availability_zone_capabilities"): Operation(
                "List a provider's availability zone capabilities (none)",
                {
                    200: obj(
                        {"availability_zone_capabilities": array(CAPABILITY)},
                        required=("availability_zone_capabilities",),
                    )
                },
                query={**OCTAVIA_FIELDS, "name": string(), "description": string()},
                errors=READ,
                query_array=("fields",),
            ),
            ("GET", f"{lbaas}/flavorprofiles"): Operation(
                "List flavor profiles",
                {200: _octavia_list("flavorprofiles", PROFILE)},
                query=_octavia_list_query(provider_store.PROFILE_FIELDS),
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("POST", f"{lbaas}/flavorprofiles"): Operation(
                "Create a flavor profile",
                {201: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
                body=profile_create,
                errors=(*WRITE, 409, 502),
            ),
            ("GET", f"{lbaas}/flavorprofiles/{{ident}}"): Operation(
                "Show a flavor profile",
                {200: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
                query={"fields": array(string(enum=list(provider_store.PROFILE_FIELDS)))},
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("PUT", f"{lbaas}/flavorprofiles/{{ident}}"): Operation(
                "Update a flavor profile",
                {200: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
                body=profile_update,
                errors=(*WRITE, 404, 409, 502),
            ),
            ("DELETE", f"{lbaas}/flavorprofiles/{{ident}}"): Operation(
                "Delete an unused flavor profile", {204: None}, errors=(*READ, 404, 409)
            ),
            ("GET", f"{lbaas}/flavors"): Operation(
                "List flavors",
                {200: _octavia_list("flavors", LB_FLAVOR)},
                query=_octavia_list_query(provider_store.FLAVOR_FIELDS),
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("POST", f"{lbaas}/flavors"): Operation(
                "Create a flavor",
                {201: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
                body=flavor_create,
                errors=(*WRITE, 409),
            ),
            ("GET", f"{lbaas}/flavors/{{ident}}"): Operation(
                "Show a flavor",
                {200: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
                query={"fields": array(string(enum=list(provider_store.FLAVOR_FIELDS)))},
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("PUT", f"{lbaas}/flavors/{{ident}}"): Operation(
                "Update a flavor",
                {200: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
                body=flavor_update,
                errors=(*WRITE, 404, 409),
            ),
            ("DELETE", f"{lbaas}/flavors/{{ident}}"): Operation(
                "Delete a flavor", {204: None}, errors=(*READ, 404)
            ),
        }
    # Flavorsmith
    ops |= {
        ("POST", "/v1/service-flavors/{ident}/resolve"): Operation(
            "Resolve a service flavor for use: the provider and expanded metadata",
            {200: RESOLVED},
            body=obj({"provider": nullable(string())}, additional=False),
            body_required=False,
            errors=(*WRITE, 404, 502),
        ),
        ("GET", "/v1/catalog"): Operation(
            "The loaded catalog and its diagnostics", {200: CATALOG_SUMMARY}, errors=READ
        ),
        ("POST", "/v1/catalog/reload"): Operation(
            "Reload the catalog from disk", {200: CATALOG_SUMMARY}, errors=READ
        ),
        ("GET", "/v1/catalog/nova-flavors"): Operation(
            "The Nova flavors the catalog derives",
            {
                200: obj(
                    {"nova_flavors": array(ANY_OBJECT), "unresolved": array(string())},
                    required=("nova_flavors", "unresolved"),
                )
            },
            errors=READ,
        ),
        ("GET", "/v1/catalog/flavors/{name}"): Operation(
            "One catalog flavor", {200: obj(required=("name", "traits"))}, errors=(*READ, 404)
        ),
        ("GET", "/v1/flavors/{name}/nodes"): Operation(
            "The nodes a flavor can land on",
            {200: obj(required=("flavor", "count", "generation", "nodes"))},
            query={"limit": QUERY_LIMIT, "marker": UUID, "available": QUERY_BOOL},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/nodes/{ident}/flavors"): Operation(
            "The flavors a node can serve",
            {200: obj(required=("node", "flavors"))},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/flavors/{name}/nodes/{ident}"): Operation(
            "Whether a flavor can land on a node, and why not",
            {200: ANY_OBJECT},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/capacity"): Operation(
            "Capacity per flavor", {200: ANY_OBJECT}, errors=(*READ, 503)
        ),
        ("POST", "/v1/nodes/{ident}/inspection"): Operation(
            "Store inspection data for a node and apply its classification",
            {200: obj(required=("node", "applied"))},
            body=ANY_OBJECT,
            errors=(*WRITE, 404, 503),
        ),
        ("GET", "/v1/sync/plan"): Operation(
            "What a sync of the catalog would change",
            {200: SYNC_ROUND},
            query={"prune": QUERY_BOOL, "only": string(enum=["flavors", "deploy-templates"])},
            errors=(*READ, 503),
        ),
        ("POST", "/v1/sync/apply"): Operation(
            "Apply the catalog (409 with the same body when something failed)",
            {200: SYNC_ROUND, 409: SYNC_ROUND},
            query={"prune": QUERY_BOOL, "only": string(enum=["flavors", "deploy-templates"])},
            errors=(*READ, 409, 503),
        ),
    }
    return ops


OPERATIONS = _operations()

# ----------------------------------------------------------------------------- headers


def _versions(spec: MicroversionSpec) -> list[str]:
    return [
        str(Version(spec.minimum.major, minor))
        for minor in range(spec.minimum.minor, spec.maximum.minor + 1)
    ]


def _header(name: str, schema: Schema, description: str) -> Schema:
    return {
        "name": name,
        "in": "header",
        "required": False,
        "schema": schema,
        "description": description,
    }


AUTH_TOKEN = _header("X-Auth-Token", string(), "A token (ignored under noauth)")
VERSION_HEADERS: dict[Flavour, list[Schema]] = {
    Flavour.IRONIC: [
        _header(
            IRONIC.legacy_header,
            string(enum=["latest", *_versions(IRONIC)]),
            "The microversion; none means the minimum",
        )
    ],
    Flavour.NOVA: [
        _header(
            "OpenStack-API-Version",
            string(enum=[f"compute {v}" for v in ("latest", *_versions(NOVA))]),
            "The microversion, as 'compute X.Y'; none means the minimum",
        ),
        _header(
            NOVA.legacy_header,
            string(enum=["latest", *_versions(NOVA)]),
            "The microversion (older header)",
        ),
    ],
}


# ----------------------------------------------------------------------------- the document


def key(method: str, path: str) -> tuple[str, str]:
    """The table key of a route: its method and path without a trailing slash."""
    return method.upper(), (path.rstrip("/") or "/")


def _versioned(path: str) -> bool:
    return any(_under(path, root) for root, _ in VERSIONED.values())


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def _operation_doc(generated: Schema, path: str, op: Operation) -> Schema:
    flavour = flavour_of(path)
    out = dict(generated)
    out["summary"] = op.summary
    parameters = [p for p in generated.get("parameters", []) if p.get("in") == "path"]
    for name, schema in op.query.items():
        parameter: Schema = {"name": name, "in": "query", "required": False, "schema": schema}
        if name in op.query_array:
            parameter |= {"style": "form", "explode": True}
        parameters.append(parameter)
    if _versioned(path):
        parameters.extend(VERSION_HEADERS.get(flavour, []))
    if key("GET", path)[1] not in PUBLIC_PATHS:
        parameters.append(AUTH_TOKEN)
    out["parameters"] = parameters
    if op.body is not None:
        media = {JSON: {"schema": op.body}}
        if op.patch:
            media[JSON_PATCH] = {"schema": op.body}
        out["requestBody"] = {"required": op.body_required, "content": media}
    else:
        out.pop("requestBody", None)
    error_type, error_schema = ERROR_SCHEMAS[flavour]
    responses: dict[str, Schema] = {}
    for status, schema in op.ok.items():
        entry: Schema = {"description": "Success"}
        if schema is not None:
            entry["content"] = {JSON: {"schema": schema}}
        responses[str(status)] = entry
    for status in sorted(set(op.errors)):
        entry = responses.setdefault(str(status), {"description": STATUS_TEXT[status]})
        entry.setdefault("content", {}).setdefault(error_type, {"schema": error_schema})
    if path == "/readyz":
        responses["503"] = {
            "description": "The database does not answer or its migrations are not current",
            "content": {JSON: {"schema": obj({"status": string()}, required=("status",))}},
        }
    out["responses"] = responses
    return out


def _generated(app: FastAPI) -> Schema:
    return get_openapi(
        title="Flavorsmith",
        version=__version__,
        description=(
            "Ironic-compatible (/baremetal), Nova-compatible (/compute), Octavia-compatible "
            "(/load-balancer) and Flavorsmith's own (/v1) APIs. Errors use each API's own body."
        ),
        routes=app.routes,
    )


def undeclared(app: FastAPI) -> list[str]:
    """The app's operations that OPERATIONS does not declare, as 'METHOD /path'."""
    paths: dict[str, Schema] = _generated(app).get("paths", {})
    return sorted(
        f"{method.upper()} {path}"
        for path, methods in paths.items()
        for method in methods
        if key(method, path) not in OPERATIONS
    )


def document(app: FastAPI) -> Schema:
    """FastAPI's generated document with every operation's declaration merged in (an
    undeclared route, which a test forbids, keeps what FastAPI generated)."""
    generated = _generated(app)
    for path, methods in generated.get("paths", {}).items():
        for method, operation in list(methods.items()):
            declared = OPERATIONS.get(key(method, path))
            if declared is not None:
                methods[method] = _operation_doc(operation, path, declared)
    generated.pop("components", None)  # FastAPI's validation-error schemas: never sent here
    return generated


def install(app: FastAPI) -> None:
    """Serve the document at /openapi.json and /v1/openapi.json (FastAPI's own route is off:
    create the app with openapi_url=None), built once on first use."""

    def openapi() -> Schema:
        if app.openapi_schema is None:
            app.openapi_schema = document(app)
        return app.openapi_schema

    async def serve(request: Request) -> JSONResponse:
        return JSONResponse(openapi())

    app.openapi = openapi  # type: ignore[method-assign]
    for path in DOCUMENT_PATHS:
        app.add_route(path, serve, methods=["GET"], include_in_schema=False)
