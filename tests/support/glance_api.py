"""A real OpenStack Glance 33 on loopback for the small cloud (tests/support/small_cloud.py):
installed from PyPI into a cache folder (its own virtual environment with gunicorn, pinned by
``glance-constraints.txt``), configured here and served by gunicorn on
``glance.wsgi.api:application`` (Glance 33's ``glance-api`` command refuses to run on its
own: "Standalone glance-api is no longer supported").

Configuration: a fresh SQLite database per start (``glance-manage db_sync``), the file store
in the state folder, and no Keystone: the same small paste filter as tests/support/nova_api.py
turns an X-Auth-Token of ``user:project`` into the identity headers Glance's context filter
reads (``admin`` has the admin role). Glance's stock unauthenticated pipeline gives a context
with no roles, which its default policies refuse (403 on every image call). With
``authtoken=`` (the small cloud) keystonemiddleware validates real Keystone tokens instead.

    with running_glance() as url:                 # "http://127.0.0.1:PORT"
        image = upload_image(url, "tiny")         # a public 1 KiB raw image's id
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support import nova_api
from tests.support.cache import CACHE, cached_install
from tests.support.service import answers, free_port, install_venv, log_tail, stop, tail

VERSION = "33.0.0"
HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "glance-constraints.txt"
START_TIMEOUT = 90.0
LOGS = ("gunicorn.log", "glance-api.log")  # what a failure shows the last lines of
TOKEN = "admin:admin"

CONF = """
[DEFAULT]
bind_host = 127.0.0.1
bind_port = {port}
workers = 1
worker_self_reference_url = http://127.0.0.1:{port}
enabled_backends = fs:file
log_file = {state}/glance-api.log
use_stderr = false
debug = false

[database]
connection = sqlite:///{state}/glance.sqlite

[paste_deploy]
flavor = keystone
config_file = {state}/glance-api-paste.ini

[glance_store]
default_backend = fs

[fs]
filesystem_store_datadir = {state}/images

[os_glance_staging_store]
filesystem_store_datadir = {state}/staging

[os_glance_tasks_store]
filesystem_store_datadir = {state}/tasks

[oslo_concurrency]
lock_path = {state}/locks
"""

# Glance's own api-paste.ini, its keystone pipeline with the token filter in place of
# keystonemiddleware.
PASTE = """
[composite:glance-api-keystone]
paste.composite_factory = glance.api:root_app_factory
/: api

[composite:api]
paste.composite_factory = glance.api:pipeline_factory
keystone = http_proxy_to_wsgi versionnegotiation shim context rootapp

[composite:rootapp]
paste.composite_factory = glance.api:root_app_factory
/: apiversions
/v2: apiv2app

[app:apiversions]
paste.app_factory = glance.api.versions:create_resource

[app:apiv2app]
paste.app_factory = glance.api.v2.router:API.factory

[filter:versionnegotiation]
paste.filter_factory = glance.api.middleware.version_negotiation:VersionNegotiationFilter.factory

[filter:context]
paste.filter_factory = glance.api.middleware.context:ContextMiddleware.factory

[filter:http_proxy_to_wsgi]
paste.filter_factory = oslo_middleware:HTTPProxyToWSGI.factory

[filter:shim]
paste.filter_factory = flavorsmith_nova_shim:factory

[filter:authtoken]
paste.filter_factory = keystonemiddleware.auth_token:filter_factory
delay_auth_decision = true
"""

APP = """
import sys

sys.argv[1:] = []  # oslo.config would read gunicorn's arguments as Glance's
from glance.wsgi.api import application  # noqa: E402,F401
"""

GUNICORN = """
wsgi_app = "flavorsmith_glance_app:application"
bind = "127.0.0.1:{port}"
workers = 1
threads = 2
worker_class = "gthread"
timeout = 120
graceful_timeout = 5
control_socket_disable = True
"""


def _install_key() -> str:
    digest = hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    return f"glance=={VERSION} constraints-sha256={digest}"


def venv() -> Path:
    """The virtual environment with Glance and gunicorn, made on first use (a minute or two)
    and then cached (the marker is written last, under the install lock)."""
    return cached_install(CACHE / f"glance-{VERSION}", _install_key(), _install)


def _install(home: Path) -> None:
    install_venv(
        home,
        what=f"Glance {VERSION}",
        packages=(f"glance=={VERSION}", "gunicorn"),
        constraints=CONSTRAINTS,
        key=_install_key(),
    )


def _answers(url: str, token: str) -> bool:
    return answers(f"{url}/v2/images?limit=1", {"X-Auth-Token": token})


@contextmanager
def running_glance(*, authtoken: str | None = None, token: str = TOKEN) -> Iterator[str]:
    """Start Glance with a fresh database and image store on a free loopback port; yields its
    root URL. Stops it (its process group) and removes its state on exit.

    ``authtoken``: a ``[keystone_authtoken]`` section (tests/support/keystone_api.py); Glance
    then validates tokens with that Keystone (keystonemiddleware's ``authtoken`` filter in
    the keystone pipeline, where the token filter was) and ``token`` is a Keystone token the
    readiness check sends."""
    home = venv()
    with tempfile.TemporaryDirectory(prefix="flavorsmith-glance-") as tmp:
        state = Path(tmp)
        for folder in ("images", "staging", "tasks", "locks"):
            (state / folder).mkdir()
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        conf = CONF.format(state=state, port=port)
        paste = PASTE
        if authtoken is not None:
            conf += "\n" + authtoken
            paste = paste.replace(" shim context ", " authtoken context ")
        (state / "glance-api.conf").write_text(conf)
        (state / "glance-api-paste.ini").write_text(paste)
        (state / "flavorsmith_nova_shim.py").write_text(nova_api.AUTH_SHIM)
        (state / "flavorsmith_glance_app.py").write_text(APP)
        (state / "gunicorn.conf.py").write_text(GUNICORN.format(port=port))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("OS_")}
        env["OS_GLANCE_CONFIG_DIR"] = str(state)
        env["PYTHONPATH"] = str(state)
        sync = subprocess.run(
            [
                str(home / "bin" / "glance-manage"),
                "--config-file",
                f"{state}/glance-api.conf",
                "db_sync",
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=state,
            env=env,
        )
        if sync.returncode != 0:
            raise RuntimeError(
                f"glance-manage db_sync failed (exit {sync.returncode}):\n"
                f"{tail(sync.stdout + sync.stderr)}"
            )
        with (state / "gunicorn.log").open("wb") as out:
            started = time.monotonic()
            process = subprocess.Popen(
                [str(home / "bin" / "gunicorn"), "-c", str(state / "gunicorn.conf.py")],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=state,
                start_new_session=True,
                env=env,
            )
            try:
                while not _answers(url, token):
                    if process.poll() is not None:
                        raise RuntimeError(
                            f"Glance exited with {process.returncode} before answering on"
                            f" {url}\n{log_tail(state, LOGS)}"
                        )
                    if time.monotonic() - started > START_TIMEOUT:
                        raise RuntimeError(
                            f"Glance did not answer on {url} within {START_TIMEOUT:.0f}s\n"
                            f"{log_tail(state, LOGS)}"
                        )
                    time.sleep(0.2)
                yield url
            finally:
                stop(process)


def upload_image(url: str, name: str, size: int = 1024, *, token: str = TOKEN) -> str:
    """A public raw image of ``size`` random bytes (the fake deploy never reads it), made as
    ``token`` (an admin: public images are theirs to make); its id."""
    headers = {"X-Auth-Token": token, "Content-Type": "application/json"}
    body = {
        "name": name,
        "disk_format": "raw",
        "container_format": "bare",
        "visibility": "public",
    }
    request = urllib.request.Request(
        f"{url}/v2/images", data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        image = str(json.load(response)["id"])
    upload = urllib.request.Request(
        f"{url}/v2/images/{image}/file",
        data=os.urandom(size),
        headers={"X-Auth-Token": token, "Content-Type": "application/octet-stream"},
        method="PUT",
    )
    with urllib.request.urlopen(upload, timeout=30):
        pass
    return image
