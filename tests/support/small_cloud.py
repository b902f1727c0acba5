"""A small real cloud on loopback: Keystone, Placement, Glance, Ironic (fake-hardware) and Nova
as their separate real services, so a server boots through the real scheduler onto an Ironic
node.

    with running_cloud() as cloud:
        nodes = cloud.enrol_nodes(["bm-0", "bm-1"], resource_class="bm-gold", traits=["CUSTOM_X"])
        cloud.wait_for_nodes(nodes)                     # nova-compute reported them to Placement
        flavor = cloud.create_flavor("gold", {"resources:CUSTOM_BM_GOLD": "1", ...})
        server = cloud.boot("vm-1", flavor)
        outcome = cloud.wait_for_servers([server])[server]   # ACTIVE on a node, or ERROR + fault

What runs, each on 127.0.0.1 only, each process stopped by its own id when the block ends:

- Keystone 30 (tests/support/keystone_api.py: SQLite, fernet tokens), started first; its
  catalog has a public endpoint in RegionOne for each service;
- Placement 16 (tests/support/placement_api.py: SQLite, one gunicorn worker, one thread, so
  Nova's writes never meet SQLite's lock);
- Glance 33 (tests/support/glance_api.py: file store, SQLite) with one tiny raw image;
- Ironic 39 (tests/support/ironic_api.py: API and conductor in one process, fake-hardware,
  SQLite, no message queue);
- Nova 34 (the venv of tests/support/nova_api.py, plus psycopg2 in a folder of its own):
  ``nova-api`` under gunicorn, ``nova-conductor``, ``nova-scheduler`` and ``nova-compute`` with
  the ironic virt driver, over the RabbitMQ at 127.0.0.1:5672 (a vhost of this run, made and
  removed here) and three throwaway PostgreSQL databases (API, cell0, cell1; dropped after).

Every service validates tokens with Keystone (keystonemiddleware, a service user of its own
in project ``service``); Nova reaches Placement, Ironic and Neutron as its service user
``nova`` (password auth) and finds every service in the catalog, as Ironic does Nova and
Glance. The people (PEOPLE; every password ``keystone_api.PASSWORD``, the bootstrap
``admin``'s ``keystone_api.ADMIN_PASSWORD``): ``admin`` (admin of project ``admin`` and of the
system), ``operator`` (admin and service in project ``service``: the clouds.yaml, so
Flavorsmith's ``--cloud`` commands) and ``member`` (projects ``dedicated``, ``dedicated-2``,
``other``). ``cloud.token_for(user, project)`` gives a real token; ``cloud.projects`` the ids.

No Neutron unless asked: servers boot with ``networks: none``. Without Neutron, Nova answers
``GET /servers/{id}`` and ``/servers/detail`` with a 500 (it asks Neutron for the server's
security groups), so the functions here read a server's status from the filtered list
(``GET /servers?status=...``), its node from Ironic (the node's ``instance_uuid``) and its
fault from its instance action's events.

``python -m tests.support.small_cloud`` (``python3 dev.py cloud``) starts it until Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from base64 import b64encode
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openstack.connection
from openstack.baremetal.v1.node import Node
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.support import (
    glance_api,
    ironic_api,
    keystone_api,
    neutron_api,
    nova_api,
    placement_api,
)
from tests.support.cache import CACHE, MARKER, cached_install
from tests.support.service import free_port

HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "small-cloud-constraints.txt"
PG_ADMIN_URL = os.environ.get(
    "FLAVORSMITH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
RABBIT = os.environ.get("FLAVORSMITH_TEST_RABBIT", "guest:guest@127.0.0.1:5672")
RABBIT_MANAGEMENT = "http://127.0.0.1:15672"
COMPUTE_VERSION = "2.95"  # networks "none" (2.37+), the events' details (2.84+)
COMPUTE_HOST = "flavorsmith-cloud-compute"
START_TIMEOUT = 180.0
STOP_TIMEOUT = 20.0
REPORT_TIMEOUT = 180.0
BOOT_TIMEOUT = 180.0
CLOUD_NAME = "flavorsmith-small-cloud"

# One nova.conf for the four services, as a deployment on one host has it.
NOVA_CONF = """
[DEFAULT]
host = {host}
transport_url = {transport_url}
state_path = {state}
use_stderr = false
debug = false
compute_driver = ironic.IronicDriver
reserved_host_memory_mb = 0
reserved_host_disk_mb = 0
# nova-compute asks Ironic for its nodes and reports them to Placement this often (seconds).
update_resources_interval = {update_interval}
# On SIGTERM a service waits this long for its work to end (60 s by default).
graceful_shutdown_timeout = 5

[api_database]
connection = {api_db}

[database]
connection = {cell1_db}

[conductor]
workers = 1

[scheduler]
workers = 1
# Map a new compute host to the cell this often (seconds), as `nova-manage cell_v2
# discover_hosts` would, without a process start each time.
discover_hosts_in_cells_interval = 2

[filter_scheduler]
# Placement chose the node; the host filters have nothing to add for an ironic node.
enabled_filters = ComputeFilter

[api]
auth_strategy = keystone

{authtoken}
# Nova's service user, and where each service is: Keystone's catalog (public, RegionOne).
[placement]
{service_auth}
[ironic]
{service_auth}
[neutron]
{service_auth}
# Nova asks Glance and Keystone (flavor access: does the project exist?) with the caller's
# token; only where to find them is set here.
[glance]
{where}
[keystone]
{where}
[oslo_messaging_notifications]
driver = noop

[oslo_concurrency]
lock_path = {state}/locks

[vnc]
enabled = false
"""

# How Nova's and Ironic's clients authenticate (their service user, password auth) and find
# the other services (the catalog's public endpoints).
SERVICE_AUTH = """auth_type = password
auth_url = {auth_url}
username = {username}
password = {password}
user_domain_name = Default
project_name = service
project_domain_name = Default
{where}"""
WHERE = f"region_name = {keystone_api.REGION}\nvalid_interfaces = public\n"

# Ironic behind Keystone. Nova's ironic driver (the service role in project "service") lists
# and deploys every node: Ironic's default policies give that role its elevated access only
# when asked. The operator's project-scoped credential (Flavorsmith's clouds.yaml) syncs deploy
# templates, which Ironic's defaults leave to a system-scoped admin alone: a policy file adds
# the service role there, as an operator who syncs with that credential would.
IRONIC_CONF = """
[DEFAULT]
auth_strategy = keystone
rbac_service_role_elevated_access = true

[oslo_policy]
policy_file = {policy}

{authtoken}
# Ironic tells Nova of power changes, and asks Glance about images, as its service user.
[nova]
{service_auth}
[glance]
{service_auth}
"""

IRONIC_POLICY = """
"baremetal:deploy_template:create": "(role:admin and system_scope:all) or rule:service_role"
"baremetal:deploy_template:update": "(role:admin and system_scope:all) or rule:service_role"
"baremetal:deploy_template:delete": "(role:admin and system_scope:all) or rule:service_role"
"""

# Nova's api-paste.ini: keystonemiddleware validates the token, then Nova's own context filter.
NOVA_PASTE = (
    nova_api.PASTE.replace(" shim keystonecontext ", " authtoken keystonecontext ")
    + """
[filter:authtoken]
paste.filter_factory = keystonemiddleware.auth_token:filter_factory
"""
)

# The projects and users of the small cloud's Keystone (besides the bootstrap admin, admin of
# project "admin" and of the system): a service user per service in project "service";
# "operator" (Flavorsmith's clouds.yaml: admin for Nova, the service role for Ironic);
# "member" in the private flavor's two projects and in one that is not on its access list.
PROJECTS = ("service", "dedicated", "dedicated-2", "other")
SERVICE_USERS = ("nova", "placement", "glance", "ironic", "neutron")
PEOPLE: tuple[tuple[str, str | None, str], ...] = (
    *((user, "service", "service") for user in SERVICE_USERS),
    ("nova", "service", "admin"),  # Neutron: a server's ports in any project
    ("operator", "service", "admin"),
    ("operator", "service", "service"),
    ("member", "dedicated", "member"),
    ("member", "dedicated-2", "member"),
    ("member", "other", "member"),
)
PASSWORD = keystone_api.PASSWORD  # every user's but admin's
ADMIN_PASSWORD = keystone_api.ADMIN_PASSWORD
TOKEN_LIFETIME = 1800.0  # a cached token is asked again after this (Keystone's last an hour)

# Only nova-api: native threads under gunicorn (the other services keep their default).
NOVA_API_CONF = """
[DEFAULT]
concurrency_backend = threading
"""

NOVA_GUNICORN = """
import sys

sys.argv[1:] = []  # oslo.config would read gunicorn's arguments as Nova's
wsgi_app = "flavorsmith_nova_app:application"
bind = "127.0.0.1:{port}"
workers = 1
threads = 2
worker_class = "gthread"
timeout = 120
graceful_timeout = 5
control_socket_disable = True
"""


def _tail(text_: str, lines: int = 40) -> str:
    return "\n".join(text_.splitlines()[-lines:])


def _file_tail(path: Path, lines: int = 40) -> str:
    if not path.exists():
        return f"--- {path.name}: not written ---"
    return f"--- {path.name} (last lines) ---\n{_tail(path.read_text(errors='replace'), lines)}"


# --- RabbitMQ: one vhost per run ------------------------------------------------------------


def _management(method: str, path: str) -> None:
    credentials = RABBIT.partition("@")[0]
    request = urllib.request.Request(f"{RABBIT_MANAGEMENT}/api{path}", method=method)
    request.add_header("Authorization", "Basic " + b64encode(credentials.encode()).decode())
    request.add_header("Content-Type", "application/json")
    data = b'{"configure":".*","write":".*","read":".*"}' if "/permissions/" in path else b"{}"
    with urllib.request.urlopen(request, data=None if method == "DELETE" else data, timeout=10):
        pass


def _rabbitmqctl(*args: str) -> None:
    tool = shutil.which("rabbitmqctl") or "/usr/sbin/rabbitmqctl"
    try:
        result = subprocess.run(
            [tool, *args], capture_output=True, text=True, check=False, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"rabbitmqctl {' '.join(args)}: {error}") from error
    if result.returncode != 0:
        raise RuntimeError(
            f"rabbitmqctl {' '.join(args)} failed (exit {result.returncode}):"
            f" {_tail(result.stdout + result.stderr, 5)}"
        )


@contextmanager
def rabbit_vhost() -> Iterator[str]:
    """A RabbitMQ vhost of its own for this run, with ``guest`` allowed on it; yields the
    ``transport_url``. Made and removed through the management API (port 15672) when it
    answers, else with ``rabbitmqctl`` (which needs root or the rabbitmq user)."""
    name = f"flavorsmith-cloud-{uuid.uuid4().hex[:10]}"
    user = RABBIT.partition(":")[0]
    try:
        _management("PUT", f"/vhosts/{name}")
        _management("PUT", f"/permissions/{name}/{user}")
        tool = "management"
    except OSError as management_error:
        try:
            _rabbitmqctl("add_vhost", name)
            _rabbitmqctl("set_permissions", "-p", name, user, ".*", ".*", ".*")
        except RuntimeError as error:
            raise RuntimeError(
                f"could not create the RabbitMQ vhost {name}: the management API on"
                f" {RABBIT_MANAGEMENT} did not answer ({management_error}) and {error}"
                " (rabbitmqctl needs root or the rabbitmq user)"
            ) from error
        tool = "rabbitmqctl"
    try:
        yield f"rabbit://{RABBIT}/{name}"
    finally:
        if tool == "management":
            with suppress(OSError):
                _management("DELETE", f"/vhosts/{name}")
        else:
            with suppress(RuntimeError):
                _rabbitmqctl("delete_vhost", name)


# --- PostgreSQL: throwaway databases ----------------------------------------------------------


@contextmanager
def postgres_databases(*purposes: str) -> Iterator[dict[str, str]]:
    """One new database per purpose (``flavorsmith_cloud_<run>_<purpose>``); yields each one's
    URL for psycopg2 (what Nova's oslo.db uses); drops them all afterwards."""
    run = uuid.uuid4().hex[:10]
    names = {purpose: f"flavorsmith_cloud_{run}_{purpose}" for purpose in purposes}
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    made: list[str] = []
    try:
        try:
            with admin.connect() as connection:
                for name in names.values():
                    connection.execute(text(f'CREATE DATABASE "{name}"'))
                    made.append(name)
        except Exception as error:
            raise RuntimeError(
                f"could not create a PostgreSQL database at {PG_ADMIN_URL}"
                f" ({' '.join(str(error).split())[:200]}); FLAVORSMITH_TEST_PG_URL names"
                " a server where the user may create databases"
            ) from error
        base = make_url(PG_ADMIN_URL).set(drivername="postgresql+psycopg2")
        yield {
            purpose: base.set(database=name).render_as_string(hide_password=False)
            for purpose, name in names.items()
        }
    finally:
        with admin.connect() as connection:
            for name in made:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


# --- Nova's psycopg2 ----------------------------------------------------------------------


def _psycopg2_pin() -> str:
    for line in CONSTRAINTS.read_text().splitlines():
        if line.startswith("psycopg2-binary=="):
            return line.strip()
    raise RuntimeError(f"{CONSTRAINTS} pins no psycopg2-binary")


def nova_pylib() -> Path:
    """psycopg2 for Nova's PostgreSQL databases, in a folder of its own on the services'
    PYTHONPATH, so the Nova venv that tests/support/nova_api.py shares stays as it is."""
    pin = _psycopg2_pin()
    home = CACHE / f"nova-{nova_api.VERSION}-psycopg2"

    def install(target: Path) -> None:
        shutil.rmtree(target, ignore_errors=True)
        python = nova_api.venv() / "bin" / "python"
        command = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        command += ["--target", str(target), pin]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(
                f"installing {pin} into {target} failed (exit {result.returncode}); is PyPI"
                f" reachable?\n{_tail(result.stdout + result.stderr)}"
            )
        (target / MARKER).write_text(f"{pin}\n")

    return cached_install(home, pin, install)


# --- processes --------------------------------------------------------------------------------


@dataclass
class Service:
    """One service process (and what it forks: its own process group), its log files."""

    name: str
    process: subprocess.Popen[bytes]
    logs: tuple[Path, ...]

    def tail(self) -> str:
        return "\n".join(_file_tail(path) for path in self.logs)

    def terminate(self) -> None:
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)

    def stop(self) -> None:
        """SIGTERM (again, if :meth:`terminate` sent it already), then SIGKILL to what is
        left of its process group after ``STOP_TIMEOUT``."""
        self.terminate()
        with suppress(subprocess.TimeoutExpired):
            self.process.wait(STOP_TIMEOUT)
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def _start(
    name: str, command: Sequence[str], state: Path, env: Mapping[str, str], *log: Path
) -> Service:
    out = state / f"{name}.out"
    with out.open("wb") as handle:
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            cwd=state,
            start_new_session=True,
            env=dict(env),
        )
    return Service(name, process, (out, *log))


def _group_rss_kib(group: int) -> int:
    """The resident memory of every process in a process group (a service and its workers)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with suppress(OSError, ValueError):
            if os.getpgid(int(entry.name)) != group:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def _listener_group(port: int) -> int | None:
    """The process group of the process listening on 127.0.0.1:``port`` (the services
    tests/support starts lead a process group of their own)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], fields[9]
        if state == "0A" and int(local.split(":")[1], 16) == port:
            inodes.add(f"socket:[{inode}]")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with suppress(OSError):
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    return os.getpgid(int(entry.name))
    return None


def _ironic_log(url: str) -> Path | None:
    """Ironic's log file: ``ironic.log`` in the folder its process runs in (its state folder,
    tests/support/ironic_api.py), found from the process listening on the URL's port."""
    group = _listener_group(int(url.rsplit(":", 1)[1]))
    if group is None:
        return None
    with suppress(OSError):
        return Path(os.readlink(f"/proc/{group}/cwd")) / "ironic.log"
    return None


# --- HTTP -------------------------------------------------------------------------------------


def _http(
    method: str,
    url: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30,
) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw)
        except ValueError:
            return error.code, raw.decode(errors="replace")


def _wait(what: str, done: Callable[[], bool], timeout: float, why: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout:.0f}s\n{why()}")
        time.sleep(0.5)


# --- the cloud --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How a boot ended: ``ACTIVE`` on ``node`` (the Ironic node's uuid), or ``ERROR`` with
    ``fault`` (the message of the failed step, e.g. "No valid host was found. ...")."""

    server: str
    status: str
    node: str | None = None
    fault: str | None = None


@dataclass
class Cloud:
    """A running small cloud: its endpoints, a clouds.yaml, and what a test does with it."""

    compute: str  # nova-api, .../v2.1
    baremetal: str  # Ironic's root (the API under /v1)
    placement: str
    image: str  # Glance's root
    image_id: str
    clouds_yaml: Path
    state: Path
    nova_manage: list[str]
    nova_env: dict[str, str]
    api_database: str  # Nova's API database (psycopg), to see whether the host is mapped
    keystone: keystone_api.Keystone  # identity: its URL, project and user ids
    services: dict[str, Service] = field(default_factory=dict)
    placement_state: Path | None = None
    ironic_log: Path | None = None  # Ironic's log (its conductor logs each deploy step run)
    network: str | None = None  # Neutron's root, when it runs
    _tokens: dict[tuple[str, str | None], tuple[str, float]] = field(default_factory=dict)
    _tokens_lock: threading.Lock = field(default_factory=threading.Lock)

    # -- identity

    @property
    def identity(self) -> str:
        """Keystone's identity endpoint (``http://127.0.0.1:PORT/v3``)."""
        return self.keystone.url

    @property
    def projects(self) -> dict[str, str]:
        """Keystone's project ids by name (``admin``, ``service``, ``dedicated``, ...)."""
        return self.keystone.projects

    def token_for(self, user: str, project: str | None) -> str:
        """A real Keystone token of ``user`` (see PEOPLE; ``admin`` is the bootstrap admin)
        scoped to the project named ``project``, or to the system when it is None (only
        ``admin`` has a role there). Kept and given again for half an hour."""
        key = (user, project)
        with self._tokens_lock:
            known = self._tokens.get(key)
            if known is not None and time.monotonic() - known[1] < TOKEN_LIFETIME:
                return known[0]
            keystone = self.keystone
            if project is None:
                token = keystone.token(user, system=True)
            else:
                token = keystone.token(user, project=project)
            self._tokens[key] = (token, time.monotonic())
            return token

    def admin_token(self) -> str:
        """The bootstrap admin's token for project ``admin`` (Nova's and Placement's admin)."""
        return self.token_for("admin", "admin")

    # -- clients

    def connection(self) -> openstack.connection.Connection:
        """openstacksdk as the bootstrap admin scoped to the system, as an operator enrols and
        manages nodes in Ironic (its defaults leave node creation to a system admin); the
        endpoints come from Keystone's catalog."""
        return openstack.connection.Connection(
            auth_type="password",
            auth={
                "auth_url": self.identity,
                "username": "admin",
                "password": ADMIN_PASSWORD,
                "user_domain_name": "Default",
                "system_scope": "all",
            },
            region_name=keystone_api.REGION,
            interface="public",
        )

    def nova(
        self, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> tuple[int, Any]:
        """A call to nova-api as ``token`` (a Keystone token, see :meth:`token_for`; by
        default the admin's for project ``admin``)."""
        headers = {
            "X-Auth-Token": token or self.admin_token(),
            "OpenStack-API-Version": f"compute {COMPUTE_VERSION}",
        }
        return _http(method, f"{self.compute}{path}", body, headers)

    def placement_call(self, path: str) -> tuple[int, Any]:
        headers = {"X-Auth-Token": self.admin_token(), "OpenStack-API-Version": "placement 1.39"}
        return _http("GET", f"{self.placement}{path}", None, headers)

    def ironic(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """A call to Ironic's API (``path`` under ``/v1``) as the system admin."""
        headers = {
            "X-OpenStack-Ironic-API-Version": "latest",
            "X-Auth-Token": self.token_for("admin", None),
        }
        return _http(method, f"{self.baremetal}/v1{path}", body, headers)

    def log_tail(self, *names: str) -> str:
        """The last lines of these services' logs (every service's when none is named;
        ``ironic``: Ironic's; ``keystone``: Keystone's)."""
        chosen = names or (*self.services, "ironic", "keystone")
        tails = [self.services[name].tail() for name in chosen if name in self.services]
        if "ironic" in chosen and self.ironic_log is not None:
            tails.append(_file_tail(self.ironic_log))
        if "keystone" in chosen:
            tails += [_file_tail(self.keystone.state / log) for log in keystone_api.LOGS]
        return "\n".join(tails)

    # -- nodes

    def enrol_nodes(
        self,
        names: Iterable[str],
        *,
        resource_class: str,
        traits: Sequence[str] = (),
        properties: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """Enrol fake-hardware nodes in Ironic with this resource class and these traits,
        then manage, provide and power them on (nova-compute counts a node with no power
        state as unavailable, and one powered off would be stopped by Nova after the boot).
        Returns their uuids."""
        baremetal = self.connection().baremetal
        made: list[Node] = []
        for name in names:
            node = baremetal.create_node(
                name=name,
                driver="fake-hardware",
                resource_class=resource_class,
                properties={"cpu_arch": "x86_64", **(properties or {})},
            )
            if traits:
                baremetal.set_node_traits(node, list(traits))
            made.append(node)
        for target, state in (("manage", "manageable"), ("provide", "available")):
            for node in made:
                baremetal.set_node_provision_state(node, target)
            waiting: list[str | Node] = list(made)  # the SDK's parameter is invariant
            baremetal.wait_for_nodes_provision_state(waiting, state, timeout=120)
        for node in made:
            baremetal.set_node_power_state(node, "power on")
        for node in made:
            baremetal.wait_for_node_power_state(node, "power on", timeout=60)
        return [str(node.id) for node in made]

    def wait_for_nodes(self, nodes: Iterable[str], *, timeout: float = REPORT_TIMEOUT) -> float:
        """Wait until nova-compute has reported every node (uuid) into Placement: a provider
        with the node's uuid, its resource class's unit not reserved, the node's traits on
        it; and nova-scheduler has mapped the compute host to the cell (it looks for new
        hosts every 2 s, as ``nova-manage cell_v2 discover_hosts`` does). Returns the seconds
        waited."""
        started = time.monotonic()
        wanted = list(nodes)
        pending = dict.fromkeys(wanted, "not checked yet")

        def reported() -> bool:
            for node in [n for n in pending if n in wanted]:
                why = self._not_reported(node)
                if why is None:
                    del pending[node]
                else:
                    pending[node] = why
            return not any(node in pending for node in wanted)

        def reported_and_mapped() -> bool:
            if not reported():
                return False
            if self._host_mapped():
                return True
            pending["the compute host"] = "not mapped to the cell yet (nova-scheduler)"
            return False

        _wait(
            f"nova-compute reporting {len(wanted)} nodes into Placement",
            reported_and_mapped,
            timeout,
            lambda: (
                "\n".join(f"{n}: {why}" for n, why in pending.items())
                + "\n"
                + self.log_tail("nova-compute", "nova-scheduler")
            ),
        )
        return time.monotonic() - started

    def _not_reported(self, node: str) -> str | None:
        status, found = self.ironic("GET", f"/nodes/{node}")
        if status != 200:
            return f"Ironic answers {status} for the node"
        rc = placement_api.normalize_rc_name(str(found["resource_class"]))
        status, inventories = self.placement_call(f"/resource_providers/{node}/inventories")
        if status != 200:
            return "no resource provider yet"
        unit = (inventories.get("inventories") or {}).get(rc)
        if unit is None:
            return f"no {rc} inventory yet"
        if unit["reserved"]:
            return f"{rc} still reserved"
        status, traits = self.placement_call(f"/resource_providers/{node}/traits")
        if status != 200:
            return f"Placement answers {status} for the provider's traits"
        missing = set(found.get("traits") or []) - set(traits.get("traits") or [])
        return f"traits {sorted(missing)} not on the provider yet" if missing else None

    def _host_mapped(self) -> bool:
        engine = create_engine(self.api_database)
        try:
            with engine.connect() as connection:
                query = text("SELECT count(*) FROM host_mappings WHERE host = :host")
                return bool(connection.execute(query, {"host": COMPUTE_HOST}).scalar())
        finally:
            engine.dispose()

    # -- flavors and servers

    def create_flavor(
        self,
        name: str,
        extra_specs: Mapping[str, str],
        *,
        ram: int = 1024,
        vcpus: int = 1,
        disk: int = 10,
    ) -> str:
        """A public flavor with these extra specs; its id."""
        status, body = self.nova(
            "POST",
            "/flavors",
            {"flavor": {"name": name, "ram": ram, "vcpus": vcpus, "disk": disk}},
        )
        if status != 200:
            raise RuntimeError(f"POST /flavors {name}: {status} {body}")
        flavor = str(body["flavor"]["id"])
        status, body = self.nova(
            "POST", f"/flavors/{flavor}/os-extra_specs", {"extra_specs": dict(extra_specs)}
        )
        if status != 200:
            raise RuntimeError(f"POST /flavors/{flavor}/os-extra_specs: {status} {body}")
        return flavor

    def boot(self, name: str, flavor: str, *, token: str | None = None) -> str:
        """Create a server of this flavor from the cloud's image, with no network, as
        ``token`` (a Keystone token, see :meth:`token_for`; by default the admin's); its
        id."""
        body = {
            "server": {
                "name": name,
                "flavorRef": flavor,
                "imageRef": self.image_id,
                "networks": "none",
            }
        }
        status, answer = self.nova("POST", "/servers", body, token=token)
        if status != 202:
            raise RuntimeError(f"POST /servers {name}: {status} {answer}")
        return str(answer["server"]["id"])

    def wait_for_servers(
        self, servers: Iterable[str], *, timeout: float = BOOT_TIMEOUT
    ) -> dict[str, Outcome]:
        """Wait until each server is ACTIVE or ERROR; each one's :class:`Outcome`."""
        pending = set(servers)
        done: dict[str, Outcome] = {}

        def settled() -> bool:
            for status in ("ACTIVE", "ERROR"):
                code, body = self.nova("GET", f"/servers?status={status}&all_tenants=1&limit=1000")
                if code != 200:
                    raise RuntimeError(f"GET /servers?status={status}: {code} {body}")
                for found in body["servers"]:
                    if found["id"] in pending:
                        pending.discard(found["id"])
                        done[found["id"]] = self._outcome(found["id"], status)
            return not pending

        _wait(
            f"{len(pending)} servers reaching ACTIVE or ERROR",
            settled,
            timeout,
            lambda: (
                f"still building: {sorted(pending)}\n"
                + self.log_tail("nova-conductor", "nova-scheduler", "nova-compute")
            ),
        )
        return done

    def _outcome(self, server: str, status: str) -> Outcome:
        if status == "ACTIVE":
            code, body = self.ironic("GET", f"/nodes?instance_uuid={server}&fields=uuid")
            nodes = body.get("nodes") if code == 200 else None
            return Outcome(server, status, node=str(nodes[0]["uuid"]) if nodes else None)
        return Outcome(server, status, fault=self._fault(server))

    def _fault(self, server: str) -> str | None:
        """The failed event's details of the server's create action (Nova shows the fault
        there to an admin from microversion 2.84)."""
        code, body = self.nova("GET", f"/servers/{server}/os-instance-actions")
        if code != 200:
            return None
        for action in body["instanceActions"]:
            code, detail = self.nova(
                "GET", f"/servers/{server}/os-instance-actions/{action['request_id']}"
            )
            for event in (detail or {}).get("instanceAction", {}).get("events") or []:
                if event.get("result") == "Error":
                    return str(event.get("details") or event.get("traceback") or event)
            if action.get("message"):
                return str(action["message"])
        return None

    # -- measures

    def rss_mib(self) -> dict[str, float]:
        """Resident memory of each service (with its workers), in MiB."""
        groups: dict[str, int | None] = {
            name: service.process.pid for name, service in self.services.items()
        }
        listeners = [
            ("ironic", self.baremetal),
            ("placement", self.placement),
            ("glance", self.image),
        ]
        if self.network is not None:
            listeners.append(("neutron", self.network))
        listeners.append(("keystone", self.keystone.url.removesuffix("/v3")))
        for name, url in listeners:
            groups[name] = _listener_group(int(url.rsplit(":", 1)[1].split("/")[0]))
        return {
            name: _group_rss_kib(group) / 1024
            for name, group in groups.items()
            if group is not None
        }


def _sdk_options(cloud: Cloud) -> dict[str, Any]:
    """The clouds.yaml entry of an operator: password auth with Keystone, every endpoint from
    its catalog."""
    return {
        "auth_type": "password",
        "auth": {
            "auth_url": cloud.identity,
            "username": "operator",
            "password": PASSWORD,
            "user_domain_name": "Default",
            "project_name": "service",
            "project_domain_name": "Default",
        },
        "region_name": keystone_api.REGION,
        "interface": "public",
        "identity_api_version": "3",
        "compute_api_version": COMPUTE_VERSION,
    }


def _write_clouds_yaml(cloud: Cloud) -> None:
    options = _sdk_options(cloud)
    lines = ["clouds:", f"  {CLOUD_NAME}:"]
    for key, value in options.items():
        if isinstance(value, dict):
            lines.append(f"    {key}:")
            lines += [f"      {k}: {json.dumps(v)}" for k, v in value.items()]
        else:
            lines.append(f"    {key}: {json.dumps(value)}")
    cloud.clouds_yaml.write_text("\n".join(lines) + "\n")


def _nova_manage(python: Path, conf: Path) -> list[str]:
    return [str(python), "-c", nova_api.MANAGE, "--config-file", str(conf)]


def _run_step(what: str, command: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
    result = subprocess.run(
        list(command), capture_output=True, text=True, check=False, cwd=cwd, env=dict(env)
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{what} failed (exit {result.returncode}):\n{_tail(result.stdout + result.stderr)}"
        )


def _prepare_nova(
    state: Path, python: Path, env: Mapping[str, str], dbs: Mapping[str, str], transport: str
) -> None:
    """Nova's databases, as a deployment makes them: the API database, cell0, the cell's
    database, and cell1 (with the run's message queue)."""
    conf = state / "nova-manage.conf"
    conf.write_text(
        "[DEFAULT]\n"
        f"transport_url = {transport}\nstate_path = {state}\nuse_stderr = false\n"
        f"[api_database]\nconnection = {dbs['nova_api']}\n"
        f"[database]\nconnection = {dbs['nova_cell1']}\n"
    )
    manage = _nova_manage(python, conf)
    for what, step in (
        ("nova-manage api_db sync", ["api_db", "sync"]),
        (
            "nova-manage cell_v2 map_cell0",
            ["cell_v2", "map_cell0", "--database_connection", dbs["nova_cell0"]],
        ),
        ("nova-manage db sync", ["db", "sync"]),
        ("nova-manage cell_v2 create_cell", ["cell_v2", "create_cell", "--name", "cell1"]),
    ):
        _run_step(what, [*manage, *step], state, env)


@contextmanager
def running_cloud(
    *, update_interval: int = 3, agent_inspection: bool = False, neutron: bool = False
) -> Iterator[Cloud]:
    """Start the small cloud (see the module's docstring) on free loopback ports; stop every
    process and remove the vhost, the databases and the state folder when the block ends.
    ``update_interval``: how often nova-compute reports Ironic's nodes (seconds);
    ``agent_inspection``: Ironic takes in-band inspection data
    (``ironic_api.inspect_with_inventory``); ``neutron``: the real Neutron 29 runs too
    (tests/support/neutron_api.py), which Nova needs to delete a server and to show one."""
    started = time.monotonic()
    nova_home = nova_api.venv()
    pylib = nova_pylib()
    glance_api.venv()
    keystone_api.venv()
    if neutron:
        neutron_api.venv()

    def note(what: str) -> None:
        print(f"[{time.monotonic() - started:5.1f}s] {what}", file=sys.stderr, flush=True)

    with ExitStack() as stack:
        state = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="flavorsmith-cloud-")))
        stack.callback(note, "every service stopped, the vhost and the databases removed")
        (state / "locks").mkdir()
        python = nova_home / "bin" / "python"
        nova_env = {
            k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("OS_")
        }
        nova_env["PYTHONPATH"] = f"{pylib}{os.pathsep}{state}"
        transport = stack.enter_context(rabbit_vhost())
        dbs = stack.enter_context(postgres_databases("nova_api", "nova_cell0", "nova_cell1"))
        note("message queue vhost and PostgreSQL databases made")
        pool = stack.enter_context(ThreadPoolExecutor(max_workers=4))
        nova_db: Future[None] = pool.submit(_prepare_nova, state, python, nova_env, dbs, transport)
        # Keystone first (while Nova's databases are made): every other service validates
        # tokens with it from its first call. Starting it together with them measured no
        # faster on two busy cores: every start there is CPU-bound. One thread: the services
        # log in at once when Nova starts, and concurrent logins on SQLite can fail (500).
        keystone = stack.enter_context(keystone_api.running_keystone(PEOPLE, PROJECTS, threads=1))
        note(f"keystone up on {keystone.url}")
        system_admin = keystone.token("admin", system=True)
        admin = keystone.token("admin", project="admin")

        def service_auth(username: str) -> str:
            return SERVICE_AUTH.format(
                auth_url=keystone.url, username=username, password=PASSWORD, where=WHERE
            )

        def authtoken(username: str) -> str:
            return keystone.authtoken_section(username=username)

        (state / "ironic-policy.yaml").write_text(IRONIC_POLICY)
        ironic_conf = IRONIC_CONF.format(
            policy=state / "ironic-policy.yaml",
            authtoken=authtoken("ironic"),
            service_auth=service_auth("ironic"),
        )
        managers: list[AbstractContextManager[Any]] = [
            ironic_api.running_ironic(
                agent_inspection=agent_inspection, conf=ironic_conf, token=system_admin
            ),
            placement_api.running_placement(workers=1, threads=1, authtoken=authtoken("placement")),
            glance_api.running_glance(authtoken=authtoken("glance"), token=admin),
        ]
        if neutron:
            managers.append(
                neutron_api.running_neutron(authtoken=authtoken("neutron"), token=admin)
            )
        ironic_url, placement, glance, *network = _enter_together(stack, pool, *managers)
        note(f"ironic up on {ironic_url}, placement on {placement.url}, glance on {glance}")
        if network:
            note(f"neutron up on {network[0].url}")
        image_id = glance_api.upload_image(glance, "flavorsmith-tiny", token=admin)
        port = free_port()
        compute = f"http://127.0.0.1:{port}/v2.1"
        endpoints = [
            ("placement", "placement", placement.url),
            ("image", "glance", glance),
            ("baremetal", "ironic", ironic_url),
            ("compute", "nova", compute),
        ]
        if network:
            endpoints.append(("network", "neutron", network[0].url))
        for service_type, name, url in endpoints:
            keystone.add_endpoint(service_type, name, url)
        nova_db.result()
        note(f"image {image_id} uploaded; catalog written; nova databases and cells made")

        conf = state / "nova.conf"
        conf.write_text(
            NOVA_CONF.format(
                host=COMPUTE_HOST,
                transport_url=transport,
                state=state,
                update_interval=update_interval,
                api_db=dbs["nova_api"],
                cell1_db=dbs["nova_cell1"],
                authtoken=authtoken("nova"),
                service_auth=service_auth("nova"),
                where=WHERE,
            )
        )
        (state / "nova-api.conf").write_text(NOVA_API_CONF)
        (state / "api-paste.ini").write_text(NOVA_PASTE)
        (state / "flavorsmith_nova_app.py").write_text(nova_api.APP)
        (state / "gunicorn.conf.py").write_text(NOVA_GUNICORN.format(port=port))
        cloud = Cloud(
            compute=compute,
            baremetal=ironic_url,
            placement=placement.url,
            image=glance,
            image_id=image_id,
            clouds_yaml=state / "clouds.yaml",
            state=state,
            nova_manage=_nova_manage(python, conf),
            nova_env=nova_env,
            api_database=make_url(dbs["nova_api"])
            .set(drivername=make_url(PG_ADMIN_URL).drivername)
            .render_as_string(hide_password=False),
            placement_state=placement.state,
            ironic_log=_ironic_log(ironic_url),
            network=network[0].url if network else None,
            keystone=keystone,
        )
        _write_clouds_yaml(cloud)

        def stop_all() -> None:
            # All at once: each one's graceful shutdown runs while the others' do.
            for service in cloud.services.values():
                service.terminate()
            for service in cloud.services.values():
                service.stop()
            note("nova stopped")

        stack.callback(stop_all)
        bin_ = nova_home / "bin"
        for name in ("nova-conductor", "nova-scheduler"):
            log = state / f"{name}.log"
            cloud.services[name] = _start(
                name,
                [str(bin_ / name), "--config-file", str(conf), "--log-file", str(log)],
                state,
                nova_env,
                log,
            )
        api_env = {
            **nova_env,
            "OS_NOVA_CONFIG_DIR": str(state),
            "OS_NOVA_CONFIG_FILES": "api-paste.ini;nova.conf;nova-api.conf",
        }
        api_log = state / "nova-api.log"
        (state / "nova-api.conf").write_text(NOVA_API_CONF + f"log_file = {api_log}\n")
        cloud.services["nova-api"] = _start(
            "nova-api",
            [str(python), "-m", "gunicorn", "-c", str(state / "gunicorn.conf.py")],
            state,
            api_env,
            api_log,
        )
        _wait_service(cloud, "nova-api", lambda: cloud.nova("GET", "/")[0] == 200)
        note(f"nova-api up on {compute}")
        _wait_service(cloud, "nova-conductor", lambda: _service_up(cloud, "nova-conductor"))
        note("nova-conductor up")
        log = state / "nova-compute.log"
        cloud.services["nova-compute"] = _start(
            "nova-compute",
            [str(bin_ / "nova-compute"), "--config-file", str(conf), "--log-file", str(log)],
            state,
            nova_env,
            log,
        )
        _wait_service(cloud, "nova-scheduler", lambda: _service_up(cloud, "nova-scheduler"))
        _wait_service(cloud, "nova-compute", lambda: _service_up(cloud, "nova-compute"))
        note("nova-scheduler and nova-compute up: the cloud is ready")
        yield cloud


def _enter_together(
    stack: ExitStack, pool: ThreadPoolExecutor, *managers: AbstractContextManager[Any]
) -> list[Any]:
    """Enter these context managers at once, each in a thread of ``pool``; those that started
    are exited together (each in a thread) by ``stack``, even when another failed to start;
    the first failure is raised once all have ended."""
    futures = [pool.submit(manager.__enter__) for manager in managers]
    values: list[Any] = []
    entered: list[AbstractContextManager[Any]] = []
    failure: BaseException | None = None
    for manager, future in zip(managers, futures, strict=True):
        try:
            values.append(future.result())
        except BaseException as error:
            failure = failure or error
            continue
        entered.append(manager)

    def exit_together() -> None:
        for done in [pool.submit(manager.__exit__, None, None, None) for manager in entered]:
            with suppress(Exception):
                done.result()

    stack.callback(exit_together)
    if failure is not None:
        raise failure
    return values


def _service_up(cloud: Cloud, binary: str) -> bool:
    code, body = cloud.nova("GET", f"/os-services?binary={binary}")
    return code == 200 and any(s.get("state") == "up" for s in body.get("services") or [])


def _wait_service(cloud: Cloud, name: str, ready: Callable[[], bool]) -> None:
    """Wait until ``ready``; when the service exits or does not get ready, raise with the
    last lines of its logs and of Keystone's (every call of it needs a token)."""
    service = cloud.services[name]

    def tails() -> str:
        return cloud.log_tail(name, "keystone")

    def done() -> bool:
        if service.process.poll() is not None:
            raise RuntimeError(f"{name} exited with {service.process.returncode}\n{tails()}")
        try:
            return ready()
        except OSError:
            return False

    _wait(f"{name} starting", done, START_TIMEOUT, tails)


# --- python -m tests.support.small_cloud -------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 dev.py cloud",
        description="Start the small real cloud on loopback until Ctrl-C.",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=3,
        help="fake-hardware nodes to enrol (resource class baremetal-demo, trait CUSTOM_DEMO)"
        " with a flavor 'demo' that lands on them (default 3; 0: none)",
    )
    args = parser.parse_args(argv)
    stop = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, on_signal)
    started = time.monotonic()
    with running_cloud() as cloud:
        if args.nodes > 0 and not stop.is_set():
            names = [f"demo-{index}" for index in range(args.nodes)]
            nodes = cloud.enrol_nodes(
                names, resource_class="baremetal-demo", traits=["CUSTOM_DEMO"]
            )
            cloud.wait_for_nodes(nodes)
            cloud.create_flavor(
                "demo",
                {
                    "trait:CUSTOM_DEMO": "required",
                    "resources:CUSTOM_BAREMETAL_DEMO": "1",
                    "resources:VCPU": "0",
                    "resources:MEMORY_MB": "0",
                    "resources:DISK_GB": "0",
                },
            )
        seconds = time.monotonic() - started
        rss = cloud.rss_mib()
        print(_banner(cloud, args.nodes, seconds, rss), flush=True)
        while not stop.wait(1):
            pass
        print("stopping the small cloud ...", flush=True)
    print("stopped", flush=True)
    return 0


def _banner(cloud: Cloud, nodes: int, seconds: float, rss: Mapping[str, float]) -> str:
    memory = ", ".join(f"{name} {mib:.0f}" for name, mib in rss.items())
    lines = [
        f"\nThe small cloud is up (in {seconds:.0f}s; resident memory MiB: {memory};"
        f" {sum(rss.values()):.0f} in all).",
        f"  identity (keystone) {cloud.identity}   admin / {ADMIN_PASSWORD} (project admin,"
        " and the system)",
        f"                      operator / {PASSWORD} (project service: admin, service);"
        f" member / {PASSWORD} (dedicated, dedicated-2, other)",
        f"  compute (nova-api)  {cloud.compute}",
        f"  baremetal (ironic)  {cloud.baremetal}",
        f"  placement           {cloud.placement}",
        f"  image (glance)      {cloud.image}      image {cloud.image_id}",
    ]
    if cloud.network is not None:
        lines.append(f"  network (neutron)   {cloud.network}")
    lines += [
        "  (each validates Keystone tokens; Keystone's catalog lists them all)",
        f"  clouds.yaml         {cloud.clouds_yaml}  (cloud {CLOUD_NAME}: the operator)",
        f"  logs                {cloud.state}/*.log",
        "",
        "Try, in another terminal:",
        f"  export OS_CLIENT_CONFIG_FILE={cloud.clouds_yaml} OS_CLOUD={CLOUD_NAME}",
        "  openstack catalog list",
        "  openstack flavor list",
    ]
    if nodes:
        lines += [
            "  openstack server create --flavor demo --image flavorsmith-tiny --nic none vm1",
            "      (it boots; the command then fails to show it: without Neutron, Nova answers"
            " 500 to GET /servers/{id} and /servers/detail)",
            "  openstack baremetal node list     # instance_uuid: where each server landed",
            "  TOKEN=$(openstack token issue -f value -c id)   # the operator's, for an hour",
            f"  curl -s -H \"X-Auth-Token: $TOKEN\" '{cloud.compute}/servers?status=ACTIVE'",
        ]
    lines.append("\nCtrl-C stops every service and removes the state.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
