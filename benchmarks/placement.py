#!/usr/bin/env python3
"""Flavorsmith's matcher against the real OpenStack Placement, on the same seeded inventory.

    PYTHONPATH=src .venv/bin/python benchmarks/placement.py [--nodes 10000] [--sql-nodes 50000]
        [--sample 200] [--repeats 15] [--index-nodes 100000] [--seed 1] [--quick]

``--quick`` (a couple of minutes): ``--nodes 2000 --sql-nodes 0 --index-nodes 10000 --repeats 5``
unless given.

One run, public tools only (Placement from PyPI through tests/support/placement_api.py):

1. ``--nodes`` nodes (the example catalog's resource classes and traits, some provisioned,
   some in maintenance) imported into ``flavorsmith serve`` and loaded into a real Placement
   through its API as Nova's ironic driver reports them. For every flavor of the example
   catalog: Placement's ``GET /allocation_candidates`` for the request Nova builds from the
   derived Nova flavor (``flavorsmith.nova.placement_request``, without ``limit``: every
   candidate; none when Nova refuses the boot before asking), and ours,
   ``GET /v1/flavors/F/nodes?available=true`` (every page): the median of ``--repeats`` calls
   each on loopback, the service's own time (its request histogram) per request and per
   flavor (all its pages), and the two node sets, which must be identical.
2. ``--sql-nodes`` nodes: Placement's SQLite database filled directly (its own tables:
   resource_providers, inventories, resource_provider_traits; the custom resource classes and
   traits made through its API first, so its caches know them), ``--sample`` providers read
   back through its API and checked, then the same per-flavor comparison.
3. The matcher's index after one trait change at ``--index-nodes`` nodes: built afresh from
   every node (what each change cost before) and followed through the change log (now).

Prints one table; exits 1 when any node set differs. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid as uuidlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import placement_api  # noqa: E402
from tests.support.catalogs import repository  # noqa: E402
from tests.support.service import free_port  # noqa: E402

from flavorsmith.db import migrate  # noqa: E402
from flavorsmith.db.engine import consistent, make_engine, writer  # noqa: E402
from flavorsmith.matching.flavor_rules import FlavorRule  # noqa: E402
from flavorsmith.matching.index import Index  # noqa: E402
from flavorsmith.matching.reports import rules_of  # noqa: E402
from flavorsmith.nodes.index_cache import IndexCache  # noqa: E402
from flavorsmith.nova.derive import derive  # noqa: E402
from flavorsmith.nova.placement_request import MICROVERSION, PlacementRequest, request_for  # noqa: E402
from flavorsmith.store import node_import  # noqa: E402
from flavorsmith.store import nodes as store  # noqa: E402

EXAMPLES = ROOT / "examples"
EXTRA_TRAITS = [f"CUSTOM_BENCH_{i:02d}" for i in range(20)]
HEADER = [
    "nodes",
    "flavor",
    "candidates",
    "same nodes",
    "Placement ms",
    "Flavorsmith ms",
    "of which server ms per request",
    "server ms per flavor (pages: requests)",
    "ratio",
]


@dataclass(frozen=True)
class Flavor:
    """A flavor of the example catalog: the matcher's rule and the request Nova sends for it
    (None when the flavor is never synced to Nova: nothing is asked, no node matches)."""

    rule: FlavorRule
    request: PlacementRequest | None


def example_flavors() -> list[Flavor]:
    catalog = repository(EXAMPLES).load().catalog
    requests = {d.name: request_for(d) for d in derive(catalog)[0]}
    return [Flavor(rule, requests.get(rule.name)) for rule in rules_of(catalog)]


def inventory(count: int, rules: list[FlavorRule], seed: int) -> list[dict[str, Any]]:
    """Nodes of the flavors' resource classes (and one no flavor uses) with the flavors' traits
    and others; three in four available, one in five provisioned, some in maintenance."""
    rng = random.Random(seed)
    classes = [*sorted({r.resource_class for r in rules}), "baremetal"]
    pool = sorted({t for r in rules for t in r.required | r.forbidden}) + EXTRA_TRAITS
    nodes = []
    for i in range(count):
        roll = rng.random()
        active = roll < 0.2
        nodes.append(
            {
                "uuid": str(uuidlib.UUID(int=rng.getrandbits(128), version=4)),
                "name": f"bench-{i:06d}",
                "resource_class": rng.choice(classes),
                "traits": sorted(rng.sample(pool, rng.randint(0, 6))),
                "provision_state": "active" if active else "available",
                "instance_uuid": str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
                if active
                else None,
                "power_state": "power on" if active else "power off",
                "maintenance": 0.2 <= roll < 0.25,
            }
        )
    return nodes


class Http:
    """One kept-alive connection; ``get`` answers the JSON body."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
        self.headers = headers

    def get(self, path: str) -> Any:
        try:
            self.connection.request("GET", path, headers=self.headers)
            response = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionError):  # a server's idle timeout
            self.connection.close()
            self.connection.request("GET", path, headers=self.headers)
            response = self.connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"GET {path}: {response.status} {body[:300]!r}")
        return json.loads(body)


def ours(client: Http, rule: FlavorRule, pages: list[int] | None = None) -> set[str]:
    """The flavor's available nodes, every page; ``pages`` counts the requests made."""
    found: set[str] = set()
    path: str | None = f"/v1/flavors/{quote(rule.name)}/nodes?available=true"
    while path:
        if pages is not None:
            pages.append(1)
        body = client.get(path)
        found |= {n["uuid"] for n in body["nodes"]}
        following = body.get("next")
        path = (
            None if following is None else f"{urlsplit(following).path}?{urlsplit(following).query}"
        )
    return found


def asks_placement(flavor: Flavor) -> bool:
    return flavor.request is not None and not flavor.request.refused


def theirs(client: Http, flavor: Flavor) -> set[str]:
    """Placement's candidates for the flavor: none when Nova never asks."""
    if flavor.request is None or flavor.request.refused:
        return set()
    query = urlencode(flavor.request.query(limit=False))
    return set(client.get(f"/allocation_candidates?{query}")["provider_summaries"])


def server_seconds(metrics: str) -> tuple[float, float]:
    """The service's own time answering the nodes of flavors (its request histogram): the sum
    of seconds and the count of requests so far."""
    total = count = 0.0
    with urllib.request.urlopen(metrics, timeout=10) as response:
        for line in response.read().decode().splitlines():
            if 'route="/v1/flavors/{name}/nodes"' not in line:
                continue
            if line.startswith("flavorsmith_http_request_duration_seconds_sum"):
                total += float(line.rsplit(" ", 1)[1])
            elif line.startswith("flavorsmith_http_request_duration_seconds_count"):
                count += float(line.rsplit(" ", 1)[1])
    return total, count


def median_ms(work: Callable[[], object], repeats: int) -> float:
    work()  # warm
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


@contextmanager
def flavorsmith(directory: Path, nodes: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    database = f"sqlite:///{directory / 'flavorsmith.db'}"
    path = directory / "nodes.json"
    path.write_text(json.dumps(nodes))
    cli = [sys.executable, "-m", "flavorsmith"]
    done = subprocess.run(
        [*cli, "node", "import", str(path), "--database", database], capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"node import failed: {done.stderr}")
    port, metrics = free_port(), free_port()
    options = ["--port", str(port), "--metrics-port", str(metrics), "--repo", str(EXAMPLES)]
    process = subprocess.Popen(
        [*cli, "serve", "--database", database, *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            try:
                with urllib.request.urlopen(f"{url}/v1", timeout=2):
                    break
            except OSError:
                pass
            time.sleep(0.05)
        else:
            raise SystemExit("flavorsmith serve did not start")
        yield url, f"http://127.0.0.1:{metrics}/metrics"
    finally:
        process.terminate()
        process.wait(timeout=20)


def fill_sql(placement: placement_api.Placement, nodes: list[dict[str, Any]]) -> float:
    """Placement's tables filled directly, as its API would have (one root provider per node,
    its inventory of one unit, reserved when the node is unavailable, its traits)."""
    started = time.perf_counter()
    rcs = {placement_api.normalize_rc_name(n["resource_class"]) for n in nodes}
    traits = {t for n in nodes for t in placement_api.provider_traits(n)}
    for rc in sorted(rcs):
        placement.call("PUT", f"/resource_classes/{quote(rc)}")
    for trait in sorted(t for t in traits if t.startswith("CUSTOM_")):
        placement.call("PUT", f"/traits/{quote(trait)}")
    database = sqlite3.connect(placement.state / "placement.sqlite", timeout=60)
    with database:
        rc_ids = dict(database.execute("SELECT name, id FROM resource_classes"))
        trait_ids = dict(database.execute("SELECT name, id FROM traits"))
        first = database.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM resource_providers")
        first = int(first.fetchone()[0])
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        providers, inventories, links = [], [], []
        for offset, node in enumerate(nodes):
            rp = first + offset
            providers.append((rp, node["uuid"], node["uuid"], 1, rp, None, stamp))
            rc = placement_api.normalize_rc_name(node["resource_class"])
            reserved = 1 if placement_api.reserved(node) or placement_api.used(node) else 0
            inventories.append((rp, rc_ids[rc], 1, reserved, 1, 1, 1, 1.0, stamp))
            links += [(trait_ids[t], rp, stamp) for t in placement_api.provider_traits(node)]
        database.executemany(
            "INSERT INTO resource_providers (id, uuid, name, generation, root_provider_id,"
            " parent_provider_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            providers,
        )
        database.executemany(
            "INSERT INTO inventories (resource_provider_id, resource_class_id, total, reserved,"
            " min_unit, max_unit, step_size, allocation_ratio, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            inventories,
        )
        database.executemany(
            "INSERT INTO resource_provider_traits (trait_id, resource_provider_id, created_at)"
            " VALUES (?, ?, ?)",
            links,
        )
    database.close()
    return time.perf_counter() - started


def check_sample(
    placement: placement_api.Placement, nodes: list[dict[str, Any]], count: int
) -> int:
    """Read ``count`` providers back through Placement's API; the number that differ."""
    client = Http(placement.url, placement_api.PlacementHttp(placement.url).headers)
    wrong = 0
    for node in random.Random(5).sample(nodes, min(count, len(nodes))):
        path = f"/resource_providers/{node['uuid']}"
        traits = set(client.get(f"{path}/traits")["traits"])
        stock = client.get(f"{path}/inventories")["inventories"]
        rc = placement_api.normalize_rc_name(node["resource_class"])
        reserved = 1 if placement_api.reserved(node) or placement_api.used(node) else 0
        expected = {rc: (1, reserved)}
        got = {name: (each["total"], each["reserved"]) for name, each in stock.items()}
        wrong += traits != set(placement_api.provider_traits(node)) or got != expected
    return wrong


def compare(
    label: str, flavors: list[Flavor], served: tuple[str, str], theirs_url: str, repeats: int
) -> tuple[list[list[str]], int]:
    ours_url, metrics = served
    mine = Http(ours_url, {"Accept": "application/json"})
    headers = placement_api.PlacementHttp(theirs_url, version=MICROVERSION).headers
    placement = Http(theirs_url, headers)
    rows, differ = [], 0
    for flavor in flavors:
        rule = flavor.rule
        pages: list[int] = []
        a, b = ours(mine, rule, pages), theirs(placement, flavor)
        same = a == b
        differ += not same
        ours(mine, rule)  # warm
        before = server_seconds(metrics)
        ms_ours = median_ms(lambda rule=rule: ours(mine, rule), repeats)  # type: ignore[misc]
        after = server_seconds(metrics)
        server_ms = (after[0] - before[0]) / max(1.0, after[1] - before[1]) * 1000
        if asks_placement(flavor):
            ms_theirs = median_ms(lambda f=flavor: theirs(placement, f), repeats)  # type: ignore[misc]
            shown, ratio = f"{ms_theirs:.1f}", f"{ms_theirs / ms_ours:.0f}x"
        else:
            shown, ratio = "not asked (Nova refuses the boot)", "-"
        rows.append(
            [
                label,
                rule.name,
                str(len(b)),
                "yes" if same else f"NO ({len(a - b)} only ours, {len(b - a)} only Placement)",
                shown,
                f"{ms_ours:.2f}",
                f"{server_ms:.2f}",
                f"{server_ms * len(pages):.2f} ({len(pages)})",
                ratio,
            ]
        )
    return rows, differ


def index_update(count: int, seed: int) -> tuple[float, float]:
    """Seconds for the index to follow one trait change at ``count`` nodes: built afresh from
    every node (before), and followed through the change log (now); medians of 5."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/index.db")
        migrate.upgrade(engine)
        specs = [
            node_import.NodeSpec(
                None,
                str(uuidlib.UUID(int=rng.getrandbits(128), version=4)),
                {"name": f"n-{i}", "resource_class": f"rc{i % 10}"},
                tuple(rng.sample(EXTRA_TRAITS, 6)),
            )
            for i in range(count)
        ]
        with writer(engine).begin() as connection:
            node_import.import_nodes(connection, specs)
        cache = IndexCache(engine)
        cache.current()
        rebuild, follow = [], []
        for _ in range(5):
            spec = rng.choice(specs)
            with writer(engine).begin() as connection:
                node = store.find(connection, str(spec.uuid), by_name=False)
                store.set_traits(connection, node, rng.sample(EXTRA_TRAITS, 6))
            started = time.perf_counter()
            with consistent(engine).begin() as connection:
                Index.build(store.snapshot(connection))
            rebuild.append(time.perf_counter() - started)
            started = time.perf_counter()
            cache.current()
            follow.append(time.perf_counter() - started)
        assert cache.rebuilds == 1 and cache.updates == 5
        engine.dispose()
    return statistics.median(rebuild), statistics.median(follow)


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in rows)])


FULL = {"nodes": 10_000, "sql_nodes": 50_000, "repeats": 15, "index_nodes": 100_000}
QUICK = {"nodes": 2_000, "sql_nodes": 0, "repeats": 5, "index_nodes": 10_000}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--sql-nodes", type=int)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--index-nodes", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--quick", action="store_true", help="smaller defaults: a run of a couple of minutes"
    )
    args = parser.parse_args()
    defaults = QUICK if args.quick else FULL
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    flavors = example_flavors()
    rows: list[list[str]] = []
    differ = 0
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.nodes:
            nodes = inventory(args.nodes, [f.rule for f in flavors], args.seed)
            (Path(tmp) / "api").mkdir()
            with (
                placement_api.running_placement() as placement,
                flavorsmith(Path(tmp) / "api", nodes) as url,
            ):
                seeded = placement_api.seed(placement.url, nodes)
                notes.append(
                    f"{len(nodes)} nodes loaded through Placement's API in {seeded.seconds:.0f} s"
                    f" ({seeded.calls} calls)"
                )
                found, wrong = compare(
                    f"{len(nodes)} (API)", flavors, url, placement.url, args.repeats
                )
                print(table(HEADER, found), file=sys.stderr)
                rows += found
                differ += wrong
        if args.sql_nodes:
            nodes = inventory(args.sql_nodes, [f.rule for f in flavors], args.seed + 1)
            (Path(tmp) / "sql").mkdir()
            with (
                placement_api.running_placement() as placement,
                flavorsmith(Path(tmp) / "sql", nodes) as url,
            ):
                seconds = fill_sql(placement, nodes)
                wrong = check_sample(placement, nodes, args.sample)
                notes.append(
                    f"{len(nodes)} nodes written into Placement's SQLite tables in {seconds:.1f} s;"
                    f" {args.sample} providers read back through its API: {wrong} differ"
                )
                differ += wrong
                found, wrong = compare(
                    f"{len(nodes)} (SQL)", flavors, url, placement.url, args.repeats
                )
                rows += found
                differ += wrong
    print(table(HEADER, rows))
    if args.index_nodes:
        before, after = index_update(args.index_nodes, args.seed)
        print()
        print(
            table(
                ["nodes", "index after one trait change", "seconds"],
                [
                    [
                        str(args.index_nodes),
                        "built afresh from every node (before)",
                        f"{before:.3f}",
                    ],
                    [
                        str(args.index_nodes),
                        "followed through the change log (now)",
                        f"{after:.4f}",
                    ],
                ],
            )
        )
    for note in notes:
        print(f"\n{note}")
    if differ:
        print(f"\n{differ} flavors (or sampled providers) differ", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
