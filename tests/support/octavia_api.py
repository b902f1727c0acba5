"""A real OpenStack Octavia 19 API on loopback for integration tests: installed from PyPI into a
cache folder (its own virtual environment with PyMySQL, pinned by ``octavia-constraints.txt``),
configured here and started as the ``octavia-api`` command.

Database: Octavia's migrations are written for MySQL (on PostgreSQL, ``octavia-db-manage
upgrade head`` stops at ``9bf4d21caaea``, dropping a constraint named ``PRIMARY``), so each
start gets a throwaway database on the MariaDB at
``$FLAVORSMITH_TEST_MYSQL_URL`` (default ``mysql+pymysql://root@127.0.0.1:3306``), dropped on
exit. ``octavia-db-manage upgrade head`` runs once per cache (half a minute), into a database
that is then dumped (``mariadb-dump``) beside the install; each start loads that dump (its
schema, lookup rows, the ``DELETED-PLACEHOLDER`` flavor and ``alembic_version``) in about
three seconds.

Configuration: the ``amphora`` provider (the default) and the ``noop_driver`` provider enabled;
the controller worker's compute, network, image, amphora, volume and certificate drivers are
the no-op ones, and the message queue is oslo.messaging's in-memory ``fake://``, so a load
balancer can be created (it stays ``PENDING_CREATE``: no worker takes the request). The
amphora provider validates a flavor profile's ``compute_flavor`` with the compute driver and
its ``amp_image_tag`` with the image driver: the no-op ones accept any value, so no Nova or
Glance is needed (Octavia's Nova and Glance drivers would look them up there).

Auth: ``auth_strategy = noauth`` by default (every caller is an admin; ``X-Project-Id`` sets
the project). ``running_octavia(auth="testing")`` takes identity from the ``X-Project-Id`` and
``X-Roles`` headers instead, so a test can act as an admin (``X-Roles: admin``) or as a
project member (``X-Roles: member``).

    with running_octavia() as octavia:       # octavia.url: "http://127.0.0.1:PORT"
        conn = sdk_connection(octavia)       # openstacksdk, its load_balancer proxy
        octavia.call("GET", "/v2/lbaas/providers")
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.support.cache import CACHE, cached_install, install_lock
from tests.support.service import answers, free_port, install_venv, log_tail, stop, tail

VERSION = "19.0.0"
HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "octavia-constraints.txt"
START_TIMEOUT = 90.0
LOGS = ("octavia-api.stdout", "octavia-api.log")  # what a failure shows the last lines of
MIGRATE_TIMEOUT = 600.0
MYSQL_URL = os.environ.get("FLAVORSMITH_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306")
MYSQL_HELP = (
    "The real Octavia's migrations need MySQL or MariaDB, which did not answer at {url}"
    " ({error}).\nStart it (Debian: service mariadb start), or point FLAVORSMITH_TEST_MYSQL_URL"
    " at a server where the user may create databases (mysql+pymysql://USER[:PASSWORD]@HOST:PORT)."
)
ADMIN_PROJECT = "flavorsmith-admin-project"
AMPHORA = "amphora"
NOOP = "noop_driver"
PROVIDERS = {
    AMPHORA: "The Octavia Amphora driver.",
    NOOP: "The no-op driver.",
}

CONF = """
[DEFAULT]
debug = false
log_file = {state}/octavia-api.log
use_stderr = false
transport_url = fake://

[api_settings]
bind_host = 127.0.0.1
bind_port = {port}
auth_strategy = {auth}
enabled_provider_drivers = {providers}
default_provider_driver = amphora
pagination_max_limit = 1000

[database]
connection = {database}

[controller_worker]
compute_driver = compute_noop_driver
network_driver = network_noop_driver
image_driver = image_noop_driver
amphora_driver = amphora_noop_driver
volume_driver = volume_noop_driver
loadbalancer_topology = SINGLE

[certificates]
cert_manager = noop_cert_manager

[oslo_concurrency]
lock_path = {state}/locks
"""


def _install_key() -> str:
    """What the cached install was made from: the version and the pinned constraints."""
    digest = hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    return f"octavia=={VERSION} constraints-sha256={digest}"


def venv() -> Path:
    """The virtual environment with Octavia and PyMySQL, made on first use (four to five
    minutes) and then cached; the marker is written only after a complete install. Processes
    that start at once wait for one another (``install_lock``)."""
    home = CACHE / f"octavia-{VERSION}"
    return cached_install(home, _install_key(), _install)


def _install(home: Path) -> None:
    install_venv(
        home,
        what=f"Octavia {VERSION}",
        packages=(f"octavia=={VERSION}", "PyMySQL"),
        constraints=CONSTRAINTS,
        key=_install_key(),
    )


@dataclass(frozen=True)
class MySql:
    """The server at ``MYSQL_URL``, through the ``mariadb`` command-line tools."""

    host: str
    port: int
    user: str
    password: str

    @classmethod
    def from_url(cls, url: str) -> MySql:
        parts = urlsplit(url)
        return cls(
            parts.hostname or "127.0.0.1",
            parts.port or 3306,
            parts.username or "root",
            parts.password or "",
        )

    def url(self, database: str) -> str:
        """The database's SQLAlchemy URL, for Octavia's ``[database] connection``."""
        secret = f":{self.password}" if self.password else ""
        return f"mysql+pymysql://{self.user}{secret}@{self.host}:{self.port}/{database}"

    def _args(self) -> list[str]:
        args = [f"--host={self.host}", f"--port={self.port}", f"--user={self.user}"]
        return args + ([f"--password={self.password}"] if self.password else [])

    def run(self, tool: str, *args: str, stdin: Path | None = None) -> str:
        """``tool`` (``mariadb``, ``mariadb-dump``) with ``args``; its output. A failure raises
        a RuntimeError with its message (and how to reach a server, when none answered)."""
        command = [tool, "--no-defaults", *self._args(), *args]
        try:
            if stdin is not None:
                with stdin.open("rb") as source:
                    result = subprocess.run(command, stdin=source, capture_output=True, check=False)
            else:
                result = subprocess.run(command, capture_output=True, check=False)
        except OSError as error:
            raise RuntimeError(
                MYSQL_HELP.format(url=MYSQL_URL, error=f"cannot run {tool}: {error}")
            ) from error
        if result.returncode != 0:
            said = result.stderr.decode(errors="replace").strip()
            if "Can't connect" in said or "Access denied" in said:
                raise RuntimeError(MYSQL_HELP.format(url=MYSQL_URL, error=said[:200]))
            raise RuntimeError(f"{tool} {' '.join(args)} failed: {said[:400]}")
        return result.stdout.decode(errors="replace")

    def create(self, name: str) -> None:
        self.run("mariadb", "-e", f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")

    def drop(self, name: str) -> None:
        self.run("mariadb", "-e", f"DROP DATABASE IF EXISTS `{name}`")


def mysql() -> MySql:
    """The MariaDB (or MySQL) at ``MYSQL_URL``."""
    return MySql.from_url(MYSQL_URL)


def _database_name(what: str) -> str:
    return f"flavorsmith_octavia_{what}_{uuid.uuid4().hex[:12]}"


def schema_dump() -> Path:
    """Octavia's database as ``octavia-db-manage upgrade head`` leaves it, dumped as SQL beside
    the install: made once per install (under its own lock), loaded by every start."""
    home = venv()
    dump = home / "schema.sql"
    key = f"{_install_key()} schema"
    stamp = home / "schema.key"
    if stamp.exists() and stamp.read_text() == key and dump.exists():
        return dump
    with install_lock(f"octavia-{VERSION}-schema"):
        if stamp.exists() and stamp.read_text() == key and dump.exists():
            return dump
        server = mysql()
        name = _database_name("schema")
        started = time.monotonic()
        server.create(name)
        try:
            with tempfile.TemporaryDirectory(prefix="flavorsmith-octavia-schema-") as tmp:
                conf = Path(tmp) / "octavia.conf"
                conf.write_text(f"[database]\nconnection = {server.url(name)}\n")
                manage = [str(home / "bin" / "octavia-db-manage"), "--config-file", str(conf)]
                result = subprocess.run(
                    [*manage, "upgrade", "head"],
                    capture_output=True,
                    text=True,
                    check=False,
                    env=_environment(),
                    timeout=MIGRATE_TIMEOUT,
                )
                if result.returncode != 0:
                    raise RuntimeError(
                        f"octavia-db-manage upgrade head failed (exit {result.returncode}):\n"
                        f"{tail(result.stdout + result.stderr)}"
                    )
            text = server.run("mariadb-dump", "--skip-comments", "--skip-dump-date", name)
        finally:
            server.drop(name)
        partial = dump.with_suffix(".partial")
        partial.write_text(text)
        partial.replace(dump)
        stamp.write_text(key)
        print(
            f"migrated octavia {VERSION}'s database in {time.monotonic() - started:.1f}s",
            file=sys.stderr,
        )
    return dump


# --- the service ------------------------------------------------------------------------------


def _environment() -> dict[str, str]:
    """The service's environment: this one, without this interpreter's PYTHONPATH (the service
    has its own virtual environment) nor any OS_* variable."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("OS_")}


def admin_headers(project: str = ADMIN_PROJECT) -> dict[str, str]:
    """The headers of an admin under ``auth="testing"`` (harmless under noauth)."""
    return {"X-Project-Id": project, "X-Roles": "admin", "X-User-Id": "flavorsmith-admin"}


def member_headers(project: str) -> dict[str, str]:
    """The headers of a member of ``project`` under ``auth="testing"``."""
    return {"X-Project-Id": project, "X-Roles": "member", "X-User-Id": f"member-of-{project}"}


@dataclass(frozen=True)
class Response:
    """One answer: status, headers and the JSON body (None when empty or not JSON)."""

    status: int
    headers: Mapping[str, str]
    body: Any
    text: str


@dataclass(frozen=True)
class Octavia:
    """A running Octavia API: its root URL (``/v2`` is the API), auth strategy, state folder,
    database name and the service's process id."""

    url: str
    auth: str
    state: Path
    database: str
    pid: int
    headers: Mapping[str, str] = field(default_factory=admin_headers)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """One call (as the admin unless ``headers`` say otherwise); any status is returned."""
        data = None if body is None else json.dumps(body).encode()
        sent = {"Accept": "application/json", **(headers if headers is not None else self.headers)}
        if data is not None:
            sent["Content-Type"] = "application/json"
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        for name, value in sent.items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                status, got, raw = answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            status, got, raw = error.code, dict(error.headers), error.read()
        text = raw.decode(errors="replace")
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        return Response(status, got, parsed, text)

    def call(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        """One call's JSON answer; a status of 400 or more raises, with Octavia's words."""
        answer = self.request(method, path, body, **kwargs)
        if answer.status >= 400:
            raise RuntimeError(f"{method} {path}: {answer.status} {answer.text[:400]}")
        return answer.body

    def create_load_balancer(
        self, flavor_id: str | None = None, *, name: str = "lb", project: str = ADMIN_PROJECT
    ) -> dict[str, Any]:
        """A load balancer in ``project`` using ``flavor_id`` (its profile's provider), on
        made-up network and subnet ids: the no-op network driver accepts any. It stays
        ``PENDING_CREATE`` (no worker), which is enough to hold its flavor in use."""
        body: dict[str, Any] = {
            "name": name,
            "project_id": project,
            "vip_network_id": str(uuid.uuid4()),
            "vip_subnet_id": str(uuid.uuid4()),
        }
        if flavor_id is not None:
            body["flavor_id"] = flavor_id
        answer: dict[str, Any] = self.call(
            "POST", "/v2/lbaas/loadbalancers", {"loadbalancer": body}
        )
        return dict(answer["loadbalancer"])


def _ready(url: str) -> bool:
    """The API answers a read of the database (the providers list alone would not touch it)."""
    return answers(f"{url}/v2/lbaas/flavors", admin_headers())


@contextmanager
def running_octavia(*, auth: str = "noauth", conf: str = "") -> Iterator[Octavia]:
    """Start octavia-api on a free loopback port with a fresh database (loaded from
    ``schema_dump``); stops it, drops the database and removes its state on exit.

    ``auth``: ``noauth`` (every caller an admin) or ``testing`` (identity from the
    ``X-Project-Id`` and ``X-Roles`` headers); ``conf``: more configuration (ini text, a second
    ``--config-file``, so its values win)."""
    if auth not in ("noauth", "testing"):
        raise ValueError(f"auth must be 'noauth' or 'testing', not {auth!r}")
    home = venv()
    dump = schema_dump()
    server = mysql()
    database = _database_name("test")
    with tempfile.TemporaryDirectory(prefix="flavorsmith-octavia-") as tmp:
        state = Path(tmp)
        (state / "locks").mkdir()
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        providers = ",".join(f"{name}:{text}" for name, text in PROVIDERS.items())
        main_conf = state / "octavia.conf"
        main_conf.write_text(
            CONF.format(
                state=state,
                port=port,
                auth=auth,
                providers=providers,
                database=server.url(database),
            )
        )
        conf_args = ["--config-file", str(main_conf)]
        if conf:
            (state / "extra.conf").write_text(conf)
            conf_args += ["--config-file", str(state / "extra.conf")]
        server.create(database)
        try:
            server.run("mariadb", database, stdin=dump)
            with (state / "octavia-api.stdout").open("wb") as out:
                started = time.monotonic()
                process = subprocess.Popen(
                    [str(home / "bin" / "octavia-api"), *conf_args],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=state,
                    start_new_session=True,
                    env=_environment(),
                )
                try:
                    while not _ready(url):
                        if process.poll() is not None:
                            raise RuntimeError(
                                f"octavia-api exited with {process.returncode} before answering"
                                f" on {url}\n{log_tail(state, LOGS)}"
                            )
                        if time.monotonic() - started > START_TIMEOUT:
                            raise RuntimeError(
                                f"octavia-api did not answer on {url} within"
                                f" {START_TIMEOUT:.0f}s\n{log_tail(state, LOGS)}"
                            )
                        time.sleep(0.2)
                    print(
                        f"octavia {VERSION} up on {url} in {time.monotonic() - started:.1f}s",
                        file=sys.stderr,
                    )
                    yield Octavia(url, auth, state, database, process.pid)
                finally:
                    stop(process)
        finally:
            server.drop(database)


def sdk_connection(
    octavia: Octavia, *, headers: Mapping[str, str] | None = None, timeout: float | None = None
) -> Any:
    """An openstacksdk connection to ``octavia`` as Flavorsmith makes one for ``--endpoint``
    (no auth), sending ``headers`` (the admin's by default) with every request, as the
    ``testing`` strategy reads identity from them."""
    from flavorsmith.clients.cloud import connect

    connection = connect(None, "load_balancer", octavia.url, timeout=timeout)
    connection.session.additional_headers = dict(
        headers if headers is not None else octavia.headers
    )
    return connection
