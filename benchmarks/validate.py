#!/usr/bin/env python3
"""Benchmark `flavorsmith validate` on a catalog of 1,000 flavors and 50 device types.

    PYTHONPATH=src .venv/bin/python benchmarks/validate.py [--flavors 1000] [--device-types 50]
                                                           [--no-nova] [--nova-python PATH]
                                                           [--profile FILE]

Writes the catalog into a temporary deploy repository (each device type with two resource
classes, each flavor on one of them with three traits and two extra specs, all listed in
hardware/base/kustomization.yaml), then times, best of three: the command end to end (a new
process, as an operator runs it; it must say "0 errors"), as wall time and as the CPU time
of the process (user + system: on a busy machine the wall time also counts the waiting), its
start-up alone (`validate --help`), and the catalog load in process; the command runs once
first, untimed, to write Python's bytecode caches as installing the package does. The target
is 1 s of wall time end to end; the table shows the time over the target (below 1 meets it).

There is no real service that validates a catalog repository. The nearest real work is
Nova's: Nova 34 checks every extra spec of a flavor when it is set (``nova.api.validation.
extra_specs.validators.validate``). So the same flavors' extra specs, as Nova receives them
once synced (each flavor's own, its resources:CUSTOM_<class>=1 and the zeroed standard
resources, and trait:CUSTOM_<T>=required|forbidden for its traits), are checked by Nova's
validators in the test support's Nova (tests/support/nova_api.py makes it on first use,
about a minute; --no-nova skips it): a process of its own end to end (start-up, import and
every pair), and the pairs alone in that process (with an enlarged regex cache, Nova's best).
Our command does all of that work and more (it reads and checks every file), so the ratios
say how much of its time the whole validation costs against Nova's extra-spec checks alone.
With --profile, writes the in-process load's cProfile statistics to FILE. Prints a table.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from flavorsmith.catalog.repo import Repository  # noqa: E402
from flavorsmith.catalog_rules import catalog_rules  # noqa: E402
from flavorsmith.extra_specs.factory import base_registry  # noqa: E402
from flavorsmith.nova.derive import derive  # noqa: E402

TARGET = 1.0  # seconds of wall time, end to end
NOVA_CHECK = r"""
import json, re, sys, time, warnings
warnings.simplefilter("ignore")
from nova.api.validation.extra_specs import validators
pairs = json.load(sys.stdin)
re._MAXCACHE = 8192  # Nova's best: its parameterised keys compile a regex per validator
for key, value in pairs:  # warm up, as a long-running nova-api is
    try:
        validators.validate(key, value)
    except Exception:
        pass
best = float("inf")
for _ in range(3):
    started = time.perf_counter()
    for key, value in pairs:
        try:
            validators.validate(key, value)
        except Exception:
            pass
    best = min(best, time.perf_counter() - started)
print(json.dumps(best))
"""


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


def best_of(runs: int, action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def children_cpu() -> float:
    """User + system CPU seconds of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best_cpu_of(runs: int, action: Callable[[], object]) -> float:
    """The least CPU time of ``runs`` runs of a child process."""
    best = float("inf")
    for _ in range(runs):
        before = children_cpu()
        action()
        best = min(best, children_cpu() - before)
    return best


def nova_pairs(root: Path, rules: object) -> list[tuple[str, str]]:
    """Every extra spec of every flavor as Nova receives it once synced."""
    view = Repository(root, rules).load()  # type: ignore[arg-type]
    derived, _ = derive(view.catalog)
    return [(k, v) for flavor in derived for k, v in sorted(flavor.extra_specs.items())]


def nova_python(given: str | None) -> str:
    if given:
        return given
    from tests.support.nova_api import venv

    return str(venv() / "bin" / "python")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--flavors", type=int, default=1000)
    parser.add_argument("--device-types", type=int, default=50)
    parser.add_argument("--profile", help="write the in-process load's cProfile stats here")
    parser.add_argument("--no-nova", action="store_true", help="do not time Nova")
    parser.add_argument("--nova-python", help="a python that can import nova 34")
    args = parser.parse_args()
    # As installed (pip compiles every module): the first run writes the bytecode caches,
    # which the timed runs read, even where the environment says not to write them.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
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

        run_command()  # writes the bytecode caches
        whole = best_of(3, run_command)
        cpu = best_cpu_of(3, run_command)
        started = best_of(3, start_up)
        loading = best_of(3, load)
        if args.profile:
            cProfile.runctx("load()", globals(), {"load": load}, args.profile)
        pairs = nova_pairs(root, rules)
    rows = [
        ("catalog", f"{args.flavors:,} flavors, {args.device_types} device types"),
        ("flavorsmith validate: wall time", f"{whole:.3f} s"),
        ("flavorsmith validate: CPU time (user + system)", f"{cpu:.3f} s"),
        (f"wall time over the {TARGET:g} s target (< 1 meets it)", f"{whole / TARGET:.2f}"),
        ("start-up alone (validate --help)", f"{started:.3f} s"),
        ("catalog load and checks in process", f"{loading:.3f} s"),
    ]
    if not args.no_nova:
        python = nova_python(args.nova_python)
        payload = json.dumps(pairs)

        def nova_process() -> str:
            done = subprocess.run(
                [python, "-c", NOVA_CHECK], input=payload, capture_output=True, text=True
            )
            if done.returncode != 0:
                raise SystemExit(f"Nova's validators failed:\n{done.stderr}")
            return done.stdout

        nova_whole = best_of(3, nova_process)
        nova_alone = float(json.loads(nova_process()))
        process = f"nova 34 validators: a process for the {len(pairs):,} extra specs"
        rows += [
            (process, f"{nova_whole:.3f} s"),
            ("nova 34 validators: the extra specs alone, in process", f"{nova_alone:.3f} s"),
            ("ratio end to end (nova process / validate)", f"{nova_whole / whole:.2f}x"),
            ("ratio (nova's extra specs alone / validate)", f"{nova_alone / whole:.2f}x"),
        ]
    width = max(len(k) for k, _ in rows)
    print(f"{'figure':<{width}} | value")
    print("-" * width + "-+-" + "-" * 32)
    for key, value in rows:
        print(f"{key:<{width}} | {value}")


if __name__ == "__main__":
    main()
