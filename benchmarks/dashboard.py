#!/usr/bin/env python3
"""The dashboard in a real browser at 100,000 nodes: the time from navigation to the capacity
page fully rendered (the issue's target: under 1 s) and to the flavors x nodes matrix's first
screen rendered (under 2 s).

    PYTHONPATH=src .venv/bin/python benchmarks/dashboard.py [--nodes 100000]
                                    [--shape profiles|random] [--visits 5]

Imports N nodes into a throwaway SQLite database (``flavorsmith node import``), starts
``flavorsmith serve`` on it on loopback with the example catalog, and drives Debian's headless
``chromium`` through its ``chromium-driver`` with Selenium, as the browser tests do
(tests/support/browser.py; Selenium Manager is kept offline). Each page marks the moment its
first answer is shown and painted (``performance.mark("flavorsmith:rendered")``, counted from
the start of the navigation, so it includes the page, its script, every API call the page
makes and the rendering). Each page is timed:

- first visit after start-up, as soon as ``/readyz`` answers 200 (as a load balancer would
  send it: the service is ready once its first warming has finished);
- repeated visits (the median of ``--visits``): an operator's open dashboard, reloaded;
- the first visit right after a node changed (a trait set through /baremetal: a new node
  generation), one change per page measured.

The service warms its caches (the index, the matrix's groups, the drift report) on a thread at
start-up and after each change (``flavorsmith.serving.warm``); ``/readyz`` answers 503 until the
first warming has finished (how long that took from the process's start is printed too).

The capacity page includes its drift (GET /v1/verify) as well as GET /v1/capacity.

Shapes of the inventory: ``profiles`` (the example catalog's resource classes, each node with
a combination of the example traits: a fleet of a few hundred hardware profiles) and
``random`` (each node's traits drawn at random from 60 more: no two nodes alike, the matrix's
worst case, every node its own group).

There is no counterpart to compare with: OpenStack's dashboard (Horizon) has no view joining
flavors, traits and nodes. Not run in CI (the import alone takes a minute or more).
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
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.support.browser import chromium  # noqa: E402

EXAMPLES = ROOT / "examples"
CLASSES = ["m1.small", "m1.medium", "c2.large", "c2.diskless", "g1.8xh100"]
TRAITS = ["CUSTOM_NICX", "CUSTOM_CPU_AMD", "CUSTOM_NIC_MELLANOX_CX5", "CUSTOM_STORAGE_NVME"]
POOL = [f"CUSTOM_BENCH_{i:02d}" for i in range(60)]
STATES = ["available", "active", "manageable"]
# What is timed: the page, the performance mark it sets, the target (seconds).
PAGES = {
    "capacity (numbers and findings)": ("/ui/", "flavorsmith:rendered", 1.0),
    "capacity's drift (GET /v1/verify)": ("/ui/", "flavorsmith:rendered:drift", 1.0),
    "matrix (first screen)": ("/ui/matrix.html", "flavorsmith:rendered", 2.0),
}
IRONIC = {"X-OpenStack-Ironic-API-Version": "1.37"}


def nodes(count: int, shape: str) -> list[dict[str, Any]]:
    rng = random.Random(20)
    out = []
    for i in range(count):
        traits = [t for k, t in enumerate(TRAITS) if (i >> k) & 1]
        if shape == "random":
            traits += rng.sample(POOL, max(0, min(50, int(rng.gauss(8, 2)))))
        else:
            traits += POOL[: (i // 80) % 5]  # 5 x 16 x 5 = 400 profiles at most
        out.append(
            {
                "name": f"bench-{i:06d}",
                "resource_class": CLASSES[i % len(CLASSES)],
                "traits": traits,
                "provision_state": STATES[i % len(STATES)],
            }
        )
    return out


def wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("serve ended before it was ready")
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=5) as response:
                if json.loads(response.read()).get("status") == "ready":
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("serve was not ready within 300 s")


def visit(driver: Any, url: str, name: str) -> float:
    """Seconds from the navigation's start to the page's performance mark ``name`` (an answer
    shown and painted)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    mark = WebDriverWait(driver, 120, poll_frequency=0.05).until(
        lambda d: d.execute_script(
            "if (document.body.dataset.loaded === 'error') return -1;"
            "const m = performance.getEntriesByName(arguments[0]);"
            "return m.length ? m[0].startTime : null;",
            name,
        )
    )
    if mark < 0:
        status = driver.find_element("id", "status").text
        raise SystemExit(f"{url} failed: {status}")
    return float(mark) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--shape", choices=("profiles", "random"), default="profiles")
    parser.add_argument("--visits", type=int, default=5)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "flavorsmith"]
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT / "src"),
            "XDG_DATA_HOME": str(Path(scratch) / "home"),
        }
        database = f"sqlite:///{Path(scratch) / 'flavorsmith.db'}"
        path = Path(scratch) / "nodes.json"
        path.write_text(json.dumps(nodes(args.nodes, args.shape)))
        started = time.perf_counter()
        subprocess.run(
            [*cli, "node", "import", str(path), "--database", database],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        print(
            f"imported {args.nodes} nodes in {time.perf_counter() - started:.1f} s", file=sys.stderr
        )
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        launched = time.perf_counter()
        process = subprocess.Popen(
            [*cli, "serve", "--port", str(port), "--database", database, "--repo", str(EXAMPLES)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        rows: dict[str, list[float]] = {}
        try:
            wait_ready(base, process)
            ready = time.perf_counter() - launched
            with chromium() as driver:
                driver.set_page_load_timeout(120)
                for label, (page, mark, _) in PAGES.items():
                    rows[label] = [visit(driver, base + page, mark)]
                for label, (page, mark, _) in PAGES.items():
                    times = [visit(driver, base + page, mark) for _ in range(args.visits)]
                    rows[label].append(statistics.median(times))
                node = nodes(1, args.shape)[0]["name"]
                for number, (label, (page, mark, _)) in enumerate(PAGES.items()):
                    request = urllib.request.Request(
                        f"{base}/baremetal/v1/nodes/{node}/traits/CUSTOM_BENCH_CHANGE_{number}",
                        method="PUT",
                        headers=IRONIC,
                    )
                    urllib.request.urlopen(request, timeout=60).close()
                    rows[label].append(visit(driver, base + page, mark))
                    # Settle before the next change: each row measures one change.
                    urllib.request.urlopen(f"{base}/v1/verify", timeout=300).close()
            with urllib.request.urlopen(f"{base}/v1/matrix?limit=1", timeout=300) as response:
                group_count = json.loads(response.read())["group_count"]
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    print(
        f"\n{args.nodes} nodes ({args.shape}: {group_count} node groups), the example catalog's "
        f"flavors, SQLite, headless chromium, {os.cpu_count()} cores; /readyz answered 200 "
        f"{ready:.1f} s after serve started\n"
    )
    print(
        "| page | target | first visit after start-up | repeated (median) | after a node change |"
    )
    print("| --- | --- | --- | --- | --- |")
    for label, (_, _, target) in PAGES.items():
        first, repeated, changed = rows[label]
        marks = " | ".join(
            f"{t:.2f} s {'✓' if t < target else '✗'}" for t in (first, repeated, changed)
        )
        print(f"| {label} | < {target:.0f} s | {marks} |")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    main()
