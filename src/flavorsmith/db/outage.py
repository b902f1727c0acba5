"""Is an error the database being out of reach (down, refusing connections, the connection
lost, busy past its timeout) rather than a fault in a request? The API answers the first
with 503 and Retry-After, and the pool reconnects by itself once the database is back."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import psycopg
from sqlalchemy import exc as sa

# The drivers' own classes, for an error raised outside SQLAlchemy's wrapping.
_DRIVER_OUTAGES = (
    psycopg.OperationalError,
    psycopg.InterfaceError,
    sqlite3.OperationalError,
    sqlite3.InterfaceError,
)
# SQLAlchemy's: the DBAPI's operational and interface errors wrapped, a checked-out
# connection found dead, and a pool that had no connection to give within its timeout.
_OUTAGES = (
    sa.OperationalError,
    sa.InterfaceError,
    sa.DisconnectionError,
    sa.TimeoutError,
)


def outage(error: BaseException) -> str | None:
    """One line saying why the database is out of reach when ``error`` (or what caused it)
    says so; None for any other error."""
    for link in _chain(error):
        if isinstance(link, sa.DBAPIError) and link.connection_invalidated:
            return _line(link.orig or link)
        if isinstance(link, _OUTAGES):
            orig = link.orig if isinstance(link, sa.DBAPIError) else None
            return _line(orig or link)
        if isinstance(link, _DRIVER_OUTAGES):
            return _line(link)
    return None


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error`` and what caused it or was being handled when it was raised."""
    seen: set[int] = set()
    pending = [error]
    while pending and len(seen) < 20:
        link = pending.pop(0)
        if id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        pending.extend(e for e in (link.__cause__, link.__context__) if e is not None)


def _line(error: BaseException) -> str:
    """The driver's message on one line (psycopg's span several), shortened."""
    text = " ".join(str(error).split()) or type(error).__name__
    text = text.split(" (Background on this error")[0]
    return text if len(text) <= 300 else text[:300] + "…"
