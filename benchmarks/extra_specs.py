#!/usr/bin/env python3
"""Benchmark extra-spec validation: pairs per second and the slowest pair.

    .venv/bin/python benchmarks/extra_specs.py [--pairs 200000]
                                               [--nova-python /path/to/venv-with-nova/bin/python]

The corpus mixes exact keys, parameterised keys, trait and resource keys, unknown keys and
unregistered ones. With --nova-python, the same sample of at most 1,000 pairs is timed with
Nova's own ``validators.validate`` in that interpreter, with Python's stock regex cache and
with an enlarged one. Prints a table.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import time

from flavorsmith.extra_specs.builtin import build

NOVA_TIMER = r"""
import json, re, sys, time, warnings
warnings.simplefilter("ignore")
from nova.api.validation.extra_specs import validators
pairs = json.load(sys.stdin)
out = {}
for label, size in (("stock cache", None), ("enlarged cache", 8192)):
    if size:
        re._MAXCACHE = size
    re.purge()
    started = time.perf_counter()
    worst = 0.0
    for key, value in pairs:
        t0 = time.perf_counter()
        try:
            validators.validate(key, value)
        except Exception:
            pass
        worst = max(worst, time.perf_counter() - t0)
    out[label] = (time.perf_counter() - started, worst)
print(json.dumps(out))
"""


def corpus(count: int, rng: random.Random) -> list[tuple[str, str]]:
    registry = build()
    exact = [v.name for v in registry.validators if "{" not in v.name]
    traits = [
        v.name.replace("{group}", "")
        for v in registry.validators
        if v.name.startswith("trait{group}:") and "{trait}" not in v.name
    ]
    makers = [
        lambda: (rng.choice(exact), rng.choice(["1", "true", "dedicated", "x", "0-3", "2MB"])),
        lambda: (f"hw:numa_cpus.{rng.randint(0, 7)}", rng.choice(["0-3", "0,1", "^2", "x"])),
        lambda: (
            rng.choice(traits).replace("trait:", rng.choice(["trait:", "trait1:", "trait_gpu:"])),
            rng.choice(["required", "forbidden", "bogus"]),
        ),
        lambda: (
            f"resources{rng.choice(['', '1', '_a'])}:CUSTOM_RC_{rng.randint(0, 99)}",
            str(rng.randint(0, 2)),
        ),
        lambda: (f"trait:CUSTOM_T{rng.randint(0, 999)}", "required"),
        lambda: (f"hw:{rng.choice(['cpu_polcy', 'numa_node', 'bogus'])}", "1"),
        lambda: (f"site{rng.randint(0, 9)}:key", "v"),
        lambda: (f"capabilities:cpu_info:features:{rng.randint(0, 9)}", "<in> avx"),
    ]
    return [rng.choice(makers)() for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=200_000)
    parser.add_argument("--nova-python", help="a python that can import nova (to time Nova too)")
    args = parser.parse_args()
    rng = random.Random(7)
    pairs = corpus(args.pairs, rng)
    registry = build()
    for key, value in pairs[:1000]:  # warm up
        registry.verdict(key, value)
    worst = (0.0, ("", ""))
    started = time.perf_counter()
    for key, value in pairs:
        t0 = time.perf_counter()
        registry.verdict(key, value)
        elapsed = time.perf_counter() - t0
        if elapsed > worst[0]:
            worst = (elapsed, (key, value))
    total = time.perf_counter() - started
    rows = [
        ("flavorsmith pairs", f"{len(pairs)}"),
        ("flavorsmith pairs per second", f"{len(pairs) / total:,.0f}"),
        ("flavorsmith mean per pair", f"{total / len(pairs) * 1e6:.2f} us"),
        ("flavorsmith slowest pair", f"{worst[0] * 1e3:.3f} ms ({worst[1][0][:40]})"),
    ]
    if args.nova_python:
        sample = pairs[:1000]
        done = subprocess.run(
            [args.nova_python, "-c", NOVA_TIMER],
            input=json.dumps(sample),
            capture_output=True,
            text=True,
        )
        if done.returncode:
            rows.append(("nova", f"failed: {done.stderr.strip().splitlines()[-1]}"))
        else:
            for label, (elapsed, slowest) in json.loads(done.stdout).items():
                rows.append(
                    (f"nova ({label}) mean per pair", f"{elapsed / len(sample) * 1e6:.1f} us")
                )
                rows.append((f"nova ({label}) slowest pair", f"{slowest * 1e3:.3f} ms"))
    width = max(len(k) for k, _ in rows)
    print(f"{'figure':<{width}} | value")
    print("-" * width + "-+-" + "-" * 20)
    for key, value in rows:
        print(f"{key:<{width}} | {value}")


if __name__ == "__main__":
    main()
