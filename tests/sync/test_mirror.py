"""The mirror's refresh against an Ironic that never answers (a real socket that accepts and
stays silent): the refresh ends within its request timeout, is reported, and leaves the
stored nodes and the node generation as they were; the service is not ready."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from flavorsmith.clients import cloud
from flavorsmith.clients.ironic import IronicNodes
from flavorsmith.store import nodes as store
from flavorsmith.sync.mirror import Mirror


@pytest.fixture
def silent_ironic() -> Iterator[str]:
    """A loopback listener that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not done.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        done.set()
        thread.join(timeout=5)
        for connection in accepted:
            connection.close()
        server.close()


def _generation(engine: Engine) -> int:
    with engine.connect() as connection:
        return store.generation(connection)


def test_a_silent_ironic_is_reported_within_the_timeout(
    silent_ironic: str, migrated_engine: Engine
) -> None:
    source = IronicNodes(cloud.connect(None, "baremetal", silent_ironic, timeout=1))
    mirror = Mirror(source, migrated_engine, label=silent_ironic, interval=60)
    before = _generation(migrated_engine)
    started = time.monotonic()
    result = mirror.refresh()
    assert time.monotonic() - started < 15
    assert result.error is not None and result.error.startswith("cannot reach Ironic"), result
    assert result.writes == 0 and _generation(migrated_engine) == before
    state = mirror.state()
    assert state["loaded"] is False and state["error"] == result.error
    assert state["refreshing_since"] is None and state["refreshes"] == 1
    assert mirror.not_ready() == (
        f"the first load from the Ironic at {silent_ironic} failed: {result.error}"
    )


def test_the_loop_retries_the_first_load_and_stops_when_told(
    silent_ironic: str, migrated_engine: Engine
) -> None:
    source = IronicNodes(cloud.connect(None, "baremetal", silent_ironic, timeout=0.5))
    mirror = Mirror(source, migrated_engine, label=silent_ironic, interval=0.1)
    stop = threading.Event()
    ran = mirror.run(stop, refreshes=2)
    assert ran == 2 and mirror.state()["refreshes"] == 2 and not mirror.loaded
