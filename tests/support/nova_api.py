"""A real Nova 34 compute API on loopback for integration tests: installed from PyPI into a
cache folder, configured here (SQLite, no Keystone, no message queue), started with gunicorn.
It runs no compute service, so it boots nothing: ``add_servers`` writes servers as Nova stores
one that never reached a host.

Nova 34 has no noauth mode, so a small paste filter (``AUTH_SHIM``) turns an X-Auth-Token of
``user:project`` into the identity headers Nova's keystonecontext filter reads; the user
``admin`` gets the admin role. Everything else is Nova's own code.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
import uuid as uuidlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

from tests.support.cache import CACHE, install_lock
from tests.support.service import free_port

VERSION = "34.0.0"
HERE = Path(__file__).resolve().parent
SERVERS_START = datetime(2026, 1, 1)  # when the first server ``add_servers`` writes was made

AUTH_SHIM = '''
"""Test-only stand-in for keystonemiddleware: X-Auth-Token "user:project"."""
import json


class Headers:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        token = environ.get("HTTP_X_AUTH_TOKEN", "")
        if ":" not in token:
            start_response("401 Unauthorized", [("Content-Type", "application/json")])
            return [json.dumps({"error": {"code": 401, "message": "send X-Auth-Token user:project"}}).encode()]
        user, project = token.split(":", 1)
        roles = "admin,member,reader" if user == "admin" else "member,reader"
        environ.update({
            "HTTP_X_IDENTITY_STATUS": "Confirmed",
            "HTTP_X_USER_ID": user, "HTTP_X_USER_NAME": user,
            "HTTP_X_PROJECT_ID": project, "HTTP_X_PROJECT_NAME": project,
            "HTTP_X_ROLES": roles, "HTTP_X_SERVICE_CATALOG": "[]",
        })
        return self.app(environ, start_response)


def factory(global_conf, **local_conf):
    return Headers
'''

APP = """
import sys

sys.argv[1:] = []  # oslo.config would read gunicorn's arguments as Nova's
from nova.wsgi.osapi_compute import application  # noqa: E402,F401
"""

MANAGE = (
    "import sys; from nova.cmd.manage import main; sys.argv[0] = 'nova-manage'; sys.exit(main())"
)

PASTE = """
[composite:osapi_compute]
use = call:nova.api.openstack.urlmap:urlmap_factory
/: versions
/v2.1: version_v21
/v2.1/+: api_v21

[composite:api_v21]
use = call:nova.api.auth:pipeline_factory_v21
keystone = compute_req_id faultwrap sizelimit shim keystonecontext app_v21

[pipeline:versions]
pipeline = faultwrap versions_app

[pipeline:version_v21]
pipeline = compute_req_id faultwrap version_v21_app

[app:versions_app]
paste.app_factory = nova.api.openstack.compute.versions:Versions.factory

[app:version_v21_app]
paste.app_factory = nova.api.openstack.compute.versions:VersionsV2.factory

[app:app_v21]
paste.app_factory = nova.api.openstack.compute:APIRouterV21.factory

[filter:compute_req_id]
paste.filter_factory = nova.api.compute_req_id:ComputeReqIdMiddleware.factory

[filter:faultwrap]
paste.filter_factory = nova.api.openstack:FaultWrapper.factory

[filter:sizelimit]
paste.filter_factory = oslo_middleware:RequestBodySizeLimiter.factory

[filter:keystonecontext]
paste.filter_factory = nova.api.auth:NovaKeystoneContext.factory

[filter:shim]
paste.filter_factory = flavorsmith_nova_shim:factory
"""

CONF = """
[DEFAULT]
host = flavorsmith-test-nova
transport_url = fake://
state_path = {state}
log_file = {state}/nova-api.log
use_stderr = false
concurrency_backend = threading

[api_database]
connection = sqlite:///{state}/nova_api.sqlite

[database]
connection = sqlite:///{state}/nova.sqlite

[oslo_concurrency]
lock_path = {state}/locks

[keystone]
# Flavor access asks Keystone whether a project exists; with nothing listening here the
# check cannot run and Nova allows the change (it logs that it could not verify).
endpoint_override = http://127.0.0.1:9/identity/v3
"""


def venv() -> Path:
    """The virtual environment with Nova, made on first use (about a minute; processes that
    start at once wait for one another)."""
    home = CACHE / f"nova-{VERSION}"
    python = home / "bin" / "python"
    probe = [
        str(python),
        "-c",
        f"import importlib.metadata as m; assert m.version('nova') == '{VERSION}'; import gunicorn",
    ]
    if python.exists() and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return home
    with install_lock(home.name):
        if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
            return home  # another process installed it while this one waited
        shutil.rmtree(home, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        constraints = str(HERE / "nova-constraints.txt")
        subprocess.run([*pip, "-c", constraints, f"nova=={VERSION}", "gunicorn"], check=True)
    return home


@contextmanager
def running(state: Path) -> Iterator[str]:
    """Start Nova's compute API with fresh databases in ``state``; yields the /v2.1 URL."""
    home = venv()
    state.mkdir(parents=True, exist_ok=True)
    (state / "locks").mkdir(exist_ok=True)
    (state / "nova.conf").write_text(CONF.format(state=state))
    (state / "api-paste.ini").write_text(PASTE)
    (state / "flavorsmith_nova_shim.py").write_text(AUTH_SHIM)
    (state / "flavorsmith_nova_app.py").write_text(APP)
    python = str(home / "bin" / "python")
    manage = [python, "-c", MANAGE, "--config-file", str(state / "nova.conf")]
    for step in (
        ["api_db", "sync"],
        ["cell_v2", "map_cell0", "--database_connection", f"sqlite:///{state}/nova_cell0.sqlite"],
        ["db", "sync"],
    ):
        subprocess.run([*manage, *step], check=True, capture_output=True)
    port = free_port()
    env = {
        **os.environ,
        "OS_NOVA_CONFIG_DIR": str(state),
        "OS_NOVA_CONFIG_FILES": "api-paste.ini;nova.conf",
    }
    log = (state / "gunicorn.log").open("w")
    process = subprocess.Popen(
        [
            python,
            "-m",
            "gunicorn",
            "--pythonpath",
            str(state),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--threads",
            "1",
            "--timeout",
            "120",
            "flavorsmith_nova_app:application",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=state,
    )
    url = f"http://127.0.0.1:{port}/v2.1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"Nova did not start; see {state / 'gunicorn.log'}"
                    ) from None
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def add_servers(
    state: Path, flavor_id: str, projects: Sequence[str], *, start: datetime = SERVERS_START
) -> list[str]:
    """Servers of ``flavor_id`` in ``projects`` (one each, created a second apart from
    ``start``: Nova pages them newest first) in the Nova whose ``state`` folder ``running``
    was given, as Nova stores a server that never reached a host (this Nova runs no compute
    service): a row in cell0's instances and its mapping in the API database. Nova's own API
    code lists them. Returns their UUIDs."""
    api = sqlite3.connect(state / "nova_api.sqlite")
    cell0 = sqlite3.connect(state / "nova_cell0.sqlite")
    try:
        (internal,) = api.execute(
            "SELECT id FROM flavors WHERE flavorid = ?", (flavor_id,)
        ).fetchone()
        (cell,) = api.execute("SELECT id FROM cell_mappings WHERE name = 'cell0'").fetchone()
        made = []
        for number, project in enumerate(projects):
            server = str(uuidlib.uuid4())
            created = (start + timedelta(seconds=number)).strftime("%Y-%m-%d %H:%M:%S.%f")
            cell0.execute(
                "INSERT INTO instances (created_at, deleted, uuid, project_id, user_id, "
                "instance_type_id, display_name, vm_state, hidden) "
                "VALUES (?, 0, ?, ?, 'alice', ?, ?, 'error', 0)",
                (created, server, project, internal, f"{flavor_id}-{number}"),
            )
            api.execute(
                "INSERT INTO instance_mappings (created_at, instance_uuid, cell_id, project_id, "
                "user_id, queued_for_delete) VALUES (?, ?, ?, ?, 'alice', 0)",
                (created, server, cell, project),
            )
            made.append(server)
        cell0.commit()
        api.commit()
        return made
    finally:
        api.close()
        cell0.close()


def remove_servers(state: Path) -> None:
    """Every server ``add_servers`` wrote into the Nova of ``state``."""
    with sqlite3.connect(state / "nova_cell0.sqlite") as cell0:
        cell0.execute("DELETE FROM instances")
    with sqlite3.connect(state / "nova_api.sqlite") as api:
        api.execute("DELETE FROM instance_mappings")
