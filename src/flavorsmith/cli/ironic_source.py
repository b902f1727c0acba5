"""The real Ironic a command reads nodes from (``--cloud`` / ``--ironic-endpoint``), and the
one-line errors for a source that cannot be used."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TypeVar
from urllib.parse import urlsplit

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.clients import cloud as clouds
from flavorsmith.clients.ironic import IronicNodes
from flavorsmith.errors import TargetError

if TYPE_CHECKING:
    from flavorsmith.clients.ironic import IronicNodes

T = TypeVar("T")


def ironic_nodes(
    cloud: str | None,
    endpoint: str | None,
    *,
    cloud_option: str = "--cloud",
    timeout: float | None = None,
) -> IronicNodes | None:
    """The Ironic named by the options (None: the service's database); ``cloud_option`` is
    how the command spells its cloud option, ``timeout`` bounds each request. Both at once,
    or an endpoint that is not an http(s) URL, is a usage error (exit 2)."""
    if cloud is None and endpoint is None:
        return None
    if cloud is not None and endpoint is not None:
        raise typer.BadParameter(
            f"{cloud_option} and --ironic-endpoint name two Ironics: give one of them",
            param_hint=f"'{cloud_option}' / '--ironic-endpoint'",
        )
    if endpoint is not None:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise typer.BadParameter(
                f"{endpoint!r} is not an http:// or https:// URL (e.g. http://127.0.0.1:6385)",
                param_hint="'--ironic-endpoint'",
            )
    try:
        connection = clouds.connect(cloud, "baremetal", endpoint, timeout=timeout)
    except TargetError as exc:
        reason = str(exc).removeprefix("cannot configure the target: ")
        fail(f"cannot use cloud {cloud!r}: {reason}" if cloud else reason)
    return IronicNodes(connection)


def fail(message: str) -> NoReturn:
    """Say ``message`` on one line and stop with exit 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(ExitCode.FAILURE)


def reading(call: Callable[[], T]) -> T:
    """``call()``, with Ironic's refusals and an unreachable Ironic as one line, exit 1."""
    try:
        return call()
    except TargetError as exc:
        fail(str(exc))
