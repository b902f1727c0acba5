"""A write transaction per test on each database, rolled back afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, Engine

from flavorsmith.db.engine import writer


@pytest.fixture
def connection(migrated_engine: Engine) -> Iterator[Connection]:
    with writer(migrated_engine).connect() as connection:
        transaction = connection.begin()
        try:
            yield connection
        finally:
            transaction.rollback()
