"""``flavorsmith keystone register``: Flavorsmith's entries in a Keystone service catalog."""

from __future__ import annotations

import socket
from typing import Annotated
from urllib.parse import urlsplit

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.clients.keystone import KeystoneCatalog, wanted
from flavorsmith.config import DEFAULT_PORT
from flavorsmith.errors import TargetError

COMPATIBLE = ("baremetal", "compute", "load-balancer")


def _public_url(value: str | None) -> str | None:
    if value is not None:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise typer.BadParameter(
                f"{value!r} is not an http:// or https:// URL (e.g. https://flavorsmith.example.net)"
            )
    return value


def _also(value: str) -> str:
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in COMPATIBLE]
    if unknown:
        raise typer.BadParameter(
            f"{', '.join(map(repr, unknown))} is not a compatible API; choose from "
            f"{', '.join(COMPATIBLE)}"
        )
    return ",".join(names)


def register(
    cloud: Annotated[
        str,
        typer.Option(
            "--cloud",
            metavar="NAME",
            envvar="OS_CLOUD",
            help="clouds.yaml cloud of a user with Keystone's admin role.",
        ),
    ],
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            metavar="URL",
            callback=_public_url,
            help=f"Where clients reach the service (default http://<this host>:{DEFAULT_PORT}).",
            show_default=False,
        ),
    ] = None,
    also: Annotated[
        str,
        typer.Option(
            "--as",
            metavar="TYPE,...",
            callback=_also,
            help="Also register these compatible APIs under their standard service types "
            "(comma-separated: baremetal, compute, load-balancer), for a cloud where Flavorsmith "
            "is that service. Never by default.",
        ),
    ] = "",
    region: Annotated[
        str | None,
        typer.Option(
            "--region",
            metavar="REGION",
            help="Region of the endpoints (default: the cloud's, else RegionOne).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Create or update Flavorsmith's services and public endpoints in Keystone (idempotent):
    the native API under type 'flavorsmith' always, the compatible APIs only with --as.

    \b
    Example:
      flavorsmith keystone register --cloud admin --as baremetal,compute
    """
    url = public_url or f"http://{socket.getfqdn()}:{DEFAULT_PORT}"
    entries = wanted(url, tuple(n for n in also.split(",") if n))
    try:
        catalog = KeystoneCatalog(cloud)
        try:
            where = region or catalog.default_region or "RegionOne"
            changes = catalog.register(entries, where)
        finally:
            catalog.close()
    except TargetError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    for change in changes:
        typer.echo(change.describe(where))
    if all(change.action == "unchanged" for change in changes):
        typer.echo(f"nothing to change: Keystone of cloud {cloud!r} holds every entry already")


def group() -> typer.Typer:
    app = typer.Typer(
        help="Register Flavorsmith in a Keystone service catalog.", no_args_is_help=True
    )
    app.command("register")(register)
    return app
