"""``flavorsmith serve``: every API on one port, in one process or in ``--workers N``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import DatabaseOption, LogFormatOption, RepoOption
from flavorsmith.config import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_DB_BUSY_TIMEOUT,
    DEFAULT_DB_CONNECT_TIMEOUT,
    DEFAULT_DB_POOL_TIMEOUT,
    DEFAULT_DB_STATEMENT_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_PORT,
    DEFAULT_PROVIDERS,
    AuthMode,
)

AUTH_MODES: dict[str, AuthMode] = {m: m for m in ("noauth", "token-file", "keystone")}


def _seconds(help_text: str, least: float) -> Any:
    """An option taking a number of seconds, at least ``least``."""
    return typer.Option(metavar="SECONDS", help=help_text, min=least)


def serve(
    host: Annotated[
        str, typer.Option(metavar="ADDRESS", help="Address to bind; loopback by default.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(metavar="PORT", help="Port to listen on.", min=0, max=65535)
    ] = DEFAULT_PORT,
    database: DatabaseOption = None,
    auth: Annotated[
        str,
        typer.Option(
            metavar="MODE",
            help="noauth (every caller is admin), token-file or keystone (tokens validated by "
            "keystonemiddleware; see --keystone-config).",
        ),
    ] = "noauth",
    token_file: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="YAML: token -> user, project, roles.", exists=True, dir_okay=False
        ),
    ] = None,
    keystone_config: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="With --auth keystone: an ini file with keystonemiddleware's "
            "[keystone_authtoken] section (www_authenticate_uri, auth_url, auth_type, service "
            "user and project).",
        ),
    ] = None,
    policy_file: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="oslo.policy YAML overriding default rules.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    repo: RepoOption = None,
    max_body_bytes: Annotated[
        int, typer.Option(metavar="BYTES", help="Largest request body accepted.", min=1)
    ] = DEFAULT_MAX_BODY_BYTES,
    idle_timeout: Annotated[
        int, _seconds("Seconds a connection may stay open with no request under way.", 1)
    ] = DEFAULT_IDLE_TIMEOUT,
    header_timeout: Annotated[
        int, _seconds("Seconds a request's line and headers may take to arrive once begun.", 1)
    ] = DEFAULT_HEADER_TIMEOUT,
    body_timeout: Annotated[
        float,
        _seconds("Seconds a request's body may take to arrive in full after its head (408).", 0.1),
    ] = DEFAULT_BODY_TIMEOUT,
    db_statement_timeout: Annotated[
        float,
        _seconds(
            "PostgreSQL: the longest a statement, commit or ping may wait for the "
            "database (the server's statement_timeout; the connection is dropped 2 s later).",
            0.1,
        ),
    ] = DEFAULT_DB_STATEMENT_TIMEOUT,
    db_connect_timeout: Annotated[
        int, _seconds("PostgreSQL: the longest a connection may take.", 1)
    ] = DEFAULT_DB_CONNECT_TIMEOUT,
    db_pool_timeout: Annotated[
        float,
        _seconds("PostgreSQL: the longest a request waits for a free pooled connection.", 0.1),
    ] = DEFAULT_DB_POOL_TIMEOUT,
    db_busy_timeout: Annotated[
        float, _seconds("SQLite: the longest a write waits for another writer's lock.", 0.1)
    ] = DEFAULT_DB_BUSY_TIMEOUT,
    max_connections: Annotated[
        int,
        typer.Option(
            metavar="N",
            help="Connections served at once; a request on one more is answered 503.",
            min=1,
        ),
    ] = DEFAULT_MAX_CONNECTIONS,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME[:PORT]",
            help="A Host name the service answers to besides localhost, 127.0.0.1, [::1] and "
            "the bound address (repeatable; no port: any); '*' turns the check off behind a "
            "proxy that checks Host. Other hosts are refused with 400 (DNS rebinding).",
        ),
    ] = None,
    sync: Annotated[
        bool,
        typer.Option(
            "--sync",
            help="Keep the service's flavors and deploy templates (every sync kind) equal to "
            "the catalog.",
        ),
    ] = False,
    sync_interval: Annotated[float, _seconds("Seconds between timer rounds of --sync.", 1)] = 60.0,
    sync_prune: Annotated[
        bool, typer.Option(help="With --sync, delete managed objects gone from the catalog.")
    ] = False,
    sync_allow_empty: Annotated[
        bool,
        typer.Option(
            help="With --sync-prune, let a round delete every managed object of a kind (refused "
            "otherwise)."
        ),
    ] = False,
    providers: Annotated[
        str,
        typer.Option(
            metavar="NAME:DESCRIPTION,...",
            help="Enabled flavor providers, name:description,... (drivers from the "
            "flavorsmith.provider_drivers entry points).",
            envvar="FLAVORSMITH_PROVIDERS",
        ),
    ] = DEFAULT_PROVIDERS,
    enabled_drivers: Annotated[
        str | None,
        typer.Option(
            metavar="DRIVER,...",
            help="Drivers (hardware types) a node created through the Ironic API may use, "
            "comma-separated; others are refused as Ironic refuses them. Default: those whose "
            "deploy steps ship (Ironic 39's: fake-hardware, redfish, idrac, ipmi, intel-ipmi, "
            "manual-management). node import and the Ironic mirror take any driver.",
            envvar="FLAVORSMITH_ENABLED_DRIVERS",
        ),
    ] = None,
    ironic_cloud: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Mirror the nodes of this clouds.yaml cloud's Ironic: a first full load, then "
            "a refresh every --ironic-refresh seconds; node writes are refused.",
        ),
    ] = None,
    ironic_endpoint: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Mirror the nodes of the Ironic at this URL (no auth), as --ironic-cloud does.",
        ),
    ] = None,
    ironic_refresh: Annotated[
        float, _seconds("Seconds between refreshes of the Ironic mirror.", 1)
    ] = 60.0,
    ironic_max_delete: Annotated[
        float,
        typer.Option(
            metavar="PERCENT",
            help="Percent of the mirrored nodes one refresh may delete; a refresh that would "
            "delete more changes nothing and is reported.",
            min=0,
            max=100,
        ),
    ] = 10.0,
    trend_interval: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="Seconds between capacity samples (each flavor's and resource class's "
            "nodes: in all, sellable, used), which the dashboard draws as trends; 0: none.",
            min=0,
        ),
    ] = 300.0,
    trend_retention: Annotated[
        float,
        typer.Option(
            metavar="DAYS",
            help="Days capacity samples are kept; older ones are deleted at each sample.",
            min=1,
        ),
    ] = 30.0,
    workers: Annotated[
        int,
        typer.Option(
            metavar="N",
            help="Worker processes serving the port (each builds the same app; background "
            "loops run in the one that leads).",
            min=1,
        ),
    ] = 1,
    log_format: LogFormatOption = None,
    tls_cert: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="PEM certificate (chain) to serve HTTPS with (the metrics port too).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    tls_key: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="PEM private key of --tls-cert, unencrypted (default: in the --tls-cert file).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            metavar="PORT",
            help="Serve Prometheus metrics at /metrics on this port (0: any free port), "
            "separate from the APIs; off by default.",
            min=0,
            max=65535,
        ),
    ] = None,
    metrics_host: Annotated[
        str,
        typer.Option(
            metavar="ADDRESS", help="Address the metrics port binds; loopback by default."
        ),
    ] = "127.0.0.1",
) -> None:
    """Serve the Ironic, Nova, Octavia and Flavorsmith APIs.

    \b
    Example:
      flavorsmith serve --port 8780 --database sqlite:///flavorsmith.db
    """
    from flavorsmith import tls
    from flavorsmith.api.hosts import HostSyntaxError, parse_rule
    from flavorsmith.cli.ironic_source import ironic_nodes
    from flavorsmith.cli.options import database_url, repository
    from flavorsmith.providers.registry import parse_enabled
    from flavorsmith.query_values import parse_list
    from flavorsmith.serving.process import ServeConfig
    from flavorsmith.serving.start import Listener, StartError, start

    if tls_key is not None and tls_cert is None:
        raise typer.BadParameter("--tls-key needs --tls-cert", param_hint="'--tls-key'")
    if tls_cert is not None:
        try:
            tls.check(tls_cert, tls_key)
        except tls.TlsError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(ExitCode.USAGE) from None

    if auth not in AUTH_MODES:
        raise typer.BadParameter("choose noauth, token-file or keystone", param_hint="'--auth'")
    if auth == "token-file" and token_file is None:
        raise typer.BadParameter(
            "--auth token-file needs --token-file", param_hint="'--token-file'"
        )
    if auth == "keystone" and keystone_config is None:
        raise typer.BadParameter(
            "--auth keystone needs --keystone-config", param_hint="'--keystone-config'"
        )
    # A token file or Keystone configuration given without its mode would be ignored, and the
    # service would start with a mode the operator did not mean (noauth: every caller admin).
    for given, mode, name in (
        (token_file, "token-file", "--token-file"),
        (keystone_config, "keystone", "--keystone-config"),
    ):
        if given is not None and auth != mode:
            raise typer.BadParameter(
                f"{name} is read only with --auth {mode}, and --auth is {auth}: "
                f"add --auth {mode}, or leave {name} out",
                param_hint=f"'{name}'",
            )
    try:
        parse_enabled(providers)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--providers'") from None
    if enabled_drivers is not None and not parse_list(enabled_drivers):
        raise typer.BadParameter(
            "name at least one driver, e.g. ipmi,redfish", param_hint="'--enabled-drivers'"
        )
    # The Ironic options are checked here, once, with their one-line errors (each process
    # connects again when it builds the app).
    ironic_nodes(ironic_cloud, ironic_endpoint, cloud_option="--ironic-cloud")
    for value in allowed_host or []:
        if value.strip() != "*":
            try:
                parse_rule(value)
            except HostSyntaxError as exc:
                raise typer.BadParameter(str(exc), param_hint="'--allowed-host'") from None
    if 0 < trend_interval < 1:
        raise typer.BadParameter(
            "sample at most once a second (0: no samples)", param_hint="'--trend-interval'"
        )
    url = database_url(database)
    # A path that is not a catalog is a usage error before anything is served: served, it
    # would look like an empty catalog, and a sync with prune would delete every flavor.
    root = repository(repo).root.resolve()
    config = ServeConfig(
        database_url=url,
        repo=str(root),
        host=host,
        port=port,
        auth=AUTH_MODES[auth],
        token_file=str(token_file) if token_file else None,
        keystone_config=str(keystone_config) if keystone_config else None,
        policy_file=str(policy_file) if policy_file else None,
        idle_timeout=idle_timeout,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        db_statement_timeout=db_statement_timeout,
        db_connect_timeout=db_connect_timeout,
        db_pool_timeout=db_pool_timeout,
        db_busy_timeout=db_busy_timeout,
        max_connections=max_connections,
        allowed_hosts=tuple(allowed_host or ()),
        max_body_bytes=max_body_bytes,
        providers=providers,
        enabled_drivers=enabled_drivers,
        sync=sync,
        sync_interval=sync_interval,
        sync_prune=sync_prune,
        sync_allow_empty=sync_allow_empty,
        ironic_cloud=ironic_cloud,
        ironic_endpoint=ironic_endpoint,
        ironic_refresh=ironic_refresh,
        ironic_max_delete=ironic_max_delete,
        trend_interval=trend_interval,
        trend_retention=trend_retention,
        log_format="json"
        if log_format is not None and log_format.value == "json"
        else ("text" if log_format is not None else None),
    )
    listener = Listener(
        workers=workers,
        tls_cert=tls_cert,
        tls_key=tls_key,
        metrics_port=metrics_port,
        metrics_host=metrics_host,
    )
    try:
        start(config, listener, lambda line: typer.echo(line, err=True))
    except StartError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(exc.exit_code) from None
