"""load-balancer-flavor and network-flavor validate/add/list/show/delete on the example catalog:
the verbs every catalog kind has, with these kinds' columns and fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Invoke

KUST = Path("hardware/base/kustomization.yaml")
LB = Path("hardware/load-balancer-flavors")
NET = Path("hardware/network-flavors")

LB_LIST = """\
+------------------------+----------+--------------------------------------+---------------+
| name                   | provider | flavor_data                          | flavors       |
+------------------------+----------+--------------------------------------+---------------+
| amphora-active-standby | amphora  | loadbalancer_topology=ACTIVE_STANDBY | lb.ha         |
|                        |          | compute_flavor=amphora.medium        | lb.ha.trial   |
|                        |          | amp_image_tag=amphora                |               |
| amphora-single         | amphora  | loadbalancer_topology=SINGLE         | lb.standalone |
|                        |          | compute_flavor=amphora.small         |               |
|                        |          | amp_image_tag=amphora                |               |
+------------------------+----------+--------------------------------------+---------------+
"""

LB_SHOW = """\
+-----------------------+------------------------------------------------------------------------------------------------+
| Field                 | Value                                                                                          |
+-----------------------+------------------------------------------------------------------------------------------------+
| name                  | amphora-active-standby                                                                         |
| octavia_name          | flavorsmith:amphora-active-standby                                                             |
| provider              | amphora                                                                                        |
| provider_capabilities | loadbalancer_topology                                                                          |
|                       | compute_flavor                                                                                 |
|                       | amp_image_tag                                                                                  |
|                       | sriov_vip                                                                                      |
|                       | allow_member_sriov                                                                             |
| flavor_data           | loadbalancer_topology=ACTIVE_STANDBY                                                           |
|                       | compute_flavor=amphora.medium                                                                  |
|                       | amp_image_tag=amphora                                                                          |
| flavors               | lb.ha: Two amphorae, active and standby; a failed amphora is replaced in seconds               |
|                       | lb.ha.trial (disabled): As lb.ha, offered to the projects trying it before it is opened to all |
| file                  | hardware/load-balancer-flavors/amphora-active-standby.yaml                                     |
+-----------------------+------------------------------------------------------------------------------------------------+
"""

NET_LIST = """\
+-----------------+---------+---------------+------------------------------------------------------------------------------------+
| name            | enabled | service_type  | description                                                                        |
+-----------------+---------+---------------+------------------------------------------------------------------------------------+
| router.ha       | True    | L3_ROUTER_NAT | A router kept on two network nodes by VRRP; a failed node is taken over in seconds |
| router.standard | True    | L3_ROUTER_NAT | A router on one network node; it moves to another if that node fails               |
+-----------------+---------+---------------+------------------------------------------------------------------------------------+
"""

NET_SHOW = """\
+------------------+---------------------------------------------------------------------------------------------------------------------+
| Field            | Value                                                                                                               |
+------------------+---------------------------------------------------------------------------------------------------------------------+
| name             | router.ha                                                                                                           |
| description      | A router kept on two network nodes by VRRP; a failed node is taken over in seconds                                  |
| service_type     | L3_ROUTER_NAT                                                                                                       |
| enabled          | True                                                                                                                |
| service_profiles | neutron.services.l3_router.service_providers.ha.HaDriver: HA routers, active on one L3 agent and standby on another |
| file             | hardware/network-flavors/router.ha.yaml                                                                             |
+------------------+---------------------------------------------------------------------------------------------------------------------+
"""

NEW_PROFILE = """\
name: amphora-sriov
provider: amphora
flavor_data:
  loadbalancer_topology: SINGLE
  compute_flavor: amphora.small
  sriov_vip: true
flavors:
  - name: lb.sriov
    description: One amphora, its VIP on an SR-IOV port
"""

NEW_NETWORK_FLAVOR = """\
name: router.dvr
description: A router distributed over the compute nodes
service_type: L3_ROUTER_NAT
service_profiles:
  - driver: neutron.services.l3_router.service_providers.dvr.DvrDriver
    description: Distributed routers
"""


def test_load_balancer_flavor_list_and_show(example_repo: Path, cli: Invoke) -> None:
    listed = cli("load-balancer-flavor", "list")
    assert (listed.exit_code, listed.stdout, listed.stderr) == (0, LB_LIST, "")
    shown = cli("load-balancer-flavor", "show", "amphora-active-standby")
    assert (shown.exit_code, shown.stdout, shown.stderr) == (0, LB_SHOW, "")
    # JSON keeps the flavor data a mapping, and each flavor's own fields.
    assert json.loads(cli("load-balancer-flavor", "list", "-f", "json").stdout)[1] == {
        "name": "amphora-single",
        "provider": "amphora",
        "flavor_data": {
            "loadbalancer_topology": "SINGLE",
            "compute_flavor": "amphora.small",
            "amp_image_tag": "amphora",
        },
        "flavors": ["lb.standalone"],
    }
    record = json.loads(cli("load-balancer-flavor", "show", "amphora-single", "-f", "json").stdout)
    assert record["flavors"] == [
        {
            "name": "lb.standalone",
            "description": "One amphora; for development and test load balancers",
            "enabled": True,
        }
    ]
    picked = cli(
        "load-balancer-flavor", "show", "amphora-single", "-c", "flavor_data.compute_flavor"
    )
    assert picked.stdout.splitlines()[3] == "| flavor_data.compute_flavor | amphora.small |"


def test_network_flavor_list_and_show(example_repo: Path, cli: Invoke) -> None:
    listed = cli("network-flavor", "list")
    assert (listed.exit_code, listed.stdout, listed.stderr) == (0, NET_LIST, "")
    shown = cli("network-flavor", "show", "router.ha")
    assert (shown.exit_code, shown.stdout, shown.stderr) == (0, NET_SHOW, "")
    assert cli("network-flavor", "list", "-f", "value", "-c", "name", "-c", "enabled").stdout == (
        "router.ha True\nrouter.standard True\n"
    )


def test_a_disabled_profile_and_its_metainfo_are_shown(example_repo: Path, cli: Invoke) -> None:
    (NET / "router.ha.yaml").write_text(
        "name: router.ha\nservice_type: L3_ROUTER_NAT\nenabled: false\nservice_profiles:\n"
        "  - driver: neutron.services.l3_router.service_providers.ha.HaDriver\n"
        '    metainfo: "{}"\n    enabled: false\n'
    )
    shown = cli("network-flavor", "show", "router.ha", "-c", "enabled", "-c", "service_profiles")
    cells = [line.split("|")[2].strip() for line in shown.stdout.splitlines()[3:5]]
    assert cells == [
        "False",
        "neutron.services.l3_router.service_providers.ha.HaDriver (metainfo '{}') (disabled)",
    ]


@pytest.mark.parametrize(
    ("kind", "name"),
    [("load-balancer-flavor", "lb.ha"), ("network-flavor", "router.dvr")],
)
def test_show_and_delete_of_an_unknown_name(
    example_repo: Path, cli: Invoke, kind: str, name: str
) -> None:
    """A load-balancer-flavor file is named by its profile, not by a flavor on it."""
    shown = cli(kind, "show", name)
    assert (shown.exit_code, shown.stdout, shown.stderr) == (
        1,
        "",
        f"error: no {kind} named {name!r}\n",
    )
    deleted = cli(kind, "delete", name)
    assert deleted.exit_code == 1
    assert deleted.stderr.startswith(f"error: no {kind} named {name!r} in hardware/")


@pytest.mark.parametrize(
    ("kind", "folder", "text", "name"),
    [
        ("load-balancer-flavor", LB, NEW_PROFILE, "amphora-sriov"),
        ("network-flavor", NET, NEW_NETWORK_FLAVOR, "router.dvr"),
    ],
)
def test_add_list_and_delete(
    example_repo: Path,
    tmp_path: Path,
    cli: Invoke,
    kind: str,
    folder: Path,
    text: str,
    name: str,
) -> None:
    before = KUST.read_text()
    source = tmp_path / "new.yaml"
    source.write_text(text)
    added = cli(kind, "add", str(source))
    assert (added.exit_code, added.stdout, added.stderr) == (
        0,
        f"added {folder}/{name}.yaml\nlisted in {KUST}\n",
        "",
    )
    assert (folder / f"{name}.yaml").read_text() == (
        f"# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/{kind}.schema.json\n"
        + text
    )
    line = f"  - {name}.yaml=../{folder.name}/{name}.yaml\n"
    assert KUST.read_text().replace(line, "") == before
    assert name in cli(kind, "list", "-f", "value", "-c", "name").stdout.split()
    assert cli("validate").stdout == "36 files: 0 errors, 0 warnings\n"
    again = cli(kind, "add", str(source))
    assert (again.exit_code, again.stderr) == (
        1,
        f"error: {_noun(kind)} {name!r} already exists at {folder}/{name}.yaml; "
        "use --force to replace it\n",
    )
    deleted = cli(kind, "delete", name)
    assert (deleted.exit_code, deleted.stdout) == (0, f"deleted {folder}/{name}.yaml\n")
    assert KUST.read_text() == before
    assert not (folder / f"{name}.yaml").exists()
    assert cli("validate").stdout == "35 files: 0 errors, 0 warnings\n"


def _noun(kind: str) -> str:
    return {"load-balancer-flavor": "load-balancer flavor profile"}.get(kind, "network flavor")


def test_add_refuses_a_flavor_another_profile_holds(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    before = KUST.read_text()
    source = tmp_path / "clash.yaml"
    source.write_text(
        "name: amphora-clash\nprovider: amphora\nflavor_data:\n  loadbalancer_topology: SINGLE\n"
        "flavors:\n  - name: lb.ha\n"
    )
    result = cli("load-balancer-flavor", "add", str(source))
    assert result.exit_code == 1
    assert result.stderr == (
        f"{source}:6:11: flavors[0].name: load-balancer flavor lb.ha is already defined at "
        "hardware/load-balancer-flavors/amphora-active-standby.yaml:9: Octavia keeps one "
        "flavor per name\n"
        "1 error, 0 warnings\n"
        f"error: {source} was not added\n"
    )
    assert not (LB / "amphora-clash.yaml").exists() and KUST.read_text() == before


def test_validate_files_of_each_kind(example_repo: Path, cli: Invoke) -> None:
    for kind, folder in (("load-balancer-flavor", LB), ("network-flavor", NET)):
        files = sorted(str(p) for p in folder.glob("*.yaml"))
        result = cli(kind, "validate", *files)
        assert (result.exit_code, result.stdout) == (0, "2 files: 0 errors, 0 warnings\n")
    (LB / "amphora-single.yaml").write_text(
        (LB / "amphora-single.yaml").read_text().replace("provider: amphora", "provider: ovn")
    )
    result = cli("load-balancer-flavor", "validate", str(LB / "amphora-single.yaml"))
    assert result.exit_code == 1
    assert result.stdout == (
        "hardware/load-balancer-flavors/amphora-single.yaml:3:11: provider: provider 'ovn' is "
        "not enabled: there is no load-balancer-providers/ovn.yaml with its flavor capabilities; "
        "enabled: amphora (save Octavia's answer to GET /v2/lbaas/providers/ovn/"
        "flavor_capabilities there)\n"
        "1 file: 1 error, 0 warnings\n"
    )
    wrong_kind = cli("network-flavor", "validate", str(LB / "amphora-active-standby.yaml"))
    assert wrong_kind.exit_code == 1
    assert (
        "hardware/load-balancer-flavors/amphora-active-standby.yaml:2:1: service_type: "
        "required key is missing" in wrong_kind.stdout
    )
