"""Which host names the service answers to: a request whose ``Host`` is not one of them is a
400 before any routing, in every API family and under every auth mode.

This closes DNS rebinding: a page on ``rebind.evil.example`` whose name an attacker makes
resolve to 127.0.0.1 sends its requests to us with its own name in ``Host`` (and a matching
``Origin``, so the cross-site guard sees a same-origin request). Under ``noauth`` that page
could otherwise read and delete anything.

Allowed by default: ``localhost``, ``127.0.0.1``, ``[::1]`` and the address ``serve`` binds
(with a wildcard bind, ``0.0.0.0`` or ``::``, this machine's host name instead) and the
address the request arrived at, on any port (a port-forward changes it; a page on another
name gains nothing from a port).
``serve --allowed-host`` adds more: ``NAME`` (any port) or ``NAME:PORT``; ``*`` turns the
check off, for a proxy in front that checks ``Host`` itself.
``/healthz`` and ``/readyz`` answer whatever the ``Host``: probes address a pod or host by its
IP, and neither says anything a page could use. A request with no ``Host`` (HTTP/1.0) comes
from no browser and is not refused.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from flavorsmith.api.families import error_response, family_of
from flavorsmith.query_values import shown_repr

ANY = "*"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = frozenset({"", "0.0.0.0", "::"})
# Answered whatever the Host: load balancers' and kubelets' probes.
PROBES = frozenset({"/healthz", "/readyz"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class HostSyntaxError(ValueError):
    """An ``--allowed-host`` value that names no host."""


@dataclass(frozen=True)
class HostRule:
    """One allowed host: a lower-case name (an IPv6 address without brackets) and its port;
    None: any port."""

    name: str
    port: int | None = None

    def shown(self) -> str:
        name = f"[{self.name}]" if ":" in self.name else self.name
        return name if self.port is None else f"{name}:{self.port}"


def parse_rule(text: str) -> HostRule:
    """``NAME``, ``NAME:PORT``, ``[IPV6]`` or ``[IPV6]:PORT`` as a rule."""
    parsed = _split(text)
    if parsed is None:
        raise HostSyntaxError(
            f"{shown_repr(text)} is not a host name: give NAME, NAME:PORT, [IPV6]:PORT or *"
        )
    return HostRule(*parsed)


def _split(text: str) -> tuple[str, int | None] | None:
    """The lower-case name and port of a ``Host`` value, or None when it is malformed."""
    value = text.strip()
    if not value or any(c in value for c in "/?#@ \t\\"):
        return None
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:
        return None
    name = (parts.hostname or "").rstrip(".")
    if not name:
        return None
    return name, port


@dataclass(frozen=True)
class AllowedHosts:
    """The defaults (on any port) and the operator's own rules."""

    defaults: frozenset[str]
    extra: tuple[HostRule, ...] = ()

    @classmethod
    def for_bind(cls, address: str, extra: tuple[str, ...] = ()) -> AllowedHosts | None:
        """The hosts ``serve`` on ``address`` answers to, plus ``extra`` (``--allowed-host``
        values); None when one of them is ``*``: no check."""
        if ANY in (e.strip() for e in extra):
            return None
        names = set(LOOPBACK_NAMES)
        bound = address.strip("[]").lower()
        if bound in WILDCARD_ADDRESSES:
            names.add(socket.gethostname().lower())
        else:
            names.add(bound)
        return cls(frozenset(names), tuple(parse_rule(e) for e in extra))

    def allows(self, host: str, scheme: str, server: tuple[str, int] | None) -> bool:
        """Whether ``host`` (a ``Host`` header) is allowed on a request that arrived at the
        local address ``server``: a default name, or that very address; or one of the
        operator's rules."""
        parsed = _split(host)
        if parsed is None:
            return False
        name, port = parsed
        if port is None:
            port = _DEFAULT_PORTS.get(scheme)
        # The service's own names on any port: a port-forward (``ssh -L``, ``kubectl
        # port-forward``) changes it, and a rebinding page cannot use these names at all.
        if name in self.defaults or (server is not None and name == server[0].lower()):
            return True
        return any(r.name == name and (r.port is None or r.port == port) for r in self.extra)

    def shown(self) -> str:
        names = sorted(f"[{n}]" if ":" in n else n for n in self.defaults)
        return ", ".join([*names, *(r.shown() for r in self.extra)])


class HostGuard:
    """ASGI middleware: 400 in the API family's error body for a ``Host`` not allowed."""

    def __init__(self, app: ASGIApp, allowed: AllowedHosts | None) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        allowed = self.allowed
        if allowed is not None and scope["type"] == "http" and scope["path"] not in PROBES:
            host = Headers(scope=scope).get("host")
            server = scope.get("server")
            scheme = str(scope.get("scheme", "http"))
            if host is not None and not allowed.allows(host, scheme, server):
                message = (
                    f"Host {shown_repr(host)} is not a name this service answers to; allowed: "
                    f"{allowed.shown()} (flavorsmith serve --allowed-host NAME[:PORT] "
                    "adds one; --allowed-host '*' turns the check off behind a proxy that "
                    "checks Host)"
                )
                response = error_response(family_of(scope["path"]), 400, message)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
