#!/usr/bin/env python3
"""Benchmark the matcher at the design target.

    .venv/bin/python benchmarks/match.py [--nodes 100000] [--flavors 1000] [--seed 1]

Builds a seeded inventory (60-trait pool, about 8 traits per node, 10 resource classes) and
random flavors, then prints index build time, the full flavor -> nodes table (as counts),
a single-flavor query p50, capacity with competition counts, and the brute-force time for a
50-flavor sample measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from flavorsmith.matching.capacity import report
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index
from flavorsmith.matching.match import brute_force
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

POOL = [f"CUSTOM_TRAIT_{i:02d}" for i in range(60)]
CLASSES = [f"baremetal.class-{i}" for i in range(10)]


def inventory(count: int, rng: random.Random) -> Snapshot:
    nodes = tuple(
        NodeInfo(
            uuid=f"00000000-0000-0000-0000-{i:012d}",
            name=f"node-{i:06d}",
            resource_class=rng.choice(CLASSES),
            traits=frozenset(rng.sample(POOL, max(0, min(50, int(rng.gauss(8, 2)))))),
            provisioned=rng.random() < 0.5,
            maintenance=rng.random() < 0.02,
        )
        for i in range(count)
    )
    return Snapshot(nodes)


def flavors(count: int, rng: random.Random) -> list[FlavorRule]:
    out = []
    for i in range(count):
        chosen = rng.sample(POOL, rng.randint(0, 4))
        split = rng.randint(0, len(chosen))
        out.append(
            FlavorRule(
                f"flavor-{i}",
                rng.choice(CLASSES),
                frozenset(chosen[:split]),
                frozenset(chosen[split:]),
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--flavors", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    snapshot = inventory(args.nodes, rng)
    rules = flavors(args.flavors, rng)

    started = time.perf_counter()
    index = Index.build(snapshot)
    build = time.perf_counter() - started

    started = time.perf_counter()
    table = {f.name: index.match(f).bit_count() for f in rules}
    full = time.perf_counter() - started

    singles = []
    for flavor in rules[:200]:
        t0 = time.perf_counter()
        index.match(flavor).bit_count()
        singles.append((time.perf_counter() - t0) * 1000)

    started = time.perf_counter()
    capacity = report(index, rules)
    capacity_time = time.perf_counter() - started

    sample = rules[:50]
    started = time.perf_counter()
    brute = {f.name: len(brute_force(f, snapshot)) for f in sample}
    brute_time = time.perf_counter() - started
    assert all(brute[f.name] == table[f.name] for f in sample), "index and brute force disagree"
    assert [c.matching for c in capacity.flavors] == [table[f.name] for f in rules]

    rows = [
        ("nodes / flavors", f"{args.nodes} / {args.flavors}"),
        ("index build", f"{build * 1000:.0f} ms"),
        ("full flavor->nodes table (counts)", f"{full * 1000:.1f} ms"),
        ("single-flavor query p50", f"{statistics.median(singles):.3f} ms"),
        ("capacity report (with competition)", f"{capacity_time * 1000:.0f} ms"),
        ("brute force, 50-flavor sample", f"{brute_time * 1000:.0f} ms"),
        (
            "brute force, extrapolated to all flavors",
            f"{brute_time * len(rules) / len(sample):.1f} s",
        ),
        ("matching nodes (sum over flavors)", f"{sum(table.values())}"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'figure':<{width}} | value")
    print("-" * width + "-+-" + "-" * 14)
    for key, value in rows:
        print(f"{key:<{width}} | {value}")


if __name__ == "__main__":
    main()
