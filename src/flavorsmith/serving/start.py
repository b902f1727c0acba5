"""Starting ``flavorsmith serve`` once its options are checked: the log format, Keystone,
the database (the embedded SQLite keeps itself current), the application, the listening
socket, the metrics folder and listener, the lines that say what is served, then one serving
process or a supervisor of ``--workers`` processes until SIGTERM or Ctrl-C. A start that
cannot go on raises :class:`StartError` with the exit code the command line ends with."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors import Multiprocess

from flavorsmith import logs, metrics
from flavorsmith.api.auth import AuthConfigError, Authenticator
from flavorsmith.api.keystone import KeystoneAuth, KeystoneUnavailable
from flavorsmith.db import migrate
from flavorsmith.db.engine import Engine, describe, is_sqlite, make_engine
from flavorsmith.serving import server
from flavorsmith.serving.metrics import collectors
from flavorsmith.serving.process import ENV, ServeConfig, build


class StartError(Exception):
    """The start cannot go on: one line for the operator and the exit code (2: a usage or
    configuration error, 1: something outside, such as a port taken)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


@dataclass(frozen=True)
class Listener:
    """How this start listens, beside ``ServeConfig`` (which every worker reads)."""

    workers: int = 1
    tls_cert: Path | None = None
    tls_key: Path | None = None
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"


def start(config: ServeConfig, listener: Listener, say: Callable[[str], None]) -> None:
    """Serve until stopped; ``say`` hears each line of what is served (stderr, from the command
    line). Ends by raising SIGTERM again when it was stopped by one, as the caller expects."""
    logs.configure(config.log_format)
    authenticator = _keystone(config)
    engine = make_engine(config.database_url, config.database_timeouts())
    url = config.database_url
    try:
        if is_sqlite(url):
            migrate.upgrade(engine)  # the embedded default keeps itself current
        elif not migrate.is_current(engine):
            say(
                "warning: the database is not at the latest migration; "
                "run flavorsmith db upgrade (readyz reports 503 until then)"
            )
        # Built here even with workers: a bad token or policy file is one line, before any
        # worker starts (each worker builds its own).
        app = build(config, engine=engine, authenticator=authenticator)
    except AuthConfigError as exc:
        raise StartError(str(exc), 2) from None
    except Exception as exc:  # the database cannot be reached or opened
        raise StartError(f"database {describe(url)}: {type(exc).__name__}: {exc}", 1) from None
    sock = listen(config.host, config.port)
    try:
        # Chosen only now that the start cannot fail on configuration: from here on this
        # process (and any worker) records its metrics in files.
        folder = metrics_folder()
    except StartError:
        sock.close()
        raise
    scheme = "https" if listener.tls_cert is not None else "http"
    metrics_server = None
    if listener.metrics_port is not None:
        tls_cert, tls_key = listener.tls_cert, listener.tls_key
        try:
            metrics_server, _ = metrics.listen(
                listener.metrics_host,
                listener.metrics_port,
                collectors(app.state.services),
                certfile=str(tls_cert) if tls_cert else None,
                keyfile=str(tls_key or tls_cert) if tls_cert else None,
            )
        except OSError as exc:
            sock.close()
            folder.remove()
            where = f"{listener.metrics_host}:{listener.metrics_port}"
            raise StartError(f"cannot listen on {where}: {exc.strerror or exc}", 1) from None
    say(f"database: {describe(url)}")
    say(f"catalog: {config.repo}")
    if metrics_server is not None:
        host = listener.metrics_host
        shown = f"[{host}]" if ":" in host else host
        where = f"{scheme}://{shown}:{metrics_server.server_port}/metrics"
        say(f"metrics on {where} ({folder.describe()})")
    _say_what_is_served(config, listener, say, base_url(config.host, sock, scheme))
    terminated = False
    try:
        terminated = _serve(app, config, listener, sock, engine)
    finally:
        sock.close()
        if metrics_server is not None:
            metrics_server.shutdown()
        folder.remove()
    if terminated:
        signal.raise_signal(signal.SIGTERM)  # ended by SIGTERM, as the caller expects


def _keystone(config: ServeConfig) -> Authenticator | None:
    """Under ``--auth keystone``: the Keystone authenticator, checked against Keystone."""
    if config.keystone_config is None or config.auth != "keystone":
        return None
    # The libraries' start-up notes (a deprecated in-process cache, version discovery
    # retries) are not the operator's concern; a failure is one line below.
    for name in ("keystonemiddleware", "keystoneauth", "flavorsmith.keystone"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        authenticator = KeystoneAuth.load(Path(config.keystone_config))
        authenticator.check()  # Keystone answers, takes the service user, validates
    except AuthConfigError as exc:
        raise StartError(str(exc), 2) from None
    except KeystoneUnavailable as exc:
        raise StartError(str(exc), 1) from None
    for name in ("keystonemiddleware", "flavorsmith.keystone"):
        logging.getLogger(name).setLevel(logging.ERROR)  # bad tokens are 401s, not news
    return authenticator


def _say_what_is_served(
    config: ServeConfig, listener: Listener, say: Callable[[str], None], url: str
) -> None:
    if listener.workers > 1:
        say(f"workers: {listener.workers} processes on this port")
    say(f"serving on {url} (auth: {config.auth})")
    if config.mirrored:
        label = config.ironic_endpoint or f"cloud {config.ironic_cloud}"
        say(
            f"nodes: mirroring the Ironic at {label} every {config.ironic_refresh:g} s "
            "(not ready until the first load; node writes refused)"
        )
    if config.sync:
        say(f"sync: every {config.sync_interval:g} s and on catalog changes")
    if config.sync or config.mirrored:
        say(
            "background loops: run by the one process that leads on this database "
            f"(checked every {config.election_period():g} s)"
        )
    say(
        f"limits: idle {config.idle_timeout} s, request head {config.header_timeout} s, "
        f"request body {config.body_timeout:g} s, {config.max_connections} connections"
    )


def _serve(
    app: FastAPI, config: ServeConfig, listener: Listener, sock: socket.socket, engine: Engine
) -> bool:
    """One serving process, or a supervisor of ``listener.workers``, until stopped; whether
    SIGTERM stopped it."""
    # log_config=None: uvicorn's lines go through the handler logs.configure installed.
    options = {
        "log_level": "warning",
        "access_log": False,
        "log_config": None,
        "ssl_certfile": listener.tls_cert,
        "ssl_keyfile": listener.tls_key,
    }
    # uvicorn stops gracefully on SIGTERM, then raises the signal again for its default
    # effect; caught here, it first lets the start clean up (the metrics folder).
    previous = signal.signal(signal.SIGTERM, _terminated)
    terminated = False
    try:
        if listener.workers == 1:
            server.run(app, config.limits(), sock, **options)
        else:
            engine.dispose()  # the workers open their own connections
            os.environ[ENV] = config.to_json()
            factory = server.ServerConfig(
                "flavorsmith.serving.process:from_environment",
                config.limits(),
                factory=True,
                workers=listener.workers,
                **options,
            )
            supervisor = Multiprocess(factory, sockets=[sock])
            supervisor.run()
            if any(p.exitcode == STARTUP_FAILURE for p in supervisor.processes):
                raise StartError("a worker process could not start (its error is above)", 1)
    except Terminated:
        terminated = True
    finally:
        signal.signal(signal.SIGTERM, previous)
    return terminated


class Terminated(Exception):
    """SIGTERM arrived (after uvicorn's graceful stop)."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated


def listen(host: str, port: int) -> socket.socket:
    """A socket bound and listening on host:port (0: any free port); StartError (exit 1) when
    that is impossible (the port is taken, the address is not this machine's)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise StartError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", 1) from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise StartError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", 1) from None
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
    """Choose and prepare the metrics folder; StartError (exit 2) when the operator's is not
    a folder."""
    given = os.environ.get(metrics.MULTIPROC_ENV)
    if given:
        path = Path(given)
        if not path.is_dir():
            raise StartError(
                f"{metrics.MULTIPROC_ENV}={given} is not a folder; create it, or unset it to "
                "use a temporary one",
                2,
            )
        for pattern in _METRIC_FILES:
            for stale in path.glob(pattern):
                stale.unlink(missing_ok=True)
        folder = MetricsFolder(path, own=False)
    else:
        folder = MetricsFolder(Path(tempfile.mkdtemp(prefix="flavorsmith-metrics-")), own=True)
    metrics.enable_multiprocess(str(folder.path))
    return folder
