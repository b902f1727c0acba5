"""Migrations walk up and down on SQLite and PostgreSQL, and match the models exactly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, select, text

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.db.models import Base, Node
from tests.database import throwaway_postgres


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_engine(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Engine]:
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path}/walk.db")
        yield engine
        engine.dispose()
        return
    with throwaway_postgres() as url:
        engine = make_engine(url)
        yield engine
        engine.dispose()


def test_walk_every_migration_up_and_down(empty_engine: Engine) -> None:
    script = ScriptDirectory.from_config(migrate.alembic_config())
    revisions = [r.revision for r in reversed(list(script.walk_revisions()))]
    assert migrate.current(empty_engine) is None
    for revision in revisions:
        migrate.upgrade(empty_engine, revision)
        assert migrate.current(empty_engine) == revision
    assert migrate.is_current(empty_engine)
    for revision in reversed(revisions[:-1]):
        migrate.downgrade(empty_engine, revision)
        assert migrate.current(empty_engine) == revision
    migrate.downgrade(empty_engine, "base")
    assert set(inspect(empty_engine).get_table_names()) <= {"alembic_version"}


def test_models_and_migrations_do_not_drift(empty_engine: Engine) -> None:
    migrate.upgrade(empty_engine)
    with empty_engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_ironic_node_fields_fill_existing_rows(empty_engine: Engine) -> None:
    """0007 adds Ironic's data fields to nodes already stored, with Ironic's defaults."""
    migrate.upgrade(empty_engine, "0006")
    with empty_engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO nodes (uuid, driver, provision_state, maintenance, properties, "
                "instance_info, driver_info, extra, created_at) VALUES ('u-1', 'ipmi', "
                "'available', false, '{}', '{}', '{}', '{}', CURRENT_TIMESTAMP)"
            )
        )
    migrate.upgrade(empty_engine)
    with empty_engine.connect() as connection:
        row = connection.execute(select(Node).where(Node.uuid == "u-1")).one()
    assert (row.conductor_group, row.retired, row.protected, row.disable_power_off) == (
        "",
        False,
        False,
        False,
    )
    assert row.network_data == {} and row.owner is None and row.boot_interface is None
    indexes = {i["name"] for i in inspect(empty_engine).get_indexes("nodes")}
    assert {"ix_nodes_owner", "ix_nodes_lessee", "ix_nodes_shard"} <= indexes
    migrate.downgrade(empty_engine, "0006")
    assert "owner" not in {c["name"] for c in inspect(empty_engine).get_columns("nodes")}


def test_sqlite_is_in_wal_mode_with_a_busy_timeout(tmp_path: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/wal.db")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    engine.dispose()
