"""The application ``flavorsmith serve`` runs, built the same way in every process: in the
serving process itself, or in each of ``--workers N`` worker processes, which uvicorn starts
fresh and which build it from ``$FLAVORSMITH_SERVE_CONFIG`` (the options ``serve`` checked,
as JSON) through the import string ``flavorsmith.serving.process:from_environment``.

Every process that has background loops (``--sync``, ``--ironic-*``, the capacity samples
of ``--trend-interval``) takes part in the leader
election of ``sync.leader``: all of them serve, one of them runs the loops."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass, fields
from datetime import timedelta
from pathlib import Path
from typing import Literal

from fastapi import FastAPI

from flavorsmith import logs
from flavorsmith.api.app import create_app
from flavorsmith.api.auth import Authenticator
from flavorsmith.api.keystone import KeystoneAuth
from flavorsmith.api.services import Warming
from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository
from flavorsmith.clients import cloud
from flavorsmith.clients.ironic import IronicNodes
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
    DEFAULT_PROVIDERS,
    Settings,
)
from flavorsmith.db.deadline import Timeouts
from flavorsmith.db.engine import Engine, make_engine, writer
from flavorsmith.diagnostics import has_errors
from flavorsmith.extra_specs.validation import refusal
from flavorsmith.nodes import service as nodes
from flavorsmith.nodes.samples import Sampler
from flavorsmith.progress import is_terminal, progress
from flavorsmith.query_values import parse_list
from flavorsmith.serving import warm
from flavorsmith.serving.leader import Leadership, this_process
from flavorsmith.serving.server import Limits
from flavorsmith.sync import store_target as store
from flavorsmith.sync.mirror import Mirror
from flavorsmith.sync.watch import watch

ENV = "FLAVORSMITH_SERVE_CONFIG"

# The longest a leader waits between checks that it still leads (and a follower between
# tries): with long loop intervals, a killed leader is still replaced within this.
MAX_ELECTION_PERIOD = 10.0


@dataclass(frozen=True)
class ServeConfig:
    """``serve``'s options after checking, as every worker process needs them."""

    database_url: str
    repo: str | None = None
    host: str = "127.0.0.1"
    port: int = 0
    auth: Literal["noauth", "token-file", "keystone"] = "noauth"
    token_file: str | None = None
    keystone_config: str | None = None
    policy_file: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    idle_timeout: int = DEFAULT_IDLE_TIMEOUT
    header_timeout: int = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    db_statement_timeout: float = DEFAULT_DB_STATEMENT_TIMEOUT
    db_connect_timeout: int = DEFAULT_DB_CONNECT_TIMEOUT
    db_pool_timeout: float = DEFAULT_DB_POOL_TIMEOUT
    db_busy_timeout: float = DEFAULT_DB_BUSY_TIMEOUT
    allowed_hosts: tuple[str, ...] = ()  # --allowed-host: besides the defaults (api/hosts.py)
    providers: str = DEFAULT_PROVIDERS
    enabled_drivers: str | None = None  # comma-separated; None: ironic.nodes.DRIVERS
    sync: bool = False
    sync_interval: float = 60.0
    sync_prune: bool = False
    sync_allow_empty: bool = False
    ironic_cloud: str | None = None
    ironic_endpoint: str | None = None
    ironic_refresh: float = 60.0
    ironic_max_delete: float = 10.0
    trend_interval: float = 300.0  # 0: no capacity samples
    trend_retention: float = 30.0  # days
    log_format: logs.LogFormat | None = None  # None: text on a terminal, else json

    def settings(self) -> Settings:
        return Settings(
            database_url=self.database_url,
            host=self.host,
            port=self.port,
            auth=self.auth,
            token_file=Path(self.token_file) if self.token_file else None,
            keystone_config=Path(self.keystone_config) if self.keystone_config else None,
            policy_file=Path(self.policy_file) if self.policy_file else None,
            repo=Path(self.repo) if self.repo else None,
            max_body_bytes=self.max_body_bytes,
            providers=self.providers,
            enabled_drivers=parse_list(self.enabled_drivers) if self.enabled_drivers else None,
            allowed_hosts=tuple(self.allowed_hosts),
        )

    def database_timeouts(self) -> Timeouts:
        return Timeouts(
            statement=self.db_statement_timeout,
            connect=self.db_connect_timeout,
            pool=self.db_pool_timeout,
            busy=self.db_busy_timeout,
        )

    def limits(self) -> Limits:
        return Limits(
            idle_timeout=self.idle_timeout,
            header_timeout=self.header_timeout,
            body_timeout=self.body_timeout,
            max_connections=self.max_connections,
        )

    @property
    def mirrored(self) -> bool:
        return self.ironic_cloud is not None or self.ironic_endpoint is not None

    def election_period(self) -> float:
        """How often a follower tries to lead (and the leader checks it still does): the
        shortest loop interval, at most MAX_ELECTION_PERIOD."""
        intervals = [MAX_ELECTION_PERIOD]
        if self.sync:
            intervals.append(self.sync_interval)
        if self.mirrored:
            intervals.append(self.ironic_refresh)
        return min(intervals)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeConfig:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


# Allocations between two collections of the youngest generation, in a serving process.
YOUNG_COLLECTION = 7000


def configure_logging(fmt: logs.LogFormat | None) -> None:
    """One line per event on stderr, in every process (a worker starts with none), through
    the one formatter ``serve`` uses (Alembic's routine lines only at DEBUG)."""
    logs.configure(fmt)


def from_environment() -> FastAPI:
    """The app of a worker process: ``serve`` put its checked options in ``$ENV``."""
    config = ServeConfig.from_json(os.environ[ENV])
    configure_logging(config.log_format)
    return build(config)


def build(
    config: ServeConfig,
    *,
    engine: Engine | None = None,
    authenticator: Authenticator | None = None,
) -> FastAPI:
    """The application with its background loops, started with the app and stopped with it.
    ``authenticator``: one ``serve`` already checked; a worker makes its own (Keystone's from
    the same configuration file)."""
    engine = engine or make_engine(config.database_url, config.database_timeouts())
    if authenticator is None and config.auth == "keystone" and config.keystone_config:
        authenticator = KeystoneAuth.load(Path(config.keystone_config))
        for name in ("keystonemiddleware", "flavorsmith.keystone"):
            logging.getLogger(name).setLevel(logging.ERROR)  # bad tokens are 401s, not news
    holder = this_process()
    starters: list[Callable[[threading.Event], object]] = []

    @asynccontextmanager
    async def lifespan(started: FastAPI) -> AsyncIterator[None]:
        # What start-up made lives as long as the process: kept out of the collector's full
        # passes, which otherwise walk every one of those objects again and again (a pause of
        # a fifth of a second, some of them in the middle of a list of 10,000 nodes).
        gc.collect()
        gc.freeze()
        # A page of 1,000 nodes makes about 5,000 dicts and lists, all freed by reference
        # counting. At Python's default of a young collection every 700 of them, a listing
        # of 10,000 nodes ran about 70 young and one or two full collections, and the full
        # ones still walk what the caches warmed after the freeze (the node index): 38 ms of
        # a 190 ms listing. Every 7,000: none during a listing, and the same few cycles
        # collected, a little later.
        gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
        stop = threading.Event()
        threads = [
            threading.Thread(target=start, args=(stop,), name="flavorsmith-leader", daemon=True)
            for start in starters
        ]
        threads.append(
            threading.Thread(
                target=warm.run,
                args=(started.state.services, stop),
                name="flavorsmith-warm",
                daemon=True,
            )
        )
        for thread in threads:
            thread.start()
        try:
            yield
        finally:
            stop.set()
            for thread in threads:
                await asyncio.to_thread(thread.join, 30)

    app = create_app(
        config.settings(), engine=engine, authenticator=authenticator, lifespan=lifespan
    )
    app.state.services.warming = Warming()
    loops: dict[str, Callable[[threading.Event], object]] = {}
    mirror = _mirror(config, engine, holder)
    _claim_nodes(engine, mirror)
    if mirror is not None:
        app.state.services.mirror = mirror
        loops["mirror"] = mirror.run
    if config.sync:
        loops["sync"] = _watcher(config, app, engine, authenticator)
    if config.trend_interval > 0:
        loops["samples"] = _sampler(config, app, engine).run
    if loops:
        leadership = Leadership(engine, loops, period=config.election_period(), holder=holder)
        app.state.services.leadership = leadership
        starters.append(leadership.run)
    return app


def _claim_nodes(engine: Engine, mirror: Mirror | None) -> None:
    """Say in the database where the nodes come from, before anything is served: a mirrored
    Ironic (node writes are refused, by every process on the database, the command line's
    included) or the database itself. With the database out of reach, the mirror's first
    refresh stores its state instead."""
    try:
        with writer(engine).begin() as connection:
            if mirror is None:
                nodes.database_source(connection)
            else:
                nodes.mirror_from(connection, mirror.label, mirror.interval)
    except Exception as exc:
        logging.getLogger("flavorsmith.serve").warning(
            "the nodes' source is not stored yet: %s", exc
        )


def _mirror(config: ServeConfig, engine: Engine, holder: str) -> Mirror | None:
    if not config.mirrored:
        return None
    # ``serve`` checked the options; each request of a refresh is bounded: a hung Ironic is
    # reported, never waited on forever.
    connection = cloud.connect(
        config.ironic_cloud,
        "baremetal",
        config.ironic_endpoint,
        timeout=max(30.0, config.ironic_refresh),
    )
    return Mirror(
        IronicNodes(connection),
        engine,
        label=config.ironic_endpoint or f"cloud {config.ironic_cloud}",
        interval=config.ironic_refresh,
        max_delete=config.ironic_max_delete / 100,
        advice=" (--ironic-max-delete 100 lets such a refresh through)",
        holder=holder,
        first_load=_loading_bar if is_terminal(sys.stderr) else None,
    )


@contextmanager
def _loading_bar() -> Iterator[Callable[[int, int], None]]:
    """The first load on a terminal: nodes read, with the rate (Ironic gives no total)."""
    with progress("loading nodes from Ironic") as bar:
        yield lambda _pages, nodes: bar.at(nodes, None)


def _sampler(config: ServeConfig, app: FastAPI, engine: Engine) -> Sampler:
    shared = app.state.services

    def catalog() -> Catalog | None:
        view = shared.catalog.view()
        return None if has_errors(view.diagnostics) else view.catalog

    return Sampler(
        shared.index_cache,
        catalog,
        engine,
        interval=config.trend_interval,
        retention=timedelta(days=config.trend_retention),
    )


def _watcher(
    config: ServeConfig, app: FastAPI, engine: Engine, authenticator: Authenticator | None
) -> Callable[[threading.Event], object]:
    catalog = app.state.services.catalog
    # Under Keystone a private flavor's projects must be Keystone's, as in Nova.
    project_check = (
        authenticator.catalog_project if isinstance(authenticator, KeystoneAuth) else None
    )

    def run(stop: threading.Event) -> object:
        return watch(
            Repository(Path(config.repo or "."), catalog.rules),
            lambda kind: store.target(
                kind,
                engine,
                spec_check=refusal(catalog.registry(), "permissive"),
                project_check=project_check,
            ),
            engine,
            prune=config.sync_prune,
            allow_empty=config.sync_allow_empty,
            interval=config.sync_interval,
            stop=stop,
        )

    return run
