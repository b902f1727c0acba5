"""Flavorsmith's entries in a Keystone service catalog, written through openstacksdk's identity
proxy as an admin of the cloud (``flavorsmith keystone register``).

The native API (``/v1``) is always registered under its own service type, ``flavorsmith``: no
OpenStack service uses that type (the service-types authority has none by that name), so it
can never be mistaken for another service, and clients find it with
``connection.endpoint_for("flavorsmith")``. The Ironic-, Nova- and Octavia-compatible APIs are
registered under ``baremetal``, ``compute`` and ``load-balancer`` only when asked, and never
next to another service of that type (clients would pick either).

What to change is worked out first (:func:`plan`, a pure function of the wanted and the
existing entries), then written: a second run finds nothing to change."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import keystoneauth1.exceptions as ksa

from flavorsmith.clients.cloud import connect
from flavorsmith.errors import TargetError

NAME = "flavorsmith"
NATIVE = "flavorsmith"
INTERFACE = "public"
# service type -> (path under the public URL, description)
APIS: dict[str, tuple[str, str]] = {
    NATIVE: ("/v1", "Flavorsmith: bare-metal flavors, traits and capacity from a Git catalog"),
    "baremetal": ("/baremetal", "Flavorsmith's Ironic-compatible API"),
    "compute": ("/compute/v2.1", "Flavorsmith's Nova-compatible flavor API"),
    "load-balancer": ("/load-balancer", "Flavorsmith's Octavia-compatible flavor API"),
}
COMPATIBLE = tuple(t for t in APIS if t != NATIVE)


@dataclass(frozen=True)
class Wanted:
    """One catalog entry: a service of ``type`` with a public endpoint at ``url``."""

    type: str
    url: str


@dataclass(frozen=True)
class Existing:
    """What Keystone holds for one service type: every service of that type (id, name), and
    the public endpoints of ours in the region (id, url)."""

    services: tuple[tuple[str, str], ...]
    endpoints: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Change:
    """``create-service``, ``create-endpoint``, ``update-endpoint`` or ``unchanged``."""

    action: str
    wanted: Wanted
    service_id: str | None = None
    endpoint_id: str | None = None
    old_url: str | None = None

    def describe(self, region: str) -> str:
        where = f"{self.wanted.type} ({INTERFACE}, {region})"
        if self.action == "create-service":
            return f"created service {NAME!r} of type {self.wanted.type}"
        if self.action == "create-endpoint":
            return f"created endpoint {where}: {self.wanted.url}"
        if self.action == "update-endpoint":
            return f"updated endpoint {where}: {self.old_url} -> {self.wanted.url}"
        return f"unchanged endpoint {where}: {self.wanted.url}"


def wanted(public_url: str, also: tuple[str, ...]) -> list[Wanted]:
    """The native API, then the compatible APIs of ``also``, under ``public_url``."""
    root = public_url.rstrip("/")
    return [Wanted(t, root + APIS[t][0]) for t in (NATIVE, *sorted(set(also)))]


def plan(entry: Wanted, existing: Existing) -> list[Change]:
    """The changes that make Keystone hold ``entry``; TargetError when another service of a
    standard type is there already (Flavorsmith would shadow it)."""
    others = [(i, n) for i, n in existing.services if n != NAME]
    if entry.type != NATIVE and others:
        names = ", ".join(f"{n!r} ({i})" for i, n in others)
        raise TargetError(
            f"Keystone already has a {entry.type} service: {names}; registering Flavorsmith as "
            f"{entry.type} would shadow it (remove it first, or leave {entry.type} out of --as)"
        )
    ours = [i for i, n in existing.services if n == NAME]
    if not ours:
        return [Change("create-service", entry), Change("create-endpoint", entry)]
    service = ours[0]
    if not existing.endpoints:
        return [Change("create-endpoint", entry, service_id=service)]
    endpoint, url = existing.endpoints[0]
    if url == entry.url:
        return [Change("unchanged", entry, service_id=service, endpoint_id=endpoint)]
    return [Change("update-endpoint", entry, service_id=service, endpoint_id=endpoint, old_url=url)]


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class KeystoneCatalog:
    """The service catalog of the clouds.yaml ``cloud``, as that cloud's (admin) user sees it."""

    def __init__(self, cloud: str, *, timeout: float = 30.0) -> None:
        self.cloud = cloud
        # keystoneauth warns on stderr before it fails; the failure is reported in one line.
        logging.getLogger("keystoneauth").setLevel(logging.ERROR)
        try:
            self.connection = connect(cloud, "identity", timeout=timeout)
        except TargetError as exc:
            reason = str(exc).removeprefix("cannot configure the target: ")
            raise TargetError(f"cloud {cloud!r}: {reason}") from None

    @property
    def default_region(self) -> str | None:
        region = self.connection.config.region_name
        return str(region) if region else None

    def _call(self, what: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except ksa.Unauthorized as exc:
            raise TargetError(
                f"Keystone refuses the credentials of cloud {self.cloud!r}: {_first_line(exc)}"
            ) from None
        except (ksa.ConnectionError, ksa.ConnectTimeout, ksa.RetriableConnectionFailure) as exc:
            raise TargetError(
                f"cannot reach Keystone of cloud {self.cloud!r}: {_first_line(exc)}"
            ) from None
        except Exception as exc:
            status = getattr(exc, "status_code", None)
            if status == 403:
                raise TargetError(
                    f"cloud {self.cloud!r} may not {what} (Keystone answered 403): registering "
                    "needs a user with Keystone's admin role"
                ) from None
            raise TargetError(f"cloud {self.cloud!r}: cannot {what}: {_first_line(exc)}") from None

    @property
    def identity(self) -> Any:
        """The identity proxy (signing in and finding the endpoint on first use)."""
        return self._call("sign in", lambda: self.connection.identity)

    def check_region(self, region: str) -> None:
        identity = self.identity
        known = self._call("list regions", lambda: [r.id for r in identity.regions()])
        if region not in known:
            raise TargetError(
                f"Keystone of cloud {self.cloud!r} has no region {region!r} "
                f"(it has: {', '.join(known) or 'none'}); give --region"
            )

    def existing(self, service_type: str, region: str) -> Existing:
        identity = self.identity
        services = self._call(
            "list services", lambda: [(s.id, s.name) for s in identity.services(type=service_type)]
        )
        endpoints: list[tuple[str, str]] = []
        for service_id, name in services:
            if name != NAME:
                continue
            endpoints = self._call(
                "list endpoints",
                lambda sid=service_id: [
                    (e.id, e.url)
                    for e in identity.endpoints(service_id=sid, interface=INTERFACE)
                    if e.region_id == region
                ],
            )
            break
        return Existing(tuple(services), tuple(endpoints))

    def apply(self, changes: list[Change], region: str) -> None:
        identity = self.identity
        service_id: str | None = None
        for change in changes:
            entry = change.wanted
            if change.action == "create-service":
                made = self._call(
                    "create services",
                    identity.create_service,
                    type=entry.type,
                    name=NAME,
                    description=APIS[entry.type][1],
                    is_enabled=True,
                )
                service_id = str(made.id)
            elif change.action == "create-endpoint":
                self._call(
                    "create endpoints",
                    identity.create_endpoint,
                    service_id=change.service_id or service_id,
                    interface=INTERFACE,
                    url=entry.url,
                    region_id=region,
                    is_enabled=True,
                )
            elif change.action == "update-endpoint":
                self._call(
                    "update endpoints", identity.update_endpoint, change.endpoint_id, url=entry.url
                )

    def register(self, entries: list[Wanted], region: str) -> list[Change]:
        """Make Keystone hold ``entries`` in ``region``; every change planned before any is
        written, so a refusal (a service that would be shadowed) writes nothing."""
        self.check_region(region)
        plans = [plan(entry, self.existing(entry.type, region)) for entry in entries]
        for changes in plans:
            self.apply(changes, region)
        return [change for changes in plans for change in changes]

    def close(self) -> None:
        self.connection.close()
