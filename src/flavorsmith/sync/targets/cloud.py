"""An openstacksdk connection to the cloud a sync writes to. The only module that imports
openstacksdk itself (a quarter of a second at import): it is loaded only when a command
names a cloud or an endpoint, not by every kind's module as ``sdk`` is."""

from __future__ import annotations

from typing import Any

import openstack

from flavorsmith.sync.engine import TargetError


def connect(
    cloud: str | None,
    service: str,
    endpoint: str | None = None,
    *,
    timeout: float | None = None,
    token: str | None = None,
) -> Any:
    """An openstacksdk connection: the clouds.yaml ``cloud``, else ``endpoint`` (of the
    ``service`` type, without auth, or sending ``token`` as keystoneauth's ``admin_token``
    does); ``timeout`` bounds each request (seconds). A configuration it cannot use is a
    TargetError."""
    bound: dict[str, Any] = {} if timeout is None else {"api_timeout": timeout}
    auth: dict[str, Any] = (
        {"auth_type": "none"}
        if token is None
        else {"auth_type": "admin_token", "auth": {"token": token, "endpoint": str(endpoint)}}
    )
    try:
        if cloud:
            return openstack.connect(cloud=cloud, **bound)
        options: dict[str, Any] = {
            **bound,
            **auth,
            "load_yaml_config": False,
            "load_envvars": False,
            f"{service}_endpoint_override": str(endpoint),
        }
        return openstack.connect(**options)
    except Exception as exc:
        raise TargetError(f"cannot configure the target: {exc}") from None
