"""Live servers for the client tests (see clients.py for the clients themselves)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from tests.api.conftest import build_app
from tests.integration.clients import served
from tests.live import serving


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
