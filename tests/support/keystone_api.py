"""A real OpenStack Keystone 30 on loopback for integration tests: installed from PyPI into a
cache folder (its own virtual environment with gunicorn, pinned by ``keystone-constraints.txt``;
about 200 MB, half a minute the first time), configured here and served by gunicorn on
``keystone.wsgi.api:application``.

Configuration: a fresh SQLite database per start, fernet tokens and credentials (keys made by
``keystone-manage fernet_setup`` / ``credential_setup``), ``keystone-manage bootstrap`` (user
``admin``, admin of project ``admin`` and of the system, the admin/manager/member/reader/service
roles, the identity endpoint), and cheap password hashing so creating users is fast. Then
``populate`` creates the people a policy test needs:

- projects ``project-a`` and ``project-b``; in A the users ``a-admin``, ``a-member`` and
  ``a-reader`` (with that role), in B ``b-member`` and ``b-admin``;
- ``sys-admin`` and ``sys-reader``: the admin and reader roles on the system (Ironic's rules);
- ``flavorsmith``: the service user in project ``service`` with the ``service`` role, as
  keystonemiddleware's ``[keystone_authtoken]`` needs to validate tokens.

Every password is ``PASSWORD``.

    with running_keystone() as keystone:          # keystone.url: "http://127.0.0.1:PORT/v3"
        token = keystone.token("a-reader")        # project-scoped to the user's project
        system = keystone.token("sys-admin", system=True)

gunicorn reads its settings from ``gunicorn.conf.py`` in the state folder (``wsgi_app``,
``bind``, workers) and gets no command-line arguments: Keystone parses ``sys.argv`` with
oslo.config on import and would refuse gunicorn's.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import openstack.connection
from openstack.identity.v3._proxy import Proxy as IdentityV3

from tests.support.cache import CACHE, cached_install
from tests.support.service import answers, free_port, install_venv, log_tail, stop, tail

VERSION = "30.0.0"
HERE = Path(__file__).resolve().parent
CONSTRAINTS = HERE / "keystone-constraints.txt"
START_TIMEOUT = 90.0
LOGS = ("gunicorn.log", "keystone.log")  # what a failure shows the last lines of
PASSWORD = "secret-for-tests"
ADMIN_PASSWORD = "admin-for-tests"
REGION = "RegionOne"

CONF = """
[DEFAULT]
log_file = {state}/keystone.log
use_stderr = false
debug = false

[database]
connection = sqlite:///{state}/keystone.sqlite

[token]
provider = fernet
expiration = 3600

[fernet_tokens]
key_repository = {state}/fernet-keys

[fernet_receipts]
key_repository = {state}/fernet-keys

[credential]
key_repository = {state}/credential-keys

[identity]
# Test users only: bcrypt's cheapest setting keeps user creation and login fast.
password_hash_rounds = 4

[oslo_policy]
enforce_scope = true
enforce_new_defaults = true
"""

GUNICORN = """
wsgi_app = "keystone.wsgi.api:application"
bind = "127.0.0.1:{port}"
workers = 1
threads = {threads}
timeout = 60
"""

# (user, project or None for the system, role)
PEOPLE = (
    ("a-admin", "project-a", "admin"),
    ("a-member", "project-a", "member"),
    ("a-reader", "project-a", "reader"),
    ("b-admin", "project-b", "admin"),
    ("b-member", "project-b", "member"),
    ("sys-admin", None, "admin"),
    ("sys-reader", None, "reader"),
    ("flavorsmith", "service", "service"),
)
PROJECTS = ("project-a", "project-b", "service")


def _install_key() -> str:
    digest = hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    return f"keystone=={VERSION} constraints-sha256={digest}"


def venv() -> Path:
    """The virtual environment with Keystone and gunicorn, made on first use and then cached;
    the marker file is written only after a complete install. Processes that start at once
    wait for one another (``install_lock``)."""
    home = CACHE / f"keystone-{VERSION}"
    return cached_install(home, _install_key(), _install)


def _install(home: Path) -> None:
    install_venv(
        home,
        what=f"Keystone {VERSION}",
        packages=(f"keystone=={VERSION}", "gunicorn"),
        constraints=CONSTRAINTS,
        key=_install_key(),
    )


@dataclass
class Keystone:
    """A running Keystone: its URL, the ids of what ``populate`` made, and token helpers."""

    url: str  # the identity endpoint, http://127.0.0.1:PORT/v3
    state: Path
    projects: dict[str, str] = field(default_factory=dict)  # name -> id
    users: dict[str, str] = field(default_factory=dict)  # name -> id

    def admin(self) -> openstack.connection.Connection:
        """openstacksdk as the bootstrap admin, system-scoped (Keystone's own rules want it)."""
        return openstack.connection.Connection(
            auth_url=self.url,
            username="admin",
            password=ADMIN_PASSWORD,
            user_domain_id="default",
            system_scope="all",
            region_name=REGION,
        )

    def project_of(self, user: str) -> str | None:
        return next((p for u, p, _ in PEOPLE if u == user), None)

    def token(self, user: str, *, system: bool = False, project: str | None = None) -> str:
        """A fresh token for ``user`` (password auth): system-scoped, or scoped to ``project``
        (by default the user's own)."""
        scope: dict[str, object]
        if system:
            scope = {"system": {"all": True}}
        else:
            name = project or self.project_of(user) or "admin"
            scope = {"project": {"name": name, "domain": {"id": "default"}}}
        password = ADMIN_PASSWORD if user == "admin" else PASSWORD
        body = {
            "auth": {
                "identity": {
                    "methods": ["password"],
                    "password": {
                        "user": {"name": user, "domain": {"id": "default"}, "password": password}
                    },
                },
                "scope": scope,
            }
        }
        request = urllib.request.Request(
            f"{self.url}/auth/tokens",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return str(response.headers["X-Subject-Token"])

    def add_endpoint(self, service_type: str, name: str, url: str) -> None:
        """A service of ``service_type`` in the catalog with its public endpoint ``url`` in
        region ``REGION`` (``keystone-manage bootstrap`` made the identity one)."""
        conn = self.admin()
        try:
            identity = conn.identity
            assert isinstance(identity, IdentityV3), identity  # Keystone 30 serves only v3
            service = identity.create_service(type=service_type, name=name)
            identity.create_endpoint(
                service_id=service.id, interface="public", url=url, region_id=REGION
            )
        finally:
            conn.close()

    def revoke(self, token: str) -> None:
        """Revoke ``token`` (DELETE /v3/auth/tokens, with the token as its own authority)."""
        request = urllib.request.Request(
            f"{self.url}/auth/tokens",
            headers={"X-Auth-Token": token, "X-Subject-Token": token},
            method="DELETE",
        )
        with urllib.request.urlopen(request, timeout=30):
            pass

    def authtoken_section(self, *, cache_seconds: int = 300, username: str = "flavorsmith") -> str:
        """keystonemiddleware's ``[keystone_authtoken]`` for a service validating tokens here
        as the service user ``username`` (``flavorsmith`` by default; the service role in
        project ``service``)."""
        return (
            "[keystone_authtoken]\n"
            f"www_authenticate_uri = {self.url}\n"
            f"auth_url = {self.url}\n"
            "auth_type = password\n"
            f"username = {username}\n"
            f"password = {PASSWORD}\n"
            "user_domain_id = default\n"
            "project_name = service\n"
            "project_domain_id = default\n"
            f"token_cache_time = {cache_seconds}\n"
            "service_token_roles_required = true\n"
            "interface = public\n"
        )


def populate(
    keystone: Keystone,
    people: Sequence[tuple[str, str | None, str]] = PEOPLE,
    projects: Sequence[str] = PROJECTS,
) -> None:
    """The projects, users and role assignments of ``people`` (by default PEOPLE); a user
    named twice is made once and gets each role."""
    conn = keystone.admin()
    identity = conn.identity
    assert isinstance(identity, IdentityV3), identity  # Keystone 30 serves only v3
    roles = {role.name: role.id for role in identity.roles()}
    for name in projects:
        project = identity.create_project(name=name, domain_id="default")
        keystone.projects[name] = project.id
    keystone.projects["admin"] = identity.find_project("admin", False, domain_id="default").id
    for user_name, project_name, role in people:
        if user_name not in keystone.users:
            user = identity.create_user(name=user_name, password=PASSWORD, domain_id="default")
            keystone.users[user_name] = user.id
        user_id = keystone.users[user_name]
        if project_name is None:
            identity.assign_system_role_to_user(user=user_id, role=roles[role], system="all")
        else:
            identity.assign_project_role_to_user(
                keystone.projects[project_name], user_id, roles[role]
            )
    keystone.users["admin"] = identity.find_user("admin", False, domain_id="default").id
    conn.close()


def _manage(home: Path, state: Path, *args: str) -> None:
    command = [str(home / "bin" / "keystone-manage"), "--config-file", str(state / "keystone.conf")]
    result = subprocess.run(
        [*command, *args], capture_output=True, text=True, check=False, cwd=state
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"keystone-manage {args[0]} failed (exit {result.returncode}):\n"
            f"{tail(result.stdout + result.stderr)}"
        )


def _answers(url: str) -> bool:
    return answers(url)


@contextmanager
def running_keystone(
    people: Sequence[tuple[str, str | None, str]] = PEOPLE,
    projects: Sequence[str] = PROJECTS,
    *,
    threads: int = 4,
) -> Iterator[Keystone]:
    """Start Keystone with a fresh database on a free loopback port, populated with
    ``people`` in ``projects`` (see ``populate``); stops it and removes its state on exit.
    ``threads``: gunicorn's. Keystone 30 writes the user's ``last_active_at`` at every
    password login, and two logins at once on SQLite can fail with "database is locked" (a
    500); with one thread, requests wait for one another instead."""
    home = venv()
    with tempfile.TemporaryDirectory(prefix="flavorsmith-keystone-") as tmp:
        state = Path(tmp)
        (state / "fernet-keys").mkdir()
        (state / "credential-keys").mkdir()
        port = free_port()
        url = f"http://127.0.0.1:{port}/v3"
        (state / "keystone.conf").write_text(CONF.format(state=state))
        (state / "gunicorn.conf.py").write_text(GUNICORN.format(port=port, threads=threads))
        user = subprocess.run(["id", "-un"], capture_output=True, text=True, check=True)
        group = subprocess.run(["id", "-gn"], capture_output=True, text=True, check=True)
        owner = ["--keystone-user", user.stdout.strip(), "--keystone-group", group.stdout.strip()]
        _manage(home, state, "db_sync")
        _manage(home, state, "fernet_setup", *owner)
        _manage(home, state, "credential_setup", *owner)
        _manage(
            home,
            state,
            "bootstrap",
            "--bootstrap-password",
            ADMIN_PASSWORD,
            "--bootstrap-public-url",
            url,
            "--bootstrap-region-id",
            REGION,
        )
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("OS_")}
        env["OS_KEYSTONE_CONFIG_FILES"] = str(state / "keystone.conf")
        with (state / "gunicorn.log").open("wb") as out:
            started = time.monotonic()
            process = subprocess.Popen(
                [str(home / "bin" / "gunicorn")],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=state,
                start_new_session=True,
                env=env,
            )
            try:
                while not _answers(url):
                    if process.poll() is not None:
                        raise RuntimeError(
                            f"Keystone exited with {process.returncode} before answering on "
                            f"{url}\n{log_tail(state, LOGS)}"
                        )
                    if time.monotonic() - started > START_TIMEOUT:
                        raise RuntimeError(
                            f"Keystone did not answer on {url} within {START_TIMEOUT:.0f}s\n"
                            f"{log_tail(state, LOGS)}"
                        )
                    time.sleep(0.3)
                keystone = Keystone(url, state)
                populate(keystone, people, projects)
                print(
                    f"keystone {VERSION} up on {url} in {time.monotonic() - started:.1f}s",
                    file=sys.stderr,
                )
                yield keystone
            finally:
                stop(process)
