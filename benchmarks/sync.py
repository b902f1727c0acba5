#!/usr/bin/env python3
"""Benchmark the flavor sync with 1,000 flavors against a live compute API.

    .venv/bin/python benchmarks/sync.py [--flavors 1000] [--cloud NAME]

Writes a catalog of N flavors (10 resource classes, random traits) into a temporary deploy
repository, starts `flavorsmith serve` on a fresh SQLite file (or uses --cloud, e.g. a real
Nova), then times a first apply, a no-op apply, and an apply after changing 10 flavors, with
the API calls each made. Prints a table.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openstack
import requests

from flavorsmith.catalog.repo import Repository
from flavorsmith.catalog_rules import catalog_rules
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.factory import base_registry
from flavorsmith.extra_specs.validation import refusal
from flavorsmith.sync.engine import run
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import SdkFlavors


def write_catalog(root: Path, count: int, rng: random.Random) -> None:
    hardware = root / "hardware"
    (hardware / "device-types").mkdir(parents=True)
    (hardware / "flavors").mkdir()
    (hardware / "base").mkdir()
    classes = "".join(
        f"- name: bench.rc{i}\n  cpu: {{cores: {8 * (i + 1)}, model: CPU {i}}}\n"
        f"  memory: {{size: {65536 * (i + 1)}}}\n"
        f"  drives: [{{size: {240 * (i + 1)}}}]\n  nic_count: 2\n"
        for i in range(10)
    )
    (hardware / "device-types" / "acme-bench.yaml").write_text(
        "class: server\nmanufacturer: Acme\nmodel: Bench\nu_height: 1\nis_full_depth: true\n"
        f"resource_class:\n{classes}"
    )
    names = []
    for i in range(count):
        traits = "".join(
            f"- {{trait: T{t}, state: {rng.choice(['required', 'absent'])}}}\n"
            for t in sorted(rng.sample(range(60), 3))
        )
        name = f"bench.{i:04d}"
        names.append(name)
        (hardware / "flavors" / f"{name}.yaml").write_text(
            f"name: {name}\nresource_class: bench.rc{i % 10}\n"
            f"description: flavor {i}\ntraits:\n{traits}"
        )
    files = "".join(f"  - {n}.yaml=../flavors/{n}.yaml\n" for n in names)
    (hardware / "base" / "kustomization.yaml").write_text(
        "configMapGenerator:\n- name: device-types\n  files:\n"
        "  - acme-bench.yaml=../device-types/acme-bench.yaml\n"
        f"- name: flavors\n  files:\n{files}"
    )


def serve(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "flavorsmith",
            "serve",
            "--port",
            str(port),
            "--database",
            f"sqlite:///{directory / 'b.db'}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if requests.get(f"{url}/healthz", timeout=1).ok:
                return process, url
        except requests.ConnectionError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("flavorsmith serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--flavors", type=int, default=1000)
    parser.add_argument(
        "--cloud", help="a clouds.yaml cloud to sync into instead of a local server"
    )
    args = parser.parse_args()
    refuses = refusal(build(), "nova")

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write_catalog(directory / "deploy", args.flavors, random.Random(3))
        repository = Repository(directory / "deploy", catalog_rules(base_registry()))
        process = None
        if args.cloud:
            connection = openstack.connect(cloud=args.cloud)
        else:
            process, url = serve(directory)
            connection = openstack.connect(
                auth_type="none",
                compute_endpoint_override=f"{url}/compute/v2.1",
                load_yaml_config=False,
                load_envvars=False,
            )
        rows = []
        try:
            for label, change in (
                ("first apply", False),
                ("no-op apply", False),
                ("apply after changing 10", True),
            ):
                if change:
                    for i in range(10):
                        path = repository.hardware / "flavors" / f"bench.{i * 7:04d}.yaml"
                        path.write_text(
                            path.read_text().replace(f"flavor {i * 7}", f"flavor {i * 7}, revised")
                        )
                target = SdkFlavors(connection, refuses)
                started = time.perf_counter()
                result = run(FLAVORS, repository, target, prune=False, execute=True)
                elapsed = time.perf_counter() - started
                assert result.report is not None and not result.report.failed, (
                    result.report and result.report.failed[:3]
                )
                rows.append(
                    (label, f"{elapsed:.2f} s", str(result.report.writes), str(result.report.calls))
                )
        finally:
            if process is not None:
                process.terminate()
                process.wait(10)
    print(f"{args.flavors} flavors, target: {args.cloud or 'flavorsmith serve (SQLite)'}")
    print(f"{'run':<24} | {'time':>8} | {'changes':>7} | {'API calls':>9}")
    print("-" * 24 + "-+-" + "-" * 8 + "-+-" + "-" * 7 + "-+-" + "-" * 9)
    for label, elapsed, writes, calls in rows:
        print(f"{label:<24} | {elapsed:>8} | {writes:>7} | {calls:>9}")


if __name__ == "__main__":
    main()
