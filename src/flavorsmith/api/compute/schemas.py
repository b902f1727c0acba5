"""Nova's flavors, extra specs and flavor access as JSON Schema: what the handlers' contracts
(api/contract.py) declare they take and answer."""

from __future__ import annotations

from flavorsmith.api.contract import READ, WRITE
from flavorsmith.api.schema import (
    ANY_OBJECT,
    BOOL_WORDS,
    BOOLEAN,
    INTEGER,
    LINKS,
    SORT_DIR,
    Schema,
    array,
    nullable,
    obj,
    string,
)
from flavorsmith.store import nova_flavors as nova_store

NOVA_READ = (*READ, 406)
NOVA_WRITE = (*WRITE, 406)


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
