"""`flavorsmith keystone register` against a real Keystone 30 (tests/support/keystone_api.py):
the catalog entries it makes, a second run that changes nothing, an endpoint moved, the
refusals; then the real `openstack` CLI finds a served Flavorsmith through the catalog."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from flavorsmith.api.app import create_app
from flavorsmith.api.keystone import KeystoneAuth
from flavorsmith.config import Settings
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.conftest import EXAMPLES
from tests.live import serving
from tests.support.keystone_api import (
    ADMIN_PASSWORD,
    PASSWORD,
    REGION,
    Keystone,
)
from tests.support.openstack_cli import run_openstack

OPENSTACK = Path(sys.executable).parent / "openstack"


@pytest.fixture(scope="module")
def clouds(keystone: Keystone, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """clouds.yaml: ``admin`` (the system admin), ``project-a`` (project A's admin),
    ``member`` (a member of project A, no admin), ``down`` (a Keystone nobody answers on)."""

    def cloud(user: str, password: str, url: str, **scope: str) -> dict[str, object]:
        auth = {
            "auth_url": url,
            "username": user,
            "password": password,
            "user_domain_id": "default",
        }
        return {"auth": {**auth, **scope}, "region_name": REGION, "identity_api_version": 3}

    path = tmp_path_factory.mktemp("clouds") / "clouds.yaml"
    project = {"project_name": "project-a", "project_domain_id": "default"}
    path.write_text(
        yaml.safe_dump(
            {
                "clouds": {
                    "admin": cloud("admin", ADMIN_PASSWORD, keystone.url, system_scope="all"),
                    "project-a": cloud("a-admin", PASSWORD, keystone.url, **project),
                    "member": cloud("a-member", PASSWORD, keystone.url, **project),
                    "down": cloud("admin", "x", "http://127.0.0.1:9/v3", system_scope="all"),
                }
            }
        )
    )
    return path


def _env(clouds: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env["OS_CLIENT_CONFIG_FILE"] = str(clouds)
    return env


def _register(clouds: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "flavorsmith", "keystone", "register", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=60, check=False, env=_env(clouds)
    )


def _catalog(keystone: Keystone) -> dict[str, list[tuple[str, str, str, str]]]:
    """service type -> [(service name, interface, region, url)] of every endpoint."""
    conn = keystone.admin()
    try:
        services = {s.id: (s.type, s.name) for s in conn.identity.services()}
        found: dict[str, list[tuple[str, str, str, str]]] = {}
        for endpoint in conn.identity.endpoints():
            kind, name = services[endpoint.service_id]
            found.setdefault(kind, []).append(
                (name, endpoint.interface, endpoint.region_id, endpoint.url)
            )
        return found
    finally:
        conn.close()


def test_register_is_idempotent_and_moves_an_endpoint(keystone: Keystone, clouds: Path) -> None:
    first = _register(clouds, "--cloud", "admin", "--public-url", "http://fs.example:8780/")
    assert first.returncode == 0, first.stderr
    assert "created service 'flavorsmith' of type flavorsmith" in first.stdout
    catalog = _catalog(keystone)
    assert catalog["flavorsmith"] == [
        ("flavorsmith", "public", REGION, "http://fs.example:8780/v1")
    ]
    # Never a standard type unless asked.
    assert not {"compute", "baremetal", "load-balancer"} & set(catalog)

    again = _register(clouds, "--cloud", "admin", "--public-url", "http://fs.example:8780")
    assert again.returncode == 0, again.stderr
    assert "created" not in again.stdout and "updated" not in again.stdout
    assert "nothing to change" in again.stdout
    assert _catalog(keystone) == catalog

    moved = _register(clouds, "--cloud", "admin", "--public-url", "https://fs.example")
    assert moved.returncode == 0, moved.stderr
    assert (
        "updated endpoint flavorsmith (public, RegionOne): http://fs.example:8780/v1 -> "
        "https://fs.example/v1"
    ) in moved.stdout
    assert _catalog(keystone)["flavorsmith"] == [
        ("flavorsmith", "public", REGION, "https://fs.example/v1")
    ]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--cloud", "nowhere"), "cloud 'nowhere'"),
        (("--cloud", "down"), "cannot reach Keystone of cloud 'down'"),
        (("--cloud", "member"), "may not list services (Keystone answered 403)"),
    ],
)
def test_errors_are_one_line_and_exit_1(
    keystone: Keystone, clouds: Path, args: tuple[str, ...], words: str
) -> None:
    result = _register(clouds, *args, "--public-url", "http://fs.example")
    assert result.returncode == 1, result.stdout
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert words in result.stderr


def test_a_real_service_of_a_standard_type_is_not_shadowed(
    keystone: Keystone, clouds: Path
) -> None:
    conn = keystone.admin()
    octavia = conn.identity.create_service(type="load-balancer", name="octavia")
    try:
        result = _register(
            clouds, "--cloud", "admin", "--public-url", "http://x.example", "--as", "load-balancer"
        )
        assert result.returncode == 1
        assert "already has a load-balancer service: 'octavia'" in result.stderr
        # Refused before anything was written: no native endpoint at the refused URL (whether
        # an earlier test of this worker registered one or not).
        native = _catalog(keystone).get("flavorsmith", [])
        assert all(url != "http://x.example/v1" for _, _, _, url in native)
    finally:
        conn.identity.delete_service(octavia)
        conn.close()


def test_the_openstack_cli_finds_the_served_apis_through_the_catalog(
    keystone: Keystone, clouds: Path, tmp_path: Path
) -> None:
    conf = tmp_path / "keystone.conf"
    conf.write_text(keystone.authtoken_section())
    engine = make_engine(f"sqlite:///{tmp_path / 'flavorsmith.db'}")
    migrate.upgrade(engine)
    settings = Settings(
        database_url=str(engine.url), auth="keystone", keystone_config=conf, repo=EXAMPLES
    )
    app = create_app(settings, engine=engine, authenticator=KeystoneAuth.load(conf))
    try:
        with serving(app) as url:
            result = _register(
                clouds, "--cloud", "admin", "--public-url", url, "--as", "compute,baremetal"
            )
            assert result.returncode == 0, result.stderr
            catalog = _catalog(keystone)
            assert catalog["compute"] == [("flavorsmith", "public", REGION, f"{url}/compute/v2.1")]
            assert catalog["baremetal"] == [("flavorsmith", "public", REGION, f"{url}/baremetal")]
            assert "load-balancer" not in catalog

            def openstack(cloud: str, *args: str) -> object:
                env = {"PATH": str(OPENSTACK.parent), "HOME": str(Path.home())}
                env["OS_CLIENT_CONFIG_FILE"] = str(clouds)
                done = run_openstack(["--os-cloud", cloud, *args, "-f", "json"], env)
                assert done.returncode == 0, done.stderr
                return json.loads(done.stdout or "null")

            made = openstack(
                "project-a",
                "flavor",
                "create",
                "--ram",
                "1024",
                "--vcpus",
                "1",
                "--disk",
                "10",
                "through-the-catalog",
            )
            assert isinstance(made, dict) and made["name"] == "through-the-catalog"
            listed = openstack("project-a", "flavor", "list")
            assert isinstance(listed, list)
            assert "through-the-catalog" in {f["Name"] for f in listed}
            node = openstack("admin", "baremetal", "node", "create", "--driver", "fake-hardware")
            assert isinstance(node, dict)
            nodes = openstack("admin", "baremetal", "node", "list")
            assert isinstance(nodes, list)
            assert [n["uuid"] for n in nodes] == [node["uuid"]]
    finally:
        engine.dispose()
