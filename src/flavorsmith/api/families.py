"""The API families (Ironic, Nova, Octavia and the native /v1): which family a path belongs to,
and how each one words and shapes its errors, as the real service does so its clients parse
ours."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from http import HTTPStatus

from starlette.responses import JSONResponse, Response


class Family(enum.StrEnum):
    IRONIC = "baremetal"
    NOVA = "compute"
    OCTAVIA = "load-balancer"
    NATIVE = "native"


@dataclass(frozen=True)
class Style:
    """Where a family is served, and what its real service says when policy refuses a call
    (``{rule}``: the rule) and for a path it does not route (``{path}``: the path)."""

    prefix: str
    policy_message: str
    not_found_message: str = "The resource could not be found."


STYLES = {
    Family.IRONIC: Style("/baremetal", "{rule} is disallowed by policy"),
    Family.NOVA: Style("/compute", "Policy doesn't allow {rule} to be performed."),
    Family.OCTAVIA: Style("/load-balancer", "Policy does not allow this request to be performed."),
    Family.NATIVE: Style("/v1", "Policy does not allow {rule}", "No such resource: {path}"),
}
PREFIXES = {family: style.prefix for family, style in STYLES.items()}
POLICY_MESSAGES = {family: style.policy_message for family, style in STYLES.items()}
NOT_FOUND_MESSAGES = {family: style.not_found_message for family, style in STYLES.items()}

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
    # Ironic and Octavia (both WSME) send the same fault; Ironic double-encodes it:
    # error_message is itself a JSON document.
    fault = {
        "faultcode": "Client" if status < 500 else "Server",
        "faultstring": message,
        "debuginfo": None,
    }
    if family is Family.IRONIC:
        body = {"error_message": json.dumps(fault)}
    elif family is Family.NOVA:
        body = {_NOVA_FAULTS.get(status, "computeFault"): {"code": status, "message": message}}
        media_type = "application/json; charset=UTF-8"  # as Nova's faults (its successes: none)
    elif family is Family.OCTAVIA:
        body = fault
    else:
        media_type = "application/problem+json"
        body = {"type": "about:blank", "title": _title(status), "status": status, "detail": message}
    return JSONResponse(body, status_code=status, headers=headers, media_type=media_type)


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
