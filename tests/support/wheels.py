"""The project's wheel, and a wheelhouse of its pinned dependencies, for the tests that install
Flavorsmith as an operator does (into a fresh virtual environment, never the development one).

The wheelhouse is cached under ~/.cache/flavorsmith-tests (or $FLAVORSMITH_TEST_CACHE), keyed by
pyproject.toml and constraints.txt: the first run downloads every dependency from the package
index, later runs install from it without the network. Made under the cache's install lock."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.support.cache import CACHE, install_lock

INPUTS = ("pyproject.toml", "constraints.txt")


def inputs_key() -> str:
    return hashlib.sha256(b"".join((ROOT / n).read_bytes() for n in INPUTS)).hexdigest()[:16]


def clean_env() -> dict[str, str]:
    """The environment without the development checkout on the path."""
    drop = ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV")
    return {k: v for k, v in os.environ.items() if k not in drop}


def build_wheel(out: Path) -> Path:
    """The project's wheel, built from a copy of the sources (the work tree stays clean)."""
    source = out / "source"
    source.mkdir()
    for name in (*INPUTS, "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "src" / "flavorsmith",
        source / "src" / "flavorsmith",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("flavorsmith-*.whl")
    return wheel


def wheelhouse(wheel: Path) -> Path:
    """Wheels of every dependency of ``wheel``, pinned by constraints.txt (cached)."""
    home = CACHE / f"wheelhouse-{inputs_key()}"
    stamp = home / ".complete"
    if stamp.exists():
        return home
    with install_lock("wheelhouse"):
        if stamp.exists():
            return home  # another process made it while this one waited
        for stale in CACHE.glob("wheelhouse-*"):  # built for other dependencies
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
        subprocess.run(
            [*pip, "wheel", "-c", str(ROOT / "constraints.txt"), "-w", str(home), str(wheel)],
            check=True,
            env=clean_env(),
            timeout=1200,
        )
        for own in home.glob("flavorsmith-*.whl"):  # the project itself comes from the test
            own.unlink()
        stamp.write_text(inputs_key())
    return home
