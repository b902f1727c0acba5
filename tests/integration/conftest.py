"""Live servers for the client tests (see clients.py for the clients themselves)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from tests.api.conftest import build_app
from tests.integration.clients import served
from tests.live import serving
from tests.support.keystone_api import Keystone, running_keystone
from tests.support.neutron_api import Neutron, running_neutron, sdk_connection
from tests.support.octavia_api import Octavia, running_octavia


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server on a fresh SQLite file, shared by the tests of one module."""
    with served(tmp_path_factory.mktemp("live")) as url:
        yield url


@pytest.fixture(scope="module")
def backend_server(migrated_engine: Engine) -> Iterator[str]:
    """A live server on the session's migrated database: SQLite, then PostgreSQL."""
    with serving(build_app(migrated_engine)) as url:
        yield url


@pytest.fixture(scope="session")
def keystone() -> Iterator[Keystone]:
    """One real Keystone for the session (``running_keystone()``, its default configuration:
    the projects and users of tests/support/keystone_api.py), shared by the modules that
    need one, as starting it costs some 15 s. What a module adds stays its own: its services
    and endpoints have types no other module registers (flavorsmith and the standard types
    in test_keystone_register, placement in test_placement_support), and no module deletes
    or changes the shared users and projects (test_keystone revokes only its own token and
    grants the service user the system reader role, which every module may rely on)."""
    with running_keystone() as running:
        yield running


@pytest.fixture(scope="session")
def octavia() -> Iterator[Octavia]:
    """One real Octavia 19 API for the session (``running_octavia()``: noauth, every caller an
    admin), shared by the modules that need one, as starting it costs half a minute. Each
    module names its flavor profiles, flavors and load balancers uniquely and touches no
    other's; a load balancer stays ``PENDING_CREATE`` and cannot be deleted (no worker), so
    a flavor given one stays in use for the session."""
    with running_octavia() as running:
        yield running


@pytest.fixture(scope="session")
def testing_octavia() -> Iterator[Octavia]:
    """One real Octavia 19 API for the session that takes identity from the ``X-Project-Id``
    and ``X-Roles`` headers (``running_octavia(auth="testing")``), to act as an admin or a
    project member; shared as ``octavia`` is, on the same terms."""
    with running_octavia(auth="testing") as running:
        yield running


@pytest.fixture(scope="session")
def neutron() -> Iterator[Neutron]:
    """One real Neutron 29 for the session (``running_neutron()``), shared by the modules that
    need one, as starting it costs some 15 s; a test that makes routers, flavors or service
    profiles takes ``clean_neutron``, which leaves it empty of them again."""
    with running_neutron() as running:
        yield running


@pytest.fixture
def clean_neutron(neutron: Neutron) -> Iterator[Neutron]:
    """The session's Neutron, emptied of routers, flavors and service profiles after the test
    (routers first: a flavor a router uses cannot be deleted)."""
    yield neutron
    network = sdk_connection(neutron.url).network
    for router in network.routers():
        network.delete_router(router)
    for flavor in network.flavors():
        for profile_id in flavor.service_profile_ids or []:
            network.disassociate_flavor_from_service_profile(flavor, profile_id)
        network.delete_flavor(flavor)
    for profile in network.service_profiles():
        network.delete_service_profile(profile)
