"""A stalled database is a 503, not a hang: with the PostgreSQL connections frozen (no byte
through, none refused), a request answers 503 with Retry-After within the service's bounds,
the stalled connection is dropped rather than pooled again, and once the database answers
the next request is served."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import make_url

from flavorsmith.api.app import create_app
from flavorsmith.config import Settings
from flavorsmith.db import locks, migrate
from flavorsmith.db.deadline import Timeouts
from flavorsmith.db.engine import make_engine
from flavorsmith.logs import fields_of
from flavorsmith.serving.leader import Leadership
from tests.conftest import EXAMPLES
from tests.support.stall_proxy import StallProxy, stall_proxy

NOVA = {"OpenStack-API-Version": "compute 2.1"}
SMALL = Timeouts(statement=1.0, connect=1, pool=1.0)


@pytest.fixture
def proxy(postgres_url: str) -> Iterator[StallProxy]:
    engine = make_engine(postgres_url)
    migrate.upgrade(engine)
    engine.dispose()
    url = make_url(postgres_url)
    with stall_proxy((url.host or "127.0.0.1", url.port or 5432)) as running:
        yield running


@contextmanager
def _client(proxy: StallProxy, postgres_url: str, timeouts: Timeouts) -> Iterator[TestClient]:
    url = make_url(postgres_url).set(host="127.0.0.1", port=proxy.port)
    through = url.render_as_string(hide_password=False)
    engine = make_engine(through, timeouts)
    app = create_app(Settings(database_url=through, repo=EXAMPLES), engine=engine)
    try:
        with TestClient(app) as client:
            yield client
    finally:
        engine.dispose()


def _within(seconds: float, call: Callable[[], Any]) -> tuple[Any, float]:
    """``call()``'s answer and how long it took; a failure (not a hang) past ``seconds``."""
    answer: list[Any] = []
    started = time.monotonic()
    thread = threading.Thread(target=lambda: answer.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert answer, f"still waiting after {seconds} s"
    return answer[0], time.monotonic() - started


def test_a_frozen_connection_is_a_503_then_the_service_recovers(
    proxy: StallProxy, postgres_url: str
) -> None:
    with _client(proxy, postgres_url, SMALL) as client:
        _stall_and_recover(proxy, client)


def _stall_and_recover(proxy: StallProxy, client: TestClient) -> None:
    assert client.get("/v1/capacity").status_code == 200  # a pooled connection, warm
    proxy.freeze()
    try:
        # Bound: the statement cut (1 + 2 s), then a new connection (1 s), with slack.
        for method, path, body in (
            ("GET", "/compute/v2.1/flavors", None),
            (
                "POST",
                "/compute/v2.1/flavors",
                {"flavor": {"name": "stalled", "ram": 1, "vcpus": 1, "disk": 1}},
            ),
        ):
            response, took = _within(
                20, partial(client.request, method, path, json=body, headers=NOVA)
            )
            assert response.status_code == 503, response.text
            assert response.headers["retry-after"]
            assert took < 8, took
    finally:
        proxy.thaw()
    recovered, _ = _within(20, lambda: client.get("/compute/v2.1/flavors", headers=NOVA))
    assert recovered.status_code == 200, recovered.text
    assert "stalled" not in recovered.text  # the write that met the stall left nothing


def test_the_default_bounds_answer_within_15_seconds() -> None:
    defaults = Timeouts()
    # The worst wait: a pooled connection's ping cut, then a new connection's attempt.
    assert defaults.cut_after + defaults.connect <= 15
    assert defaults.pool <= 15
    assert "statement_timeout=8000" in defaults.server_options()


def test_the_leader_loop_notices_a_stall_once_and_leads_again_after(
    proxy: StallProxy, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The leader's lease check meets the frozen link: it gives the lead up within the
    bounds (its loops stop), says so once however long the stall lasts, and leads again
    once the database answers."""
    url = make_url(postgres_url).set(host="127.0.0.1", port=proxy.port)
    engine = make_engine(url.render_as_string(hide_password=False), SMALL)
    ran = threading.Event()

    def loop(quit_loop: threading.Event) -> None:
        ran.set()
        quit_loop.wait()

    leadership = Leadership(engine, {"probe": loop}, period=0.2, holder="stall-test")
    stop = threading.Event()
    thread = threading.Thread(target=leadership.run, args=(stop,), daemon=True)
    caplog.set_level(logging.INFO, logger="flavorsmith.leader")
    thread.start()
    try:
        assert leadership.leading.wait(10)
        proxy.freeze()
        deadline = time.monotonic() + 10
        while leadership.leading.is_set():
            assert time.monotonic() < deadline, "still leading on a stalled database"
            time.sleep(0.05)
        time.sleep(3)  # more periods meet the stall: no more lines
        lost = [fields_of(r) for r in caplog.records if "lost" in fields_of(r)]
        errors = [fields_of(r) for r in caplog.records if "error" in fields_of(r)]
        assert len(lost) == 1, lost  # the lead given up, said once
        assert len(errors) <= 1, errors  # and the stall itself at most once more
        proxy.thaw()
        assert leadership.leading.wait(15), "not leading again once the database answered"
    finally:
        stop.set()
        proxy.thaw()
        thread.join(timeout=30)
        engine.dispose()


def test_sqlite_waits_for_a_writer_as_long_as_configured(tmp_path: Path) -> None:
    """SQLite's wait for another writer's lock is the service's --db-busy-timeout."""
    for timeouts, expected in ((Timeouts(busy=0.5), 500), (None, 30_000)):
        engine = make_engine(f"sqlite:///{tmp_path / 'busy.db'}", timeouts)
        try:
            with engine.connect() as connection:
                assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == expected
        finally:
            engine.dispose()


def test_waiting_for_the_sync_lock_is_not_cut_and_the_block_is_no_idle_transaction(
    postgres_url: str,
) -> None:
    """A process waiting for another's sync lock waits past the statement deadline (that
    wait is wanted), and holding it is no open transaction the server would end."""
    engine = make_engine(postgres_url, SMALL)
    other = make_engine(postgres_url)
    got: list[float] = []
    try:
        with locks.exclusive(other, "stall-test", wait=True):

            def wait_for_it() -> None:
                started = time.monotonic()
                with locks.exclusive(engine, "stall-test", wait=True) as held:
                    assert held
                    got.append(time.monotonic() - started)

            waiter = threading.Thread(target=wait_for_it, daemon=True)
            waiter.start()
            time.sleep(SMALL.cut_after + 1.5)  # past the deadline and the server's timeout
        waiter.join(10)
        assert got and got[0] >= SMALL.cut_after, got
        with locks.exclusive(engine, "stall-test", wait=True), engine.connect() as look:
            states = look.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND state = 'idle in transaction' AND query LIKE '%advisory_lock%'"
                )
            ).scalar_one()
            assert states == 0
    finally:
        engine.dispose()
        other.dispose()
