"""The client tests' shared set-up: a live server on a fresh SQLite file, the real `openstack`
CLI (without Keystone: --os-endpoint, or a clouds.yaml with endpoint overrides) and
openstacksdk connections without Keystone."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openstack

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.live import serving
from tests.support.openstack_cli import run_openstack

BIN = Path(sys.executable).parent
OPENSTACK = shutil.which("openstack", path=str(BIN))
CLOUD = "flavorsmith"
# Where each API family lives on the server, by openstacksdk's service name.
ENDPOINTS = {
    "compute": "/compute/v2.1",
    "baremetal": "/baremetal",
    "load_balancer": "/load-balancer",
}


def unique(tag: str) -> str:
    """A name no other test (or earlier run on a shared database) uses."""
    return f"{tag}-{uuid.uuid4().hex[:10]}"


def unique_trait(tag: str) -> str:
    """A unique custom trait name, e.g. for deploy templates."""
    return f"CUSTOM_{tag}_{uuid.uuid4().hex[:10].upper()}"


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """A live server (serving the example catalog) on a fresh SQLite database in `folder`."""
    engine = make_engine(f"sqlite:///{folder / 'flavorsmith.db'}")
    migrate.upgrade(engine)
    try:
        with serving(build_app(engine)) as url:
            yield url
    finally:
        engine.dispose()


def sdk(server: str, *services: str) -> Any:
    """An openstacksdk connection to the named services of `server`, with no Keystone.

    The baremetal proxy does not retry a 409 or 503: by default it retries five times with
    a growing pause (some 15 s), as a node Ironic has locked frees itself; this server's
    conflicts are answers that a retry never changes, and the error raised is the same."""
    overrides: dict[str, Any] = {
        f"{service}_endpoint_override": server + ENDPOINTS[service] for service in services
    }
    return openstack.connect(
        auth_type="none",
        load_yaml_config=False,
        load_envvars=False,
        baremetal_status_code_retries=0,
        **overrides,
    )


def clouds_yaml(folder: Path, server: str, *services: str) -> Path:
    """A clouds.yaml for the CLI with one cloud, CLOUD, reaching the named services of `server`."""
    config = folder / "clouds.yaml"
    overrides = "".join(
        f"    {service}_endpoint_override: {server}{ENDPOINTS[service]}\n" for service in services
    )
    # The CLI insists on an identity v3 endpoint even when it never calls it.
    config.write_text(
        f"clouds:\n  {CLOUD}:\n    auth_type: none\n{overrides}"
        '    identity_api_version: "3"\n'
        f"    identity_endpoint_override: {server}{ENDPOINTS['compute']}\n"
    )
    return config


@dataclass(frozen=True)
class OpenStack:
    """The real `openstack` CLI, with the arguments every call shares put first."""

    common: tuple[str, ...]
    config: Path | None = None

    @classmethod
    def noauth(cls, server: str, service: str, *command: str) -> OpenStack:
        """`openstack --os-auth-type none --os-endpoint <service's endpoint> <command> ...`"""
        endpoint = server + ENDPOINTS[service]
        return cls(("--os-auth-type", "none", "--os-endpoint", endpoint, *command))

    @classmethod
    def cloud(cls, config: Path, *command: str) -> OpenStack:
        """`openstack --os-cloud CLOUD <command> ...` with `config` as the clouds.yaml."""
        return cls(("--os-cloud", CLOUD, *command), config)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert OPENSTACK is not None, "the openstack CLI is part of the test extras"
        env = {"PATH": str(BIN), "HOME": str(Path.home())}
        if self.config is not None:
            env["OS_CLIENT_CONFIG_FILE"] = str(self.config)
        return run_openstack([*self.common, *args], env)

    def ok(self, *args: str) -> str:
        """The output of a command that must succeed."""
        result = self.run(*args)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def json(self, *args: str) -> Any:
        """The parsed output of a command that must succeed, asked for as JSON."""
        return json.loads(self.ok(*args, "-f", "json"))

    def error(self, *args: str) -> str:
        """The error output of a command that must fail and print nothing else."""
        result = self.run(*args)
        assert result.returncode != 0, result.stdout
        assert result.stdout == ""
        return result.stderr
