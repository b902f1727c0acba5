"""An openstacksdk connection to the cloud a sync writes to. The only module that imports
openstacksdk itself (a quarter of a second at import): it is loaded only when a command
names a cloud or an endpoint, not by every kind's module as ``sdk`` is."""

from __future__ import annotations

from typing import Any

import openstack

from flavorsmith.errors import TargetError


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
        reason = _unknown_cloud(cloud) if cloud and "was not found" in str(exc) else str(exc)
        raise TargetError(f"cannot configure the target: {reason}") from None


def _unknown_cloud(cloud: str) -> str:
    """``cloud`` is in no clouds.yaml: say which clouds are, and where they were read."""
    try:
        found = openstack.config.OpenStackConfig()
        names = sorted(set(found.get_cloud_names()) - {"defaults", "envvars"})
        where = found.config_filename
    except Exception:
        return f"no cloud named {cloud!r} in clouds.yaml"
    if not where:
        return (
            f"no cloud named {cloud!r}: no clouds.yaml found (set OS_CLIENT_CONFIG_FILE, or "
            "write ~/.config/openstack/clouds.yaml)"
        )
    known = ", ".join(names) if names else "none"
    return f"no cloud named {cloud!r} in {where} (its clouds: {known})"


def cloud_names() -> list[str]:
    """The clouds of the clouds.yaml openstacksdk reads (its own file lookup), sorted; none
    when there is no such file or it cannot be read."""
    try:
        found = openstack.config.OpenStackConfig()
        return sorted(set(found.get_cloud_names()) - {"defaults", "envvars"})
    except Exception:
        return []
