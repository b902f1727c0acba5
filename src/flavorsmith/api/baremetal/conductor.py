"""Ironic's conductor actions on a node (power, provisioning, boot device, console, RAID, BIOS,
firmware, VIFs, virtual media, indicators, vendor passthru, ...): this service stores node data
and runs no conductor, so each answers one clear error in Ironic's error body, naming the action
and where to send it. The status is 400 with Ironic's body: the clients show its message and
retry nothing (they retry 409 and 503, and a 5xx reads as a server fault)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request

from flavorsmith.api.baremetal.common import load
from flavorsmith.api.baremetal.schemas import IRONIC_READ, IRONIC_WRITE
from flavorsmith.api.context import authorize, run
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.schema import ANY_OBJECT
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid

router = APIRouter()


class ConductorOnly(Invalid):
    """An action only Ironic's conductor performs."""


# (methods, path under /baremetal, what it does): Ironic 39's conductor-backed node routes.
ACTIONS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("PUT",), "/v1/nodes/{ident}/states/power", "power state changes"),
    (("PUT",), "/v1/nodes/{ident}/states/provision", "provision state changes"),
    (("PUT",), "/v1/nodes/{ident}/states/raid", "the target RAID configuration"),
    (("GET", "PUT"), "/v1/nodes/{ident}/states/console", "the serial console"),
    (("PUT",), "/v1/nodes/{ident}/states/boot_mode", "boot mode changes"),
    (("PUT",), "/v1/nodes/{ident}/states/secure_boot", "secure boot changes"),
    (("GET", "PUT"), "/v1/nodes/{ident}/management/boot_device", "the boot device"),
    (
        ("GET",),
        "/v1/nodes/{ident}/management/boot_device/supported",
        "the supported boot devices",
    ),
    (("PUT",), "/v1/nodes/{ident}/management/inject_nmi", "NMI injection"),
    (("GET",), "/v1/nodes/{ident}/management/indicators", "the hardware indicators"),
    (
        ("GET", "PUT"),
        "/v1/nodes/{ident}/management/indicators/{indicator}",
        "a hardware indicator",
    ),
    (("GET", "POST"), "/v1/nodes/{ident}/vifs", "virtual network interfaces (VIFs)"),
    (("DELETE",), "/v1/nodes/{ident}/vifs/{vif}", "VIF detachment"),
    (("GET", "POST", "DELETE"), "/v1/nodes/{ident}/vmedia", "virtual media"),
    (("GET",), "/v1/nodes/{ident}/bios", "BIOS settings"),
    (("GET",), "/v1/nodes/{ident}/bios/{setting}", "a BIOS setting"),
    (("GET",), "/v1/nodes/{ident}/firmware", "firmware components"),
    (
        ("GET", "POST", "PUT", "DELETE"),
        "/v1/nodes/{ident}/vendor_passthru",
        "vendor passthru",
    ),
    (("GET",), "/v1/nodes/{ident}/vendor_passthru/methods", "vendor passthru methods"),
)


def message(node: str, action: str) -> str:
    return (
        f"Flavorsmith stores node data only; Ironic's conductor handles {action}, and this "
        f"service runs none. Send this request for node {node} to Ironic."
    )


def _contract(action: str, method: str) -> Contract:
    writes = method in ("POST", "PUT", "PATCH")
    return Contract(
        f"Not served: {action} is Ironic's conductor's work (400 saying so)",
        {},
        body=ANY_OBJECT if writes else None,
        body_required=False,
        errors=(*IRONIC_WRITE, 404) if method != "GET" else (*IRONIC_READ, 404),
    )


def _route(action: str, path: str, method: str) -> Callable[..., Awaitable[None]]:
    contract = _contract(action, method)

    @declare(contract)
    async def refuse(request: Request, ident: str, **_: str) -> None:
        authorize(request, "baremetal:node:get")
        contract.check_query(request)

        def work(connection: Connection) -> str:
            return str(load(connection, request, ident)["uuid"])

        node = await run(request, work, write=False)
        raise ConductorOnly(message(node, action))

    # FastAPI reads path parameters from the signature: declare the path's others (a VIF, a
    # BIOS setting, an indicator) as the strings they are.
    others = [name for name in re.findall(r"\{(\w+)\}", path) if name != "ident"]
    keyword = inspect.Parameter.KEYWORD_ONLY
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    refuse.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("request", positional, annotation=Request),
            inspect.Parameter("ident", positional, annotation=str),
            *(inspect.Parameter(name, keyword, annotation=str) for name in others),
        ],
        return_annotation=None,
    )
    return refuse


for _methods, _path, _action in ACTIONS:
    for _method in _methods:
        router.add_api_route(
            _path,
            _route(_action, _path, _method),
            methods=[_method],
            name=f"not served: {_action} ({_method})",
        )
