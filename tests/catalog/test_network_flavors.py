"""Network flavor files (hardware/network-flavors/) as ``validate`` reports them: the service
type one of those allowed, named in the error; metainfo text; each service profile listed once
in a file; each flavor named once across files; every error at its file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from flavorsmith.catalog.model import NetworkFlavorDef, NetworkServiceProfile
from flavorsmith.catalog.repo import Repository
from tests.conftest import EXAMPLES, Invoke
from tests.support.catalogs import RULES

FOLDER = "hardware/network-flavors"
MODELINE = "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/network-flavor.schema.json\n"
HA = "neutron.services.l3_router.service_providers.ha.HaDriver"
SINGLE = "neutron.services.l3_router.service_providers.single_node.SingleNodeDriver"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the example catalog, as the working directory."""
    root = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    monkeypatch.chdir(root)
    return root


def rewrite(repo: Path, name: str, text: str) -> str:
    path = repo / FOLDER / f"{name}.yaml"
    path.write_text(MODELINE + text)
    return f"{FOLDER}/{name}.yaml"


def test_the_example_flavors_load_as_written() -> None:
    catalog = Repository(EXAMPLES, RULES).load().catalog
    by_name = {f.name: f for f in catalog.network_flavors}
    assert sorted(by_name) == ["router.ha", "router.standard"]
    assert by_name["router.ha"] == NetworkFlavorDef(
        "router.ha",
        "L3_ROUTER_NAT",
        (
            NetworkServiceProfile(
                HA, "", "HA routers, active on one L3 agent and standby on another", True
            ),
        ),
        "A router kept on two network nodes by VRRP; a failed node is taken over in seconds",
        True,
    )


def test_a_service_type_not_allowed_is_named_with_the_allowed_ones(cli: Invoke, repo: Path) -> None:
    shown = rewrite(
        repo,
        "router.ha",
        f"name: router.ha\nservice_type: L3_ROUTER\nservice_profiles:\n  - driver: {HA}\n",
    )
    result = cli("validate")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{shown}:3:15: service_type: 'L3_ROUTER' is not allowed; expected one of "
        "'L3_ROUTER_NAT' (did you mean 'L3_ROUTER_NAT'?)",
        "35 files: 1 error, 0 warnings",
    ]


@pytest.mark.parametrize("service_type", ["CORE", "FLAVORS"])
def test_types_neutron_accepts_but_no_flavor_is_for_are_refused(
    cli: Invoke, repo: Path, service_type: str
) -> None:
    """Neutron 29 takes any loaded plugin's type as a flavor's (CORE and FLAVORS too, with the
    router and flavors plugins), though nothing would use such a flavor."""
    shown = rewrite(
        repo,
        "router.ha",
        f"name: router.ha\nservice_type: {service_type}\nservice_profiles:\n  - driver: {HA}\n",
    )
    assert cli("validate").stdout.splitlines()[0] == (
        f"{shown}:3:15: service_type: {service_type!r} is not allowed; expected one of "
        "'L3_ROUTER_NAT'"
    )


def test_metainfo_is_text_and_a_driver_a_python_path(cli: Invoke, repo: Path) -> None:
    shown = rewrite(
        repo,
        "router.ha",
        "name: router.ha\nservice_type: L3_ROUTER_NAT\nservice_profiles:\n"
        "  - driver: ha driver\n    metainfo: {vrrp: 3}\n",
    )
    lines = cli("validate").stdout.splitlines()
    assert lines[0].startswith(f"{shown}:5:13: service_profiles[0].driver: 'ha driver' must match")
    assert lines[1] == (
        f"{shown}:6:15: service_profiles[0].metainfo: expected a string, found a mapping"
    )
    assert lines[2] == "35 files: 2 errors, 0 warnings"


def test_a_profile_listed_twice_in_a_file(cli: Invoke, repo: Path) -> None:
    shown = rewrite(
        repo,
        "router.ha",
        "name: router.ha\nservice_type: L3_ROUTER_NAT\nservice_profiles:\n"
        f"  - driver: {HA}\n  - driver: {SINGLE}\n  - driver: {HA}\n    enabled: false\n",
    )
    assert cli("validate").stdout.splitlines() == [
        f"{shown}:7:13: service_profiles[2].driver: service profile {HA} is listed twice "
        "(first at line 5): list each driver and metainfo once",
        "35 files: 1 error, 0 warnings",
    ]


def test_a_flavor_named_twice_across_files(cli: Invoke, repo: Path) -> None:
    shown = rewrite(
        repo,
        "router.standard",
        f"name: router.ha\nservice_type: L3_ROUTER_NAT\nservice_profiles:\n  - driver: {SINGLE}\n",
    )
    lines = cli("validate").stdout.splitlines()
    assert f"{shown}:2:7: name: warning: file name should be 'router.ha.yaml'" in lines[0]
    assert lines[1] == (
        f"{shown}:2:7: name: network flavor router.ha is already defined at "
        f"{FOLDER}/router.ha.yaml:2: Neutron would hold two flavors of this name, and a "
        "router created --flavor NAME could not say which"
    )
    assert lines[2] == "35 files: 1 error, 1 warning"


def test_the_schema_command_prints_the_kind(cli: Invoke) -> None:
    result = cli("schema", "network-flavor")
    assert result.exit_code == 0
    assert '"enum": ["L3_ROUTER_NAT"]' in result.stdout.replace("\n", "").replace("  ", "")
