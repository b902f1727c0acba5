#!/usr/bin/env python3
"""Set up Flavorsmith in a local virtual environment and run its main job or its tests.

    python3 dev.py demo    # set up, check the example catalog, load it into .demo/, serve
    python3 dev.py demo --reset   # the same, loading the examples again over earlier changes
    python3 dev.py demo --cloud   # a flavor written in Git boots, in the small real cloud, on a
                                  # node Flavorsmith named (until Ctrl-C; --exit: stop after)
    python3 dev.py test    # set up, run the whole test suite, ruff, mypy and the import contracts
    python3 dev.py docs    # set up, build the documentation site into site/ (warnings are errors)
    python3 dev.py docs --serve   # the same, served on http://127.0.0.1:8000/ while you edit
    python3 dev.py cloud   # set up, start a small real OpenStack on loopback until Ctrl-C
    python3 dev.py cloud --prove   # ... and prove every example flavor boots where predicted,
                                   # then a generated catalog's (--seed N: another one)
    python3 dev.py audit   # check the pinned versions (constraints.txt) for known vulnerabilities
    python3 dev.py audit --vulnerability-service=osv tests/support/nova-constraints.txt

Needs only python3 (with venv and pip, as CPython ships them); packages come from PyPI.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
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


# The sync kinds with a target in the service's own database: Nova flavors, deploy templates.
SYNCED = ("flavors", "deploy-templates")


def demo_folder() -> Path:
    """Where the demo keeps its own database: $FLAVORSMITH_DEMO_DIR, else .demo/ here."""
    return Path(os.environ.get("FLAVORSMITH_DEMO_DIR") or ROOT / ".demo").resolve()


def demo(extra: list[str]) -> int:
    """Validate the example catalog, load it into the demo's own database (the example nodes,
    then every sync kind: Nova flavors and deploy templates), show a deploy plan, print commands
    to try, then serve it (Ctrl-C stops). A later run keeps that database as it is (changes
    made through the APIs included) unless given ``--reset``."""
    reset = "--reset" in extra
    extra = [arg for arg in extra if arg != "--reset"]
    folder = demo_folder()
    database_file = folder / "flavorsmith.db"
    loaded = folder / "loaded"  # written once the examples are in: a stopped load starts again
    database = f"sqlite:///{database_file}"
    repo = ROOT / "examples"
    flavorsmith = BIN / "flavorsmith"
    on_db = ("--repo", repo, "--database", database)
    keep = database_file.exists() and loaded.exists() and not reset
    if keep:
        print(
            f"demo database {database_file} is kept from an earlier run: its nodes, flavors and "
            "deploy templates stay as they are, changes made through the APIs included; nothing "
            "is imported or synced (`sync plan` below shows what differs from the catalog).\n"
            "`python3 dev.py demo --reset` deletes it and loads the examples again.",
            flush=True,
        )
    else:
        if database_file.exists():
            why = "--reset" if reset else "an earlier run stopped before the examples were loaded"
            print(
                f"demo database {database_file} is deleted ({why}): its nodes, flavors and "
                "deploy templates, with every change made through the APIs, are replaced by "
                "the examples.",
                flush=True,
            )
        for stale in (loaded, *folder.glob("flavorsmith.db*")):
            stale.unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"demo database: {database_file} (its own; not the per-user default)", flush=True)
    status = run(flavorsmith, "validate", "--repo", repo)
    if status != 0:
        return status
    status = run(flavorsmith, "nova-flavors", "--repo", repo)
    if status != 0:
        return status
    if keep:
        for kind in SYNCED:
            status = run(flavorsmith, "sync", "plan", *on_db, "--only", kind)
            if status != 0:
                return status
    else:
        status = run(flavorsmith, "node", "import", repo / "nodes.yaml", "--database", database)
        if status != 0:
            return status
        for kind in SYNCED:
            status = run(flavorsmith, "sync", "apply", *on_db, "--only", kind, "--yes")
            if status != 0:
                return status
        loaded.write_text("the examples are loaded; python3 dev.py demo --reset loads them again\n")
    status = run(
        flavorsmith, "deploy", "plan", "dl360-c01-u01", "--flavor", "c2.large.vmx-mirror", *on_db
    )
    if status != 0:
        return status
    port = extra[extra.index("--port") + 1] if "--port" in extra[:-1] else "8780"
    print(follow_ups(port, repo, database), flush=True)
    return run(flavorsmith, "serve", *on_db, *extra)


def follow_ups(port: str, repo: Path, database: str) -> str:
    """The commands to try against the running demo, each with what it needs."""
    openstack = f"{BIN / 'openstack'} --os-auth-type none --os-endpoint http://127.0.0.1:{port}"
    flavorsmith = f"{BIN / 'flavorsmith'}"
    on_db = f"--repo {repo} --database {database}"
    return (
        "\nTry, in another terminal:\n"
        f"  {openstack}/compute flavor list\n"
        f"  {openstack}/compute flavor show c2.large.vmx-mirror\n"
        f"  {openstack}/baremetal baremetal node list --resource-class g1.8xh100 "
        "--fields name traits\n"
        f"  {openstack}/baremetal baremetal deploy template list --long\n"
        f"  {openstack}/load-balancer loadbalancer provider capability list baremetal\n"
        f"  {flavorsmith} match --flavor g1.8xh100 {on_db}\n"
        f"  {flavorsmith} capacity {on_db}\n"
        f"  {flavorsmith} sync plan {on_db} --only deploy-templates\n"
        f"  curl http://127.0.0.1:{port}/v1/flavors/g1.8xh100/nodes\n"
        f"\nThe dashboard: http://127.0.0.1:{port}/ui/\n"
    )


# How many processes run the tests: $FLAVORSMITH_TEST_WORKERS, else one per core this script
# may use; 0 runs them all in pytest's own process. `dev.py test -n N` (pytest-xdist's own
# option, given after ours) wins over both.
WORKERS_ENV = "FLAVORSMITH_TEST_WORKERS"
# Each worker starts with one half of the tests in their usual order, and one that is done
# takes half of what the other has left: few test files are split between the two (their
# module fixtures then start twice), and the session fixtures' SQLite and PostgreSQL halves
# stay apart. Measured on two cores: 9.5 min, against 12.5 with whole files (loadfile).
DISTRIBUTION = ("--dist", "worksteal")


def test_workers() -> list[str]:
    """pytest-xdist's arguments for the test run, from $FLAVORSMITH_TEST_WORKERS or the cores."""
    chosen = os.environ.get(WORKERS_ENV, "").strip()
    if chosen:
        if not chosen.isdigit():
            sys.exit(f"{WORKERS_ENV} must be a number of processes (0: no workers), not {chosen!r}")
        workers = int(chosen)
    else:
        cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        workers = len(cores) if cores else os.cpu_count() or 1
    return ["-n", str(workers), *DISTRIBUTION] if workers > 1 else ["-n", "0"]


# What ruff checks and formats.
LINTED = ("src", "tests", "benchmarks", "docs/hooks", "dev.py")


def test(extra: list[str]) -> int:
    failures = []
    # pytest exits 5 when it collected no test: that is a failure too. The 20 slowest tests are
    # listed at the end, where a CI log's tail shows them, to keep the suite's time in view.
    if run(PY, "-m", "pytest", "-q", "--durations=20", *test_workers(), *extra) != 0:
        failures.append("pytest")
    if run(PY, "-m", "ruff", "check", *LINTED) != 0:
        failures.append("ruff check")
    if run(PY, "-m", "ruff", "format", "--check", *LINTED) != 0:
        failures.append("ruff format")
    if run(PY, "-m", "mypy") != 0:
        failures.append("mypy")
    # The layers and the rules of docs/architecture.md (contracts in pyproject.toml).
    if run(BIN / "lint-imports") != 0:
        failures.append("import contracts")
    if docs([]) != 0:
        failures.append("docs")
    if failures:
        print(f"FAILED: {', '.join(failures)}", flush=True)
        return 1
    print("all checks passed", flush=True)
    return 0


def docs(extra: list[str]) -> int:
    """Build the documentation site (mkdocs.yml: docs/ into site/, strict, so a broken link or
    a page left out of the navigation fails); ``--serve`` previews it while you edit."""
    # MkDocs' own banner about its successor is news for the maintainers, not for each build.
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    if "--serve" in extra:
        rest = [arg for arg in extra if arg != "--serve"]
        return run(BIN / "mkdocs", "serve", "--dev-addr", "127.0.0.1:8000", *rest)
    return run(BIN / "mkdocs", "build", "--strict", "--clean", *extra)


# pip-audit (the PyPA's auditor) in a virtual environment of its own, so that its dependencies
# never enter the project's pins; pinned like everything else.
AUDIT_VENV = ROOT / ".venv-audit"
AUDIT_TOOL = "pip-audit==2.10.1"


def audit(extra: list[str]) -> int:
    """Check every version pinned in constraints.txt (or the requirement files named after
    ``audit``) against the Python Packaging Advisory Database, as PyPI serves it, and print one
    line per finding. A pin that could not be looked up fails the audit too, so an unreachable
    database is never mistaken for a clean report."""
    tool = AUDIT_VENV / BIN.name / "pip-audit"
    if not tool.exists():
        print(f"+ creating {AUDIT_VENV}", flush=True)
        venv.create(AUDIT_VENV, with_pip=True)
        python = AUDIT_VENV / BIN.name / "python"
        if run(python, "-m", "pip", "install", "--disable-pip-version-check", "-q", AUDIT_TOOL):
            sys.exit(f"audit failed: could not install {AUDIT_TOOL} (is PyPI reachable?)")
    options = [
        arg for arg in extra if arg.startswith("-")
    ]  # pip-audit's own, e.g. --vulnerability-service=osv
    files = [arg for arg in extra if not arg.startswith("-")] or ["constraints.txt"]
    requirements = [arg for name in files for arg in ("-r", name)]
    report = AUDIT_VENV / "report.json"
    report.unlink(missing_ok=True)
    # --no-deps: the files pin every package already; --disable-pip: nothing is installed.
    run(tool, *requirements, "--no-deps", "--disable-pip", "--progress-spinner", "off",
        "-f", "json", "-o", report, *options)  # fmt: skip
    if not report.exists():
        print("audit failed: pip-audit wrote no report (its messages above say why)", flush=True)
        return 1
    found = json.loads(report.read_text())["dependencies"]
    vulnerable = [d for d in found if d.get("vulns")]
    unchecked = [d for d in found if "skip_reason" in d]
    for dep in vulnerable:
        for vuln in dep["vulns"]:
            fixed = ", ".join(vuln.get("fix_versions") or []) or "no fixed release yet"
            print(f"VULNERABLE {dep['name']}=={dep['version']}: {vuln['id']} (fixed in: {fixed})")
    for dep in unchecked:
        print(f"NOT CHECKED {dep['name']}: {dep['skip_reason']}")
    print(
        f"{len(found)} pins: {len(vulnerable)} with known vulnerabilities, "
        f"{len(unchecked)} could not be looked up",
        flush=True,
    )
    if unchecked and len(unchecked) == len(found):
        print(
            "nothing could be looked up: the vulnerability service did not answer for any pin "
            "(PyPI's per-release JSON, or OSV with --vulnerability-service=osv, must be "
            "reachable from here)",
            flush=True,
        )
    if vulnerable or unchecked:
        print("audit failed; README, 'Refreshing the pins', says what to do", flush=True)
        return 1
    print("audit passed", flush=True)
    return 0


def cloud(extra: list[str]) -> int:
    """Start the small real cloud of the tests (tests/support/small_cloud.py: Keystone,
    Placement, Glance, Ironic and Nova's four services, installed once into the test cache),
    print its endpoints, users and a clouds.yaml, and keep it running until Ctrl-C, which
    stops it all. With --prove: run the boot proof on the example catalog, then on a
    generated one (--seed N; tests/support/boot_proof.py) instead, print a line per flavor,
    stop it all, and exit 0 only when every point holds."""
    if "--prove" in extra:
        return run(PY, "-m", "tests.support.boot_proof", *extra)
    return run(PY, "-m", "tests.support.small_cloud", *extra)


def main() -> int:
    commands = ("demo", "test", "setup", "audit", "docs", "cloud")
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__)
        return 2
    if sys.argv[1] == "audit":
        return audit(sys.argv[2:])
    setup()
    if sys.argv[1] == "demo" and "--cloud" in sys.argv[2:]:
        return run(PY, "-m", "tests.support.boot_proof", "--demo", *sys.argv[2:])
    if sys.argv[1] == "demo":
        return demo(sys.argv[2:])
    if sys.argv[1] == "test":
        return test(sys.argv[2:])
    if sys.argv[1] == "docs":
        return docs(sys.argv[2:])
    if sys.argv[1] == "cloud":
        return cloud(sys.argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
