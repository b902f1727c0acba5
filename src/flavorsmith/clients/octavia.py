"""A real Octavia, read and written through an openstacksdk connection (its ``load_balancer``
proxy; ``cloud.connect(cloud, "load_balancer", endpoint)``): the enabled providers, a provider's
flavor capabilities, flavor profiles and flavors (list, create, update, delete), and the load
balancers that use a flavor, which a plan that deletes or replaces a flavor counts.

Octavia has no microversions (``/v2`` is the API; the SDK's version discovery finds it from the
root). Its refusals are ``{"faultcode": …, "faultstring": …}``; a refusal is a TargetError with
the ``faultstring``, and for a flavor profile's provider or flavor data with what Octavia would
take (the enabled providers, the provider's capabilities). Octavia answers 501 to flavor data a
provider does not support, and 409 to a name taken or an object in use: those are not worth a
retry, so they are not transient here (other 5xx answers and 409s are, as for every target)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextlib import suppress
from typing import Any
from urllib.parse import quote

from flavorsmith.clients.sdk import SdkTarget
from flavorsmith.errors import TargetError

# Octavia's default page size is 1000 ([api_settings] pagination_max_limit); ask for that.
PAGE = 1000
# Load balancers Octavia keeps for a while after their deletion (until housekeeping purges
# them); they do not hold a flavor (deleting the flavor moves them to the placeholder).
GONE = "DELETED"
# The version argument SdkTarget's calls carry; Octavia has none, nothing is sent.
V2 = (2, 0)


def _id(value: str) -> str:
    return quote(value, safe="")


class OctaviaTarget(SdkTarget):
    """Any Octavia v2 API."""

    service = "load_balancer"
    label = "Octavia"

    def microversion(self, wanted: tuple[int, int]) -> str | None:
        return None

    @property
    def proxy(self) -> Any:
        """The proxy; an endpoint at Octavia's ``/v2`` (which answers the JSON string ``"v2"``
        where keystoneauth looks for a version document, and fails to read it) is an error that
        says to give the root."""
        try:
            return super().proxy
        except TargetError as exc:
            if "string indices must be integers" not in str(exc):
                raise
            raise TargetError(
                "cannot reach Octavia: its endpoint does not answer a version document (Octavia's"
                ' /v2 answers only "v2"); give Octavia\'s root URL (http://HOST:9876), not its'
                " /v2",
                transient=False,
            ) from None

    def fault(self, response: Any) -> str:
        """Octavia's error text: ``faultstring`` (pecan/WSME's error body)."""
        try:
            return str(response.json()["faultstring"])
        except Exception:
            is_json = "json" in response.headers.get("content-type", "")
            text = str(response.text[:200]) if is_json else ""
            return text or f"{response.reason} (is this an Octavia API endpoint?)"

    def explain(
        self, exc: TargetError, method: str, path: str, version: tuple[int, int]
    ) -> TargetError:
        """Octavia's refusals that another try would not change are permanent: flavor data a
        provider does not support (501), an object in use or a name taken (409)."""
        words = str(exc)
        permanent = exc.status == 501 or (
            exc.status == 409 and ("is in use" in words or "already exists" in words)
        )
        return TargetError(words, status=exc.status) if permanent else exc

    def _json(self, method: str, path: str, key: str, body: Any = None, params: Any = None) -> Any:
        """One call's ``key`` member; an answer without it is a TargetError."""
        answer = self.request(method, path, V2, body=body, params=params)
        if not isinstance(answer, dict) or key not in answer:
            raise TargetError(
                f"{method} /v2{path}: the answer has no {key!r} (is this an Octavia API?)"
            )
        return answer[key]

    def _all(self, path: str, key: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        """Every item of a list, page after page (``marker``, ``limit``, ``<key>_links``)."""
        base = {"limit": PAGE, **(params or {})}
        query = dict(base)
        out: list[Any] = []
        while True:
            answer = self.request("GET", path, V2, params=query)
            page = answer.get(key) if isinstance(answer, dict) else None
            if not isinstance(page, list):
                raise TargetError(f"GET /v2{path}: the answer has no {key} list (is this Octavia?)")
            out += page
            links = answer.get(f"{key}_links") or []
            if not page or not any(link.get("rel") == "next" for link in links):
                return out
            query = {**base, "marker": page[-1]["id"]}

    # --- providers ------------------------------------------------------------------------

    def providers(self) -> list[dict[str, Any]]:
        """The enabled providers: ``{"name", "description"}`` each."""
        found = self._json("GET", "/lbaas/providers", "providers")
        return [dict(each) for each in found]

    def provider_names(self) -> list[str]:
        return [str(each["name"]) for each in self.providers()]

    def flavor_capabilities(self, provider: str) -> list[dict[str, Any]]:
        """What flavor data ``provider`` takes: ``{"name", "description"}`` each. A provider
        that is not enabled is a TargetError naming the enabled ones."""
        path = f"/lbaas/providers/{_id(provider)}/flavor_capabilities"
        try:
            found = self._json("GET", path, "flavor_capabilities")
        except TargetError as exc:
            raise self._provider_error(exc, provider) from None
        return [dict(each) for each in found]

    def _provider_error(self, exc: TargetError, provider: str) -> TargetError:
        """A refusal that names a provider that is not enabled: with the enabled ones."""
        if exc.status not in (400, 404) or "not enabled" not in str(exc):
            return exc
        try:
            enabled = ", ".join(self.provider_names()) or "none"
        except TargetError:
            return exc
        return TargetError(
            f"Octavia has no enabled provider {provider!r} (enabled: {enabled})", status=exc.status
        )

    # --- flavor profiles ------------------------------------------------------------------

    def flavor_profiles(self) -> list[dict[str, Any]]:
        """Every flavor profile, ``flavor_data`` parsed (a dict; the text when it is not
        JSON). Octavia lets only an admin list them."""
        return [_profile(each) for each in self._all("/lbaas/flavorprofiles", "flavorprofiles")]

    def create_flavor_profile(
        self, name: str, provider: str, flavor_data: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A new flavor profile; Octavia has the provider validate ``flavor_data``."""
        body = {"name": name, "provider_name": provider, "flavor_data": _data(flavor_data)}
        return self._profile_write("POST", "/lbaas/flavorprofiles", body, provider)

    def update_flavor_profile(
        self,
        profile_id: str,
        *,
        name: str | None = None,
        provider: str | None = None,
        flavor_data: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Change what is given. Octavia refuses (409) to change a profile a flavor uses."""
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        if provider is not None:
            body["provider_name"] = provider
        if flavor_data is not None:
            body["flavor_data"] = _data(flavor_data)
        path = f"/lbaas/flavorprofiles/{_id(profile_id)}"
        try:
            return self._profile_write("PUT", path, body, provider)
        except TargetError as exc:
            if provider is not None or exc.status != 501:
                raise
            # New flavor data for the provider the profile has: name that one's capabilities.
            try:
                kept = str(self._json("GET", path, "flavorprofile")["provider_name"])
            except (TargetError, KeyError, TypeError):
                raise exc from None
            raise self._flavor_data_error(exc, kept) from None

    def delete_flavor_profile(self, profile_id: str) -> None:
        """Octavia refuses (409) to delete a profile a flavor uses."""
        self.request("DELETE", f"/lbaas/flavorprofiles/{_id(profile_id)}", V2)

    def _profile_write(
        self, method: str, path: str, body: dict[str, Any], provider: str | None
    ) -> dict[str, Any]:
        try:
            made = self._json(method, path, "flavorprofile", body={"flavorprofile": body})
        except TargetError as exc:
            raise self._flavor_data_error(exc, provider) from None
        return _profile(made)

    def _flavor_data_error(self, exc: TargetError, provider: str | None) -> TargetError:
        """A refused profile write: a provider that is not enabled names the enabled ones;
        flavor data the provider does not support (Octavia's 501) names its capabilities."""
        if provider is None:
            return exc
        if exc.status == 400 and "not enabled" in str(exc):
            return self._provider_error(exc, provider)
        if exc.status != 501 and "does not support" not in str(exc):
            return exc
        try:
            names = ", ".join(str(c["name"]) for c in self.flavor_capabilities(provider))
        except TargetError:
            names = "unknown"
        return TargetError(
            f"{exc} (provider {provider!r} takes: {names or 'nothing'})", status=exc.status
        )

    # --- flavors ----------------------------------------------------------------------------

    def flavors(self) -> list[dict[str, Any]]:
        """Every flavor: ``id``, ``name``, ``description``, ``enabled``, ``flavor_profile_id``."""
        return [dict(each) for each in self._all("/lbaas/flavors", "flavors")]

    def create_flavor(
        self, name: str, profile_id: str, *, description: str = "", enabled: bool = True
    ) -> dict[str, Any]:
        body = {
            "name": name,
            "flavor_profile_id": profile_id,
            "description": description,
            "enabled": enabled,
        }
        try:
            return dict(self._json("POST", "/lbaas/flavors", "flavor", body={"flavor": body}))
        except TargetError as exc:
            # Octavia 19 answers 500 with its database's foreign key error for a profile it
            # does not have (docs/reference/octavia-api.md): say so, and do not retry it.
            if exc.status == 500 and "foreign key constraint" in str(exc):
                raise TargetError(
                    f"POST /lbaas/flavors: Octavia has no flavor profile {profile_id!r}"
                    " (it answered 500 with a foreign key error)",
                    status=500,
                ) from None
            raise

    def update_flavor(
        self,
        flavor_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        enabled: bool | None = None,
    ) -> dict[str, Any]:
        """Change what is given (Octavia lets a flavor's profile be set only at creation)."""
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        if description is not None:
            body["description"] = description
        if enabled is not None:
            body["enabled"] = enabled
        path = f"/lbaas/flavors/{_id(flavor_id)}"
        return dict(self._json("PUT", path, "flavor", body={"flavor": body}))

    def delete_flavor(self, flavor_id: str) -> None:
        """Octavia refuses (409) to delete a flavor a load balancer uses."""
        self.request("DELETE", f"/lbaas/flavors/{_id(flavor_id)}", V2)

    # --- load balancers ---------------------------------------------------------------------

    def load_balancers_using(self, flavor_id: str) -> int:
        """How many load balancers use the flavor (deleted ones that Octavia still keeps are
        not counted). Octavia shows an admin every project's and anyone else their own
        project's: count with the credential that writes flavors (an admin's)."""
        params = {"flavor_id": flavor_id, "fields": "id,provisioning_status"}
        found = self._all("/lbaas/loadbalancers", "loadbalancers", params)
        return sum(1 for each in found if each.get("provisioning_status") != GONE)


def _data(flavor_data: Mapping[str, Any]) -> str:
    """Flavor data as Octavia stores it: a JSON object in a string (keys sorted, so the same
    data is the same text)."""
    if not isinstance(flavor_data, Mapping):
        raise TargetError(
            f"flavor data must be a mapping of capability names to values, not"
            f" {type(flavor_data).__name__}: {str(flavor_data)[:100]}"
        )
    try:
        return json.dumps(dict(flavor_data), sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise TargetError(f"flavor data is not JSON: {exc}") from None


def _profile(found: Any) -> dict[str, Any]:
    """A flavor profile with its ``flavor_data`` parsed (kept as text when it is not JSON)."""
    profile = dict(found)
    text = profile.get("flavor_data")
    if isinstance(text, str):
        with suppress(ValueError):
            profile["flavor_data"] = json.loads(text) if text else {}
    return profile


__all__ = ["PAGE", "OctaviaTarget"]
