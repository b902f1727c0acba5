"""``flavorsmith serve``: every API in one process on one port."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.cli.options import DatabaseOption, RepoOption
from flavorsmith.config import (
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
    host: Annotated[str, typer.Option(help="Address to bind; loopback by default.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=0, max=65535)] = DEFAULT_PORT,
    database: DatabaseOption = None,
    auth: Annotated[
        str,
        typer.Option(
            help="noauth (every caller is admin), token-file or keystone (tokens validated by "
            "keystonemiddleware; see --keystone-config)."
        ),
    ] = "noauth",
    token_file: Annotated[
        Path | None,
        typer.Option(help="YAML: token -> user, project, roles.", exists=True, dir_okay=False),
    ] = None,
    keystone_config: Annotated[
        Path | None,
        typer.Option(
            help="With --auth keystone: an ini file with keystonemiddleware's "
            "[keystone_authtoken] section (www_authenticate_uri, auth_url, auth_type, service "
            "user and project)."
        ),
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
    idle_timeout: Annotated[
        int,
        typer.Option(help="Seconds a connection may stay open with no request under way.", min=1),
    ] = DEFAULT_IDLE_TIMEOUT,
    header_timeout: Annotated[
        int,
        typer.Option(
            help="Seconds a request's line and headers may take to arrive once begun.", min=1
        ),
    ] = DEFAULT_HEADER_TIMEOUT,
    max_connections: Annotated[
        int,
        typer.Option(
            help="Connections served at once; a request on one more is answered 503.", min=1
        ),
    ] = DEFAULT_MAX_CONNECTIONS,
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
) -> None:
    """Serve the Ironic, Nova, Octavia and Flavorsmith APIs."""
    import logging
    import threading

    from flavorsmith.api import server
    from flavorsmith.api.app import create_app
    from flavorsmith.api.auth import AuthConfigError
    from flavorsmith.cli.options import database_url, repository
    from flavorsmith.config import Settings
    from flavorsmith.db import migrate
    from flavorsmith.db.engine import describe, is_sqlite, make_engine
    from flavorsmith.extra_specs.validation import refusal

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
        auth="token-file"
        if auth == "token-file"
        else "keystone"
        if auth == "keystone"
        else "noauth",
        token_file=token_file,
        keystone_config=keystone_config,
        policy_file=policy_file,
        repo=root,
        max_body_bytes=max_body_bytes,
        providers=providers,
    )
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    # The embedded database's self-upgrade is routine; its step-by-step lines are noise here.
    logging.getLogger("alembic").setLevel(logging.WARNING)
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
        app = create_app(settings, engine=engine, authenticator=authenticator)
    except AuthConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except Exception as exc:  # the database cannot be reached or opened
        typer.echo(f"error: database {describe(url)}: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(1) from None
    sock = listen(host, port)
    typer.echo(f"database: {describe(url)}", err=True)
    typer.echo(f"catalog: {settings.repo}", err=True)
    typer.echo(f"serving on {base_url(host, sock)} (auth: {auth})", err=True)
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
                    # Under Keystone a private flavor's projects must be Keystone's, as in Nova.
                    project_check=None if authenticator is None else authenticator.catalog_project,
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
    limits = server.Limits(
        idle_timeout=idle_timeout, header_timeout=header_timeout, max_connections=max_connections
    )
    typer.echo(
        f"limits: idle {idle_timeout} s, request head {header_timeout} s, "
        f"{max_connections} connections",
        err=True,
    )
    try:
        server.run(app, limits, sock, log_level="warning", access_log=False)
    finally:
        stop.set()
        sock.close()
        for thread in (watcher, refresher):
            if thread is not None:
                thread.join(timeout=10)


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


def base_url(host: str, sock: socket.socket) -> str:
    """http://host:port/ with the port actually bound."""
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"
