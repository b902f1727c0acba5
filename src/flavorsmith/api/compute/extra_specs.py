"""/compute/v2.1/flavors/{id}/os-extra_specs: list, show, set (merge), change one, remove one.
Validated from microversion 2.86 with the registry; ``validation=`` picks the mode."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.compute import bodies
from flavorsmith.api.compute.common import at_least, viewer
from flavorsmith.api.compute.schemas import (
    EXTRA_SPECS,
    EXTRA_SPECS_BODY,
    NOVA_READ,
    NOVA_WRITE,
    SPEC_VALUE,
)
from flavorsmith.api.context import authorize, run, services
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.requests import json_body
from flavorsmith.api.schema import obj, string
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, NotFound
from flavorsmith.extra_specs.registry import MODE_ALIASES, MODES, Mode, parse_mode
from flavorsmith.extra_specs.validation import validate
from flavorsmith.store import nova_flavors as store

router = APIRouter()
log = logging.getLogger("flavorsmith.api")
PATH = "/v2.1/flavors/{flavorid}/os-extra_specs"


def _mode(request: Request, contract: Contract) -> Mode | None:
    """The validation mode: the parameter if given (any microversion), else nova from 2.86."""
    contract.check_query(request)
    value = request.query_params.get("validation")
    if value is None:
        return "nova" if at_least(request, 2, 86) else None
    mode = parse_mode(value)
    if mode is None:
        raise Invalid(
            f"Invalid validation mode {value!r}: choose one of {', '.join(MODES)} (disabled is off)"
        )
    return mode


def check(request: Request, specs: dict[str, str], mode: Mode | None) -> None:
    """Every pair must pass, against the registry of the catalog as last loaded; one bad pair
    rejects the whole request (nothing is stored)."""
    if mode is None:
        return
    problems = validate(specs, services(request).catalog.registry(), mode)
    refused = [p.message for p in problems if p.refused]
    if refused:
        raise Invalid("Validation failed; " + "; ".join(refused))
    for problem in problems:
        if mode == "permissive" and problem.status != "valid":
            log.info(
                "extra spec %s=%r accepted in permissive mode: %s",
                problem.key,
                problem.value,
                problem.message,
            )


LIST_SPECS = Contract(
    "List a flavor's extra specs",
    {200: obj({"extra_specs": EXTRA_SPECS}, required=("extra_specs",), additional=False)},
    errors=(*NOVA_READ, 404),
)


@router.get(PATH)
@declare(LIST_SPECS)
async def list_specs(request: Request, flavorid: str) -> dict[str, Any]:
    authorize(request, "os_compute_api:os-flavor-extra-specs:index")
    LIST_SPECS.check_query(request)
    who = viewer(request)

    def work(connection: Connection) -> dict[str, str]:
        row = store.get(connection, flavorid, who)
        return store.extra_specs(connection, [row["id"]])[row["id"]]

    return {"extra_specs": await run(request, work, write=False)}


SHOW_SPEC = Contract("Show one extra spec", {200: EXTRA_SPECS}, errors=(*NOVA_READ, 404))


@router.get(PATH + "/{key}")
@declare(SHOW_SPEC)
async def show_spec(request: Request, flavorid: str, key: str) -> dict[str, str]:
    authorize(request, "os_compute_api:os-flavor-extra-specs:show")
    SHOW_SPEC.check_query(request)
    who = viewer(request)

    def work(connection: Connection) -> dict[str, str]:
        row = store.get(connection, flavorid, who)
        specs = store.extra_specs(connection, [row["id"]])[row["id"]]
        if key not in specs:
            raise NotFound(f"Flavor {flavorid} has no extra specs with key {key}.")
        return {key: specs[key]}

    return await run(request, work, write=False)


CREATE_SPECS = Contract(
    "Set extra specs (merged with the flavor's)",
    {200: obj({"extra_specs": EXTRA_SPECS}, required=("extra_specs",), additional=False)},
    query={"validation": string(enum=[*MODES, *MODE_ALIASES])},
    body=EXTRA_SPECS_BODY,
    errors=(*NOVA_WRITE, 404, 409),
)


@router.post(PATH)
@declare(CREATE_SPECS)
async def create_specs(request: Request, flavorid: str) -> dict[str, Any]:
    authorize(request, "os_compute_api:os-flavor-extra-specs:create")
    mode = _mode(request, CREATE_SPECS)
    body = await json_body(request)
    specs = bodies.extra_specs(body)
    check(request, specs, mode)
    await run(
        request,
        lambda c: store.merge_extra_specs(c, store.get(c, flavorid, lock=True), specs),
        write=True,
    )
    # Nova echoes the values as sent: a number stays a number (it is stored as text).
    return {"extra_specs": body["extra_specs"]}


UPDATE_SPEC = Contract(
    "Set one extra spec: the body holds exactly the key in the path",
    {200: EXTRA_SPECS},
    query={"validation": string(enum=[*MODES, *MODE_ALIASES])},
    body=obj(additional=SPEC_VALUE) | {"minProperties": 1, "maxProperties": 1},
    errors=(*NOVA_WRITE, 404, 409),
)


@router.put(PATH + "/{key}")
@declare(UPDATE_SPEC)
async def update_spec(request: Request, flavorid: str, key: str) -> dict[str, Any]:
    authorize(request, "os_compute_api:os-flavor-extra-specs:update")
    mode = _mode(request, UPDATE_SPEC)
    body = await json_body(request)
    if not isinstance(body, dict):
        raise Invalid(f"The body must hold exactly the key in the URL: {{{key!r}: value}}")
    specs = bodies.checked_specs(body)  # Nova checks the values before their number
    if len(body) != 1:
        raise Invalid(f"The body must hold exactly the key in the URL: {{{key!r}: value}}")
    if key not in body:
        raise Invalid("Request body and URI mismatch")
    check(request, specs, mode)
    await run(
        request,
        lambda c: store.merge_extra_specs(c, store.get(c, flavorid, lock=True), specs),
        write=True,
    )
    return body


DELETE_SPEC = Contract("Remove one extra spec", {200: None}, errors=(*NOVA_READ, 404, 409))


@router.delete(PATH + "/{key}")
@declare(DELETE_SPEC)
async def delete_spec(request: Request, flavorid: str, key: str) -> Response:
    authorize(request, "os_compute_api:os-flavor-extra-specs:delete")
    DELETE_SPEC.check_query(request)
    await run(
        request,
        lambda c: store.delete_extra_spec(c, store.get(c, flavorid, lock=True), key),
        write=True,
    )
    return Response(status_code=200)
