"""A plain ``pip install`` of the built wheel, without extras, is enough for
``flavorsmith sync plan --endpoint`` against a live ``flavorsmith serve``.

The fresh virtual environment is cached under ~/.cache/flavorsmith-tests (or
$FLAVORSMITH_TEST_CACHE), keyed by pyproject.toml and constraints.txt: the first run installs
every dependency from the package index, later runs only reinstall the freshly built wheel."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from tests.support.cache import CACHE, install_lock
from tests.support.serve import serve_process
from tests.support.wheels import INPUTS, build_wheel

pytestmark = pytest.mark.slow


def fresh_venv(wheel: Path) -> Path:
    """A virtual environment holding only the wheel and its declared dependencies."""
    key = hashlib.sha256(b"".join((ROOT / n).read_bytes() for n in INPUTS)).hexdigest()[:16]
    home = CACHE / f"wheel-venv-{key}"
    python = home / "bin" / "python"
    stamp = home / ".installed"
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "-q"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV")}
    with install_lock("wheel-venv"):  # another process may be installing into it
        if not stamp.exists():
            for stale in CACHE.glob("wheel-venv-*"):  # built for other dependencies
                if stale.is_dir():
                    shutil.rmtree(stale, ignore_errors=True)
            venv.create(home, with_pip=True)
            subprocess.run(
                [*pip, "install", "-c", str(ROOT / "constraints.txt"), str(wheel)],
                check=True,
                env=env,
                timeout=900,
            )
            stamp.write_text(key)
        else:  # dependencies unchanged: only this build of the package itself
            subprocess.run(
                [*pip, "install", "--no-deps", "--force-reinstall", str(wheel)],
                check=True,
                env=env,
                timeout=300,
            )
    return home


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    folder = tmp_path / "server"
    folder.mkdir()
    with serve_process(folder, home=folder, ready="/healthz") as served:
        yield served.url


def test_a_plain_install_can_sync_plan_against_an_endpoint(tmp_path: Path, served: str) -> None:
    home = fresh_venv(build_wheel(tmp_path))
    python = home / "bin" / "python"
    extras = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('pytest') is None)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert extras.stdout.strip() == "True"  # no test extras in this environment
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OS_CLOUD")}
    env["XDG_DATA_HOME"] = str(tmp_path / "client")
    done = subprocess.run(
        [
            str(home / "bin" / "flavorsmith"),
            "sync",
            "plan",
            "--endpoint",
            f"{served}/compute/v2.1",
            "--repo",
            str(EXAMPLES),
            "-f",
            "json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    actions = json.loads(done.stdout)["actions"]
    assert len(actions) == 12 and {a["action"] for a in actions} == {"create"}
    location = subprocess.run(
        [str(python), "-c", "import flavorsmith; print(flavorsmith.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert location.stdout.startswith(str(home))  # the wheel, not the sources
