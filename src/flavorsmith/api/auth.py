"""Who is calling: noauth (everyone is admin), static tokens from a YAML file, or Keystone
tokens (api/keystone.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from flavorsmith.api.yamlfile import AuthConfigError, read_mapping
from flavorsmith.errors import NotAuthenticated

__all__ = [
    "AuthConfigError",
    "Authenticator",
    "Credentials",
    "Identity",
    "NoAuth",
    "TokenFile",
    "effective_roles",
]

# OpenStack's default role implications: admin implies member implies reader.
_IMPLIED = {"admin": {"member", "reader"}, "member": {"reader"}}
ROLE_ALIASES = {"observer": "reader"}
# ``service``: Keystone's role for a consuming service's own user (it implies no other role).
KNOWN_ROLES = ("admin", "member", "reader", "observer", "service")


def effective_roles(roles: set[str] | frozenset[str]) -> frozenset[str]:
    out = {ROLE_ALIASES.get(r, r) for r in roles}
    for role in list(out):
        out |= _IMPLIED.get(role, set())
    if "reader" in out:
        out.add("observer")  # Ironic's name for the reader role
    return frozenset(out)


@dataclass(frozen=True)
class Identity:
    """The caller. ``scope`` is what a Keystone token is scoped to (``project``, ``system`` or
    ``domain``); None for noauth and static tokens, which know no scopes, so rules' scope types
    are not checked for them. ``system_scope`` is ``all`` for a system-scoped token."""

    user_id: str | None
    project_id: str | None
    roles: frozenset[str] = field(default_factory=frozenset)
    scope: str | None = None
    system_scope: str | None = None
    project_name: str | None = None
    domain_id: str | None = None

    @property
    def is_admin(self) -> bool:
        return "admin" in self.roles

    def credentials(self) -> dict[str, object]:
        """What policy rules test (oslo.policy's credential names)."""
        return {
            "user_id": self.user_id,
            "project_id": self.project_id,
            "tenant": self.project_id,
            "roles": sorted(self.roles),
            "is_admin": self.is_admin,
            "system_scope": self.system_scope,
            "project_name": self.project_name,
            "domain_id": self.domain_id,
        }


@dataclass(frozen=True)
class Credentials:
    """A Keystone password login (``POST /v1/login``), scoped to one project: by id, or by
    name in its domain. ``repr`` never shows the password."""

    username: str
    password: str = field(repr=False)
    project_name: str | None = None
    project_id: str | None = None
    user_domain_name: str = "Default"
    project_domain_name: str = "Default"


class Authenticator(Protocol):
    """``blocking``: authenticate does network I/O, so the middleware runs it on a worker
    thread."""

    blocking: bool

    def authenticate(self, headers: Mapping[str, str]) -> Identity: ...


class NoAuth:
    """Development mode: every caller is an admin."""

    identity = Identity("admin", "admin", effective_roles({"admin"}))
    blocking = False

    def authenticate(self, headers: Mapping[str, str]) -> Identity:
        return self.identity


class TokenFile:
    """Static tokens: ``token: {user: U, project: P, roles: [admin|member|reader|service]}``."""

    blocking = False

    def __init__(self, tokens: Mapping[str, Identity]) -> None:
        self.tokens = dict(tokens)

    @classmethod
    def load(cls, path: Path) -> TokenFile:
        data = read_mapping(path, "token file")
        tokens: dict[str, Identity] = {}
        for token, entry in data.items():
            where = f"{path}: token {token[:4]}…"
            if not isinstance(entry, dict):
                raise AuthConfigError(f"{where}: expected a mapping with user, project and roles")
            unknown = set(entry) - {"user", "project", "roles"}
            if unknown:
                raise AuthConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}")
            roles = entry.get("roles", [])
            if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
                raise AuthConfigError(f"{where}: roles must be a list of role names")
            bad = [r for r in roles if r not in KNOWN_ROLES]
            if bad:
                raise AuthConfigError(
                    f"{where}: unknown role {bad[0]!r}; allowed: {', '.join(KNOWN_ROLES)}"
                )
            tokens[token] = Identity(
                _text(entry.get("user")), _text(entry.get("project")), effective_roles(set(roles))
            )
        return cls(tokens)

    def authenticate(self, headers: Mapping[str, str]) -> Identity:
        token = headers.get("x-auth-token")
        if not token:
            raise NotAuthenticated("Authentication required: send a token in X-Auth-Token")
        identity = self.tokens.get(token)
        if identity is None:
            raise NotAuthenticated("The X-Auth-Token is not valid")
        return identity


def _text(value: object) -> str | None:
    return None if value is None else str(value)
