"""Leader election on the database, in one process with real locks (PostgreSQL advisory locks
on their own connections, flock beside a SQLite file): one holder at a time, a successor
once the holder lets go, and followers that show the leader's stored mirror state."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.db import locks, migrate
from flavorsmith.db.engine import Engine, make_engine
from flavorsmith.serving.leader import Leadership
from flavorsmith.sync.mirror import Mirror

PERIOD = 0.2
UUID = "8f7c2a8e-1b7d-4a53-9d1c-0c6e2f3f7a11"


@pytest.fixture
def engines(backend: str) -> Iterator[tuple[Engine, Engine]]:
    """Two engines on one database, as two processes would have."""
    first, second = make_engine(backend), make_engine(backend)
    yield first, second
    first.dispose()
    second.dispose()


def test_one_holder_at_a_time(engines: tuple[Engine, Engine]) -> None:
    first, second = engines
    held = locks.hold(first, "test-hold")
    assert held is not None and held.alive()
    assert locks.hold(second, "test-hold") is None
    assert locks.hold(second, "another-name") is not None
    held.release()
    held.release()  # idempotent
    successor = locks.hold(second, "test-hold")
    assert successor is not None
    successor.release()


def test_the_loops_run_in_the_leader_only_and_move_when_it_stops(
    engines: tuple[Engine, Engine],
) -> None:
    ran: list[str] = []

    def loop(name: str) -> Any:
        def run(stop: threading.Event) -> None:
            while not stop.is_set():
                ran.append(name)
                stop.wait(PERIOD / 4)

        return run

    stops = {"a": threading.Event(), "b": threading.Event()}
    leaders = {
        name: Leadership(engine, {"sync": loop(name)}, period=PERIOD, holder=name)
        for name, engine in zip(("a", "b"), engines, strict=True)
    }
    threads = {
        name: threading.Thread(target=leaders[name].run, args=(stops[name],), daemon=True)
        for name in leaders
    }
    for thread in threads.values():
        thread.start()
    try:
        deadline = time.monotonic() + 10
        while not any(x.leading.is_set() for x in leaders.values()):
            assert time.monotonic() < deadline, "nobody leads"
            time.sleep(0.01)
        time.sleep(3 * PERIOD)
        leading = [name for name, x in leaders.items() if x.leading.is_set()]
        assert len(leading) == 1
        first = leading[0]
        other = "b" if first == "a" else "a"
        assert set(ran) == {first}
        state = leaders[other].state()
        assert state["leader"] is False and state["holder"] == first
        stops[first].set()
        threads[first].join(timeout=10)
        stopped = time.monotonic()
        while not leaders[other].leading.is_set():
            assert time.monotonic() - stopped < 2 * PERIOD + 1, "no successor"
            time.sleep(0.01)
        count = len(ran)
        time.sleep(2 * PERIOD)
        assert set(ran[count:]) == {other}  # the old leader's loop is stopped
        assert leaders[first].state()["holder"] == other
    finally:
        for stop in stops.values():
            stop.set()
        for thread in threads.values():
            thread.join(timeout=10)


class Pages:
    """A node source: fixed pages, counting calls."""

    def __init__(self, pages: Sequence[list[dict[str, Any]]]) -> None:
        self._pages = pages
        self.calls = 0

    def pages(self, fields: Sequence[str]) -> Iterator[list[dict[str, Any]]]:
        for page in self._pages:
            self.calls += 1
            yield page


def test_a_follower_shows_the_leaders_mirror(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'shared.db'}")
    migrate.upgrade(engine)
    node = {"uuid": UUID, "name": "n1", "driver": "fake-hardware", "traits": ["CUSTOM_A"]}
    leader = Mirror(Pages([[node]]), engine, label="http://ironic", holder="host-a pid 1")
    follower = Mirror(Pages([]), engine, label="http://ironic", holder="host-b pid 2")
    elsewhere = Mirror(Pages([]), engine, label="http://other", holder="host-b pid 2")
    assert follower.not_ready() == (
        "the first load from the Ironic at http://ironic has not finished yet"
    )
    assert leader.refresh().error is None
    assert follower.not_ready() is None
    state = follower.state()
    assert state["loaded"] is True and state["nodes"] == 1
    assert state["refreshed_by"] == "host-a pid 1" and state["refreshes"] == 1
    assert state == {**leader.state(), "lag_seconds": state["lag_seconds"]}
    assert elsewhere.not_ready() is not None  # another Ironic's state is not this one's
    # A follower that takes over keeps the stored mirror even when its own refresh fails.
    failing = Mirror(Pages([[{"uuid": "nope"}]]), engine, label="http://ironic", holder="c")
    assert failing.refresh().error is not None
    assert failing.not_ready() is None and follower.state()["refreshes"] == 2
    assert follower.state()["nodes"] == 1 and follower.state()["refreshed_by"] == "c"
    engine.dispose()
