"""JSON Schema building blocks of the HTTP contracts (requests and answers, api/contract.py),
and each API family's error body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flavorsmith.api.families import Family
from flavorsmith.query_values import FALSE_WORDS, TRUE_WORDS

Schema = dict[str, Any]
JSON = "application/json"
JSON_PATCH = "application/json-patch+json"
PROBLEM = "application/problem+json"

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
BOOL_WORDS = sorted({*TRUE_WORDS, *FALSE_WORDS})
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

ERROR_SCHEMAS: dict[Family, tuple[str, Schema]] = {
    # Ironic's error_message holds a JSON document (faultcode, faultstring, debuginfo).
    Family.IRONIC: (
        JSON,
        obj({"error_message": string()}, required=("error_message",), additional=False),
    ),
    # Nova: one key naming the fault ("badRequest", "itemNotFound", ...).
    Family.NOVA: (
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
    Family.OCTAVIA: (
        JSON,
        obj(
            {"faultcode": string(), "faultstring": string(), "debuginfo": {"type": "null"}},
            required=("faultcode", "faultstring"),
            additional=False,
        ),
    ),
    Family.NATIVE: (
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
