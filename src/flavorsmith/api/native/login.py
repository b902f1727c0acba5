"""GET /v1/auth: which auth the service runs, and whether it offers a login (the dashboard
shows the form it says). POST /v1/login: under Keystone, a password login that returns a
project-scoped Keystone token in the body (never a cookie), for the caller to send as
X-Auth-Token. Both answer without a token. Neither the password nor the token is ever logged
or put in an error message."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.auth import Credentials
from flavorsmith.api.context import call, services
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.schema import BOOLEAN, array, nullable, obj, string
from flavorsmith.config import AuthMode
from flavorsmith.errors import Invalid, NotFound

router = APIRouter()

# How each auth mode is named to callers.
MODES: dict[AuthMode, str] = {
    "noauth": "noauth",
    "token-file": "static token",
    "keystone": "keystone",
}
# Keystone's own limits: names and ids of at most 255 characters; a generous bound on a
# password (Keystone truncates bcrypt input long before it).
NAME_LENGTH = 255
PASSWORD_LENGTH = 4096
REQUIRED = ("username", "password")
OPTIONAL = ("project_name", "project_id", "user_domain_name", "project_domain_name")
FIELDS = (*REQUIRED, *OPTIONAL)

# POST /v1/login (api/native/login.py): Keystone password credentials scoped to one project.
_LOGIN_TEXT = string(minLength=1, maxLength=NAME_LENGTH)
LOGIN_BODY = obj(
    {
        "username": _LOGIN_TEXT,
        "password": string(minLength=1, maxLength=PASSWORD_LENGTH, format="password"),
        "project_name": _LOGIN_TEXT,
        "project_id": _LOGIN_TEXT,
        "user_domain_name": _LOGIN_TEXT,
        "project_domain_name": _LOGIN_TEXT,
    },
    required=REQUIRED,
    additional=False,
)
_KEYSTONE_NAMED = obj(
    {"id": nullable(string()), "name": nullable(string()), "domain": nullable(string())},
    required=("id", "name", "domain"),
    additional=False,
)
LOGIN_ANSWER = obj(
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

AUTH = Contract(
    "Which auth the service runs, and whether it offers a login (under Keystone)",
    {
        200: obj(
            {
                "auth": string(enum=["noauth", "static token", "keystone"]),
                "login": BOOLEAN,
            },
            required=("auth", "login"),
        )
    },
    errors=(400,),
)
LOGIN = Contract(
    "Log in with a Keystone password: a project-scoped token in the body, to send as "
    "X-Auth-Token (404 when the service does not run Keystone auth)",
    {200: LOGIN_ANSWER},
    body=LOGIN_BODY,
    errors=(400, 401, 403, 404, 413, 415, 503),
    body_noun="login",
)


@router.get("/auth")
@declare(AUTH)
async def auth_mode(request: Request) -> dict[str, Any]:
    AUTH.check_query(request)
    found = services(request)
    return {"auth": MODES[found.settings.auth], "login": found.login is not None}


@router.post("/login")
@declare(LOGIN)
async def login(request: Request) -> dict[str, Any]:
    LOGIN.check_query(request)
    found = services(request)
    keystone = found.login
    if keystone is None:
        raise NotFound(
            f"No login here: this service does not run Keystone auth (it runs "
            f"{MODES[found.settings.auth]}); send a token in X-Auth-Token instead"
        )
    credentials = parse(await LOGIN.body_of(request))
    return await call(request, lambda: keystone(credentials))


def parse(body: dict[str, Any]) -> Credentials:
    """The login's fields, from a body ``LOGIN_BODY`` has checked (an object of strings of the
    allowed lengths, with the required fields); Invalid naming the field and what it takes
    (never its value: it may be a password typed in the wrong box)."""
    values = {name: _text(body, name) for name in FIELDS if name in body}
    if ("project_name" in values) == ("project_id" in values):
        raise Invalid(
            "The login needs exactly one of 'project_name' and 'project_id' (the project "
            "the token is scoped to)"
        )
    if "project_id" in values and "project_domain_name" in values:
        raise Invalid(
            "'project_domain_name' names the domain of 'project_name'; with 'project_id' "
            "leave it out"
        )
    return Credentials(
        username=values["username"],
        password=values["password"],
        project_name=values.get("project_name"),
        project_id=values.get("project_id"),
        user_domain_name=values.get("user_domain_name", "Default"),
        project_domain_name=values.get("project_domain_name", "Default"),
    )


def _text(body: dict[str, Any], name: str) -> str:
    value: str = body[name]
    if not value.strip():
        raise Invalid(f"The login's {name!r} is empty; give a non-empty string")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise Invalid(f"The login's {name!r} holds a control character; it never does")
    return value
