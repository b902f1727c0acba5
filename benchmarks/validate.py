#!/usr/bin/env python3
"""Benchmark `flavorsmith validate` on a catalog of 1,000 flavors and 50 device types.

    PYTHONPATH=src .venv/bin/python benchmarks/validate.py [--flavors 1000] [--device-types 50]
                                                           [--profile FILE]

Writes the catalog into a temporary deploy repository (each device type with two resource
classes, each flavor on one of them with three traits and two extra specs, all listed in
hardware/base/kustomization.yaml), then times, best of three: the command end to end (a new
process, as an operator runs it; it must say "0 errors"), its start-up alone (`validate
--help`), and the catalog load in process. With --profile, writes the in-process load's
cProfile statistics to FILE. Prints a table.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from flavorsmith.catalog.repo import Repository  # noqa: E402
from flavorsmith.extra_specs.factory import base_registry  # noqa: E402
from flavorsmith.rulebook import catalog_rules  # noqa: E402


def write_catalog(root: Path, flavors: int, device_types: int, rng: random.Random) -> None:
    hardware = root / "hardware"
    for folder in ("device-types", "flavors", "base"):
        (hardware / folder).mkdir(parents=True)
    types = []
    for d in range(device_types):
        classes = "".join(
            f"- name: bench.d{d}.rc{i}\n  cpu: {{cores: {8 * (i + 1)}, model: CPU {d}.{i}}}\n"
            f"  memory: {{size: {65536 * (i + 1)}}}\n"
            f"  drives: [{{size: {240 * (i + 1)}}}]\n  nic_count: 2\n"
            for i in range(2)
        )
        name = f"acme-bench-{d:02d}"
        types.append(name)
        (hardware / "device-types" / f"{name}.yaml").write_text(
            f"class: server\nmanufacturer: Acme\nmodel: Bench {d}\nu_height: 1\n"
            f"is_full_depth: true\nresource_class:\n{classes}"
        )
    names = []
    for i in range(flavors):
        traits = "".join(
            f"- {{trait: T{t}, state: {rng.choice(['required', 'absent'])}}}\n"
            for t in sorted(rng.sample(range(60), 3))
        )
        name = f"bench.{i:04d}"
        names.append(name)
        (hardware / "flavors" / f"{name}.yaml").write_text(
            f"name: {name}\nresource_class: bench.d{i % device_types}.rc{i % 2}\n"
            f"description: flavor {i}\ntraits:\n{traits}"
            "extra_specs:\n  hw:cpu_policy: dedicated\n  hw:mem_page_size: large\n"
        )
    kinds = (("device-types", types), ("flavors", names))
    listed = "".join(
        f"- name: {kind}\n  files:\n" + "".join(f"  - {n}.yaml=../{kind}/{n}.yaml\n" for n in files)
        for kind, files in kinds
    )
    (hardware / "base" / "kustomization.yaml").write_text(f"configMapGenerator:\n{listed}")


def best_of(runs: int, action: object) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--flavors", type=int, default=1000)
    parser.add_argument("--device-types", type=int, default=50)
    parser.add_argument("--profile", help="write the in-process load's cProfile stats here")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "flavorsmith", "validate"]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_catalog(root, args.flavors, args.device_types, random.Random(7))

        def run_command() -> None:
            done = subprocess.run(
                [*command, "--repo", str(root)], env=env, capture_output=True, text=True
            )
            if done.returncode != 0 or "0 errors" not in done.stdout + done.stderr:
                raise SystemExit(f"validate failed:\n{done.stdout}{done.stderr}")

        def start_up() -> None:
            subprocess.run([*command, "--help"], env=env, capture_output=True, check=True)

        rules = catalog_rules(base_registry())

        def load() -> None:
            view = Repository(root, rules).load()
            assert len(view.loaded) == args.flavors + args.device_types, len(view.loaded)

        whole = best_of(3, run_command)
        started = best_of(3, start_up)
        loading = best_of(3, load)
        if args.profile:
            cProfile.runctx("load()", globals(), {"load": load}, args.profile)
    rows = [
        ("catalog", f"{args.flavors:,} flavors, {args.device_types} device types"),
        ("flavorsmith validate: wall time", f"{whole:.3f} s"),
        ("start-up alone (validate --help)", f"{started:.3f} s"),
        ("catalog load and checks in process", f"{loading:.3f} s"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'figure':<{width}} | value")
    print("-" * width + "-+-" + "-" * 20)
    for key, value in rows:
        print(f"{key:<{width}} | {value}")


if __name__ == "__main__":
    main()
