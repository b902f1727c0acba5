"""The API families (Ironic, Nova, Octavia and the native /v1): which family a path belongs to,
and how each one words and shapes its errors, as the real service does so its clients parse
ours."""

from __future__ import annotations

import enum
import json
from http import HTTPStatus

from starlette.responses import JSONResponse, Response


class Family(enum.StrEnum):
    IRONIC = "baremetal"
    NOVA = "compute"
    OCTAVIA = "load-balancer"
    NATIVE = "native"


PREFIXES = {
    Family.IRONIC: "/baremetal",
    Family.NOVA: "/compute",
    Family.OCTAVIA: "/load-balancer",
    Family.NATIVE: "/v1",
}

# Nova's fault names by status; any other status (406 included) is "computeFault".
_NOVA_FAULTS = {
    400: "badRequest",
    401: "unauthorized",
    403: "forbidden",
    404: "itemNotFound",
    405: "badMethod",
    409: "conflictingRequest",
    413: "overLimit",
    415: "badMediaType",
    429: "overLimit",
    501: "notImplemented",
    503: "serviceUnavailable",
}


# What each real service says when policy refuses a call.
POLICY_MESSAGES = {
    Family.IRONIC: "{rule} is disallowed by policy",
    Family.NOVA: "Policy doesn't allow {rule} to be performed.",
    Family.OCTAVIA: "Policy does not allow this request to be performed.",
    Family.NATIVE: "Policy does not allow {rule}",
}
# What each says for a path it does not route.
NOT_FOUND_MESSAGES = {
    Family.IRONIC: "The resource could not be found.",
    Family.NOVA: "The resource could not be found.",
    Family.OCTAVIA: "The resource could not be found.",
    Family.NATIVE: "No such resource: {path}",
}


def family_of(path: str) -> Family:
    for family, prefix in PREFIXES.items():
        if path == prefix or path.startswith(prefix + "/"):
            return family
    return Family.NATIVE


def error_response(
    family: Family, status: int, message: str, headers: dict[str, str] | None = None
) -> Response:
    """The error body each real service sends, so its clients parse our errors."""
    body: object
    media_type = "application/json"
    if family is Family.IRONIC:
        # Ironic (WSME) double-encodes: error_message is itself a JSON document.
        fault = {
            "faultcode": "Client" if status < 500 else "Server",
            "faultstring": message,
            "debuginfo": None,
        }
        body = {"error_message": json.dumps(fault)}
    elif family is Family.NOVA:
        body = {_NOVA_FAULTS.get(status, "computeFault"): {"code": status, "message": message}}
        media_type = "application/json; charset=UTF-8"  # as Nova's faults (its successes: none)
    elif family is Family.OCTAVIA:
        body = {
            "faultcode": "Client" if status < 500 else "Server",
            "faultstring": message,
            "debuginfo": None,
        }
    else:
        media_type = "application/problem+json"
        body = {"type": "about:blank", "title": _title(status), "status": status, "detail": message}
    return JSONResponse(body, status_code=status, headers=headers, media_type=media_type)


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
