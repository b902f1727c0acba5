#!/usr/bin/env python3
"""Benchmark `flavorsmith review` of a one-file change at 10,000 nodes and 200 flavors.

    PYTHONPATH=src .venv/bin/python benchmarks/review.py [--nodes 10000] [--flavors 200]
                                                         [--seed 1] [--runs 3]

Writes a catalog repository in Git into a temporary folder: the example catalog
(examples/hardware) and FLAVORS more flavors on its resource classes, each requiring or
forbidding a few of the traits its nodes carry, all listed in hardware/base/kustomization.yaml;
a node file (JSON, as `node import` takes it) of NODES seeded nodes on those classes; then a
second commit that adds a trait to one flavor (one file). Times, best of RUNS: `flavorsmith
review --base HEAD~1 --head HEAD --nodes nodes.json -f markdown` end to end (a new process, as
CI runs it on every push: start-up, Git, both catalogs loaded, the node file read once, both
revisions matched on one index, the sync plan, the Markdown), as wall time and as the CPU time
of the process; it runs once first, untimed, to write Python's bytecode caches.

There is no real service that reviews a catalog change, so no ratio against one: the table
shows the time against the 3 s target instead (below 1 meets it).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TARGET = 3.0  # seconds, end to end
CLASSES = ["m1.small", "m1.medium", "c2.large", "c2.diskless", "g1.8xh100"]
TRAITS = ["CUSTOM_NICX", "CUSTOM_NVME", "CUSTOM_NIC_MELLANOX_CX5", "CUSTOM_CPU_AVX512"]
SHORT = [t.removeprefix("CUSTOM_") for t in TRAITS]


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=Bench",
            "-c",
            "user.email=bench@example.com",
            "-c",
            "commit.gpgsign=false",
            "-C",
            str(repo),
            *args,
        ],
        check=True,
        capture_output=True,
    )


def catalog(repo: Path, count: int, rng: random.Random) -> list[Path]:
    """The example catalog and ``count`` flavors more; their files."""
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    kustomization = repo / "hardware" / "base" / "kustomization.yaml"
    anchor = "  - m1.small.yaml=../flavors/m1.small.yaml\n"
    listed = []
    files = []
    for i in range(count):
        name = f"bench.{i:04d}"
        chosen = rng.sample(SHORT, rng.randint(0, 2))
        traits = "".join(
            f"  - trait: {t}\n    state: {rng.choice(['required', 'absent'])}\n" for t in chosen
        )
        path = repo / "hardware" / "flavors" / f"{name}.yaml"
        path.write_text(
            f"name: {name}\nresource_class: {rng.choice(CLASSES)}\n"
            + (f"traits:\n{traits}" if traits else "")
        )
        listed.append(f"  - {name}.yaml=../flavors/{name}.yaml\n")
        files.append(path)
    text = kustomization.read_text()
    kustomization.write_text(text.replace(anchor, anchor + "".join(listed)))
    return files


def nodes(count: int, rng: random.Random) -> list[dict[str, object]]:
    return [
        {
            "name": f"node-{i:05d}",
            "resource_class": rng.choice(CLASSES),
            "traits": sorted(rng.sample(TRAITS, rng.randint(0, 3))),
            "provision_state": rng.choice(["available", "active"]),
            "power_state": "power off",
        }
        for i in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--flavors", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="flavorsmith-review-bench-") as folder:
        repo = Path(folder) / "catalog"
        files = catalog(repo, args.flavors, rng)
        (repo / "nodes.json").write_text(json.dumps(nodes(args.nodes, rng)))
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        changed = files[len(files) // 2]
        text = changed.read_text()
        if "traits:" not in text:
            text += "traits:\n"
        changed.write_text(text + "  - trait: NVME\n    state: required\n")
        git(repo, "commit", "-q", "-a", "-m", "one flavor requires NVMe")
        command = [
            str(Path(sys.executable).parent / "flavorsmith"),
            "review",
            "--repo",
            str(repo),
            "--base",
            "HEAD~1",
            "--head",
            "HEAD",
            "--nodes",
            str(repo / "nodes.json"),
            "-f",
            "markdown",
        ]
        first = subprocess.run(command, capture_output=True, text=True, check=False)
        if first.returncode != 0:
            sys.exit(f"review failed ({first.returncode}): {first.stderr}")
        walls, cpus = [], []
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True)
            walls.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        headline = next(line for line in first.stdout.splitlines() if line.startswith("**"))
    wall, cpu = min(walls), min(cpus)
    rows = [
        ("nodes / flavors", f"{args.nodes} / {args.flavors + 12}"),
        ("change", "one flavor file (a trait required)"),
        ("headline", headline.strip("*")),
        ("review end to end, wall (best of runs)", f"{wall:.2f} s"),
        ("review end to end, CPU", f"{cpu:.2f} s"),
        ("target", f"{TARGET:.0f} s (no real service reviews a catalog change)"),
        ("wall / target", f"{wall / TARGET:.2f}"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'figure':<{width}} | value")
    print("-" * width + "-+-" + "-" * 14)
    for key, value in rows:
        print(f"{key:<{width}} | {value}")


if __name__ == "__main__":
    main()
