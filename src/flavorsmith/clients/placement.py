"""A real Placement, read through an openstacksdk connection: every resource provider with
its inventories, usages and traits, one provider by uuid, and the providers of
``GET /allocation_candidates``.

Reading providers costs one list, one call per trait in use (``GET /resource_providers?
required=T`` names every provider with that trait) and two calls per provider (inventories,
usages), made by a bounded pool of threads: 10,000 providers are 20,000 small calls and some
thirty trait lists. Nothing is written.

Every failure is a TargetError with one line: Placement out of reach, credentials refused
(401/403), a URL that is not Placement's (404), a microversion it does not offer (406, with the
range it does). A query Placement refuses (400) is no candidate, with Placement's reason."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from urllib.parse import quote

from flavorsmith.clients import cloud
from flavorsmith.clients.sdk import SdkTarget
from flavorsmith.errors import TargetError
from flavorsmith.matching.resource_providers import Candidates, Inventory, Provider

# The lowest microversion of every read here: listing providers by trait (``required``, 1.18).
READ_VERSION = (1, 18)
# Threads reading providers at once (keystoneauth keeps ten connections per host).
THREADS = 8
# Nova 34's scheduler asks for candidates at this microversion (nova/scheduler/client/report.py
# SAME_SUBTREE_VERSION).
NOVA_VERSION = "1.36"
# What every Placement has: a 404 for one of these means the URL is not Placement's.
COLLECTIONS = ("/resource_providers", "/allocation_candidates", "/traits")

T = TypeVar("T")
R = TypeVar("R")
Params = Mapping[str, str] | Sequence[tuple[str, str]]


def parse_version(version: str | tuple[int, int]) -> tuple[int, int]:
    """``"1.39"`` as ``(1, 39)``; anything else is a TargetError naming what is allowed."""
    if isinstance(version, tuple):
        return version
    found = re.fullmatch(r"(\d+)\.(\d+)", version.strip())
    if not found:
        raise TargetError(f"{version!r} is not a Placement microversion (MAJOR.MINOR, e.g. 1.39)")
    return int(found[1]), int(found[2])


def _reason(text: str) -> str:
    """The part of a connection error an operator can act on, on one line."""
    errno = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", text)
    if errno:
        return errno[1].strip()
    if "version discovery document" in text:
        return "no Placement answers there (is it running, and is this its URL?)"
    return " ".join(text.split())[:200]


class PlacementReader(SdkTarget):
    """The resource providers of a real Placement and its allocation candidates."""

    service = "placement"
    label = "Placement"

    def __init__(self, connection: Any, *, where: str = "", threads: int = THREADS) -> None:
        super().__init__(connection)
        self.where = where
        self.threads = max(1, threads)

    @property
    def _at(self) -> str:
        return f"Placement at {self.where}" if self.where else "Placement"

    def fault(self, response: Any) -> str:
        """Placement's error text: the last paragraph of ``errors[0].detail``."""
        try:
            detail = str(response.json()["errors"][0]["detail"])
        except Exception:
            return f"{response.reason} (is this a Placement endpoint?)"
        paragraphs = [" ".join(p.split()) for p in detail.split("\n\n") if p.strip()]
        return paragraphs[-1] if paragraphs else str(response.reason)

    def explain(
        self, exc: TargetError, method: str, path: str, version: tuple[int, int]
    ) -> TargetError:
        """Failures become one line that says what to check."""
        text = str(exc)
        status = exc.status
        if text.startswith("cannot reach") and "(HTTP 401)" in text:
            return TargetError(
                "the cloud's credentials were refused (401) while looking Placement up in the"
                " catalog; check the cloud's auth in clouds.yaml",
                status=401,
            )
        if text.startswith("cannot reach"):
            reason = _reason(text.removeprefix(f"cannot reach {self.label}: "))
            return TargetError(f"cannot reach {self._at}: {reason}", transient=True)
        wanted = f"{version[0]}.{version[1]}"
        if status == 401:
            message = f"{self._at} refused the credentials (401); check the cloud's auth or token"
        elif status == 403:
            message = f"{self._at} does not let these credentials {method} {path} (403)"
        elif status == 404 and path in COLLECTIONS:
            where = self.where or "the endpoint"
            message = f"{method} {path}: 404 from {where} (is this a Placement endpoint?)"
        elif status == 406:
            offered = self._offered()
            message = f"{self._at} does not offer microversion {wanted}" + (
                f" (it offers {offered})" if offered else ""
            )
        else:
            return exc
        return TargetError(message, status=status, transient=exc.transient)

    def _offered(self) -> str:
        """The microversion range the endpoint offers, as ``1.0 to 1.39`` ("" if unknown)."""
        try:
            data = self.proxy.get_endpoint_data()
        except Exception:
            return ""
        low = getattr(data, "min_microversion", None)
        high = getattr(data, "max_microversion", None)
        if not low or not high:
            return ""
        return f"{low[0]}.{low[1]} to {high[0]}.{high[1]}"

    def _each(self, call: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``call`` on every item by the pool, in order; the first failure stops the rest."""
        pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="placement")
        try:
            return list(pool.map(call, items))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def providers(self) -> list[Provider]:
        """Every resource provider with its inventories, usages and traits, sorted by uuid.
        A provider deleted while it is read is left out."""
        body = self.request("GET", "/resource_providers", READ_VERSION)
        listed = _list(body, "resource_providers", "GET /resource_providers")
        traits = _list(
            self.request("GET", "/traits", READ_VERSION, params={"associated": "true"}),
            "traits",
            "GET /traits",
        )
        holders: dict[str, list[str]] = {}

        def with_trait(trait: str) -> list[str]:
            found = self.request(
                "GET", "/resource_providers", READ_VERSION, params={"required": trait}
            )
            return [str(rp["uuid"]) for rp in _list(found, "resource_providers", "GET")]

        for trait, uuids in zip(traits, self._each(with_trait, traits), strict=True):
            for uuid in uuids:
                holders.setdefault(uuid, []).append(str(trait))

        def one(listing: Mapping[str, Any]) -> Provider | None:
            uuid = str(listing["uuid"])
            path = f"/resource_providers/{quote(uuid, safe='')}"
            read = self._read_all(path, "/inventories", "/usages")
            if read is None:
                return None
            inventories, usages = read
            return _provider(listing, inventories, usages, frozenset(holders.get(uuid, ())))

        read = self._each(one, listed)
        return sorted((p for p in read if p is not None), key=lambda p: p.uuid)

    def provider(self, uuid: str) -> Provider | None:
        """One resource provider (``GET /resource_providers/{uuid}``) with its inventories,
        usages and traits: four calls, whatever the size of the cloud. None when Placement has
        no provider with that uuid (404), or it is deleted while it is read."""
        path = f"/resource_providers/{quote(uuid, safe='')}"
        read = self._read_all(path, "", "/inventories", "/usages", "/traits")
        if read is None:
            return None
        listing, inventories, usages, traits = read
        if not isinstance(listing, dict) or "uuid" not in listing:
            raise TargetError(f"GET {path}: the answer has no uuid (is this Placement?)")
        named = frozenset(str(t) for t in _list(traits, "traits", f"GET {path}/traits"))
        return _provider(listing, inventories, usages, named)

    def _read_all(self, path: str, *parts: str) -> list[Any] | None:
        """``GET path+part`` for each of ``parts``, in turn; None when Placement answers 404
        to any (the provider is gone, or deleted while it is read)."""
        try:
            return [self.request("GET", f"{path}{part}", READ_VERSION) for part in parts]
        except TargetError as exc:
            if exc.status == 404:
                return None
            raise

    def candidates(
        self, params: Params, microversion: str | tuple[int, int] = NOVA_VERSION
    ) -> Candidates:
        """``GET /allocation_candidates`` for ``params`` (the query as Nova sends it; no
        ``limit`` is added) at ``microversion``: the providers in every allocation request
        (for bare metal, the nodes the request can land on). A query Placement refuses (400:
        a resource class or trait it does not know, a numbered group with traits and no
        resources, ``in:`` before 1.39) has no candidate, as Nova's scheduler reports it
        (NoValidHost); Placement's reason is kept in ``refused``."""
        version = parse_version(microversion)
        try:
            body = self.request("GET", "/allocation_candidates", version, params=params)
        except TargetError as exc:
            if exc.status == 400:
                reason = str(exc).removeprefix("GET /allocation_candidates: 400 ")
                return Candidates(frozenset(), refused=reason)
            raise
        requests = _list(body, "allocation_requests", "GET /allocation_candidates")
        found: set[str] = set()
        for request in requests:
            allocations = request.get("allocations") if isinstance(request, dict) else None
            if isinstance(allocations, dict):  # 1.12 and later: keyed by provider uuid
                found.update(str(uuid) for uuid in allocations)
            elif isinstance(allocations, list):  # before 1.12: a list naming each provider
                found.update(str(a["resource_provider"]["uuid"]) for a in allocations)
        return Candidates(frozenset(found))

    def allocation_candidates(
        self, params: Params, microversion: str | tuple[int, int] = NOVA_VERSION
    ) -> set[str]:
        """The providers of :meth:`candidates` (none when Placement refuses the query)."""
        return set(self.candidates(params, microversion).providers)


def _list(body: Any, key: str, what: str) -> list[Any]:
    found = body.get(key) if isinstance(body, dict) else None
    if not isinstance(found, list):
        raise TargetError(f"{what}: the answer has no {key} (is this Placement?)")
    return found


def _inventory(fields: Mapping[str, Any]) -> Inventory:
    return Inventory(
        total=int(fields["total"]),
        reserved=int(fields.get("reserved", 0)),
        max_unit=int(fields.get("max_unit", fields["total"])),
        min_unit=int(fields.get("min_unit", 1)),
        step_size=int(fields.get("step_size", 1)),
        allocation_ratio=float(fields.get("allocation_ratio", 1.0)),
    )


def reader(
    cloud_name: str | None,
    endpoint: str | None = None,
    *,
    token: str | None = None,
    timeout: float | None = None,
    threads: int = THREADS,
) -> PlacementReader:
    """The Placement of the clouds.yaml cloud ``cloud_name`` (found in its catalog), else the
    one at ``endpoint``, sending ``token`` when given (a Placement with ``noauth2`` takes
    ``admin``)."""
    connection = cloud.connect(cloud_name, "placement", endpoint, timeout=timeout, token=token)
    where = "" if cloud_name else str(endpoint or "")
    return PlacementReader(connection, where=where, threads=threads)


__all__ = ["NOVA_VERSION", "READ_VERSION", "THREADS", "PlacementReader", "parse_version", "reader"]


def _provider(
    listing: Mapping[str, Any], inventories: Any, usages: Any, traits: frozenset[str]
) -> Provider:
    """A provider from Placement's answers: its listing, inventories and usages documents."""
    uuid = str(listing["uuid"])
    return Provider(
        uuid=uuid,
        name=str(listing.get("name") or uuid),
        generation=int(listing.get("generation") or 0),
        inventories={
            str(rc): _inventory(fields)
            for rc, fields in (inventories or {}).get("inventories", {}).items()
        },
        usages={str(rc): int(n) for rc, n in (usages or {}).get("usages", {}).items()},
        traits=traits,
    )
