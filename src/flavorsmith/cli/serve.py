"""``flavorsmith serve``: every API in one process on one port."""

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
from flavorsmith.config import DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, DEFAULT_PROVIDERS


def serve(
    host: Annotated[str, typer.Option(help="Address to bind; loopback by default.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=0, max=65535)] = DEFAULT_PORT,
    database: DatabaseOption = None,
    auth: Annotated[
        str, typer.Option(help="noauth (every caller is admin) or token-file.")
    ] = "noauth",
    token_file: Annotated[
        Path | None,
        typer.Option(help="YAML: token -> user, project, roles.", exists=True, dir_okay=False),
    ] = None,
    policy_file: Annotated[
        Path | None,
        typer.Option(
            help="oslo.policy YAML overriding default rules.", exists=True, dir_okay=False
        ),
    ] = None,
    repo: RepoOption = None,
    max_body_bytes: Annotated[
        int, typer.Option(help="Largest request body accepted.", min=1)
    ] = DEFAULT_MAX_BODY_BYTES,
    sync: Annotated[
        bool,
        typer.Option(
            "--sync",
            help="Keep the service's flavors and deploy templates (every sync kind) equal to "
            "the catalog.",
        ),
    ] = False,
    sync_interval: Annotated[
        float, typer.Option(help="Seconds between timer rounds of --sync.", min=1)
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
            help="Enabled flavor providers, name:description,... (drivers from the "
            "flavorsmith.provider_drivers entry points).",
            envvar="FLAVORSMITH_PROVIDERS",
        ),
    ] = DEFAULT_PROVIDERS,
    ironic_cloud: Annotated[
        str | None,
        typer.Option(
            help="Mirror the nodes of this clouds.yaml cloud's Ironic: a first full load, then "
            "a refresh every --ironic-refresh seconds; node writes are refused."
        ),
    ] = None,
    ironic_endpoint: Annotated[
        str | None,
        typer.Option(
            help="Mirror the nodes of the Ironic at this URL (no auth), as --ironic-cloud does."
        ),
    ] = None,
    ironic_refresh: Annotated[
        float, typer.Option(help="Seconds between refreshes of the Ironic mirror.", min=1)
    ] = 60.0,
    ironic_max_delete: Annotated[
        float,
        typer.Option(
            help="Percent of the mirrored nodes one refresh may delete; a refresh that would "
            "delete more changes nothing and is reported.",
            min=0,
            max=100,
        ),
    ] = 10.0,
    log_format: LogFormatOption = None,
    tls_cert: Annotated[
        Path | None,
        typer.Option(
            help="PEM certificate (chain) to serve HTTPS with (the metrics port too).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    tls_key: Annotated[
        Path | None,
        typer.Option(
            help="PEM private key of --tls-cert, unencrypted (default: in the --tls-cert file).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            help="Serve Prometheus metrics at /metrics on this port (0: any free port), "
            "separate from the APIs; off by default.",
            min=0,
            max=65535,
        ),
    ] = None,
    metrics_host: Annotated[
        str, typer.Option(help="Address the metrics port binds; loopback by default.")
    ] = "127.0.0.1",
) -> None:
    """Serve the Ironic, Nova, Octavia and Flavorsmith APIs."""
    import threading

    import uvicorn

    from flavorsmith import logs, metrics, tls
    from flavorsmith.api.app import create_app
    from flavorsmith.api.auth import AuthConfigError
    from flavorsmith.api.metrics import collectors
    from flavorsmith.cli.options import database_url, repository
    from flavorsmith.config import Settings
    from flavorsmith.db import migrate
    from flavorsmith.db.engine import describe, is_sqlite, make_engine
    from flavorsmith.extra_specs.validation import refusal

    if tls_key is not None and tls_cert is None:
        raise typer.BadParameter("--tls-key needs --tls-cert", param_hint="'--tls-key'")
    if tls_cert is not None:
        try:
            tls.check(tls_cert, tls_key)
        except tls.TlsError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None

    if auth not in ("noauth", "token-file"):
        raise typer.BadParameter("choose noauth or token-file", param_hint="'--auth'")
    if auth == "token-file" and token_file is None:
        raise typer.BadParameter(
            "--auth token-file needs --token-file", param_hint="'--token-file'"
        )
    from flavorsmith.providers.registry import parse_enabled

    try:
        parse_enabled(providers)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--providers'") from None
    from flavorsmith.cli.ironic_source import ironic_nodes

    # Each request of a refresh is bounded: a hung Ironic is reported, never waited on forever.
    source = ironic_nodes(
        ironic_cloud,
        ironic_endpoint,
        cloud_option="--ironic-cloud",
        timeout=max(30.0, ironic_refresh),
    )
    url = database_url(database)
    # A path that is not a catalog is a usage error before anything is served: served, it
    # would look like an empty catalog, and a sync with prune would delete every flavor.
    root = repository(repo).root.resolve()
    settings = Settings(
        database_url=url,
        host=host,
        port=port,
        auth="token-file" if auth == "token-file" else "noauth",
        token_file=token_file,
        policy_file=policy_file,
        repo=root,
        max_body_bytes=max_body_bytes,
        providers=providers,
    )
    # Every logger, Alembic's and uvicorn's too, through one formatter (Alembic's routine
    # INFO lines, such as the embedded database's self-upgrade, only at DEBUG).
    logs.configure(log_format.value if log_format is not None else None)
    engine = make_engine(url)
    try:
        if is_sqlite(url):
            migrate.upgrade(engine)  # the embedded default keeps itself current
        elif not migrate.is_current(engine):
            typer.echo(
                "warning: the database is not at the latest migration; "
                "run flavorsmith db upgrade (readyz reports 503 until then)",
                err=True,
            )
        app = create_app(settings, engine=engine)
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
    typer.echo(f"catalog: {settings.repo}", err=True)
    if metrics_server is not None:
        shown = f"[{metrics_host}]" if ":" in metrics_host else metrics_host
        where = f"{scheme}://{shown}:{metrics_server.server_port}/metrics"
        typer.echo(f"metrics on {where} ({folder.describe()})", err=True)
    typer.echo(f"serving on {base_url(host, sock, scheme)} (auth: {auth})", err=True)
    stop = threading.Event()
    watcher = None
    refresher = None
    if source is not None:
        from flavorsmith.sync.mirror import Mirror

        label = ironic_endpoint or f"cloud {ironic_cloud}"
        mirror = Mirror(
            source,
            engine,
            label=label,
            interval=ironic_refresh,
            max_delete=ironic_max_delete / 100,
            advice=" (--ironic-max-delete 100 lets such a refresh through)",
        )
        app.state.services.mirror = mirror
        refresher = threading.Thread(
            target=mirror.run, args=(stop,), name="flavorsmith-mirror", daemon=True
        )
        refresher.start()
        typer.echo(
            f"nodes: mirroring the Ironic at {label} every {ironic_refresh:g} s "
            "(not ready until the first load; node writes refused)",
            err=True,
        )
    if sync:
        from flavorsmith.catalog.repo import Repository
        from flavorsmith.sync.targets import store
        from flavorsmith.sync.watch import watch

        watcher = threading.Thread(
            target=watch,
            args=(
                Repository(root, app.state.services.catalog.rules),
                lambda kind: store.target(
                    kind,
                    engine,
                    spec_check=refusal(app.state.services.catalog.registry(), "permissive"),
                ),
                engine,
            ),
            kwargs={
                "prune": sync_prune,
                "allow_empty": sync_allow_empty,
                "interval": sync_interval,
                "stop": stop,
            },
            name="flavorsmith-sync",
            daemon=True,
        )
        watcher.start()
        typer.echo(f"sync: every {sync_interval:g} s and on catalog changes", err=True)
    # log_config=None: uvicorn's lines go through the handler logs.configure installed.
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        log_config=None,
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
    )
    # uvicorn stops gracefully on SIGTERM, then raises the signal again for its default
    # effect; caught here, it first lets this start clean up (the watcher, the metrics folder).
    previous = signal.signal(signal.SIGTERM, _terminated)
    terminated = False
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except Terminated:
        terminated = True
    finally:
        stop.set()
        sock.close()
        for thread in (watcher, refresher):
            if thread is not None:
                thread.join(timeout=10)
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
