"""Any OpenStack cloud as a sync target, through an openstacksdk connection (made by
``cloud.connect``). This module holds only what every such target shares — the service
proxy, and one request path that turns openstacksdk's and keystoneauth's failures into
TargetErrors — and is the only module that imports keystoneauth. Each kind's module holds
its own target, built on :class:`SdkTarget` (it talks to the duck-typed proxy), and names it
in its ``Kind``."""

from __future__ import annotations

from typing import Any

import keystoneauth1.exceptions as ksa

from flavorsmith.errors import TargetError

UNREACHABLE = (ksa.ConnectionError, ksa.ConnectTimeout, ksa.RetriableConnectionFailure)


def sdk_proxy(connection: Any, service: str, label: str) -> Any:
    """``connection.<service>``, with endpoint discovery failures as a TargetError."""
    try:
        return getattr(connection, service)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise TargetError(f"cannot reach {label}: {first}", transient=True) from None


class SdkTarget:
    """One service of an openstacksdk connection (``service``, named ``label`` in messages).
    Every call goes through :meth:`request`, which counts it; a connection failure, a 409 or
    a 5xx is a transient TargetError, any other refusal a permanent one."""

    service = ""  # the openstacksdk proxy: "compute", "baremetal"
    label = ""  # the service in messages: "Nova", "Ironic"

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.calls = 0
        self._proxy: Any = None

    @property
    def proxy(self) -> Any:
        """The service's proxy, made on first use: openstacksdk discovers the endpoint then."""
        if self._proxy is None:
            self._proxy = sdk_proxy(self.connection, self.service, self.label)
        return self._proxy

    def max_microversion(self) -> tuple[int, int] | None:
        """The highest microversion the endpoint offers (None when it does not say)."""
        try:
            data = self.proxy.get_endpoint_data()
        except ksa.ClientException as exc:
            raise TargetError(f"cannot reach {self.label}: {exc}", transient=True) from None
        found = data.max_microversion if data is not None else None
        return (int(found[0]), int(found[1])) if found else None

    def microversion(self, wanted: tuple[int, int]) -> str | None:
        """The microversion to send for a call that wants ``wanted`` (None: send none, for a
        service without microversions)."""
        return f"{wanted[0]}.{wanted[1]}"

    def fault(self, response: Any) -> str:
        """The reason in a refusal's body."""
        return str(response.text[:200]) or str(response.reason)

    def request(
        self,
        method: str,
        path: str,
        version: tuple[int, int],
        body: Any = None,
        params: Any = None,
    ) -> Any:
        """One call; its JSON body (None when empty). A failure is a TargetError, in the words
        ``explain`` gives it."""
        try:
            return self._call(method, path, version, body, params)
        except TargetError as exc:
            raise self.explain(exc, method, path, version) from None

    def explain(
        self, exc: TargetError, method: str, path: str, version: tuple[int, int]
    ) -> TargetError:
        """A failed call's error as this service's callers should read it (as it is, here)."""
        return exc

    def _call(
        self, method: str, path: str, version: tuple[int, int], body: Any, params: Any
    ) -> Any:
        self.calls += 1
        try:
            response = self.proxy.request(
                path,
                method,
                json=body,
                params=params,
                microversion=self.microversion(version),
                raise_exc=False,
            )
        except UNREACHABLE as exc:
            raise TargetError(f"cannot reach {self.label}: {exc}", transient=True) from None
        except ksa.ClientException as exc:
            raise TargetError(f"cannot reach {self.label}: {exc}") from None
        if response.status_code >= 400:
            status = response.status_code
            raise TargetError(
                f"{method} {path}: {status} {self.fault(response)}",
                status=status,
                transient=status >= 500 or status == 409,
            )
        return response.json() if response.content else None
