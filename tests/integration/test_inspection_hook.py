"""The ``flavorsmith`` inspection hook inside a real Ironic 39: the built wheel, installed next
to Ironic (on its process's Python path), is loaded through its ``ironic.inspection.hooks``
entry point when ``[inspector]hooks`` lists it; inventories posted to
``/v1/continue_inspection`` as the agent does set the resource class and the owned traits.

The wheel goes in with ``--no-deps``; the two runtime dependencies Ironic's environment lacks
(ruamel.yaml, os-resource-classes, at the project's pinned versions) are installed once into a
cache folder beside Ironic's."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openstack.connection
import pytest

from flavorsmith.classify.classification import classify
from flavorsmith.classify.inspection import parse
from tests.conftest import EXAMPLES, ROOT
from tests.integration.test_wheel_install import build_wheel
from tests.support.cache import CACHE, install_lock
from tests.support.catalogs import repository
from tests.support.ironic_api import (
    inspect_with_inventory,
    running_ironic,
    sdk_connection,
    venv,
)

pytestmark = pytest.mark.slow
# What the hook imports that Ironic 39's environment does not have.
MISSING_IN_IRONIC = (
    "ruamel.yaml",
    "os-resource-classes",
    "fastjsonschema",
    "google-re2",
    "rapidfuzz",
)


def _pins() -> list[str]:
    """The project's pinned versions (constraints.txt) of what Ironic lacks."""
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    pins = [line.strip() for line in lines if line.split("==")[0].strip() in MISSING_IN_IRONIC]
    assert len(pins) == len(MISSING_IN_IRONIC), pins
    return pins


def hook_dependencies(pip: Path) -> Path:
    """The hook's dependencies Ironic lacks, installed once (keyed by their pins)."""
    pins = _pins()
    key = hashlib.sha256("\n".join(pins).encode()).hexdigest()[:16]
    home = CACHE / f"ironic-hook-deps-{key}"
    marker = home / ".flavorsmith-installed"
    if marker.exists():
        return home
    with install_lock(home.name):
        if marker.exists():
            return home  # another process installed them while this one waited
        shutil.rmtree(home, ignore_errors=True)
        install = [str(pip), "install", "-q", "--disable-pip-version-check", "--no-deps"]
        subprocess.run([*install, "--target", str(home), *pins], check=True, timeout=600)
        marker.write_text("\n".join(pins) + "\n")
    return home


@dataclass
class Site:
    url: str
    conn: openstack.connection.Connection
    catalog: Path  # the repository root the hook reads ([flavorsmith]catalog)
    log: Path  # Ironic's log file


@pytest.fixture(scope="module")
def hook_path(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Ironic's extra Python path: the built wheel (installed without its dependencies) and
    the dependencies Ironic lacks."""
    pip = venv() / "bin" / "pip"
    wheel = build_wheel(tmp_path_factory.mktemp("wheel"))
    target = tmp_path_factory.mktemp("hook") / "site-packages"
    install = [str(pip), "install", "-q", "--disable-pip-version-check", "--no-deps"]
    subprocess.run([*install, "--target", str(target), str(wheel)], check=True, timeout=300)
    return [target, hook_dependencies(pip)]


def copy_catalog(tmp: Path) -> Path:
    shutil.copytree(EXAMPLES / "hardware", tmp / "catalog" / "hardware")
    return tmp / "catalog"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, hook_path: list[Path]) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("ironic")
    catalog = copy_catalog(tmp)
    log = tmp / "ironic.log"
    conf = (
        f"[DEFAULT]\nlog_file = {log}\n"
        "[inspector]\nhooks = $default_hooks,flavorsmith\n"
        f"[flavorsmith]\ncatalog = {catalog}\n"
    )
    with running_ironic(agent_inspection=True, conf=conf, pythonpath=hook_path) as url:
        yield Site(url, sdk_connection(url), catalog, log)


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "inspection" / name).read_text())
    return data


def expected_traits(site: Site, name: str) -> set[str]:
    """The traits the CLI's classification gives this example with the hook's catalog."""
    result = classify(parse(example(name)), repository(site.catalog).load().catalog)
    return set(result.traits.result)


def inspect(site: Site, node: Any, name: str) -> Any:
    done = inspect_with_inventory(site.conn, node, example(name))
    assert (done.provision_state, done.last_error) == ("manageable", None)
    return done


def traits_of(site: Site, node: Any) -> set[str]:
    return set(site.conn.baremetal.get_node(node.id).traits or [])


@pytest.mark.parametrize(
    ("name", "resource_class"),
    [
        ("r7615-m1-medium.json", "m1.medium"),
        ("dl360-c2-large.json", "c2.large"),
        ("xe9680-g1-8xh100.json", "g1.8xh100"),
    ],
)
def test_inspection_sets_resource_class_and_traits(
    site: Site, name: str, resource_class: str
) -> None:
    node = site.conn.baremetal.create_node(driver="fake-hardware", name=name.removesuffix(".json"))
    assert node.resource_class is None
    try:
        done = inspect(site, node, name)
        assert done.resource_class == resource_class
        assert traits_of(site, node) == expected_traits(site, name)
    finally:
        site.conn.baremetal.delete_node(node)  # and its ports: other examples share their MACs


def test_owned_traits_only_and_no_resource_class_without_a_match(site: Site) -> None:
    baremetal = site.conn.baremetal
    node = baremetal.create_node(driver="fake-hardware", name="r7615", resource_class="baremetal")
    # A trait no rule file owns (kept) and one the GPU rules own that this node lacks (removed).
    baremetal.add_node_trait(node, "CUSTOM_RACK_A01")
    baremetal.add_node_trait(node, "CUSTOM_GPU")
    done = inspect(site, node, "r7615-m1-small.json")
    assert done.resource_class == "m1.small"
    traits = traits_of(site, node)
    assert traits == expected_traits(site, "r7615-m1-small.json") | {"CUSTOM_RACK_A01"}
    assert {"CUSTOM_NVME", "CUSTOM_NIC_MELLANOX_CX5"} <= traits and "CUSTOM_GPU" not in traits

    # The same node again, its drives now behind a RAID controller: no device type matches, so
    # the resource class stays; the owned traits follow the new inventory.
    done = inspect(site, node, "near-miss-r7615-raid1.json")
    assert done.resource_class == "m1.small"
    traits = traits_of(site, node)
    assert "CUSTOM_NVME" not in traits and "CUSTOM_RACK_A01" in traits
    assert traits == expected_traits(site, "near-miss-r7615-raid1.json") | {"CUSTOM_RACK_A01"}
    log = site.log.read_text()
    assert f"node {node.id} classified (catalog {site.catalog}): traits removed" in log
    assert "resource class m1.small left as it is: no device type matches" in log


def test_catalog_changes_are_picked_up_and_errors_never_fail_inspection(site: Site) -> None:
    baremetal = site.conn.baremetal
    node = baremetal.create_node(driver="fake-hardware", name="dl360-again")
    inspect(site, node, "dl360-c2-diskless.json")
    assert "CUSTOM_NIC_INTEL_E810" in traits_of(site, node)

    nics = site.catalog / "hardware" / "trait-rules" / "nics.yaml"
    good = nics.read_text()
    nics.write_text(good.replace("CUSTOM_NIC_INTEL_E810", "CUSTOM_NIC_E810"))
    inspect(site, node, "dl360-c2-diskless.json")  # no restart: the hook sees the new file
    traits = traits_of(site, node)
    assert "CUSTOM_NIC_E810" in traits and "CUSTOM_NIC_INTEL_E810" not in traits

    # A broken catalog: inspection still succeeds, the node is left as it is, the log says why.
    nics.write_text(good.replace("prefix: CUSTOM_NIC", "prefix: 7"))
    baremetal.patch_node(node, [{"op": "replace", "path": "/resource_class", "value": "old"}])
    done = inspect(site, node, "dl360-c2-diskless.json")
    assert done.resource_class == "old" and traits_of(site, node) == traits
    log = site.log.read_text()
    assert (
        f"the catalog at {site.catalog} has 1 error(s); it is not used until they are fixed" in log
    )
    assert f"node {node.id}: left as it is: the catalog at {site.catalog} has 1 error(s)" in log
    nics.write_text(good)


def test_the_catalog_can_come_from_the_environment(tmp_path: Path, hook_path: list[Path]) -> None:
    catalog = copy_catalog(tmp_path)
    conf = "[inspector]\nhooks = $default_hooks,flavorsmith\n"
    env = {"FLAVORSMITH_CATALOG": str(catalog)}
    with running_ironic(agent_inspection=True, conf=conf, pythonpath=hook_path, env=env) as url:
        conn = sdk_connection(url)
        node = conn.baremetal.create_node(driver="fake-hardware", name="from-env")
        done = inspect_with_inventory(conn, node, example("r7615-m1-medium.json"))
        assert (done.provision_state, done.resource_class) == ("manageable", "m1.medium")
