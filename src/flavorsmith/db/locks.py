"""Named locks held across processes that share a database: a PostgreSQL advisory lock, or a
lock file beside the SQLite database (an in-memory database needs none)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url


def key(name: str) -> int:
    """The advisory lock number of ``name`` (the same in every process)."""
    return int.from_bytes(hashlib.sha256(f"flavorsmith-{name}".encode()).digest()[:7], "big")


@contextlib.contextmanager
def exclusive(engine: Engine, name: str, *, wait: bool) -> Iterator[bool]:
    """Yield True when this process holds the lock ``name`` (False: another process does)."""
    url = make_url(str(engine.url))
    if url.get_backend_name() == "postgresql":
        number = key(name)
        with engine.connect() as connection:
            if wait:
                connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": number})
                got = True
            else:
                got = bool(
                    connection.execute(
                        text("SELECT pg_try_advisory_lock(:k)"), {"k": number}
                    ).scalar()
                )
            try:
                yield got
            finally:
                if got:
                    connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": number})
                    connection.commit()
        return
    database = url.database or ""
    path = Path(f"{database}.{name}.lock") if database not in ("", ":memory:") else None
    if path is None:
        yield True
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            got = True
        except BlockingIOError:
            got = False
        try:
            yield got
        finally:
            if got:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
