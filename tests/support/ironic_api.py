"""A real OpenStack Ironic 39 on loopback for integration tests: installed from PyPI into a
cache folder (its own virtual environment, pinned by ``ironic-constraints.txt``), configured
here and started as the all-in-one ``ironic`` command (API and conductor in one service).

Configuration: a fresh SQLite database per start, ``auth_strategy = noauth``, no message queue
(``rpc_transport = none``), and only the ``fake-hardware`` hardware type with its fake
interfaces, so nodes and deploy templates (bios/raid steps) work without any real hardware.

    with running_ironic() as url:      # "http://127.0.0.1:PORT"; GET / lists versions
        conn = sdk_connection(url)     # openstacksdk, no auth, /v1 as the baremetal endpoint

In-band inspection as the agent does it: ``running_ironic(agent_inspection=True)`` also enables
the ``agent`` inspect interface (unmanaged boot: fake power and management stand in for the
ramdisk's boot), and ``inspect_with_inventory(conn, node, document)`` creates the node's ports,
starts inspection and posts an inventory to ``/v1/continue_inspection`` as the agent would, so
Ironic runs its inspection hooks and stores the inventory. Extra configuration (``conf``), Python
path entries (``pythonpath``) and environment variables (``env``) reach the service process, so a
test can load its own inspection hooks into it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openstack.connection

from tests.support.cache import CACHE, cached_install
from tests.support.service import free_port, install_venv, log_tail, stop, tail

VERSION = "39.0.0"
HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "ironic-constraints.txt"
START_TIMEOUT = 120.0
LOGS = ("ironic.stdout", "ironic.log")  # what a failure shows the last lines of
INSPECTION_TIMEOUT = 60.0
CONTINUE_INSPECTION_VERSION = "1.84"  # the agent's lookup-free /v1/continue_inspection

CONF = """
[DEFAULT]
host = flavorsmith-test-ironic
auth_strategy = noauth
rpc_transport = none
debug = false
log_file = {state}/ironic.log
use_stderr = false
minimum_memory_warning_only = true
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake
enabled_console_interfaces = fake,no-console
enabled_deploy_interfaces = fake
enabled_firmware_interfaces = fake,no-firmware
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake
enabled_network_interfaces = noop
enabled_power_interfaces = fake
enabled_raid_interfaces = fake,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop
enabled_vendor_interfaces = fake,no-vendor
default_deploy_interface = fake
default_network_interface = noop
default_storage_interface = noop

[api]
host_ip = 127.0.0.1
port = {port}
api_workers = 1

[database]
connection = sqlite:///{state}/ironic.sqlite

[conductor]
automated_clean = false
sync_power_state_interval = -1
enable_mdns = false

[dhcp]
dhcp_provider = none

[oslo_concurrency]
lock_path = {state}/locks

[vnc]
enabled = false
"""

# In-band inspection by the agent: the `agent` inspect interface, unmanaged boot (fake-hardware's
# boot interface cannot boot a ramdisk, so Ironic only powers the node on and waits for the
# agent's post), and the API's own URL, without which inspection cannot start. The default hooks
# stay as they are; a test adds its own with `[inspector]hooks` in ``conf``.
AGENT_INSPECTION_CONF = """
[DEFAULT]
enabled_inspect_interfaces = agent,fake,no-inspect

[inspector]
require_managed_boot = false

[service_catalog]
endpoint_override = {url}
"""


def _install_key() -> str:
    """What the cached install was made from: the version and the pinned constraints."""
    digest = hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    return f"ironic=={VERSION} constraints-sha256={digest}"


def venv() -> Path:
    """The virtual environment with Ironic, made on first use (a few minutes) and then cached;
    the marker file is written only after a complete install. Processes that start at once
    wait for one another (``install_lock``)."""
    home = CACHE / f"ironic-{VERSION}"
    return cached_install(home, _install_key(), _install)


def _install(home: Path) -> None:
    install_venv(
        home,
        what=f"Ironic {VERSION}",
        packages=(f"ironic=={VERSION}",),
        constraints=CONSTRAINTS,
        key=_install_key(),
    )


def _ready(url: str, token: str | None = None) -> bool:
    """The API answers and the conductor has registered fake-hardware (so nodes can be made);
    ``token``: sent as X-Auth-Token (an Ironic behind Keystone)."""
    request = urllib.request.Request(f"{url}/v1/drivers")
    if token is not None:
        request.add_header("X-Auth-Token", token)
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            drivers = json.load(response).get("drivers", [])
    except (OSError, ValueError):
        return False
    return any(driver.get("name") == "fake-hardware" for driver in drivers)


def _environment(pythonpath: Sequence[Path], env: Mapping[str, str]) -> dict[str, str]:
    """The service's environment: this one, without this interpreter's PYTHONPATH (the
    service has its own virtual environment), plus ``pythonpath`` and ``env``."""
    result = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        result["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    result.update(env)
    return result


@contextmanager
def running_ironic(
    *,
    agent_inspection: bool = False,
    conf: str = "",
    pythonpath: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
    token: str | None = None,
) -> Iterator[str]:
    """Start Ironic with a fresh SQLite database on a free loopback port; yields its root URL
    (``http://127.0.0.1:PORT``; the API is under ``/v1``). Stops it and removes its state on exit.

    ``agent_inspection`` enables in-band inspection (see ``inspect_with_inventory``); ``conf``
    is more configuration (ini text, a second ``--config-file``, so its values win);
    ``pythonpath`` and ``env`` reach the service's process (and ``ironic-dbsync``); ``token``:
    what the readiness check sends as X-Auth-Token when ``conf`` puts Ironic behind Keystone
    (``auth_strategy = keystone``).
    """
    home = venv()
    with tempfile.TemporaryDirectory(prefix="flavorsmith-ironic-") as tmp:
        state = Path(tmp)
        (state / "locks").mkdir()
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        main_conf = state / "ironic.conf"
        main_conf.write_text(CONF.format(state=state, port=port))
        extra = (AGENT_INSPECTION_CONF.format(url=url) if agent_inspection else "") + conf
        conf_args = ["--config-file", str(main_conf)]
        if extra:
            (state / "extra.conf").write_text(extra)
            conf_args += ["--config-file", str(state / "extra.conf")]
        environment = _environment(pythonpath, env or {})
        schema = subprocess.run(
            [str(home / "bin" / "ironic-dbsync"), *conf_args, "create_schema"],
            capture_output=True,
            text=True,
            check=False,
            cwd=state,
            env=environment,
        )
        if schema.returncode != 0:
            raise RuntimeError(
                f"ironic-dbsync create_schema failed (exit {schema.returncode}):\n"
                f"{tail(schema.stdout + schema.stderr)}"
            )
        with (state / "ironic.stdout").open("wb") as out:
            started = time.monotonic()
            process = subprocess.Popen(
                [str(home / "bin" / "ironic"), *conf_args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=state,
                start_new_session=True,
                env=environment,
            )
            try:
                while not _ready(url, token):
                    if process.poll() is not None:
                        raise RuntimeError(
                            f"Ironic exited with {process.returncode} before answering on"
                            f" {url}\n{log_tail(state, LOGS)}"
                        )
                    if time.monotonic() - started > START_TIMEOUT:
                        raise RuntimeError(
                            f"Ironic did not answer on {url} within {START_TIMEOUT:.0f}s\n"
                            f"{log_tail(state, LOGS)}"
                        )
                    time.sleep(0.5)
                print(
                    f"ironic {VERSION} up on {url} in {time.monotonic() - started:.1f}s",
                    file=sys.stderr,
                )
                yield url
            finally:
                stop(process)


def sdk_connection(url: str) -> openstack.connection.Connection:
    """An openstacksdk connection to the Ironic at ``url`` (the root that ``running_ironic``
    yields): no auth, ``/v1`` as the baremetal endpoint. With no cloud name the SDK reads
    neither clouds.yaml nor OS_* variables; it negotiates the microversion (1.55+ for deploy
    templates) with the server."""
    return openstack.connection.Connection(
        auth_type="none",
        baremetal_endpoint_override=f"{url}/v1",
    )


def agent_post(document: Mapping[str, Any]) -> dict[str, Any]:
    """What the agent posts to ``/v1/continue_inspection`` for stored-shape inspection data
    (``{"inventory": ..., "plugin_data": ...}``, as ``GET /v1/nodes/{node}/inventory`` returns
    it): the inventory and, beside it, the collectors' plugin data. A bare inventory is posted
    as the inventory."""
    if "inventory" not in document:
        return {"inventory": dict(document)}
    return {"inventory": document["inventory"], **(document.get("plugin_data") or {})}


def with_own_macs(document: dict[str, Any], number: int) -> dict[str, Any]:
    """The document with MAC addresses of the node's own (the examples share some, and
    Ironic's ports are unique); nothing the classifier reads changes."""
    text = json.dumps(document)
    for index, interface in enumerate(document["inventory"].get("interfaces") or []):
        text = text.replace(interface["mac_address"], f"52:54:00:10:{number:02x}:{index:02x}")
    out: dict[str, Any] = json.loads(text)
    return out


def inspect_with_inventory(
    conn: openstack.connection.Connection,
    node: Any,
    document: Mapping[str, Any],
    *,
    timeout: float = INSPECTION_TIMEOUT,
) -> Any:
    """In-band inspection of ``node`` (a name, UUID or SDK node of fake-hardware, in
    ``enroll`` or ``manageable``) with ``document`` as the agent's data, on an Ironic started
    with ``agent_inspection=True``: sets its inspect interface to ``agent``, creates a port for
    each MAC address of the inventory that has none, moves it to ``manageable``, starts
    inspection, posts the data to ``/v1/continue_inspection`` (API 1.84) once the node waits
    for it, and waits until inspection ends. Returns the node as it then is (``manageable``
    after a success; ``inspect failed`` with ``last_error`` otherwise). Afterwards
    ``GET /v1/nodes/{node}/inventory`` (API 1.81) returns the stored inventory."""
    return inspect_many(conn, [(node, document)], timeout=timeout)[0]


def inspect_many(
    conn: openstack.connection.Connection,
    nodes: Sequence[tuple[Any, Mapping[str, Any]]],
    *,
    timeout: float = INSPECTION_TIMEOUT,
) -> list[Any]:
    """:func:`inspect_with_inventory` for many nodes, each step for all of them before the
    next (Ironic works on their transitions meanwhile; its SQLite takes one writer at a
    time, so the calls stay on one thread). Returns the nodes, in order, as they then are."""
    baremetal = conn.baremetal
    found = []
    bodies = []
    for node, document in nodes:
        one = baremetal.get_node(node)
        if one.inspect_interface != "agent":
            one = baremetal.patch_node(
                one, [{"op": "replace", "path": "/inspect_interface", "value": "agent"}]
            )
        body = agent_post(document)
        for interface in body["inventory"].get("interfaces") or []:
            mac = str(interface.get("mac_address") or "").lower()
            owners = {port.node_id for port in baremetal.ports(address=mac, fields=["node_uuid"])}
            if mac and not owners:
                baremetal.create_port(node_uuid=one.id, address=mac)
            elif mac and owners != {one.id}:
                raise RuntimeError(f"MAC address {mac} is a port of another node: {owners.pop()}")
        found.append(one)
        bodies.append(body)
    enrolled = [one for one in found if one.provision_state == "enroll"]
    for one in enrolled:
        baremetal.set_node_provision_state(one, "manage")
    for one in enrolled:
        _wait_for(conn, one.id, lambda state: state not in ("enroll", "verifying"), timeout)
    for one in found:
        baremetal.set_node_provision_state(one, "inspect")
    for one, body in zip(found, bodies, strict=True):
        _wait_for(conn, one.id, lambda state: state != "inspecting", timeout)
        answer = baremetal.post(
            "/continue_inspection",
            json=body,
            microversion=CONTINUE_INSPECTION_VERSION,
            raise_exc=False,
        )
        if answer.status_code != 202:
            raise RuntimeError(
                f"POST /v1/continue_inspection answered {answer.status_code}: {answer.text}"
            )
    return [
        _wait_for(conn, one.id, lambda state: state not in ("inspect wait", "inspecting"), timeout)
        for one in found
    ]


def _wait_for(
    conn: openstack.connection.Connection, node_id: str, done: Any, timeout: float
) -> Any:
    """The node once ``done(provision_state)`` holds; an error naming its state and last error
    if it does not within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        node = conn.baremetal.get_node(node_id)
        if done(node.provision_state):
            return node
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"node {node_id} still {node.provision_state!r} after {timeout:.0f}s"
                f" (last_error: {node.last_error})"
            )
        time.sleep(0.2)
