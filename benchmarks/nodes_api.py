#!/usr/bin/env python3
"""Benchmark the Ironic-compatible nodes API: paging, trait writes, trait-filtered lists.

    .venv/bin/python benchmarks/nodes_api.py [--nodes 10000] [--traits 10] [--puts 500]
                                             [--ironic http://127.0.0.1:6385]

Starts `flavorsmith serve` on a fresh SQLite file, bulk-loads the nodes, then measures over
HTTP on loopback. With --ironic, loads the same nodes into that Ironic (through its API) and
measures it the same way in the same run. Prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

HEADERS = {"X-OpenStack-Ironic-API-Version": "latest"}
POOL = [f"CUSTOM_T{i:02d}" for i in range(60)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def inventory(count: int, per_node: int) -> list[dict[str, object]]:
    rng = random.Random(42)
    return [
        {
            "name": f"bench-{i:06d}",
            "resource_class": f"rc{i % 10}",
            "traits": sorted(rng.sample(POOL, per_node)),
        }
        for i in range(count)
    ]


def start_flavorsmith(
    directory: Path, nodes: list[dict[str, object]]
) -> tuple[subprocess.Popen[bytes], str]:
    database = f"sqlite:///{directory / 'bench.db'}"
    path = directory / "nodes.json"
    path.write_text(json.dumps(nodes))
    cli = [sys.executable, "-m", "flavorsmith"]
    started = time.perf_counter()
    done = subprocess.run(
        [*cli, "node", "import", str(path), "--database", database], capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"import failed: {done.stderr}")
    print(
        f"bulk import of {len(nodes)} nodes: {time.perf_counter() - started:.2f} s", file=sys.stderr
    )
    port = free_port()
    process = subprocess.Popen(
        [*cli, "serve", "--port", str(port), "--database", database],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}/baremetal"
    for _ in range(200):
        try:
            if requests.get(f"{url}/v1", timeout=1).ok:
                return process, url
        except requests.ConnectionError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("flavorsmith serve did not start")


def _retry(call: Callable[[], requests.Response]) -> requests.Response:
    """Ironic on SQLite fails concurrent writes with 500 ("database is locked"): retry."""
    for _ in range(10):
        response = call()
        if response.status_code < 500:
            return response
        time.sleep(0.2)
    response.raise_for_status()
    return response


def load_ironic(url: str, nodes: list[dict[str, object]]) -> None:
    session = requests.Session()

    def one(node: dict[str, object]) -> None:
        body = {
            "driver": "fake-hardware",
            "name": node["name"],
            "resource_class": node["resource_class"],
        }
        created = _retry(
            lambda: session.post(f"{url}/v1/nodes", json=body, headers=HEADERS, timeout=60)
        )
        if created.status_code not in (201, 409):
            created.raise_for_status()
        traits = {"traits": node["traits"]}
        _retry(
            lambda: session.put(
                f"{url}/v1/nodes/{node['name']}/traits", json=traits, headers=HEADERS, timeout=60
            )
        ).raise_for_status()

    started = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(one, nodes))
    print(
        f"loading {len(nodes)} nodes into Ironic: {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )


def measure(url: str, nodes: list[dict[str, object]], puts: int) -> dict[str, float]:
    session = requests.Session()
    session.get(f"{url}/v1/nodes?limit=1", headers=HEADERS, timeout=60)  # warm up
    page_times: list[float] = []
    started = time.perf_counter()
    next_url: str | None = f"{url}/v1/nodes?fields=uuid,traits&limit=1000"
    seen = 0
    while next_url:
        t0 = time.perf_counter()
        response = session.get(next_url, headers=HEADERS, timeout=600)
        page_times.append((time.perf_counter() - t0) * 1000)
        response.raise_for_status()
        body = response.json()
        seen += len(body["nodes"])
        next_url = body.get("next")
    total = time.perf_counter() - started
    if seen < len(nodes):
        raise SystemExit(f"paging saw {seen} nodes, expected {len(nodes)}")
    rng = random.Random(1)
    put_times: list[float] = []
    for _ in range(puts):
        node = nodes[rng.randrange(len(nodes))]
        traits = sorted(rng.sample(POOL, len(node["traits"])))  # type: ignore[arg-type]
        t0 = time.perf_counter()
        session.put(
            f"{url}/v1/nodes/{node['name']}/traits",
            json={"traits": traits},
            headers=HEADERS,
            timeout=60,
        ).raise_for_status()
        put_times.append((time.perf_counter() - t0) * 1000)
    put_times.sort()
    filtered: list[float] = []
    for _ in range(20):
        t0 = time.perf_counter()
        response = session.get(
            f"{url}/v1/nodes?traits=CUSTOM_T01,CUSTOM_T02&fields=uuid&limit=1000",
            headers=HEADERS,
            timeout=60,
        )
        filtered.append((time.perf_counter() - t0) * 1000)
        if not response.ok:
            filtered = [float("nan")]
            break
    return {
        "all pages (s)": total,
        "page of 1000 p50 (ms)": statistics.median(page_times),
        "PUT traits p50 (ms)": statistics.median(put_times),
        "PUT traits p99 (ms)": put_times[int(len(put_times) * 0.99) - 1],
        "traits= list p50 (ms)": statistics.median(filtered),
    }


def _cell(value: float) -> str:
    # NaN: the server refused the query (the real Ironic has no traits= filter).
    return f"{'unsupported':>22}" if value != value else f"{value:>22.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--traits", type=int, default=10)
    parser.add_argument("--puts", type=int, default=500)
    parser.add_argument("--ironic", help="base URL of a real Ironic to measure in the same run")
    args = parser.parse_args()
    nodes = inventory(args.nodes, args.traits)
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        process, url = start_flavorsmith(Path(directory), nodes)
        try:
            results["flavorsmith (SQLite)"] = measure(url, nodes, args.puts)
        finally:
            process.terminate()
            process.wait(10)
    if args.ironic:
        load_ironic(args.ironic.rstrip("/"), nodes)
        results["ironic"] = measure(args.ironic.rstrip("/"), nodes, args.puts)
    names = list(results)
    metrics = list(next(iter(results.values())))
    width = max(len(m) for m in metrics)
    print(f"{args.nodes} nodes x {args.traits} traits, {args.puts} PUTs")
    print(f"{'metric':<{width}} | " + " | ".join(f"{n:>22}" for n in names))
    print("-" * width + "-+-" + "-+-".join("-" * 22 for _ in names))
    for metric in metrics:
        values = " | ".join(_cell(results[n][metric]) for n in names)
        print(f"{metric:<{width}} | {values}")


if __name__ == "__main__":
    main()
