#!/usr/bin/env python3
"""Benchmark the Ironic mirror against a real Ironic 39 holding 10,000 nodes.

    PYTHONPATH=src .venv/bin/python benchmarks/mirror.py [--nodes 10000]

Starts the real Ironic of the test support (tests/support/ironic_api.py, SQLite) and fills it
through its database: one node is enrolled through Ironic's API and its row copied N times
(the example inventory's resource classes, properties, traits, instance and maintenance,
cycled), so every column is as Ironic itself writes it. Then, side by side in one run:

- the mirror's first load into a fresh SQLite database (sync/mirror.py, as `serve` runs it),
- a refresh with no change (its GETs, its writes, the node generation before and after),
- a refresh after 10 trait changes made through Ironic's API,
- `flavorsmith capacity --ironic-endpoint` (the CLI reading the same Ironic),
- `flavorsmith capacity --database` on the mirror (the same answer from the service's tables),
- `openstack baremetal node list --long --limit 0` against the same Ironic (the reference for
  the first load; without `--limit 0` the client stops after Ironic's first page of 1000; its
  time includes the CLI's start-up, shown on its own line).

Prints a table. Not run in CI (starting Ironic and filling it takes a minute).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.support.ironic_api import running_ironic  # noqa: E402
from tests.support.ironic_fleet import IronicHttp, copy_template_node, example_nodes  # noqa: E402

from flavorsmith.clients.cloud import connect  # noqa: E402
from flavorsmith.clients.ironic import PAGE, IronicNodes  # noqa: E402
from flavorsmith.db import migrate  # noqa: E402
from flavorsmith.db.engine import make_engine  # noqa: E402
from flavorsmith.ironic.mirror import FIELDS  # noqa: E402
from flavorsmith.store import nodes as store  # noqa: E402
from flavorsmith.sync.mirror import Mirror, Refresh  # noqa: E402

BIN = Path(sys.executable).parent
EXAMPLES = ROOT / "examples"


def populate(database: Path, url: str, count: int) -> None:
    """``count`` nodes in the Ironic at ``url`` whose SQLite file is ``database``."""
    examples = example_nodes()
    nodes = []
    for i in range(count):
        example = examples[i % len(examples)]
        values = {
            "uuid": str(uuidlib.UUID(int=i + 1, version=4)),
            "name": f"{example['name']}-{i // len(examples):03d}",
            "resource_class": example.get("resource_class"),
            "properties": json.dumps(example.get("properties") or {}),
            "maintenance": bool(example.get("maintenance")),
            "instance_uuid": (
                str(uuidlib.uuid4()) if example.get("provision_state") == "active" else None
            ),
        }
        nodes.append((values, list(example.get("traits") or [])))
    copy_template_node(database, url, nodes)


def timed_cli(*command: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed: {result.stderr.strip()[-500:]}")
    return elapsed, result


def refresh_row(label: str, result: Refresh, generation: str) -> tuple[str, ...]:
    if result.error is not None:
        raise SystemExit(f"{label}: {result.error}")
    return (
        label,
        f"{result.seconds:.2f} s",
        f"{result.reading:.2f} s",
        str(result.requests),
        str(result.writes),
        generation,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000)
    args = parser.parse_args()
    count = args.nodes
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="flavorsmith-mirror-bench-") as tmp:
        folder = Path(tmp)
        ironic_db = folder / "ironic.sqlite"
        conf = f"[database]\nconnection = sqlite:///{ironic_db}\n"
        with running_ironic(conf=conf) as url:
            started = time.perf_counter()
            populate(ironic_db, url, count)
            filled = time.perf_counter() - started
            database = f"sqlite:///{folder / 'mirror.db'}"
            engine = make_engine(database)
            migrate.upgrade(engine)
            source = IronicNodes(connect(None, "baremetal", url, timeout=120))
            mirror = Mirror(source, engine, label=url, interval=60)

            def generation() -> int:
                with engine.connect() as connection:
                    return store.generation(connection)

            first = mirror.refresh()
            rows.append(refresh_row("mirror: first load", first, str(generation())))
            if first.listed != count:
                raise SystemExit(f"the first load read {first.listed} nodes, not {count}")
            before = generation()
            again = mirror.refresh()
            after = generation()
            rows.append(refresh_row("mirror: no-change refresh", again, f"{before} -> {after}"))
            client = IronicHttp(url)
            try:
                for i in range(10):
                    uuid = str(uuidlib.UUID(int=i * 97 + 1, version=4))
                    client.call("PUT", f"/nodes/{uuid}/traits/CUSTOM_BENCH_CHANGED")
            finally:
                client.close()
            changed = mirror.refresh()
            rows.append(
                refresh_row("mirror: 10 traits changed", changed, f"{after} -> {generation()}")
            )
            repo = ["--repo", str(EXAMPLES), "-f", "json"]
            flavorsmith = [str(BIN / "flavorsmith"), "capacity", *repo]
            seconds, real = timed_cli(*flavorsmith, "--ironic-endpoint", url)
            rows.append(("capacity --ironic-endpoint", f"{seconds:.2f} s", "", "", "", ""))
            seconds, ours = timed_cli(*flavorsmith, "--database", database)
            rows.append(("capacity --database (mirror)", f"{seconds:.2f} s", "", "", "", ""))
            same = json.loads(real.stdout)["flavors"] == json.loads(ours.stdout)["flavors"]
            openstack = [str(BIN / "openstack"), "--os-auth-type", "none", "--os-endpoint", url]
            seconds, listed = timed_cli(
                *openstack,
                "baremetal",
                "node",
                "list",
                "--long",
                "--limit",
                "0",
                "-f",
                "value",
                "-c",
                "UUID",
            )
            rows.append(
                (
                    "openstack baremetal node list --long --limit 0",
                    f"{seconds:.2f} s",
                    "",
                    "",
                    "",
                    "",
                )
            )
            if len(listed.stdout.split()) != count:
                raise SystemExit("openstack baremetal node list did not list every node")
            seconds, _ = timed_cli(*openstack, "--version")
            rows.append(("  of which: openstack start-up", f"{seconds:.2f} s", "", "", "", ""))
            engine.dispose()
    pages = -(-count // PAGE) + (1 if count % PAGE == 0 else 0)
    print(f"{count} nodes in a real Ironic 39 (SQLite), filled in {filled:.1f} s")
    print(f"fields read: {','.join(FIELDS)}")
    header = ("run", "time", "reading", "GETs", "writes", "node generation")
    widths = [46, 8, 8, 5, 7, 16]
    print(
        " | ".join(
            h.ljust(w) if i == 0 else h.rjust(w)
            for i, (h, w) in enumerate(zip(header, widths, strict=True))
        )
    )
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        print(" | ".join(cells))
    load = float(rows[0][1].split()[0])
    listing = float(rows[-2][1].split()[0])
    print()
    print(
        f"GETs per refresh: {again.requests} (expected ⌈{count}/{PAGE}⌉"
        f"{' + 1' if count % PAGE == 0 else ''} = {pages}: Ironic puts a `next` link on every "
        "full page, so a count that is a multiple of 1000 reads one more, empty page)"
    )
    print(
        "GETs are the mirror's requests to Ironic; the first load also makes openstacksdk's "
        "one-time version discovery before them"
    )
    print("reading: the part of a refresh spent waiting for Ironic's pages; the rest is the diff")
    print(f"no-change refresh writes: {again.writes}; generation kept: {before == after}")
    print(f"first load / openstack baremetal node list --long --limit 0: {load / listing:.2f}")
    print(f"capacity from Ironic equals capacity from the mirror: {same}")


if __name__ == "__main__":
    main()
