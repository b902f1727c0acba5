"""Real databases for tests: SQLite files and a throwaway PostgreSQL database per session."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PG_ADMIN_URL = os.environ.get(
    "FLAVORSMITH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
PG_HELP = (
    "PostgreSQL is required by the test suite and did not answer at {url} ({error}).\n"
    "Start it (Debian: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start),\n"
    "or point FLAVORSMITH_TEST_PG_URL at a server where the user may create databases."
)


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """Create a uniquely named database, yield its URL, drop it afterwards."""
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"flavorsmith_test_{uuid.uuid4().hex[:12]}"
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        admin.dispose()
        error = " ".join(str(exc).split())[:200]
        pytest.exit(PG_HELP.format(url=PG_ADMIN_URL, error=error), returncode=3)
    try:
        yield make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
