#!/usr/bin/env python3
"""Scale-out of `flavorsmith serve`: requests per second, p99 and CPU per request with 1 and 2
worker processes on PostgreSQL, at 100,000 nodes.

    PYTHONPATH=src .venv/bin/python benchmarks/scale_out.py [--nodes 100000] [--seconds 15]
                                                          [--connections 8] [--workers 1,2]

Creates a throwaway PostgreSQL database (on $FLAVORSMITH_TEST_PG_URL's server, as the tests
do), migrates it, imports N nodes (`flavorsmith node import`: the example catalog's resource
classes cycled, with the example traits), then for each worker count starts `flavorsmith serve
--workers W` on loopback with the example catalog and drives each route with Debian's `wrk`
(`apt-get install wrk`) for a bounded time:

- GET /v1/flavors/m1.small/nodes       (the matcher: the index per node generation, one page)
- GET /baremetal/v1/nodes?limit=1000   (Ironic's node list: one page of 1000 from the database)

It reports requests/s, wrk's p99 latency and the CPU-seconds the server's processes (the
supervisor and its workers, from /proc/PID/stat) used per 1,000 requests. The machine's cores
are shared by PostgreSQL, wrk and the server, so requests/s is this machine's; the CPU cost
per request is what carries to a bigger one. Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from flavorsmith.db import migrate  # noqa: E402
from flavorsmith.db.engine import make_engine  # noqa: E402

EXAMPLES = ROOT / "examples"
PG_ADMIN_URL = os.environ.get(
    "FLAVORSMITH_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
CLASSES = ["m1.small", "m1.medium", "c2.large", "c2.diskless", "g1.8xh100"]
TRAITS = ["CUSTOM_NICX", "CUSTOM_CPU_AMD", "CUSTOM_NIC_MELLANOX_CX5", "CUSTOM_STORAGE_NVME"]
ROUTES = {
    "GET /v1/flavors/m1.small/nodes": "/v1/flavors/m1.small/nodes",
    "GET /baremetal/v1/nodes?limit=1000": "/baremetal/v1/nodes?limit=1000",
}
TICKS = os.sysconf("SC_CLK_TCK")
# Seconds of load before each measurement: long enough for every worker to build the
# matcher's index at 100,000 nodes (a build inside the measured window shows in the p99).
WARM_UP = 10


def nodes(count: int) -> list[dict[str, object]]:
    return [
        {
            "name": f"scale-{i:06d}",
            "resource_class": CLASSES[i % len(CLASSES)],
            "traits": [t for k, t in enumerate(TRAITS) if (i >> k) & 1],
        }
        for i in range(count)
    ]


def cpu_seconds(root: int) -> float:
    """user + system CPU of ``root`` and every process under it (its workers)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / TICKS
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo.extend(p for p, parent in parents.items() if parent == pid and p not in tree)
    return sum(times.get(pid, 0.0) for pid in tree)


def wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("serve ended before it was ready")
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("serve was not ready within 120 s")


def wrk(url: str, seconds: int, connections: int) -> tuple[int, float, float]:
    """(requests, requests/s, p99 ms) of one wrk run."""
    done = subprocess.run(
        [
            *("wrk", "--latency", "-t", "2", "-c", str(connections)),
            *("-d", f"{seconds}s", "--timeout", "30s", url),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = done.stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
    p99 = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    if "Non-2xx" in out or "Socket errors" in out:
        print(out, file=sys.stderr)
    return requests, rate, p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"flavorsmith_bench_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    cli = [sys.executable, "-m", "flavorsmith"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    rows = []
    try:
        engine = make_engine(url)
        migrate.upgrade(engine)
        engine.dispose()
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "nodes.json"
            path.write_text(json.dumps(nodes(args.nodes)))
            started = time.perf_counter()
            subprocess.run(
                [*cli, "node", "import", str(path), "--database", url],
                check=True,
                env=env,
                stdout=subprocess.DEVNULL,
            )
            print(
                f"imported {args.nodes} nodes in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
        for workers in (int(w) for w in args.workers.split(",")):
            sock_port = _free_port()
            base = f"http://127.0.0.1:{sock_port}"
            process = subprocess.Popen(
                [
                    *(*cli, "serve", "--port", str(sock_port), "--database", url),
                    *("--repo", str(EXAMPLES), "--workers", str(workers)),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                wait_ready(base, process)
                for label, route in ROUTES.items():
                    # Warm every worker (the matcher builds its index once per generation).
                    wrk(base + route, WARM_UP, args.connections)
                    before = cpu_seconds(process.pid)
                    count, rate, p99 = wrk(base + route, args.seconds, args.connections)
                    used = cpu_seconds(process.pid) - before
                    rows.append((label, workers, rate, p99, used / count * 1000 if count else 0))
                    print(f"{label} workers={workers}: {rate:.1f} req/s", file=sys.stderr)
            finally:
                process.terminate()
                process.wait(timeout=60)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    print(
        f"\n{args.nodes} nodes on PostgreSQL, wrk -t2 -c{args.connections} "
        f"-d{args.seconds}s, {os.cpu_count()} cores\n"
    )
    print("| route | workers | requests/s | p99 ms | server CPU-s per 1,000 requests |")
    print("| --- | --- | --- | --- | --- |")
    for label, workers, rate, p99, cpu in rows:
        print(f"| `{label}` | {workers} | {rate:.1f} | {p99:.0f} | {cpu:.2f} |")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    main()
