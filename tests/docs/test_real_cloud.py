"""The how-to pages whose examples need a real cloud print what they show against the real
services the integration tests use: Ironic 39 (tests/support/ironic_api.py), Nova 34's compute
API (nova_api.py) and Placement 16 (placement_api.py). A page declares the services it needs on
its first line (tests/docs/pages.py); its commands then run as the reader types them, with
``--cloud lab`` naming those services in ``$HOME/.config/openstack/clouds.yaml``.

Before each page runs, the lab is emptied and then holds what the page says it holds: a few
of the example nodes (``LAB``) enrolled in Ironic with the fake-hardware driver and their
resource classes, inspected in-band with the example inspection documents as the agent would
post them, given the operator's traits, then made available and powered on; and Placement
seeded as Nova's ironic driver reports those nodes. Nothing else is in Ironic, Nova or
Placement, except on the pages of ``IN_USE``: there Nova holds the example catalog's flavors
(synced by Flavorsmith) and one server of a flavor.

Cost: the services start once for the module, together (some 10 s when installed; the first
run on a machine installs them into ~/.cache/flavorsmith-tests, several minutes); each page
then takes 30 to 60 s (the lab made again, then the page's own commands, local ones included).
The module took 2 min 20 s to 3 min 20 s on two busy cores."""

from __future__ import annotations

import json
import shutil
import time
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES
from tests.docs.pages import Session, environment, run_page, services
from tests.support import nova_api
from tests.support.ironic_api import (
    inspect_with_inventory,
    running_ironic,
    sdk_connection,
    with_own_macs,
)
from tests.support.ironic_fleet import IronicHttp
from tests.support.placement_api import PlacementHttp, running_placement, seed
from tests.support.together import start_together

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = ["how-to/your-cloud.md", "how-to/classify.md", "how-to/sync.md"]
# Pages that declare services of their own and run in a module of their own (page -> module).
ELSEWHERE = {"how-to/network-flavors.md": "tests/docs/test_neutron_page.py"}
# Pages whose lab Nova holds the example catalog's flavors, one of them used by a server.
IN_USE = {"how-to/sync.md": "c2.diskless"}
PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"  # the server's project
CLOUD = "lab"
# Nova's test shim and Placement's noauth2 take this token as the admin's; Ironic takes none.
TOKEN = "admin:admin"
FIELDS = "uuid,name,resource_class,traits,provision_state,power_state,maintenance,instance_uuid"
# The lab's nodes: name -> (the example inspection document, the resource class and the
# traits at enrolment: the operator's, which no trait rule owns).
LAB: dict[str, tuple[str, str, list[str]]] = {
    "r7615-a01-u02": ("r7615-m1-small", "m1.small", []),
    "r7615-b01-u02": ("r7615-m1-medium", "m1.medium", []),
    "dl360-c01-u01": (
        "dl360-c2-large",
        "c2.large",
        ["CUSTOM_BM_CONFIG_BIOS_VMX_ON", "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"],
    ),
    "xe9680-g01-u06": ("xe9680-g1-8xh100", "g1.8xh100", []),
}
WAIT = 60.0


@dataclass(frozen=True)
class Services:
    """The running services, by the name a page declares: their endpoints; and the folder of
    Nova's databases (where a server is written: that Nova runs no compute service)."""

    endpoints: dict[str, str]
    nova_state: Path


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """Every service the pages declare, started once for the module."""
    wanted = {name for page in PAGES for name in services((DOCS / page).read_text())}
    makers: dict[str, AbstractContextManager[Any]] = {}
    nova_state = tmp_path_factory.mktemp("nova")
    if "ironic" in wanted:
        makers["ironic"] = running_ironic(agent_inspection=True)
    if "nova" in wanted:
        makers["nova"] = nova_api.running(nova_state)
    if "placement" in wanted:
        makers["placement"] = running_placement(workers=1, threads=2)
    with ExitStack() as stack:
        started = start_together(stack, makers)
        endpoints = {
            name: value.url if name == "placement" else str(value)
            for name, value in started.items()
        }
        yield Services(endpoints, nova_state)


def clouds_yaml(endpoints: dict[str, str], declared: list[str]) -> dict[str, Any]:
    """The ``lab`` cloud of the page's services: Ironic alone needs no auth; with Nova, the
    token its test shim takes (Ironic ignores it)."""
    cloud: dict[str, Any] = {"auth_type": "none"}
    if "nova" in declared:
        cloud = {
            "auth_type": "admin_token",
            "auth": {"endpoint": endpoints["nova"], "token": TOKEN},
            "compute_endpoint_override": endpoints["nova"],
        }
    if "ironic" in declared:
        cloud["baremetal_endpoint_override"] = f"{endpoints['ironic']}/v1"
    if "placement" in declared:
        cloud["placement_endpoint_override"] = endpoints["placement"]
    return {"clouds": {CLOUD: cloud}}


def _ironic_nodes(ironic: str) -> list[dict[str, Any]]:
    client = IronicHttp(ironic)
    try:
        return list(client.call("GET", f"/nodes?fields={FIELDS}")["nodes"])
    finally:
        client.close()


def _wait_powered_on(ironic: str) -> None:
    deadline = time.monotonic() + WAIT
    while any(n["power_state"] != "power on" for n in _ironic_nodes(ironic)):
        assert time.monotonic() < deadline, "Ironic's nodes did not power on"
        time.sleep(0.3)


def _nova(nova: str, method: str, path: str) -> Any:
    request = urllib.request.Request(
        f"{nova}{path}", method=method, headers={"X-Auth-Token": TOKEN}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
    return json.loads(raw) if raw else None


def empty(services: Services) -> None:
    """Remove what a page left: Ironic's nodes and deploy templates, Nova's servers and
    flavors, and Placement's providers; each page then starts from the same lab."""
    endpoints = services.endpoints
    if "ironic" in endpoints:
        client = IronicHttp(endpoints["ironic"])
        try:
            for node in client.call("GET", "/nodes")["nodes"]:
                client.call("DELETE", f"/nodes/{node['uuid']}")
            for template in client.call("GET", "/deploy_templates")["deploy_templates"]:
                client.call("DELETE", f"/deploy_templates/{template['uuid']}")
        finally:
            client.close()
    if "nova" in endpoints:
        nova_api.remove_servers(services.nova_state)
        for flavor in _nova(endpoints["nova"], "GET", "/flavors?is_public=None")["flavors"]:
            _nova(endpoints["nova"], "DELETE", f"/flavors/{flavor['id']}")
    if "placement" in endpoints:
        placement = PlacementHttp(endpoints["placement"])
        try:
            for provider in placement.call("GET", "/resource_providers")["resource_providers"]:
                placement.call("DELETE", f"/resource_providers/{provider['uuid']}")
        finally:
            placement.close()


def enrol(ironic: str) -> list[dict[str, Any]]:
    """The lab's nodes in Ironic, inspected, available and powered on; returns them."""
    conn = sdk_connection(ironic)
    for number, (name, (example, resource_class, traits)) in enumerate(LAB.items()):
        node = conn.baremetal.create_node(
            name=name, driver="fake-hardware", resource_class=resource_class
        )
        document = json.loads((EXAMPLES / "inspection" / f"{example}.json").read_text())
        node = inspect_with_inventory(conn, node, with_own_macs(document, number))
        assert node.provision_state == "manageable", node.last_error
        if traits:
            conn.baremetal.set_node_traits(node, traits)
        conn.baremetal.set_node_provision_state(node, "provide", wait=True, timeout=WAIT)
        conn.baremetal.set_node_power_state(node, "power on")
    _wait_powered_on(ironic)
    return _ironic_nodes(ironic)


@pytest.mark.parametrize("page", PAGES)
def test_the_page_prints_what_it_shows_against_real_services(
    running: Services, tmp_path: Path, page: str
) -> None:
    declared = services((DOCS / page).read_text())
    assert declared and set(declared) <= set(running.endpoints), declared
    endpoints = running.endpoints
    empty(running)
    if "ironic" in declared:
        nodes = enrol(endpoints["ironic"])
        if "placement" in declared:
            seed(endpoints["placement"], nodes)
    home = tmp_path / "home"
    (home / ".config" / "openstack").mkdir(parents=True)
    (home / ".config" / "openstack" / "clouds.yaml").write_text(
        json.dumps(clouds_yaml(endpoints, declared), indent=2)
    )
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    session = Session(tmp_path, environment(home))
    try:
        if page in IN_USE:
            # The lab's Nova holds the example catalog's flavors, and a server runs one.
            status, output = session.run(
                f"flavorsmith sync apply --cloud {CLOUD} --repo examples --yes"
            )
            assert status == 0, output
            nova_api.add_servers(running.nova_state, IN_USE[page], [PROJECT])
        problems = run_page(DOCS / page, session)
    finally:
        session.close()
    assert not problems, "\n\n".join(problems)


def test_every_page_that_declares_services_runs_here() -> None:
    declaring = sorted(
        str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if services(p.read_text())
    )
    assert declaring == sorted([*PAGES, *ELSEWHERE])
    for page, module in ELSEWHERE.items():
        assert Path(page).name in (ROOT / module).read_text(), f"{module} does not run {page}"
