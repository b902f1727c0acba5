#!/usr/bin/env python3
"""The service's own time answering a flavor's nodes, in process: no network, no Placement.

    PYTHONPATH=src .venv/bin/python benchmarks/flavor_nodes.py [--nodes 10000] [--repeats 200]
        [--profile]

``--nodes`` nodes (benchmarks/placement.py's seeded inventory) imported into a SQLite database,
the application built as ``flavorsmith serve`` builds it (the example catalog, no
authentication), then for each flavor of the example catalog
``GET /v1/flavors/F/nodes?available=true`` (every page) called through the whole ASGI stack
(middleware, routing, handler, serialization) with a warm index: the median of ``--repeats``
answers per flavor, the time spent in the application (all pages; not the client's parsing).
``--profile`` prints cProfile's view of those calls. Runs on any checkout of the project (to
measure a change before and after), in a few seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.placement import EXAMPLES, inventory  # noqa: E402
from tests.support.catalogs import repository  # noqa: E402

from flavorsmith.api.app import create_app  # noqa: E402
from flavorsmith.config import Settings  # noqa: E402
from flavorsmith.db import migrate  # noqa: E402
from flavorsmith.db.engine import make_engine, writer  # noqa: E402
from flavorsmith.matching.reports import rules_of  # noqa: E402
from flavorsmith.nodes import importer  # noqa: E402


class Client:
    """GET through the ASGI application, as a server would call it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seconds = 0.0  # inside the application (not this client's JSON parsing)

    async def get(self, path: str, query: str) -> Any:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1"), (b"accept", b"application/json")],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        started = time.perf_counter()
        await self.app(scope, receive, send)
        self.seconds += time.perf_counter() - started
        if sent[0]["status"] != 200:
            raise SystemExit(f"GET {path}?{query}: {sent[0]['status']}")
        return json.loads(b"".join(m.get("body", b"") for m in sent[1:]))

    async def nodes(self, flavor: str) -> int:
        """Every page of the flavor's available nodes; the number of pages."""
        path, query, pages = f"/v1/flavors/{quote(flavor)}/nodes", "available=true", 0
        while True:
            body = await self.get(path, query)
            pages += 1
            following = body.get("next")
            if following is None:
                return pages
            path, query = urlsplit(following).path, urlsplit(following).query


async def measure(client: Client, flavors: list[str], repeats: int) -> list[list[str]]:
    rows = []
    for flavor in flavors:
        pages = await client.nodes(flavor)  # warm: the index, the node entries
        times = []
        for _ in range(repeats):
            client.seconds = 0.0
            await client.nodes(flavor)
            times.append(client.seconds)
        rows.append([flavor, str(pages), f"{statistics.median(times) * 1000:.3f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    rules = rules_of(repository(EXAMPLES).load().catalog)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/flavorsmith.db"
        engine = make_engine(url)
        migrate.upgrade(engine)
        parsed = importer.parse(inventory(args.nodes, rules, args.seed))
        with writer(engine).begin() as connection:
            importer.store_nodes(connection, parsed.specs)
        client = Client(create_app(Settings(database_url=url, repo=EXAMPLES), engine=engine))
        flavors = [r.name for r in rules]
        rows = asyncio.run(measure(client, flavors, args.repeats))
        print(f"| flavor ({args.nodes} nodes) | pages | ms per flavor (median) |")
        print("|---|---|---|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        medians = [float(r[2]) for r in rows]
        print(f"\n{min(medians):.3f} to {max(medians):.3f} ms, mean {statistics.mean(medians):.3f}")
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            asyncio.run(measure(client, flavors, 20))
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        engine.dispose()


if __name__ == "__main__":
    main()
