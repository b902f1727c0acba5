"""Migrations walk up and down on SQLite and PostgreSQL, and match the models exactly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, select, text
from sqlalchemy.exc import IntegrityError

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


NIL = "00000000-0000-0000-0000-000000000000"


def test_placeholder_profile_and_null_flavor_names(empty_engine: Engine) -> None:
    """0010 adds Octavia's nil placeholder profile, and flavor names may be null: NULLs
    never clash on the unique name; downgrading names them after their ids."""
    migrate.upgrade(empty_engine, "0010")
    insert_flavor = text(
        "INSERT INTO service_flavors (id, name, enabled, flavor_profile_id) "
        "VALUES (:id, :name, true, :profile)"
    )
    with empty_engine.begin() as connection:
        placeholder = connection.execute(
            text("SELECT id, name, provider_name, flavor_data FROM flavor_profiles")
        ).all()
        assert [tuple(r) for r in placeholder] == [(NIL, "DELETED-PLACEHOLDER", "DELETED", "{}")]
        for ident in ("f-1", "f-2"):
            connection.execute(insert_flavor, {"id": ident, "name": None, "profile": NIL})
    with pytest.raises(IntegrityError), empty_engine.begin() as connection:
        for ident in ("f-3", "f-4"):
            connection.execute(insert_flavor, {"id": ident, "name": "same", "profile": NIL})
    migrate.downgrade(empty_engine, "0009")
    with empty_engine.connect() as connection:
        names = connection.execute(text("SELECT id, name FROM service_flavors ORDER BY id")).all()
        assert [tuple(r) for r in names] == [("f-1", "f-1"), ("f-2", "f-2")]
        # Used by flavors, the placeholder stays (an ordinary profile of the older schema).
        assert connection.execute(text("SELECT id FROM flavor_profiles")).scalars().all() == [NIL]
    with empty_engine.begin() as connection:
        connection.execute(text("DELETE FROM service_flavors"))
    migrate.upgrade(empty_engine, "0010")  # the placeholder was left in place
    migrate.downgrade(empty_engine, "0009")
    with empty_engine.connect() as connection:
        assert connection.execute(text("SELECT id FROM flavor_profiles")).all() == []


def test_sqlite_is_in_wal_mode_with_a_busy_timeout(tmp_path: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/wal.db")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    engine.dispose()
