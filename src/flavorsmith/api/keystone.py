"""Keystone tokens, validated by keystonemiddleware's ``auth_token`` as every OpenStack service
validates them (token cache, service user, ``[keystone_authtoken]`` options). The only module
that imports keystonemiddleware.

auth_token is a WSGI middleware; for each request this module builds a minimal WSGI environ
from the request's headers and calls it around a tiny WSGI application, then reads the
identity headers it set (``X-Identity-Status``, ``X-Roles``, ``X-Project-Id``,
``OpenStack-System-Scope``, ...). It blocks on Keystone, so the middleware calls it on a worker
thread. It always runs with ``delay_auth_decision = true``: auth_token marks a missing or bad
token instead of answering, and the service answers 401 in each API family's own body with
``WWW-Authenticate: Keystone uri="…"`` (version documents stay open).
"""

from __future__ import annotations

import configparser
import io
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from keystonemiddleware import auth_token

from flavorsmith.api.auth import Credentials, Identity, effective_roles
from flavorsmith.api.yamlfile import AuthConfigError
from flavorsmith.errors import Invalid, NotAuthenticated, ServiceUnavailable, TargetError

log = logging.getLogger("flavorsmith.keystone")
sync_log = logging.getLogger("flavorsmith.sync")  # serve quiets the first one, not this

SECTION = "keystone_authtoken"
REQUIRED = ("www_authenticate_uri", "auth_url", "auth_type")
TIMEOUT = 10.0
# What a client is told to wait before retrying a login Keystone could not answer.
LOGIN_RETRY_AFTER = "5"


class KeystoneUnavailable(Exception):
    """Keystone cannot be reached, or refuses the service user's credentials."""


def read_options(path: Path) -> dict[str, str]:
    """The ``[keystone_authtoken]`` options of ``path``; AuthConfigError, in one line naming
    the file and what is wrong, when it cannot be read, is not an ini file, or lacks the
    section or a required option."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise AuthConfigError(f"keystone config {path}: cannot read it: {reason}") from None
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error as exc:
        first = str(exc).splitlines()[0]
        raise AuthConfigError(f"keystone config {path}: not an ini file: {first}") from None
    if not parser.has_section(SECTION):
        raise AuthConfigError(f"keystone config {path}: no [{SECTION}] section")
    options = dict(parser.items(SECTION))
    missing = [name for name in REQUIRED if not options.get(name)]
    if missing:
        raise AuthConfigError(
            f"keystone config {path}: [{SECTION}] needs {', '.join(missing)} "
            f"(the options {', '.join(REQUIRED)} are required)"
        )
    return options


def _reached(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """The application auth_token wraps: it only notes that the request got through."""
    environ["flavorsmith.reached"] = True
    start_response("204 No Content", [])
    return [b""]


def _environ(headers: Mapping[str, str]) -> dict[str, Any]:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_NAME": "flavorsmith",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            continue
        environ[f"HTTP_{key}"] = value
    return environ


def identity_url(auth_url: str) -> str:
    """The Identity v3 API under ``auth_url`` (with or without its ``/v3``)."""
    root = auth_url.rstrip("/")
    return root if root.endswith("/v3") else f"{root}/v3"


class KeystoneAuth:
    """Authenticates each request's X-Auth-Token (and X-Service-Token) with Keystone."""

    blocking = True

    def __init__(self, path: Path, options: Mapping[str, str]) -> None:
        self.path = path
        self.options = dict(options)
        self._warned = False
        self._system: tuple[str, float] | None = None  # a system-scoped token, until when
        self.www_authenticate_uri = options["www_authenticate_uri"]
        self.identity = identity_url(options["auth_url"])
        conf = {
            "oslo_config_project": "flavorsmith",
            "oslo_config_file": str(path),
            "delay_auth_decision": "true",
        }
        try:
            self.protocol = auth_token.AuthProtocol(_reached, conf)
        except Exception as exc:  # an option keystonemiddleware cannot use
            first = (str(exc) or type(exc).__name__).splitlines()[0]
            raise AuthConfigError(f"keystone config {path}: {first}") from None

    @classmethod
    def load(cls, path: Path) -> KeystoneAuth:
        return cls(path, read_options(path))

    @property
    def challenge(self) -> dict[str, str]:
        """The header a 401 carries, as auth_token words it."""
        return {"WWW-Authenticate": f'Keystone uri="{self.www_authenticate_uri}"'}

    def authenticate(self, headers: Mapping[str, str]) -> Identity:
        environ = _environ(headers)
        try:
            self.protocol(environ, lambda status, headers, exc_info=None: None)
        except Exception as exc:  # e.g. no identity endpoint of the configured interface
            log.error("keystone: cannot validate tokens: %s: %s", type(exc).__name__, exc)
            raise ServiceUnavailable(
                "Tokens cannot be validated now (Keystone is unavailable); retry later",
                headers={"Retry-After": "5"},
            ) from None
        confirmed = environ.get("HTTP_X_IDENTITY_STATUS") == "Confirmed"
        service = environ.get("HTTP_X_SERVICE_IDENTITY_STATUS", "Confirmed") == "Confirmed"
        if not (environ.get("flavorsmith.reached") and confirmed and service):
            message = (
                "The request you have made requires authentication."
                if "HTTP_X_AUTH_TOKEN" in environ
                else "Authentication required: send a Keystone token in X-Auth-Token"
            )
            raise NotAuthenticated(message, headers=self.challenge)
        roles = {r.strip().lower() for r in environ.get("HTTP_X_ROLES", "").split(",")}
        system = environ.get("HTTP_OPENSTACK_SYSTEM_SCOPE") or None
        project = environ.get("HTTP_X_PROJECT_ID") or None
        domain = environ.get("HTTP_X_DOMAIN_ID") or None
        scope = "system" if system else "project" if project else "domain" if domain else None
        return Identity(
            user_id=environ.get("HTTP_X_USER_ID") or None,
            project_id=project,
            roles=effective_roles({r for r in roles if r}),
            scope=scope,
            system_scope=system,
            project_name=environ.get("HTTP_X_PROJECT_NAME") or None,
            domain_id=domain or environ.get("HTTP_X_PROJECT_DOMAIN_ID") or None,
        )

    def service_token(self) -> str:
        """A token of the service user ``[keystone_authtoken]`` names (auth_token's own
        plugin and session, so its options apply); KeystoneUnavailable when Keystone cannot
        be reached or refuses the credentials."""
        try:
            token = self.protocol._auth.get_token(self.protocol._session)
        except Exception as exc:
            first = (str(exc) or type(exc).__name__).splitlines()[0]
            raise KeystoneUnavailable(
                f"Keystone at {self.identity}: cannot sign in as the service user of "
                f"{self.path}: {type(exc).__name__}: {first}"
            ) from None
        if not token:
            raise KeystoneUnavailable(
                f"Keystone at {self.identity}: no token for the service user of {self.path}"
            )
        return str(token)

    def check(self) -> None:
        """At start: Keystone answers, takes the service user's credentials and validates
        its own token through auth_token exactly as requests will be; KeystoneUnavailable,
        in one line, otherwise."""
        token = self.service_token()
        try:
            self.authenticate({"x-auth-token": token})
        except ServiceUnavailable:
            raise KeystoneUnavailable(self._validation_problem()) from None
        except NotAuthenticated:
            raise KeystoneUnavailable(
                f"Keystone at {self.identity} does not confirm the service user's own token "
                f"(check the service user of {self.path} and its service role)"
            ) from None

    def _validation_problem(self) -> str:
        environ = _environ({"x-auth-token": self.service_token()})
        try:
            self.protocol(environ, lambda status, headers, exc_info=None: None)
        except Exception as exc:
            first = (str(exc) or type(exc).__name__).splitlines()[0]
            hint = (
                "; if Keystone lists only public endpoints, set interface = public"
                if "endpoint" in first.lower()
                else ""
            )
            return f"Keystone at {self.identity}: cannot validate tokens: {first}{hint}"
        return f"Keystone at {self.identity}: cannot validate tokens"

    def project_exists(self, project_id: str, token: str | None = None) -> bool | None:
        """Does Keystone know ``project_id``? Asked with ``token`` (the caller's, as Nova
        asks) or the service user's. None when Keystone does not let that token look
        (403), as Nova then lets the change through."""
        quoted = urllib.parse.quote(project_id, safe="")
        request = urllib.request.Request(
            f"{self.identity}/projects/{quoted}",
            headers={"X-Auth-Token": token or self.service_token(), "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                json.load(response)
                return True
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return False
            if exc.code == 403:
                return None
            raise KeystoneUnavailable(
                f"Keystone at {self.identity} answered {exc.code} to GET /projects/{project_id}"
            ) from None
        except OSError as exc:
            raise KeystoneUnavailable(
                f"Keystone at {self.identity} cannot be reached: {exc}"
            ) from None

    def verify_project(self, project_id: str, token: str | None) -> bool:
        """Nova's check when flavor access is added (``nova.api.openstack.identity``), asked
        with the caller's ``token``: False only when Keystone says the project does not exist
        (404); a 403 or an unreachable Keystone lets the change through, logged."""
        try:
            known = self.project_exists(project_id, token)
        except KeystoneUnavailable as exc:
            log.info("keystone: cannot verify project %s: %s", project_id, exc)
            return True
        if known is None:
            log.info("keystone: the caller may not look up project %s; not verified", project_id)
        return known is not False

    def system_token(self) -> str | None:
        """A system-scoped token of the service user (password auth with the options of
        ``[keystone_authtoken]``), kept for ten minutes; None when Keystone gives none (the user
        has no role on the system, or the auth type is not a password)."""
        now = time.monotonic()
        if self._system is not None and self._system[1] > now:
            return self._system[0]
        options = self.options
        if options.get("auth_type") != "password" or not options.get("username"):
            return None
        user: dict[str, Any] = {
            "name": options["username"],
            "password": options.get("password", ""),
        }
        if options.get("user_domain_id"):
            user["domain"] = {"id": options["user_domain_id"]}
        else:
            user["domain"] = {"name": options.get("user_domain_name", "Default")}
        body = password_body(user, {"system": {"all": True}})
        try:
            token, _ = _password_token(self.identity, body)
        except urllib.error.HTTPError:
            return None  # no role on the system: the project-scoped service token is used
        except OSError as exc:
            raise KeystoneUnavailable(
                f"Keystone at {self.identity} cannot be reached: {exc}"
            ) from None
        if not token:
            return None
        self._system = (token, now + 600)
        return token

    def login(self, credentials: Credentials) -> dict[str, Any]:
        """``POST /v1/login``: a project-scoped token for ``credentials`` from the Keystone
        of ``auth_url`` (see ``login``)."""
        return login(self.identity, credentials)

    def catalog_project(self, project_id: str) -> bool | None:
        """For ``serve --sync``: does Keystone know ``project_id``, asked as the service user
        (system-scoped when it has a role on the system, as Keystone's defaults let a system
        reader read any project)? None (logged once) when Keystone does not let it look. An
        unreachable Keystone is a transient TargetError, retried."""
        try:
            known = self.project_exists(project_id, self.system_token())
        except KeystoneUnavailable as exc:
            reason = f"cannot check project {project_id!r}: {exc}"
            raise TargetError(reason, transient=True) from None
        if known is None and not self._warned:
            self._warned = True
            sync_log.warning(
                "keystone: the service user may not look up projects, so the catalog's project "
                "ids are not checked (give it the reader role on the system: openstack role add "
                "--system all --user USER reader)"
            )
        return known


def _keystone_message(error: urllib.error.HTTPError) -> str:
    """Keystone's own reason in an error answer (``{"error": {"message": ...}}``), one short
    line; its status phrase when the body says none."""
    try:
        body = json.loads(error.read())
        message = str(body["error"]["message"])
    except (OSError, ValueError, KeyError, TypeError):
        message = str(error.reason or f"HTTP {error.code}")
    line = " ".join(message.split())
    return line if len(line) <= 300 else line[:300] + "…"


def _named(entry: object) -> dict[str, Any]:
    """A user or project of Keystone's token body: its id, name and domain's name."""
    found = entry if isinstance(entry, dict) else {}
    domain = found.get("domain")
    return {
        "id": found.get("id"),
        "name": found.get("name"),
        "domain": domain.get("name") if isinstance(domain, dict) else None,
    }


def password_body(user: Mapping[str, Any], scope: Mapping[str, Any]) -> dict[str, Any]:
    """Keystone's ``POST /v3/auth/tokens`` body: password auth of ``user`` (its name, domain
    and password), scoped to ``scope`` (``{"project": ...}`` or ``{"system": ...}``)."""
    return {
        "auth": {
            "identity": {"methods": ["password"], "password": {"user": dict(user)}},
            "scope": dict(scope),
        }
    }


def login_body(credentials: Credentials) -> dict[str, Any]:
    """Keystone's ``POST /v3/auth/tokens`` body for ``credentials``: password auth, scoped to
    one project."""
    project: dict[str, Any]
    if credentials.project_id is not None:
        project = {"id": credentials.project_id}
    else:
        project = {
            "name": credentials.project_name,
            "domain": {"name": credentials.project_domain_name},
        }
    user = {
        "name": credentials.username,
        "domain": {"name": credentials.user_domain_name},
        "password": credentials.password,
    }
    return password_body(user, {"project": project})


def _password_token(identity: str, body: Mapping[str, Any]) -> tuple[str | None, bytes]:
    """``POST /auth/tokens`` with ``body`` (``password_body``) to the Keystone whose Identity
    v3 API is ``identity``: the token it gives (``X-Subject-Token``; None when the answer has
    none) and the answer's body. Keystone's refusal is its HTTPError, an unreachable Keystone
    an OSError: each caller words them."""
    request = urllib.request.Request(
        f"{identity}/auth/tokens",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        token = response.headers.get("X-Subject-Token")
        return (str(token) if token else None), response.read()


def login(identity: str, credentials: Credentials) -> dict[str, Any]:
    """A project-scoped token from the Keystone whose Identity v3 API is ``identity`` for
    ``credentials``: the token, when it expires, its user, project and roles. Keystone's
    refusal is a 401 (400 for a request it cannot read) carrying its reason, an unreachable
    or failing Keystone a 503. No message holds the password or the token."""
    scope = (
        f"project id {credentials.project_id!r}"
        if credentials.project_id is not None
        else f"project {credentials.project_name!r} in domain {credentials.project_domain_name!r}"
    )
    who = f"user {credentials.username!r} of domain {credentials.user_domain_name!r}, {scope}"
    retry = {"Retry-After": LOGIN_RETRY_AFTER}
    try:
        token, raw = _password_token(identity, login_body(credentials))
        answer = json.loads(raw)
    except urllib.error.HTTPError as exc:
        reason = _keystone_message(exc)
        if exc.code == 400:
            raise Invalid(f"Keystone refused the login request ({who}): {reason}") from None
        if exc.code in (401, 403, 404):
            raise NotAuthenticated(f"Keystone refused the login ({who}): {reason}") from None
        raise ServiceUnavailable(
            f"Keystone at {identity} answered {exc.code} to the login: {reason}; retry later",
            headers=retry,
        ) from None
    except (OSError, ValueError) as exc:
        cause = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or exc
        raise ServiceUnavailable(
            f"Keystone at {identity} cannot be reached for the login: {cause}; retry later",
            headers=retry,
        ) from None
    body = answer.get("token") if isinstance(answer, dict) else None
    if not token or not isinstance(body, dict):
        raise ServiceUnavailable(
            f"Keystone at {identity} answered the login without a token; retry later",
            headers=retry,
        )
    roles = body.get("roles")
    return {
        "token": token,
        "expires_at": body.get("expires_at"),
        "user": _named(body.get("user")),
        "project": _named(body.get("project")),
        "roles": sorted(
            str(role["name"])
            for role in (roles if isinstance(roles, list) else [])
            if isinstance(role, dict) and role.get("name")
        ),
    }
