"""API flavours: which service a path belongs to, and that service's error body."""

from __future__ import annotations

import enum
import json
from http import HTTPStatus

from starlette.responses import JSONResponse, Response


class Flavour(enum.StrEnum):
    IRONIC = "baremetal"
    NOVA = "compute"
    OCTAVIA = "load-balancer"
    NATIVE = "native"


PREFIXES = {
    Flavour.IRONIC: "/baremetal",
    Flavour.NOVA: "/compute",
    Flavour.OCTAVIA: "/load-balancer",
    Flavour.NATIVE: "/v1",
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


def flavour_of(path: str) -> Flavour:
    for flavour, prefix in PREFIXES.items():
        if path == prefix or path.startswith(prefix + "/"):
            return flavour
    return Flavour.NATIVE


def error_response(
    flavour: Flavour, status: int, message: str, headers: dict[str, str] | None = None
) -> Response:
    """The error body each real service sends, so its clients parse our errors."""
    body: object
    media_type = "application/json"
    if flavour is Flavour.IRONIC:
        # Ironic (WSME) double-encodes: error_message is itself a JSON document.
        fault = {
            "faultcode": "Client" if status < 500 else "Server",
            "faultstring": message,
            "debuginfo": None,
        }
        body = {"error_message": json.dumps(fault)}
    elif flavour is Flavour.NOVA:
        body = {_NOVA_FAULTS.get(status, "computeFault"): {"code": status, "message": message}}
    elif flavour is Flavour.OCTAVIA:
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
