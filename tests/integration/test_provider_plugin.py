"""A third-party provider driver, installed as its own distribution, found through the
``flavorsmith.provider_drivers`` entry point group and served through the API; and a provider
that is configured but not installed, reported and left out while the API serves.

The example package (tests/plugins/flavorsmith_example_provider) is installed into the
test venv for this module and uninstalled after it. It is built from a copy, so the build
leaves no build/ or egg-info in the source tree. pip builds it with the venv's own setuptools
(--no-build-isolation) when that setuptools can make wheels by itself (70.1 and later, or with
the ``wheel`` package); the setuptools that ``venv`` seeds on Python 3.11 (65.5, no ``wheel``)
cannot, and then pip builds it in an isolated environment with setuptools from PyPI."""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith import entry_points
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.providers.registry import GROUP
from tests.api.conftest import build_app
from tests.support.cache import install_lock

PLUGIN = Path(__file__).resolve().parent.parent / "plugins" / "flavorsmith_example_provider"
DISTRIBUTION = "flavorsmith-example-provider"
MODULE = "flavorsmith_example_provider"
PROVIDERS = "noop:No-op,example:An example third-party provider"
SIZE = "The size of the example service: small or large."
LB = "/load-balancer/v2/lbaas"


def venv_setuptools_builds_wheels() -> bool:
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return False
    found = re.match(r"(\d+)\.(\d+)", version)
    if found and (int(found[1]), int(found[2])) >= (70, 1):
        return True  # bdist_wheel is part of setuptools from 70.1 on
    return importlib.util.find_spec("wheel") is not None


def pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "--no-input",
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PIP_ROOT_USER_ACTION": "ignore"},
    )


def forget_plugin() -> None:
    importlib.invalidate_caches()
    entry_points.forget()  # the installed packages are read once per process
    sys.modules.pop(MODULE, None)


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # The plugin goes into the virtual environment every test process shares: when this
    # module's tests are split between two of them, the second waits until the first has
    # uninstalled it again, so neither sees the other's install or uninstall.
    with install_lock(
        f"example-provider-in-{hashlib.sha256(sys.prefix.encode()).hexdigest()[:12]}"
    ):
        # A leftover from an interrupted run would hide whether this install works.
        pip("uninstall", "-y", "-q", DISTRIBUTION)
        source = tmp_path_factory.mktemp("plugin") / PLUGIN.name
        shutil.copytree(PLUGIN, source)
        isolation = ["--no-build-isolation"] if venv_setuptools_builds_wheels() else []
        result = pip("install", "--no-deps", *isolation, "-q", str(source))
        assert result.returncode == 0, result.stderr
        forget_plugin()
        try:
            yield DISTRIBUTION
        finally:
            removed = pip("uninstall", "-y", "-q", DISTRIBUTION)
            forget_plugin()
            assert removed.returncode == 0, removed.stderr


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('plugin-db') / 'plugin.db'}")
    migrate.upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def client(installed_plugin: str, engine: Engine) -> Iterator[TestClient]:
    with TestClient(build_app(engine, providers=PROVIDERS)) as client:
        yield client


def test_the_plugin_is_an_installed_distribution(installed_plugin: str) -> None:
    dist = importlib.metadata.distribution(installed_plugin)
    assert dist.version == "0.1.0"
    ours = [e for e in dist.entry_points if e.group == GROUP]
    assert [(e.name, e.value) for e in ours] == [
        ("example", "flavorsmith_example_provider:ExampleDriver")
    ]
    assert "example" in importlib.metadata.entry_points(group=GROUP).names


def test_the_plugin_provider_is_listed_with_its_capability(client: TestClient) -> None:
    assert client.app.state.services.providers.failures == {}  # type: ignore[attr-defined]
    providers = client.get(f"{LB}/providers")
    assert providers.status_code == 200, providers.text
    assert providers.json() == {
        "providers": [
            {"name": "noop", "description": "No-op"},
            {"name": "example", "description": "An example third-party provider"},
        ]
    }
    for root in ("/load-balancer/v2/lbaas", "/load-balancer/v2.0/lbaas"):
        capabilities = client.get(f"{root}/providers/example/flavor_capabilities")
        assert capabilities.status_code == 200, capabilities.text
        assert capabilities.json() == {
            "flavor_capabilities": [{"name": "size", "description": SIZE}]
        }
    # The default providers were not asked for, so they are not offered.
    baremetal = client.get(f"{LB}/providers/baremetal/flavor_capabilities")
    assert baremetal.status_code == 400
    assert "Provider 'baremetal' is not enabled." in baremetal.text


def create_profile(client: TestClient, name: str, flavor_data: str) -> Any:
    return client.post(
        f"{LB}/flavorprofiles",
        json={
            "flavorprofile": {"name": name, "provider_name": "example", "flavor_data": flavor_data}
        },
    )


def test_the_plugin_validates_flavor_profiles(client: TestClient) -> None:
    large = create_profile(client, "example-large", '{"size": "large"}')
    assert large.status_code == 201, large.text
    profile = large.json()["flavorprofile"]
    assert {k: v for k, v in profile.items() if k != "id"} == {
        "name": "example-large",
        "provider_name": "example",
        "flavor_data": '{"size": "large"}',
    }

    huge = create_profile(client, "example-huge", '{"size": "huge"}')
    assert huge.status_code == 400, huge.text
    assert (
        "Provider 'example' does not support a requested option: size 'huge' is not "
        "supported; use small or large"
    ) in huge.text
    other = create_profile(client, "example-colour", '{"size": "small", "colour": "red"}')
    assert other.status_code == 400, other.text
    assert "unknown flavor data key 'colour'" in other.text
    names = [p["name"] for p in client.get(f"{LB}/flavorprofiles").json()["flavorprofiles"]]
    assert "example-large" in names
    assert "example-huge" not in names and "example-colour" not in names

    # An unused profile's data is re-validated by the plugin when it changes.
    changed = client.put(
        f"{LB}/flavorprofiles/{profile['id']}",
        json={"flavorprofile": {"flavor_data": '{"size": "medium"}'}},
    )
    assert changed.status_code == 400, changed.text
    assert "size 'medium' is not supported" in changed.text


def test_a_flavor_over_the_plugin_resolves(client: TestClient) -> None:
    created = create_profile(client, "example-small", '{"size": "small"}')
    assert created.status_code == 201, created.text
    profile_id = created.json()["flavorprofile"]["id"]
    made = client.post(
        f"{LB}/flavors",
        json={
            "flavor": {
                "name": "example.small",
                "description": "A small example",
                "flavor_profile_id": profile_id,
            }
        },
    )
    assert made.status_code == 201, made.text
    flavor = made.json()["flavor"]
    assert (flavor["enabled"], flavor["flavor_profile_id"]) == (True, profile_id)

    resolved = client.post(f"/v1/service-flavors/{flavor['id']}/resolve")
    assert resolved.status_code == 200, resolved.text
    assert resolved.json() == {
        "flavor_id": flavor["id"],
        "flavor_name": "example.small",
        "flavor_profile_id": profile_id,
        "provider": "example",
        "flavor_data": {"size": "small"},
        # The example driver has no expand_flavor: consumers get the data as it is.
        "metadata": {"size": "small"},
    }
    checked = client.post(
        f"/v1/service-flavors/{flavor['id']}/resolve", json={"provider": "example"}
    )
    assert checked.status_code == 200, checked.text
    wrong = client.post(f"/v1/service-flavors/{flavor['id']}/resolve", json={"provider": "noop"})
    assert wrong.status_code == 400, wrong.text
    assert "its profile uses provider 'example'" in wrong.text


def test_a_configured_provider_that_is_not_installed_is_reported(
    installed_plugin: str, engine: Engine
) -> None:
    app = build_app(engine, providers=f"{PROVIDERS},ghost:A provider nobody installed")
    registry = app.state.services.providers
    assert list(registry.providers) == ["noop", "example"]
    assert registry.failures == {
        "ghost": f"no driver named 'ghost' is installed (entry point group {GROUP})"
    }
    with TestClient(app) as client:
        listed = client.get(f"{LB}/providers")
        assert listed.status_code == 200, listed.text
        assert [p["name"] for p in listed.json()["providers"]] == ["noop", "example"]
        capabilities = client.get(f"{LB}/providers/ghost/flavor_capabilities")
        assert capabilities.status_code == 400
        assert "Provider 'ghost' is not enabled." in capabilities.text
        refused = client.post(
            f"{LB}/flavorprofiles",
            json={"flavorprofile": {"name": "g", "provider_name": "ghost", "flavor_data": "{}"}},
        )
        assert refused.status_code == 400
        assert "Provider 'ghost' is not enabled." in refused.text
        served = create_profile(client, "example-beside-a-ghost", '{"size": "small"}')
        assert served.status_code == 201, served.text
