#!/usr/bin/env python3
"""Set up Flavorsmith in a local virtual environment and run its main job or its tests.

    python3 dev.py demo    # set up, check the example catalog, load the example nodes, serve
    python3 dev.py test    # set up, run the whole test suite, ruff, mypy and the import contracts

Needs only python3 (with venv and pip, as CPython ships them); packages come from PyPI.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
INPUTS = ("pyproject.toml", "constraints.txt")


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run(*argv: str | Path) -> int:
    """Run one step and return its exit status. Ctrl-C or SIGTERM sent to this script goes to
    the step too (once: it runs in its own process group), this script waits for it to end and
    then stops with 128 + the signal, so stopping ``demo`` never leaves a server running."""
    print("+", " ".join(str(a) for a in argv), flush=True)
    group = {"process_group": 0} if os.name == "posix" else {}
    child = subprocess.Popen([str(a) for a in argv], cwd=ROOT, **group)  # type: ignore[call-overload]
    received: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)

    previous = {number: signal.signal(number, forward) for number in STOP_SIGNALS}
    try:
        status: int = child.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if received:
        sys.exit(128 + received[0])
    return status


def setup() -> None:
    """Create .venv and install the package with its test extras, when inputs changed."""
    digest = hashlib.sha256(b"".join((ROOT / name).read_bytes() for name in INPUTS)).hexdigest()
    stamp = VENV / ".flavorsmith-installed"
    if PY.exists() and stamp.exists() and stamp.read_text() == digest:
        return
    if not PY.exists():
        print(f"+ creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    pip = [PY, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if run(*pip, "-c", "constraints.txt", "-e", ".[test]") != 0:
        sys.exit("setup failed: could not install the package (is PyPI reachable?)")
    stamp.write_text(digest)


def demo(extra: list[str]) -> int:
    """Validate the example catalog, show its Nova flavors, then serve it (Ctrl-C stops)."""
    flavorsmith = BIN / "flavorsmith"
    status = run(flavorsmith, "validate", "--repo", "examples")
    if status != 0:
        return status
    status = run(flavorsmith, "nova-flavors", "--repo", "examples")
    if status != 0:
        return status
    status = run(flavorsmith, "node", "import", "examples/nodes.yaml")
    if status != 0:
        return status
    sync = [flavorsmith, "sync", "apply", "--repo", "examples", "--yes"]
    status = run(*sync, "--only", "deploy-templates")
    if status != 0:
        return status
    status = run(
        flavorsmith,
        "deploy",
        "plan",
        "dl360-c01-u01",
        "--flavor",
        "c2.large.vmx-mirror",
        "--repo",
        "examples",
    )
    if status != 0:
        return status
    port = extra[extra.index("--port") + 1] if "--port" in extra[:-1] else "8780"
    print(
        "\nTry, in another terminal:\n"
        f"  {BIN / 'openstack'} --os-auth-type none --os-endpoint "
        f"http://127.0.0.1:{port}/baremetal baremetal node list --resource-class g1.8xh100 "
        "--fields name traits\n"
        f"  {BIN / 'openstack'} --os-auth-type none --os-endpoint "
        f"http://127.0.0.1:{port}/baremetal baremetal deploy template list --long\n"
        f"  {BIN / 'openstack'} --os-auth-type none --os-endpoint "
        f"http://127.0.0.1:{port}/load-balancer loadbalancer provider capability list "
        "baremetal\n",
        flush=True,
    )
    return run(flavorsmith, "serve", "--repo", "examples", *extra)


def test(extra: list[str]) -> int:
    failures = []
    # pytest exits 5 when it collected no test: that is a failure too.
    if run(PY, "-m", "pytest", "-q", *extra) != 0:
        failures.append("pytest")
    if run(PY, "-m", "ruff", "check", "src", "tests", "benchmarks", "dev.py") != 0:
        failures.append("ruff check")
    if run(PY, "-m", "ruff", "format", "--check", "src", "tests", "benchmarks", "dev.py") != 0:
        failures.append("ruff format")
    if run(PY, "-m", "mypy") != 0:
        failures.append("mypy")
    # The layers and the rules of docs/architecture.md (contracts in pyproject.toml).
    if run(BIN / "lint-imports") != 0:
        failures.append("import contracts")
    if failures:
        print(f"FAILED: {', '.join(failures)}", flush=True)
        return 1
    print("all checks passed", flush=True)
    return 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("demo", "test", "setup"):
        print(__doc__)
        return 2
    setup()
    if sys.argv[1] == "demo":
        return demo(sys.argv[2:])
    if sys.argv[1] == "test":
        return test(sys.argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
