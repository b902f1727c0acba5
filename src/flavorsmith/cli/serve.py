"""``flavorsmith serve``: every API on one port, in one process or in ``--workers N``."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

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
        int,
        typer.Option(
            metavar="SECONDS",
            help="Seconds a connection may stay open with no request under way.",
            min=1,
        ),
    ] = DEFAULT_IDLE_TIMEOUT,
    header_timeout: Annotated[
        int,
        typer.Option(
            metavar="SECONDS",
            help="Seconds a request's line and headers may take to arrive once begun.",
            min=1,
        ),
    ] = DEFAULT_HEADER_TIMEOUT,
    body_timeout: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="Seconds a request's body may take to arrive in full after its head (408).",
            min=0.1,
        ),
    ] = DEFAULT_BODY_TIMEOUT,
    db_statement_timeout: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="PostgreSQL: the longest a statement, commit or ping may wait for the "
            "database (the server's statement_timeout; the connection is dropped 2 s later).",
            min=0.1,
        ),
    ] = DEFAULT_DB_STATEMENT_TIMEOUT,
    db_connect_timeout: Annotated[
        int,
        typer.Option(
            metavar="SECONDS", help="PostgreSQL: the longest a connection may take.", min=1
        ),
    ] = DEFAULT_DB_CONNECT_TIMEOUT,
    db_pool_timeout: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="PostgreSQL: the longest a request waits for a free pooled connection.",
            min=0.1,
        ),
    ] = DEFAULT_DB_POOL_TIMEOUT,
    db_busy_timeout: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="SQLite: the longest a write waits for another writer's lock.",
            min=0.1,
        ),
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
    sync_interval: Annotated[
        float,
        typer.Option(metavar="SECONDS", help="Seconds between timer rounds of --sync.", min=1),
    ] = 60.0,
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
            "deploy steps ship (fake-hardware, ipmi, redfish, idrac, ilo, irmc, "
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
        float,
        typer.Option(
            metavar="SECONDS", help="Seconds between refreshes of the Ironic mirror.", min=1
        ),
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
    """Serve the Ironic, Nova, Octavia and Flavorsmith APIs."""
    import logging

    from flavorsmith import logs, metrics, tls
    from flavorsmith.api.auth import AuthConfigError
    from flavorsmith.api.hosts import HostSyntaxError, parse_rule
    from flavorsmith.cli.ironic_source import ironic_nodes
    from flavorsmith.cli.options import database_url, repository
    from flavorsmith.db import migrate
    from flavorsmith.db.engine import describe, is_sqlite, make_engine
    from flavorsmith.providers.registry import parse_enabled
    from flavorsmith.query_values import parse_list
    from flavorsmith.serving import server
    from flavorsmith.serving.metrics import collectors
    from flavorsmith.serving.process import ENV, ServeConfig, build

    if tls_key is not None and tls_cert is None:
        raise typer.BadParameter("--tls-key needs --tls-cert", param_hint="'--tls-key'")
    if tls_cert is not None:
        try:
            tls.check(tls_cert, tls_key)
        except tls.TlsError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None

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
        log_format="json"
        if log_format is not None and log_format.value == "json"
        else ("text" if log_format is not None else None),
    )
    # Every logger, Alembic's and uvicorn's too, through one formatter (Alembic's routine
    # INFO lines, such as the embedded database's self-upgrade, only at DEBUG).
    logs.configure(log_format.value if log_format is not None else None)
    authenticator = None
    if keystone_config is not None and auth == "keystone":
        from flavorsmith.api.keystone import KeystoneAuth, KeystoneUnavailable

        # The libraries' start-up notes (a deprecated in-process cache, version discovery
        # retries) are not the operator's concern; a failure is one line below.
        for name in ("keystonemiddleware", "keystoneauth", "flavorsmith.keystone"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            authenticator = KeystoneAuth.load(keystone_config)
            authenticator.check()  # Keystone answers, takes the service user, validates
        except AuthConfigError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except KeystoneUnavailable as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        for name in ("keystonemiddleware", "flavorsmith.keystone"):
            logging.getLogger(name).setLevel(logging.ERROR)  # bad tokens are 401s, not news
    engine = make_engine(url, config.database_timeouts())
    try:
        if is_sqlite(url):
            migrate.upgrade(engine)  # the embedded default keeps itself current
        elif not migrate.is_current(engine):
            typer.echo(
                "warning: the database is not at the latest migration; "
                "run flavorsmith db upgrade (readyz reports 503 until then)",
                err=True,
            )
        # Built here even with workers: a bad token or policy file is one line, before any
        # worker starts (each worker builds its own).
        app = build(config, engine=engine, authenticator=authenticator)
    except AuthConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except Exception as exc:  # the database cannot be reached or opened
        typer.echo(f"error: database {describe(url)}: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(1) from None
    sock = listen(host, port)
    try:
        # Chosen only now that the start cannot fail on configuration: from here on this
        # process (and any worker) records its metrics in files.
        folder = metrics_folder()
    except typer.Exit:
        sock.close()
        raise
    scheme = "https" if tls_cert is not None else "http"
    metrics_server = None
    if metrics_port is not None:
        try:
            metrics_server, _ = metrics.listen(
                metrics_host,
                metrics_port,
                collectors(app.state.services),
                certfile=str(tls_cert) if tls_cert else None,
                keyfile=str(tls_key or tls_cert) if tls_cert else None,
            )
        except OSError as exc:
            sock.close()
            folder.remove()
            where = f"{metrics_host}:{metrics_port}"
            typer.echo(f"error: cannot listen on {where}: {exc.strerror or exc}", err=True)
            raise typer.Exit(1) from None
    typer.echo(f"database: {describe(url)}", err=True)
    typer.echo(f"catalog: {root}", err=True)
    if metrics_server is not None:
        shown = f"[{metrics_host}]" if ":" in metrics_host else metrics_host
        where = f"{scheme}://{shown}:{metrics_server.server_port}/metrics"
        typer.echo(f"metrics on {where} ({folder.describe()})", err=True)
    if workers > 1:
        typer.echo(f"workers: {workers} processes on this port", err=True)
    typer.echo(f"serving on {base_url(host, sock, scheme)} (auth: {auth})", err=True)
    if config.mirrored:
        label = ironic_endpoint or f"cloud {ironic_cloud}"
        typer.echo(
            f"nodes: mirroring the Ironic at {label} every {ironic_refresh:g} s "
            "(not ready until the first load; node writes refused)",
            err=True,
        )
    if sync:
        typer.echo(f"sync: every {sync_interval:g} s and on catalog changes", err=True)
    if sync or config.mirrored:
        typer.echo(
            "background loops: run by the one process that leads on this database "
            f"(checked every {config.election_period():g} s)",
            err=True,
        )
    typer.echo(
        f"limits: idle {idle_timeout} s, request head {header_timeout} s, "
        f"request body {body_timeout:g} s, {max_connections} connections",
        err=True,
    )
    # log_config=None: uvicorn's lines go through the handler logs.configure installed.
    options = {
        "log_level": "warning",
        "access_log": False,
        "log_config": None,
        "ssl_certfile": tls_cert,
        "ssl_keyfile": tls_key,
    }
    # uvicorn stops gracefully on SIGTERM, then raises the signal again for its default
    # effect; caught here, it first lets this start clean up (the metrics folder).
    previous = signal.signal(signal.SIGTERM, _terminated)
    terminated = False
    try:
        if workers == 1:
            server.run(app, config.limits(), sock, **options)
        else:
            from uvicorn.config import STARTUP_FAILURE
            from uvicorn.supervisors import Multiprocess

            engine.dispose()  # the workers open their own connections
            os.environ[ENV] = config.to_json()
            factory = server.ServerConfig(
                "flavorsmith.serving.process:from_environment",
                config.limits(),
                factory=True,
                workers=workers,
                **options,
            )
            supervisor = Multiprocess(factory, sockets=[sock])
            supervisor.run()
            if any(p.exitcode == STARTUP_FAILURE for p in supervisor.processes):
                typer.echo("error: a worker process could not start (its error is above)", err=True)
                raise typer.Exit(1)
    except Terminated:
        terminated = True
    finally:
        sock.close()
        if metrics_server is not None:
            metrics_server.shutdown()
        folder.remove()
        signal.signal(signal.SIGTERM, previous)
    if terminated:
        signal.raise_signal(signal.SIGTERM)  # ended by SIGTERM, as the caller expects


class Terminated(Exception):
    """SIGTERM arrived (after uvicorn's graceful stop)."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated


def listen(host: str, port: int) -> socket.socket:
    """A socket bound and listening on host:port (0: any free port); one line and exit 1 when
    that is impossible (the port is taken, the address is not this machine's)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        typer.echo(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        typer.echo(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    return sock


def base_url(host: str, sock: socket.socket, scheme: str = "http") -> str:
    """http(s)://host:port/ with the port actually bound."""
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}/"


@dataclass(frozen=True)
class MetricsFolder:
    """Where this start's processes write their metrics (prometheus-client's multiprocess
    mode, so one worker or many are read alike): $PROMETHEUS_MULTIPROC_DIR when the operator
    set it (this start's own: its metric files are emptied at start), else a temporary
    folder made for this start and removed at exit."""

    path: Path
    own: bool  # made here, removed at exit

    def describe(self) -> str:
        return f"multiprocess files in {self.path}"

    def remove(self) -> None:
        if self.own:
            shutil.rmtree(self.path, ignore_errors=True)


# The files prometheus-client writes in multiprocess mode (counter_<pid>.db, gauge_max_...).
_METRIC_FILES = ("counter_*.db", "gauge_*.db", "histogram_*.db", "summary_*.db")


def metrics_folder() -> MetricsFolder:
    """Choose and prepare the metrics folder; one line and exit 2 when the operator's is not
    a folder."""
    from flavorsmith import metrics

    given = os.environ.get(metrics.MULTIPROC_ENV)
    if given:
        path = Path(given)
        if not path.is_dir():
            typer.echo(
                f"error: {metrics.MULTIPROC_ENV}={given} is not a folder; create it, or unset "
                "it to use a temporary one",
                err=True,
            )
            raise typer.Exit(2)
        for pattern in _METRIC_FILES:
            for stale in path.glob(pattern):
                stale.unlink(missing_ok=True)
        folder = MetricsFolder(path, own=False)
    else:
        folder = MetricsFolder(Path(tempfile.mkdtemp(prefix="flavorsmith-metrics-")), own=True)
    metrics.enable_multiprocess(str(folder.path))
    return folder
