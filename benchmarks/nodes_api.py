#!/usr/bin/env python3
"""Benchmark the Ironic-compatible nodes API against the real Ironic 39, side by side.

    PYTHONPATH=src .venv/bin/python benchmarks/nodes_api.py [--nodes 10000] [--traits 10]
                                                            [--puts 300] [--rounds 3]

One command, one run: starts the real Ironic of the test support (tests/support/ironic_api.py,
SQLite; its first start installs it, about a minute) and `flavorsmith serve` on a fresh SQLite
file, gives both the same nodes (the same UUIDs, names, resource classes and traits), then
measures both the same way over HTTP on loopback, each through one keep-alive connection of
the standard library's http.client (a light client, so the times are the services' own more
than the client's):

- listing every node with ``GET /v1/nodes?fields=uuid,traits``, every page as the service pages
  it (no ``limit``: both default to pages of 1000) by following the ``next`` links; the best
  of ``--rounds`` rounds, the two services taking turns; both listings must hold the same nodes
  with the same traits,
- ``PUT /v1/nodes/{node}/traits`` replacing the 10 traits of random nodes (the same sequence on
  both): p50 and p99,
- a trait-filtered list (``traits=``), which only this service has,
- ``GET /v1``, the version document: no database, about the HTTP stack and framework alone.

Ironic is filled through its database, as benchmarks/mirror.py does (its API takes minutes for
10,000 nodes): one node is enrolled through Ironic's API and its row copied for every node, so
every column is as Ironic itself writes it. This service gets the same nodes by `node import`.

Prints a table with the ratio (Ironic's time / this service's time). Not run in CI. Ironic
is installed where the test suite keeps it (``$FLAVORSMITH_TEST_CACHE``, by default
~/.cache/flavorsmith-tests).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.support.ironic_api import running_ironic  # noqa: E402
from tests.support.ironic_fleet import copy_template_node  # noqa: E402

HEADERS = {"X-OpenStack-Ironic-API-Version": "latest"}
POOL = [f"CUSTOM_T{i:02d}" for i in range(60)]
START_TIMEOUT = 120.0
EXAMPLES = ROOT / "examples"
OURS = "flavorsmith serve (SQLite)"
IRONIC = "Ironic 39 (SQLite)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def inventory(count: int, per_node: int) -> list[dict[str, Any]]:
    rng = random.Random(42)
    return [
        {
            "name": f"bench-{i:06d}",
            "uuid": str(uuidlib.UUID(int=i + 1, version=4)),
            "resource_class": f"rc{i % 10}",
            "traits": sorted(rng.sample(POOL, per_node)),
        }
        for i in range(count)
    ]


def fill_ironic(database: Path, url: str, nodes: list[dict[str, Any]]) -> None:
    """``nodes`` in the Ironic at ``url`` whose SQLite file is ``database``: a template node
    made through the API, its row (and its trait's row) copied for every node."""
    copy_template_node(
        database,
        url,
        (
            (
                {"uuid": n["uuid"], "name": n["name"], "resource_class": n["resource_class"]},
                n["traits"],
            )
            for n in nodes
        ),
    )


def start_flavorsmith(
    directory: Path, nodes: list[dict[str, Any]]
) -> tuple[subprocess.Popen[bytes], str]:
    database = f"sqlite:///{directory / 'flavorsmith.db'}"
    path = directory / "nodes.json"
    path.write_text(json.dumps(nodes))
    cli = [sys.executable, "-m", "flavorsmith"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        [*cli, "node", "import", str(path), "--database", database],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"node import failed: {done.stderr}")
    port = free_port()
    log = (directory / "serve.log").open("wb")
    process = subprocess.Popen(
        [*cli, "serve", "--port", str(port), "--database", database, "--repo", str(EXAMPLES)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/baremetal"
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.close()
            output = (directory / "serve.log").read_text(errors="replace")[-2000:]
            raise SystemExit(f"flavorsmith serve exited with {process.returncode}:\n{output}")
        try:
            if requests.get(f"{url}/v1", timeout=1).ok:
                return process, url
        except requests.ConnectionError:
            pass
        time.sleep(0.1)
    process.kill()
    raise SystemExit("flavorsmith serve did not start")


class Client:
    """One keep-alive HTTP/1.1 connection to a service (opened again if the service closed it)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=600)

    def call(self, method: str, url: str, body: Any = None) -> tuple[int, bytes]:
        """The status and body of ``method`` on ``url`` (a JSON ``body`` when not None)."""
        parts = urlsplit(url)
        target = f"{parts.path}?{parts.query}" if parts.query else parts.path
        headers = dict(HEADERS)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            try:
                self.connection.request(method, target, body=data, headers=headers)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.connection.close()


def list_all(client: Client, url: str) -> tuple[float, dict[str, list[str]]]:
    """Every node's traits by UUID, page after page; the seconds it took."""
    seen: dict[str, list[str]] = {}
    next_url: str | None = f"{url}/v1/nodes?fields=uuid,traits"
    started = time.perf_counter()
    while next_url:
        status, content = client.call("GET", next_url)
        if status != 200:
            raise SystemExit(f"GET {next_url}: {status} {content[:300]!r}")
        body = json.loads(content)
        for node in body["nodes"]:
            seen[node["uuid"]] = node["traits"]
        next_url = body.get("next")
    return time.perf_counter() - started, seen


def put_traits(client: Client, url: str, nodes: list[dict[str, Any]], count: int) -> list[float]:
    rng = random.Random(1)
    times: list[float] = []
    for _ in range(count):
        node = nodes[rng.randrange(len(nodes))]
        traits = sorted(rng.sample(POOL, len(node["traits"])))
        started = time.perf_counter()
        status, content = client.call(
            "PUT", f"{url}/v1/nodes/{node['uuid']}/traits", {"traits": traits}
        )
        times.append((time.perf_counter() - started) * 1000)
        if status != 204:
            raise SystemExit(f"PUT traits: {status} {content[:300]!r}")
    return sorted(times)


def version_root(client: Client, url: str, count: int) -> float:
    """p50 of ``GET /v1`` (ms): the API's version document, no database read, so about the
    round trip through the service's HTTP stack and framework."""
    times: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        status, content = client.call("GET", f"{url}/v1")
        times.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise SystemExit(f"GET /v1: {status} {content[:300]!r}")
    return statistics.median(times)


def filtered_list(client: Client, url: str) -> float:
    """p50 of a trait-filtered list (ms); NaN where the service refuses the filter."""
    times: list[float] = []
    for _ in range(20):
        started = time.perf_counter()
        status, _ = client.call("GET", f"{url}/v1/nodes?traits=CUSTOM_T01,CUSTOM_T02&fields=uuid")
        times.append((time.perf_counter() - started) * 1000)
        if status != 200:
            return float("nan")
    return statistics.median(times)


def measure(
    urls: dict[str, str], nodes: list[dict[str, Any]], puts: int, rounds: int
) -> dict[str, dict[str, float]]:
    clients = {name: Client(url) for name, url in urls.items()}
    for name, url in urls.items():  # warm up: connections, caches, imports
        clients[name].call("GET", f"{url}/v1/nodes?fields=uuid,traits&limit=10")
    listings: dict[str, list[float]] = {name: [] for name in urls}
    expected = {node["uuid"]: node["traits"] for node in nodes}
    for _ in range(rounds):
        for name, url in urls.items():
            seconds, seen = list_all(clients[name], url)
            if {uuid: sorted(traits) for uuid, traits in seen.items()} != expected:
                raise SystemExit(f"{name}: the listing does not hold the expected nodes")
            listings[name].append(seconds)
    results: dict[str, dict[str, float]] = {}
    for name, url in urls.items():
        put_times = put_traits(clients[name], url, nodes, puts)
        results[name] = {
            "list all pages, fields=uuid,traits (s)": min(listings[name]),
            "PUT traits p50 (ms)": statistics.median(put_times),
            "PUT traits p99 (ms)": put_times[max(0, int(len(put_times) * 0.99) - 1)],
            "traits= filtered list p50 (ms)": filtered_list(clients[name], url),
            "GET /v1, no database, p50 (ms)": version_root(clients[name], url, puts),
        }
        clients[name].close()
    return results


def _cell(value: float, width: int) -> str:
    # NaN: the service refused the query (the real Ironic has no traits= filter).
    return f"{'unsupported':>{width}}" if value != value else f"{value:>{width}.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--traits", type=int, default=10)
    parser.add_argument("--puts", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3, help="listings of each; the best counts")
    args = parser.parse_args()
    nodes = inventory(args.nodes, args.traits)
    with tempfile.TemporaryDirectory(prefix="flavorsmith-nodes-bench-") as tmp:
        folder = Path(tmp)
        ironic_db = folder / "ironic.sqlite"
        conf = f"[database]\nconnection = sqlite:///{ironic_db}\n"
        with running_ironic(conf=conf) as ironic_url:
            started = time.perf_counter()
            fill_ironic(ironic_db, ironic_url, nodes)
            print(f"Ironic filled in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            started = time.perf_counter()
            process, url = start_flavorsmith(folder, nodes)
            print(
                f"flavorsmith imported and started in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
            try:
                results = measure(
                    {OURS: url, IRONIC: f"{ironic_url}"}, nodes, args.puts, args.rounds
                )
            finally:
                process.terminate()
                process.wait(10)
    metrics = list(results[OURS])
    width = max(len(m) for m in metrics)
    columns = (OURS, IRONIC, "ratio")
    cell = max(len(c) for c in columns)
    print(
        f"{args.nodes} nodes x {args.traits} traits, {args.puts} PUTs, "
        f"best of {args.rounds} listings"
    )
    print(f"{'metric':<{width}} | " + " | ".join(f"{c:>{cell}}" for c in columns))
    print("-" * width + "-+-" + "-+-".join("-" * cell for _ in columns))
    for metric in metrics:
        ours, theirs = results[OURS][metric], results[IRONIC][metric]
        ratio = theirs / ours if ours == ours and theirs == theirs else float("nan")
        ratio_text = f"{ratio:>{cell - 1}.1f}x" if ratio == ratio else f"{'-':>{cell}}"
        print(f"{metric:<{width}} | {_cell(ours, cell)} | {_cell(theirs, cell)} | {ratio_text}")


if __name__ == "__main__":
    main()
