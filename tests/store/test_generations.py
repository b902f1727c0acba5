"""Counters under concurrent writers: no lost update, no "database is locked"."""

from __future__ import annotations

import threading
import uuid

from sqlalchemy import Engine

from flavorsmith.db.engine import writer
from flavorsmith.store.generations import bump, read, read_now


def test_bump_starts_at_one(migrated_engine: Engine) -> None:
    name = f"t-{uuid.uuid4().hex[:8]}"
    with writer(migrated_engine).begin() as connection:
        assert bump(connection, name) == 1
        assert bump(connection, name) == 2
    with migrated_engine.connect() as connection:
        assert read(connection, name) == 2
        assert read(connection, "never-bumped") == 0


def test_sixteen_concurrent_writers_lose_nothing(migrated_engine: Engine) -> None:
    name = f"t-{uuid.uuid4().hex[:8]}"
    errors: list[BaseException] = []
    engine = writer(migrated_engine)

    def work() -> None:
        try:
            for _ in range(20):
                with engine.begin() as connection:
                    bump(connection, name)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with migrated_engine.connect() as connection:
        assert read(connection, name) == 16 * 20


def test_read_now_sees_what_is_committed_and_only_that(migrated_engine: Engine) -> None:
    """The per-request check of a cache: a counter bumped in a transaction still open reads
    as before, and as bumped the moment it commits (never a stale value after a commit)."""
    name = f"t-{uuid.uuid4().hex[:8]}"
    assert read_now(migrated_engine, name) == 0
    with writer(migrated_engine).begin() as connection:
        bump(connection, name)
    assert read_now(migrated_engine, name) == 1
    with writer(migrated_engine).begin() as connection:
        bump(connection, name)
        assert read_now(migrated_engine, name) == 1
    assert read_now(migrated_engine, name) == 2
    with migrated_engine.connect() as connection:
        assert read(connection, name) == 2
