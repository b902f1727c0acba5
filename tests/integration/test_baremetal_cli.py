"""A smoke set through the real `openstack baremetal` CLI against a live server (SQLite)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.live import serving

OPENSTACK = shutil.which("openstack", path=str(Path(sys.executable).parent))


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('cli') / 'cli.db'}")
    migrate.upgrade(engine)
    with serving(build_app(engine)) as url:
        yield f"{url}/baremetal"
    engine.dispose()


def openstack(endpoint: str, *args: str) -> str:
    assert OPENSTACK is not None, "the openstack CLI is part of the test extras"
    result = subprocess.run(
        [OPENSTACK, "--os-auth-type", "none", "--os-endpoint", endpoint, "baremetal", *args],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": str(Path(sys.executable).parent), "HOME": str(Path.home())},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_openstack_baremetal_smoke(endpoint: str) -> None:
    created = json.loads(
        openstack(
            endpoint,
            "node",
            "create",
            "--driver",
            "fake-hardware",
            "--name",
            "smoke-1",
            "--resource-class",
            "m1.small",
            "-f",
            "json",
        )
    )
    assert created["name"] == "smoke-1" and created["resource_class"] == "m1.small"
    assert openstack(endpoint, "node", "add", "trait", "smoke-1", "CUSTOM_NICX", "CUSTOM_GPU") == (
        "Added trait CUSTOM_NICX\nAdded trait CUSTOM_GPU\n"
    )
    assert (
        openstack(endpoint, "node", "remove", "trait", "smoke-1", "CUSTOM_GPU")
        == "Removed trait CUSTOM_GPU\n"
    )
    traits = json.loads(openstack(endpoint, "node", "trait", "list", "smoke-1", "-f", "json"))
    assert traits == [{"traits": "CUSTOM_NICX"}]
    listed = json.loads(
        openstack(endpoint, "node", "list", "--fields", "uuid", "traits", "-f", "json")
    )
    assert {"uuid": created["uuid"], "traits": ["CUSTOM_NICX"]} in listed
    validation = json.loads(openstack(endpoint, "node", "validate", "smoke-1", "-f", "json"))
    assert {"Interface": "deploy", "Result": True, "Reason": ""} in validation
