"""A real OpenStack Placement 16 (the 2026.2 release, Nova 34's) on loopback for integration
tests: installed from PyPI into a cache folder (its own virtual environment with gunicorn,
pinned by ``placement-constraints.txt``), configured here and served by gunicorn on
``placement.wsgi.api:application``.

Configuration: a fresh SQLite database per start (``placement-manage db sync``), ``[api]
auth_strategy = noauth2`` (send ``X-Auth-Token: admin``), no cap on allocation candidates.

    with running_placement() as placement:      # placement.url: "http://127.0.0.1:PORT"
        seconds = seed(placement.url, nodes)    # as Nova's ironic driver reports them

``seed`` loads Ironic-like node dicts (``uuid``, ``name``, ``resource_class``, ``traits``,
``provision_state``, ``power_state``, ``maintenance``, ``instance_uuid``) as Nova 34's ironic
driver and resource tracker report them (read from ``nova/virt/ironic/driver.py``
``update_provider_tree``, ``_node_resources_unavailable``, ``_node_resources_used`` and
``nova/compute/resource_tracker.py`` ``_get_traits``):

- one root provider per node; its uuid and its name are both the node's uuid (the compute
  node record's ``uuid`` and ``hypervisor_hostname`` are the node's id);
- inventory of the node's resource class as Nova normalizes it (``CUSTOM_`` + the name in
  upper case, runs of other characters as ``_``): total 1, min/max unit 1, step 1, ratio 1.0,
  reserved 1 when the node is unavailable (maintenance, power state ``error`` or none, a
  provision state other than ``available``) or has an instance; a node without a resource
  class gets a provider and nothing else (Nova stops at ``NoResourceClass``);
- the node's traits, plus the traits Nova adds itself: ``COMPUTE_NODE``, ``OWNER_NOVA``, the
  ironic driver's capability traits (``DRIVER_TRAITS``) and ``COMPUTE_STATUS_DISABLED`` for a
  node whose compute service is disabled (``"compute_disabled": True``); less the capability
  traits the driver does not support (``UNSUPPORTED_TRAITS``), which Nova removes;
- a node with an instance: the instance's allocation of its one unit, made while the node was
  available, then the reservation (the order in which Nova's scheduler and the driver's
  periodic update happen).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from tests.support.cache import CACHE, cached_install
from tests.support.service import answers, free_port, install_venv, log_tail, stop, tail

VERSION = "16.0.0"
HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "placement-constraints.txt"
START_TIMEOUT = 90.0
LOGS = ("gunicorn.log", "placement.log")  # what a failure shows the last lines of
TOKEN = "admin"  # noauth2: the user "admin" has the admin role
# Placement 16's highest microversion is 1.39; seeding uses it (consumer types, 1.38+).
SEED_VERSION = "1.39"
SEED_THREADS = 8
# SQLite's contention is retried with a growing, jittered pause for up to this many seconds: on a
# machine busy with other work two gunicorn workers can keep meeting for more than a second or two.
LOCKED_BUDGET = 60.0

# What nova/compute/resource_tracker.py _get_traits adds to every compute node provider, and the
# ironic driver's capabilities that are True and have a trait (nova/virt/driver.py
# CAPABILITY_TRAITS_MAP, IronicDriver.capabilities).
NOVA_TRAITS = ("COMPUTE_NODE", "OWNER_NOVA")
DRIVER_TRAITS = (
    "COMPUTE_NET_ATTACH_INTERFACE",
    "COMPUTE_IMAGE_TYPE_AMI",
    "COMPUTE_IMAGE_TYPE_QCOW2",
    "COMPUTE_IMAGE_TYPE_RAW",
)
# The ironic driver's capabilities that are False and have a trait: _get_traits removes these
# from the provider even when the Ironic node has them.
UNSUPPORTED_TRAITS = (
    "COMPUTE_SAME_HOST_COLD_MIGRATE",
    "COMPUTE_VOLUME_MULTI_ATTACH",
    "COMPUTE_TRUSTED_CERTS",
    "COMPUTE_ACCELERATORS",
    "COMPUTE_REMOTE_MANAGED_PORTS",
    "COMPUTE_ADDRESS_SPACE_PASSTHROUGH",
    "COMPUTE_ADDRESS_SPACE_EMULATED",
    "COMPUTE_SECURITY_STATELESS_FIRMWARE",
    "COMPUTE_STORAGE_VIRTIO_FS",
    "COMPUTE_MEM_BACKING_FILE",
    "COMPUTE_IMAGE_TYPE_AKI",
    "COMPUTE_IMAGE_TYPE_ARI",
    "COMPUTE_IMAGE_TYPE_ISO",
    "COMPUTE_IMAGE_TYPE_VDI",
    "COMPUTE_IMAGE_TYPE_VHD",
    "COMPUTE_IMAGE_TYPE_VHDX",
    "COMPUTE_IMAGE_TYPE_VMDK",
    "COMPUTE_IMAGE_TYPE_PLOOP",
)
# Set while the node's nova-compute service is disabled, removed otherwise.
DISABLED_TRAIT = "COMPUTE_STATUS_DISABLED"

CONF = """
[DEFAULT]
debug = false
log_file = {state}/placement.log
use_stderr = false

[api]
auth_strategy = noauth2

[placement_database]
connection = sqlite:///{state}/placement.sqlite
# A test database: no fsync per commit.
sqlite_synchronous = false

[placement]
# Every candidate, as a test compares whole sets (this is Placement's default too).
max_allocation_candidates = -1
"""

GUNICORN = """
wsgi_app = "placement.wsgi.api:application"
bind = "127.0.0.1:{port}"
workers = {workers}
threads = {threads}
timeout = 120
graceful_timeout = 5
# No control socket: it would be one path shared by every gunicorn of this user.
control_socket_disable = True
"""

# Each worker syncs the standard traits and resource classes into the database when it loads
# the application; on a fresh SQLite database two workers doing it at once collide. Loading
# it once before gunicorn starts leaves the workers nothing to write.
PRELOAD = "from placement.wsgi import init_application; init_application()"


def _install_key() -> str:
    digest = hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    return f"openstack-placement=={VERSION} constraints-sha256={digest}"


def venv() -> Path:
    """The virtual environment with Placement and gunicorn, made on first use (a quarter of a
    minute with a warm pip cache) and then cached. Test processes that start at once wait for
    one another on a lock file, and the marker is written only after a complete install."""
    home = CACHE / f"placement-{VERSION}"
    return cached_install(home, _install_key(), _install)


def _install(home: Path) -> None:
    install_venv(
        home,
        what=f"Placement {VERSION}",
        packages=(f"openstack-placement=={VERSION}", "gunicorn"),
        constraints=CONSTRAINTS,
        key=_install_key(),
    )


def _answers(url: str, *, keystone: bool = False) -> bool:
    """Placement answers an authenticated call (the root alone answers before the database
    is read); under Keystone, the root (the version document)."""
    headers = {"X-Auth-Token": TOKEN, "OpenStack-API-Version": f"placement {SEED_VERSION}"}
    path = "/" if keystone else "/traits?name=in:COMPUTE_NODE"
    return answers(f"{url}{path}", headers)


def _run(home: Path, state: Path, env: Mapping[str, str], command: list[str], what: str) -> None:
    result = subprocess.run(
        command, capture_output=True, text=True, check=False, cwd=state, env=dict(env)
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{what} failed (exit {result.returncode}):\n{tail(result.stdout + result.stderr)}"
        )


@dataclass(frozen=True)
class Placement:
    """A running Placement: its root URL (the API is at the root) and its state folder."""

    url: str
    state: Path

    def call(self, method: str, path: str, body: Any = None, *, version: str = SEED_VERSION) -> Any:
        """One call as the admin; its JSON answer (None when empty). A refusal raises."""
        client = PlacementHttp(self.url, version=version)
        try:
            return client.call(method, path, body)
        finally:
            client.close()


@contextmanager
def running_placement(
    *, workers: int = 2, threads: int = 4, authtoken: str | None = None
) -> Iterator[Placement]:
    """Start Placement with a fresh SQLite database on a free loopback port (gunicorn,
    ``workers`` processes of ``threads`` threads); stops it and removes its state on exit.

    ``authtoken``: a ``[keystone_authtoken]`` section (``Keystone.authtoken_section()`` of
    tests/support/keystone_api.py); Placement then validates tokens with that Keystone
    (``auth_strategy = keystone``) instead of taking ``admin`` as the token."""
    home = venv()
    with tempfile.TemporaryDirectory(prefix="flavorsmith-placement-") as tmp:
        state = Path(tmp)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        conf_text = CONF.format(state=state)
        if authtoken is not None:
            conf_text = conf_text.replace("auth_strategy = noauth2", "auth_strategy = keystone")
            conf_text += "\n" + authtoken
        (state / "placement.conf").write_text(conf_text)
        (state / "gunicorn.conf.py").write_text(
            GUNICORN.format(port=port, workers=workers, threads=threads)
        )
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("OS_")}
        env["OS_PLACEMENT_CONFIG_DIR"] = str(state)
        conf = ["--config-file", str(state / "placement.conf")]
        _run(
            home,
            state,
            env,
            [str(home / "bin" / "placement-manage"), *conf, "db", "sync"],
            "placement-manage db sync",
        )
        _run(
            home,
            state,
            env,
            [str(home / "bin" / "python"), "-c", PRELOAD],
            "loading Placement's application",
        )
        with (state / "gunicorn.log").open("wb") as out:
            started = time.monotonic()
            process = subprocess.Popen(
                [str(home / "bin" / "gunicorn")],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=state,
                start_new_session=True,
                env=env,
            )
            try:
                while not _answers(url, keystone=authtoken is not None):
                    if process.poll() is not None:
                        raise RuntimeError(
                            f"Placement exited with {process.returncode} before answering on"
                            f" {url}\n{log_tail(state, LOGS)}"
                        )
                    if time.monotonic() - started > START_TIMEOUT:
                        raise RuntimeError(
                            f"Placement did not answer on {url} within {START_TIMEOUT:.0f}s\n"
                            f"{log_tail(state, LOGS)}"
                        )
                    time.sleep(0.2)
                print(
                    f"placement {VERSION} up on {url} in {time.monotonic() - started:.1f}s",
                    file=sys.stderr,
                )
                yield Placement(url, state)
            finally:
                stop(process)


def _transient(raw: bytes) -> bool:
    """A 500 from SQLite's contention, rolled back and worth one more try."""
    return b"database is locked" in raw or b"disk I/O error" in raw


class PlacementHttp:
    """A tiny client on one kept-alive HTTP connection to the Placement at ``url``, as the
    admin, at microversion ``version``."""

    def __init__(self, url: str, *, version: str = SEED_VERSION, token: str = TOKEN) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port, timeout=60
        )
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "X-Auth-Token": token,
            "OpenStack-API-Version": f"placement {version}",
        }

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """One call; its JSON answer. SQLite refuses a write that meets another worker's
        ("database is locked", a 500 whose transaction was rolled back): it is tried again.
        So is SQLite's "disk I/O error", which two gunicorn workers writing one rollback-journal
        database at once can meet (seen once in CI while seeding); the commit had not happened
        (SQLite commits by deleting the journal), so trying again is safe."""
        data = None if body is None else json.dumps(body)
        deadline = time.monotonic() + LOCKED_BUDGET
        attempt = 0
        while True:
            status, raw = self._send(method, path, data)
            if status == 500 and _transient(raw) and time.monotonic() < deadline:
                attempt += 1
                time.sleep(random.uniform(0.5, 1.0) * min(0.01 * 2**attempt, 1.0))
                continue
            break
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {raw[:400]!r}")
        return json.loads(raw) if raw else None

    def _send(self, method: str, path: str, data: str | None) -> tuple[int, bytes]:
        try:
            self.connection.request(method, path, body=data, headers=self.headers)
            response = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            self.connection.close()  # a worker closed a kept-alive connection: once more
            self.connection.request(method, path, body=data, headers=self.headers)
            response = self.connection.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.connection.close()


# --- Nova's view of an Ironic node ------------------------------------------------------------


def normalize_rc_name(name: str) -> str:
    """nova.utils.normalize_rc_name: every ironic resource class is a custom one."""
    return "CUSTOM_" + re.sub("[^0-9A-Za-z]+", "_", name).upper()


def unavailable(node: Mapping[str, Any]) -> bool:
    """IronicDriver._node_resources_unavailable."""
    return (
        bool(node.get("maintenance"))
        or node.get("power_state") in ("error", None)
        or node.get("provision_state") not in ("available", None)
    )


def used(node: Mapping[str, Any]) -> bool:
    """IronicDriver._node_resources_used."""
    return node.get("instance_uuid") is not None


def reserved(node: Mapping[str, Any]) -> bool:
    """The inventory's ``reserved`` (with the default ``skip_reserve_in_use_ironic_nodes``
    off): unavailable, or in use."""
    return unavailable(node) or used(node)


def provider_traits(node: Mapping[str, Any]) -> frozenset[str]:
    """The traits on the node's provider: the node's, less the capability traits the driver
    does not support, and those Nova adds (ResourceTracker._get_traits)."""
    if not node.get("resource_class"):
        return frozenset()
    own = set(node.get("traits") or ()) - set(UNSUPPORTED_TRAITS) - {DISABLED_TRAIT}
    extra = {DISABLED_TRAIT} if node.get("compute_disabled") else set()
    return frozenset(own | set(NOVA_TRAITS) | set(DRIVER_TRAITS) | extra)


def inventory(node: Mapping[str, Any], *, reserve: bool | None = None) -> dict[str, Any]:
    """The provider's inventories as Nova writes them (empty without a resource class)."""
    if not node.get("resource_class"):
        return {}
    held = reserved(node) if reserve is None else reserve
    return {
        normalize_rc_name(str(node["resource_class"])): {
            "total": 1,
            "reserved": int(held),
            "min_unit": 1,
            "max_unit": 1,
            "step_size": 1,
            "allocation_ratio": 1.0,
        }
    }


def can_host(node: Mapping[str, Any]) -> bool:
    """Placement can offer the node's unit: it has a resource class, is not reserved and not
    allocated."""
    return bool(node.get("resource_class")) and not reserved(node)


# --- seeding ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seeded:
    """What ``seed`` did: providers made, HTTP calls, and how long it took."""

    providers: int
    calls: int
    seconds: float


def seed(
    url: str,
    nodes: Iterable[Mapping[str, Any]],
    *,
    threads: int = SEED_THREADS,
    token: str = TOKEN,
) -> Seeded:
    """Load ``nodes`` into the Placement at ``url`` as Nova's ironic driver reports them (see
    the module's docstring), ``threads`` nodes at a time, sending ``token`` (a Keystone token
    when Placement validates them). The custom resource classes and traits are made first."""
    nodes = list(nodes)
    started = time.monotonic()
    local = threading.local()
    clients: list[PlacementHttp] = []
    guard = threading.Lock()
    calls = [0]

    def client() -> PlacementHttp:
        found: PlacementHttp | None = getattr(local, "client", None)
        if found is None:
            found = local.client = PlacementHttp(url, token=token)
            with guard:
                clients.append(found)
        return found

    def call(method: str, path: str, body: Any = None) -> Any:
        with guard:
            calls[0] += 1
        return client().call(method, path, body)

    custom_rcs = {
        normalize_rc_name(str(n["resource_class"])) for n in nodes if n.get("resource_class")
    }
    custom_traits = {t for n in nodes for t in provider_traits(n) if t.startswith("CUSTOM_")}
    try:
        for rc in sorted(custom_rcs):
            call("PUT", f"/resource_classes/{quote(rc)}")
        for trait in sorted(custom_traits):
            call("PUT", f"/traits/{quote(trait)}")

        def one(node: Mapping[str, Any]) -> None:
            uuid = str(node["uuid"])
            path = f"/resource_providers/{uuid}"
            made = call("POST", "/resource_providers", {"uuid": uuid, "name": uuid})
            generation = made["generation"]
            if not node.get("resource_class"):
                return
            in_use = used(node)
            body = {
                "resource_provider_generation": generation,
                "inventories": inventory(node, reserve=False if in_use else None),
            }
            generation = call("PUT", f"{path}/inventories", body)["resource_provider_generation"]
            body = {
                "resource_provider_generation": generation,
                "traits": sorted(provider_traits(node)),
            }
            generation = call("PUT", f"{path}/traits", body)["resource_provider_generation"]
            if in_use:
                rc = normalize_rc_name(str(node["resource_class"]))
                allocation = {
                    "allocations": {uuid: {"resources": {rc: 1}}},
                    "project_id": str(node.get("project_id") or "project-of-" + uuid[:8]),
                    "user_id": "nova-tests",
                    "consumer_generation": None,
                    "consumer_type": "INSTANCE",
                }
                call("PUT", f"/allocations/{node['instance_uuid']}", allocation)
                generation = call("GET", path)["generation"]
                body = {"resource_provider_generation": generation, "inventories": inventory(node)}
                call("PUT", f"{path}/inventories", body)

        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(one, nodes))
    finally:
        for each in clients:
            each.close()
    return Seeded(len(nodes), calls[0], time.monotonic() - started)
