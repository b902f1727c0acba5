"""Three ``flavorsmith serve`` replicas on one PostgreSQL database (one of them with two
worker processes), each with the sync watcher on: exactly one process leads and applies;
killed with SIGKILL, another leads within two intervals; no object is ever written twice;
and a node changed through one replica is matched at once through the others."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.conftest import EXAMPLES
from tests.database import throwaway_postgres
from tests.live import free_port

INTERVAL = 2.0  # --sync-interval: also how often followers try to lead
FLAVORS = len(list((EXAMPLES / "hardware" / "flavors").glob("*.yaml")))
IRONIC = {"X-OpenStack-Ironic-API-Version": "1.65", "Content-Type": "application/json"}


@dataclass
class Replica:
    name: str
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def lines(self) -> list[dict[str, Any]]:
        """The JSON event lines this replica (all its processes) logged so far."""
        out = []
        for line in self.log.read_text().splitlines():
            if line.startswith("{"):
                out.append(json.loads(line))
        return out


def call(method: str, url: str, body: object = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=IRONIC)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def wait_for(what: str, check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = check()
        except OSError:
            found = None
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[list[Replica], str, Path]]:
    catalog = tmp_path / "catalog"
    shutil.copytree(EXAMPLES / "hardware", catalog / "hardware")
    with throwaway_postgres() as url:
        engine = make_engine(url)
        migrate.upgrade(engine)
        engine.dispose()
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "home")}
        env.pop("FLAVORSMITH_DATABASE_URL", None)
        started = []
        for name, workers in (("a", 1), ("b", 1), ("c", 2)):
            port = free_port()
            log = tmp_path / f"{name}.log"
            with log.open("wb") as stderr:
                process = subprocess.Popen(
                    [
                        *(sys.executable, "-m", "flavorsmith", "serve", "--port", str(port)),
                        *("--database", url, "--repo", str(catalog)),
                        *("--workers", str(workers), "--sync", "--sync-interval", str(INTERVAL)),
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=stderr,
                )
            started.append(Replica(name, f"http://127.0.0.1:{port}", process, log))
        try:
            for replica in started:
                wait_for(
                    f"{replica.name} ready",
                    lambda r=replica: call("GET", f"{r.url}/readyz")[0] == 200,
                )
            yield started, url, catalog
        finally:
            for replica in started:
                replica.process.send_signal(signal.SIGTERM)
            for replica in started:
                try:
                    replica.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    replica.process.kill()
                    replica.process.wait()


def leader_lines(replicas: list[Replica]) -> list[dict[str, Any]]:
    return [
        line
        for replica in replicas
        for line in replica.lines()
        if line.get("event") == "leader" and "loops" in line
    ]


def sync_writes(replicas: list[Replica], kind: str) -> int:
    lines = [
        line
        for replica in replicas
        for line in replica.lines()
        if line.get("event") == "sync" and line.get("kind") == kind
    ]
    assert not [line for line in lines if "error" in line or "skipped" in line], lines
    return sum(int(line.get("writes", 0)) for line in lines)


def holder_seen(replica: Replica) -> str | None:
    status, body = call("GET", f"{replica.url}/readyz")
    return body["background"]["holder"] if status == 200 else None


def flavor_rows(url: str) -> list[tuple[str, Any, Any]]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT name, created_at, updated_at FROM flavors ORDER BY name")
            )
            return [tuple(row) for row in rows]
    finally:
        engine.dispose()


def test_one_leader_a_kill_a_new_leader_and_no_double_apply(
    replicas: tuple[list[Replica], str, Path],
) -> None:
    started, url, catalog = replicas
    # The first round creates every flavor, once, in whichever process leads.
    wait_for("the first sync", lambda: sync_writes(started, "flavors") >= FLAVORS)
    first = leader_lines(started)
    assert len(first) == 1, first
    holder = first[0]["holder"]
    assert first[0]["loops"] == ["samples", "sync"]
    # Every replica (each worker of c too) names the same leader, from the database.
    for replica in started:
        for _ in range(4):
            assert holder_seen(replica) == holder
    pid = int(holder.rsplit(" ", 1)[1])
    rows = flavor_rows(url)
    assert len(rows) == FLAVORS and all(updated is None for _, _, updated in rows)

    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    survivors = [r for r in started if r.process.pid != pid]
    new = wait_for(
        "a new leader",
        lambda: next((h for h in map(holder_seen, survivors) if h and h != holder), None),
        timeout=4 * INTERVAL,
    )
    took = time.monotonic() - killed
    assert took < 2 * INTERVAL, f"the new leader {new} took {took:.1f} s"
    assert len(leader_lines(started)) == 2

    # The new leader's first round finds nothing to do; a catalog change is applied once.
    path = catalog / "hardware" / "flavors" / "m1.small.nicX.yaml"
    path.write_text(path.read_text().replace("Small compute flavor", "Small flavor"))
    wait_for(
        "the change applied",
        lambda: any(n == "m1.small.nicX" and u is not None for n, _, u in flavor_rows(url)),
        timeout=30,
    )
    time.sleep(2 * INTERVAL)  # rounds that would apply it again had their chance
    assert sync_writes(started, "flavors") == FLAVORS + 1
    after = flavor_rows(url)
    assert [(n, c) for n, c, _ in after] == [(n, c) for n, c, _ in rows]  # none created twice
    assert [n for n, _, u in after if u is not None] == ["m1.small.nicX"]


def test_answers_are_the_same_through_every_replica(
    replicas: tuple[list[Replica], str, Path],
) -> None:
    (a, b, c), _, _ = replicas

    def count(replica: Replica) -> int:
        status, body = call("GET", f"{replica.url}/v1/flavors/m1.small.nicX/nodes")
        assert status == 200, body
        return int(body["count"])

    before = [count(r) for r in (a, b, c)]
    assert before[0] == before[1] == before[2]
    status, node = call(
        "POST",
        f"{a.url}/baremetal/v1/nodes",
        {"driver": "fake-hardware", "name": "replica-node", "resource_class": "m1.small"},
    )
    assert status == 201, node
    uuid = node["uuid"]
    status, _ = call("PUT", f"{a.url}/baremetal/v1/nodes/{uuid}/traits/CUSTOM_NICX")
    assert status == 204
    for _ in range(3):  # c has two workers: ask it more than once
        assert [count(r) for r in (b, c)] == [before[1] + 1, before[2] + 1]
    status, _ = call("DELETE", f"{b.url}/baremetal/v1/nodes/{uuid}/traits/CUSTOM_NICX")
    assert status == 204
    for _ in range(3):
        assert [count(r) for r in (a, c)] == before[::2]
