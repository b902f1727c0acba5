"""A real OpenStack Neutron 29 on loopback for integration tests: installed from PyPI into a
cache folder (its own virtual environment with gunicorn, pinned by ``neutron-constraints.txt``),
configured here and served by gunicorn on ``neutron.wsgi.api:application`` (Neutron 29 has no
``neutron-server`` command; its API runs under a WSGI server).

Configuration: the ML2 core plugin with no mechanism drivers and no agents, the ``router`` (L3)
and ``flavors`` service plugins, so ``L3_ROUTER_NAT`` flavors, their service profiles and
routers made with a flavor all work; ``auth_strategy = noauth`` (Neutron's own pipeline: a
request without ``X-Project-Id`` is an admin of ``fake_project_id``); a fresh SQLite database
per start.

    with running_neutron() as neutron:       # neutron.url: "http://127.0.0.1:PORT"
        conn = sdk_connection(neutron.url)    # openstacksdk; the network proxy adds /v2.0

The database. ``neutron-db-manage upgrade heads`` cannot build Neutron 29's schema on the
databases the tests have: on SQLite it stops at migration 1df244e556f5 (``NotImplementedError:
No support for ALTER of constraints in SQLite dialect``), and on PostgreSQL at the ``tags``
migration (``syntax error at or near "CONVERT"``: ``ALTER TABLE tags CONVERT TO CHARACTER SET
utf8mb4``, MySQL only). So the install builds the schema once from Neutron's own models
(``neutron.db.migration.models.head``, the metadata its migrations are tested against) and
stamps it at the heads with ``neutron-db-manage stamp heads``; each start copies that file.

No message queue. The calls the tests make (flavors, service profiles, routers without
gateways or interfaces) send no RPC: with no agent registered, the L3 notifier has no one to
tell. The transport points at a closed loopback port, so a call that did send one would fail
here instead of reaching a broker that other processes share.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openstack.connection

from tests.support.cache import CACHE, cached_install
from tests.support.service import free_port, install_venv, log_tail, stop, tail

VERSION = "29.0.0"
HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "neutron-constraints.txt"
START_TIMEOUT = 180.0
LOGS = ("gunicorn.log", "neutron.log")  # what a failure shows the last lines of
# The schema's recipe: change it to rebuild the cached schema.
SCHEMA_RECIPE = "models-create_all+stamp-heads"
SCHEMA = "schema/neutron.sqlite"

CONF = """
[DEFAULT]
core_plugin = ml2
service_plugins = router,flavors
auth_strategy = noauth
api_paste_config = {paste}
api_workers = 1
rpc_workers = 0
rpc_state_report_workers = 0
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
transport_url = rabbit://guest:guest@127.0.0.1:{closed_port}/
debug = false
log_file = {state}/neutron.log
use_stderr = false

[database]
connection = sqlite:///{database}
# A test database: no fsync per commit.
sqlite_synchronous = false

[ml2]
type_drivers = flat
tenant_network_types =
mechanism_drivers =
extension_drivers =

[oslo_concurrency]
lock_path = {state}/locks
"""

GUNICORN = """
import sys

# Neutron hands sys.argv to oslo.config, which refuses gunicorn's own arguments.
sys.argv[1:] = []
wsgi_app = "neutron.wsgi.api:application"
bind = "127.0.0.1:{port}"
workers = 1
timeout = 120
graceful_timeout = 5
pidfile = "{state}/gunicorn.pid"
# No control socket: it would be one path shared by every gunicorn of this user.
control_socket_disable = True
"""

# Neutron's tables as its models declare them (the migrations' own reference).
CREATE_SCHEMA = """
import sys
import sqlalchemy
from neutron.db.migration.models import head
engine = sqlalchemy.create_engine("sqlite:///" + sys.argv[1])
head.get_metadata().create_all(engine)
engine.dispose()
"""


def _install_key() -> str:
    """What the cached install was made from: the version, the pinned constraints and the
    schema's recipe."""
    digest = hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    return f"neutron=={VERSION} constraints-sha256={digest} schema={SCHEMA_RECIPE}"


def venv() -> Path:
    """The virtual environment with Neutron and gunicorn and the built schema, made on first
    use (minutes) and then cached; the marker is written only after a complete install.
    Processes that start at once wait for one another (``install_lock``)."""
    home = CACHE / f"neutron-{VERSION}"
    return cached_install(home, _install_key(), _install)


def _install(home: Path) -> None:
    install_venv(
        home,
        what=f"Neutron {VERSION}",
        packages=(f"neutron=={VERSION}", "gunicorn"),
        constraints=CONSTRAINTS,
        key=_install_key(),
        after=_build_schema,
    )


def _build_schema(home: Path) -> None:
    """Neutron's schema from its models, stamped at the migration heads, into ``SCHEMA``."""
    database = home / SCHEMA
    database.parent.mkdir(parents=True, exist_ok=True)
    database.unlink(missing_ok=True)
    env = _environment()
    _run(
        [str(home / "bin" / "python"), "-c", CREATE_SCHEMA, str(database)],
        env,
        database.parent,
        "creating Neutron's tables from its models",
    )
    with tempfile.TemporaryDirectory(prefix="flavorsmith-neutron-schema-") as tmp:
        conf = Path(tmp) / "neutron.conf"
        conf.write_text(f"[database]\nconnection = sqlite:///{database}\n")
        _run(
            [str(home / "bin" / "neutron-db-manage"), "--config-file", str(conf), "stamp", "heads"],
            env,
            Path(tmp),
            "neutron-db-manage stamp heads",
        )


def _environment() -> dict[str, str]:
    """This environment without this interpreter's PYTHONPATH and without OS_* variables (the
    service has its own virtual environment and reads only its own configuration)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("OS_")}


def _run(command: list[str], env: dict[str, str], cwd: Path, what: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd, env=env)
    if result.returncode != 0:
        raise RuntimeError(
            f"{what} failed (exit {result.returncode}):\n{tail(result.stdout + result.stderr)}"
        )


def _ready(url: str, token: str | None = None) -> bool:
    """The API answers with the flavors extension loaded (``GET /v2.0/flavors``); ``token``:
    sent as X-Auth-Token (a Neutron behind Keystone)."""
    request = urllib.request.Request(f"{url}/v2.0/flavors")
    if token is not None:
        request.add_header("X-Auth-Token", token)
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return "flavors" in json.load(response)
    except (OSError, ValueError, urllib.error.HTTPError):
        return False


def rss_mib(pid: int) -> float:
    """The resident memory of the process ``pid`` and its children (gunicorn's master and
    worker), in MiB, from /proc."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if int(entry.name) != pid and int(fields[1]) != pid:  # fields[1]: the parent's pid
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


@dataclass(frozen=True)
class Neutron:
    """A running Neutron: its root URL (the API is under ``/v2.0``), its state folder and
    gunicorn's process id."""

    url: str
    state: Path
    pid: int

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One call as the admin (``path`` under ``/v2.0``): the status and the JSON answer
        (None when empty). A refusal is returned, not raised."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/v2.0{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, json.loads(raw) if raw else None


@contextmanager
def running_neutron(*, authtoken: str | None = None, token: str | None = None) -> Iterator[Neutron]:
    """Start Neutron with a fresh copy of the built schema on a free loopback port; stops it
    (by gunicorn's process group) and removes its state on exit.

    ``authtoken``: a ``[keystone_authtoken]`` section (tests/support/keystone_api.py);
    Neutron then validates tokens with that Keystone (``auth_strategy = keystone``, its own
    paste pipeline) and ``token`` is a Keystone token the readiness check sends."""
    home = venv()
    with tempfile.TemporaryDirectory(prefix="flavorsmith-neutron-") as tmp:
        state = Path(tmp)
        (state / "locks").mkdir()
        database = state / "neutron.sqlite"
        shutil.copyfile(home / SCHEMA, database)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        conf = CONF.format(
            state=state,
            database=database,
            paste=home / "etc" / "neutron" / "api-paste.ini",
            closed_port=free_port(),
        )
        if authtoken is not None:
            conf = conf.replace("auth_strategy = noauth", "auth_strategy = keystone")
            conf += "\n" + authtoken
        (state / "neutron.conf").write_text(conf)
        (state / "gunicorn.conf.py").write_text(GUNICORN.format(port=port, state=state))
        env = _environment()
        env["OS_NEUTRON_CONFIG_DIR"] = str(state)
        env["OS_NEUTRON_CONFIG_FILES"] = "neutron.conf"
        with (state / "gunicorn.log").open("wb") as out:
            started = time.monotonic()
            process = subprocess.Popen(
                [str(home / "bin" / "gunicorn"), "--config", str(state / "gunicorn.conf.py")],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=state,
                start_new_session=True,
                env=env,
            )
            try:
                while not _ready(url, token):
                    if process.poll() is not None:
                        raise RuntimeError(
                            f"Neutron exited with {process.returncode} before answering on"
                            f" {url}\n{log_tail(state, LOGS)}"
                        )
                    if time.monotonic() - started > START_TIMEOUT:
                        raise RuntimeError(
                            f"Neutron did not answer on {url} within {START_TIMEOUT:.0f}s\n"
                            f"{log_tail(state, LOGS)}"
                        )
                    time.sleep(0.5)
                print(
                    f"neutron {VERSION} up on {url} in {time.monotonic() - started:.1f}s,"
                    f" {rss_mib(process.pid):.0f} MiB resident",
                    file=sys.stderr,
                )
                yield Neutron(url, state, process.pid)
            finally:
                stop(process)


def sdk_connection(url: str) -> openstack.connection.Connection:
    """An openstacksdk connection to the Neutron at ``url`` (the root ``running_neutron``
    yields): no auth, the root as the network endpoint (openstacksdk adds ``/v2.0``). With
    no cloud name the SDK reads neither clouds.yaml nor OS_* variables."""
    return openstack.connection.Connection(
        auth_type="none",
        network_endpoint_override=url,
    )
